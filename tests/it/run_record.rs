//! The run's record (issue 41): every burn-in saved (a file of its own without
//! --json-file, found again by a bare --resume), its write-verify pass resumed from
//! a checkpoint on a simulated drive too, `render` the live text byte for byte,
//! and a save that fails naming the run file.

use crate::burnin::{checkpoint_of, interrupt_when};
use crate::helpers::temp_dir;
use crate::helpers::{Finish, run_file, seekprobe};
use std::path::Path;

/// Run seekprobe with `args`, its run files in `runs`: status, stdout, stderr.
fn run_in(runs: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = seekprobe();
    cmd.env("SEEKPROBE_RUNS_DIR", runs).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_burn_in_without_json_file_names_its_file_and_a_bare_resume_goes_on_with_it() {
    let (_dir, runs) = run_file("runs");
    let burn_in = ["--burn-in", "-w", "--yes", "-q", "sim:ssd?size=1M"];
    let stop = [("SEEKPROBE_BURN_IN_STOP_AFTER", "seek_transfer")];
    let (code, _, err) = run_in(&runs, &burn_in, &stop);
    assert_eq!(code, 130, "{err}");
    let files: Vec<_> = std::fs::read_dir(&runs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let file = files[0].path();
    let name = file.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("burnin-") && name.ends_with("Z.json"),
        "{name}"
    );
    // Named at the start, before the first step; the resume command names it.
    let said = format!(
        "seekprobe: no --json-file given: the burn-in is saved in {}",
        file.display()
    );
    let at = err.find(&said).expect(&err);
    assert!(at < err.find("SMART before started").unwrap(), "{err}");
    assert!(
        err.contains(&format!("--resume {}", file.display())),
        "{err}"
    );
    assert!(!err.contains("cannot be resumed"), "{err}");
    // A bare --resume (written last) goes on with it, and finishes it.
    let resume: Vec<&str> = burn_in.iter().copied().chain(["--resume"]).collect();
    let (code, _, err) = run_in(&runs, &resume, &[]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "going on with the newest unfinished burn-in of these drives, {}",
            file.display()
        )),
        "{err}"
    );
    assert!(err.contains("kept SMART before, short self-test"), "{err}");
    // Nothing unfinished is left: a bare --resume says so, exit 1.
    let (code, _, err) = run_in(&runs, &resume, &[]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("no unfinished burn-in in {}", runs.display())),
        "{err}"
    );
}

#[test]
fn a_simulated_drive_stopped_while_writing_resumes_at_its_checkpoint_before_writing_on() {
    const DRIVE: &str = "sim:hdd?size=256M";
    let (dir, json) = run_file("run.json");
    let cp = checkpoint_of(&json, DRIVE);
    let err_path = dir.path().join("stderr");
    let writing = || {
        std::fs::read_to_string(&cp)
            .ok()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .is_some_and(|v| v["half"] == "write" && v["done_to"].as_u64() > Some(0))
    };
    interrupt_when(
        &["--burn-in", "-w", "--yes", "-q", "--zones=4"],
        &json,
        &[DRIVE],
        std::fs::File::create(&err_path).unwrap().into(),
        "a checkpoint of the write half",
        writing,
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cp).unwrap()).unwrap();
    let (half, done_to) = (v["half"].as_str().unwrap(), v["done_to"].as_u64().unwrap());
    let half = if half == "write" {
        "writing"
    } else {
        "reading back"
    };
    let stopped = std::fs::read_to_string(&err_path).unwrap();
    assert!(
        stopped.contains(&format!(
            "write-verify pass: its last checkpoint is at byte {done_to} of pass 1, {half}: --resume goes on from there"
        )),
        "{stopped}"
    );
    // A bare --resume: the runs folder here is the run's own.
    let (code, _, err) = run_in(
        dir.path(),
        &[
            "--burn-in",
            "-w",
            "--yes",
            "-q",
            "--zones=4",
            DRIVE,
            "--resume",
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let said = format!("write-verify pass resumed at byte {done_to} of pass 1, {half}");
    let at = err.find(&said).expect(&err);
    // Said as the pass starts, before it ends.
    assert!(
        at < err.find("write-verify pass (--verify): done").unwrap(),
        "{err}"
    );
}

#[test]
fn a_resumed_pass_without_a_checkpoint_says_it_starts_again() {
    const DRIVE: &str = "sim:hdd?size=256M";
    let (_dir, json) = run_file("run.json");
    let cp = checkpoint_of(&json, DRIVE);
    interrupt_when(
        &["--burn-in", "-w", "--yes", "-q", "--zones=4"],
        &json,
        &[DRIVE],
        std::process::Stdio::null(),
        "a checkpoint",
        || cp.exists(),
    );
    // The checkpoint lost (as when Ctrl-C comes before the first one is saved).
    std::fs::remove_file(&cp).unwrap();
    let (code, _, err) = seekprobe()
        .args(["--burn-in", "-w", "--yes", "-q", "--zones=4", "--resume"])
        .arg(&json)
        .arg(DRIVE)
        .outcome();
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("write-verify pass: no checkpoint was saved before the interruption: it starts again at byte 0 of pass 1"),
        "{err}"
    );
}

