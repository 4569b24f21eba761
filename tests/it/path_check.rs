//! `--path-check` on simulated drives (virtual clocks, exact): a shared controller
//! slower than its drives' sum is named as the limit, drives on their own
//! controllers have no path finding, and a drive that loses rate only with the
//! others running is named.

use crate::helpers::loop_tests;
use crate::helpers::scratch_dir;
use crate::helpers::temp_dir;
use crate::helpers::{run, run_file};

/// Four simulated disks, each with `keys` and its own seed.
fn four(keys: impl Fn(usize) -> String) -> Vec<String> {
    let mut args = vec!["--path-check".to_string()];
    args.extend((0..4).map(|i| format!("sim:hdd?seed={}&{}", i + 1, keys(i))));
    args
}

#[test]
fn a_shared_controller_slower_than_its_drives_is_named_as_their_limit() {
    let (code, out, err) = run(&four(|_| "controller=hba0:300M".to_string()));
    assert_eq!(code, 0, "{out}{err}");
    let notes: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("note: path:"))
        .collect();
    assert_eq!(notes.len(), 1, "{out}");
    let note = notes[0];
    assert!(
        note.starts_with(
            "note: path: controller hba0 limits its 4 drives: 299 MB/s together against"
        ),
        "{note}"
    );
    assert!(!out.contains("warning: path"), "{out}");
}

#[test]
fn the_same_drives_on_their_own_controllers_have_no_path_finding() {
    let (code, out, err) = run(&four(|i| format!("controller=hba{i}:300M")));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        !out.contains("note: path") && !out.contains("warning: path"),
        "{out}"
    );
    assert!(out.contains("no path finding"), "{out}");
}

/// The path check's warning lines of a run's output.
fn path_warnings(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| l.starts_with("warning: path:"))
        .collect()
}

#[test]
fn a_drive_losing_rate_only_together_is_named_in_a_warning() {
    let (code, out, err) = run(&four(|i| match i {
        2 => "controller=hba0:2G&vibration=0.4".to_string(),
        _ => "controller=hba0:2G".to_string(),
    }));
    assert_eq!(code, 0, "{out}{err}");
    let warnings = path_warnings(&out);
    assert_eq!(warnings.len(), 1, "{out}");
    assert!(
        warnings[0].starts_with(
            "warning: path: sim:hdd?seed=3&controller=hba0:2G&vibration=0.4 loses rate only with the other drives running"
        ),
        "{}",
        warnings[0]
    );
    assert!(!out.contains("limits its"), "{out}");
}

#[test]
fn the_json_holds_each_drives_part_and_its_findings() {
    let mut args = four(|_| "controller=hba0:300M".to_string());
    args.extend(["--format".to_string(), "json".to_string()]);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    for d in v["disks"].as_array().unwrap() {
        let p = &d["path_check"];
        assert_eq!(p["group"]["name"], "controller hba0");
        assert_eq!(p["drives_together"], 4);
        assert_eq!(p["positions"].as_array().unwrap().len(), 3);
        assert_eq!(p["findings"][0]["code"], "path_limits");
        assert_eq!(p["findings"][0]["severity"], "note");
    }
}

#[test]
fn the_table_the_metrics_and_the_report_show_it() {
    let dir = temp_dir();
    let (prom, html) = (dir.path().join("m.prom"), dir.path().join("r.html"));
    let mut args = four(|_| "controller=hba0:300M".to_string());
    args.extend(["--format", "table", "--prometheus"].map(String::from));
    args.push(prom.display().to_string());
    args.push("--html".to_string());
    args.push(html.display().to_string());
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Path check: 4 drives"), "{out}");
    assert!(
        out.contains("note: path: controller hba0 limits its 4 drives"),
        "{out}"
    );
    let prom = std::fs::read_to_string(prom).unwrap();
    assert!(
        prom.lines()
            .any(|l| l.starts_with("seekprobe_path_read_bytes_per_second{")
                && l.contains("path=\"controller hba0\",when=\"together\"")),
        "{prom}"
    );
    let html = std::fs::read_to_string(html).unwrap();
    assert!(
        html.contains("<h3>Path check</h3>"),
        "the report has no path check"
    );
    assert!(
        html.contains("limits its 4 drives"),
        "the report has no path finding"
    );
}

