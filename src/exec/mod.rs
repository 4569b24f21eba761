//! The one executor: walks any test's [`Plan`] against a [`Target`] with its clock.
//! It settles, announces each line to the [`Observer`] (progress), runs each step with
//! the right engine (sync, queued, flushed writes, seek pairs, scan), records the
//! phases, stops on Ctrl-C or a failure, and reports every completed phase. It
//! never prints and never chooses an offset.

use crate::analysis;
use crate::device::{DeviceInfo, Target};
use crate::engine::capacity::run_capacity_check;
use crate::engine::queued::{self, QueuedParams, QueuedRun};
use crate::engine::scan::run_scan;
use crate::engine::sustained::{idle, probe_reads, sustained_writes};
use crate::engine::sync::{Stop, SyncEngine, pause, run_pairs};
use crate::engine::sync_write::{WriteParams, run_sync_writes};
use crate::engine::verify::{Saver, VerifyParams, run_verify};
use crate::error::ProbeError;
use crate::probe::iops::OffsetGen;
use crate::probe::{self, PairsKind, Plan, ProbeSet, QueuedStep, Step, Stream, TestKind};
use crate::results::verify::HalfKind;
use crate::results::{
    CapacityResult, Engine, Outcome, PhaseResult, QueuedEngine, SeekSamples, TestResult, Warning,
    WarningCode,
};
use crate::validity;
use std::io;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

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
    /// The disk.
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
    pub checkpoint: Option<&'a mut dyn FnMut(&crate::verify::checkpoint::Checkpoint)>,
    /// The checkpoint an interrupted write-verify pass goes on from (--resume).
    pub resume: Option<crate::verify::checkpoint::Checkpoint>,
    /// Byte offsets of sectors that read fine earlier in the run, re-read by a scan
    /// or a write-verify pass that has seen none itself when its requests keep
    /// failing (`engine::liveness`).
    pub known_good: &'a [u64],
}

/// A test run by the executor.
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
    match test {
        TestKind::RandomReads => Engine::Queued(QueuedEngine::Unknown),
        _ => Engine::Sync,
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
    opts: &probe::Options,
    cx: &mut Context<'_>,
) -> io::Result<Executed> {
    let info = cx.target.info();
    match probe::plan(test, info.media_size_bytes, info.sector_size, opts) {
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
    'lines: for (i, line) in plan.lines.iter().enumerate() {
        cx.sink
            .line_started(plan.test, i, plan.lines.len(), &line.label);
        for step in &line.steps {
            if !step_once(step, &info, cx, &mut run)? {
                break 'lines;
            }
        }
    }
    analysis::complete(&mut run.result, &info);
    Ok(run)
}

