//! Probing one disk: open it, check that writing is safe when a write test is asked
//! for, plan each test, run it with the right engine, and report progress to a
//! [`Sink`]. Nothing here prints.

use crate::analysis::{self, SeekSamples};
use crate::config::{Config, Mode};
use crate::device::{self, AlignedBuf, DeviceInfo, OpenOptions, Target, TargetKind};
use crate::engine::queued::{self, QueuedParams};
use crate::engine::scan::run_scan;
use crate::engine::sync::{Stop, SyncEngine};
use crate::engine::sync::{pause, run_pairs};
use crate::engine::sync_write::{WriteParams, run_sync_writes};
use crate::error::ProbeError;
use crate::probe::iops::{self, OffsetGen};
use crate::probe::{self, MIB, PhaseId, TestKind, scan, seek_profile, sweep, sync_write, zones};
use crate::results::{DiskResult, Outcome, PhaseResult, TestResult, Warning};
use crate::safety::{self, Found};
use crate::validity;
use std::io;
use std::sync::atomic::AtomicBool;

/// Receives a disk's results as they are produced, e.g. to print them live.
/// An error from a sink (a closed standard output) stops the run.
pub trait Sink {
    /// The target is open and described; `warnings` concern its validity.
    fn opened(&mut self, info: &DeviceInfo, warnings: &[Warning]) -> io::Result<()>;
    /// A validity warning found after a test.
    fn warning(&mut self, warning: &Warning) -> io::Result<()>;
    /// Ask whether `info` may be written to (`found`: signatures overridden by
    /// --force). False refuses.
    fn confirm_write(&mut self, info: &DeviceInfo, found: &[Found]) -> io::Result<bool>;
    /// Timed line `index` of `total` of `test` begins (for progress displays).
    fn line_started(&mut self, test: TestKind, index: usize, total: usize, label: &str);
    /// `test` gained a completed phase (the last one in `test.phases`).
    fn phase_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// `test` ended (see its outcome).
    fn test_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// The disk failed: it could not be opened, or a test failed.
    fn failed(&mut self, name: &str, error: &ProbeError) -> io::Result<()>;
}

/// How the run should go on after a disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next disk.
    Continue,
    /// Ctrl-C: stop.
    Interrupted,
}

