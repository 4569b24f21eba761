//! Probing one disk: open it, check that writing is safe when a write test is asked
//! for, then run each test through the executor ([`crate::exec`]), which reports to
//! a [`Sink`]; here the warnings about each test and what follows a failure. Nothing
//! here prints.

use crate::config::{Config, Mode};
use crate::device::{self, AlignedBuf, OpenOptions, Target, TargetKind};
use crate::engine::sync::SyncEngine;
use crate::error::ProbeError;
use crate::exec::{self, Context};
use crate::probe::{self, MIB, TestKind};
use crate::results::{DiskFailure, DiskResult, Outcome, Warning, WarningCode};
use crate::safety;
use crate::smart::session;
use crate::smart::{SmartResult, SmartSettings};
use crate::validity;
use std::io;
use std::path::Path;
use std::sync::atomic::AtomicBool;

pub use crate::exec::Sink;

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
    let fail = |mut disk: DiskResult, sink: &mut dyn Sink, e: ProbeError, refused: bool| {
        sink.failed(name, &e)?;
        disk.error = Some(if refused {
            DiskFailure::Refused(e.to_string())
        } else {
            DiskFailure::Open(e.to_string())
        });
        Ok::<_, io::Error>((disk, Flow::Continue))
    };
    let mut target = match device::open(name, &opts) {
        Ok(t) => t,
        Err(e) => return fail(disk, sink, e, false),
    };
    let mut prober_warning = None;
    if writes {
        // Before anything is printed for this disk: a refused disk shows no figures.
        match check_writable(target.as_mut(), cfg, sink) {
            Ok(w) => prober_warning = w,
            Err(CheckError::Output(e)) => return Err(e),
            // Ctrl-C at the confirmation prompt: nothing was written; stop the run.
            Err(CheckError::Refused(_)) if stop.load(std::sync::atomic::Ordering::Relaxed) => {
                return Ok((disk, Flow::Interrupted));
            }
            Err(CheckError::Refused(e)) => return fail(disk, sink, e, true),
        }
    }
    let info = target.info().clone();
    disk.warnings = validity::device_warnings(&info, !cfg.tests.is_empty());
    disk.info = Some(info.clone());
    disk.smr_signs = crate::smr::signs::of(&info);
    sink.opened(&info, &disk.warnings)?;
    // Printed before the confirmation already; recorded here.
    disk.warnings.extend(prober_warning);
    if !describe {
        return Ok((disk, Flow::Continue));
    }
    if cfg.smart.wanted() {
        // SMART before the tests, then the drive's self-tests (--smart-test).
        let (r, go_on) = smart_before_and_self_tests(target.as_mut(), cfg, stop, sink);
        disk.smart = Some(r);
        if !go_on {
            smart_end(target.as_mut(), &mut disk, &info, None, sink)?;
            return Ok((disk, Flow::Interrupted));
        }
    }
    let flow = run_tests(target.as_mut(), &mut disk, &info, cfg, stop, sink)?;
    let after = (flow == Flow::Continue).then_some(&cfg.smart);
    smart_end(target.as_mut(), &mut disk, &info, after, sink)?;
    Ok((disk, flow))
}

