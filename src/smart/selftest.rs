//! The drive's own self-tests: the smartctl commands that start, follow and abort
//! them, and reading their progress and outcome from smartctl's JSON. Pure
//! functions; running the commands is [`super::smartctl`]'s job.

use super::model::Report;
use crate::results::health::{LoggedOutcome, SelfTestResult};
use crate::results::smart::SelfTestKind;
use serde::{Deserialize, Serialize};

impl SelfTestKind {
    /// The argument of `smartctl -t`.
    pub fn arg(self) -> &'static str {
        match self {
            SelfTestKind::Short => "short",
            SelfTestKind::Conveyance => "conveyance",
            SelfTestKind::Long => "long",
        }
    }

    /// Parse a name as given on the command line.
    pub fn parse(s: &str) -> Result<SelfTestKind, String> {
        match s {
            "short" => Ok(SelfTestKind::Short),
            "conveyance" => Ok(SelfTestKind::Conveyance),
            "long" | "extended" => Ok(SelfTestKind::Long),
            _ => Err(format!(
                "{s:?}: unknown self-test; use short, conveyance or long"
            )),
        }
    }
}

/// Arguments to start a self-test in the background (after `smartctl`).
pub fn start_args(kind: SelfTestKind, device: &str) -> Vec<String> {
    vec![
        "--json=c".into(),
        "-t".into(),
        kind.arg().into(),
        device.into(),
    ]
}

/// Arguments to abort a running self-test.
pub fn abort_args(device: &str) -> Vec<String> {
    vec!["--json=c".into(), "-X".into(), device.into()]
}

/// Arguments to read a running test's progress and the self-test log: `-c` gives
/// ATA's execution status and polling times, `-l selftest` the log (and NVMe's
/// current operation).
pub fn poll_args(device: &str) -> Vec<String> {
    vec![
        "--json=c".into(),
        "-c".into(),
        "-l".into(),
        "selftest".into(),
        device.into(),
    ]
}

/// Whether the drive offers a self-test kind: conveyance only where the ATA
/// capabilities say so; short and long wherever the report does not say no.
pub fn supports(r: &Report, kind: SelfTestKind) -> bool {
    let caps = r
        .ata_smart_data
        .as_ref()
        .and_then(|d| d.capabilities.as_ref());
    match kind {
        SelfTestKind::Conveyance => caps
            .and_then(|c| c.conveyance_self_test_supported)
            .unwrap_or(false),
        _ => caps.and_then(|c| c.self_tests_supported).unwrap_or(true),
    }
}

/// The drive's recommended polling time for a test, in minutes: ATA's
/// `polling_minutes`; SCSI's extended self-test duration for a long test; the
/// NVMe specification's two minutes for a short test on NVMe.
pub fn polling_minutes(r: &Report, kind: SelfTestKind) -> Option<u32> {
    let ata = r
        .ata_smart_data
        .as_ref()
        .and_then(|d| d.self_test.as_ref())
        .and_then(|s| s.polling_minutes.as_ref());
    let from_ata = ata.and_then(|p| match kind {
        SelfTestKind::Short => p.short,
        SelfTestKind::Conveyance => p.conveyance,
        SelfTestKind::Long => p.extended,
    });
    let nvme = r.device.as_ref().and_then(|d| d.protocol.as_deref()) == Some("NVMe");
    from_ata.or(match kind {
        SelfTestKind::Long => r
            .scsi_extended_self_test_seconds
            .map(|s| s.div_ceil(60) as u32),
        SelfTestKind::Short if nvme => Some(2),
        _ => None,
    })
}

/// A running self-test's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfTestRunning {
    /// Percent done, when the drive says (ATA in 10% steps; NVMe in 1% steps;
    /// SCSI says nothing while running).
    pub done_percent: Option<u32>,
}

/// Whether a self-test runs now and how far it is.
pub fn progress(r: &Report) -> Option<SelfTestRunning> {
    // ATA: the execution status byte's high nibble 15 means running, the low
    // nibble (smartctl: remaining_percent) the tenths left.
    if let Some(st) = r
        .ata_smart_data
        .as_ref()
        .and_then(|d| d.self_test.as_ref())
        .and_then(|s| s.status.as_ref())
    {
        let running = st.value >> 4 == 0xf || st.remaining_percent.is_some();
        return running.then(|| SelfTestRunning {
            done_percent: st.remaining_percent.map(|p| 100 - p.min(100)),
        });
    }
    if let Some(log) = &r.nvme_self_test_log {
        let op = log
            .current_self_test_operation
            .as_ref()
            .map_or(0, |o| o.value);
        return (op != 0).then(|| SelfTestRunning {
            done_percent: log.current_self_test_completion_percent.map(|p| p.min(100)),
        });
    }
    let scsi = r.scsi_self_tests();
    scsi.first()
        .filter(|t| t.self_test_in_progress == Some(true) || t.result.value == 0xf)
        .map(|_| SelfTestRunning { done_percent: None })
}