/// Run one step; whether the test goes on.
fn step_once(
    step: &Step,
    info: &DeviceInfo,
    cx: &mut Context<'_>,
    run: &mut Executed,
) -> io::Result<bool> {
    let result = &mut run.result;
    match step {
        Step::Quiesce => {
            // A failed sync() is not a measurement error; the test runs regardless.
            let _ = cx.target.quiesce();
            Ok(true)
        }
        Step::Pause(d) => {
            let go_on = pause(cx.target, *d, cx.stop);
            if !go_on {
                result.outcome = Outcome::Interrupted;
            }
            Ok(go_on)
        }
        Step::Sync {
            phase,
            settle,
            what,
            flush_after,
        } => {
            let r = cx.engine.run_phase(cx.target, phase, *settle, cx.stop);
            result.phases.push(r.result);
            let flushed = flush_after.then(|| cx.target.flush());
            if !phase_end(result, r.stop, info, what, cx.sink, true)? {
                return Ok(false);
            }
            match flushed {
                Some(Err(error)) => {
                    let stop = Some(Stop::Failed {
                        setup: false,
                        offset: 0,
                        error,
                    });
                    let what = format!("flush after the {what}");
                    phase_end(result, stop, info, &what, cx.sink, true)
                }
                _ => Ok(true),
            }
        }
        Step::Queued(q) => {
            let (phase, stop) = queued_step(q, info, cx, run);
            run.result.phases.push(phase);
            phase_end(&mut run.result, stop, info, &q.what, cx.sink, true)
        }
        Step::FlushedWrites {
            size,
            seed,
            min_time,
            preserve,
            what,
        } => {
            let (m, ss) = (info.media_size_bytes, info.sector_size);
            let mut offsets = match OffsetGen::new(*seed, m, ss, *size) {
                Ok(g) => g,
                Err(e) => return phase_end(result, bad_request(e.0), info, what, cx.sink, true),
            };
            let params = WriteParams {
                min_time: *min_time,
                preserve: *preserve,
            };
            let w = run_sync_writes(cx.target, &mut offsets, &params, cx.stop);
            if !w.flush_supported
                && !run
                    .warnings
                    .iter()
                    .any(|w| w.code == WarningCode::FlushUnsupported)
            {
                run.warnings.push(validity::flush_unsupported(info));
            }
            result.phases.push(PhaseResult {
                id: crate::probe::PhaseId::SyncWrite,
                ops_planned: w.writes,
                op_bytes: *size,
                first_offset_bytes: offsets.offset(0),
                elapsed_ns: w.elapsed_ns,
                latencies_ns: Vec::new(),
                summary: w.latency.summary(),
                histogram: Some(w.latency),
                queue_depth: None,
                seed: Some(*seed),
                stopped_early: w.stop.is_some(),
            });
            phase_end(result, w.stop, info, what, cx.sink, true)
        }
        Step::Pairs { pairs, kind } => {
            let ops: Vec<_> = pairs.iter().map(|p| (p.from, p.to)).collect();
            let (latencies, stop) = run_pairs(cx.engine, cx.target, &ops, cx.stop);
            match *kind {
                PairsKind::Profile {
                    rotation_distance_sectors,
                    seed,
                } => {
                    let done = &pairs[..latencies.len()];
                    let ss = u64::from(info.sector_size);
                    result.seek_samples = Some(SeekSamples {
                        distances_sectors: done.iter().map(|p| p.distance_sectors).collect(),
                        positions_sectors: done.iter().map(|p| p.to.offset / ss).collect(),
                        latencies_ns: latencies,
                        rotation_distance_sectors,
                        rotation_latencies_ns: Vec::new(),
                        sectors: info.sectors(),
                        seed: Some(seed),
                    });
                }
                PairsKind::Rotation => {
                    if let Some(s) = &mut result.seek_samples {
                        s.rotation_latencies_ns = latencies;
                    }
                }
            }
            phase_end(result, stop, info, "seek profile", cx.sink, false)
        }
        Step::CapacityCheck {
            probes,
            block,
            preserve,
        } => {
            let c = run_capacity_check(cx.target, probes, *block, *preserve, cx.stop);
            if let Some(conclusion) = c.capacity {
                run.result.capacity = Some(CapacityResult {
                    conclusion,
                    rounds: c.rounds,
                    failed_writes: c.failed_writes,
                    probe_blocks: c.probes,
                });
            }
            phase_end(
                &mut run.result,
                c.stop,
                info,
                "capacity check",
                cx.sink,
                false,
            )
        }
        Step::Scan {
            range,
            slow_ms,
            progress_steps,
        } => {
            let total = range.end - range.start;
            let steps = *progress_steps;
            let mut reported = 0usize;
            let (test, sink) = (result.test, &mut *cx.sink);
            sink.line_started(test, 0, steps, "reading");
            let (scan, stop, abandoned) = run_scan(
                cx.target,
                range,
                *slow_ms,
                cx.stop,
                (cx.io_timeout, cx.known_good),
                |done| {
                    let now = (done as u128 * steps as u128 / u128::from(total)) as usize;
                    if now != reported {
                        reported = now;
                        sink.line_started(test, now, steps, "reading");
                    }
                },
            );
            run.bypass_bytes += scan.bytes_read + scan.error_blocks * scan.block_bytes;
            run.abandoned += abandoned;
            run.result.scan = Some(scan);
            phase_end(&mut run.result, stop, info, "scan", cx.sink, false)
        }
        // Flash or data in memory: the test does not apply; nothing more is done.
        Step::OnlyIfRotating => Ok(crate::smr::analysis::applies(info)),
        Step::ProbeReads { ops, spacing, set } => {
            let (latencies, stop) = probe_reads(cx.engine, cx.target, ops, *spacing, cx.stop);
            let samples = result.smr_samples.get_or_insert_with(Default::default);
            match set {
                ProbeSet::SmrBaseline => samples.baseline_ns = latencies,
                ProbeSet::SmrPostIdle { after_idle } => {
                    samples.post_idle_ns = latencies;
                    samples.idle_s = after_idle.as_secs_f64();
                }
            }
            phase_end(result, stop, info, "read probes", cx.sink, false)
        }
        Step::SustainedWrites { writes, budget } => {
            let (test, sink) = (result.test, &mut *cx.sink);
            let steps = 100u64;
            let mut reported = 0u64;
            let budget_ns = (budget.seconds * 1e9) as u64;
            let (writes, stop) = sustained_writes(
                cx.engine,
                cx.target,
                writes.clone(),
                *budget,
                cx.stop,
                |bytes, ns| {
                    let by_bytes = u128::from(bytes) * 100 / u128::from(budget.bytes.max(1));
                    let by_time = u128::from(ns) * 100 / u128::from(budget_ns.max(1));
                    let now = (by_bytes.max(by_time) as u64).min(steps);
                    if now != reported {
                        reported = now;
                        sink.line_started(test, now as usize, steps as usize, "random writes");
                    }
                },
            );
            let samples = result.smr_samples.get_or_insert_with(Default::default);
            samples.writes = writes;
            samples.budget = *budget;
            phase_end(result, stop, info, "random writes", cx.sink, false)
        }
        Step::Idle(d) => {
            let go_on = idle(cx.target, *d, cx.stop);
            if !go_on {
                result.outcome = Outcome::Interrupted;
            }
            Ok(go_on)
        }
        Step::Verify {
            range,
            passes,
            nonce,
            queue_depth,
            slow_ms,
        } => {
            let params = VerifyParams {
                range: *range,
                passes: *passes,
                nonce: *nonce,
                queue_depth: *queue_depth as usize,
                slow_ms: *slow_ms,
                io_timeout: cx.io_timeout,
                resume: cx.resume.take(),
                known_good: cx.known_good.to_vec(),
            };
            let mut saver = cx
                .checkpoint
                .as_deref_mut()
                .map(|f| Saver::new(f as &mut dyn FnMut(&_)));
            let total = (range.end - range.start).max(1);
            let (test, sink) = (result.test, &mut *cx.sink);
            let mut reported = (u32::MAX, HalfKind::Write, usize::MAX);
            let (r, stop, abandoned) = run_verify(
                cx.target,
                &params,
                cx.stop,
                &mut |pass, half, done| {
                    let now = (u128::from(done) * 100 / u128::from(total)) as usize;
                    if (pass, half, now) != reported {
                        reported = (pass, half, now);
                        let what = match half {
                            HalfKind::Write => "writing",
                            HalfKind::Read => "reading and checking",
                        };
                        let label = format!("pass {} of {}: {what}", pass + 1, params.passes);
                        // One bar over the whole run (so its ETA is the run's):
                        // 100 steps per half.
                        let half_index = pass as usize * 2 + usize::from(half == HalfKind::Read);
                        let steps = params.passes as usize * 200;
                        sink.line_started(test, half_index * 100 + now, steps, &label);
                    }
                },
                saver.as_mut(),
            );
            let moved: u64 = r
                .passes
                .iter()
                .flat_map(|p| std::iter::once(&p.write).chain(&p.read))
                .map(|h| h.bytes)
                .sum();
            run.bypass_bytes += moved;
            run.abandoned += abandoned;
            run.result.engine = run.result.engine.with_queued(r.engine);
            run.result.verify = Some(r);
            phase_end(
                &mut run.result,
                stop,
                info,
                "write and verify",
                cx.sink,
                false,
            )
        }
    }
}

