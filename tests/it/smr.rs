//! The hidden-SMR behaviour test (--smr-check) through the binary: its verdicts on
//! simulated drives (virtual time), in --qualify and the JSON, on flash, and on a
//! loop device.

use crate::helpers::loop_tests;
use crate::helpers::temp_dir;
use crate::helpers::{LoopDev, refused, run_file, seekprobe};
use predicates::prelude::*;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The hidden-SMR check with its writes confirmed.
const SMR_CHECK: [&str; 3] = ["--smr-check", "-w", "--yes"];

/// The check of sim:smr beside two conventional drives, with --qualify, its plot
/// and its saved run: each drive writes up to 40 GiB through the binary, seconds
/// of CPU in a debug build, so it runs once for the tests that read it.
struct Batch {
    dir: tempfile::TempDir,
    /// The saved run (--json-file).
    json: PathBuf,
    code: Option<i32>,
    text: String,
    err: String,
}

fn batch() -> &'static Batch {
    static RUN: OnceLock<Batch> = OnceLock::new();
    RUN.get_or_init(|| {
        let (dir, json) = run_file("smr.json");
        let out = seekprobe()
            .args(["--smr-check", "-w", "--yes", "--qualify", "--seed", "1"])
            // The drives at the same time: the text is printed in order all the same.
            .arg("--parallel")
            .arg("--plot")
            .arg(dir.path().join("smr.svg"))
            .arg("--json-file")
            .arg(&json)
            .args(["sim:smr", "sim:hdd", "sim:hdd?seed=2"])
            .output()
            .unwrap();
        Batch {
            code: out.status.code(),
            text: String::from_utf8_lossy(&out.stdout).into_owned(),
            err: String::from_utf8_lossy(&out.stderr).into_owned(),
            json,
            dir,
        }
    })
}

/// sim:smr is judged hidden SMR with its evidence and fails --qualify; its two
/// conventional peers are judged conventional and pass.
#[test]
fn sim_smr_fails_qualify_among_conventional_peers() {
    let b = batch();
    let (text, err) = (&b.text, &b.err);
    let svg = b.dir.path().join("smr.svg");
    assert_eq!(b.code, Some(3), "{text}\n{err}");
    // The budget, said before anything is written.
    assert!(
        err.contains("--smr-check writes random 128 KiB to 1 MiB requests")
            && err.contains("40.0 GiB or 30 min"),
        "{err}"
    );
    assert!(
        text.contains("\tverdict: hidden SMR (drive-managed): the random-write rate fell from 17"),
        "{text}"
    );
    assert!(text.contains("collapse after: 19.1 GiB written"), "{text}");
    assert!(
        text.contains("Write rate over time (30-s windows):"),
        "{text}"
    );
    assert_eq!(
        text.matches("\tverdict: conventional recording: rate level at 5")
            .count(),
        2,
        "{text}"
    );
    let q = text.split("Qualification:").nth(1).unwrap();
    assert!(
        q.contains("\tsim:smr: FAIL\n\t\tSMR check: hidden SMR (drive-managed): "),
        "{q}"
    );
    assert!(q.contains("\tsim:hdd: PASS\n"), "{q}");
    assert!(q.contains("\tsim:hdd?seed=2: PASS\n"), "{q}");
    // The SVG has a write-rate panel per disk.
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        svg.matches("random-write rate over time; ").count(),
        3,
        "{svg:.300}"
    );
    assert!(svg.contains("sim:smr: random-write rate over time; hidden SMR"));
    // The no-write signs are hints beside the verdict, not failures.
    assert!(
        q.contains("warning: SMR sign (hint): a rotating drive that advertises TRIM"),
        "{q}"
    );
}

