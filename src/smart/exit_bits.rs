//! smartctl's exit status bits 2–6 as findings, each saying what its bit means
//! (smartctl(8), RETURN VALUES): bit 3 (the SMART status check said DISK
//! FAILING) and bit 4 (a pre-failure attribute at or below its threshold now)
//! fail the drive; bits 2, 5 and 6 are notes. Bits 0 and 1 (no report, the
//! device not opened) are answered before any rule ([`super::smartctl::classify`]);
//! bit 7 (the self-test log) is judged with the log ([`super::history`]).

use crate::results::health::{ExitStatus, Health};
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// The exit status as a finding's figure.
fn bit_figure(exit: ExitStatus, bit: u32) -> Figure {
    Figure::new(
        "exit-status",
        Some(u64::from(exit.0)),
        &format!("smartctl.exit_status bit {bit}"),
    )
}

/// The overall assessment and bits 3 and 4: what fails the drive on smartctl's
/// word alone.
pub fn failing(now: &Health, exit: ExitStatus, out: &mut Vec<Finding>) {
    if now.passed == Some(false) {
        out.push(
            Finding::smart(
                Severity::Fail,
                "smart-failing",
                "smartctl says the drive is failing (SMART overall-health self-assessment: FAILED)"
                    .into(),
            )
            .with(Figure::new(
                "overall-assessment",
                None,
                "smart_status.passed",
            )),
        );
    } else if exit.has(ExitStatus::DISK_FAILING) {
        let passed = if now.passed == Some(true) {
            " (the report's smart_status.passed says PASSED: the two disagree, and the failing word is taken)"
        } else {
            ""
        };
        out.push(
            Finding::smart(
                Severity::Fail,
                "smart-failing",
                format!(
                    "smartctl's SMART status check returned DISK FAILING (exit status bit 3){passed}"
                ),
            )
            .with(bit_figure(exit, 3)),
        );
    }
    let named = now.failed_attributes.iter().any(|a| a.now && a.prefailure);
    if exit.has(ExitStatus::PREFAIL_NOW) && !named {
        out.push(
            Finding::smart(
                Severity::Fail,
                "prefail-now",
                "smartctl says a pre-failure attribute is at or below its threshold now (exit status bit 4); the report's attribute table does not name it (take smartctl -x to see which)".into(),
            )
            .with(bit_figure(exit, 4)),
        );
    }
}

/// Bits 2, 5 and 6: notes, each saying what its bit means and what the report
/// holds of it.
pub fn notes(now: &Health, exit: ExitStatus, out: &mut Vec<Finding>) {
    if exit.has(ExitStatus::COMMAND_FAILED) {
        out.push(Finding::smart(
            Severity::Note,
            "smartctl-command-failed",
            "smartctl: a SMART or other command to the disk failed (exit status bit 2); some values may be missing".into(),
        ));
    }
    if exit.has(ExitStatus::THRESHOLD_PAST) && now.failed_attributes.is_empty() {
        out.push(Finding::smart(
            Severity::Note,
            "threshold-past",
            "smartctl says an attribute was at or below its threshold in the past, not now (exit status bit 5); the report's attribute table does not name it".into(),
        ));
    }
    if exit.has(ExitStatus::ERROR_LOG) {
        let nvme = now.nvme.as_ref().and_then(|n| n.error_log_entries);
        let what = match (now.ata_error_log_count, nvme) {
            (Some(n), _) if n > 0 => {
                format!("the drive's error log holds errors ({n} logged over the drive's life)")
            }
            (_, Some(n)) if n > 0 => {
                format!("the drive's error log holds errors ({n} NVMe error log entries)")
            }
            (Some(_), _) | (_, Some(_)) => "smartctl says the drive's error log holds errors, but the report's count is 0 (smartctl read the log beyond its summary, or the count is stale)".into(),
            (None, None) => "smartctl says the drive's error log holds errors; the report holds no count of them (take smartctl -x to read the log)".into(),
        };
        out.push(
            Finding::smart(
                Severity::Note,
                "error-log",
                format!("{what} (exit status bit 6)"),
            )
            .with(Figure::new(
                "error-log-count",
                now.ata_error_log_count.or(nvme),
                "ata_smart_error_log count",
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::FailedAttribute;

    fn judged(h: &Health, bits: u32) -> Vec<Finding> {
        let mut out = Vec::new();
        failing(h, ExitStatus(bits), &mut out);
        notes(h, ExitStatus(bits), &mut out);
        out
    }

    #[test]
    fn each_bit_says_what_it_means() {
        let passed = Health {
            passed: Some(true),
            ..Default::default()
        };
        let f = judged(&passed, ExitStatus::DISK_FAILING);
        assert_eq!(f[0].rule, "smart-failing");
        assert!(
            !f[0].reason.contains("self-assessment: FAILED"),
            "{}",
            f[0].reason
        );
        assert!(f[0].reason.contains("bit 3"));
        let f = judged(&passed, ExitStatus::PREFAIL_NOW);
        assert_eq!(
            (f[0].rule.as_str(), f[0].severity),
            ("prefail-now", Severity::Fail)
        );
        // Named by the table: the attribute's own finding says it.
        let mut named = passed.clone();
        named.failed_attributes.push(FailedAttribute {
            id: 5,
            name: "Reallocated_Sector_Ct".into(),
            now: true,
            prefailure: true,
        });
        assert!(judged(&named, ExitStatus::PREFAIL_NOW).is_empty());
        let f = judged(&passed, ExitStatus::THRESHOLD_PAST);
        assert_eq!(
            (f[0].rule.as_str(), f[0].severity),
            ("threshold-past", Severity::Note)
        );
        let mut none = passed.clone();
        none.ata_error_log_count = Some(0);
        let f = judged(&none, ExitStatus::ERROR_LOG);
        assert!(!f[0].reason.contains("(0 logged"), "{}", f[0].reason);
        assert!(f[0].reason.contains("count is 0"), "{}", f[0].reason);
        let f = judged(&passed, ExitStatus::ERROR_LOG);
        assert!(f[0].reason.contains("no count"), "{}", f[0].reason);
    }
}