/// Probe one disk as configured. Returns its results and whether to go on; an `Err`
/// means the sink failed (standard output closed).
pub fn probe_disk(
    name: &str,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<(DiskResult, Flow)> {
    let mut disk = DiskResult::new(name);
    let describe = cfg.mode == Mode::Describe;
    let writes = describe && cfg.write && cfg.tests.iter().any(|t| t.may_write());
    let opts = OpenOptions {
        io: describe && !cfg.tests.is_empty(),
        write: writes,
    };
    let fail = |mut disk: DiskResult, sink: &mut dyn Sink, e: ProbeError| {
        sink.failed(name, &e)?;
        disk.error = Some(e.to_string());
        Ok::<_, io::Error>((disk, Flow::Continue))
    };
    let mut target = match device::open(name, &opts) {
        Ok(t) => t,
        Err(e) => return fail(disk, sink, e),
    };
    if writes {
        // Before anything is printed for this disk: a refused disk shows no figures.
        match check_writable(target.as_mut(), cfg, sink) {
            Ok(()) => {}
            Err(CheckError::Output(e)) => return Err(e),
            // Ctrl-C at the confirmation prompt: nothing was written; stop the run.
            Err(CheckError::Refused(_)) if stop.load(std::sync::atomic::Ordering::Relaxed) => {
                return Ok((disk, Flow::Interrupted));
            }
            Err(CheckError::Refused(e)) => return fail(disk, sink, e),
        }
    }
    let info = target.info().clone();
    disk.warnings = validity::device_warnings(&info, !cfg.tests.is_empty());
    disk.info = Some(info.clone());
    disk.smr_signs = crate::smr::signs::of(&info);
    sink.opened(&info, &disk.warnings)?;
    if !describe {
        return Ok((disk, Flow::Continue));
    }
    let mut engine = SyncEngine::new(MIB as usize);
    let mut notes = Vec::new();
    let mut failed: Option<TestKind> = None;
    for &test in &cfg.tests {
        if let Some(f) = failed
            && test != TestKind::Scan
        {
            let why = format!("the {} test did not complete", f.name());
            disk.tests.push(skipped(test, cfg, why));
            continue;
        }
        let before = (target.device_io_bytes(), target.own_io_bytes());
        let result = match test {
            TestKind::CommandOverhead | TestKind::SeekTransfer => {
                run_plan(&mut engine, target.as_mut(), test, cfg, stop, sink)?
            }
            TestKind::RandomReads => {
                run_random_reads(target.as_mut(), cfg, stop, sink, &mut notes)?
            }
            TestKind::Zones => run_zones(&mut engine, target.as_mut(), cfg, stop, sink)?,
            TestKind::SeekProfile => {
                run_seek_profile(&mut engine, target.as_mut(), cfg, stop, sink)?
            }
            TestKind::Scan => run_scan_test(target.as_mut(), cfg, stop, sink)?,
            TestKind::BlockSweep => {
                run_block_sweep(&mut engine, target.as_mut(), cfg, stop, sink, &mut notes)?
            }
            TestKind::SyncWrite => run_sync_write(target.as_mut(), cfg, stop, sink, &mut notes)?,
        };
        notes.extend(validity::test_warnings(&info, &result));
        if let (Some((r0, w0)), Some((r1, w1))) = (before.0, target.device_io_bytes())
            && test != TestKind::SyncWrite
        {
            // Bytes of queued engines, which bypass read_at.
            let queued: u64 = result
                .phases
                .iter()
                .filter(|p| p.histogram.is_some())
                .map(PhaseResult::bytes_done)
                .sum::<u64>()
                + result
                    .scan
                    .as_ref()
                    .map_or(0, |s| s.bytes_read + s.error_blocks * s.block_bytes);
            let own = target.own_io_bytes() - before.1 + queued;
            let device = (r1 - r0) + (w1 - w0);
            notes.extend(validity::other_io(&info, test, device, own));
        }
        for w in notes.drain(..) {
            sink.warning(&w)?;
            disk.warnings.push(w);
        }
        let outcome = result.outcome.clone();
        sink.test_done(&info, &result)?;
        disk.tests.push(result);
        match outcome {
            Outcome::Complete => {}
            Outcome::Interrupted => return Ok((disk, Flow::Interrupted)),
            // Too small for this test: the others may still fit.
            Outcome::Skipped(_) => {}
            // diskinfo would stop here; the remaining tests are skipped, not lost,
            // except a surface scan, whose job is to map what cannot be read.
            Outcome::Failed(_) => failed = failed.or(Some(test)),
        }
    }
    Ok((disk, Flow::Continue))
}

fn new_test(test: TestKind, cfg: &Config, engine: &str) -> TestResult {
    TestResult::new(test, cfg.settle.as_secs_f64(), engine)
}

fn skipped(test: TestKind, cfg: &Config, why: String) -> TestResult {
    TestResult {
        outcome: Outcome::Skipped(why),
        ..new_test(test, cfg, "none")
    }
}

enum CheckError {
    Output(io::Error),
    Refused(ProbeError),
}

/// Before the first write: signatures (refused unless --force), then confirmation.
/// Simulated drives hold no data and need neither.
fn check_writable(
    target: &mut dyn Target,
    cfg: &Config,
    sink: &mut dyn Sink,
) -> Result<(), CheckError> {
    let info = target.info().clone();
    if info.kind == TargetKind::Simulated {
        return Ok(());
    }
    let refused = |why: String, hint: &str| {
        CheckError::Refused(ProbeError::Refused {
            path: info.path.clone(),
            why,
            hint: hint.to_string(),
        })
    };
    let found = read_signatures(target).map_err(|e| {
        CheckError::Refused(ProbeError::Io {
            path: info.path.clone(),
            test: "signature check".into(),
            offset: 0,
            source: e,
        })
    })?;
    if !found.is_empty() && !cfg.force {
        return Err(refused(
            safety::describe(&found),
            "if its data may be destroyed, wipe it (wipefs -a) or pass --force",
        ));
    }
    match sink.confirm_write(&info, &found) {
        Ok(true) => Ok(()),
        Ok(false) => Err(refused(
            "not confirmed".into(),
            "answer yes at the prompt, or pass --yes (required without a terminal)",
        )),
        Err(e) => Err(CheckError::Output(e)),
    }
}

/// Read the start and the end of the target and look for signatures (libblkid on
/// the path where it loads, and the built-in check on what was read).
fn read_signatures(target: &mut dyn Target) -> io::Result<Vec<Found>> {
    let info = target.info();
    let path = info.path.clone();
    let ss = u64::from(info.sector_size);
    let whole = info.sectors() * ss;
    let head_len = (safety::HEAD_BYTES as u64).min(whole) / ss * ss;
    let tail_len = (safety::TAIL_BYTES as u64).min(whole) / ss * ss;
    let mut head = AlignedBuf::new(head_len as usize);
    let mut tail = AlignedBuf::new(tail_len as usize);
    target.read_at(&mut head, 0)?;
    target.read_at(&mut tail, whole - tail_len)?;
    Ok(safety::detect(&path, &head, &tail, whole))
}

fn run_plan(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    test: TestKind,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(test, cfg, "sync");
    let plan = match probe::plan(test, info.media_size_bytes, info.sector_size) {
        Ok(p) => p,
        Err(why) => return too_small(result, &info, test, why.0, sink),
    };
    for (i, phase) in plan.phases.iter().enumerate() {
        sink.line_started(test, i, plan.phases.len(), phase.id.name());
        let run = engine.run_phase(target, phase, cfg.settle, stop);
        result.phases.push(run.result);
        if !record_phase_end(&mut result, run.stop, &info, phase.id.name(), sink)? {
            break;
        }
    }
    if test == TestKind::CommandOverhead {
        result.command_overhead = analysis::command_overhead(&result.phases, info.sector_size);
    }
    Ok(result)
}

fn too_small(
    mut result: TestResult,
    info: &DeviceInfo,
    test: TestKind,
    why: String,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let e = ProbeError::TooSmall {
        path: info.path.clone(),
        test: test.name().to_string(),
        why,
    };
    sink.failed(&info.name, &e)?;
    result.outcome = Outcome::Skipped(e.to_string());
    Ok(result)
}

/// Record how a phase ended: report a completed phase, or mark the test interrupted
/// or failed. Returns whether the test goes on.
fn record_phase_end(
    result: &mut TestResult,
    stop: Option<Stop>,
    info: &DeviceInfo,
    phase_name: &str,
    sink: &mut dyn Sink,
) -> io::Result<bool> {
    match stop {
        None => {
            sink.phase_done(info, result)?;
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
            let what = if setup {
                "positioning read before "
            } else {
                ""
            };
            let e = ProbeError::Io {
                path: info.path.clone(),
                test: format!("{what}{phase_name}"),
                offset,
                source: error,
            };
            sink.failed(&info.name, &e)?;
            result.outcome = Outcome::Failed(e.to_string());
            Ok(false)
        }
    }
}

/// -S: for each size, batches of flushed random writes for at least a second.
fn run_sync_write(
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
    notes: &mut Vec<Warning>,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::SyncWrite, cfg, "sync");
    let sizes = sync_write::sizes(info.media_size_bytes, info.sector_size);
    if sizes.is_empty() {
        return too_small(
            result,
            &info,
            TestKind::SyncWrite,
            "no whole sector".into(),
            sink,
        );
    }
    let params = WriteParams {
        min_time: cfg.write_duration,
        preserve: cfg.preserve,
    };
    let mut flush_note = false;
    for (i, &size) in sizes.iter().enumerate() {
        let seed = iops::stream_seed(cfg.seed, i);
        let mut offsets = match OffsetGen::new(seed, info.media_size_bytes, info.sector_size, size)
        {
            Ok(g) => g,
            Err(e) => return too_small(result, &info, TestKind::SyncWrite, e.0, sink),
        };
        if !pause(target, cfg.settle, stop) {
            result.outcome = Outcome::Interrupted;
            break;
        }
        sink.line_started(
            TestKind::SyncWrite,
            i,
            sizes.len(),
            &format!("{size} bytes"),
        );
        let run = run_sync_writes(target, &mut offsets, &params, stop);
        if !run.flush_supported && !flush_note {
            flush_note = true;
            notes.push(validity::flush_unsupported(&info));
        }
        result.phases.push(PhaseResult {
            id: PhaseId::SyncWrite,
            ops_planned: run.writes,
            op_bytes: size,
            first_offset_bytes: offsets.offset(0),
            elapsed_ns: run.elapsed_ns,
            latencies_ns: Vec::new(),
            summary: run.latency.summary(),
            histogram: Some(run.latency),
            queue_depth: None,
            seed: Some(seed),
            stopped_early: run.stop.is_some(),
        });
        if !record_phase_end(
            &mut result,
            run.stop,
            &info,
            &format!("{size}-byte synchronous writes"),
            sink,
        )? {
            break;
        }
    }
    Ok(result)
}

