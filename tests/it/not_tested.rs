//! NOT TESTED (issue 56): a drive seekprobe or the operator left untested (writing
//! refused for a partition table, a device held by another program) is never
//! judged FAIL, exits 4 and leaves no run file behind; a drive that reports itself
//! read-only still FAILs; SMART asked of a device that has none is not the drive's
//! fault either, nor SMART the user may not read (smartctl not allowed to open
//! the device). (A path that does not exist: tests/it/verdict.rs.)

use crate::helpers::loop_tests;
use crate::helpers::{LoopDev, image, run, run_file, seekprobe, stand_in_smartctl, temp_dir};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

/// A burn-in of `disk` (with `--json-file json` when given), its run files in
/// `runs`: status, stdout, stderr.
fn burn_in(runs: &Path, disk: &str, json: Option<&Path>) -> (i32, String, String) {
    let mut cmd = seekprobe();
    cmd.env("SEEKPROBE_RUNS_DIR", runs)
        .args(["--burn-in", "-w", "--yes", "--qualify", "-q"]);
    if let Some(j) = json {
        cmd.arg("--json-file").arg(j);
    }
    let out = cmd.arg(disk).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The files in `dir` (none when it was never made).
fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

loop_tests! {
    fn a_loop_device_holding_a_partition_table_is_not_tested_and_leaves_no_run_file() {
        let l = LoopDev::scratch(32 << 20, true, None);
        // A DOS partition table: one Linux partition from sector 2048, and 55 AA.
        let dev = std::fs::OpenOptions::new()
            .write(true)
            .open(&l.dev)
            .unwrap();
        let mut entry = [0u8; 16];
        entry[4] = 0x83;
        entry[8..12].copy_from_slice(&2048u32.to_le_bytes());
        entry[12..16].copy_from_slice(&20_000u32.to_le_bytes());
        dev.write_all_at(&entry, 446).unwrap();
        dev.write_all_at(&[0x55, 0xAA], 510).unwrap();
        dev.sync_all().unwrap();
        drop(dev);
        let (_dir, runs) = run_file("runs");
        let (code, out, err) = burn_in(&runs, &l.dev, None);
        assert_eq!(code, 4, "{out}{err}");
        assert!(out.contains("  verdict: NOT TESTED\n"), "{out}");
        assert!(out.contains("wipe it (wipefs -a)"), "{out}");
        assert!(!out.contains("FAIL"), "{out}");
        assert!(
            err.contains("no drive was tested, so no run is kept"),
            "{err}"
        );
        assert_eq!(files(&runs), Vec::<std::path::PathBuf>::new());
        // Named by the operator, the run is kept, its state `not_tested`.
        let json = runs.join("named.json");
        let (code, _, err) = burn_in(&runs, &l.dev, Some(&json));
        assert_eq!(code, 4, "{err}");
        let run: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let verdict = &run["disks"][0]["verdict"];
        assert_eq!(verdict["state"], "not_tested", "{run}");
        assert_eq!(verdict["pass"], false, "{run}");
        assert_eq!(verdict["findings"][0]["code"], "not_tested", "{run}");
    }

    fn a_device_another_program_holds_is_not_tested_one_that_reports_itself_read_only_fails() {
        let l = LoopDev::scratch(16 << 20, true, None);
        let (_dir, runs) = run_file("runs");
        // Held: opened exclusively (as a mount, another burn-in or mdadm holds it).
        let held = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_EXCL)
            .open(&l.dev)
            .unwrap();
        let (code, out, err) = burn_in(&runs, &l.dev, None);
        assert_eq!(code, 4, "{out}{err}");
        assert!(out.contains("  verdict: NOT TESTED\n"), "{out}");
        assert!(out.contains("unmount or release it first"), "{out}");
        drop(held);
        // Read-only as the kernel reports it: the drive's own answer, a FAIL.
        let ro = LoopDev::scratch_read_only(16 << 20);
        let (code, out, err) = burn_in(&runs, &ro.dev, None);
        assert_eq!(code, 3, "{out}{err}");
        assert!(out.contains("  verdict: FAIL\n"), "{out}");
        assert!(out.contains("read-only"), "{out}");
        // A FAIL is a record: its run file stays.
        assert_eq!(files(&runs).len(), 1, "{:?}", files(&runs));
    }
}

#[test]
#[cfg_attr(
    seekprobe_no_smartctl,
    ignore = "needs smartctl (apt-get install smartmontools; .ci/run does)"
)]
fn smart_asked_of_an_image_file_without_smart_is_not_tested_and_tests_that_ran_are_judged() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 16 << 20);
    let img = img.to_str().unwrap();
    // SMART alone, and the device has none: nothing was measured, NOT TESTED.
    let (_jd, json) = run_file("run.json");
    let json_arg = json.to_str().unwrap();
    let (code, out, err) = run(&["--smart", "--qualify", "--json-file", json_arg, img]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(out.contains(&format!("\t{img}: NOT TESTED\n")), "{out}");
    assert!(
        out.contains("SMART could not be read (the device has no SMART: "),
        "{out}"
    );
    assert!(
        out.contains("run a test (e.g. -t, --scan or --verify)"),
        "{out}"
    );
    assert!(!out.contains("FAIL"), "{out}");
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let verdict = &run_json["disks"][0]["verdict"];
    assert_eq!(verdict["state"], "not_tested", "{run_json}");
    assert_eq!(verdict["findings"][0]["code"], "not_tested", "{run_json}");
    // With a test that ran: it is judged, and a note says SMART was not read.
    let (code, out, err) = run(&["-t", "--smart", "--qualify", img]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(&format!("\t{img}: PASS\n")), "{out}");
    assert!(
        out.contains("\t\tnote: SMART not read: the device has no SMART ("),
        "{out}"
    );
}

/// What smartctl 7.3 prints for a user who may not open the device (a member of
/// the disk group: smartctl needs raw I/O rights), exit status 2 (bit 1).
const DENIED: &str = r#"echo '{"json_format_version":[1,0],"smartctl":{"version":[7,3],"messages":[{"string":"Smartctl open device: /dev/sda failed: Permission denied","severity":"error"}],"exit_status":2}}'
exit 2"#;

#[test]
fn smart_the_user_may_not_read_is_not_tested_even_when_tests_ran() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 16 << 20);
    let img = img.to_str().unwrap();
    let bin = temp_dir();
    let path = stand_in_smartctl(bin.path(), DENIED);
    let (_jd, json) = run_file("run.json");
    let out = seekprobe()
        .env("PATH", path)
        .args(["--smart", "-t", "--qualify", "--json-file"])
        .arg(&json)
        .arg(img)
        .output()
        .unwrap();
    let (code, out, err) = (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert_eq!(code, 4, "{out}{err}");
    assert!(out.contains(&format!("\t{img}: NOT TESTED\n")), "{out}");
    assert!(!out.contains("FAIL"), "{out}");
    let run_json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let disk = &run_json["disks"][0];
    assert_eq!(disk["verdict"]["state"], "not_tested", "{run_json}");
    let reason = disk["verdict"]["findings"][0]["reason"].as_str().unwrap();
    assert_eq!(
        disk["verdict"]["findings"][0]["code"], "not_tested",
        "{run_json}"
    );
    assert!(
        reason.starts_with("not tested: SMART could not be read: ")
            && reason.contains("Permission denied")
            && reason.contains("run seekprobe as root"),
        "{reason}"
    );
    assert_eq!(
        disk["smart"]["not_read"].as_str(),
        reason.strip_prefix("not tested: SMART could not be read: ")
    );
    assert!(disk["smart"]["error"].is_null(), "{run_json}");
}