/// Run a queued step through the queued engine's entry points: the phase it made,
/// and how it stopped (a run that could not start is reported like any failed
/// request). The engine's note, if any, becomes a warning once.
fn queued_step(
    q: &QueuedStep,
    info: &DeviceInfo,
    cx: &mut Context<'_>,
    run: &mut Executed,
) -> (PhaseResult, Option<Stop>) {
    let (m, ss) = (info.media_size_bytes, info.sector_size);
    let mut params = QueuedParams {
        len: q.len,
        queue_depth: q.queue_depth as usize,
        duration: q.duration,
        seed: 0,
    };
    let (r, first, seed): (QueuedRun, u64, Option<u64>) = match q.stream {
        Stream::Random { seed } => {
            params.seed = seed;
            let r = queued::run_random_reads(cx.target, m, ss, &params, cx.stop);
            let first = OffsetGen::new(seed, m, ss, q.len).map_or(0, |g| g.offset(0));
            (r, first, Some(seed))
        }
        Stream::Sequential { from } => {
            let r = match OffsetGen::sequential(m, ss, q.len, from) {
                Ok(stream) => queued::run_stream(cx.target, stream, &params, cx.stop),
                Err(e) => {
                    let mut r = QueuedRun::new(QueuedEngine::Unknown);
                    r.stop = bad_request(e.0);
                    r
                }
            };
            (r, from, None)
        }
    };
    run.result.engine = run.result.engine.with_queued(r.engine);
    run.abandoned += r.abandoned;
    if let Some(note) = &r.note
        && !run
            .warnings
            .iter()
            .any(|w| w.code == WarningCode::QueuedEngine)
    {
        run.warnings.push(validity::engine_note(info, note));
    }
    let bytes = r.completed * u64::from(q.len);
    run.bypass_bytes += bytes;
    let phase = PhaseResult {
        id: q.id,
        ops_planned: r.completed,
        op_bytes: q.len,
        first_offset_bytes: first,
        elapsed_ns: r.elapsed_ns,
        latencies_ns: Vec::new(),
        summary: r.latency.summary(),
        histogram: Some(r.latency),
        queue_depth: Some(q.queue_depth),
        seed,
        stopped_early: r.stop.is_some(),
    };
    let stop = r.stop.map(|s| match s {
        Stop::Failed { offset, error, .. } => Stop::Failed {
            setup: false,
            offset,
            error,
        },
        other => other,
    });
    (phase, stop)
}

