//! `seekprobe smart` on one report, two reports, standard input, a saved run, a
//! simulated drive and the real smartctl on a loop device.

use super::parsing::expectations;
use super::*;
use crate::helpers::temp_dir;

#[test]
fn the_failing_nvme_report_fails_with_its_warning_named() {
    seekprobe()
        .args(["smart"])
        .arg(data_dir().join("nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json"))
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains(
                "FAIL: smartctl says the drive is failing (SMART overall-health self-assessment: FAILED)\n",
            )
            .and(predicate::str::contains(
                "FAIL: NVMe critical warning bit 4: volatile memory backup device failed\n",
            ))
            .and(predicate::str::contains(
                "\t0x10        \t# critical warning (NVMe): volatile memory backup device failed\n",
            ))
            .and(predicate::str::ends_with("SMART verdict: FAILING\n")),
        );
}

#[test]
fn every_healthy_report_passes() {
    for e in expectations().iter().filter(|e| e.passed) {
        let out = seekprobe()
            .arg("smart")
            .arg(data_dir().join(e.file))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}: {stdout}", e.file);
        assert!(stdout.starts_with("SMART health ("), "{}", e.file);
        assert!(stdout.ends_with("SMART verdict: healthy\n"), "{}", e.file);
        assert!(!stdout.contains("FAIL"), "{}: {stdout}", e.file);
    }
}

#[test]
fn the_notes_a_healthy_report_carries() {
    // HGST: exit status 64, twelve errors in its log: a note, not a failure.
    seekprobe()
        .arg("smart")
        .arg(data_dir().join("HGST_HUS724020ALE640_28.json"))
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains(
                "note: the drive's error log holds errors (12 logged over the drive's life) (exit status bit 6)\n",
            )
            .and(predicate::str::contains(
                "\t12          \t# UDMA CRC errors (ATA 199; cable or controller)\n",
            )),
        );
    seekprobe()
        .arg("smart")
        .arg(data_dir().join("sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("(exit status bit 2)"));
}

#[test]
fn new_drives_with_reallocated_sectors_fail() {
    for file in [
        "ST3500418AS_11.json",
        "sat-Intel_S3520_Series_SSDs-INTEL_SSDSC2BB016T7-sdc.json",
    ] {
        seekprobe()
            .args(["smart", "--new"])
            .arg(data_dir().join(file))
            .assert()
            .code(3)
            .stdout(predicate::str::contains(
                "FAIL: reallocated sectors (ATA 5): 1 on a drive given as new (Backblaze investigates any drive whose raw SMART 5, 187, 188, 197 or 198 is above 0: they go with failure)\n",
            ));
        seekprobe()
            .args(["smart", "--new", "--threshold", "reallocated=1"])
            .arg(data_dir().join(file))
            .assert()
            .stdout(predicate::str::contains("FAIL: reallocated sectors").not());
    }
    // 47,657 power-on hours: not new.
    seekprobe()
        .args(["smart", "--new"])
        .arg(data_dir().join("WDC_WD20EFRX-68EUZN0_17.json"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "FAIL: 47657 power-on hours on a drive given as new (48 allowed, --new-max-hours)\n",
        ));
}

#[test]
fn a_second_report_shows_the_changes_and_fails_rising_counters() {
    let dir = temp_dir();
    let before = data_dir().join("ST3500418AS_11.json");
    let text = std::fs::read_to_string(&before).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for a in v["ata_smart_attributes"]["table"].as_array_mut().unwrap() {
        if a["id"] == 197 || a["id"] == 199 {
            a["raw"] = serde_json::json!({"value": 3, "string": "3"});
        }
    }
    let after = dir.path().join("after.json");
    std::fs::write(&after, v.to_string()).unwrap();
    seekprobe()
        .arg("smart")
        .arg(&before)
        .arg(&after)
        .assert()
        .code(3)
        .stdout(
            predicate::str::contains(
                "SMART changes during the run\n\t0 -> 3      \t# pending sectors (ATA 197)\n\t0 -> 3      \t# UDMA CRC errors (ATA 199; cable or controller)\n\n",
            )
            .and(predicate::str::contains(
                "FAIL: pending sectors (ATA 197) rose from 0 to 3 during the run\n",
            ))
            .and(predicate::str::contains(
                "warning: UDMA CRC errors (ATA 199) rose from 0 to 3: a cable, backplane or controller fault, not the drive's\n",
            )),
        );
}

#[test]
fn standard_input_and_bad_input() {
    let text = std::fs::read(data_dir().join("INTEL_SSDPE2KX080T8_1.json")).unwrap();
    seekprobe()
        .args(["smart", "-"])
        .write_stdin(text)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "SMART health (/dev/nvme0, INTEL SSDPE2KX080T8, NVMe, smartctl 7.3)\n\tPASSED",
        ));
    let (dir, bad) = run_file("bad.json");
    std::fs::write(&bad, "{\"rows\": [").unwrap();
    seekprobe()
        .arg("smart")
        .arg(&bad)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::starts_with(format!(
            "seekprobe: {}: not valid JSON",
            bad.display()
        )));
    std::fs::write(&bad, "{\"schema_version\": 1}").unwrap();
    seekprobe()
        .arg("smart")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a smartctl --json report"));
    seekprobe()
        .arg("smart")
        .arg(dir.path().join("missing.json"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "missing.json: no such file or directory",
        ));
    seekprobe()
        .arg("smart")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not a regular file"));
    refused(
        &["smart", "--threshold", "bogus=1", "x.json"],
        "unknown counter",
    );
}