/// -i: for each request size, random reads kept `--queue-depth` deep for
/// `--duration`, by the queued engine (io_uring, threads, or the simulation's model).
fn run_random_reads(
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
    notes: &mut Vec<Warning>,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::RandomReads, cfg, "queued");
    let sizes = iops::sizes(info.media_size_bytes, info.sector_size);
    if sizes.is_empty() {
        let why = "no request size fits in it".to_string();
        return too_small(result, &info, TestKind::RandomReads, why, sink);
    }
    for (i, &size) in sizes.iter().enumerate() {
        let seed = iops::stream_seed(cfg.seed, i);
        sink.line_started(
            TestKind::RandomReads,
            i,
            sizes.len(),
            &format!("{size} bytes"),
        );
        if !pause(target, cfg.settle, stop) {
            result.outcome = Outcome::Interrupted;
            break;
        }
        let params = QueuedParams {
            len: size,
            queue_depth: cfg.queue_depth.get() as usize,
            duration: cfg.duration,
            seed,
        };
        let run = queued::run_random_reads(
            target,
            info.media_size_bytes,
            info.sector_size,
            &params,
            stop,
        );
        result.engine = run.engine.clone();
        let first = OffsetGen::new(seed, info.media_size_bytes, info.sector_size, size)
            .map_or(0, |g| g.offset(0));
        let (phase, stopped) = queued_phase(
            PhaseId::RandomRead,
            run,
            size,
            first,
            Some(seed),
            cfg,
            &info,
            notes,
        );
        result.phases.push(phase);
        if !record_phase_end(
            &mut result,
            stopped,
            &info,
            &format!("{size}-byte random reads"),
            sink,
        )? {
            break;
        }
    }
    Ok(result)
}