/// Run `args` live saving `json`, then `seekprobe render json`: both texts.
fn live_and_rendered(json: &Path, args: &[&str]) -> (String, String) {
    let live = seekprobe()
        .args(args)
        .arg("--json-file")
        .arg(json)
        .stdout_of_success();
    let rendered = seekprobe().arg("render").arg(json).stdout_of_success();
    (live, rendered)
}

#[test]
fn render_prints_every_tests_block_as_the_live_run_did() {
    let dir = temp_dir();
    // Every test of the registry, on two drives (the path check runs across them).
    let every = [
        "-w",
        "--yes",
        "-c",
        "-t",
        "-i",
        "-S",
        "--zones=4",
        "--seek-profile",
        "--scan",
        "--block-sweep",
        "--verify",
        "--capacity-check",
        "--smr-check",
        "--smr-budget",
        "16M,10s",
        "--path-check",
        "sim:hdd?size=64M",
        "sim:hdd?size=64M&seed=2",
    ];
    let (live, rendered) = live_and_rendered(&dir.path().join("all.json"), &every);
    for block in [
        "I/O command overhead:",
        "Seek times:",
        "Asynchronous random reads:",
        "Synchronous random writes:",
        "Zone transfer curve",
        "Capacity check:",
        "Write and verify:",
    ] {
        assert!(live.contains(block), "{block}: {live}");
    }
    assert_eq!(live, rendered);
    // The capacity check alone, and in a burn-in (flash).
    let (live, rendered) = live_and_rendered(
        &dir.path().join("cap.json"),
        &["--capacity-check", "-w", "--yes", "sim:ssd?size=16M"],
    );
    assert!(live.contains("Capacity check:"), "{live}");
    assert_eq!(live, rendered);
    let (live, rendered) = live_and_rendered(
        &dir.path().join("burnin.json"),
        &["--burn-in", "-w", "--yes", "sim:ssd?size=16M"],
    );
    assert!(live.contains("Capacity check:"), "{live}");
    assert_eq!(live, rendered);
}

/// A small tmpfs mounted at a fresh folder, unmounted when dropped.
struct Tmpfs(tempfile::TempDir);

impl Tmpfs {
    fn new(size: &str) -> Tmpfs {
        let dir = temp_dir();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount tmpfs");
        Tmpfs(dir)
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg(self.0.path())
            .status();
    }
}

#[test]
#[cfg_attr(not(seekprobe_loop), ignore = "needs root to mount a tmpfs")]
fn a_full_file_system_names_the_run_file_and_keeps_its_last_save() {
    let fs = Tmpfs::new("256k");
    // Room for the first saves only.
    std::fs::write(fs.0.path().join("filler"), vec![0u8; 200_000]).unwrap();
    let json = fs.0.path().join("run.json");
    let (code, _, err) = seekprobe()
        .args(["--burn-in", "-w", "--yes", "-q", "--json-file"])
        .arg(&json)
        .arg("sim:ssd?size=1M")
        .outcome();
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "seekprobe: {}: cannot save the results: no space left on device (errno 28); the file keeps its last save",
            json.display()
        )),
        "{err}"
    );
    assert!(!err.contains("at path"), "{err}");
    // The last save is whole.
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(saved["disks"][0]["name"], "sim:ssd?size=1M");
}

#[test]
fn fourteen_healthy_drives_on_two_controllers_have_no_path_note() {
    let mut args = vec!["--path-check".to_string()];
    args.extend((1..=14).map(|i| format!("sim:hdd?seed={i}&controller=hba{}:12G", i % 2)));
    let (code, out, err) = crate::helpers::run(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("note: path:"), "{out}");
    assert!(!out.contains("warning: path:"), "{out}");
}

#[test]
fn the_burn_ins_path_check_is_logged_as_every_other_step() {
    let dir = temp_dir();
    let drives = ["sim:ssd?size=1M", "sim:ssd?size=1M&seed=2"];
    let (code, _, err) = seekprobe()
        .args([
            "--burn-in",
            "--parallel",
            "-w",
            "--yes",
            "-q",
            "--json-file",
        ])
        .arg(dir.path().join("run.json"))
        .args(drives)
        .outcome();
    assert_eq!(code, 0, "{err}");
    for d in drives {
        for end in [
            "path check (--path-check) started",
            "path check (--path-check): done",
        ] {
            let line = format!(" seekprobe: {d}: burn-in: {end}\n");
            // Timestamped: 2026-12-02T15:11:56Z.
            let at = err.find(&line).expect(&err);
            let stamp = &err[err[..at].rfind('\n').map_or(0, |n| n + 1)..at];
            assert!(stamp.ends_with('Z') && stamp.len() == 20, "{stamp:?}");
        }
    }
}
