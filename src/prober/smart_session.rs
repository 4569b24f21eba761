//! SMART in a probing run, as steps callable on their own (`--smart`,
//! `--smart-test`, and the burn-in preset): check that smartctl is there before
//! anything runs ([`preflight`]), read the health before the tests
//! ([`smart_before`]), run the drive's self-tests ([`smart_self_tests`]), read it
//! again after them and judge ([`smart_after`]). Each asks the target through
//! [`source_for`]: smartctl for a real device, the model for a simulated drive;
//! a real drive whose temperature the run watches through the [`Watch`], which
//! samples it between a self-test's polls. Nothing here prints; progress goes to
//! a callback.

use super::smart_watch::Watch;
use crate::device::Target;
use crate::results::health::LoggedOutcome;
use crate::results::smart::{SelfTestKind, SelfTestOutcome, SelfTestRecord, SmartResult};
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};
use crate::smart::health_rules::findings as health_findings;
use crate::smart::policy::SmartSettings;
use crate::smart::smartctl::{self, SmartRead, SmartctlError};
use crate::smart::source::{SelfTestEnd, SelfTestProgress, SmartSource, run_self_test, source_for};
use std::time::Duration;

/// How often a real drive's running self-test is polled (smartctl `-c -l
/// selftest`; the pause returns at once on Ctrl-C).
pub const POLL_REAL: Duration = Duration::from_secs(10);
/// How often a simulated drive's self-test is polled, on its virtual clock.
pub const POLL_SIMULATED: Duration = Duration::from_secs(60);

/// Before anything runs: SMART is asked for and a disk is not simulated, so
/// smartctl must be on the PATH. Err names the package (smartmontools).
pub fn preflight(disks: &[String], settings: &SmartSettings) -> Result<(), SmartctlError> {
    if settings.wanted() && disks.iter().any(|d| !d.starts_with("sim:")) {
        smartctl::find()?;
    }
    Ok(())
}

/// The source of a target: its own (simulated), the watch's (a watched real
/// drive), or smartctl on its path, each run of it held to `limit`.
fn source<'a>(
    target: &'a mut dyn Target,
    watch: Option<&'a Watch>,
    limit: Duration,
) -> Result<Box<dyn SmartSource + 'a>, SmartctlError> {
    if let Some(w) = watch.filter(|w| w.smart_of_real_drive()) {
        return Ok(w.smart(target.clock()).expect("a real drive's smartctl"));
    }
    let path = target.info().path.clone();
    source_for(
        target.simulated().and_then(|s| s.smart_source()),
        &path,
        limit,
    )
}

/// Read the health before the tests: a result with `before` set and its
/// findings (the rules of `settings` on it, so a run stopped before
/// [`smart_after`] keeps what it read: a failing drive stays failing), or with
/// the no-SMART note, or with the error.
pub fn smart_before(
    target: &mut dyn Target,
    watch: Option<&Watch>,
    settings: &SmartSettings,
) -> SmartResult {
    let mut r = SmartResult::default();
    match source(target, watch, settings.smartctl_limit).and_then(|mut s| s.read()) {
        Ok(SmartRead::Health { health, .. }) => r.before = Some(*health),
        Ok(SmartRead::NoSmart { note }) => r.note = Some(note),
        Err(e) => stopped(&mut r, e),
    }
    r.findings = findings(&r, settings);
    r
}

/// Record in `r` why SMART stopped: `not_read` when the host or the operator
/// kept it from being read ([`SmartctlError::not_the_drives`]), else `error`.
fn stopped(r: &mut SmartResult, e: SmartctlError) {
    match e.not_the_drives() {
        true => r.not_read = Some(e.to_string()),
        false => r.error = Some(e.to_string()),
    }
}

/// Run the self-tests `kinds` in order on a drive whose health was read
/// (`r.before`; without it they are skipped), recording each in `r`. `stop`
/// (Ctrl-C) aborts the running test on the drive; then false is returned and the
/// remaining tests are not started. `on_progress` hears of each poll. The
/// findings are judged again with the self-tests recorded (the rules of
/// `settings`), however the tests ended.
pub fn smart_self_tests(
    target: &mut dyn Target,
    watch: Option<&Watch>,
    r: &mut SmartResult,
    kinds: &[SelfTestKind],
    settings: &SmartSettings,
    stop: &dyn Fn() -> bool,
    on_progress: &mut dyn FnMut(&SelfTestProgress),
) -> bool {
    let limit = settings.smartctl_limit;
    let go_on = self_tests((target, watch), r, (kinds, limit), stop, on_progress);
    r.findings = findings(r, settings);
    go_on
}