/// --zones: the sequential read rate at evenly spaced positions.
fn run_zones(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::Zones, cfg, "sync");
    let phases = match zones::phases(
        info.media_size_bytes,
        info.sector_size,
        cfg.beyond.zones,
        cfg.beyond.zone_size,
    ) {
        Ok(p) => p,
        Err(why) => return too_small(result, &info, TestKind::Zones, why.0, sink),
    };
    for (i, phase) in phases.iter().enumerate() {
        sink.line_started(
            TestKind::Zones,
            i,
            phases.len(),
            &format!("at byte {}", phase.ops[0].offset),
        );
        // The settle pause once, not per sample: samples follow each other.
        let settle = if i == 0 {
            cfg.settle
        } else {
            std::time::Duration::ZERO
        };
        let run = engine.run_phase(target, phase, settle, stop);
        result.phases.push(run.result);
        if !record_phase_end(&mut result, run.stop, &info, "zone sample", sink)? {
            break;
        }
        if cfg.write
            && !write_half(
                engine,
                target,
                phase,
                PhaseId::ZoneWrite,
                "zone write sample",
                &mut result,
                stop,
                sink,
            )?
        {
            break;
        }
    }
    result.zone_curve = analysis::zone_curve(&result.phases, PhaseId::Zone);
    result.write_curve = analysis::zone_curve(&result.phases, PhaseId::ZoneWrite);
    Ok(result)
}

