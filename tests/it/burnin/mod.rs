//! `--burn-in`: the preset's steps on simulated drives, its verdicts, the JSON
//! saved after each step, and `--resume` after an interruption.

mod resume;
mod steps;

use crate::helpers::seekprobe_command;
use crate::helpers::{run_file, seekprobe};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

// Small: the simulated drive keeps what is written (up to 512 MiB), and a debug
// build spends its CPU on the stamps of the write-verify pass, per byte.
const CLEAN: &str = "sim:hdd?size=64M";

const PEER: &str = "sim:hdd?size=64M&seed=3";

const BAD: &str = "sim:hdd?size=64M&bad=1000-1003";

/// The steps of a flash drive's burn-in, in order.
pub(crate) const FLASH_STEPS: [&str; 10] = [
    "smart_before",
    "short_self_test",
    "conveyance_self_test",
    "seek_transfer",
    "zones",
    "capacity_check",
    "verify",
    "discard",
    "long_self_test",
    "smart_after",
];

/// Run a burn-in of `disks` saving to `json`, with extra `args`; the exit status
/// and standard output.
fn burn_in(json: &Path, disks: &[&str], args: &[&str], stop_after: Option<&str>) -> (i32, String) {
    let mut cmd = seekprobe();
    cmd.args(["--burn-in", "-w", "--yes", "--qualify", "--zones=8", "-q"])
        .args(args)
        .arg("--json-file")
        .arg(json)
        .args(disks);
    if let Some(step) = stop_after {
        cmd.env("SEEKPROBE_BURN_IN_STOP_AFTER", step);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The uninterrupted burn-in of CLEAN and PEER, run once for the tests that read
/// it: its saved run, exit status and output.
struct Whole {
    _dir: tempfile::TempDir,
    json: PathBuf,
    code: i32,
    text: String,
}

fn whole() -> &'static Whole {
    static RUN: OnceLock<Whole> = OnceLock::new();
    RUN.get_or_init(|| {
        let (dir, json) = run_file("whole.json");
        let (code, text) = burn_in(&json, &[CLEAN, PEER], &[], None);
        Whole {
            _dir: dir,
            json,
            code,
            text,
        }
    })
}

fn saved(json: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// Each drive's steps as (id, status) strings.
fn steps(v: &Value, disk: usize) -> Vec<(String, String)> {
    v["disks"][disk]["burn_in"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let status = match &r["status"] {
                Value::String(s) => s.clone(),
                Value::Object(m) => m.keys().next().unwrap().clone(),
                other => panic!("{other}"),
            };
            (r["step"].as_str().unwrap().to_string(), status)
        })
        .collect()
}

/// `seekprobe compare --qualify JSON`: its exit status and standard output.
fn compare_qualify(json: &Path) -> (Option<i32>, String) {
    let out = seekprobe()
        .args(["compare", "--qualify"])
        .arg(json)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Run `seekprobe ARGS --json-file JSON DISKS` (standard error to `stderr`) until
/// `ready` holds (at most 300 s; `what` names what it waits for), then Ctrl-C it
/// (SIGINT), which must end it with 130.
pub(crate) fn interrupt_when(
    args: &[&str],
    json: &Path,
    disks: &[&str],
    stderr: std::process::Stdio,
    what: &str,
    ready: impl Fn() -> bool,
) {
    let mut child = seekprobe_command()
        .args(args)
        .arg("--json-file")
        .arg(json)
        .args(disks)
        .stdout(std::process::Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !ready() && t0.elapsed() < std::time::Duration::from_secs(300) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(ready(), "{what} never happened");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
}

/// The checkpoint file of `disk`'s write-verify pass beside `json`.
pub(crate) fn checkpoint_of(json: &Path, disk: &str) -> PathBuf {
    let drive: String = disk
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    PathBuf::from(format!("{}.{drive}.verify-checkpoint", json.display()))
}