/// The time left of a running self-test, from the drive's own polling time
/// (`polling_minutes`) and its progress: the part not yet done of the polling
/// time; without a progress figure, the polling time less what has passed;
/// without a polling time, the elapsed time scaled by the part done. None when
/// neither figure is known.
pub fn eta(
    polling_minutes: Option<u32>,
    done_percent: Option<u32>,
    elapsed: std::time::Duration,
) -> Option<std::time::Duration> {
    use std::time::Duration;
    let done = done_percent.map(|d| d.min(100));
    match (polling_minutes, done) {
        (Some(p), Some(d)) => Some(Duration::from_secs(
            u64::from(p) * 60 * u64::from(100 - d) / 100,
        )),
        (Some(p), None) => Some(Duration::from_secs(u64::from(p) * 60).saturating_sub(elapsed)),
        (None, Some(d)) if d > 0 => Some(elapsed.mul_f64(f64::from(100 - d) / f64::from(d))),
        _ => None,
    }
}

/// ATA self-test status byte, high nibble (ATA/ATAPI Command Set, SMART READ
/// DATA, "Self-test execution status"): 0 passed; 1 aborted by the host, 2
/// interrupted by a reset; 3–8 failures; 15 running.
fn ata_outcome(value: u32) -> LoggedOutcome {
    match value >> 4 {
        0 => LoggedOutcome::Passed,
        1 | 2 => LoggedOutcome::Aborted,
        0xf => LoggedOutcome::Running,
        _ => LoggedOutcome::Failed,
    }
}

/// NVMe self-test result (NVMe Base Specification, Device Self-test log, result
/// nibble): 0 passed; 1–4, 8, 9 aborted; 5 fatal, 6–7 failed segments.
fn nvme_outcome(value: u32) -> LoggedOutcome {
    match value {
        0 => LoggedOutcome::Passed,
        5..=7 => LoggedOutcome::Failed,
        _ => LoggedOutcome::Aborted,
    }
}

/// SCSI self-test result (SPC, Self-Test Results log page): 0 passed; 1–2
/// aborted; 3–7 failed; 15 running.
fn scsi_outcome(value: u32) -> LoggedOutcome {
    match value {
        0 => LoggedOutcome::Passed,
        1 | 2 => LoggedOutcome::Aborted,
        0xf => LoggedOutcome::Running,
        _ => LoggedOutcome::Failed,
    }
}

/// smartctl's text for a code, or "type N" / "status N" when the report has none.
fn named(string: &str, what: &str, value: u32) -> String {
    if string.trim().is_empty() {
        format!("{what} {value}")
    } else {
        string.to_string()
    }
}

/// The most recent self-test in the drive's log (the extended ATA log when
/// present, it holds more), or None when the report has no log or it is empty.
pub fn last_result(r: &Report) -> Option<SelfTestResult> {
    log(r).into_iter().next()
}

