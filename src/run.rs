//! Probing one disk: open it, check that writing is safe when a write test is asked
//! for, then run each test through the executor ([`crate::exec`]), which reports to
//! a [`Sink`]; here the warnings about each test and what follows a failure. Nothing
//! here prints.

mod checkpoint;
mod sink;
pub mod smart_session;
pub mod smart_watch;
mod writable;

use writable::{CheckError, check_writable};

use crate::burnin;
use crate::config::{Config, Mode};
use crate::device::{self, OpenOptions, Target};
use crate::engine::sync::SyncEngine;
use crate::error::ProbeError;
use crate::exec::{self, Context};
use crate::probe::{self, MIB, TestKind};
use crate::results::{DiskFailure, DiskResult, Outcome, Warning, WarningCode};
use crate::smart::{SmartResult, SmartSettings};
use crate::validity;
use smart_session as session;
use std::io;
use std::sync::atomic::AtomicBool;

pub use sink::Sink;

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
    probe_disk_resuming(name, cfg, stop, sink, &[])
}

/// [`probe_disk`], continuing a saved burn-in (`--resume`): `saved` holds the
/// saved run's disks; this drive's (matched by serial number, else by name) keeps
/// the steps it completed, and only the others run.
pub fn probe_disk_resuming(
    name: &str,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
    saved: &[DiskResult],
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
    let mut known_good = Vec::new();
    // --smr-check writes nothing on flash (decided here, before any write): a disk
    // no test will write to needs neither the signature check nor a confirmation.
    let will_write = cfg.tests.iter().any(|t| {
        t.may_write() && (*t != TestKind::SmrCheck || crate::smr::analysis::applies(target.info()))
    });
    if writes && will_write {
        // Before anything is printed for this disk: a refused disk shows no figures.
        match check_writable(target.as_mut(), cfg, sink) {
            Ok((w, good)) => {
                prober_warning = w;
                known_good = good;
            }
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
    // Temperatures during long work (docs/smart.md, "Temperatures during long work").
    let long = cfg.burn_in.is_some()
        || (cfg.tests.iter()).any(|k| matches!(k, TestKind::Verify | TestKind::SmrCheck));
    let (target, temps) = smart_watch::for_run(target, long, &cfg.smart);
    let mut t = Tests {
        target,
        temps,
        info,
        engine: SyncEngine::new(MIB as usize),
        opts: plan_options(cfg),
        failed: None,
        stop,
        checkpoint: None,
        resume: None,
        known_good,
    };
    if let Some(settings) = cfg.burn_in {
        return burn_in(name, settings, cfg, &mut t, sink, disk, saved);
    }
    if cfg.smart.wanted() {
        // SMART before the tests, then the drive's self-tests (--smart-test).
        let (r, go_on) = smart_before_and_self_tests(t.target.as_mut(), cfg, stop, sink);
        disk.smart = Some(r);
        if !go_on {
            smart_end(t.target.as_mut(), &mut disk, &t.info, None, sink)?;
            return Ok((disk, Flow::Interrupted));
        }
    }
    let mut flow = Flow::Continue;
    for &test in &cfg.tests {
        if t.run(test, cfg, &mut disk, sink)? == Outcome::Interrupted {
            flow = Flow::Interrupted;
            break;
        }
    }
    let after = (flow == Flow::Continue).then_some(&cfg.smart);
    smart_watch::keep(t.temps.as_ref(), disk.smart.as_mut());
    smart_end(t.target.as_mut(), &mut disk, &t.info, after, sink)?;
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

/// What running a disk's tests one after the other needs.
struct Tests<'a> {
    target: Box<dyn Target>,
    /// The temperature samples of long work, when watched.
    temps: Option<smart_watch::Handle>,
    info: crate::device::DeviceInfo,
    engine: SyncEngine,
    opts: probe::Options,
    /// The first test that failed: the ones after it are skipped.
    failed: Option<TestKind>,
    stop: &'a AtomicBool,
    /// Saves the write-verify pass's checkpoints (a burn-in with --json-file).
    checkpoint: Option<checkpoint::SaveFn>,
    /// The checkpoint the next write-verify pass goes on from (--resume).
    resume: Option<crate::verify::checkpoint::Checkpoint>,
    /// Byte offsets of sectors that read fine before the tests (the signature check).
    known_good: Vec<u64>,
}

impl Tests<'_> {
    /// Run `test` (or skip it after a failure), add its result and warnings to
    /// `disk`, save it (`Sink::checkpoint`); its outcome.
    fn run(
        &mut self,
        test: TestKind,
        cfg: &Config,
        disk: &mut DiskResult,
        sink: &mut dyn Sink,
    ) -> io::Result<Outcome> {
        if let Some(f) = self.failed
            && test != TestKind::Scan
        {
            let why = format!("the {} test did not complete", f.name());
            let r = exec::skipped(test, cfg.settle, why);
            let outcome = r.outcome.clone();
            disk.tests.push(r);
            sink.checkpoint(disk)?;
            return Ok(outcome);
        }
        let info = &self.info;
        let target = &mut self.target;
        let before = (target.device_io_bytes(), target.own_io_bytes());
        let mut cx = Context {
            target: target.as_mut(),
            engine: &mut self.engine,
            stop: self.stop,
            sink: &mut *sink,
            io_timeout: Some(cfg.beyond.io_timeout),
            checkpoint: self
                .checkpoint
                .as_deref_mut()
                .map(|f| f as &mut dyn FnMut(&_)),
            resume: self.resume.take(),
            known_good: &self.known_good,
        };
        let run = exec::run_test(test, &self.opts, &mut cx)?;
        let result = run.result;
        let mut notes = run.warnings;
        notes.extend(validity::test_warnings(info, &result));
        // This drive's own requests: under --parallel another drive's watchdog
        // may fire meanwhile.
        let left = run.abandoned;
        if left > 0 {
            notes.push(Warning {
                code: WarningCode::RequestAbandoned,
                message: format!(
                    "{} request{} to the drive were given up unanswered: seekprobe can end \
                     only when the kernel gives them back",
                    left,
                    if left == 1 { "" } else { "s" }
                ),
                advice: "if it does not end, the device or its path is stuck: reset or \
                         unplug it (the results are already saved)"
                    .into(),
            });
        }
        // A drive that stopped answering: the kernel's counts include what its
        // failed requests and the checks moved; no other program is to blame.
        let gone = stopped_answering(&result).is_some();
        if let (Some((r0, w0)), Some((r1, w1))) = (before.0, target.device_io_bytes())
            && test != TestKind::SyncWrite
            && !gone
        {
            let own = target.own_io_bytes() - before.1 + run.bypass_bytes;
            let device = (r1 - r0) + (w1 - w0);
            notes.extend(validity::other_io(info, test, device, own));
        }
        for w in notes.drain(..) {
            sink.warning(&w)?;
            disk.warnings.push(w);
        }
        let outcome = result.outcome.clone();
        sink.test_done(info, &result)?;
        disk.tests.push(result);
        // diskinfo would stop at a failure; the remaining tests are skipped, not
        // lost, except a surface scan, whose job is to map what cannot be read. A
        // device too small for a test (skipped) may still fit the others.
        if matches!(outcome, Outcome::Failed(_)) {
            self.failed = self.failed.or(Some(test));
        }
        sink.checkpoint(disk)?;
        Ok(outcome)
    }
}

/// `--burn-in`: walk the drive's steps ([`burnin::steps`]) in order, each through
/// what runs it ([`burnin::action`]); a step this drive completed in the saved run
/// (`--resume`) is kept, not run again. The run is saved after each step.
fn burn_in(
    name: &str,
    settings: burnin::Settings,
    cfg: &Config,
    t: &mut Tests<'_>,
    sink: &mut dyn Sink,
    mut disk: DiskResult,
    saved: &[DiskResult],
) -> io::Result<(DiskResult, Flow)> {
    let prev = if cfg.resume.is_some() {
        match saved_disk(name, &t.info, saved) {
            Ok(d) => d,
            Err(why) => {
                let e = ProbeError::Refused {
                    path: t.info.path.clone(),
                    why,
                    hint: "resume the burn-in on the drives it ran on, or start a new one without --resume".into(),
                };
                sink.failed(name, &e)?;
                disk.error = Some(DiskFailure::Refused(e.to_string()));
                return Ok((disk, Flow::Continue));
            }
        }
    } else {
        None
    };
    // SMART kept from the saved run: its health before and the self-tests done (an
    // interrupted self-test runs again).
    if let Some(p) = prev
        && p.burn_in
            .iter()
            .any(|r| r.step == burnin::Step::SmartBefore && r.status.done())
    {
        disk.smart = p.smart.clone();
        if let Some(s) = disk.smart.as_mut() {
            s.self_tests
                .retain(|t| t.outcome != crate::smart::record::SelfTestOutcome::Interrupted);
        }
    }
    // Set when a step found that the drive stopped answering: the steps after it
    // are skipped, saying why (the other drives of the run go on).
    let mut gone: Option<String> = None;
    // The write-verify pass checkpoints beside the saved run, for --resume.
    let cp_path = cfg.json_file.as_deref().map(|j| checkpoint::path(j, name));
    if let Some(p) = cp_path.clone() {
        t.checkpoint = Some(Box::new(move |cp| checkpoint::save(&p, cp)));
    }
    for step in burnin::steps(burnin::Medium::of(t.info.rotation), settings) {
        if t.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok((disk, Flow::Interrupted));
        }
        let action = burnin::action(step);
        let kept = prev.and_then(|p| p.burn_in.iter().find(|r| r.step == step && r.status.done()));
        let status = match (kept, action) {
            (None, _) if gone.is_some() => {
                burnin::Status::Skipped(format!("skipped: {}", gone.as_deref().unwrap_or_default()))
            }
            (Some(_), a) => {
                if let burnin::Action::Test(k) = a
                    && let Some(r) = prev.and_then(|p| p.tests.iter().find(|r| r.test == k))
                {
                    disk.tests.push(r.clone());
                }
                burnin::Status::Resumed
            }
            // Every step runs whatever failed before it: the verdict lists every
            // reason, and the write-verify pass maps what the others tripped on.
            (None, burnin::Action::Test(k)) => {
                t.failed = None;
                if k == TestKind::Verify && cfg.resume.is_some() {
                    t.resume = cp_path.as_deref().and_then(checkpoint::load);
                }
                let outcome = t.run(k, cfg, &mut disk, sink)?;
                t.resume = None;
                if k == TestKind::Verify
                    && outcome != Outcome::Interrupted
                    && let Some(p) = &cp_path
                {
                    checkpoint::remove(p);
                }
                gone = disk.tests.last().and_then(stopped_answering);
                test_status(outcome, disk.tests.last())
            }
            (None, burnin::Action::Missing(why)) => burnin::Status::Skipped(why.into()),
            (None, burnin::Action::SmartBefore) => {
                let r = session::smart_before(t.target.as_mut());
                let status = smart_status(&r);
                disk.smart = Some(r);
                status
            }
            (None, burnin::Action::SelfTest(kind)) => self_test_step(t, kind, &mut disk, sink),
            (None, burnin::Action::SmartAfter) => match disk.smart.as_mut() {
                Some(r) => {
                    smart_watch::keep(t.temps.as_ref(), Some(&mut *r));
                    session::smart_after(t.target.as_mut(), r, &cfg.smart);
                    let status = smart_status(r);
                    sink.smart_done(&t.info, r)?;
                    status
                }
                None => burnin::Status::Skipped("SMART was not read before".into()),
            },
        };
        let record = burnin::StepRecord { step, status };
        let interrupted = record.status == burnin::Status::Interrupted;
        disk.burn_in.push(record);
        sink.step_done(&t.info, disk.burn_in.last().expect("just pushed"))?;
        sink.checkpoint(&disk)?;
        if stop_hook() == Some(step) {
            // As Ctrl-C would, between two steps (for the tests of --resume).
            t.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        if interrupted {
            return Ok((disk, Flow::Interrupted));
        }
    }
    Ok((disk, Flow::Continue))
}

/// The line saying that the drive stopped answering during `r`, if it did (a drive
/// that turned read-only still answers).
fn stopped_answering(r: &crate::results::TestResult) -> Option<String> {
    let u = r
        .verify
        .as_ref()
        .and_then(|v| v.unanswered.as_ref())
        .or_else(|| r.scan.as_ref().and_then(|s| s.unanswered.as_ref()))?;
    (!u.read_only).then(|| u.line())
}

/// How a test step ended: its outcome, and for a complete one, the first failing
/// finding of what it found.
fn test_status(outcome: Outcome, result: Option<&crate::results::TestResult>) -> burnin::Status {
    match outcome {
        // What the test found fails the step as it fails the drive (the judge's
        // first failing finding).
        Outcome::Complete => match result.and_then(crate::verdict::test_failure) {
            Some(why) => burnin::Status::Failed(why),
            None => burnin::Status::Done,
        },
        Outcome::Interrupted => burnin::Status::Interrupted,
        Outcome::Failed(why) => burnin::Status::Failed(why),
        Outcome::Skipped(why) => burnin::Status::Skipped(why),
    }
}

/// How a SMART reading step ended: done, skipped for a device without SMART (its
/// note), failed when SMART could not be read.
fn smart_status(r: &SmartResult) -> burnin::Status {
    match (&r.error, &r.note) {
        (Some(e), _) => burnin::Status::Failed(e.clone()),
        (None, Some(note)) if !r.judged() => burnin::Status::Skipped(note.clone()),
        _ => burnin::Status::Done,
    }
}

/// One of the drive's self-tests as a burn-in step: run it to its end (Ctrl-C
/// aborts it on the drive) and record it in the disk's SMART result.
fn self_test_step(
    t: &mut Tests<'_>,
    kind: crate::smart::selftest::SelfTestKind,
    disk: &mut DiskResult,
    sink: &mut dyn Sink,
) -> burnin::Status {
    use crate::smart::record::SelfTestOutcome;
    let Some(r) = disk.smart.as_mut() else {
        return burnin::Status::Skipped("SMART was not read".into());
    };
    if !r.judged() {
        return burnin::Status::Skipped("the device has no SMART".into());
    }
    let (n, had_error) = (r.self_tests.len(), r.error.is_some());
    let stop = t.stop;
    let go_on = session::smart_self_tests(
        t.target.as_mut(),
        r,
        &[kind],
        &|| stop.load(std::sync::atomic::Ordering::Relaxed),
        &mut |p| sink.self_test_progress(p),
    );
    if !go_on {
        return burnin::Status::Interrupted;
    }
    if let (false, Some(e)) = (had_error, &r.error) {
        return burnin::Status::Failed(e.clone());
    }
    match r.self_tests.get(n) {
        Some(rec) => match rec.outcome {
            SelfTestOutcome::Passed => burnin::Status::Done,
            SelfTestOutcome::Failed => burnin::Status::Failed(format!(
                "{}{}",
                rec.status,
                rec.first_error_lba
                    .map(|l| format!(", first error at LBA {l}"))
                    .unwrap_or_default()
            )),
            SelfTestOutcome::Aborted => burnin::Status::Failed(rec.status.clone()),
            SelfTestOutcome::Interrupted => burnin::Status::Interrupted,
            SelfTestOutcome::Skipped => burnin::Status::Skipped(rec.status.clone()),
        },
        None => burnin::Status::Skipped("not run".into()),
    }
}

/// A test hook: `SEEKPROBE_BURN_IN_STOP_AFTER=STEP` (a step's JSON id) raises the
/// stop flag after that step, as Ctrl-C would, so that an interrupted burn-in and
/// its `--resume` are tested exactly.
fn stop_hook() -> Option<burnin::Step> {
    std::env::var("SEEKPROBE_BURN_IN_STOP_AFTER")
        .ok()
        .and_then(|id| burnin::Step::from_id(&id))
}

/// The saved disk that a resumed burn-in continues on this drive: the one with
/// its serial number, else the one of its name (whose serial, if any, must be
/// this drive's); None for a drive the saved run had not reached. Err when the
/// saved drive of this name is another drive.
fn saved_disk<'a>(
    name: &str,
    info: &crate::device::DeviceInfo,
    saved: &'a [DiskResult],
) -> Result<Option<&'a DiskResult>, String> {
    let ident = |d: &DiskResult| d.info.as_ref().and_then(|i| i.ident.clone());
    let found = if let Some(id) = &info.ident
        && let Some(d) = saved.iter().find(|d| ident(d).as_ref() == Some(id))
    {
        Some(d)
    } else {
        match saved.iter().find(|d| d.name == name) {
            Some(d) => match (ident(d), &info.ident) {
                (Some(was), Some(now)) if &was != now => {
                    return Err(format!(
                        "the saved burn-in of {name} ran on the drive with serial number {was}; this one is {now}"
                    ));
                }
                _ => Some(d),
            },
            // Not reached before the interruption: it starts from its first step.
            None => None,
        }
    };
    // Results measured on another size or sector size are another drive's, whatever
    // its serial number says (a serial can repeat, a simulated drive's always does).
    if let Some(d) = found
        && let Some(was) = &d.info
        && (was.media_size_bytes, was.sector_size) != (info.media_size_bytes, info.sector_size)
    {
        return Err(format!(
            "the saved burn-in of {name} ran on a drive of {} bytes in {}-byte sectors; this one has {} bytes in {}-byte sectors",
            was.media_size_bytes, was.sector_size, info.media_size_bytes, info.sector_size
        ));
    }
    Ok(found)
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
        smr_budget: b.smr_budget,
        smr_idle: b.smr_idle,
        verify_passes: b.passes,
        verify_nonce: b.verify_nonce,
    }
}