/// `--smart`: read the health before the tests; `--smart-test`: run the drive's
/// self-tests in order. False when Ctrl-C stopped a self-test (it was aborted on
/// the drive).
pub fn smart_before_and_self_tests(
    target: &mut dyn Target,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> (SmartResult, bool) {
    let mut r = session::smart_before(target);
    let go_on = session::smart_self_tests(
        target,
        &mut r,
        &cfg.smart.self_tests,
        &|| stop.load(std::sync::atomic::Ordering::Relaxed),
        &mut |p| sink.self_test_progress(p),
    );
    (r, go_on)
}

/// SMART after the tests: read the health again and judge (with `settings`;
/// None after Ctrl-C, when only what was read is kept), then hand the result to
/// the sink. Nothing when SMART was not asked for.
pub fn smart_end(
    target: &mut dyn Target,
    disk: &mut DiskResult,
    info: &device::DeviceInfo,
    settings: Option<&SmartSettings>,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let Some(r) = disk.smart.as_mut() else {
        return Ok(());
    };
    if let Some(settings) = settings {
        session::smart_after(target, r, settings);
    }
    sink.smart_done(info, r)
}

/// Run each test asked for in order (after a failure the others are skipped,
/// but a scan); Interrupted after Ctrl-C.
fn run_tests(
    target: &mut dyn Target,
    disk: &mut DiskResult,
    info: &device::DeviceInfo,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<Flow> {
    let info = info.clone();
    let mut engine = SyncEngine::new(MIB as usize);
    let opts = plan_options(cfg);
    let mut failed: Option<TestKind> = None;
    for &test in &cfg.tests {
        if let Some(f) = failed
            && test != TestKind::Scan
        {
            let why = format!("the {} test did not complete", f.name());
            disk.tests.push(exec::skipped(test, cfg.settle, why));
            continue;
        }
        let before = (target.device_io_bytes(), target.own_io_bytes());
        let mut cx = Context {
            target: &mut *target,
            engine: &mut engine,
            stop,
            sink: &mut *sink,
        };
        let run = exec::run_test(test, &opts, &mut cx)?;
        let result = run.result;
        let mut notes = run.warnings;
        notes.extend(validity::test_warnings(&info, &result));
        if let (Some((r0, w0)), Some((r1, w1))) = (before.0, target.device_io_bytes())
            && test != TestKind::SyncWrite
        {
            let own = target.own_io_bytes() - before.1 + run.bypass_bytes;
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
            Outcome::Interrupted => return Ok(Flow::Interrupted),
            // Too small for this test: the others may still fit.
            Outcome::Skipped(_) => {}
            // diskinfo would stop here; the remaining tests are skipped, not lost,
            // except a surface scan, whose job is to map what cannot be read.
            Outcome::Failed(_) => failed = failed.or(Some(test)),
        }
    }
    Ok(Flow::Continue)
}

/// The options that shape the plans, from the checked configuration.
fn plan_options(cfg: &Config) -> probe::Options {
    let b = &cfg.beyond;
    probe::Options {
        settle: cfg.settle,
        seed: cfg.seed,
        write: cfg.write,
        queue_depth: cfg.queue_depth.get(),
        duration: cfg.duration,
        write_duration: cfg.write_duration,
        preserve: cfg.preserve,
        zones: b.zones,
        zone_size: b.zone_size,
        seek_samples: b.seek_samples,
        scan_start: b.scan_start,
        scan_end: b.scan_end,
        block_size: b.block_size,
        slow_ms: b.slow_ms,
        sweep_duration: b.sweep_duration,
    }
}

enum CheckError {
    Output(io::Error),
    Refused(ProbeError),
}

/// Before the first write: signatures (refused unless --force), then confirmation.
/// Simulated drives hold no data and need neither. When libblkid could not take
/// part, the warning saying so is given to the sink at once (before any prompt)
/// and returned, for the results.
fn check_writable(
    target: &mut dyn Target,
    cfg: &Config,
    sink: &mut dyn Sink,
) -> Result<Option<Warning>, CheckError> {
    let info = target.info().clone();
    if info.kind == TargetKind::Simulated {
        return Ok(None);
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
    let warning = found.libblkid_unavailable.map(|why| Warning {
        code: WarningCode::SignaturesBuiltinOnly,
        message: format!("libblkid unavailable ({why}): only the built-in list was checked"),
        advice: "install libblkid (util-linux) so that every signature it knows is checked".into(),
    });
    if let Some(w) = &warning {
        sink.warning(w).map_err(CheckError::Output)?;
    }
    let found = found.found;
    if !found.is_empty() && !cfg.force {
        return Err(refused(
            safety::describe(&found),
            "if its data may be destroyed, wipe it (wipefs -a) or pass --force",
        ));
    }
    match sink.confirm_write(&info, &found) {
        Ok(true) => Ok(warning),
        Ok(false) => Err(refused(
            "not confirmed".into(),
            "answer yes at the prompt, or pass --yes (required without a terminal)",
        )),
        Err(e) => Err(CheckError::Output(e)),
    }
}

/// Read the start and the end of the target and look for signatures (libblkid on
/// the path where it loads, and the built-in check on what was read).
fn read_signatures(target: &mut dyn Target) -> io::Result<safety::Detection> {
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
    Ok(safety::detect(Path::new(&path), &head, &tail, whole))
}