/// [`smart_self_tests`] without the judging; smartctl held to `limit`.
fn self_tests(
    (target, watch): (&mut dyn Target, Option<&Watch>),
    r: &mut SmartResult,
    (kinds, limit): (&[SelfTestKind], Duration),
    stop: &dyn Fn() -> bool,
    on_progress: &mut dyn FnMut(&SelfTestProgress),
) -> bool {
    // A simulated drive (also through the temperature watcher; a watched real
    // drive's SMART is the watch's smartctl).
    let simulated = target.simulated().is_some();
    let poll = if simulated { POLL_SIMULATED } else { POLL_REAL };
    for &kind in kinds {
        let skipped = |status: String| SelfTestRecord {
            kind,
            outcome: SelfTestOutcome::Skipped,
            status,
            first_error_lba: None,
            elapsed_s: 0.0,
        };
        if r.stopped() {
            return true;
        }
        if !r.judged() {
            r.self_tests
                .push(skipped("skipped: the device has no SMART".into()));
            continue;
        }
        let mut src = match source(target, watch, limit) {
            Ok(s) => s,
            Err(e) => {
                stopped(r, e);
                return true;
            }
        };
        match src.supports(kind) {
            Ok(true) => {}
            Ok(false) => {
                r.self_tests
                    .push(skipped("the drive does not offer it".into()));
                continue;
            }
            Err(e) => {
                stopped(r, e);
                return true;
            }
        }
        let t0 = src.now();
        let end = run_self_test(src.as_mut(), kind, poll, stop, on_progress);
        let elapsed_s = src.now().saturating_sub(t0).as_secs_f64();
        match end {
            Ok(SelfTestEnd::Finished(l)) => r.self_tests.push(SelfTestRecord {
                kind,
                outcome: match l.outcome {
                    LoggedOutcome::Passed => SelfTestOutcome::Passed,
                    LoggedOutcome::Failed => SelfTestOutcome::Failed,
                    LoggedOutcome::Aborted | LoggedOutcome::Running => SelfTestOutcome::Aborted,
                },
                status: l.status,
                first_error_lba: l.first_error_lba,
                elapsed_s,
            }),
            Ok(SelfTestEnd::Interrupted) => {
                r.self_tests.push(SelfTestRecord {
                    kind,
                    outcome: SelfTestOutcome::Interrupted,
                    status: "aborted on the drive (interrupted)".into(),
                    first_error_lba: None,
                    elapsed_s,
                });
                return false;
            }
            Err(e) => {
                stopped(r, e);
                return true;
            }
        }
    }
    true
}

/// Read the health after the tests and judge the drive again: the rules on before and
/// after, and the self-tests that ran (each failed one a failure with its first
/// error's LBA, in place of the rule on the log's last entry).
pub fn smart_after(
    target: &mut dyn Target,
    watch: Option<&Watch>,
    r: &mut SmartResult,
    settings: &SmartSettings,
) {
    if r.stopped() || !r.judged() {
        return;
    }
    match source(target, watch, settings.smartctl_limit).and_then(|mut s| s.read()) {
        Ok(SmartRead::Health { health, .. }) => r.after = Some(*health),
        Ok(SmartRead::NoSmart { note }) => {
            r.error = Some(format!("SMART could not be read after the tests: {note}"))
        }
        Err(e) => stopped(r, e),
    }
    r.findings = findings(r, settings);
}

