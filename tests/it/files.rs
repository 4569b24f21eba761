//! Image files, bad inputs, closed pipes and Ctrl-C.

use crate::helpers::seekprobe_command;
use crate::helpers::temp_dir;
use crate::helpers::{Finish, image, refused, run_file, seekprobe};
use predicates::prelude::*;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn blksize(p: &std::path::Path) -> u64 {
    std::fs::metadata(p).unwrap().blksize()
}

#[test]
fn one_line_form_for_files_of_any_size() {
    let dir = temp_dir();
    for (name, len) in [
        ("a", 1u64 << 20),
        ("odd", 1000),
        ("huge", 3u64 << 40),
        ("b", 12345679),
    ] {
        let p = image(dir.path(), name, len);
        let expected = format!(
            "{}\t512\t{len}\t{}\t{}\t0\n",
            p.display(),
            len / 512,
            blksize(&p)
        );
        seekprobe().arg(&p).assert().success().stdout(expected);
    }
}

#[test]
fn verbose_form_for_a_file() {
    let dir = temp_dir();
    let p = image(dir.path(), "img", 256 << 20);
    let expected = format!(
        "{}\n\t512         \t# sectorsize\n\t268435456   \t# mediasize in bytes (256M)\n\t524288      \t# mediasize in sectors\n\t{:<12}\t# stripesize\n\t0           \t# stripeoffset\n\tNo          \t# TRIM/UNMAP support\n\tUnknown     \t# Rotation rate in RPM\n\n",
        p.display(),
        blksize(&p)
    );
    seekprobe()
        .arg("-v")
        .arg(&p)
        .assert()
        .success()
        .stdout(expected);
}

#[test]
fn a_file_with_a_partial_sector_is_probed_in_whole_sectors_and_says_so() {
    let dir = temp_dir();
    let p = image(dir.path(), "odd", (2 << 20) + 100);
    seekprobe()
        .args(["-t", "--settle", "0"])
        .arg(&p)
        .assert()
        .success()
        .stdout(predicate::str::contains("\tinside:      "))
        .stderr(predicate::str::contains(
            "only the 4096 whole sectors are probed",
        ));
}

#[test]
fn bad_inputs_get_one_clear_line_and_status_1() {
    let dir = temp_dir();
    let empty = image(dir.path(), "empty", 0);
    let one = image(dir.path(), "one", 1);
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let d = dir.path().display().to_string();
    let cases: Vec<(String, String)> = vec![
        (
            format!("{d}/missing"),
            format!("{d}/missing: no such file or directory"),
        ),
        (d.clone(), format!("{d}: a directory")),
        (
            "/dev/null".into(),
            "/dev/null: a character device, not a disk".into(),
        ),
        (
            "null".into(),
            "/dev/null: a character device, not a disk".into(),
        ),
        (
            "no-such-disk-xyz".into(),
            "neither no-such-disk-xyz nor /dev/no-such-disk-xyz exists".into(),
        ),
        (
            fifo.display().to_string(),
            format!("{}: a FIFO", fifo.display()),
        ),
        (
            empty.display().to_string(),
            format!(
                "{}: 0 bytes, less than one 512-byte sector",
                empty.display()
            ),
        ),
        (
            one.display().to_string(),
            format!("{}: 1 bytes, less than one 512-byte sector", one.display()),
        ),
    ];
    for (arg, msg) in cases {
        let out = seekprobe()
            .arg("-t")
            .arg(&arg)
            .timeout(Duration::from_secs(20))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{arg}: {err}");
        assert!(err.contains(&msg), "{arg}: expected {msg:?} in {err:?}");
        assert_eq!(err.lines().count(), 1, "{arg}: one line expected: {err:?}");
        assert!(!err.contains("panicked") && out.stdout.is_empty(), "{arg}");
    }
}

#[test]
fn other_disks_are_still_probed_after_a_failure() {
    let dir = temp_dir();
    let a = image(dir.path(), "a", 4 << 20);
    let b = image(dir.path(), "b", 8 << 20);
    seekprobe()
        .arg(&a)
        .arg(dir.path().join("missing"))
        .arg(&b)
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("/a\t512\t4194304")
                .and(predicate::str::contains("/b\t512\t8388608")),
        );
}

