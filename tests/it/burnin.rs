//! `--burn-in`: the preset's steps on simulated drives, its verdicts, the JSON
//! saved after each step, and `--resume` after an interruption.

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
    let (dir, json) = run_file("run.json");
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
    assert_eq!(ids, FLASH_STEPS, "{text}");
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
    let (_dir, json) = run_file("run.json");
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
    let (dir, json) = run_file("run.json");
    burn_in(&json, &[CLEAN, PEER], &[], Some("seek_transfer"));
    let (code, text) = burn_in(&json, &[CLEAN], &["--resume", json.to_str().unwrap()], None);
    assert_eq!(code, 1);
    // The changed list is named, and confirmed by an option of its own.
    assert!(
        text.contains("the drive list is not the saved burn-in's"),
        "{text}"
    );
    assert!(text.contains(&format!("{PEER} was removed")), "{text}");
    assert!(text.contains("--resume-changed"), "{text}");
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
fn resume_names_a_changed_drive_and_starts_it_afresh_once_confirmed() {
    // A simulated drive's serial number is the same at every size: the size tells
    // them apart, and results measured on 1 MiB are not kept for 2 MiB.
    let (dir, json) = run_file("run.json");
    burn_in(&json, &["sim:ssd?size=1M"], &[], Some("seek_transfer"));
    let resume = ["--resume", json.to_str().unwrap()];
    let (code, text) = burn_in(&json, &["sim:ssd?size=2M"], &resume, None);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("sim:ssd?size=2M was added"), "{text}");
    assert!(text.contains("sim:ssd?size=1M was removed"), "{text}");
    // Under the same name (a simulated drive's name is its spec: an image file
    // grown in place is the same case), another drive is "replaced".
    let img = dir.path().join("disk.img");
    std::fs::File::create(&img)
        .unwrap()
        .set_len(1 << 20)
        .unwrap();
    let img_s = img.to_str().unwrap();
    let j2 = dir.path().join("img.json");
    burn_in(&j2, &[img_s], &[], Some("seek_transfer"));
    std::fs::File::options()
        .write(true)
        .open(&img)
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    let resume2 = ["--resume", j2.to_str().unwrap()];
    let (code, text) = burn_in(&j2, &[img_s], &resume2, None);
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains(&format!(
            "{img_s} is another drive than the saved run's (1048576 bytes, now 2097152)"
        )),
        "{text}"
    );
    // Confirmed: it starts afresh, nothing kept.
    let mut confirmed = resume2.to_vec();
    confirmed.push("--resume-changed");
    let (_, text) = burn_in(&j2, &[img_s], &confirmed, None);
    assert!(text.contains("the changed drives start afresh"), "{text}");
    let v = saved(&j2);
    assert!(!steps(&v, 0).iter().any(|(_, s)| s == "resumed"), "{text}");
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
    for k in [
        "burn_in",
        "step",
        "status",
        "command",
        "disks",
        "smr_check",
        "duration_s",
        "record",
        "host",
        "ended_unix_s",
    ] {
        assert!(text.contains(&format!("\"{k}\"")), "{k} not in the JSON");
        assert!(doc.contains(&format!("`{k}`")), "docs/json.md lacks `{k}`");
    }
}

#[test]
fn a_drive_with_bad_sectors_fails_naming_its_smart_counters() {
    let (_dir, json) = run_file("run.json");
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
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("seekprobe"))
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

