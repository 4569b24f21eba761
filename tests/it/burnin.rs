//! `--burn-in`: the preset's steps on simulated drives, its verdicts, the JSON
//! saved after each step, and `--resume` after an interruption.

use crate::helpers::seekprobe;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

// Small: the simulated drive keeps what is written (up to 512 MiB), and a debug
// build spends its CPU on the stamps of the write-verify pass, per byte.
const CLEAN: &str = "sim:hdd?size=64M";
const PEER: &str = "sim:hdd?size=64M&seed=3";
const BAD: &str = "sim:hdd?size=64M&bad=1000-1003";

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
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("whole.json");
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

#[test]
fn a_clean_burn_in_passes_and_lists_every_step_in_order() {
    let Whole { code, text, .. } = whole();
    assert_eq!(*code, 0, "{text}");
    assert!(text.contains(&format!("Burn-in of {CLEAN}:")), "{text}");
    assert!(text.contains("verdict: PASS"), "{text}");
    let v = saved(&whole().json);
    let ids: Vec<String> = steps(&v, 0).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "smart_before",
            "short_self_test",
            "conveyance_self_test",
            "seek_transfer",
            "zones",
            "flushed_writes",
            "verify",
            "long_self_test",
            "smart_after"
        ]
    );
    for (id, status) in steps(&v, 0) {
        assert_eq!(status, "done", "{id}");
    }
    assert_eq!(v["disks"][0]["verdict"]["pass"], true);
    assert_eq!(v["burn_in"]["disks"][1], PEER);
}

#[test]
fn flash_gets_the_capacity_check_then_one_write_verify_pass_then_a_discard() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let (code, text) = burn_in(
        &json,
        &["sim:ssd?size=64M", "sim:ssd?size=2T&fake=64G"],
        &[],
        None,
    );
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains(
            "    - capacity check: stores only the first 64.0 GiB of the 2048.0 GiB it reports"
        ),
        "{text}"
    );
    let ids: Vec<String> = steps(&saved(&json), 0)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(
        ids,
        [
            "smart_before",
            "short_self_test",
            "conveyance_self_test",
            "seek_transfer",
            "zones",
            "capacity_check",
            "verify",
            "discard",
            "long_self_test",
            "smart_after"
        ],
        "{text}"
    );
    let v = saved(&json);
    let status = |disk, id: &str| {
        steps(&v, disk)
            .into_iter()
            .find(|(i, _)| i == id)
            .map(|(_, s)| s)
            .unwrap()
    };
    assert_eq!(status(0, "verify"), "done", "{text}");
    // A simulated drive keeps nothing to discard: skipped, saying why.
    assert_eq!(status(0, "discard"), "skipped", "{text}");
    assert!(
        text.contains(
            "discard (TRIM/UNMAP)                 skipped: a simulated drive: nothing to discard"
        ),
        "{text}"
    );
    // The fake is not written whole after the capacity check named it.
    assert_eq!(status(1, "verify"), "skipped", "{text}");
    // --no-discard: no discard step; a rotating drive gets the flushed writes.
    let json = dir.path().join("kept.json");
    let (code, text) = burn_in(&json, &["sim:ssd?size=64M", CLEAN], &["--no-discard"], None);
    assert_eq!(code, 0, "{text}");
    let v = saved(&json);
    let ids = |disk| -> Vec<String> { steps(&v, disk).into_iter().map(|(id, _)| id).collect() };
    assert!(!ids(0).contains(&"discard".to_string()), "{text}");
    assert!(ids(1).contains(&"flushed_writes".to_string()), "{text}");
    assert!(!ids(1).contains(&"discard".to_string()), "{text}");
}

#[test]
fn a_burn_in_finds_a_rotating_drive_whose_flush_lies() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let liar = "sim:hdd?size=64M&lying_flush=1";
    let (code, text) = burn_in(&json, &[liar], &[], None);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("acknowledges flushes without writing its cache to the platters; a power loss loses writes it acknowledged"),
        "{text}"
    );
    let v = saved(&json);
    assert_eq!(
        v["disks"][0]["verdict"]["findings"][0]["code"],
        "flush_not_honoured"
    );
}