/// --seek-profile: one-sector reads at random distances, and at one fixed distance
/// to measure the rotation.
fn run_seek_profile(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::SeekProfile, cfg, "sync");
    let Some(plan) = seek_profile::plan(
        info.media_size_bytes,
        info.sector_size,
        cfg.beyond.seek_samples,
        cfg.seed,
    ) else {
        let why = "fewer than 4 sectors".to_string();
        return too_small(result, &info, TestKind::SeekProfile, why, sink);
    };
    let pairs = |v: &[seek_profile::Pair]| v.iter().map(|p| (p.from, p.to)).collect::<Vec<_>>();
    if !pause(target, cfg.settle, stop) {
        result.outcome = Outcome::Interrupted;
        return Ok(result);
    }
    sink.line_started(TestKind::SeekProfile, 0, 2, "random distances");
    let (latencies, stopped) = run_pairs(engine, target, &pairs(&plan.profile), stop);
    let mut samples = SeekSamples {
        distances_sectors: plan
            .profile
            .iter()
            .take(latencies.len())
            .map(|p| p.distance_sectors)
            .collect(),
        positions_sectors: plan
            .profile
            .iter()
            .take(latencies.len())
            .map(|p| p.to.offset / u64::from(info.sector_size))
            .collect(),
        latencies_ns: latencies,
        rotation_distance_sectors: plan.rotation_distance_sectors,
        rotation_latencies_ns: Vec::new(),
        sectors: info.sectors(),
    };
    let mut stopped = stopped;
    if stopped.is_none() {
        sink.line_started(TestKind::SeekProfile, 1, 2, "fixed distance (rotation)");
        let (rot, s) = run_pairs(engine, target, &pairs(&plan.rotation), stop);
        samples.rotation_latencies_ns = rot;
        stopped = s;
    }
    let reported = match info.rotation {
        crate::device::Rotation::Rpm(r) => Some(r),
        _ => None,
    };
    let non_rotating = info.rotation == crate::device::Rotation::NonRotating;
    result.seek_analysis = Some(analysis::seek_analysis(&samples, reported, non_rotating));
    result.seek_samples = Some(samples);
    record_end_quiet(&mut result, stopped, &info, "seek profile", sink)?;
    Ok(result)
}

/// Like [`record_phase_end`] for tests without diskinfo lines: nothing to report
/// when the test goes on.
fn record_end_quiet(
    result: &mut TestResult,
    stop: Option<Stop>,
    info: &DeviceInfo,
    what: &str,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    if stop.is_some() {
        record_phase_end(result, stop, info, what, sink)?;
    }
    Ok(())
}

/// --scan: every block once, past errors.
fn run_scan_test(
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::Scan, cfg, "sync");
    let b = &cfg.beyond;
    let range = match scan::range(
        info.media_size_bytes,
        info.sector_size,
        b.scan_start,
        b.scan_end,
        b.block_size,
    ) {
        Ok(r) => r,
        Err(why) => return too_small(result, &info, TestKind::Scan, why.0, sink),
    };
    let _ = target.quiesce();
    let total = range.end - range.start;
    let steps = 100usize;
    let mut reported = 0usize;
    sink.line_started(TestKind::Scan, 0, steps, "reading");
    let (scan, stopped) = run_scan(target, &range, b.slow_ms, stop, |done| {
        let now = (done as u128 * steps as u128 / u128::from(total)) as usize;
        if now != reported {
            reported = now;
            sink.line_started(TestKind::Scan, now, steps, "reading");
        }
    });
    result.scan = Some(scan);
    record_end_quiet(&mut result, stopped, &info, "scan", sink)?;
    Ok(result)
}