/// Record how a step ended: report a completed phase (when `reports`: the step
/// made a line of output), or mark the test interrupted or failed. Returns whether
/// the test goes on.
fn phase_end(
    result: &mut TestResult,
    stop: Option<Stop>,
    info: &DeviceInfo,
    what: &str,
    sink: &mut dyn Observer,
    reports: bool,
) -> io::Result<bool> {
    match stop {
        None => {
            if reports {
                sink.phase_done(info, result)?;
            }
            Ok(true)
        }
        Some(Stop::Interrupted) => {
            result.outcome = Outcome::Interrupted;
            Ok(false)
        }
        Some(Stop::Failed {
            setup,
            offset,
            error,
        }) => {
            let before = if setup {
                "positioning read before "
            } else {
                ""
            };
            let e = ProbeError::Io {
                path: info.path.clone(),
                test: format!("{before}{what}"),
                offset,
                source: error,
            };
            sink.failed(&info.name, &e)?;
            result.outcome = Outcome::Failed(e.to_string());
            Ok(false)
        }
    }
}

/// A step the plan should have refused (offsets that do not fit): a failure before
/// its first operation, never a panic.
fn bad_request(why: String) -> Option<Stop> {
    Some(Stop::Failed {
        setup: true,
        offset: 0,
        error: io::Error::new(io::ErrorKind::InvalidInput, why),
    })
}

#[cfg(test)]
mod tests;