#[test]
fn a_parallel_burn_in_ends_with_the_path_check_over_its_drives() {
    let (_dir, json) = run_file("run.json");
    let disks = (1..=2).map(|s| format!("sim:ssd?size=64M&seed={s}&controller=hba0:300M"));
    let mut args: Vec<String> = [
        "--burn-in",
        "-w",
        "--yes",
        "--parallel",
        "-q",
        "--json-file",
    ]
    .map(String::from)
    .to_vec();
    args.push(json.display().to_string());
    args.extend(disks);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Path check: 2 drives"), "{out}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for d in v["disks"].as_array().unwrap() {
        assert_eq!(d["path_check"]["group"]["name"], "controller hba0", "{d}");
        // The flash drives read 540 MB/s alone: the 300 MB/s controller limits them.
        assert!(
            d["verdict"]["findings"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f["code"] == "path_limits"),
            "{d}"
        );
    }
}

/// Under `--burn-in --parallel` the path check is the burn-in's last step: each
/// drive's list ends with its record (after SMART after; the other steps as
/// before), and the burn-in block says it ran and shows the note.
#[test]
fn a_parallel_burn_in_records_the_path_check_as_its_last_step() {
    let (_dir, json) = run_file("run.json");
    let disks = (1..=2).map(|s| format!("sim:ssd?size=64M&seed={s}&controller=hba0:300M"));
    let mut args: Vec<String> = ["--burn-in", "-w", "--yes", "--parallel", "-q"]
        .map(String::from)
        .to_vec();
    args.extend(["--json-file".to_string(), json.display().to_string()]);
    args.extend(disks);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("path check (--path-check)"))
        .collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines.iter().all(|l| l.ends_with(" done")), "{out}");
    assert!(
        out.contains("note: path: controller hba0 limits its 2 drives"),
        "{out}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for d in v["disks"].as_array().unwrap() {
        let steps = d["burn_in"].as_array().unwrap();
        let ids: Vec<&str> = steps.iter().map(|r| r["step"].as_str().unwrap()).collect();
        // A flash drive's steps, then the path check.
        assert_eq!(ids[..ids.len() - 1], crate::burnin::FLASH_STEPS, "{d}");
        assert_eq!(ids.last(), Some(&"path_check"), "{d}");
        let last = &steps[ids.len() - 1];
        assert_eq!(last["status"], "done", "{d}");
        assert!(last["duration_s"].as_f64().is_some_and(|s| s >= 0.0), "{d}");
        assert_eq!(d["path_check"]["drives_together"], 2, "{d}");
    }
    // --resume keeps every drive's own steps and runs the path check again (it
    // measures the drives as they sit now): its step is done anew, not kept. (A
    // finished burn-in is never resumed: this one as a power cut leaves it,
    // saved after its last step, before its verdicts.)
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for d in v["disks"].as_array_mut().unwrap() {
        d.as_object_mut().unwrap().remove("verdict");
    }
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let mut again = args.clone();
    again.extend(["--resume".to_string(), json.display().to_string()]);
    let (code, out, err) = run(&again);
    assert_eq!(code, 0, "{out}{err}");
    // Not among the kept steps; run (and logged) again.
    assert!(
        (err.lines().filter(|l| l.contains("resumed: kept"))).all(|l| !l.contains("path check")),
        "{err}"
    );
    assert!(
        err.contains("burn-in: path check (--path-check): done\n"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for d in v["disks"].as_array().unwrap() {
        let steps = d["burn_in"].as_array().unwrap();
        assert_eq!(steps.len(), 11, "{d}");
        // The drive's own steps kept (a skipped one is asked again, and skipped).
        assert!(
            steps[..10]
                .iter()
                .all(|r| r["status"] == "resumed" || r["status"].get("skipped").is_some()),
            "{d}"
        );
        assert_eq!(steps[10]["step"], "path_check", "{d}");
        assert_eq!(steps[10]["status"], "done", "{d}");
        assert_eq!(d["path_check"]["drives_together"], 2, "{d}");
    }
    // One drive: no path check, no step.
    let (code, out, err) = run(&["--burn-in", "-w", "--yes", "-q", "sim:ssd?size=64M"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("path check"), "{out}");
}

loop_tests! {
    fn loop_devices_over_one_file_system_are_one_group() {
        let dir = scratch_dir();
        // Two sizes: the helper names its backing file by the size.
        let a = crate::helpers::LoopDev::new(dir.path(), 16 << 20, true, None);
        let b = crate::helpers::LoopDev::new(dir.path(), 17 << 20, true, None);
        let (code, out, err) = run(&["--path-check", "--format", "json", &a.dev, &b.dev]);
        assert_eq!(code, 0, "{out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        let group = |i: usize| v["disks"][i]["path_check"]["group"]["name"].clone();
        assert!(
            group(0)
                .as_str()
                .is_some_and(|g| g.starts_with("file system ")),
            "{out}"
        );
        assert_eq!(group(0), group(1), "{out}");
        // Real reads on a shared machine: no figure is asserted, and none may fail a drive.
        for i in 0..2 {
            let findings = v["disks"][i]["path_check"]["findings"].as_array().unwrap();
            assert!(findings.iter().all(|f| f["severity"] != "fail"), "{out}");
        }
    }
}

/// Four drives on one 300 MB/s controller, the fourth's sectors unreadable at the
/// middle of the drive (where the path check's second position reads, and no
/// test of `-c` does).
fn three_and_one_failing() -> Vec<String> {
    let c = "sim:hdd?size=20G&controller=hba0:300M";
    let mut args: Vec<String> = (1..=3).map(|s| format!("{c}&seed={s}")).collect();
    args.push(format!("{c}&seed=4&bad=20971520-20975616"));
    args
}

#[test]
fn a_drive_whose_reads_fail_in_the_path_check_fails_and_the_others_are_judged_without_it() {
    let mut args = vec!["--path-check".to_string()];
    args.extend(three_and_one_failing());
    let (code, out, err) = run(&args);
    // As any test's I/O error on a drive: status 1.
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains(
            "fail: path check: sim:hdd?size=20G&controller=hba0:300M&seed=4&bad=20971520-20975616: stopped by an error: sequential reads alone from byte 10737418240: a read of 1048576 bytes at byte 10737418240 failed: "
        ),
        "{out}"
    );
    assert!(!out.contains("every drive holds"), "{out}");
    // The three that completed still show their controller's limit, alone on it now.
    assert!(
        out.contains("note: path: controller hba0 limits its 3 drives: 29"),
        "{out}"
    );
    // Judged: the failing drive fails (status 3), the others pass with the note.
    let mut args = vec!["--qualify", "-c", "--path-check", "--format", "json"]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
    args.extend(three_and_one_failing());
    let (code, out, err) = run(&args);
    assert_eq!(code, 3, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let disks = v["disks"].as_array().unwrap();
    for d in &disks[..3] {
        assert_eq!(d["verdict"]["state"], "pass", "{d}");
    }
    let failed = &disks[3];
    assert_eq!(failed["verdict"]["state"], "fail", "{failed}");
    assert_eq!(failed["verdict"]["findings"][0]["code"], "test_failed");
    assert_eq!(failed["verdict"]["findings"][0]["test"], "path_check");
    assert!(failed["path_check"]["error"].is_string(), "{failed}");
}

#[test]
fn a_path_check_stopped_by_ctrl_c_is_interrupted_with_no_ratio_and_exits_130() {
    let (_dir, json) = run_file("run.json");
    let out = crate::helpers::seekprobe()
        .env("SEEKPROBE_PATH_CHECK_STOP", "together")
        .args(["--path-check", "--json-file"])
        .arg(&json)
        .args((1..=2).map(|s| format!("sim:hdd?seed={s}&controller=hba0:300M")))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{text}");
    assert!(text.contains("seekprobe: interrupted"), "{text}");
    assert!(
        text.contains("interrupted before its end, so no ratio is made"),
        "{text}"
    );
    assert!(
        !text.contains("limits its") && !text.contains("every drive holds"),
        "{text}"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    for d in v["disks"].as_array().unwrap() {
        let p = &d["path_check"];
        assert_eq!(p["interrupted"], true, "{d}");
        assert_eq!(p["findings"][0]["code"], "test_interrupted", "{d}");
        assert_ne!(d["verdict"]["state"], "pass", "{d}");
    }
}

#[test]
fn a_vibrating_drive_in_a_limited_group_is_still_named() {
    let (code, out, err) = run(&four(|i| match i {
        2 => "controller=hba0:300M&vibration=0.5".to_string(),
        _ => "controller=hba0:300M".to_string(),
    }));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("note: path: controller hba0 limits its 4 drives"),
        "{out}"
    );
    let warnings = path_warnings(&out);
    assert_eq!(warnings.len(), 1, "{out}");
    assert!(
        warnings[0].starts_with(
            "warning: path: sim:hdd?seed=3&controller=hba0:300M&vibration=0.5 loses rate only with the other drives running beyond its group's shared loss: "
        ),
        "{}",
        warnings[0]
    );
}
