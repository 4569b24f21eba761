//! The verdict each report gets: the findings a storage engineer would sign.

use super::*;

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
    use seekprobe::smart::health_rules::{RuleOptions, findings};
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
