//! The work of each kind of [`PlanStep`]: one function per kind runs its engine and
//! records what it made in the test's result; [`Walk::end`] records how a step
//! ended, and [`Progress`] tells a long step's progress as it moves.

use super::{Context, Executed, Observer};
use crate::analysis;
use crate::engine::PassProgress;
use crate::engine::capacity::run_capacity_check;
use crate::engine::queued::{self, QueuedParams, QueuedRun};
use crate::engine::scan::run_scan;
use crate::engine::sustained::{idle, probe_reads, sustained_writes};
use crate::engine::sync::{EngineStop, pause, run_paused_pairs};
use crate::engine::sync_write::{WriteParams, run_sync_writes};
use crate::engine::verify::{Saver, VerifyParams, resumed_from, run_verify};
use crate::error::ProbeError;
use crate::results::device::DeviceInfo;
use crate::results::settings::{Passes, QueueDepth, SectorSize};
use crate::results::smr::Budget;
use crate::results::test_kind::TestKind;
use crate::results::verify::HalfKind;
use crate::results::{
    CapacityResult, Outcome, Payload, PhaseResult, QueuedEngine, SeekSamples, SeekSet, WarningCode,
};
use crate::test_plans::iops::OffsetGen;
use crate::test_plans::scan::ScanRange;
use crate::test_plans::seek_profile::{self, Pair};
use crate::test_plans::smr::SmrWrites;
use crate::test_plans::{Op, OpKind, PairsKind, Phase, PlanStep, ProbeSet, QueuedStep, Stream};
use crate::validity;
use std::io;
use std::time::Duration;

/// A plan being walked: the device's description, the executor's context, and the
/// test's run so far, which each step adds to.
pub(super) struct Walk<'w, 'a> {
    pub(super) info: &'w DeviceInfo,
    pub(super) cx: &'w mut Context<'a>,
    pub(super) run: &'w mut Executed,
}

impl Walk<'_, '_> {
    /// Run `step` with its engine; whether the test goes on.
    pub(super) fn step(&mut self, step: &PlanStep) -> io::Result<bool> {
        match step {
            PlanStep::Quiesce => {
                // A failed sync() is not a measurement error; the test runs regardless.
                let _ = self.cx.target.quiesce();
                Ok(true)
            }
            PlanStep::Pause(d) => {
                let go_on = pause(self.cx.target, *d, self.cx.stop);
                Ok(self.waited(go_on))
            }
            PlanStep::Idle(d) => {
                let go_on = idle(self.cx.target, *d, self.cx.stop);
                Ok(self.waited(go_on))
            }
            // The hidden-SMR check's first step: its result holds the check's
            // payload from here, which the analysis concludes on. Flash or data in
            // memory: the test does not apply; nothing more is done.
            PlanStep::OnlyIfRotating => {
                if !matches!(self.run.result.payload, Payload::Smr { .. }) {
                    self.run.result.payload = Payload::Smr {
                        analysis: None,
                        samples: None,
                    };
                }
                Ok(crate::smr::behaviour::applies(self.info))
            }
            PlanStep::Sync {
                phase,
                settle,
                what,
                flush_after,
            } => self.sync(phase, *settle, what, *flush_after),
            PlanStep::Queued(q) => self.queued(q),
            PlanStep::FlushedWrites {
                size,
                seed,
                sector_size,
                min_time,
                preserve,
                what,
            } => {
                let params = WriteParams {
                    min_time: *min_time,
                    preserve: *preserve,
                };
                self.flushed_writes((*size, *sector_size), *seed, &params, what)
            }
            PlanStep::Pairs { pairs, kind } => self.pairs(pairs, *kind),
            PlanStep::CapacityCheck {
                probes,
                block,
                preserve,
            } => self.capacity_check(probes, *block, *preserve),
            PlanStep::Scan {
                range,
                slow_ms,
                progress_steps,
            } => self.scan(range, *slow_ms, *progress_steps),
            PlanStep::ProbeReads { ops, spacing, set } => self.probe_reads(ops, *spacing, *set),
            PlanStep::SustainedWrites { writes, budget } => self.sustained_writes(writes, *budget),
            PlanStep::Verify {
                range,
                passes,
                nonce,
                queue_depth,
                slow_ms,
            } => self.verify(*range, *passes, *nonce, *queue_depth, *slow_ms),
        }
    }