#[test]
fn an_interrupted_burn_in_resumes_and_ends_with_the_same_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let Whole {
        json: whole,
        code: code_whole,
        ..
    } = whole();
    let part = dir.path().join("part.json");
    let (code, text) = burn_in(&part, &[CLEAN, PEER], &[], Some("seek_transfer"));
    assert_eq!(code, 130, "{text}");
    // The exact command to resume is said, and the file holds the steps done.
    let hint = format!("--resume {}", part.display());
    assert!(text.contains(&hint), "{text}");
    let v = saved(&part);
    let done = steps(&v, 0);
    assert_eq!(
        done.last().unwrap(),
        &("seek_transfer".into(), "done".into())
    );
    assert!(!done.iter().any(|(id, _)| id == "zones"), "{done:?}");
    // Resumed: -t is kept, the rest runs, and the verdicts are those of the whole run.
    let (code, text) = burn_in(
        &part,
        &[CLEAN, PEER],
        &["--resume", part.to_str().unwrap()],
        None,
    );
    assert_eq!(code, *code_whole, "{text}");
    let (a, b) = (saved(whole), saved(&part));
    for i in 0..2 {
        assert_eq!(a["disks"][i]["verdict"], b["disks"][i]["verdict"]);
    }
    let resumed = steps(&b, 0);
    assert!(
        resumed.contains(&("seek_transfer".into(), "resumed".into())),
        "{resumed:?}"
    );
    assert!(
        resumed.contains(&("zones".into(), "done".into())),
        "{resumed:?}"
    );
    assert_eq!(steps(&a, 0).len(), resumed.len());
    // The kept -t result is the saved one, figure for figure.
    assert_eq!(v["disks"][0]["tests"][0], b["disks"][0]["tests"][0]);
}

#[test]
fn resume_refuses_another_burn_in() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    burn_in(&json, &[CLEAN, PEER], &[], Some("seek_transfer"));
    let (code, text) = burn_in(&json, &[CLEAN], &["--resume", json.to_str().unwrap()], None);
    assert_eq!(code, 1);
    assert!(text.contains("that burn-in ran on 2 drive(s)"), "{text}");
    let plain = dir.path().join("plain.json");
    seekprobe()
        .args(["-t", "--json-file"])
        .arg(&plain)
        .arg(CLEAN)
        .assert()
        .success();
    let (code, text) = burn_in(
        &json,
        &[CLEAN],
        &["--resume", plain.to_str().unwrap()],
        None,
    );
    assert_eq!(code, 1);
    assert!(text.contains("not a burn-in"), "{text}");
}

#[test]
fn resume_refuses_a_drive_of_another_size() {
    // A simulated drive's serial number is the same at every size: the size tells
    // them apart, and results measured on 1 MiB are not kept for 2 MiB.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    burn_in(&json, &["sim:ssd?size=1M"], &[], Some("seek_transfer"));
    let (code, text) = burn_in(
        &json,
        &["sim:ssd?size=2M"],
        &["--resume", json.to_str().unwrap()],
        None,
    );
    // A drive that cannot be burnt in cannot be qualified: it fails, status 3.
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains(
            "ran on a drive of 1048576 bytes in 512-byte sectors; this one has 2097152 bytes"
        ),
        "{text}"
    );
}

#[test]
fn resume_of_a_directory_names_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text) = {
        let out = seekprobe()
            .args(["--burn-in", "-w", "--yes", "--resume"])
            .arg(dir.path())
            .arg("sim:ssd?size=1M")
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("--resume "), "{text}");
    assert!(text.contains("not a regular file"), "{text}");
}

#[test]
fn burn_in_needs_write_and_resume_needs_burn_in() {
    seekprobe()
        .args(["--burn-in", CLEAN])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "--burn-in applies only with -w; add -w or drop --burn-in",
        ));
    seekprobe()
        .args(["-t", "--resume", "x.json", CLEAN])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--resume applies to --burn-in"));
}

#[test]
fn docs_json_md_documents_the_burn_in_fields() {
    let doc = include_str!("../../docs/json.md");
    let text = std::fs::read_to_string(&whole().json).unwrap();
    for k in ["burn_in", "step", "status", "command", "disks", "smr_check"] {
        assert!(text.contains(&format!("\"{k}\"")), "{k} not in the JSON");
        assert!(doc.contains(&format!("`{k}`")), "docs/json.md lacks `{k}`");
    }
}

#[test]
fn a_drive_with_bad_sectors_fails_naming_its_smart_counters() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let (code, text) = burn_in(&json, &[CLEAN, PEER, BAD], &[], None);
    assert_eq!(code, 3, "{text}");
    let v = saved(&json);
    assert_eq!(v["disks"][0]["verdict"]["pass"], true, "{text}");
    assert_eq!(v["disks"][2]["verdict"]["pass"], false);
    let reasons = v["disks"][2]["verdict"]["findings"].to_string();
    // The write-verify pass rewrote the bad sectors: the drive remapped them.
    assert!(
        reasons.contains("SMART: reallocated sectors (ATA 5) rose from 0 to 4 during the run")
            || reasons
                .contains("SMART: reallocated sectors (ATA 5) rose from 0 to 3 during the run"),
        "{reasons}"
    );
    assert!(text.contains("0 -> "), "the SMART changes: {text}");
    let smart = &v["disks"][2]["smart"];
    assert_eq!(smart["before"]["ata"]["reallocated"], 0, "{smart}");
    assert_eq!(smart["after"]["ata"]["pending"], 0, "{smart}");
}

#[test]
fn a_long_self_test_names_the_first_bad_lba() {
    seekprobe()
        .args(["--smart-test", "long", "-q", BAD])
        .assert()
        .stdout(predicates::str::contains("first error at LBA 1000"));
}
