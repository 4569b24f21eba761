//! Issue 27's "SMART's last blind spots": a table of reports derived from real
//! ones, each row the exit status and what the output says or must not say.

use super::*;
use crate::helpers::temp_dir;

/// One row of the blind-spot table: a report (a real one of tests/data/smartctl,
/// or one derived from it: synthetic/README.md, or re-encoded here), the
/// options, `seekprobe smart`'s exit status and what its output says or must
/// not say.
pub(super) struct BlindSpot {
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
pub(super) const SAYS_HEALTHY: &str = "SMART verdict: healthy\n";
/// What a report that cannot be judged prints.
pub(super) const SAYS_UNJUDGED: &str = "SMART verdict: cannot be judged\n";
const WDC: &str = "WDC_WD20EFRX-68EUZN0_17.json";

/// A blind-spot row on a report of tests/data/smartctl as it is.
pub(super) fn row(
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
pub(super) fn check(rows: &[BlindSpot]) {
    let dir = temp_dir();
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
    use seekprobe::smart::health_rules::{RuleOptions, findings};
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