    /// After a wait on the target's clock (`go_on`: it was not cut short by
    /// Ctrl-C): whether the test goes on; an interrupted one is marked so.
    fn waited(&mut self, go_on: bool) -> bool {
        if !go_on {
            self.run.result.outcome = Outcome::Interrupted;
        }
        go_on
    }

    /// A phase of timed positioned operations (setup, quiesce, settle, timed ops),
    /// then, for a write half (`flush_after`), an untimed flush whose failure fails
    /// the test as a failed write would.
    fn sync(
        &mut self,
        phase: &Phase,
        settle: Duration,
        what: &str,
        flush_after: bool,
    ) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let r = cx.engine.run_phase(cx.target, phase, settle, cx.stop);
        self.run.result.phases.push(r.result);
        let flushed = flush_after.then(|| self.cx.target.flush());
        if !self.end(r.stop, what, true)? {
            return Ok(false);
        }
        match flushed {
            Some(Err(error)) => {
                let stop = Some(EngineStop::Failed {
                    setup: false,
                    offset: 0,
                    error,
                });
                self.end(stop, &format!("flush after the {what}"), true)
            }
            _ => Ok(true),
        }
    }

    /// A queued step ([`Walk::queued_phase`]): its phase, reported as a line.
    fn queued(&mut self, q: &QueuedStep) -> io::Result<bool> {
        let (phase, stop) = self.queued_phase(q);
        self.run.result.phases.push(phase);
        self.end(stop, &q.what, true)
    }

    /// Run a queued step through the queued engine's entry points: the phase it
    /// made, and how it stopped (a run that could not start is reported like any
    /// failed request). The engine's note, if any, becomes a warning once.
    fn queued_phase(&mut self, q: &QueuedStep) -> (PhaseResult, Option<EngineStop>) {
        let (info, cx, run) = (self.info, &mut *self.cx, &mut *self.run);
        let (m, ss) = (info.media_size_bytes, q.sector_size);
        let mut params = QueuedParams {
            len: q.len,
            queue_depth: q.queue_depth,
            duration: q.duration,
            seed: 0,
            io_timeout: cx.io_timeout,
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
            queue_depth: Some(q.queue_depth.get()),
            seed,
            stopped_early: r.stop.is_some(),
        };
        let stop = r.stop.map(|s| match s {
            EngineStop::Failed { offset, error, .. } => EngineStop::Failed {
                setup: false,
                offset,
                error,
            },
            other => other,
        });
        (phase, stop)
    }

    /// -S: flushed writes of `size` bytes at seeded random offsets, whole batches
    /// until `params.min_time` has passed; a phase with a histogram, and a warning
    /// (once) when the device does not support flushes.
    fn flushed_writes(
        &mut self,
        (size, ss): (u32, SectorSize),
        seed: u64,
        params: &WriteParams,
        what: &str,
    ) -> io::Result<bool> {
        let (info, cx, run) = (self.info, &mut *self.cx, &mut *self.run);
        let m = info.media_size_bytes;
        let mut offsets = match OffsetGen::new(seed, m, ss, size) {
            Ok(g) => g,
            Err(e) => return self.end(bad_request(e.0), what, true),
        };
        let w = run_sync_writes(cx.target, &mut offsets, params, cx.stop);
        if !w.flush_supported
            && !run
                .warnings
                .iter()
                .any(|w| w.code == WarningCode::FlushUnsupported)
        {
            run.warnings.push(validity::flush_unsupported(info));
        }
        run.result.phases.push(PhaseResult {
            id: crate::results::test_kind::PhaseId::SyncWrite,
            ops_planned: w.writes,
            op_bytes: size,
            first_offset_bytes: offsets.offset(0),
            elapsed_ns: w.elapsed_ns,
            latencies_ns: Vec::new(),
            summary: w.latency.summary(),
            histogram: Some(w.latency),
            queue_depth: None,
            seed: Some(seed),
            stopped_early: w.stop.is_some(),
        });
        self.end(w.stop, what, true)
    }

    /// Seek pairs, only the second read of each timed: the seek profile's samples
    /// (`PairsKind::Profile`), or the rotation's, the track hops', the full
    /// stroke's added to them; the targeted pairs are planned here, from the track
    /// map the hops measured.
    fn pairs(&mut self, pairs: &[Pair], kind: PairsKind) -> io::Result<bool> {
        let (info, cx, result) = (self.info, &mut *self.cx, &mut self.run.result);
        let ss = u64::from(info.sector_size);
        let planned;
        let (pairs, third, hops) = match (kind, result.seek_samples()) {
            (PairsKind::Targeted { seed }, Some(s)) => {
                match (analysis::radial_map(s), analysis::seek_revolution(s)) {
                    (Some(map), Some(rev)) => {
                        let [third, hops, zero] =
                            seek_profile::targeted(&map, info.sector_size, seed, rev);
                        let (n, h) = (third.len(), hops.len());
                        planned = [third, hops, zero].concat();
                        (&planned[..], n, h)
                    }
                    _ => (&pairs[..0], 0, 0),
                }
            }
            _ => (pairs, 0, 0),
        };
        let ops: Vec<_> = pairs.iter().map(|p| (p.from, p.to)).collect();
        let pauses: Vec<u64> = pairs.iter().map(|p| p.pause_ns).collect();
        let (latencies, stop) = run_paused_pairs(cx.engine, cx.target, &ops, &pauses, cx.stop);
        let done = &pairs[..latencies.len()];
        let set = |done: &[Pair], lat: &[u64]| SeekSet {
            from_sectors: done.iter().map(|p| p.from.offset / ss).collect(),
            to_sectors: done.iter().map(|p| p.to.offset / ss).collect(),
            latencies_ns: lat.to_vec(),
        };
        match (kind, result.seek_samples_mut()) {
            (
                PairsKind::Profile {
                    rotation_distance_sectors,
                    seed,
                },
                _,
            ) => {
                let samples = Some(SeekSamples {
                    distances_sectors: done.iter().map(|p| p.distance_sectors).collect(),
                    positions_sectors: done.iter().map(|p| p.to.offset / ss).collect(),
                    from_sectors: done.iter().map(|p| p.from.offset / ss).collect(),
                    latencies_ns: latencies,
                    rotation_distance_sectors,
                    rotation_latencies_ns: Vec::new(),
                    sectors: info.sectors(),
                    seed: Some(seed),
                    tracks: SeekSet::default(),
                    full_stroke: SeekSet::default(),
                    third: SeekSet::default(),
                    adjacent: SeekSet::default(),
                    zero: SeekSet::default(),
                });
                result.payload = Payload::SeekProfile {
                    samples,
                    analysis: None,
                };
            }
            (_, None) => {}
            (PairsKind::Rotation, Some(s)) => s.rotation_latencies_ns = latencies,
            (PairsKind::Tracks, Some(s)) => s.tracks = set(done, &latencies),
            (PairsKind::FullStroke, Some(s)) => s.full_stroke = set(done, &latencies),
            (PairsKind::Targeted { .. }, Some(s)) => {
                let cut = third.min(done.len());
                let end = (third + hops).min(done.len());
                s.third = set(&done[..cut], &latencies[..cut]);
                s.adjacent = set(&done[cut..end], &latencies[cut..end]);
                s.zero = set(&done[end..], &latencies[end..]);
            }
        }
        self.end(stop, "seek profile", false)
    }

    /// --capacity-check: stamp and read back the probe blocks, starting with
    /// `probes`; the conclusion, when one was reached.
    fn capacity_check(&mut self, probes: &[Op], block: u64, preserve: bool) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let c = run_capacity_check(cx.target, probes, block, preserve, cx.stop);
        if let Some(conclusion) = c.capacity {
            self.run.result.payload = Payload::Capacity(CapacityResult {
                conclusion,
                rounds: c.rounds,
                failed_writes: c.failed_writes,
                probe_blocks: c.probes,
            });
        }
        self.end(c.stop, "capacity check", false)
    }

    /// --scan: read every block of `range` once, past errors, with its progress in
    /// `steps` steps; the scan result and the bytes it read.
    fn scan(&mut self, range: &ScanRange, slow_ms: f64, steps: usize) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let total = range.end - range.start;
        let mut progress = Progress::new(&mut *cx.sink, self.run.result.test, steps);
        progress.tell(0, None, |_| "reading".into());
        let mut at = 0;
        let (scan, stop, abandoned) = run_scan(
            cx.target,
            range,
            slow_ms,
            cx.stop,
            (cx.io_timeout, cx.known_good, cx.watch),
            |p| {
                if let PassProgress::Bytes(done) = p {
                    at = share(done, total, steps as u64) as usize;
                }
                let after = (!matches!(p, PassProgress::Bytes(_))).then_some(p);
                progress.tell(at, after, |a| after_pass("reading", OpKind::Read, *a));
            },
        );
        let run = &mut *self.run;
        run.bypass_bytes +=
            scan.bytes_read + scan.error_blocks * scan.block_bytes + scan.redone_bytes;
        run.abandoned += abandoned;
        run.result.payload = Payload::Scan(scan);
        // A failure names the step by its test's id, as the registry writes it.
        let what = run.result.test.id();
        self.end(stop, what, false)
    }

    /// --smr-check's read probes, `spacing` apart: the baseline, or the probes
    /// after the idle period.
    fn probe_reads(&mut self, ops: &[Op], spacing: Duration, set: ProbeSet) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let (latencies, stop) = probe_reads(cx.engine, cx.target, ops, spacing, cx.stop);
        let samples = self.run.result.smr_samples_mut();
        match set {
            ProbeSet::SmrBaseline => samples.baseline_ns = latencies,
            ProbeSet::SmrPostIdle { after_idle } => {
                samples.post_idle_ns = latencies;
                samples.idle_s = after_idle.as_secs_f64();
            }
        }
        self.end(stop, "read probes", false)
    }

    /// --smr-check's random writes until the budget runs out or the write rate
    /// collapses, with their progress (the larger share of the budget's bytes and
    /// time) in 100 steps.
    fn sustained_writes(&mut self, writes: &SmrWrites, budget: Budget) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let steps = 100u64;
        let budget_ns = (budget.seconds * 1e9) as u64;
        // The line's own announcement stands for its start.
        let mut progress = Progress::new(&mut *cx.sink, self.run.result.test, steps as usize);
        progress.told = Some((0, ()));
        let (writes, stop) = sustained_writes(
            cx.engine,
            cx.target,
            writes.clone(),
            budget,
            cx.stop,
            |bytes, ns| {
                let by_bytes = share(bytes, budget.bytes, steps);
                let by_time = share(ns, budget_ns, steps);
                let now = by_bytes.max(by_time).min(steps);
                progress.tell(now as usize, (), |_| "random writes".into());
            },
        );
        let samples = self.run.result.smr_samples_mut();
        samples.writes = writes;
        samples.budget = budget;
        self.end(stop, "random writes", false)
    }

    /// --verify: write the whole range and read it back, `passes` times, going on
    /// from the context's checkpoint and saving new ones; one progress bar over
    /// the whole run (so its ETA is the run's), 100 steps per half.
    fn verify(
        &mut self,
        range: ScanRange,
        passes: Passes,
        nonce: u64,
        queue_depth: QueueDepth,
        slow_ms: f64,
    ) -> io::Result<bool> {
        let cx = &mut *self.cx;
        let params = VerifyParams {
            range,
            passes: passes.get(),
            nonce,
            queue_depth,
            slow_ms,
            io_timeout: cx.io_timeout,
            resume: cx.resume.take(),
            known_good: cx.known_good.to_vec(),
        };
        let mut saver = cx
            .checkpoint
            .as_deref_mut()
            .map(|f| Saver::new(f as &mut dyn FnMut(&_)));
        let total = range.end - range.start;
        let steps = params.passes as usize * 200;
        let mut progress = Progress::new(&mut *cx.sink, self.run.result.test, steps);
        let (r, stop, abandoned) = run_verify(
            cx.target,
            &params,
            (cx.stop, cx.watch),
            &mut |pass, half, p| {
                let now = match p {
                    PassProgress::Bytes(done) => share(done, total, 100) as usize,
                    _ => 100,
                };
                let half_index = pass as usize * 2 + usize::from(half == HalfKind::Read);
                let after = (!matches!(p, PassProgress::Bytes(_))).then_some(p);
                progress.tell(
                    half_index * 100 + now,
                    (pass, half, after),
                    |&(pass, half, after)| {
                        let (what, kind) = match half {
                            HalfKind::Write => ("writing", OpKind::Write),
                            HalfKind::Read => ("reading and checking", OpKind::Read),
                        };
                        let what = format!("pass {} of {}: {what}", pass + 1, params.passes);
                        after_pass(&what, kind, after)
                    },
                );
            },
            saver.as_mut(),
        );
        // What this run moved: not the passes a resumed run kept from its
        // checkpoint (the kernel's own counts are compared with this run's).
        let first = resumed_from(&params).map_or(0, |c| c.pass);
        let moved: u64 = (r.passes.iter())
            .filter(|p| p.pass >= first)
            .flat_map(|p| std::iter::once(&p.write).chain(&p.read))
            .map(|h| h.bytes + h.redone_bytes)
            .sum();
        let run = &mut *self.run;
        run.bypass_bytes += moved;
        run.abandoned += abandoned;
        run.result.engine = run.result.engine.with_queued(r.engine);
        run.result.payload = Payload::Verify(r);
        self.end(stop, "write and verify", false)
    }

    /// Record how a step ended: report a completed phase (when `reports`: the step
    /// made a line of output), or mark the test interrupted or failed (`what`
    /// names the step in the error). Returns whether the test goes on.
    pub(super) fn end(
        &mut self,
        stop: Option<EngineStop>,
        what: &str,
        reports: bool,
    ) -> io::Result<bool> {
        let (info, result) = (self.info, &mut self.run.result);
        match stop {
            None => {
                if reports {
                    self.cx.sink.phase_done(info, result)?;
                }
                Ok(true)
            }
            Some(EngineStop::Interrupted) => {
                result.outcome = Outcome::Interrupted;
                Ok(false)
            }
            // A request left unanswered after Ctrl-C or SIGTERM: interrupted.
            Some(EngineStop::Failed { ref error, .. })
                if crate::device::watched::interrupted(error) =>
            {
                result.outcome = Outcome::Interrupted;
                Ok(false)
            }
            Some(EngineStop::Failed {
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
                self.cx.sink.failed(&info.name, &e)?;
                result.outcome = Outcome::Failed(e.to_string());
                Ok(false)
            }
        }
    }
}

