//! Simulated drives: the published figures, determinism, faults, -i and -S, and
//! qualification of a batch — exact, in milliseconds of wall time.

use crate::helpers::seekprobe_command;
use crate::helpers::{run, run_file, run_saved, seekprobe};
use crate::loopdev::assert_ctv_format;
use crate::writes::assert_sync_write_block;
use predicates::prelude::*;
use regex::Regex;

/// The figure at the end of the line that starts with `label`.
fn figure(text: &str, label: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("{label} in {text}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    words[words.len() - 2].parse().unwrap()
}

#[test]
fn sim_hdd_reproduces_the_published_drive_within_ten_percent_every_time() {
    let (code, text, err) = run(&["-ctv", "sim:hdd"]);
    assert_eq!(code, 0, "{err}");
    assert_ctv_format(&text, "sim:hdd");
    assert!(
        err.contains("is a simulated drive"),
        "the run must say it is simulated: {err}"
    );
    let published = [
        ("\tFull stroke:", 22.110),
        ("\tHalf stroke:", 16.574),
        ("\tQuarter stroke:", 8.448),
        ("\tShort forward:", 3.867),
        ("\tShort backward:", 4.933),
        ("\tSeq outer:", 0.071),
        ("\tSeq inner:", 0.074),
        ("\toutside:", 179598.0),
        ("\tmiddle:", 168832.0),
        ("\tinside:", 97431.0),
    ];
    for (label, want) in published {
        let got = figure(&text, label);
        assert!(
            (got - want).abs() <= want * 0.10,
            "{label} {got} vs published {want}"
        );
    }
    let (_, again, _) = run(&["-ctv", "sim:hdd"]);
    assert_eq!(text, again, "the same seed must print the same text");
    let (_, other, _) = run(&["-ctv", "sim:hdd?seed=2"]);
    assert_ne!(
        text.replace("sim:hdd?seed=2", "sim:hdd"),
        other.replace("sim:hdd?seed=2", "sim:hdd")
    );
}

#[test]
fn random_reads_print_diskinfo_s_block() {
    let (code, text, err) = run(&["-i", "--duration", "0.2", "--seed", "5", "sim:ssd"]);
    assert_eq!(code, 0, "{err}");
    let start = text.find("Asynchronous random reads:\n").expect("-i block");
    let block = &text[start..];
    let re = Regex::new(r"^\t(sectorsize:  |4 kbytes:    |32 kbytes:   |128 kbytes:  |1024 kbytes: )(.{8,}) ops in  (.{10,}) sec = (.{8,}) IOPS$").unwrap();
    let lines: Vec<&str> = block.lines().skip(1).collect();
    assert_eq!(lines.len(), 6, "{block}");
    for line in &lines[..5] {
        let c = re.captures(line).unwrap_or_else(|| panic!("{line:?}"));
        let (n, s, iops): (f64, f64, f64) = (
            c[2].trim().parse().unwrap(),
            c[3].trim().parse().unwrap(),
            c[4].trim().parse().unwrap(),
        );
        assert_eq!(
            *line,
            format!("\t{}{n:8.0} ops in  {s:10.6} sec = {iops:8.0} IOPS", &c[1])
        );
        assert!(s >= 0.2 && n > 0.0);
    }
    assert_eq!(lines[5], "");
    assert!(block.ends_with("IOPS\n\n"));
    // The same seed gives the same figures.
    assert_eq!(
        run(&["-i", "--duration", "0.2", "--seed", "5", "sim:ssd"]).1,
        text
    );
}

#[test]
fn four_k_sectors_have_no_separate_4_kbytes_line() {
    let (code, text, err) = run(&["-i", "--duration", "0.05", "sim:nvme?sector=4096"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("\tsectorsize:  ") && !text.contains("\t4 kbytes:"),
        "{text}"
    );
}

#[test]
fn a_lying_flush_is_caught_and_an_honest_one_is_not() {
    let (code, text, err) = run(&[
        "-Sw",
        "--yes",
        "--write-duration",
        "0",
        "sim:hdd?lying_flush=1",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_sync_write_block(&text, 512, 8 << 20);
    assert!(
        err.contains("acknowledges flushes without writing"),
        "{err}"
    );
    let (code, text, err) = run(&["-Sw", "--yes", "--write-duration", "0", "sim:hdd"]);
    assert_eq!(code, 0, "{err}");
    assert_sync_write_block(&text, 512, 8 << 20);
    assert!(!err.contains("flushes"), "{err}");
}

#[test]
fn an_io_error_mid_test_names_path_test_offset_and_errno_and_skips_the_rest() {
    // Sector 1953514584 is read by the quarter stroke (N/2 on this drive).
    let spec = "sim:hdd?bad=1953514584-1953514585";
    let (code, text, err) = run(&["-tiv", "--json", spec]);
    assert_eq!(code, 1);
    assert!(
        err.contains(&format!(
            "{spec}: Quarter stroke: I/O error at byte offset {}: input/output error (errno 5)",
            1953514584u64 * 512
        )),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let tests = v["disks"][0]["tests"].as_array().unwrap();
    assert_eq!(
        tests[0]["phases"].as_array().unwrap().len(),
        3,
        "the measured lines are kept"
    );
    assert!(
        tests[0]["outcome"]["failed"]
            .as_str()
            .unwrap()
            .contains("errno 5")
    );
    assert!(
        tests[1]["outcome"]["skipped"].is_string(),
        "-i is skipped after -t failed"
    );
    // The text keeps the lines measured before the error, and no partial line.
    let (_, text, _) = run(&["-tv", spec]);
    assert!(
        text.contains("\tHalf stroke:\t  250 iter in ") && text.ends_with(" msec\n"),
        "{text}"
    );
    assert!(!text.contains("Quarter stroke"), "{text}");
}

#[test]
fn a_json_run_of_every_test_renders_the_same_text() {
    let (_dir, json) = run_file("run.json");
    let out = seekprobe()
        .args([
            "-ctiSw",
            "--yes",
            "--duration",
            "0.05",
            "--write-duration",
            "0",
            "--json-file",
        ])
        .arg(&json)
        .arg("sim:ssd")
        .output()
        .unwrap();
    assert!(out.status.success());
    let rendered = seekprobe().arg("render").arg(&json).output().unwrap();
    assert_eq!(
        String::from_utf8(rendered.stdout).unwrap(),
        String::from_utf8(out.stdout).unwrap()
    );
}

#[test]
fn qualification_fails_the_slow_drive_of_the_model_and_only_it() {
    let (code, text, err) = run(&[
        "-t",
        "--qualify",
        "sim:hdd",
        "sim:hdd?seed=2",
        "sim:hdd?seed=3",
        "sim:hdd?seed=4&slow=0-409600:5",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(text.contains("Comparison (4 disks"), "{text}");
    assert!(text.contains("\tsim:hdd: PASS\n"), "{text}");
    assert!(text.contains("\tsim:hdd?seed=2: PASS\n"), "{text}");
    assert!(
        text.contains("\tsim:hdd?seed=4&slow=0-409600:5: FAIL\n"),
        "{text}"
    );
    let (code, text, _) = run(&[
        "-t",
        "--qualify",
        "sim:hdd?seed=3",
        "sim:hdd?seed=4",
        "sim:hdd?seed=5",
    ]);
    assert_eq!(code, 0, "{text}");
    assert_eq!(text.matches(": PASS\n").count(), 3);
}

#[test]
fn a_baseline_and_saved_runs_are_compared_without_probing_again() {
    let (dir, base) = run_file("base.json");
    let slow = dir.path().join("slow.json");
    seekprobe()
        .args(["-t", "--json-file"])
        .arg(&base)
        .arg("sim:hdd")
        .assert()
        .success();
    seekprobe()
        .args(["-t", "--json-file"])
        .arg(&slow)
        .arg("sim:hdd?seed=4&slow=0-409600:5")
        .assert()
        .success();
    seekprobe()
        .args(["-t", "--quiet", "--qualify", "--baseline"])
        .arg(&base)
        .arg("sim:hdd?seed=4&slow=0-409600:5")
        .assert()
        .code(3)
        .stdout(predicate::str::contains("than the baseline"));
    seekprobe()
        .args(["-t", "--qualify", "--baseline"])
        .arg(&base)
        .arg("sim:hdd?seed=9")
        .assert()
        .code(0);
    let peer = dir.path().join("peer.json");
    seekprobe()
        .args(["-t", "--json-file"])
        .arg(&peer)
        .arg("sim:hdd?seed=7")
        .assert()
        .success();
    seekprobe()
        .args(["compare", "--qualify"])
        .arg(&base)
        .arg(&peer)
        .arg(&slow)
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains("Comparison (3 disks")
                .and(predicate::str::contains(
                    "\tslow:sim:hdd?seed=4&slow=0-409600:5: FAIL",
                ))
                .and(predicate::str::contains("\tbase:sim:hdd: PASS")),
        );
    seekprobe()
        .arg("compare")
        .arg(&base)
        .arg(&slow)
        .assert()
        .code(0)
        .stdout(predicate::str::contains("| figure"));
}

#[test]
fn parallel_probing_prints_each_disk_in_order() {
    let (code, text, err) = run(&["-t", "--parallel", "sim:hdd", "sim:ssd"]);
    assert_eq!(code, 0, "{err}");
    let hdd = text.find("sim:hdd\n").unwrap();
    let ssd = text.find("sim:ssd\n").unwrap();
    assert!(hdd < ssd);
    assert_eq!(text.matches("Transfer rates:").count(), 2);
}

#[test]
fn verbose_on_a_simulated_dm_smr_drive_shows_the_smr_hints_after_the_header() {
    let out = seekprobe().args(["-v", "sim:smr"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let header_end = text
        .find("\n\n")
        .expect("the header ends with a blank line");
    let (header, rest) = text.split_at(header_end + 2);
    assert!(
        header.contains("\tYes         \t# TRIM/UNMAP support\n"),
        "{header}"
    );
    assert!(
        header.contains("\t5400        \t# Rotation rate in RPM\n"),
        "{header}"
    );
    assert!(header.contains("\tNot_Zoned   \t# Zone Mode\n"), "{header}");
    assert!(
        !header.contains("SMR signs"),
        "diskinfo's lines are unchanged"
    );
    assert!(
        rest.starts_with("SMR signs (shingled recording; hints are not proofs):\n"),
        "{rest}"
    );
    assert!(
        rest.contains("\thint: a rotating drive that advertises TRIM/UNMAP"),
        "{rest}"
    );
    assert!(rest.contains("BarraCuda 8 TB (DM004)"), "{rest}");
    // The JSON has them too, and a conventional drive has none.
    let json = seekprobe()
        .args(["--json", "sim:smr", "sim:hdd"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let signs = |i: usize| v["disks"][i]["smr_signs"].as_array().unwrap().len();
    assert_eq!((signs(0), signs(1)), (2, 0));
    let hdd = seekprobe().args(["-v", "sim:hdd"]).output().unwrap();
    assert!(!String::from_utf8(hdd.stdout).unwrap().contains("SMR"));
}

/// The peak resident memory of a run of seekprobe with `args`, in KiB, and its
/// exit status (the child's own figure, from wait4).
// The child is reaped by wait4 below, which std's Child cannot see.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(args: &[&str]) -> (i32, u64, String) {
    let (_dir, out) = run_file("out");
    let child = seekprobe_command()
        .args(args)
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value to write to.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our child's, not yet waited for; both pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    let text = std::fs::read_to_string(&out).unwrap();
    (code, usage.ru_maxrss as u64, text)
}

#[test]
fn a_verify_whose_writes_all_fail_keeps_its_memory_flat() {
    // Every sector unwritable: each is redone alone and fails. The record of
    // them must not grow with the drive (it took 32 bytes a sector: 134 MB more
    // for 2 GiB, 16 MiB more for 256 MiB).
    let run = |mib: u64| {
        let spec = format!("sim:ssd?size={mib}M&unwritable=0-{}", mib * 2048);
        let (code, kib, text) = peak_rss_kib(&["--verify", "-w", "--yes", &spec]);
        assert_eq!(code, 1, "{text}");
        assert!(
            text.contains(&format!(
                "{} failed sectors ({} unwritable)",
                mib * 2048,
                mib * 2048
            )),
            "{text}"
        );
        kib
    };
    let (small, big) = (run(16), run(256));
    assert!(
        big < small + 4 * 1024,
        "peak RSS {small} KiB for 16 MiB, {big} KiB for 256 MiB"
    );
}

#[test]
fn a_burn_in_of_a_simulated_batch_finds_exactly_the_injected_faults() {
    let disks = [
        "sim:hdd?size=64M",
        "sim:hdd?size=64M&seed=2",
        "sim:hdd?size=64M&bad=1000-1008",
        "sim:hdd?size=64M&corrupt=5000-5004",
        "sim:ssd?size=64M&fake=32M",
    ];
    let burn_in = ["--burn-in", "-w", "--yes", "--qualify", "--parallel"];
    let (code, _, err, v) = run_saved(&burn_in, &disks);
    assert_eq!(code, 3, "{err}");
    // A drive's verdict: `disks[i].verdict` (the one judge, docs/json.md), or the
    // run's `verdicts[i]` before it.
    let verdict = |i: usize| -> serde_json::Value {
        match &v["disks"][i]["verdict"] {
            serde_json::Value::Null => v["verdicts"][i].clone(),
            found => found.clone(),
        }
    };
    let pass: Vec<bool> = (0..5)
        .map(|i| verdict(i)["pass"].as_bool().unwrap())
        .collect();
    assert_eq!(pass, [true, true, false, false, false]);
    // Never a limit of the simulator, as a note, a finding or sectors.
    for (i, d) in v["disks"].as_array().unwrap().iter().enumerate() {
        for w in d["warnings"].as_array().into_iter().flatten() {
            assert_ne!(w["code"], "simulator_limit", "{w}");
        }
        for f in verdict(i)["findings"].as_array().into_iter().flatten() {
            assert_ne!(f["code"], "simulator_limit", "{f}");
        }
    }
    let test = |i: usize, name: &str| -> serde_json::Value {
        v["disks"][i]["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["test"] == name)
            .unwrap_or_else(|| panic!("{name} on disk {i}"))
            .clone()
    };
    // The healthy disks: every sector read back as written.
    for i in [0, 1] {
        let p = &test(i, "verify")["verify"]["passes"][0];
        assert_eq!(p["failures"]["ranges"], serde_json::json!([]), "disk {i}");
    }
    // bad=: the first read fails at its first sector, and the rewrite remapped
    // exactly the 8 injected sectors (docs/sim.md, "Faults").
    let first = test(2, "seek_transfer")["outcome"]["failed"].to_string();
    assert!(first.contains("I/O error at byte offset 512000"), "{first}");
    let smart = &v["disks"][2]["smart"]["after"]["ata"];
    assert_eq!(smart["reallocated"], 8, "{smart}");
    // corrupt=: exactly the injected sectors, as corrupt.
    let p = &test(3, "verify")["verify"]["passes"][0];
    assert_eq!(
        p["failures"]["ranges"],
        serde_json::json!([{"kind": "corrupt", "start_lba": 5000, "sectors": 4}])
    );
    // fake=: the capacity check finds the real size exactly.
    let c = &test(4, "capacity_check")["capacity"]["conclusion"];
    assert_eq!(
        (c["reported"].as_u64(), c["real"].as_u64()),
        (Some(64 << 20), Some(32 << 20))
    );
}