#[test]
fn media_too_small_for_t_says_which_limit() {
    let dir = temp_dir();
    let p = image(dir.path(), "small", 512 << 10);
    seekprobe()
        .arg("-t")
        .arg(&p)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("# sectorsize"))
        .stderr(predicate::str::contains(
            "too small for the seek and transfer (-t) test: 524288 bytes, under the 1 MiB",
        ));
    seekprobe()
        .arg("-c")
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("under the 10 MiB plus one sector"));
}

#[test]
fn ctv_on_a_file_prints_every_line_in_diskinfo_format() {
    let dir = temp_dir();
    let p = image(dir.path(), "img", 64 << 20);
    let text = seekprobe().arg("-ctv").arg(&p).stdout_of_success();
    crate::loopdev::assert_ctv_format(&text, &p.display().to_string());
}

#[test]
fn a_closed_stdout_ends_quietly() {
    let (_dir, p) = run_file("img");
    std::fs::write(&p, vec![1u8; 64 << 20]).unwrap();
    let mut child = seekprobe_command()
        .args(["-ctv", "--settle", "0.05"])
        .arg(&p)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first.trim_end(), p.display().to_string());
    // The reader is dropped here: the pipe is closed.
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ctrl_c_stops_promptly_keeps_complete_lines_and_exits_130() {
    let dir = temp_dir();
    let p = image(dir.path(), "img", 64 << 20);
    let mut run =
        crate::helpers::Spawned::start(&["-tv", "--settle", "0.4", p.to_str().unwrap()], &[]);
    // Ctrl-C once the full-stroke line is out (not after a guessed time): the
    // seek lines are complete, the transfer rates not begun.
    let full = "Seek times:\n\tFull stroke:\t  250 iter in ";
    run.wait_until("the full-stroke seek line", |r| {
        let out = r.stdout();
        out.find(full)
            .and_then(|at| out[at..].find('\n'))
            .map(|_| ())
    });
    let sent = Instant::now();
    run.signal(nix::sys::signal::Signal::SIGINT);
    let (code, text, err) = run.finish();
    assert!(
        sent.elapsed() < Duration::from_secs(2),
        "took {:?} to stop",
        sent.elapsed()
    );
    assert_eq!(code, Some(130));
    assert!(text.contains(full), "{text}");
    assert!(
        text.ends_with('\n') && !text.contains("Transfer rates"),
        "{text}"
    );
    assert!(err.contains("interrupted"), "{err}");
}

#[test]
fn a_test_the_media_is_too_small_for_does_not_stop_the_others() {
    let (_dir, p) = run_file("img");
    std::fs::write(&p, vec![7u8; 5 << 20]).unwrap();
    seekprobe()
        .args(["-ct", "--quiet"])
        .arg(&p)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "too small for the command overhead (-c) test",
        ))
        .stdout(
            predicate::str::contains("Seek times:")
                .and(predicate::str::contains("\tinside:      ")),
        );
}

#[test]
fn an_inverted_scan_range_is_refused() {
    refused(
        &["--scan", "--start", "100", "--end", "50", "sim:ssd?size=1G"],
        "--end 50 is not after --start 100",
    );
}

#[test]
fn output_files_never_land_on_a_disk_and_no_disk_is_named_twice() {
    let (dir, p) = run_file("img");
    std::fs::write(&p, vec![5u8; 4 << 20]).unwrap();
    seekprobe()
        .arg("-v")
        .arg("--json-file")
        .arg(&p)
        .arg(&p)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "that is one of the disks being probed",
        ));
    assert_eq!(std::fs::metadata(&p).unwrap().len(), 4 << 20);
    refused(
        &["--zones=2", "--plot", "/dev/null", "sim:ssd"],
        "--plot /dev/null: not a regular file",
    );
    seekprobe()
        .arg(&p)
        .arg(dir.path().join(".").join("img"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("are the same disk"));
    // render never opens a FIFO (it would wait for a writer forever).
    let fifo = dir.path().join("fifo");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    seekprobe()
        .arg("render")
        .arg(&fifo)
        .timeout(Duration::from_secs(10))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a regular file"));
}