/// The JSON holds the analysis, every key of which docs/json.md documents, and the
/// verdicts their hints.
#[test]
fn the_json_holds_the_analysis_and_docs_json_md_documents_it() {
    let b = batch();
    assert_eq!(b.code, Some(3), "{}", b.err);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&b.json).unwrap()).unwrap();
    let smr = &v["disks"][0]["tests"][0]["smr"];
    assert_eq!(smr["verdict"], "hidden_smr");
    assert!(smr["stalls"].as_array().unwrap().len() > 10);
    assert!(smr["bytes_before_collapse"].as_u64().unwrap() > 18 << 30);
    assert_eq!(v["disks"][1]["tests"][0]["smr"]["verdict"], "conventional");
    assert!(
        !v["disks"][0]["verdict"]["findings"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let doc = include_str!("../../docs/json.md");
    let mut stack = vec![smr.clone(), v["disks"][0]["verdict"].clone()];
    while let Some(x) = stack.pop() {
        match x {
            serde_json::Value::Object(m) => {
                for (k, y) in m {
                    assert!(doc.contains(&format!("`{k}`")), "docs/json.md lacks `{k}`");
                    stack.push(y);
                }
            }
            serde_json::Value::Array(a) => stack.extend(a),
            _ => {}
        }
    }
}

/// Flash is not applicable, decided before anything is written.
#[test]
fn flash_is_not_applicable_and_nothing_is_written() {
    let out = seekprobe()
        .args(["--smr-check", "-w", "--yes", "--json", "sim:ssd"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let smr = &v["disks"][0]["tests"][0]["smr"];
    assert_eq!(smr["verdict"], "not_applicable");
    assert_eq!(smr["bytes_written"], 0);
    assert_eq!(smr["baseline_read_ms"], serde_json::Value::Null);
    seekprobe()
        .args(["--smr-check", "-w", "--yes", "sim:nvme"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "\tverdict: not a rotating drive: not applicable\n\tnothing was written\n",
        ));
}

/// Options: --smr-check needs -w; the budget is checked.
#[test]
fn smr_check_needs_w_and_a_valid_budget() {
    refused(
        &["--smr-check", "sim:hdd"],
        "--smr-check applies only with -w; add -w or drop --smr-check",
    );
    refused(
        &["-t", "--smr-budget", "8G", "sim:hdd"],
        "--smr-budget applies to --smr-check",
    );
    for bad in ["0", "8G,8G", "10m,20m", "abc", "5x"] {
        seekprobe()
            .args(["--smr-check", "-w", "--yes", "--smr-budget", bad, "sim:hdd"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("--smr-budget"));
    }
}

/// A small budget on sim:hdd cannot tell, and says what to try.
#[test]
fn a_small_budget_cannot_tell_and_says_what_to_try() {
    seekprobe()
        .args(SMR_CHECK)
        .args(["--smr-budget", "2G,10m", "sim:hdd"])
        .assert()
        .success()
        .stderr(predicate::str::contains("2.0 GiB or 10 min"))
        .stdout(predicate::str::contains(
            "\tverdict: cannot tell within the budget: 2.0 GiB written",
        ))
        .stdout(predicate::str::contains("try a larger --smr-budget"));
}

loop_tests! {
    /// A loop device does not say it rotates: with a tiny budget it cannot tell, and
    /// gives no verdict either way.
    fn a_loop_device_cannot_tell_without_a_false_verdict() {
        // On a disk file system: a loop device over tmpfs is data in memory (not
        // applicable).
        let dir = temp_dir();
        let dev = LoopDev::new(dir.path(), 64 << 20, true, None);
        let out = seekprobe()
            .args(["--smr-check", "-w", "--yes", "--smr-budget", "16M,10s"])
            .args(["--smr-idle", "0", "--qualify", &dev.dev])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("\tverdict: cannot tell within the budget: 0.0 GiB written"),
            "{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!text.contains("hidden SMR (drive-managed)"), "{text}");
        assert!(!text.contains("conventional recording"), "{text}");
        // The check ran and could not tell: a warning, not the drive's failure.
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains("warning: SMR check: cannot tell"), "{text}");
    }
}

/// A saved run renders the same block, and `compare --qualify` of saved runs fails
/// the hidden-SMR drive as the live run does.
#[test]
fn a_saved_run_renders_the_same_and_compare_qualifies_it() {
    let dir = temp_dir();
    let live = batch();
    let smr = &live.json;
    let hdd = dir.path().join("hdd.json");
    assert_eq!(live.code, Some(3), "{}", live.err);
    let again = seekprobe().arg("render").arg(smr).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout), live.text);
    seekprobe()
        .args(SMR_CHECK)
        .args(["--smr-budget", "40G", "--json-file"])
        .arg(&hdd)
        .arg("sim:hdd")
        .assert()
        .success();
    seekprobe()
        .args(["compare", "--qualify"])
        .arg(smr)
        .arg(&hdd)
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "\tsmr:sim:smr: FAIL\n\t\tSMR check: hidden SMR (drive-managed): ",
        ))
        .stdout(predicate::str::contains("\thdd:sim:hdd: PASS\n"));
}
