//! One verdict for every drive (docs/verdict.md): the seven commands of issue 19 on
//! simulated drives, a lone drive, the saved runs of `compare --qualify`, the
//! agreement of the text, the JSON, the table and the metrics, and a mirror pair of
//! a loop device and a faulty simulated drive.

use crate::helpers::loop_tests;
use crate::helpers::seekprobe_command;
use crate::helpers::temp_dir;
use crate::helpers::{LoopDev, run, run_file, run_saved};
use serde_json::Value;
use std::path::Path;

/// The qualifying burn-in of these tests (its zone curve short).
const BURN_IN: [&str; 6] = ["--burn-in", "-w", "--yes", "--qualify", "--zones=8", "-q"];

fn saved(json: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap()
}

/// The "Qualification:" block of a text output, from its header on.
fn qualification(text: &str) -> &str {
    let i = text
        .find("\nQualification:\n")
        .unwrap_or_else(|| panic!("{text}"));
    &text[i + 1..]
}

/// The codes of a disk's verdict's findings, in order.
fn codes(v: &Value, disk: usize) -> Vec<String> {
    v["disks"][disk]["verdict"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_clean_verify_passes_with_status_0() {
    let (code, out, err) = run(&["--verify", "-w", "--yes", "--qualify", "sim:ssd?size=64M"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        qualification(&out).starts_with("Qualification:\n\tsim:ssd?size=64M: PASS\n"),
        "{out}"
    );
    assert!(!out.contains("nothing to judge"), "{out}");
}

#[test]
fn corrupt_sectors_fail_the_drive_naming_them() {
    let disk = "sim:ssd?size=64M&corrupt=100-108";
    let (code, out, err, v) = run_saved(&["--verify", "-w", "--yes", "--qualify"], &[disk]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        qualification(&out).contains(&format!(
            "\t{disk}: FAIL\n\t\tverify: corrupt: sectors 100-107 (8)\n"
        )),
        "{out}"
    );
    let f = &v["disks"][0]["verdict"]["findings"][0];
    assert_eq!(v["disks"][0]["verdict"]["pass"], false);
    assert_eq!(f["severity"], "fail");
    assert_eq!(f["test"], "verify");
    assert_eq!(f["code"], "corrupt_sectors");
    assert_eq!(f["sectors"][0]["first_sector"], 100);
    assert_eq!(f["sectors"][0]["sectors"], 8);
}

#[test]
fn unreadable_sectors_of_a_scan_fail_the_drive_with_status_3() {
    let disk = "sim:hdd?size=1G&bad=100-108";
    let (code, out, err) = run(&["--scan", "--qualify", disk]);
    assert_eq!(code, 3, "{out}{err}");
    let q = qualification(&out);
    assert!(
        q.contains(&format!(
            "\t{disk}: FAIL\n\t\tscan: unreadable: sectors 100-107 (8)"
        )),
        "{q}"
    );
}

#[test]
fn a_mirror_pair_of_simulated_drives_fails_only_the_broken_one() {
    let (clean, bad) = ("sim:hdd?size=64M", "sim:hdd?size=64M&bad=100-108");
    let (code, out, err, v) = run_saved(&BURN_IN, &[clean, bad]);
    assert_eq!(code, 3, "{out}{err}");
    let clean_block = &out[out.find(&format!("Burn-in of {clean}:\n")).unwrap()..];
    let clean_block = &clean_block[..clean_block.find("\nBurn-in of ").unwrap()];
    assert!(clean_block.contains("  verdict: PASS\n"), "{clean_block}");
    assert!(
        clean_block.contains("    - note: timings not judged: of the 2 drives"),
        "{clean_block}"
    );
    let bad_block = &out[out.find(&format!("Burn-in of {bad}:\n")).unwrap()..];
    assert!(bad_block.contains("  verdict: FAIL\n"), "{bad_block}");
    assert!(
        bad_block.contains("I/O error at byte offset"),
        "{bad_block}"
    );
    // The healthy drive's timings are not called 73% better than a midpoint.
    assert!(!out.contains("better than the group median"), "{out}");
    assert!(!out.contains("worse than the group median"), "{out}");
    assert_eq!(v["disks"][0]["verdict"]["pass"], true);
    assert_eq!(codes(&v, 0), ["group_too_small"]);
    assert_eq!(v["disks"][1]["verdict"]["pass"], false);
    assert!(codes(&v, 1).contains(&"test_failed".to_string()), "{v}");
}

#[test]
fn another_model_in_the_batch_passes_with_a_warning() {
    let disks = [
        "sim:hdd",
        "sim:hdd?seed=2",
        "sim:hdd?seed=3",
        "sim:hdd?rpm=10000",
    ];
    let mut args = vec!["-t", "--qualify"];
    args.extend(disks);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "{out}{err}");
    let q = qualification(&out);
    for d in &disks[..3] {
        assert!(q.contains(&format!("\t{d}: PASS\n")), "{q}");
    }
    assert!(
        q.contains("\tsim:hdd?rpm=10000: PASS with warnings\n\t\twarning: another model than the batch: Simulated 10000 rpm HDD"),
        "{q}"
    );
    assert!(q.contains("Simulated 7200 rpm HDD"), "{q}");
    assert!(!q.contains("FAIL"), "{q}");
}

#[test]
fn a_slower_drive_of_the_same_model_fails_naming_the_slower_figures() {
    let slow = "sim:hdd?seed=4&slow=0-409600:5";
    let (_dir, json) = run_file("run.json");
    let (code, out, err) = run(&[
        "-t",
        "-q",
        "--qualify",
        "--json-file",
        json.to_str().unwrap(),
        "sim:hdd",
        "sim:hdd?seed=2",
        "sim:hdd?seed=3",
        slow,
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let q = qualification(&out);
    let mine = &q[q
        .find(&format!("\t{slow}: FAIL\n"))
        .unwrap_or_else(|| panic!("{q}"))..];
    assert!(
        mine.contains("\t\tTransfer outside (kbytes/s): ")
            && mine.contains("% worse than the group median"),
        "{q}"
    );
    for d in ["sim:hdd", "sim:hdd?seed=2", "sim:hdd?seed=3"] {
        assert!(q.contains(&format!("\t{d}: PASS\n")), "{q}");
    }
    // The saved run renders the same text, verdicts included.
    let (code, rendered, err) = run(&["render", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(rendered, out);
}

#[test]
fn a_fake_capacity_among_honest_drives_fails_with_status_3() {
    // The run capacity.rs's tests read too (one capacity check of three 2 TiB drives).
    let b = crate::capacity::fake_among_honest();
    let fake = crate::capacity::FAKE;
    assert_eq!(b.code, 3, "{}", b.text);
    let q = qualification(&b.text);
    assert!(
        q.contains(&format!(
            "\t{fake}: FAIL\n\t\tcapacity check: stores only the first 64.0 GiB"
        )),
        "{q}"
    );
    for d in crate::capacity::HONEST {
        assert!(q.contains(&format!("\t{d}: PASS\n")), "{q}");
    }
}

#[test]
fn a_lone_drive_passes_with_the_note_that_timings_were_not_judged() {
    let (code, out, err) = run(&["-t", "--qualify", "sim:hdd"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        qualification(&out)
            .contains("\tsim:hdd: PASS\n\t\tnote: timings not judged: the only drive"),
        "{out}"
    );
}

#[test]
fn a_path_that_does_not_exist_is_not_tested_with_status_4_never_failed() {
    // The operator's mistake, not the drive's: NOT TESTED, and what to do.
    let (code, out, err) = run(&["-t", "--qualify", "sim:hdd", "/nonexistent/disk"]);
    assert_eq!(code, 4, "{out}{err}");
    let q = qualification(&out);
    assert!(
        q.contains("\t/nonexistent/disk: NOT TESTED\n\t\tnot tested: /nonexistent/disk: no such file or directory (errno 2); check the path"),
        "{q}"
    );
    assert!(q.contains("\tsim:hdd: PASS"), "{q}");
    // Without --qualify, as before: status 1.
    let (code, _, _) = run(&["-t", "sim:hdd", "/nonexistent/disk"]);
    assert_eq!(code, 1);
    // Nothing asked for: a command line that cannot be used.
    let (code, _, err) = run(&["--qualify", "sim:hdd"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("--qualify applies to"), "{err}");
}

#[test]
fn compare_qualify_judges_saved_runs_with_the_same_rules() {
    let dir = temp_dir();
    let mut files = Vec::new();
    for (i, d) in [
        "sim:hdd",
        "sim:hdd?seed=2",
        "sim:hdd?seed=3&slow=0-409600:5",
    ]
    .iter()
    .enumerate()
    {
        let f = dir.path().join(format!("host{i}.json"));
        let (code, _, err) = run(&["-t", "-q", "--json-file", f.to_str().unwrap(), d]);
        assert_eq!(code, 0, "{err}");
        files.push(f.to_str().unwrap().to_string());
    }
    let mut args = vec!["compare", "--qualify", "--json"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = run(&args);
    assert_eq!(code, 3, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed"], 1);
    assert_eq!(v["disks"][2]["pass"], false);
    assert!(
        v["disks"][2]["reasons"][0]
            .as_str()
            .unwrap()
            .contains("worse than the group median"),
        "{v}"
    );
    assert_eq!(
        v["disks"][2]["findings"][0]["code"], "worse_than_reference",
        "{v}"
    );
    // One saved drive: judged on its findings, its timings noted, not refused.
    let (code, out, err) = run(&["compare", "--qualify", &files[0]]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("note: timings not judged"), "{out}");
}

/// The value of a metric for a disk, from an exposition's text.
fn metric(prom: &str, name: &str, disk: &str, extra: &str) -> Option<f64> {
    let disk_label = format!("disk=\"{disk}\"");
    prom.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .find(|l| l.contains(&disk_label) && l.contains(extra))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
}

#[test]
fn text_json_table_and_metrics_agree_on_every_drive_s_verdict() {
    let (dir, json) = run_file("run.json");
    let prom = dir.path().join("run.prom");
    let disks = [
        "sim:hdd?size=64M",
        "sim:hdd?size=64M&seed=2",
        "sim:hdd?size=64M&seed=3",
        "sim:hdd?size=64M&seed=4&bad=5000-5004",
        "sim:hdd?size=64M&seed=5&corrupt=9000-9003",
    ];
    // Every kind of test: diskinfo's (-c, -t, -i, -S), the curves, the scan, the
    // write-verify pass, the capacity check, the SMR check and SMART.
    let mut args = vec![
        "-c",
        "-t",
        "-i",
        "-S",
        "--duration",
        "1",
        "--zones=8",
        "--seek-profile",
        "--block-sweep",
        "--scan",
        "--verify",
        "--capacity-check",
        "--smr-check",
        "--smr-budget",
        "64M,60s",
        "--smr-idle",
        "0",
        "--smart",
        "-w",
        "--yes",
        "-q",
        "--qualify",
        "--json-file",
        json.to_str().unwrap(),
        "--prometheus",
        prom.to_str().unwrap(),
    ];
    args.extend(disks);
    let (code, out, err) = run(&args);
    assert_eq!(code, 3, "{out}{err}");
    let text = qualification(&out);
    let v = saved(&json);
    let prom = std::fs::read_to_string(&prom).unwrap();
    let (tcode, table, terr) = run(&["render", "--format", "table", json.to_str().unwrap()]);
    assert_eq!(tcode, 0, "{terr}");
    let mut words = Vec::new();
    const WORDS: [(&str, &str); 4] = [
        ("PASS with warnings", "pass_with_warnings"),
        ("PASS", "pass"),
        ("FAIL", "fail"),
        ("INCOMPLETE", "incomplete"),
    ];
    for (i, d) in disks.iter().enumerate() {
        let from_text = WORDS
            .iter()
            .find(|(w, _)| text.contains(&format!("\t{d}: {w}\n")))
            .unwrap_or_else(|| panic!("{d}: {text}"))
            .0;
        let state = v["disks"][i]["verdict"]["state"].as_str().unwrap();
        let from_json = WORDS.iter().find(|w| w.1 == state).unwrap().0;
        let block = &table[table.find(&format!("{d}: ")).unwrap()..];
        let block = &block[..block[1..].find("\nsim:hdd").map_or(block.len(), |j| j + 1)];
        let from_table = WORDS
            .iter()
            .find(|(w, _)| block.contains(&format!("\nverdict: {w}\n")))
            .unwrap_or_else(|| panic!("{block}"))
            .0;
        let passed = metric(&prom, "seekprobe_qualification_passed", d, "").unwrap();
        let failed = metric(&prom, "seekprobe_disk_failed", d, "").unwrap();
        let fails = metric(&prom, "seekprobe_verdict_findings", d, "severity=\"fail\"").unwrap();
        // One state line set to 1, the others 0.
        let states: Vec<f64> = WORDS
            .iter()
            .map(|(_, s)| {
                metric(&prom, "seekprobe_disk_state", d, &format!("state=\"{s}\"")).unwrap()
            })
            .collect();
        assert_eq!(states.iter().sum::<f64>(), 1.0, "{d}: {states:?}");
        let from_prom = WORDS[states.iter().position(|&x| x == 1.0).unwrap()].0;
        assert_eq!(failed == 1.0, from_prom == "FAIL", "{d}");
        assert_eq!(passed == 1.0, from_prom.starts_with("PASS"), "{d}");
        assert_eq!(fails == 0.0, passed == 1.0, "{d}");
        assert_eq!(from_text, from_json, "{d}");
        assert_eq!(from_text, from_table, "{d}");
        assert_eq!(from_text, from_prom, "{d}");
        words.push(from_text);
    }
    // The clean three pass with the SMR check's warning (it cannot tell within
    // the budget), the two faulty ones fail for their sectors.
    let w = "PASS with warnings";
    assert_eq!(words, [w, w, w, "FAIL", "FAIL"], "{text}");
    assert!(
        codes(&v, 3).contains(&"unreadable_sectors".to_string()),
        "{v}"
    );
    assert!(codes(&v, 4).contains(&"corrupt_sectors".to_string()), "{v}");
}

#[test]
fn every_finding_code_is_documented_in_docs_verdict_md() {
    let doc = include_str!("../../docs/verdict.md");
    for c in seekprobe::results::Code::ALL {
        let name = serde_json::to_value(c).unwrap();
        let name = name.as_str().unwrap();
        assert!(
            doc.contains(&format!("| `{name}` |")),
            "docs/verdict.md lacks `{name}`"
        );
    }
}

loop_tests! {
    fn a_mirror_pair_of_a_loop_device_and_a_faulty_drive_fails_only_the_faulty_one() {
        let dev = LoopDev::scratch(64 << 20, true, None);
        let bad = "sim:hdd?size=64M&bad=100-108";
        let (code, out, err, v) = run_saved(&BURN_IN, &[&dev.dev, bad]);
        assert_eq!(code, 3, "{out}{err}");
        assert_eq!(v["disks"][0]["verdict"]["pass"], true, "{out}{err}");
        assert_eq!(v["disks"][1]["verdict"]["pass"], false, "{out}");
        let mine = &out[out.find(&format!("Burn-in of {}:\n", dev.dev)).unwrap()..];
        assert!(mine.contains("  verdict: PASS\n"), "{mine}");
    }
}

#[test]
fn a_lying_flush_fails_a_rotating_drive_under_qualify_and_is_a_note_on_flash() {
    let hdd = "sim:hdd?size=10G&lying_flush=1";
    let (code, out, err) = run(&["-Sw", "--yes", "--write-duration", "0", "--qualify", hdd]);
    assert_eq!(code, 3, "{out}{err}");
    let q = qualification(&out);
    assert!(q.contains(&format!("\t{hdd}: FAIL\n")), "{q}");
    assert!(
        q.contains("far under one revolution (8333.3 us at 7200 rpm): the drive acknowledges flushes without writing its cache to the platters; a power loss loses writes it acknowledged"),
        "{q}"
    );
    // The finding replaces the warning of a run that is not judged.
    assert!(!err.contains("do not use this drive"), "{err}");
    let (code, _, err) = run(&["-Sw", "--yes", "--write-duration", "0", hdd]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("do not use this drive as a ZFS log"), "{err}");
    // Flash: a note (power-loss-protected caches are legitimate), no failure.
    let ssd = "sim:ssd?size=10G&lying_flush=1";
    let (code, out, err) = run(&[
        "-Sw",
        "--yes",
        "--write-duration",
        "0",
        "--qualify",
        "--json",
        ssd,
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let f = &v["disks"][0]["verdict"]["findings"][0];
    assert_eq!(f["code"], "flush_not_honoured", "{f}");
    assert_eq!(f["severity"], "note", "{f}");
}

#[test]
fn compare_qualify_of_runs_of_different_tests_judges_each_figure_among_those_that_measured_it() {
    let dir = temp_dir();
    let mut files = Vec::new();
    for (i, (test, d)) in [
        ("-t", "sim:hdd"),
        ("-t", "sim:hdd?seed=2"),
        ("-t", "sim:hdd?seed=3"),
        ("-c", "sim:hdd?seed=4"),
        ("-c", "sim:hdd?seed=5"),
    ]
    .iter()
    .enumerate()
    {
        let f = dir.path().join(format!("host{i}.json"));
        let (code, _, err) = run(&[test, "-q", "--json-file", f.to_str().unwrap(), d]);
        assert_eq!(code, 0, "{err}");
        files.push(f.to_str().unwrap().to_string());
    }
    let mut args = vec!["compare", "--qualify", "--json"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = run(&args);
    assert_eq!(
        code, 0,
        "a drive is never failed for a test it did not run: {out}{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed"], 0, "{v}");
    for d in 0..5 {
        let findings = v["disks"][d]["findings"].as_array().unwrap();
        assert!(
            findings.iter().all(|f| f["code"] != "not_measured"),
            "disk {d}: {findings:?}"
        );
        // -c was measured by two drives only: a note on each of them.
        let notes = findings
            .iter()
            .filter(|f| f["code"] == "group_too_small")
            .count();
        assert_eq!(notes > 0, d >= 3, "disk {d}: {findings:?}");
    }
    // A slow drive among the three that ran -t still fails against their median.
    let slow = dir.path().join("slow.json");
    let (code, _, err) = run(&[
        "-t",
        "-q",
        "--json-file",
        slow.to_str().unwrap(),
        "sim:hdd?seed=6&slow=0-409600:5",
    ]);
    assert_eq!(code, 0, "{err}");
    args.push(slow.to_str().unwrap());
    let (code, out, err) = run(&args);
    assert_eq!(code, 3, "{out}{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["failed"], 1, "{v}");
    assert_eq!(v["disks"][5]["pass"], false, "{v}");
}

#[test]
fn a_drive_too_small_for_a_test_is_incomplete_exit_4_and_a_failing_one_decides_3() {
    let small = "sim:hdd?size=64K";
    let (code, out, err, v) = run_saved(&["-t", "-q", "--qualify"], &[small]);
    // Not failed, not judged whole: run it again (4), not send it back (3).
    assert_eq!(code, 4, "{out}{err}");
    let q = qualification(&out);
    assert!(q.contains(&format!("\t{small}: INCOMPLETE\n")), "{q}");
    assert!(
        q.contains("too small for the seek and transfer (-t) test"),
        "{q}"
    );
    assert_eq!(v["disks"][0]["verdict"]["state"], "incomplete");
    assert_eq!(v["disks"][0]["verdict"]["pass"], false);
    // With a drive that fails beside it: 3 decides.
    let bad = "sim:hdd?size=64M&bad=100-108";
    let (code, out, err) = run(&["-t", "-q", "--qualify", small, bad]);
    assert_eq!(code, 3, "{out}{err}");
    let q = qualification(&out);
    assert!(q.contains(&format!("\t{small}: INCOMPLETE\n")), "{q}");
    assert!(q.contains(&format!("\t{bad}: FAIL\n")), "{q}");
}

/// Run seekprobe with `args` (saving to `json`) and press Ctrl-C once the saved
/// run holds its first test's results (the write-verify pass then runs: the
/// drive is far too large for it to end first). Its exit status must be 130.
fn stopped_after_the_first_test(args: &[&str], json: &Path) {
    let mut child = seekprobe_command()
        .args(args)
        .arg("--json-file")
        .arg(json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let tested = || {
        std::fs::read_to_string(json)
            .ok()
            .and_then(|s| serde_json::from_str::<Value>(&s).ok())
            .is_some_and(|v| {
                v["disks"][0]["tests"]
                    .as_array()
                    .is_some_and(|t| !t.is_empty())
            })
    };
    let t0 = std::time::Instant::now();
    while !tested() && t0.elapsed() < std::time::Duration::from_secs(300) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(tested(), "the first test never ended");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130));
}

#[test]
fn a_smart_failure_read_before_ctrl_c_fails_the_drive_not_incomplete() {
    let (_dir, json) = run_file("q6.json");
    let failing = "sim:hdd?size=300G&smart=failing";
    let args = [
        "-c",
        "--smart",
        "--verify",
        "-w",
        "--yes",
        "--qualify",
        "-q",
    ];
    stopped_after_the_first_test(&[&args[..], &[failing]].concat(), &json);
    // Send it back (3), not run it again (4).
    let (code, out, err) = run(&["compare", "--qualify", json.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains(&format!("\tq6:{failing}: FAIL\n")), "{out}");
    assert!(out.contains("SMART: "), "{out}");
    // The verdict saved with the run says so too.
    let v = saved(&json);
    let verdict = &v["disks"][0]["verdict"];
    assert_eq!(verdict["state"], "fail", "{verdict}");
}

#[test]
fn a_lying_flush_found_before_ctrl_c_fails_the_drive_in_every_report_of_the_run() {
    let dir = temp_dir();
    let (json, html) = (dir.path().join("q8.json"), dir.path().join("q8.html"));
    let lying = "sim:hdd?size=300G&lying_flush=1";
    let args = ["-S", "--verify", "-w", "--yes", "--write-duration", "0"];
    let html_arg = ["--qualify", "-q", "--html", html.to_str().unwrap(), lying];
    stopped_after_the_first_test(&[&args[..], &html_arg].concat(), &json);
    let v = saved(&json);
    let verdict = &v["disks"][0]["verdict"];
    assert_eq!(verdict["state"], "fail", "{verdict}");
    assert!(
        codes(&v, 0).contains(&"flush_not_honoured".to_string()),
        "{verdict}"
    );
    assert!(
        codes(&v, 0).contains(&"test_interrupted".to_string()),
        "{verdict}"
    );
    let (code, out, err) = run(&["compare", "--qualify", json.to_str().unwrap()]);
    assert_eq!(code, 3, "{out}{err}");
    // The live page, the report of the saved run, its metrics: FAIL, as compare.
    let page = dir.path().join("report.html");
    let (code, _, err) = run(&[
        "report",
        json.to_str().unwrap(),
        "-o",
        page.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for p in [&html, &page] {
        let text = std::fs::read_to_string(p).unwrap();
        assert!(
            text.contains(r#"<span class="badge fail">FAIL</span>"#),
            "{p:?}"
        );
        assert!(!text.contains(r#"class="badge incomplete""#), "{p:?}");
    }
    let prom = dir.path().join("q8.prom");
    let (code, _, err) = run(&[
        "render",
        "--prometheus",
        prom.to_str().unwrap(),
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let prom = std::fs::read_to_string(&prom).unwrap();
    let state = |s: &str| {
        metric(
            &prom,
            "seekprobe_disk_state",
            lying,
            &format!("state=\"{s}\""),
        )
    };
    assert_eq!(state("fail"), Some(1.0), "{prom}");
    assert_eq!(state("incomplete"), Some(0.0), "{prom}");
}
