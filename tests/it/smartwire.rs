//! SMART in probing runs (--smart, --smart-test, --new, --threshold): the blocks
//! printed after diskinfo's text, the JSON, the verdicts of --qualify, and the
//! errors before anything runs.

use crate::helpers::smartctl_loop_tests;
use crate::helpers::temp_dir;
use crate::helpers::{LoopDev, image, run, run_file, seekprobe};

#[test]
fn without_smartctl_on_the_path_it_fails_before_touching_the_disk() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 1 << 20);
    let empty = temp_dir();
    for opt in [&["--smart"][..], &["--smart-test", "short"]] {
        let out = seekprobe()
            .env("PATH", empty.path())
            .args(opt)
            .arg(&img)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(err.contains("install smartmontools"), "{err}");
        assert!(out.stdout.is_empty(), "nothing probed");
    }
    // Simulated drives need no smartctl.
    let out = seekprobe()
        .env("PATH", empty.path())
        .args(["--smart", "sim:hdd?size=1G"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .contains("SMART verdict: healthy")
    );
}

smartctl_loop_tests! {
    fn a_loop_device_gets_the_no_smart_note_and_exits_0() {
        let dir = temp_dir();
        let dev = LoopDev::new(dir.path(), 16 << 20, false, None);
        let (code, out, err) = run(&["--smart", "--smart-test", "short", "--qualify", &dev.dev]);
        assert!(
            out.contains(&format!(
                "{}: no SMART: Unable to detect device type\n",
                dev.dev
            )),
            "{out}"
        );
        assert!(
            out.contains("short self-test skipped: the device has no SMART"),
            "{out}"
        );
        // --qualify without a test and without SMART measured nothing: NOT TESTED
        // (the device's kind, not its fault), exit 4.
        assert_eq!(code, 4, "{err}");
        assert!(out.contains(": NOT TESTED\n"), "{out}");
        let (code, out, _) = run(&["--smart", &dev.dev]);
        assert_eq!(code, 0);
        assert!(!out.contains("SMART verdict"), "{out}");
    }
}

#[test]
fn clean_simulated_drives_pass_qualification_with_their_smart() {
    let (code, out, err) = run(&[
        "-t",
        "--smart",
        "--new",
        "--qualify",
        "sim:hdd?size=1G",
        "sim:hdd?size=1G&seed=2",
        "sim:hdd?size=1G&seed=3",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.matches("SMART verdict: healthy").count(), 3, "{out}");
    assert_eq!(out.matches(": PASS\n").count(), 3, "{out}");
    assert!(
        out.contains("\t0           \t# pending sectors (ATA 197)\n"),
        "{out}"
    );
}

#[test]
fn bad_sectors_found_by_the_long_self_test_fail_the_drive() {
    let (_dir, json) = run_file("run.json");
    let (code, out, err) = run(&[
        "--smart-test",
        "short,long",
        "--qualify",
        "--json-file",
        json.to_str().unwrap(),
        "sim:hdd?size=1G&bad=1000000-1000008",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    for needle in [
        "SMART changes during the run\n\t0 -> 1      \t# pending sectors (ATA 197)\n",
        "\tpassed      \t# short self-test passed: Completed without error (60 s)\n",
        "\tFAILED      \t# long self-test FAILED: Completed: read failure, first error at LBA 1000000",
        "FAIL: pending sectors (ATA 197) rose from 0 to 1 during the run\n",
        "SMART verdict: FAILING\n",
        "\t\tSMART: the long self-test failed: Completed: read failure, first error at LBA 1000000\n",
    ] {
        assert!(out.contains(needle), "{needle:?} not in\n{out}");
    }
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let s = &v["disks"][0]["smart"];
    assert_eq!(s["before"]["ata"]["pending"], 0);
    assert_eq!(s["after"]["ata"]["pending"], 1);
    assert_eq!(s["self_tests"][1]["kind"], "long");
    assert_eq!(s["self_tests"][1]["outcome"], "failed");
    assert_eq!(s["self_tests"][1]["first_error_lba"], 1_000_000);
    assert_eq!(v["disks"][0]["verdict"]["pass"], false);
    // Without --qualify the findings are printed and the exit status is unchanged.
    let (code, out, _) = run(&[
        "--smart-test",
        "long",
        "sim:hdd?size=1G&bad=1000000-1000008",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("SMART verdict: FAILING\n"), "{out}");
}

#[test]
fn a_failing_drive_fails_and_crc_errors_only_warn() {
    let (code, out, _) = run(&["--smart", "--qualify", "sim:hdd?size=1G&smart=failing"]);
    assert_eq!(code, 3, "{out}");
    assert!(
        out.contains("\t\tSMART: smartctl says the drive is failing (SMART overall-health self-assessment: FAILED)\n"),
        "{out}"
    );
    let (code, out, err) = run(&["-t", "--smart", "--qualify", "sim:hdd?size=1G&crc=2"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("warning: UDMA CRC errors (ATA 199) rose from 0 to 2"),
        "{out}"
    );
    assert!(out.contains(": PASS with warnings\n\t\twarning: SMART: UDMA CRC errors (ATA 199) rose from 0 to 2: a cable, backplane or controller fault, not the drive's\n"), "{out}");
}

#[test]
fn smart_options_need_what_they_apply_to() {
    let (code, _, err) = run(&["--new", "sim:hdd"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("--new applies to --smart, --smart-test or --burn-in"),
        "{err}"
    );
    let (code, _, err) = run(&["--smart-test", "full", "sim:hdd"]);
    assert_eq!(code, 1);
    assert!(err.contains("unknown self-test"), "{err}");
    let (code, out, _) = run(&["--smart-test", "conveyance", "sim:nvme?size=1G"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("conveyance self-test skipped: the drive does not offer it"),
        "{out}"
    );
}

/// A burn-in of a simulated disk keeps its temperatures: samples in the JSON
/// (`smart.temperature`, at most an hour of virtual time apart), the lowest and
/// highest in the text and in Prometheus; `--max-temp` is its limit.
#[test]
fn a_burn_in_records_the_drives_temperatures() {
    let (dir, json) = run_file("b.json");
    let prom = dir.path().join("b.prom");
    let out = seekprobe()
        .args([
            "--burn-in",
            "-w",
            "--yes",
            "--max-temp",
            "55",
            "--json-file",
        ])
        .arg(&json)
        .arg("--prometheus")
        .arg(&prom)
        .arg("sim:hdd?size=64M")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("Temperatures during the run\n\t35          \t# lowest, °C ("),
        "{text}"
    );
    assert!(
        text.contains("\t55          \t# limit, °C (--max-temp)\n"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let t = &v["disks"][0]["smart"]["temperature"];
    let samples = t["samples"].as_array().unwrap();
    assert!(!samples.is_empty(), "{t}");
    let at: Vec<u64> = samples
        .iter()
        .map(|s| s["at_s"].as_u64().unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[1] - w[0] <= 3600), "{at:?}");
    assert_eq!(samples[0]["celsius"], 35);
    assert_eq!(
        (t["limit_c"].as_i64(), t["pauses"].as_array().map(Vec::len)),
        (Some(55), Some(0))
    );
    let p = std::fs::read_to_string(&prom).unwrap();
    for m in [
        "seekprobe_smart_temperature_min_celsius{",
        "seekprobe_smart_temperature_max_celsius{",
        "seekprobe_smart_temperature_samples{",
    ] {
        assert!(p.contains(m), "{m} in {p}");
    }
}