#[test]
fn a_saved_report_without_smart_gives_the_note() {
    seekprobe()
        .args(["smart", "-"])
        .write_stdin(r#"{"json_format_version":[1,0],"smartctl":{"version":[7,3],"messages":[{"string":"/dev/loop1: Unable to detect device type","severity":"error"}],"exit_status":1}}"#)
        .assert()
        .code(1)
        .stdout("-: no SMART: /dev/loop1: Unable to detect device type\n");
}

smartctl_loop_tests! {
    fn the_real_smartctl_on_a_loop_device_finds_no_smart() {
        let bin = smartctl::find().expect("smartctl is on the PATH (build.rs found it)");
        let dir = temp_dir();
        let dev = LoopDev::new(dir.path(), 16 << 20, false, None);
        let smartctl = smartctl::Smartctl {
            path: bin,
            limit: smartctl::DEFAULT_TIMEOUT,
        };
        match smartctl.read(&dev.dev).unwrap() {
            // smartctl's own wording varies between versions: only that it says why.
            SmartRead::NoSmart { note } => {
                assert!(!note.trim().is_empty());
                let line = seekprobe::report::smart::no_smart_note(&dev.dev, &note);
                assert!(
                    line.starts_with(&format!("{}: no SMART: ", dev.dev)),
                    "{line}"
                );
            }
            SmartRead::Health { health, .. } => panic!("a loop device with SMART: {health:?}"),
        }
    }

    fn a_loop_devices_smart_source_gives_the_note_and_refuses_self_tests() {
        use seekprobe::results::smart::SelfTestKind;
        use seekprobe::smart::source::{SmartSource, SmartctlSource};
        let bin = smartctl::find().expect("smartctl is on the PATH (build.rs found it)");
        let dir = temp_dir();
        let dev = LoopDev::new(dir.path(), 16 << 20, false, None);
        let smartctl = smartctl::Smartctl {
            path: bin,
            limit: smartctl::DEFAULT_TIMEOUT,
        };
        let mut src = SmartctlSource::new(smartctl, &dev.dev);
        assert_eq!(src.device(), dev.dev);
        match src.read().unwrap() {
            SmartRead::NoSmart { note } => assert!(!note.trim().is_empty()),
            SmartRead::Health { health, .. } => panic!("a loop device with SMART: {health:?}"),
        }
        assert!(!src.supports(SelfTestKind::Short).unwrap());
        let err = src
            .start_self_test(SelfTestKind::Short)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("{}: cannot read the self-test status: ", dev.dev)),
            "{err}"
        );
    }
}

