//! The self-test log as a storage engineer reads it: a failed self-test stands
//! until a later extended (long) test passes, as smartctl's exit status bit 7
//! counts it (smartctl(8): "failed self-tests outdated by a newer successful
//! extended self-test are ignored"). ATA and SCSI log entries stamp the power-on
//! hours in 16 bits, so they wrap at 65,536: each stamp is taken as the latest
//! hour at or before the drive's power-on hours that it can stand for.

use crate::results::health::{ExitStatus, Health, LoggedOutcome, SelfTestResult};
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// Where the log's 16-bit hour stamps wrap.
pub const HOUR_WRAP: u64 = 1 << 16;

/// The hour a 16-bit stamp stands for, given the drive's power-on hours now: the
/// latest hour at or before `now` with those low 16 bits (the stamp itself when
/// it is above 16 bits, or when `now` is unknown or below it).
pub fn unwrap_hours(stamp: u64, now: Option<u64>) -> u64 {
    match now {
        Some(now) if stamp < HOUR_WRAP && now >= stamp => now - (now - stamp) % HOUR_WRAP,
        _ => stamp,
    }
}

/// Whether a log entry is an extended (long) test.
pub fn is_extended(t: &SelfTestResult) -> bool {
    let s = t.test.to_ascii_lowercase();
    s.contains("extended") || s.contains("long")
}

/// A log entry with its hour unwrapped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry<'a> {
    /// The log entry as decoded, its hour still as the drive gave it.
    pub test: &'a SelfTestResult,
    /// Its power-on hour, unwrapped.
    pub hour: Option<u64>,
    /// A later extended test passed, at this hour (None: the failure stands).
    pub superseded_at: Option<Option<u64>>,
}

/// The failed entries of the log, most recent first, each with its hour
/// unwrapped and whether a later passing extended test supersedes it. The log
/// is ordered by unwrapped hour (newest first; smartctl's order breaks ties).
pub fn failures(h: &Health) -> Vec<Entry<'_>> {
    let mut log: Vec<(usize, &SelfTestResult, Option<u64>)> = h
        .self_test_log
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                i,
                t,
                t.power_on_hours.map(|p| unwrap_hours(p, h.power_on_hours)),
            )
        })
        .collect();
    if h.power_on_hours.is_some() {
        log.sort_by_key(|(i, _, hour)| (std::cmp::Reverse(*hour), *i));
    }
    let mut passed_long: Option<Option<u64>> = None;
    let mut out = Vec::new();
    for (_, t, hour) in log {
        match t.outcome {
            LoggedOutcome::Passed if is_extended(t) && passed_long.is_none() => {
                passed_long = Some(hour)
            }
            LoggedOutcome::Failed => out.push(Entry {
                test: t,
                hour,
                superseded_at: passed_long,
            }),
            _ => {}
        }
    }
    out
}