/// The findings of a result: [`health_findings`] on before and after, with the self-tests
/// this run asked for judged one by one.
pub fn findings(r: &SmartResult, settings: &SmartSettings) -> Vec<Finding> {
    let Some(before) = r.before.as_ref() else {
        return Vec::new();
    };
    let mut f = health_findings(before, r.after.as_ref(), &settings.rules);
    // This run's own failed self-tests are in the log read after it: they are
    // judged once, from their records below, not again from the log.
    let run_failed = r
        .self_tests
        .iter()
        .any(|t| t.outcome == SelfTestOutcome::Failed);
    let from = before.power_on_hours.unwrap_or(0);
    if run_failed {
        f.retain(|x| {
            x.rule != "self-test-log"
                || x.figure
                    .as_ref()
                    .and_then(|g| g.count)
                    .is_none_or(|hour| hour < from)
        });
    }
    for t in &r.self_tests {
        let lba = t
            .first_error_lba
            .map(|l| format!(", first error at LBA {l}"))
            .unwrap_or_default();
        let (severity, what) = match t.outcome {
            SelfTestOutcome::Failed => (Severity::Fail, "failed"),
            SelfTestOutcome::Aborted => (
                Severity::Warning,
                "was aborted by the drive or another program",
            ),
            _ => continue,
        };
        f.push(
            Finding::smart(
                severity,
                "self-test",
                format!("the {} self-test {what}: {}{lba}", t.kind.arg(), t.status),
            )
            .with(Figure::new(
                "first-error-lba",
                t.first_error_lba,
                "this run's self-test record, first error LBA",
            )),
        );
    }
    if let Some(t) = &r.temperature
        && let Some(max) = t.max_c().filter(|m| *m > t.limit_c)
    {
        let pauses = if t.pauses.is_empty() {
            String::new()
        } else {
            format!(
                "; its writes paused {} time(s), {} s in all, until 5 °C below",
                t.pauses.len(),
                t.paused_s()
            )
        };
        f.push(
            Finding::smart(
                Severity::Warning,
                "temperature",
                format!(
                    "the drive reached {max} °C during the run, above its limit of {} °C ({}){pauses}",
                    t.limit_c, t.limit_source
                ),
            )
            .with(Figure::new(
                "temperature",
                u64::try_from(max).ok(),
                "the temperature samples of the run",
            )),
        );
    }
    f.sort_by_key(|x| x.severity);
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::SimTarget;
    use std::cell::Cell;

    fn settings(kinds: &[SelfTestKind]) -> SmartSettings {
        SmartSettings {
            read: true,
            self_tests: kinds.to_vec(),
            ..SmartSettings::default()
        }
    }

    #[test]
    fn smartctl_is_needed_only_for_real_disks() {
        let s = settings(&[]);
        assert!(preflight(&["sim:hdd".into(), "sim:nvme".into()], &s).is_ok());
        assert!(preflight(&["/dev/sdz".into()], &SmartSettings::default()).is_ok());
    }

    #[test]
    fn ctrl_c_aborts_the_running_self_test_on_the_drive() {
        // The whole drive: its long test takes hours of virtual time.
        let mut t = SimTarget::open("sim:hdd").unwrap();
        let kinds = [SelfTestKind::Long, SelfTestKind::Short];
        let mut r = smart_before(&mut t, None, &settings(&kinds));
        let polls = Cell::new(0);
        let go_on = smart_self_tests(
            &mut t,
            None,
            &mut r,
            &kinds,
            &settings(&kinds),
            &|| polls.get() >= 2,
            &mut |_| polls.set(polls.get() + 1),
        );
        assert!(!go_on);
        assert_eq!(r.self_tests.len(), 1, "the short test was not started");
        assert_eq!(r.self_tests[0].outcome, SelfTestOutcome::Interrupted);
        smart_after(&mut t, None, &mut r, &settings(&kinds));
        let last = r.after.as_ref().unwrap().last_self_test.clone().unwrap();
        assert_eq!(last.outcome, LoggedOutcome::Aborted, "aborted on the drive");
        assert!(r.findings.is_empty(), "{:?}", r.findings);
    }

    #[test]
    fn an_unoffered_kind_is_skipped_and_a_clean_drive_passes() {
        let mut t = SimTarget::open("sim:ssd?size=1G").unwrap();
        let kinds = [SelfTestKind::Conveyance, SelfTestKind::Short];
        let mut r = smart_before(&mut t, None, &settings(&kinds));
        assert!(smart_self_tests(
            &mut t,
            None,
            &mut r,
            &kinds,
            &settings(&kinds),
            &|| false,
            &mut |_| {}
        ));
        assert_eq!(r.self_tests[0].outcome, SelfTestOutcome::Skipped);
        assert_eq!(r.self_tests[1].outcome, SelfTestOutcome::Passed);
        // Two minutes of the drive's virtual clock, polled every minute.
        assert_eq!(r.self_tests[1].elapsed_s, 120.0);
        smart_after(&mut t, None, &mut r, &settings(&kinds));
        assert!(r.findings.is_empty(), "{:?}", r.findings);
        assert!(r.error.is_none() && r.note.is_none());
    }

    #[test]
    fn what_was_read_is_judged_at_once_so_a_stopped_run_keeps_its_failures() {
        let mut t = SimTarget::open("sim:hdd?size=1G&smart=failing").unwrap();
        let s = settings(&[]);
        let r = smart_before(&mut t, None, &s);
        assert!(r.after.is_none());
        assert!(r.failures().next().is_some(), "{:?}", r.findings);
        assert_eq!(r.findings, findings(&r, &s));
    }
}
