//! A burn-in interrupted and `--resume`d: each drive goes on from its own
//! checkpoint, a changed, renamed or finished drive is told apart, and a stopped
//! burn-in is INCOMPLETE to compare-qualify.

use super::*;
use crate::helpers::temp_dir;

#[test]
fn an_interrupted_burn_in_resumes_and_ends_with_the_same_verdict() {
    let dir = temp_dir();
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
    let dir = temp_dir();
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
