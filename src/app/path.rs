//! The path check as a phase of the run (`--path-check`, the registry's
//! `TestKind::PathCheck`, whose row is `together`): after every disk's own tests,
//! the check opens them all again read-only and runs them together
//! ([`crate::pathcheck`]); each disk gets its part, with the check's findings. In
//! a burn-in it is a step of each drive's (its `StepRecord`), the last one.

use crate::config::{Config, Mode};
use crate::device::Stop;
use crate::pathcheck::{self, Timing};
use crate::results::burnin::{Status, Step, StepRecord};
use crate::results::path::PathDrive;
use crate::results::test_kind::TestKind;
use crate::results::{Code, DiskResult, Run};
use std::sync::atomic::Ordering;

/// Run the path check over the run's disks when it was asked for (or under
/// `--burn-in --parallel` of two drives or more, where it is the burn-in's last
/// step over all its drives), putting each disk's part in it, and in a burn-in
/// the step's record in each drive's list. How it ended: a drive's read failed or
/// went unanswered, or Ctrl-C stopped it.
pub(super) fn path_phase(cfg: &Config, run: &mut Run, stop: &Stop) -> PathEnd {
    let asked = cfg.tests.contains(&TestKind::PathCheck);
    let burn_in_step = cfg.burn_in.is_some() && cfg.parallel && run.disks.len() > 1;
    if !(asked || burn_in_step) || cfg.mode != Mode::Describe {
        return PathEnd::default();
    }
    // A drive the run could not open, did not test or gave up (it stopped
    // answering) is left out.
    let usable = |d: &DiskResult| {
        d.info.is_some()
            && !crate::verdict::disk_findings(d).iter().any(|f| {
                matches!(
                    f.code,
                    Code::NotProbed | Code::NotTested | Code::StoppedAnswering
                )
            })
    };
    let checked: Vec<usize> = (0..run.disks.len())
        .filter(|&i| usable(&run.disks[i]))
        .collect();
    let names: Vec<String> = checked.iter().map(|&i| run.disks[i].name.clone()).collect();
    let timing = Timing {
        io_timeout: Some(cfg.beyond.io_timeout),
        ..Timing::default()
    };
    // Logged as every other step: off a terminal, a timestamped line per drive
    // as it starts and ends.
    let what = if cfg.burn_in.is_some() {
        "burn-in"
    } else {
        "test"
    };
    let board = crate::progress::Board::new(false, true, cfg.status_interval);
    let mut logs: Vec<crate::progress::Progress> = (names.iter())
        .map(|n| crate::progress::Progress::on(&board, n))
        .collect();
    let step = Step::Test(TestKind::PathCheck).name();
    for log in &mut logs {
        log.step_started(step, what);
    }
    let began = std::time::Instant::now();
    // On a terminal, one line of its own says the phase and how far the check is
    // (it measures for a fixed time each: its time left holds).
    let bars = crate::progress::Board::new(!cfg.quiet, false, cfg.status_interval);
    let line = std::sync::Mutex::new(crate::progress::Progress::on(&bars, "all drives"));
    let told = |done: usize, of: usize, what: &str| {
        let mut l = line.lock().unwrap_or_else(|p| p.into_inner());
        l.line(step, of, done, of, what);
    };
    let parts = pathcheck::run(&names, timing, stop, &told);
    drop(line);
    for (log, p) in logs.iter_mut().zip(&parts) {
        let status = match &p.error {
            _ if p.interrupted => Status::Interrupted,
            Some(why) => Status::Failed(why.clone()),
            None => Status::Done,
        };
        let line = format!("{step}: {}", crate::report::burnin::status(&status));
        log.step_ended(what, &line, p.error.is_some());
    }
    let duration_s = Some(began.elapsed().as_secs_f64());
    let end = PathEnd {
        // As any test's I/O error: status 1, or in a judged run the verdicts' status.
        failed: !super::verdicts::judged(cfg) && parts.iter().any(|p| p.error.is_some()),
        interrupted: parts.iter().any(|p| p.interrupted),
    };
    let interrupted = end.interrupted || stop.load(Ordering::Relaxed);
    let mut parts: Vec<Option<PathDrive>> = parts.into_iter().map(Some).collect();
    for (i, disk) in run.disks.iter_mut().enumerate() {
        let part = checked
            .iter()
            .position(|&c| c == i)
            .and_then(|k| parts[k].take());
        // A burn-in's drive records the step: how its part ended, or why it was
        // left out (a drive that never started its burn-in has no steps).
        if cfg.burn_in.is_some() && !disk.burn_in.is_empty() {
            let status = match &part {
                _ if interrupted => Status::Interrupted,
                Some(p) => match &p.error {
                    Some(why) => Status::Failed(format!("path check: {why}")),
                    None => Status::Done,
                },
                None => Status::Skipped("the drive was given up before it".into()),
            };
            disk.burn_in.push(StepRecord {
                step: Step::Test(TestKind::PathCheck),
                status,
                duration_s: part.is_some().then_some(duration_s).flatten(),
                unanswered: false,
            });
        }
        if part.is_some() {
            disk.path_check = part;
        }
    }
    end
}

/// How the path check ended, for the run's exit status.
#[derive(Debug, Default)]
pub(super) struct PathEnd {
    /// A drive's read failed or went unanswered (the drive's fault, as in any
    /// test), in a run that is not judged.
    pub(super) failed: bool,
    /// Ctrl-C stopped it.
    pub(super) interrupted: bool,
}