#[test]
fn twins_interrupted_in_the_second_pass_resume_each_on_its_own_steps() {
    // The README's demo pair, small: one serial, model and size, so only the names
    // tell them apart. Ctrl-C during the second drive's write-verify pass, then the
    // printed --resume command: the corrupt drive fails naming its sectors.
    const TWIN: &str = "sim:hdd?size=64M&corrupt=5000-5004";
    let (dir, json) = run_file("twins.json");
    let err_path = dir.path().join("stderr");
    let cp = checkpoint_of(&json, TWIN);
    interrupt_when(
        &["--burn-in", "-w", "--yes", "--qualify", "--zones=8", "-q"],
        &json,
        &[CLEAN, TWIN],
        std::fs::File::create(&err_path).unwrap().into(),
        "the second drive's pass checkpointing",
        || cp.exists(),
    );
    let err = std::fs::read_to_string(&err_path).unwrap();
    let line = err
        .lines()
        .skip_while(|l| !l.contains("to go on where it stopped"))
        .nth(1)
        .unwrap_or_else(|| panic!("no resume command: {err}"))
        .trim()
        .to_string();
    let out = std::process::Command::new("sh")
        .args(["-c", &line])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}");
    let v = saved(&json);
    assert_eq!(v["disks"][0]["verdict"]["pass"], true, "{text}");
    assert_eq!(v["disks"][1]["verdict"]["pass"], false, "{text}");
    let twin = steps(&v, 1);
    assert!(
        twin.contains(&("verify".into(), "failed".into())),
        "{twin:?}"
    );
    // Its own sectors, and no others: the simulated drive holds what the
    // checkpoint says was written, so the pass goes on from it.
    assert!(
        text.contains("FAILED: verify: corrupt: sectors 5000-5003 (4)\n"),
        "{text}"
    );
    assert!(
        text.contains("write-verify pass resumed at byte "),
        "{text}"
    );
    // The first drive keeps its steps, the second its own.
    assert!(
        steps(&v, 0).iter().all(|(_, s)| s == "resumed"),
        "{:?}",
        steps(&v, 0)
    );
    assert!(
        twin.contains(&("seek_transfer".into(), "resumed".into())),
        "{twin:?}"
    );
}

#[test]
fn a_drive_not_found_has_its_block_and_is_not_tested() {
    let (dir, json) = run_file("run.json");
    let missing = dir.path().join("sdz");
    let missing = missing.to_str().unwrap();
    let (code, text) = burn_in(&json, &[missing, CLEAN], &[], None);
    assert_eq!(code, 4, "{text}");
    let block = format!(
        "Burn-in of {missing}:\n  not burnt in: not tested (the verdict says why and what to do)\n  verdict: NOT TESTED\n    - "
    );
    assert!(text.contains(&block), "{text}");
    assert!(text.contains("no such file or directory"), "{text}");
    assert!(text.contains(&format!("Burn-in of {CLEAN}:")), "{text}");
}

#[test]
fn a_burn_in_file_is_never_replaced_silently() {
    let (dir, json) = run_file("run.json");
    let (code, _) = burn_in(&json, &["sim:ssd?size=1M"], &[], Some("seek_transfer"));
    assert_eq!(code, 130);
    let before = std::fs::read(&json).unwrap();
    // The same command again, without --resume: refused, the file untouched.
    let (code, text) = burn_in(&json, &["sim:ssd?size=1M"], &[], None);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("holds an unfinished burn-in"), "{text}");
    assert!(
        text.contains(&format!("--resume {}", json.display())),
        "{text}"
    );
    assert!(text.contains("--new-run"), "{text}");
    assert_eq!(std::fs::read(&json).unwrap(), before);
    // On purpose: a new run, the old one kept beside it.
    let (code, text) = burn_in(&json, &["sim:ssd?size=1M"], &["--new-run"], None);
    assert_eq!(code, 0, "{text}");
    let kept = dir.path().join("run.json.old-1");
    assert_eq!(std::fs::read(&kept).unwrap(), before);
    assert!(text.contains("is kept as"), "{text}");
    // Nor is a finished one (its verdicts are a record): --new-run keeps it.
    let finished = std::fs::read(&json).unwrap();
    let (code, text) = burn_in(&json, &["sim:ssd?size=1M"], &[], None);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("holds a finished burn-in"), "{text}");
    assert_eq!(std::fs::read(&json).unwrap(), finished);
    let (code, text) = burn_in(&json, &["sim:ssd?size=1M"], &["--new-run"], None);
    assert_eq!(code, 0, "{text}");
    assert_eq!(
        std::fs::read(dir.path().join("run.json.old-2")).unwrap(),
        finished
    );
}

