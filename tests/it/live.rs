//! Long runs in sight: the exit status whatever happens to standard output, the
//! live lines of each drive on standard error (off a terminal and on one).

use crate::helpers::run_file;
use crate::helpers::{runs_dir, seekprobe_command};
use std::process::Command;

fn binary() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("seekprobe")
}

#[test]
fn a_closed_standard_output_keeps_the_verdicts_status() {
    // `seekprobe -t --qualify /dev/sdz sim:hdd | head -1`, the reader gone before
    // the first line: the missing drive is not tested (a path that does not
    // exist), so the run ends with 4 whether its text is read or not.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = seekprobe_command()
        .args(["-t", "--qualify", "/dev/sdz-not-there", "sim:hdd"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    // Quietly: no complaint about the closed output.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("cannot write the output"), "{err}");
    // A passing run stays 0 with its output closed.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = seekprobe_command()
        .args(["-t", "--qualify", "sim:hdd"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// Run seekprobe with `args`, its standard error to a file read while it runs:
/// the text of that file at the first moment every one of `wanted` is in it,
/// whether the run was still going then, and its exit status.
fn stderr_while_running(args: &[&str], wanted: &[String]) -> (String, bool, Option<i32>) {
    let (dir, path) = run_file("stderr");
    let mut child = seekprobe_command()
        .args(args)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&path).unwrap())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    let (text, running) = loop {
        let running = child.try_wait().unwrap().is_none();
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if wanted.iter().all(|w| text.contains(w.as_str()))
            || !running
            || t0.elapsed() > std::time::Duration::from_secs(300)
        {
            break (text, running);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let code = child.wait().unwrap().code();
    (text, running, code)
}

#[test]
fn off_a_terminal_each_drive_has_its_step_lines_while_the_burn_in_runs() {
    // --parallel: each drive prints into its own buffer until the end, but the
    // live lines go out as they happen, with their time.
    let disks = ["sim:hdd?size=256M", "sim:hdd?size=256M&seed=3"];
    let wanted: Vec<String> = disks
        .iter()
        .map(|d| format!("seekprobe: {d}: burn-in: write-verify pass (--verify) started"))
        .collect();
    let mut args = vec![
        "--burn-in",
        "-w",
        "--yes",
        "--qualify",
        "-q",
        "--parallel",
        "--zones=8",
        "--json-file",
        "run.json",
    ];
    args.extend(disks);
    let (text, running, code) = stderr_while_running(&args, &wanted);
    assert!(running, "the lines came only at the end: {text}");
    // Before the first drive ends (its last step), each drive's first lines.
    assert!(!text.contains("SMART after: done"), "{text}");
    for w in &wanted {
        assert!(text.contains(w.as_str()), "{w}: {text}");
    }
    let line = text.lines().find(|l| l.contains("started")).unwrap();
    assert!(
        regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ seekprobe: ")
            .unwrap()
            .is_match(line),
        "{line}"
    );
    assert_eq!(code, Some(0));
}

#[test]
fn off_a_terminal_a_verify_run_of_several_drives_has_status_lines() {
    // Each verify must outlast the 1 s status interval: a 1G one takes about 3 s
    // here (a 256M one was over in 0.8 s on an idle machine, before any status).
    let disks = ["sim:hdd?size=1G", "sim:hdd?size=1G&seed=3"];
    let wanted: Vec<String> = disks
        .iter()
        .map(|d| format!("seekprobe: {d}: status: write and verify (--verify)"))
        .collect();
    let mut args = vec!["--verify", "-w", "--yes", "--status-interval", "1s"];
    args.extend(disks);
    let (text, running, code) = stderr_while_running(&args, &wanted);
    assert!(running, "{text}");
    assert!(
        text.contains(&format!(
            "seekprobe: {}: test: write and verify (--verify) started",
            disks[0]
        )),
        "{text}"
    );
    // Its rate; its time left only from its read half (progress/estimate.rs).
    assert!(text.contains(" MB/s, "), "{text}");
    assert_eq!(code, Some(0));
}

#[test]
fn on_a_terminal_each_drive_has_one_live_line() {
    // script(1) gives the run a pseudo-terminal, and keeps what was drawn on it.
    let script = std::path::Path::new("/usr/bin/script");
    assert!(script.exists(), "script(1) (util-linux) is needed");
    let cmd = format!(
        "{} --burn-in -w --yes --qualify --parallel --zones=8 'sim:hdd?size=128M' 'sim:ssd?size=128M' >/dev/null",
        binary().display()
    );
    let out = Command::new(script)
        .env("SEEKPROBE_RUNS_DIR", runs_dir())
        .args(["-qefc", &cmd, "/dev/null"])
        .output()
        .unwrap();
    let drawn = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{drawn}");
    for d in ["sim:hdd?size=128M", "sim:ssd?size=128M"] {
        // Its name with its serial (its line kept to the end, finished).
        assert!(
            regex::Regex::new(&format!(r"{}\s+\(SIM\w+\)  ", regex::escape(d)))
                .unwrap()
                .is_match(&drawn),
            "{d}: {drawn}"
        );
    }
    assert!(drawn.contains("write-verify pass (--verify)"), "{drawn}");
    // Not the log lines of a run off a terminal.
    assert!(
        !drawn.contains(": burn-in: SMART before started"),
        "{drawn}"
    );
}

#[test]
fn a_parallel_burn_in_of_three_loop_devices_shows_each_drives_steps_while_it_runs() {
    // Root only (CI runs as root): three loop devices over files on a disk.
    let dirs: Vec<tempfile::TempDir> = (0..3)
        .map(|_| tempfile::tempdir_in("/var/tmp").unwrap())
        .collect();
    let loops: Vec<crate::helpers::LoopDev> = dirs
        .iter()
        .map(|d| crate::helpers::LoopDev::new(d.path(), 256 << 20, true, None))
        .collect();
    let wanted: Vec<String> = loops
        .iter()
        .map(|l| {
            format!(
                "seekprobe: {}: burn-in: write-verify pass (--verify) started",
                l.dev
            )
        })
        .collect();
    let mut args = vec![
        "--burn-in",
        "-w",
        "--yes",
        "-q",
        "--parallel",
        "--zones=8",
        "--json-file",
        "run.json",
    ];
    args.extend(loops.iter().map(|l| l.dev.as_str()));
    let (text, running, code) = stderr_while_running(&args, &wanted);
    assert!(running, "the step lines came only at the end: {text}");
    for l in &loops {
        for step in [
            "seek and transfer (-t) started",
            "seek and transfer (-t): done",
        ] {
            let line = format!("seekprobe: {}: burn-in: {step}", l.dev);
            assert!(text.contains(&line), "{line}: {text}");
        }
    }
    assert_eq!(code, Some(0));
}
