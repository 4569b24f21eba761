//! SMART health from smartctl's JSON: every real report in tests/data/smartctl/
//! parses to the values it holds, `seekprobe smart` judges them, and the real
//! smartctl on a loop device gives the "no SMART" note.

use crate::helpers::smartctl_loop_tests;
use crate::helpers::{LoopDev, refused, run_file, seekprobe};
use predicates::prelude::*;
use seekprobe::results::health::{Health, NvmeWarning, Protocol};
use seekprobe::smart::{Report, SmartRead, smartctl};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/smartctl")
}

fn health(file: &str) -> Health {
    let text = std::fs::read_to_string(data_dir().join(file)).unwrap();
    let report = Report::from_json(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    match smartctl::classify(report).unwrap() {
        SmartRead::Health { health, .. } => *health,
        SmartRead::NoSmart { note } => panic!("{file}: no SMART: {note}"),
    }
}

/// What a report holds. ATA counters in the order 5, 196, 197, 198, 187, 188
/// (decoded total), 199; SCSI: grown defects and uncorrected read, write, verify;
/// NVMe: critical warning, media errors, error log entries, percentage used,
/// spare, spare threshold.
struct Expect {
    file: &'static str,
    protocol: Protocol,
    passed: bool,
    exit: u32,
    temp: i64,
    hours: Option<u64>,
    ata: Option<[Option<u64>; 7]>,
    scsi: Option<[Option<u64>; 4]>,
    nvme: Option<(u8, u64, u64, u32, u32, u32)>,
}

const N: Option<u64> = None;

fn ata(file: &'static str, exit: u32, temp: i64, hours: u64, c: [Option<u64>; 7]) -> Expect {
    Expect {
        file,
        protocol: Protocol::Ata,
        passed: true,
        exit,
        temp,
        hours: Some(hours),
        ata: Some(c),
        scsi: None,
        nvme: None,
    }
}

fn scsi(file: &'static str, temp: i64, hours: Option<u64>, c: [Option<u64>; 4]) -> Expect {
    Expect {
        file,
        protocol: Protocol::Scsi,
        passed: true,
        exit: 0,
        temp,
        hours,
        ata: None,
        scsi: Some(c),
        nvme: None,
    }
}

fn nvme(
    file: &'static str,
    passed: bool,
    exit: u32,
    temp: i64,
    hours: u64,
    n: (u8, u64, u64, u32, u32, u32),
) -> Expect {
    Expect {
        file,
        protocol: Protocol::Nvme,
        passed,
        exit,
        temp,
        hours: Some(hours),
        ata: None,
        scsi: None,
        nvme: Some(n),
    }
}

/// What each real report holds, in file order: the first half, then
/// [`expectations_from_nvme`].
fn expectations() -> Vec<Expect> {
    let s = Some;
    let mut v = vec![
        ata(
            "HGST_HUS724020ALE640_28.json",
            64,
            26,
            83425,
            [s(0), s(0), s(0), s(0), N, N, s(12)],
        ),
        scsi(
            "HITACHI_H109060SESUN600G_9.json",
            27,
            Some(982),
            [s(0), s(0), s(0), s(0)],
        ),
        scsi(
            "HP_73.4G_MAS3735NC_25.json",
            28,
            None,
            [s(0), s(0), s(0), N],
        ),
        ata(
            "Hitachi_HUA722020ALA330_29.json",
            0,
            28,
            78405,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
        nvme(
            "INTEL_SSDPE2KX080T8_1.json",
            true,
            0,
            29,
            12164,
            (0, 0, 0, 0, 100, 10),
        ),
        ata(
            "SAMSUNG_MZ7WD240HAFV-00003_21.json",
            0,
            27,
            84619,
            [s(0), N, N, N, s(0), N, s(0)],
        ),
        scsi(
            "SEAGATE_ST373453LC_27.json",
            34,
            Some(91691),
            [s(0), s(0), s(0), s(0)],
        ),
        ata(
            "ST3500418AS_11.json",
            0,
            32,
            44670,
            [s(1), N, s(0), s(0), s(0), s(1), s(0)],
        ),
        ata(
            "WDC_WD20EFRX-68EUZN0_17.json",
            0,
            34,
            47657,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
    ];
    v.extend(expectations_from_nvme());
    v
}

/// The second half of [`expectations`].
fn expectations_from_nvme() -> Vec<Expect> {
    let s = Some;
    vec![
        nvme(
            "nvme-null-INTEL_SSDPE2KX020T7-nvme6.json",
            true,
            0,
            19,
            49441,
            (0, 0, 0, 75, 99, 10),
        ),
        nvme(
            "nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json",
            false,
            8,
            40,
            18376,
            (16, 0, 0, 0, 100, 10),
        ),
        nvme(
            "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
            true,
            0,
            35,
            3149,
            (0, 0, 22, 0, 100, 10),
        ),
        ata(
            "sat-Intel_S3520_Series_SSDs-INTEL_SSDSC2BB016T7-sdc.json",
            0,
            26,
            43494,
            [s(1), N, s(0), N, s(0), N, s(0)],
        ),
        ata(
            "sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json",
            0,
            24,
            4175,
            [s(0), s(0), s(0), s(0), s(0), s(29), s(24)],
        ),
        ata(
            "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
            4,
            38,
            4994,
            [N, s(0), N, N, s(0), N, s(0)],
        ),
        ata(
            "sat-Toshiba_X300-TOSHIBA_HDWE160-sdb.json",
            0,
            25,
            47234,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
        ata(
            "sat-null-ST18000NM000J-2TV103-sda.json",
            0,
            24,
            1136,
            [s(0), N, s(0), s(0), s(0), s(0), s(0)],
        ),
    ]
}

#[test]
fn every_report_parses_to_the_values_it_holds() {
    let table = expectations();
    let mut files: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "seagate-farm-log-only.json")
        .collect();
    files.sort();
    let mut listed: Vec<String> = table.iter().map(|e| e.file.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "every report in the folder has a row, and only those"
    );
    for e in &table {
        let h = health(e.file);
        let f = e.file;
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            serde_json::from_str::<Health>(&json).unwrap(),
            h,
            "{f}: the health is plain data that survives JSON"
        );
        assert_eq!(h.protocol, Some(e.protocol), "{f}");
        assert_eq!(h.passed, Some(e.passed), "{f}");
        assert_eq!(h.exit_status.map(|x| x.0), Some(e.exit), "{f}");
        assert_eq!(h.temperature_c, Some(e.temp), "{f}");
        assert_eq!(h.power_on_hours, e.hours, "{f}");
        assert_eq!(
            h.temperature_max_c, None,
            "{f}: no SCT status in these reports"
        );
        assert_eq!(
            h.last_self_test, None,
            "{f}: no self-test log in these reports"
        );
        match (&h.ata, e.ata) {
            (Some(a), Some(c)) => assert_eq!(
                [
                    a.reallocated,
                    a.reallocation_events,
                    a.pending,
                    a.offline_uncorrectable,
                    a.reported_uncorrectable,
                    a.command_timeouts.map(|t| t.total),
                    a.udma_crc_errors
                ],
                c,
                "{f}"
            ),
            (None, None) => {}
            (a, c) => panic!("{f}: ATA counters {a:?}, expected {c:?}"),
        }
        match (&h.scsi, e.scsi) {
            (Some(s), Some(c)) => assert_eq!(
                [
                    s.grown_defects,
                    s.read_uncorrected,
                    s.write_uncorrected,
                    s.verify_uncorrected
                ],
                c,
                "{f}"
            ),
            (None, None) => {}
            (s, c) => panic!("{f}: SCSI counters {s:?}, expected {c:?}"),
        }
        match (&h.nvme, e.nvme) {
            (Some(n), Some((cw, media, entries, used, spare, thresh))) => {
                assert_eq!(n.critical_warning, Some(cw), "{f}");
                assert_eq!(n.media_errors, Some(media), "{f}");
                assert_eq!(n.error_log_entries, Some(entries), "{f}");
                assert_eq!(n.percentage_used, Some(used), "{f}");
                assert_eq!(n.available_spare, Some(spare), "{f}");
                assert_eq!(n.available_spare_threshold, Some(thresh), "{f}");
            }
            (None, None) => {}
            (n, c) => panic!("{f}: NVMe health {n:?}, expected {c:?}"),
        }
    }
}

#[test]
fn packed_and_named_values_decode() {
    // Seagate 188: raw 1 is three 16-bit words 0 0 1 (smartctl -v 188,raw16).
    let st = health("ST3500418AS_11.json");
    let t = st.ata.unwrap().command_timeouts.unwrap();
    assert_eq!((t.total, t.over_5s, t.over_7_5s), (1, 0, 0));
    assert_eq!(st.model.as_deref(), Some("ST3500418AS"));
    let micron =
        health("sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json");
    let t = micron.ata.unwrap().command_timeouts.unwrap();
    assert_eq!((t.total, t.over_5s, t.over_7_5s), (29, 0, 0));
    let samsung = health("nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json");
    assert_eq!(
        samsung.nvme.unwrap().warnings,
        [NvmeWarning::VolatileBackupFailed]
    );
    let hgst = health("HGST_HUS724020ALE640_28.json");
    assert_eq!(hgst.ata_error_log_count, Some(12));
    assert!(health("SEAGATE_ST373453LC_27.json").smart_disabled);
    assert_eq!(
        health("HP_73.4G_MAS3735NC_25.json").model.as_deref(),
        Some("HP 73.4G MAS3735NC")
    );
}

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
    let dir = tempfile::tempdir().unwrap();
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
        let dir = tempfile::tempdir().unwrap();
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
        let dir = tempfile::tempdir().unwrap();
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
    let dir = tempfile::tempdir().unwrap();
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

/// A report and the findings it must get: (severity, rule) each, in order.
type Verdict = (&'static str, &'static [(&'static str, &'static str)]);

const HEALTHY: &[(&str, &str)] = &[];
const REALLOC: (&str, &str) = ("warn", "reallocated");
const TIMEOUTS: (&str, &str) = ("warn", "command-timeouts");
const FARM_UNREAD: (&str, &str) = ("note", "farm-unread");
const COMMAND_FAILED: (&str, &str) = ("note", "smartctl-command-failed");

/// The verdicts of the real reports.
fn real_verdicts() -> Vec<Verdict> {
    let healthy = HEALTHY;
    vec![
        ("HGST_HUS724020ALE640_28.json", &[("note", "error-log")]),
        ("HITACHI_H109060SESUN600G_9.json", healthy),
        ("HP_73.4G_MAS3735NC_25.json", healthy),
        ("Hitachi_HUA722020ALA330_29.json", healthy),
        ("INTEL_SSDPE2KX080T8_1.json", healthy),
        ("SAMSUNG_MZ7WD240HAFV-00003_21.json", healthy),
        ("SEAGATE_ST373453LC_27.json", &[("note", "smart-disabled")]),
        ("ST3500418AS_11.json", &[REALLOC, TIMEOUTS, FARM_UNREAD]),
        ("WDC_WD20EFRX-68EUZN0_17.json", healthy),
        ("nvme-null-INTEL_SSDPE2KX020T7-nvme6.json", healthy),
        (
            "nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json",
            &[("fail", "smart-failing"), ("fail", "nvme-critical-warning")],
        ),
        (
            "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
            &[("note", "nvme-error-log")],
        ),
        (
            "sat-Intel_S3520_Series_SSDs-INTEL_SSDSC2BB016T7-sdc.json",
            &[REALLOC],
        ),
        (
            "sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json",
            &[TIMEOUTS],
        ),
        (
            "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
            &[COMMAND_FAILED],
        ),
        ("sat-Toshiba_X300-TOSHIBA_HDWE160-sdb.json", healthy),
        ("sat-null-ST18000NM000J-2TV103-sda.json", &[FARM_UNREAD]),
        (
            "seagate-farm-log-only.json",
            &[("fail", "no-health-data"), ("note", "farm-hours")],
        ),
    ]
}

/// The verdicts of the synthetic reports (synthetic/README.md), the first part.
fn synthetic_verdicts() -> Vec<Verdict> {
    vec![
        (
            "synthetic/HGST_HUS724020ALE640_28-error-log-0.json",
            &[("note", "error-log")],
        ),
        (
            "synthetic/HITACHI_H109060SESUN600G_9-grown-defects-150.json",
            &[("fail", "grown-defects")],
        ),
        (
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-300.json",
            &[("fail", "uncorrected")],
        ),
        (
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-string.json",
            &[("fail", "unjudgeable")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-critical-warning-string.json",
            &[("fail", "unjudgeable")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-health-log-list.json",
            &[("fail", "unjudgeable")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-used-85.json",
            &[("warn", "life-used")],
        ),
        (
            "synthetic/Micron_5300-202-lifetime-remain-15.json",
            &[TIMEOUTS, ("warn", "life-used")],
        ),
        (
            "synthetic/ST3500418AS_11-pending-raw-null.json",
            &[
                REALLOC,
                TIMEOUTS,
                ("note", "unreadable-counter"),
                FARM_UNREAD,
            ],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit3-passed.json",
            &[("fail", "smart-failing")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit4.json",
            &[("fail", "prefail-now")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit5.json",
            &[("note", "threshold-past")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-table-not-a-list.json",
            &[("fail", "unjudgeable")],
        ),
    ]
}

/// The verdicts of the synthetic reports, the second part.
fn more_synthetic_verdicts() -> Vec<Verdict> {
    let healthy = HEALTHY;
    vec![
        (
            "synthetic/HITACHI_H109060SESUN600G_9-grown-defects-5.json",
            &[("warn", "grown-defects")],
        ),
        (
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-3.json",
            &[("warn", "uncorrected")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-media-errors-2.json",
            &[("warn", "media-errors")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-used-100.json",
            &[("warn", "worn-out")],
        ),
        (
            "synthetic/INTEL_SSDPE2KX080T8_1-used-101.json",
            &[("fail", "worn-out")],
        ),
        ("synthetic/Micron_5300-188-70000.json", &[TIMEOUTS]),
        ("synthetic/Micron_5300-198-Host_Reads_GiB.json", &[TIMEOUTS]),
        ("synthetic/Micron_5300-198-raw24-raw32.json", &[TIMEOUTS]),
        (
            "synthetic/ST18000NM000J-farm-31000-hours.json",
            &[("fail", "farm-hours")],
        ),
        (
            "synthetic/ST3500418AS_11-offline-uncorrectable-8.json",
            &[
                ("fail", "offline-uncorrectable"),
                REALLOC,
                TIMEOUTS,
                FARM_UNREAD,
            ],
        ),
        (
            "synthetic/ST3500418AS_11-pending-8.json",
            &[("fail", "pending"), REALLOC, TIMEOUTS, FARM_UNREAD],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-erc-off.json",
            &[("warn", "erc"), ("warn", "erc")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-extended-read-failure.json",
            &[("fail", "self-test-log")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-wrap.json",
            &[("note", "self-test-log")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-no-assessment.json",
            &[("note", "no-assessment")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-temperature-string.json",
            &[("note", "ignored-field")],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-sct-minus-127.json",
            healthy,
        ),
    ]
}

/// The verdicts of issue 42's synthetic reports (drivedb's decoding).
fn drivedb_verdicts() -> Vec<Verdict> {
    const UNJUDGEABLE: (&str, &str) = ("fail", "unjudgeable");
    const UNREADABLE: (&str, &str) = ("note", "unreadable-counter");
    vec![
        (
            "synthetic/KINGSTON_SA400M8120G-231-life-left-30.json",
            &[COMMAND_FAILED],
        ),
        (
            "synthetic/KINGSTON_SA400M8120G-231-life-left-5.json",
            &[("warn", "life-used"), COMMAND_FAILED],
        ),
        (
            "synthetic/ADATA_SU650-169-life-left-30.json",
            &[COMMAND_FAILED],
        ),
        (
            "synthetic/ADATA_SU650-169-life-left-5.json",
            &[("warn", "life-used"), COMMAND_FAILED],
        ),
        (
            "synthetic/WDC_WDS400T1R0A-not-in-database-241.json",
            &[("note", "host-writes-unknown"), COMMAND_FAILED],
        ),
        (
            "synthetic/WDC_WDS400T1R0A-not-in-database-241-20000-in-5-hours.json",
            &[("note", "host-writes-unknown"), COMMAND_FAILED],
        ),
        ("synthetic/ADATA_SU650-hours-2e64-1.json", &[COMMAND_FAILED]),
        (
            "synthetic/ADATA_SU650-link-speed-overflow.json",
            &[COMMAND_FAILED],
        ),
        (
            "synthetic/Micron_5300-199-crc-2000000.json",
            &[TIMEOUTS, ("warn", "crc-count")],
        ),
        (
            "synthetic/KINGSTON_SA400M8120G-info-health-only.json",
            &[("note", "no-counters"), COMMAND_FAILED],
        ),
        (
            "synthetic/ST3500418AS_11-pending-raw-string.json",
            &[UNJUDGEABLE, REALLOC, TIMEOUTS, UNREADABLE, FARM_UNREAD],
        ),
        (
            "synthetic/ST3500418AS_11-pending-raw-2e70.json",
            &[UNJUDGEABLE, REALLOC, TIMEOUTS, UNREADABLE, FARM_UNREAD],
        ),
        (
            "synthetic/ST3500418AS_11-pending-raw-fraction.json",
            &[UNJUDGEABLE, REALLOC, TIMEOUTS, UNREADABLE, FARM_UNREAD],
        ),
        (
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-string.json",
            &[("note", "ignored-field")],
        ),
    ]
}

/// Every report's findings as (severity, rule), without `--new`.
fn judged(file: &str) -> Vec<seekprobe::results::Finding> {
    use seekprobe::smart::rules::{RuleOptions, findings};
    findings(&health(file), None, &RuleOptions::default())
}

/// The verdict of every real report of tests/data/smartctl/ and of each synthetic
/// one (synthetic/README.md: a real report with one field changed), as a storage
/// engineer would give it: `seekprobe smart`'s exit status and each finding's
/// severity and rule, without `--new`.
#[test]
fn every_report_gets_the_verdict_a_storage_engineer_would_sign() {
    use seekprobe::results::Severity;
    let table: Vec<Verdict> = [
        real_verdicts(),
        synthetic_verdicts(),
        more_synthetic_verdicts(),
        drivedb_verdicts(),
    ]
    .concat();
    let mut files: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .chain(std::fs::read_dir(data_dir().join("synthetic")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| p.strip_prefix(data_dir()).unwrap().display().to_string())
        .filter(|f| !f.ends_with("permission-denied.json"))
        .collect();
    files.sort();
    let mut named: Vec<String> = table.iter().map(|(f, _)| f.to_string()).collect();
    named.sort();
    assert_eq!(files, named, "every report has its verdict in the table");
    for (file, want) in &table {
        let f = judged(file);
        let got: Vec<(&str, &str)> = f
            .iter()
            .map(|f| {
                let s = match f.severity {
                    Severity::Fail => "fail",
                    Severity::Warning => "warn",
                    Severity::Note => "note",
                };
                (s, f.rule.as_str())
            })
            .collect();
        assert_eq!(&got, want, "{file}: {f:#?}");
        for x in &f {
            if x.severity != Severity::Note {
                assert!(x.figure.is_some(), "{file}: {} names no figure", x.rule);
            }
        }
        // A finding that the report cannot be judged is exit 1, a failing
        // drive 3.
        let fails = f
            .iter()
            .any(|x| x.severity == Severity::Fail && !x.cannot_judge());
        let unjudged = f.iter().any(|x| x.cannot_judge());
        seekprobe()
            .arg("smart")
            .arg(data_dir().join(file))
            .assert()
            .code(match (fails, unjudged) {
                (true, _) => 3,
                (false, true) => 1,
                (false, false) => 0,
            });
    }
}

#[test]
fn the_figures_named_in_the_issue() {
    let h = health("synthetic/Micron_5300-198-raw24-raw32.json");
    assert_eq!(h.ata.as_ref().unwrap().offline_uncorrectable, Some(0));
    let h = health("synthetic/Micron_5300-198-Host_Reads_GiB.json");
    assert_eq!(h.ata.as_ref().unwrap().offline_uncorrectable, None);
    assert_eq!(h.not_judged[0].name, "Host_Reads_GiB");
    let t = health("synthetic/Micron_5300-188-70000.json")
        .ata
        .unwrap()
        .command_timeouts
        .unwrap();
    assert_eq!((t.total, t.packed), (70000, false));
    let h = health("synthetic/WDC_WD20EFRX-68EUZN0_17-sct-minus-127.json");
    assert_eq!(h.temperature_max_c, None);
    // Intel S3520: 233 Media_Wearout_Indicator 97 is 3% used; Phison 231
    // SSD_Life_Left 98 is 2%.
    let w = health("sat-Intel_S3520_Series_SSDs-INTEL_SSDSC2BB016T7-sdc.json").usage;
    assert_eq!(w.wear[0].used_percent, 3);
    assert_eq!(w.host_written_bytes, Some(2_772_743 * (32 << 20)));
    // --new: the NVMe drive at 75% used fails on its wear, and the exit status is 3.
    seekprobe()
        .args(["smart", "--new"])
        .arg(data_dir().join("nvme-null-INTEL_SSDPE2KX020T7-nvme6.json"))
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "FAIL: 75% of the rated life used (NVMe percentage used) on a drive given as new\n",
        ));
    // A failed open is an error (exit 1), not "no SMART".
    seekprobe()
        .arg("smart")
        .arg(data_dir().join("synthetic/WDC_WD20EFRX-68EUZN0_17-permission-denied.json"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("Permission denied"));
    // Over 16 MiB: refused before it is parsed.
    let (_dir, big) = run_file("big.json");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len((16 << 20) + 1).unwrap();
    seekprobe()
        .arg("smart")
        .arg(&big)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("over 16 MiB"));
}

/// One row of the blind-spot table: a report (a real one of tests/data/smartctl,
/// or one derived from it: synthetic/README.md, or re-encoded here), the
/// options, `seekprobe smart`'s exit status and what its output says or must
/// not say.
struct BlindSpot {
    rule: &'static str,
    report: Vec<u8>,
    args: &'static [&'static str],
    code: i32,
    says: &'static [&'static str],
    never: &'static [&'static str],
}

fn real(file: &str) -> Vec<u8> {
    std::fs::read(data_dir().join(file)).unwrap()
}

/// A real report re-encoded as a Windows tool saves it.
fn encoded(file: &str, bom: &[u8], utf16: Option<fn(u16) -> [u8; 2]>) -> Vec<u8> {
    let text = String::from_utf8(real(file)).unwrap();
    let mut out = bom.to_vec();
    match utf16 {
        Some(word) => out.extend(text.encode_utf16().flat_map(word)),
        None => out.extend_from_slice(text.as_bytes()),
    }
    out
}

/// What a healthy verdict prints.
const SAYS_HEALTHY: &str = "SMART verdict: healthy\n";
/// What a report that cannot be judged prints.
const SAYS_UNJUDGED: &str = "SMART verdict: cannot be judged\n";
const WDC: &str = "WDC_WD20EFRX-68EUZN0_17.json";

/// A blind-spot row on a report of tests/data/smartctl as it is.
fn row(
    rule: &'static str,
    file: &str,
    args: &'static [&'static str],
    code: i32,
    says: &'static [&'static str],
    never: &'static [&'static str],
) -> BlindSpot {
    BlindSpot {
        rule,
        report: real(file),
        args,
        code,
        says,
        never,
    }
}

/// Issue 27's rows on smartctl's exit status bits (smartctl(8), RETURN
/// VALUES) and the SCSI counters.
fn exit_bit_and_scsi_rows() -> Vec<BlindSpot> {
    vec![
        row(
            "bit 4 fails",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit4.json",
            &[],
            3,
            &[
                "FAIL: smartctl says a pre-failure attribute is at or below its threshold now (exit status bit 4)",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "bit 3 with PASSED says what bit 3 means",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit3-passed.json",
            &[],
            3,
            &["FAIL: smartctl's SMART status check returned DISK FAILING (exit status bit 3)"],
            &["self-assessment: FAILED"],
        ),
        row(
            "bit 5 is a note",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-exit-bit5.json",
            &[],
            0,
            &[
                "note: smartctl says an attribute was at or below its threshold in the past, not now (exit status bit 5)",
                SAYS_HEALTHY,
            ],
            &[],
        ),
        row(
            "bit 6 with no logged errors",
            "synthetic/HGST_HUS724020ALE640_28-error-log-0.json",
            &[],
            0,
            &[
                "note: smartctl says the drive's error log holds errors, but the report's count is 0",
            ],
            &["(0 logged"],
        ),
        // SCSI: errors returned to the host, the grown defect list.
        row(
            "hundreds of uncorrected errors fail",
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-300.json",
            &[],
            3,
            &[
                "FAIL: uncorrected read/write/verify errors (SCSI): 300 on a used drive, beyond the 10 a used drive may have",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "a handful of uncorrected errors warns",
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-3.json",
            &[],
            0,
            &[
                "warning: uncorrected read/write/verify errors (SCSI): 3 on a used drive",
                SAYS_HEALTHY,
            ],
            &[],
        ),
        row(
            "a long grown defect list fails",
            "synthetic/HITACHI_H109060SESUN600G_9-grown-defects-150.json",
            &[],
            3,
            &[
                "FAIL: grown defects (SCSI): 150 on a used drive, beyond the 100 a used drive may have",
            ],
            &[],
        ),
        row(
            "a short grown defect list warns",
            "synthetic/HITACHI_H109060SESUN600G_9-grown-defects-5.json",
            &[],
            0,
            &["warning: grown defects (SCSI): 5 on a used drive"],
            &[],
        ),
    ]
}

/// Issue 27's rows on structures that cannot be read, FARM and wear.
fn structure_and_wear_rows() -> Vec<BlindSpot> {
    vec![
        // A structure that cannot be read cannot be judged.
        row(
            "the attribute table not a list",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-table-not-a-list.json",
            &[],
            1,
            &[
                "the report cannot be judged: ata_smart_attributes.table is an object, not a list",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "the NVMe health log a list",
            "synthetic/INTEL_SSDPE2KX080T8_1-health-log-list.json",
            &[],
            1,
            &[
                "nvme_smart_health_information_log is a list, not an object",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "critical_warning a string",
            "synthetic/INTEL_SSDPE2KX080T8_1-critical-warning-string.json",
            &[],
            1,
            &[
                "nvme_smart_health_information_log.critical_warning is the string \"0x04\"",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "a counter not a number",
            "synthetic/HITACHI_H109060SESUN600G_9-uncorrected-string.json",
            &[],
            1,
            &[
                "scsi_error_counter_log.read.total_uncorrected_errors is the string \"300\", not a count",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "one attribute's raw value null: left out with a note",
            "synthetic/ST3500418AS_11-pending-raw-null.json",
            &[],
            0,
            &[
                "note: ATA attribute 197 Current_Pending_Sector: raw value missing or null is not a count: left out",
                SAYS_HEALTHY,
            ],
            &["FAIL"],
        ),
        // --new without power-on hours; FARM only.
        row(
            "--new without power-on hours",
            "HP_73.4G_MAS3735NC_25.json",
            &["--new"],
            1,
            &[
                "FAIL: --new cannot judge whether the drive is new: the report holds no power-on hours",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "FARM only",
            "seagate-farm-log-only.json",
            &[],
            1,
            &["the report holds no SMART health", SAYS_UNJUDGED],
            &[SAYS_HEALTHY],
        ),
        row(
            "FARM only, its hours judged under --new",
            "seagate-farm-log-only.json",
            &["--new"],
            3,
            &[
                "FAIL: 2344 power-on hours (Seagate FARM) on a drive given as new (48 allowed, --new-max-hours)",
            ],
            &[SAYS_HEALTHY],
        ),
        // Wear: 80% or more of the rated life used.
        row(
            "NVMe 85% used warns",
            "synthetic/INTEL_SSDPE2KX080T8_1-used-85.json",
            &[],
            0,
            &[
                "warning: 85% of the rated life used (NVMe percentage used)",
                SAYS_HEALTHY,
            ],
            &[],
        ),
        row(
            "NVMe 75% used is no warning",
            "nvme-null-INTEL_SSDPE2KX020T7-nvme6.json",
            &[],
            0,
            &[SAYS_HEALTHY],
            &["warning:"],
        ),
        row(
            "Micron 202 Percent_Lifetime_Remain 15 (normalised, counts down) is 85% used",
            "synthetic/Micron_5300-202-lifetime-remain-15.json",
            &[],
            0,
            &[
                "warning: 85% of the rated life used (ATA 202 Percent_Lifetime_Remain (normalised value))",
            ],
            &[],
        ),
    ]
}

/// Reports re-encoded as Windows tools save them.
fn windows_rows() -> Vec<BlindSpot> {
    let le: fn(u16) -> [u8; 2] = u16::to_le_bytes;
    let be: fn(u16) -> [u8; 2] = u16::to_be_bytes;
    vec![
        BlindSpot {
            rule: "UTF-8 with a byte-order mark",
            report: encoded(WDC, &[0xef, 0xbb, 0xbf], None),
            args: &[],
            code: 0,
            says: &[
                "SMART health (/dev/sdb, WDC WD20EFRX-68EUZN0, ATA",
                SAYS_HEALTHY,
            ],
            never: &[],
        },
        BlindSpot {
            rule: "UTF-16 LE with a byte-order mark",
            report: encoded(WDC, &[0xff, 0xfe], Some(le)),
            args: &[],
            code: 0,
            says: &[
                "SMART health (/dev/sdb, WDC WD20EFRX-68EUZN0, ATA",
                SAYS_HEALTHY,
            ],
            never: &[],
        },
        BlindSpot {
            rule: "UTF-16 BE with a byte-order mark",
            report: encoded(WDC, &[0xfe, 0xff], Some(be)),
            args: &[],
            code: 0,
            says: &[
                "SMART health (/dev/sdb, WDC WD20EFRX-68EUZN0, ATA",
                SAYS_HEALTHY,
            ],
            never: &[],
        },
        BlindSpot {
            rule: "UTF-16 LE without a byte-order mark: refused, named",
            report: encoded(WDC, &[], Some(le)),
            args: &[],
            code: 1,
            says: &["UTF-16 LE text without a byte-order mark"],
            never: &[],
        },
        BlindSpot {
            rule: "UTF-32 LE: refused, named",
            report: [&[0xff, 0xfe, 0, 0][..], &real(WDC)].concat(),
            args: &[],
            code: 1,
            says: &["UTF-32 LE text (by its byte-order mark): not read"],
            never: &[],
        },
    ]
}

/// Run `seekprobe smart` on each row's report: its exit status, what it says
/// and what it must not say.
fn check(rows: &[BlindSpot]) {
    let dir = tempfile::tempdir().unwrap();
    for (i, r) in rows.iter().enumerate() {
        let path = dir.path().join(format!("{i}.json"));
        std::fs::write(&path, &r.report).unwrap();
        let out = seekprobe()
            .arg("smart")
            .args(r.args)
            .arg(&path)
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(r.code), "{}: {text}", r.rule);
        for s in r.says {
            assert!(text.contains(s), "{}: says no {s:?}:\n{text}", r.rule);
        }
        for s in r.never {
            assert!(!text.contains(s), "{}: says {s:?}:\n{text}", r.rule);
        }
    }
}

/// Issue 27's "SMART's last blind spots", one row (at least) a rule, each on a
/// report derived from a real one.
#[test]
fn smarts_last_blind_spots() {
    check(&exit_bit_and_scsi_rows());
    check(&structure_and_wear_rows());
    check(&windows_rows());
    // Under --smart, a report that cannot be judged is smart_unreadable, a
    // failing finding of the verdict, never a pass.
    use seekprobe::results::{Code, Severity as Weight};
    use seekprobe::smart::rules::{RuleOptions, findings};
    for file in [
        "synthetic/WDC_WD20EFRX-68EUZN0_17-table-not-a-list.json",
        "synthetic/INTEL_SSDPE2KX080T8_1-critical-warning-string.json",
        "seagate-farm-log-only.json",
    ] {
        let f = seekprobe::verdict::smart_rule_findings(&findings(
            &health(file),
            None,
            &RuleOptions::default(),
        ));
        assert!(
            f.iter()
                .any(|x| x.code == Code::SmartUnreadable && x.severity == Weight::Fail),
            "{file}: {f:?}"
        );
        assert!(!seekprobe::verdict::judge(f).passes(), "{file}");
    }
}

/// Issue 42's rows: wear where drivedb keeps it, written totals that cannot fit
/// the hours, huge CRC counts, `-i -H` reports, raw values that are not counts
/// and power-on hours of another type (synthetic/README.md names each report's
/// origin and change).
fn drivedb_rows() -> Vec<BlindSpot> {
    const PHISON: &str = "synthetic/KINGSTON_SA400M8120G-231-life-left-";
    const SM: &str = "synthetic/ADATA_SU650-169-life-left-";
    let at = |base: &str, left: &str| format!("{base}{left}.json");
    vec![
        row(
            "Phison 231 raw 30: 70% used",
            &at(PHISON, "30"),
            &[],
            0,
            &[
                "\t70%         \t# of rated life used (ATA 231 SSD_Life_Left (raw value))\n",
                SAYS_HEALTHY,
            ],
            &["warning: 70%", "\t0%  "],
        ),
        row(
            "Phison 231 raw 5: a used drive is warned of",
            &at(PHISON, "5"),
            &[],
            0,
            &[
                "warning: 95% of the rated life used (ATA 231 SSD_Life_Left (raw value)): 80% or more used, plan its replacement\n",
            ],
            &[],
        ),
        row(
            "Phison 231 raw 5 fails --new on its wear",
            &at(PHISON, "5"),
            &["--new"],
            3,
            &[
                "FAIL: 95% of the rated life used (ATA 231 SSD_Life_Left (raw value)) on a drive given as new\n",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "the real Phison report: raw 98, 2% used",
            "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
            &[],
            0,
            &["\t2%          \t# of rated life used (ATA 231 SSD_Life_Left (raw value))\n"],
            &[],
        ),
        row(
            "Silicon Motion 169 raw 30: 70% used",
            &at(SM, "30"),
            &[],
            0,
            &[
                "\t70%         \t# of rated life used (ATA 169 Remaining_Lifetime_Perc (raw value))\n",
            ],
            &["warning: 70%"],
        ),
        row(
            "Silicon Motion 169 raw 5 fails --new and warns a used drive",
            &at(SM, "5"),
            &["--new"],
            3,
            &[
                "FAIL: 95% of the rated life used (ATA 169 Remaining_Lifetime_Perc (raw value)) on a drive given as new\n",
            ],
            &[],
        ),
        row(
            "Silicon Motion 169 raw 5 warns a used drive",
            &at(SM, "5"),
            &[],
            0,
            &["warning: 95% of the rated life used (ATA 169 Remaining_Lifetime_Perc (raw value))"],
            &[],
        ),
    ]
}

/// Issue 42's rows on written totals, CRC counts and `-i -H` reports.
fn writes_crc_and_counter_rows() -> Vec<BlindSpot> {
    vec![
        row(
            "241 Total_LBAs_Written of a drive drivedb does not know: unknown",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241.json",
            &[],
            0,
            &[
                "\tunknown     \t# GiB written by the host (ATA 241 Total_LBAs_Written: raw 398, unit not known or too large for the hours)\n",
                "note: host writes unknown: ATA 241 Total_LBAs_Written has a raw written total of 398, and its unit is not known: smartctl's drive database does not know this drive",
            ],
            &["# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
        ),
        row(
            "an unknown written total cannot show a drive new",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241.json",
            &["--new"],
            3,
            &[
                "FAIL: --new cannot judge whether the drive is new: its host writes are unknown (ATA 241 Total_LBAs_Written raw 398",
            ],
            &[],
        ),
        row(
            "20000 in 241 after 5 hours (a reseller's reset): unknown, not 0 GiB",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241-20000-in-5-hours.json",
            &[],
            0,
            &[
                "\tunknown     \t# GiB written by the host (ATA 241 Total_LBAs_Written: raw 20000, unit not known or too large for the hours)\n",
                "has a raw written total of 20000, and its unit is not known",
                "(10240000 bytes as 512-byte LBAs, 20000 GiB as GiB)",
            ],
            &["# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
        ),
        row(
            "20000 in 241 after 5 hours cannot show a drive new",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241-20000-in-5-hours.json",
            &["--new"],
            1,
            &[
                "FAIL: --new cannot judge whether the drive is new: its host writes are unknown (ATA 241 Total_LBAs_Written raw 20000: 20000 LBAs or 20000 GiB, 64 GiB allowed)",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "2^64 - 1 power-on hours: no overflow, the 32 MiB count stands",
            "synthetic/ADATA_SU650-hours-2e64-1.json",
            &[],
            0,
            &["# GiB written by the host (ATA 241 Host_Writes_32MiB)\n"],
            &["unknown", "panicked"],
        ),
        row(
            "a link speed beyond 64 bits: no ceiling, the count stands",
            "synthetic/ADATA_SU650-link-speed-overflow.json",
            &[],
            0,
            &["# GiB written by the host (ATA 241 Host_Writes_32MiB)\n"],
            &["unknown", "panicked"],
        ),
        row(
            "a hard disk drivedb does not know keeps its LBA count",
            "sat-null-ST18000NM000J-2TV103-sda.json",
            &[],
            0,
            &["\t87          \t# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
            &["unknown"],
        ),
        row(
            "two million CRC errors are named",
            "synthetic/Micron_5300-199-crc-2000000.json",
            &[],
            0,
            &[
                "warning: 2000000 UDMA CRC errors (ATA 199): the cable, backplane or controller was bad for a long time, and a count this size takes heavy traffic: the drive may have been used hard",
            ],
            &[],
        ),
        row(
            "-i -H: no counters were read",
            "synthetic/KINGSTON_SA400M8120G-info-health-only.json",
            &[],
            0,
            &[
                "no counters were read, the verdict rests on the self-assessment alone",
                SAYS_HEALTHY,
            ],
            &[],
        ),
        row(
            "-i -H under --new: the hours cannot be judged",
            "synthetic/KINGSTON_SA400M8120G-info-health-only.json",
            &["--new"],
            1,
            &[
                "FAIL: --new cannot judge whether the drive is new: the report holds no power-on hours (power_on_time.hours, the NVMe log's power_on_hours, or Seagate FARM's poh): no counters were read",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
    ]
}

/// Issue 42's rows on values of another type.
fn odd_value_rows() -> Vec<BlindSpot> {
    const UNREAD: &str = "note: ATA attribute 197 Current_Pending_Sector: raw value ";
    vec![
        row(
            "a raw value that is a string",
            "synthetic/ST3500418AS_11-pending-raw-string.json",
            &[],
            1,
            &[
                "note: ATA attribute 197 Current_Pending_Sector: raw value the string \"8\" (smartctl's text \"8\") is not a count",
                "the report cannot be judged: ata_smart_attributes.table[16].raw.value (attribute 197) is the string \"8\", not a count",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "a raw value beyond 64 bits (2^70)",
            "synthetic/ST3500418AS_11-pending-raw-2e70.json",
            &[],
            1,
            &[
                UNREAD,
                "raw value the number 1.1805916207174113e+21, beyond 64 bits (smartctl's text \"1180591620717411303424\")",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "a raw value that is a fraction",
            "synthetic/ST3500418AS_11-pending-raw-fraction.json",
            &[],
            1,
            &[
                UNREAD,
                "raw value the number 2.5, a fraction (smartctl's text \"2.5\")",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "power-on hours given as a string: a note",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-string.json",
            &[],
            0,
            &[
                "note: smartctl's field power_on_time.hours (the string \"47657\") has an unexpected type: left out, the rest of the report read\n",
                SAYS_HEALTHY,
            ],
            &["# power-on hours"],
        ),
        row(
            "power-on hours given as a string, under --new",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-string.json",
            &["--new"],
            3,
            &[
                "FAIL: --new cannot judge whether the drive is new: the report holds no power-on hours",
            ],
            &[],
        ),
    ]
}

#[test]
fn smart_is_decoded_as_drivedb_means_it() {
    check(&drivedb_rows());
    check(&writes_crc_and_counter_rows());
    check(&odd_value_rows());
    // The figures behind the text.
    let u = health("synthetic/KINGSTON_SA400M8120G-231-life-left-30.json").usage;
    assert_eq!(
        (
            u.wear.len(),
            u.wear[0].used_percent,
            u.wear[0].source.as_str()
        ),
        (1, 70, "ATA 231 SSD_Life_Left (raw value)")
    );
    let u = health("synthetic/WDC_WDS400T1R0A-not-in-database-241.json").usage;
    assert_eq!(u.host_written_bytes, None);
    let w = u.host_writes_unknown.unwrap();
    assert_eq!(
        (w.raw, w.source.as_str()),
        (398, "ATA 241 Total_LBAs_Written")
    );
    // Health saved before these fields existed still loads.
    let old: Health = serde_json::from_str(
        r#"{"unreadable": [{"id": 197, "name": "Current_Pending_Sector", "raw": ""}], "usage": {"wear": []}}"#,
    )
    .unwrap();
    assert_eq!(
        (
            old.unreadable[0].held.as_deref(),
            old.usage.host_writes_unknown
        ),
        (None, None)
    );
}