/// --block-sweep: for each request size, sequential reads one at a time, then
/// queued `--queue-depth` deep for `--sweep-duration`.
fn run_block_sweep(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
    notes: &mut Vec<Warning>,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = new_test(TestKind::BlockSweep, cfg, "sync");
    let sizes = sweep::sizes(info.media_size_bytes, info.sector_size);
    if sizes.is_empty() {
        let why = "smaller than the smallest request (4 KiB)".to_string();
        return too_small(result, &info, TestKind::BlockSweep, why, sink);
    }
    for (i, &size) in sizes.iter().enumerate() {
        sink.line_started(
            TestKind::BlockSweep,
            i,
            sizes.len(),
            &format!("{size} bytes"),
        );
        let start = sweep::region(info.media_size_bytes, info.sector_size, i);
        let phase = sweep::sync_phase(info.media_size_bytes, info.sector_size, size, start);
        let settle = if i == 0 {
            cfg.settle
        } else {
            std::time::Duration::ZERO
        };
        let run = engine.run_phase(target, &phase, settle, stop);
        result.phases.push(run.result);
        if !record_phase_end(&mut result, run.stop, &info, "block sweep", sink)? {
            break;
        }
        if cfg.write
            && !write_half(
                engine,
                target,
                &phase,
                PhaseId::SweepWrite,
                "block sweep writes",
                &mut result,
                stop,
                sink,
            )?
        {
            break;
        }
        let queued_from = sweep::queued_start(info.media_size_bytes, info.sector_size, size, start);
        let stream =
            match OffsetGen::sequential(info.media_size_bytes, info.sector_size, size, queued_from)
            {
                Ok(s) => s,
                Err(e) => return too_small(result, &info, TestKind::BlockSweep, e.0, sink),
            };
        let params = QueuedParams {
            len: size,
            queue_depth: cfg.queue_depth.get() as usize,
            duration: cfg.beyond.sweep_duration,
            seed: 0,
        };
        let run = queued::run_stream(target, stream, &params, stop);
        result.engine = format!("sync+{}", run.engine);
        let (phase, stopped) = queued_phase(
            PhaseId::SweepQueued,
            run,
            size,
            queued_from,
            None,
            cfg,
            &info,
            notes,
        );
        result.phases.push(phase);
        if !record_phase_end(&mut result, stopped, &info, "block sweep (queued)", sink)? {
            break;
        }
    }
    Ok(result)
}

/// The write half of a --zones sample or a --block-sweep size (-w): the same range
/// written, then the drive's cache flushed outside the timing, so that the next
/// measurement does not pay for these writes. Returns whether the test goes on.
#[allow(clippy::too_many_arguments)]
fn write_half(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    read: &probe::Phase,
    id: PhaseId,
    what: &str,
    result: &mut TestResult,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<bool> {
    let info = target.info().clone();
    let run = engine.run_phase(target, &read.as_writes(id), std::time::Duration::ZERO, stop);
    result.phases.push(run.result);
    let flushed = target.flush();
    if !record_phase_end(result, run.stop, &info, what, sink)? {
        return Ok(false);
    }
    match flushed {
        Ok(_) => Ok(true),
        Err(error) => {
            let stop = Some(Stop::Failed {
                setup: false,
                offset: 0,
                error,
            });
            record_phase_end(
                result,
                stop,
                &info,
                &format!("flush after the {what}"),
                sink,
            )
        }
    }
}

/// The result of a queued run as a phase, and how it stopped (a run that could not
/// start is reported like any failed request); the engine's note, if any, becomes a
/// warning once.
#[allow(clippy::too_many_arguments)]
fn queued_phase(
    id: PhaseId,
    run: queued::QueuedRun,
    op_bytes: u32,
    first_offset_bytes: u64,
    seed: Option<u64>,
    cfg: &Config,
    info: &DeviceInfo,
    notes: &mut Vec<Warning>,
) -> (PhaseResult, Option<Stop>) {
    if let Some(note) = &run.note
        && !notes.iter().any(|w| w.code == "queued_engine")
    {
        notes.push(validity::engine_note(info, note));
    }
    let phase = PhaseResult {
        id,
        ops_planned: run.completed,
        op_bytes,
        first_offset_bytes,
        elapsed_ns: run.elapsed_ns,
        latencies_ns: Vec::new(),
        summary: run.latency.summary(),
        histogram: Some(run.latency),
        queue_depth: Some(cfg.queue_depth.get()),
        seed,
        stopped_early: run.stop.is_some(),
    };
    let stopped = run.stop.map(|s| match s {
        Stop::Failed { offset, error, .. } => Stop::Failed {
            setup: false,
            offset,
            error,
        },
        other => other,
    });
    (phase, stopped)
}