#[test]
fn a_renamed_drive_goes_on_from_its_own_checkpoint_not_its_new_names() {
    // Drive X, burnt in as X1, interrupted early in its write-verify pass, comes
    // back under another name X2 (the same simulated drive, its parameters in
    // another order: the same serial, model and size). The checkpoint file of the
    // name X2 is another drive's, saying the whole range was read back clean: X
    // must go on from its own (X1's) and find its corrupt sectors, not pass.
    const X1: &str = "sim:hdd?size=64M&corrupt=5000-5004";
    const X2: &str = "sim:hdd?corrupt=5000-5004&size=64M";
    let (_dir, json) = run_file("renamed.json");
    let cp = checkpoint_of(&json, X1);
    interrupt_when(
        &["--burn-in", "-w", "--yes", "--qualify", "--zones=8", "-q"],
        &json,
        &[X1],
        std::process::Stdio::null(),
        "the pass checkpointing",
        || cp.exists(),
    );
    // Another drive's checkpoint under the name X2: its pass read back whole.
    let mut other: Value = serde_json::from_slice(&std::fs::read(&cp).unwrap()).unwrap();
    other["half"] = "read".into();
    other["done_to"] = other["end_bytes"].clone();
    other["failed_blocks"] = Value::Array(Vec::new());
    other["failures"]["ranges"] = Value::Array(Vec::new());
    for c in other["failures"]["counts"].as_array_mut().unwrap() {
        *c = 0.into();
    }
    other["identity"] = serde_json::json!({
        "serial": "OTHER", "wwn": null, "model": "other", "size_bytes": 67108864u64
    });
    std::fs::write(checkpoint_of(&json, X2), other.to_string()).unwrap();
    let (code, text) = burn_in(&json, &[X2], &["--resume", json.to_str().unwrap()], None);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("FAILED: verify: corrupt: sectors 5000-5003 (4)\n"),
        "{text}"
    );
    // X kept its own steps from before the interruption.
    let v = saved(&json);
    assert!(
        steps(&v, 0).contains(&("seek_transfer".into(), "resumed".into())),
        "{:?}",
        steps(&v, 0)
    );
}

#[test]
fn a_burn_in_stopped_between_steps_is_incomplete_to_compare_qualify_exit_4() {
    let (_dir, json) = run_file("stopped.json");
    let (code, text) = burn_in(&json, &["sim:ssd?size=16M"], &[], Some("seek_transfer"));
    assert_eq!(code, 130, "{text}");
    let (status, stdout) = compare_qualify(&json);
    // Run it again (4), not send it back (3), and never a PASS.
    assert_eq!(status, Some(4), "{stdout}");
    assert!(
        stdout.contains(
            "\tstopped:sim:ssd?size=16M: INCOMPLETE\n\t\tburn-in: stopped before its end"
        ),
        "{stdout}"
    );
}

#[test]
fn a_smart_failure_read_before_the_burn_in_stopped_fails_the_drive_exit_3() {
    let (_dir, json) = run_file("stopped.json");
    let failing = "sim:hdd?size=16M&smart=failing";
    let (code, text) = burn_in(&json, &[failing], &[], Some("smart_before"));
    assert_eq!(code, 130, "{text}");
    let (status, stdout) = compare_qualify(&json);
    // Send it back (3): what SMART read already fails it, whatever is left to run.
    assert_eq!(status, Some(3), "{stdout}");
    assert!(
        stdout.contains(&format!("\tstopped:{failing}: FAIL\n")),
        "{stdout}"
    );
    assert!(stdout.contains("SMART: "), "{stdout}");
}