/// A step the plan should have refused (offsets that do not fit): a failure before
/// its first operation, never a panic.
fn bad_request(why: String) -> Option<EngineStop> {
    Some(EngineStop::Failed {
        setup: true,
        offset: 0,
        error: io::Error::new(io::ErrorKind::InvalidInput, why),
    })
}

/// `done` of `total` in whole `steps` (rounded down; an empty total counts as one).
fn share(done: u64, total: u64, steps: u64) -> u64 {
    (u128::from(done) * u128::from(steps) / u128::from(total.max(1))) as u64
}

/// A long step's progress, told to the observer only when it moves: the engines
/// report after every request, a display needs one call per step of its bar.
/// A pass's label `what` ("reading", "pass 1 of 1: writing"), with what follows
/// the pass when it runs (`after`): the slow blocks done again alone (`kind`:
/// read or written), the failed areas located, each with how far it got.
fn after_pass(what: &str, kind: OpKind, after: Option<PassProgress>) -> String {
    let again = match kind {
        OpKind::Write => "written",
        _ => "read",
    };
    match after {
        None | Some(PassProgress::Bytes(_)) => what.to_string(),
        Some(PassProgress::Again { done, of }) => {
            format!("{what}; slow blocks {again} again alone: {done} of {of}")
        }
        Some(PassProgress::Locating { done, of }) => {
            format!(
                "{what}; locating the failed sectors: area {} of {of}",
                done + 1
            )
        }
    }
}

struct Progress<'o, K> {
    observer: &'o mut dyn Observer,
    test: TestKind,
    /// The bar's steps.
    total: usize,
    /// What was told last: the step, and what it was a step of (a pass and half
    /// of --verify; `()` for a step with one label).
    told: Option<(usize, K)>,
}

impl<'o, K: PartialEq> Progress<'o, K> {
    /// Nothing told yet.
    fn new(observer: &'o mut dyn Observer, test: TestKind, total: usize) -> Self {
        Progress {
            observer,
            test,
            total,
            told: None,
        }
    }

    /// Tell step `at` of `of`, labelled `label(&of)`, unless it is what was told
    /// last.
    fn tell(&mut self, at: usize, of: K, label: impl FnOnce(&K) -> String) {
        if self
            .told
            .as_ref()
            .is_some_and(|(a, k)| *a == at && *k == of)
        {
            return;
        }
        let label = label(&of);
        self.observer
            .line_started(self.test, at, self.total, &label);
        self.told = Some((at, of));
    }
}
