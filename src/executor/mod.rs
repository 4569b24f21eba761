//! The one executor: walks any test's [`Plan`] against a [`Target`] with its clock.
//! It settles, announces each line to the [`Observer`] (progress), runs each step with
//! its engine (`steps.rs`: sync, queued, flushed writes, seek pairs, scan, ...),
//! records the phases, stops on Ctrl-C or a failure, and reports every completed
//! phase. It never prints and never chooses an offset.

use crate::analysis;
use crate::device::Target;
use crate::engine::sync::SyncEngine;
use crate::error::ProbeError;
use crate::results::device::DeviceInfo;
use crate::results::settings::SectorSize;
use crate::results::test_kind::TestKind;
use crate::results::{Engine, Outcome, QueuedEngine, TestResult, Warning};
use crate::test_plans::{self, Plan};
use std::io;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use steps::Walk;

/// What the executor tells as a test runs: its progress, each completed phase, and
/// a failure. An error from an observer (a closed standard output) stops the run.
pub trait Observer {
    /// Timed line `index` of `total` of `test` begins, or a long step moved on to
    /// `index` (for progress displays).
    fn line_started(&mut self, test: TestKind, index: usize, total: usize, label: &str);
    /// `test` gained a completed phase (the last one in `test.phases`).
    fn phase_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// The disk (`name`) failed: a test could not be planned or a request failed.
    fn failed(&mut self, name: &str, error: &ProbeError) -> io::Result<()>;
}

/// What the executor works with: the target, the sync engine's buffers, the stop
/// flag (Ctrl-C) and the observer.
pub struct Context<'a> {
    /// The opened device, image or simulated drive every step runs against.
    pub target: &'a mut dyn Target,
    /// The synchronous engine (its buffers are reused from test to test).
    pub engine: &'a mut SyncEngine,
    /// Raised by Ctrl-C.
    pub stop: &'a AtomicBool,
    /// Where progress, phases and failures go.
    pub sink: &'a mut dyn Observer,
    /// How long a request of a scan or a write-verify pass may go unanswered before
    /// the drive is given up (--io-timeout); None: no limit.
    pub io_timeout: Option<Duration>,
    /// Where a write-verify pass's checkpoints go (a burn-in saving to a file).
    pub checkpoint: Option<&'a mut dyn FnMut(&crate::stamps::checkpoint::Checkpoint)>,
    /// The checkpoint an interrupted write-verify pass goes on from (--resume).
    pub resume: Option<crate::stamps::checkpoint::Checkpoint>,
    /// Byte offsets of sectors that read fine earlier in the run, re-read by a scan
    /// or a write-verify pass that has seen none itself when its requests keep
    /// failing (`engine::liveness`).
    pub known_good: &'a [u64],
    /// The pass's watch, for the queued passes of a real drive whose temperature
    /// the run watches (`--max-temp` holds them); None: not watched.
    pub watch: Option<&'a dyn crate::device::PassWatch>,
}

/// What one test's plan gave: its result, and the bypassed bytes, warnings and abandoned
/// requests the run must know of.
#[derive(Debug)]
pub struct Executed {
    /// The result, with its analyses (zone curves, seek analysis) computed.
    pub result: TestResult,
    /// Bytes moved by engines that bypass [`Target::read_at`] and
    /// [`Target::write_at`] (queued reads, the scan), as they report them.
    pub bypass_bytes: u64,
    /// Warnings about the run (a queued engine's fallback, no flush support).
    pub warnings: Vec<Warning>,
    /// Requests this test's queued engines left behind in flight, unanswered (the
    /// watchdog or Ctrl-C): the process can end only when the kernel gives them back.
    pub abandoned: usize,
}

/// The engine a test is announced with before anything ran.
fn planned_engine(test: TestKind) -> Engine {
    if test.row().queued {
        Engine::Queued(QueuedEngine::Unknown)
    } else {
        Engine::Sync
    }
}

/// A test not run because an earlier one failed (`why`).
pub fn skipped(test: TestKind, settle: Duration, why: String) -> TestResult {
    TestResult {
        outcome: Outcome::Skipped(why),
        ..TestResult::new(test, settle.as_secs_f64(), Engine::None)
    }
}

/// Plan `test` for the target of `cx` with `opts` and run it; a device too small
/// for it is reported to the observer and the test skipped. An `Err` means the
/// observer failed.
pub fn run_test(
    test: TestKind,
    opts: &test_plans::Options,
    cx: &mut Context<'_>,
) -> io::Result<Executed> {
    let info = cx.target.info();
    // Where the device's sector size becomes a type: the plans and the engines
    // trust it from here on.
    let planned = SectorSize::new(info.sector_size)
        .ok_or_else(|| test_plans::TooSmall("it reports no sector size".into()))
        .and_then(|ss| test_plans::plan(test, info.media_size_bytes, ss, opts));
    match planned {
        Ok(plan) => execute(&plan, opts.settle, cx),
        Err(why) => {
            let e = ProbeError::TooSmall {
                path: info.path.clone(),
                test: test.name().to_string(),
                why: why.0,
            };
            let name = info.name.clone();
            cx.sink.failed(&name, &e)?;
            let mut result = TestResult::new(test, opts.settle.as_secs_f64(), planned_engine(test));
            result.outcome = Outcome::Skipped(e.to_string());
            Ok(Executed {
                result,
                bypass_bytes: 0,
                warnings: Vec::new(),
                abandoned: 0,
            })
        }
    }
}

/// Run `plan` on the target of `cx`. `settle` is recorded in the result (the plan's
/// steps hold the pauses themselves). An `Err` means the observer failed.
pub fn execute(plan: &Plan, settle: Duration, cx: &mut Context<'_>) -> io::Result<Executed> {
    let info = cx.target.info().clone();
    let mut run = Executed {
        result: TestResult::new(plan.test, settle.as_secs_f64(), planned_engine(plan.test)),
        bypass_bytes: 0,
        warnings: Vec::new(),
        abandoned: 0,
    };
    let mut walk = Walk {
        info: &info,
        cx,
        run: &mut run,
    };
    'lines: for (i, line) in plan.lines.iter().enumerate() {
        walk.cx
            .sink
            .line_started(plan.test, i, plan.lines.len(), &line.label);
        for step in &line.steps {
            if !walk.step(step)? {
                break 'lines;
            }
        }
    }
    analysis::complete(&mut run.result, &info);
    Ok(run)
}

mod steps;

#[cfg(test)]
mod tests;