#[test]
fn a_drive_that_finished_before_ctrl_c_stopped_another_is_judged_on_its_steps() {
    const DONE: &str = "sim:ssd?size=1M";
    const LONG: &str = "sim:hdd?size=200G";
    let (_dir, json) = run_file("partly.json");
    // The small drive's last step saved: it has finished, the large one has not.
    let finished = || {
        std::fs::read_to_string(&json)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .is_some_and(|v| {
                v["disks"].as_array().is_some_and(|d| {
                    d.iter().any(|d| {
                        d["name"] == DONE
                            && d["burn_in"]
                                .as_array()
                                .is_some_and(|s| s.iter().any(|s| s["step"] == "smart_after"))
                    })
                })
            })
    };
    interrupt_when(
        &["--burn-in", "--parallel", "-w", "--yes", "--qualify", "-q"],
        &json,
        &[DONE, LONG],
        std::process::Stdio::null(),
        "the small drive finishing",
        finished,
    );
    let v = saved(&json);
    assert_eq!(v["disks"][0]["name"], DONE);
    assert_eq!(
        v["disks"][0]["verdict"]["pass"], true,
        "{}",
        v["disks"][0]["verdict"]
    );
    assert!(
        v["disks"][1]["verdict"].is_null(),
        "{}",
        v["disks"][1]["verdict"]
    );
    let (status, stdout) = compare_qualify(&json);
    // The large drive is to be run again (4); the small one passed.
    assert_eq!(status, Some(4), "{stdout}");
    assert!(
        stdout.contains(&format!("\tpartly:{DONE}: PASS")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("\tpartly:{LONG}: INCOMPLETE\n")),
        "{stdout}"
    );
    // Still an unfinished burn-in: --resume goes on with the large drive.
    let again = seekprobe()
        .args(["--burn-in", "-w", "--yes", "--qualify", "-q", "--json-file"])
        .arg(&json)
        .args([DONE, LONG])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("holds an unfinished burn-in"));
}

#[test]
fn a_checkpoint_of_an_older_seekprobes_stamps_is_refused_not_read_back() {
    // A burn-in stopped in its write-verify pass by a seekprobe whose stamps had
    // another format (format 1: no stamp_format in its checkpoint). Resumed, every
    // sector it wrote would read back as corrupt, a false FAIL: refused instead,
    // naming the checkpoint, what is wrong and what to do.
    use seekprobe::stamps::checkpoint::Checkpoint;
    let (_dir, json) = run_file("run.json");
    let (code, text) = burn_in(&json, &[CLEAN], &[], Some("seek_transfer"));
    assert_eq!(code, 130, "{text}");
    let info = &saved(&json)["disks"][0]["info"];
    let cp = Checkpoint {
        nonce: 7,
        start_bytes: 0,
        end_bytes: 64 << 20,
        block_bytes: 1 << 20,
        passes_planned: 1,
        passes: Vec::new(),
        pass: 0,
        half: seekprobe::results::verify::HalfKind::Write,
        done_to: 32 << 20,
        failures: seekprobe::results::failures::Failures::new(),
        unwritable: Vec::new(),
        failed_blocks: Vec::new(),
        keeps_only: None,
        stamp_format: 2,
    };
    let mut v = serde_json::to_value(&cp).unwrap();
    let file = v.as_object_mut().unwrap();
    file.remove("stamp_format");
    file.insert(
        "identity".into(),
        serde_json::json!({
            "serial": info["ident"],
            "wwn": info["wwn"],
            "model": info["descr"],
            "size_bytes": info["media_size_bytes"],
        }),
    );
    let cp_path = checkpoint_of(&json, CLEAN);
    std::fs::write(&cp_path, serde_json::to_vec(&v).unwrap()).unwrap();
    let (code, text) = burn_in(&json, &[CLEAN], &["--resume", json.to_str().unwrap()], None);
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains(&format!(
            "{CLEAN}: refusing to write: its write-verify checkpoint {} was written by an older seekprobe whose stamps differ",
            cp_path.display()
        )),
        "{text}"
    );
    assert!(
        text.contains("start the burn-in again without --resume"),
        "{text}"
    );
    // Nothing of the pass ran: no verify result, no "corrupt" sectors.
    assert!(!text.contains("corrupt: sectors"), "{text}");
    assert!(!text.contains("write-verify pass resumed"), "{text}");
}