/// The self-test log's findings: each failure a later passing extended test did
/// not supersede FAILs (its type, power-on hour and LBA named); a superseded one
/// is a note, or a FAIL on a new drive (`new_drive`: any past failure). smartctl's
/// bit 7 without a log in the report FAILs on its own.
pub fn findings(now: &Health, new_drive: bool, out: &mut Vec<Finding>) {
    let fails = failures(now);
    for e in &fails {
        let at = e
            .hour
            .map(|h| format!(" at power-on hour {h}"))
            .unwrap_or_default();
        let ago = match (e.hour, now.power_on_hours) {
            (Some(h), Some(p)) if p >= h => format!(" ({} h ago)", p - h),
            _ => String::new(),
        };
        let lba = e
            .test
            .first_error_lba
            .map(|l| format!(", first error at LBA {l}"))
            .unwrap_or_default();
        let what = format!("{} self-test{at}{ago}: {}{lba}", e.test.test, e.test.status);
        let (sev, reason) = match e.superseded_at {
            None => (
                Severity::Fail,
                format!(
                    "the self-test log holds a failure no passing extended test followed: {what}"
                ),
            ),
            Some(later) => {
                let when = later.map(|h| format!(" at hour {h}")).unwrap_or_default();
                let sev = if new_drive {
                    Severity::Fail
                } else {
                    Severity::Note
                };
                let tail = if new_drive {
                    "; a new drive has no past failures"
                } else {
                    ""
                };
                (
                    sev,
                    format!(
                        "a past self-test failure, superseded by a passing extended test{when}: {what}{tail}"
                    ),
                )
            }
        };
        out.push(
            Finding::smart(sev, "self-test-log", reason).with(Figure::new(
                "self-test",
                e.hour,
                "self-test log, power-on hour of the failed test",
            )),
        );
    }
    let exit = now.exit_status.unwrap_or(ExitStatus(0));
    if exit.has(ExitStatus::SELF_TEST_LOG) && !fails.iter().any(|e| e.superseded_at.is_none()) {
        out.push(
            Finding::smart(
                Severity::Fail,
                "self-test-log",
                "smartctl says the self-test log holds failed self-tests no passing extended test superseded (exit status bit 7)".into(),
            )
            .with(Figure::new("exit-status", Some(u64::from(exit.0)), "smartctl.exit_status bit 7")),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(test: &str, outcome: LoggedOutcome, hours: u64, lba: Option<u64>) -> SelfTestResult {
        SelfTestResult {
            test: test.into(),
            outcome,
            status: match outcome {
                LoggedOutcome::Failed => "Completed: read failure".into(),
                _ => "Completed without error".into(),
            },
            power_on_hours: Some(hours),
            first_error_lba: lba,
        }
    }

    fn health(poh: u64, log: Vec<SelfTestResult>) -> Health {
        Health {
            power_on_hours: Some(poh),
            self_test_log: log,
            ..Default::default()
        }
    }

    #[test]
    fn hours_unwrap_against_the_drives_power_on_hours() {
        assert_eq!(unwrap_hours(100, Some(200)), 100);
        // 70,000 hours: a stamp of 4,000 is hour 69,536; 60,000 is before the wrap.
        assert_eq!(unwrap_hours(70_000 - 65_536 - 464, Some(70_000)), 69_536);
        assert_eq!(unwrap_hours(60_000, Some(70_000)), 60_000);
        assert_eq!(unwrap_hours(500, None), 500);
    }

    #[test]
    fn a_failure_followed_by_short_passes_stands() {
        let h = health(
            5_100,
            vec![
                entry("Short offline", LoggedOutcome::Passed, 5_090, None),
                entry("Short offline", LoggedOutcome::Passed, 5_080, None),
                entry(
                    "Extended offline",
                    LoggedOutcome::Failed,
                    5_012,
                    Some(104_870_168),
                ),
            ],
        );
        let mut f = Vec::new();
        findings(&h, false, &mut f);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::Fail);
        assert_eq!(
            f[0].reason,
            "the self-test log holds a failure no passing extended test followed: Extended offline self-test at power-on hour 5012 (88 h ago): Completed: read failure, first error at LBA 104870168"
        );
        assert_eq!(f[0].figure.as_ref().unwrap().count, Some(5012));
    }

    #[test]
    fn a_later_passing_extended_test_supersedes_it() {
        let h = health(
            5_100,
            vec![
                entry("Extended offline", LoggedOutcome::Passed, 5_050, None),
                entry("Extended offline", LoggedOutcome::Failed, 5_012, Some(7)),
            ],
        );
        let mut f = Vec::new();
        findings(&h, false, &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Note);
        let mut f = Vec::new();
        findings(&h, true, &mut f);
        assert_eq!(
            f[0].severity,
            Severity::Fail,
            "a new drive has no past failures"
        );
    }

    #[test]
    fn order_follows_the_unwrapped_hours() {
        // At 70,000 hours the passing long test stamped 4,400 (hour 69,936) is
        // after the failure stamped 65,000, though its stamp is smaller.
        let h = health(
            70_000,
            vec![
                entry("Extended offline", LoggedOutcome::Failed, 65_000, Some(1)),
                entry("Extended offline", LoggedOutcome::Passed, 4_400, None),
            ],
        );
        let f = failures(&h);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].superseded_at, Some(Some(69_936)));
    }

    #[test]
    fn exit_bit_7_fails_without_a_log() {
        let h = Health {
            exit_status: Some(ExitStatus(128)),
            ..Default::default()
        };
        let mut f = Vec::new();
        findings(&h, false, &mut f);
        assert_eq!(f.len(), 1);
        assert!(f[0].reason.contains("bit 7"), "{}", f[0].reason);
    }
}