/// The drive's self-test log, most recent first as smartctl lists it: the
/// extended ATA log when it has entries, else the standard one; the NVMe log;
/// the SCSI results. Empty when the report has none.
pub fn log(r: &Report) -> Vec<SelfTestResult> {
    if let Some(log) = &r.ata_smart_self_test_log {
        let table = log
            .extended
            .as_ref()
            .filter(|t| !t.table.is_empty())
            .or(log.standard.as_ref());
        return table
            .iter()
            .flat_map(|t| &t.table)
            .map(|e| {
                let outcome = ata_outcome(e.status.value);
                SelfTestResult {
                    test: named(&e.kind.string, "type", e.kind.value),
                    outcome,
                    status: named(&e.status.string, "status", e.status.value),
                    power_on_hours: e.lifetime_hours,
                    first_error_lba: e.lba.filter(|_| outcome == LoggedOutcome::Failed),
                }
            })
            .collect();
    }
    if let Some(log) = &r.nvme_self_test_log {
        return log
            .table
            .iter()
            .map(|e| {
                let outcome = nvme_outcome(e.self_test_result.value);
                SelfTestResult {
                    test: named(&e.self_test_code.string, "type", e.self_test_code.value),
                    outcome,
                    status: named(
                        &e.self_test_result.string,
                        "status",
                        e.self_test_result.value,
                    ),
                    power_on_hours: e.power_on_hours,
                    first_error_lba: e.lba.filter(|_| outcome == LoggedOutcome::Failed),
                }
            })
            .collect();
    }
    r.scsi_self_tests()
        .iter()
        .map(|e| {
            let outcome = if e.self_test_in_progress == Some(true) {
                LoggedOutcome::Running
            } else {
                scsi_outcome(e.result.value)
            };
            SelfTestResult {
                test: named(&e.code.string, "type", e.code.value),
                outcome,
                status: named(&e.result.string, "status", e.result.value),
                power_on_hours: e.power_on_time.as_ref().and_then(|p| p.hours),
                first_error_lba: e
                    .lba_first_failure
                    .as_ref()
                    .and_then(|l| l.value)
                    .filter(|_| outcome == LoggedOutcome::Failed),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(json: &str) -> Report {
        Report::from_json(json).unwrap()
    }

    #[test]
    fn start_and_abort_commands() {
        assert_eq!(
            start_args(SelfTestKind::Conveyance, "/dev/sdb"),
            ["--json=c", "-t", "conveyance", "/dev/sdb"]
        );
        assert_eq!(abort_args("/dev/sdb"), ["--json=c", "-X", "/dev/sdb"]);
        assert_eq!(
            poll_args("/dev/sdb"),
            ["--json=c", "-c", "-l", "selftest", "/dev/sdb"]
        );
        assert_eq!(SelfTestKind::parse("extended"), Ok(SelfTestKind::Long));
        assert!(SelfTestKind::parse("full").is_err());
    }

    #[test]
    fn ata_progress_polling_and_capabilities() {
        let r = report(
            r#"{"smartctl":{},"device":{"protocol":"ATA"},"ata_smart_data":{"self_test":{"status":{"value":249,"string":"in progress, 90% remaining","remaining_percent":90},"polling_minutes":{"short":2,"extended":357,"conveyance":5}},"capabilities":{"self_tests_supported":true,"conveyance_self_test_supported":false}}}"#,
        );
        assert_eq!(
            progress(&r),
            Some(SelfTestRunning {
                done_percent: Some(10)
            })
        );
        assert_eq!(polling_minutes(&r, SelfTestKind::Long), Some(357));
        assert_eq!(polling_minutes(&r, SelfTestKind::Conveyance), Some(5));
        assert!(supports(&r, SelfTestKind::Short));
        assert!(!supports(&r, SelfTestKind::Conveyance));
        let idle = report(
            r#"{"smartctl":{},"ata_smart_data":{"self_test":{"status":{"value":0,"string":"completed without error","passed":true}}}}"#,
        );
        assert_eq!(progress(&idle), None);
    }

    #[test]
    fn eta_from_the_drives_polling_time() {
        use std::time::Duration;
        let min = |m: u64| Duration::from_secs(m * 60);
        assert_eq!(eta(Some(360), Some(10), min(40)), Some(min(324)));
        assert_eq!(eta(Some(2), None, min(1)), Some(min(1)));
        assert_eq!(eta(Some(2), None, min(5)), Some(Duration::ZERO));
        assert_eq!(eta(None, Some(25), min(10)), Some(min(30)));
        assert_eq!(eta(None, Some(0), min(10)), None);
        assert_eq!(eta(None, None, min(10)), None);
    }

    #[test]
    fn ata_log_outcome_and_first_error_lba() {
        let r = report(
            r#"{"smartctl":{},"ata_smart_self_test_log":{"standard":{"table":[
              {"type":{"value":2,"string":"Extended offline"},"status":{"value":121,"string":"Completed: read failure","passed":false},"lifetime_hours":5012,"lba":123456789},
              {"type":{"value":1,"string":"Short offline"},"status":{"value":0,"string":"Completed without error","passed":true},"lifetime_hours":5000}]}}}"#,
        );
        let last = last_result(&r).unwrap();
        assert_eq!(last.outcome, LoggedOutcome::Failed);
        assert_eq!(last.first_error_lba, Some(123_456_789));
        assert_eq!(last.power_on_hours, Some(5012));
        assert_eq!(last.test, "Extended offline");
    }

    #[test]
    fn nvme_progress_and_log() {
        let r = report(
            r#"{"smartctl":{},"device":{"protocol":"NVMe"},"nvme_self_test_log":{"current_self_test_operation":{"value":2,"string":"Extended self-test in progress"},"current_self_test_completion_percent":42,"table":[{"self_test_code":{"value":1,"string":"Short"},"self_test_result":{"value":7,"string":"Completed: failed segments"},"power_on_hours":10,"lba":{"value":77}}]}}"#,
        );
        assert_eq!(
            progress(&r),
            Some(SelfTestRunning {
                done_percent: Some(42)
            })
        );
        assert_eq!(polling_minutes(&r, SelfTestKind::Short), Some(2));
        let last = last_result(&r).unwrap();
        assert_eq!(
            (last.outcome, last.first_error_lba),
            (LoggedOutcome::Failed, Some(77))
        );
    }

    #[test]
    fn scsi_log_and_extended_duration() {
        let r = report(
            r#"{"smartctl":{},"device":{"protocol":"SCSI"},"scsi_extended_self_test_seconds":3000,"scsi_self_test_0":{"code":{"value":2,"string":"Background long"},"result":{"value":0,"string":"Completed"},"power_on_time":{"hours":91000}}}"#,
        );
        assert_eq!(polling_minutes(&r, SelfTestKind::Long), Some(50));
        let last = last_result(&r).unwrap();
        assert_eq!(last.outcome, LoggedOutcome::Passed);
        assert_eq!(last.first_error_lba, None);
        assert_eq!(progress(&r), None);
    }

    #[test]
    fn a_self_test_without_text_is_named_by_its_codes() {
        let r = report(
            r#"{"smartctl":{},"nvme_self_test_log":{"table":[{"self_test_code":{"value":2},"self_test_result":{"value":0},"power_on_hours":10}]}}"#,
        );
        let t = last_result(&r).unwrap();
        assert_eq!((t.test.as_str(), t.status.as_str()), ("type 2", "status 0"));
    }
}