#[test]
fn a_simulated_drive_answers_smart_without_smartctl() {
    use seekprobe::device::{Simulated, Target};
    use seekprobe::smart::source::source_for;
    let mut t = seekprobe::device::sim::SimTarget::open("sim:hdd?bad=1000-1003").unwrap();
    let path = t.info().path.clone();
    let mut buf = seekprobe::device::AlignedBuf::new(512);
    assert!(t.read_at(buf.for_read(..), 1001 * 512).is_err());
    let mut src = source_for(t.smart_source(), &path, smartctl::DEFAULT_TIMEOUT).unwrap();
    match src.read().unwrap() {
        SmartRead::Health { health, .. } => {
            let ata = health.ata.unwrap();
            assert_eq!((ata.pending, ata.reallocated), (Some(1), Some(0)));
            assert_eq!(health.protocol, Some(Protocol::Ata));
        }
        SmartRead::NoSmart { note } => panic!("{note}"),
    }
}

#[test]
fn a_report_without_smart_beside_one_with_it_is_refused() {
    let (_dir, none) = run_file("none.json");
    std::fs::write(&none, r#"{"json_format_version":[1,0],"smartctl":{"version":[7,3],"messages":[{"string":"/dev/loop1: Unable to detect device type","severity":"error"}],"exit_status":1}}"#).unwrap();
    let failing = data_dir().join("nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json");
    for (a, b) in [(&failing, &none), (&none, &failing)] {
        seekprobe()
            .arg("smart")
            .arg(a)
            .arg(b)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "{} holds no SMART data",
                none.display()
            )));
    }
}

#[test]
fn two_different_drives_are_not_compared() {
    let a = data_dir().join("ST3500418AS_11.json");
    let b = data_dir().join("WDC_WD20EFRX-68EUZN0_17.json");
    seekprobe()
        .arg("smart")
        .arg(&a)
        .arg(&b)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(
            "are not the same drive (model ST3500418AS vs WDC WD20EFRX-68EUZN0)",
        ));
    let nvme = data_dir().join("INTEL_SSDPE2KX080T8_1.json");
    seekprobe()
        .arg("smart")
        .arg(&a)
        .arg(&nvme)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("protocol ATA vs NVMe"));
}

#[test]
fn a_counter_missing_from_the_second_report_is_reported() {
    let dir = temp_dir();
    let before = data_dir().join("ST3500418AS_11.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&before).unwrap()).unwrap();
    v["ata_smart_attributes"]["table"]
        .as_array_mut()
        .unwrap()
        .retain(|a| a["id"] != 197);
    let after = dir.path().join("after.json");
    std::fs::write(&after, v.to_string()).unwrap();
    seekprobe()
        .arg("smart")
        .arg(&before)
        .arg(&after)
        .assert()
        .stdout(
            predicate::str::contains("\t0 -> not reported\t# pending sectors (ATA 197)\n").and(
                predicate::str::contains(
                    "warning: pending sectors (ATA 197): in the first report, missing from the second\n",
                ),
            ),
        );
}

#[test]
fn a_negative_raw_value_is_left_out_with_a_note() {
    let text = std::fs::read_to_string(data_dir().join("ST3500418AS_11.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for a in v["ata_smart_attributes"]["table"].as_array_mut().unwrap() {
        if a["id"] == 197 {
            a["raw"] = serde_json::json!({"value": -3, "string": "-3"});
        }
    }
    // ST3500418AS's own warnings (reallocated 1, timeouts 1) stay; the
    // attribute alone fails nothing.
    seekprobe()
        .args(["smart", "-"])
        .write_stdin(v.to_string())
        .assert()
        .code(0)
        .stdout(
            predicate::str::contains(
                "\tunreadable  \t# raw value of ATA 197 Current_Pending_Sector: \"-3\"\n",
            )
            .and(predicate::str::contains(
                "note: ATA attribute 197 Current_Pending_Sector: raw value \"-3\" is not a count: left out, the other attributes judged\n",
            ))
            .and(predicate::str::ends_with("SMART verdict: healthy\n")),
        );
}
