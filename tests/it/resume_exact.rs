//! A resume is exact (issue 56): a run is found by the file named, or, bare, by
//! the newest unfinished one of the drives and options asked for; a finished run
//! is never resumed or written over; an option that changes what a step measures
//! is refused by name; `--resume` never takes a drive's name for its file.

use crate::helpers::{run_file, seekprobe};
use std::path::Path;

const DRIVE: &str = "sim:ssd?size=1M";

/// A burn-in of `drives` with `more` arguments, its run files in `runs`
/// (stopped as Ctrl-C would after step `stop`): status and standard error.
fn burn_in(runs: &Path, more: &[&str], drives: &[&str], stop: Option<&str>) -> (i32, String) {
    let mut cmd = seekprobe();
    cmd.env("SEEKPROBE_RUNS_DIR", runs)
        .args(["--burn-in", "-w", "--yes", "-q"])
        .args(more)
        .args(drives);
    if let Some(step) = stop {
        cmd.env("SEEKPROBE_BURN_IN_STOP_AFTER", step);
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), err)
}

/// The one run file in `runs`.
fn only_file(runs: &Path) -> std::path::PathBuf {
    let files: Vec<_> = std::fs::read_dir(runs).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].path()
}

#[test]
fn a_finished_run_is_never_resumed_nor_written_over_by_another() {
    let (dir, runs) = run_file("runs");
    // An older unfinished run in the runs folder, and a finished A.json.
    let (code, err) = burn_in(&runs, &[], &[DRIVE], Some("seek_transfer"));
    assert_eq!(code, 130, "{err}");
    let older = only_file(&runs);
    let older_bytes = std::fs::read(&older).unwrap();
    let a = dir.path().join("A.json");
    let a_arg = a.to_str().unwrap();
    let (code, err) = burn_in(&runs, &["--json-file", a_arg], &[DRIVE], None);
    assert_eq!(code, 0, "{err}");
    let finished = std::fs::read(&a).unwrap();
    // `--json-file A.json --resume`: A.json is the run named, and it is finished.
    let (code, err) = burn_in(&runs, &["--json-file", a_arg, "--resume"], &[DRIVE], None);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!(
            "--resume {a_arg}: that burn-in of {DRIVE} is finished"
        )),
        "{err}"
    );
    // `--resume A.json`: refused, naming it.
    let (code, err) = burn_in(&runs, &["--resume", a_arg], &[DRIVE], None);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is finished"), "{err}");
    // Neither file was touched; the older run is still there to resume.
    assert_eq!(std::fs::read(&a).unwrap(), finished);
    assert_eq!(std::fs::read(&older).unwrap(), older_bytes);
    let (code, err) = burn_in(&runs, &["--resume"], &[DRIVE], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "going on with the newest unfinished burn-in of these drives, {}",
            older.display()
        )),
        "{err}"
    );
}

#[test]
fn an_option_that_changes_a_step_is_refused_by_name() {
    let (_dir, runs) = run_file("runs");
    let (code, err) = burn_in(&runs, &[], &[DRIVE], Some("seek_transfer"));
    assert_eq!(code, 130, "{err}");
    let file = only_file(&runs);
    let file = file.to_str().unwrap();
    let (code, err) = burn_in(&runs, &["--resume", file, "--passes", "2"], &[DRIVE], None);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(
            "that burn-in was run with other options: --passes (2 here, not given in the saved run)"
        ),
        "{err}"
    );
    // Bare, the run of other options is not taken up, and says why.
    let (code, err) = burn_in(&runs, &["--passes", "2", "--resume"], &[DRIVE], None);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains(&format!("{file} (run with other options: --passes")),
        "{err}"
    );
    // Nor is the run of another drive.
    let (code, err) = burn_in(&runs, &["--resume"], &["sim:ssd?size=2M"], None);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&format!("{file} (of {DRIVE})")), "{err}");
}

#[test]
fn a_drive_after_resume_is_a_drive_not_its_file() {
    let (_dir, runs) = run_file("runs");
    let (code, err) = burn_in(&runs, &[], &[DRIVE], Some("seek_transfer"));
    assert_eq!(code, 130, "{err}");
    let file = only_file(&runs);
    // `--resume 'sim:…'`: a bare --resume before the drive's name.
    let (code, err) = burn_in(&runs, &["--resume", DRIVE], &[], None);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(&format!(
            "newest unfinished burn-in of these drives, {}",
            file.display()
        )),
        "{err}"
    );
    assert!(err.contains("kept SMART before, short self-test"), "{err}");
}
