//! Long runs in sight: the exit status whatever happens to standard output, the
//! live lines of each drive on standard error (off a terminal and on one).

use std::process::Command;

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("seekprobe")
}

#[test]
fn a_closed_standard_output_keeps_the_verdicts_status() {
    // `seekprobe -t --qualify /dev/sdz sim:hdd | head -1`, the reader gone before
    // the first line: the missing drive fails its verdict, so the run ends with 3
    // whether its text is read or not.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(binary())
        .args(["-t", "--qualify", "/dev/sdz-not-there", "sim:hdd"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    // Quietly: no complaint about the closed output.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot write the output"), "{err}");
    // A passing run stays 0 with its output closed.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(binary())
        .args(["-t", "--qualify", "sim:hdd"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}
