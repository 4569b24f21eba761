//! Probing one disk: open it, check that writing is safe when a write test is asked
//! for, then run each test through the executor ([`crate::executor`]), which reports to
//! a [`Sink`]; here the warnings about each test and what follows a failure. A
//! burn-in runs here too, step by step in the order [`crate::burnin::runner`]
//! decides, which judges how each step ended from what running it gave; each
//! step's end is told to the sink once. Nothing here prints.

pub mod checkpoint_file;
pub mod pass_temps;
mod sink;
pub mod smart_session;
pub mod smart_watch;
mod writable;

pub use writable::read_signatures;
use writable::{CheckError, check_writable};

use crate::burnin;
use crate::config::{Config, Mode};
use crate::device::{self, OpenOptions, Target};
use crate::engine::sync::SyncEngine;
use crate::error::ProbeError;
use crate::executor::{self, Context};
use crate::results::smart::SmartResult;
use crate::results::test_kind::TestKind;
use crate::results::{DiskResult, Outcome, Warning, WarningCode};
use crate::smart::SmartSettings;
use crate::test_plans::{self, MIB};
use crate::validity;
use smart_session as session;
use std::io;
use std::sync::atomic::AtomicBool;

pub use sink::{Sink, TemperatureNow};

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
    stop: &device::Stop,
    sink: &mut dyn Sink,
) -> io::Result<(DiskResult, Flow)> {
    probe_disk_resuming(name, cfg, stop, sink, &[])
}

/// [`probe_disk`], continuing a saved burn-in (`--resume`): `saved` holds the
/// saved disk matched to this drive (`burnin::resume`, by identity, then name),
/// if any; it keeps the steps it completed, and only the others run. The drive
/// is opened with `stop` (Ctrl-C), which its watchdog keeps.
pub fn probe_disk_resuming(
    name: &str,
    cfg: &Config,
    stop: &device::Stop,
    sink: &mut dyn Sink,
    saved: &[DiskResult],
) -> io::Result<(DiskResult, Flow)> {
    let mut disk = DiskResult::new(name);
    let describe = cfg.mode == Mode::Describe;
    // The drive's own tests: the path check runs across the drives after them
    // (app::path), not here.
    let own: Vec<TestKind> = (cfg.tests.iter().copied())
        .filter(|t| !t.row().together)
        .collect();
    // Every request is held to --io-timeout, the open's first read included.
    let opts = OpenOptions {
        io: describe && !own.is_empty(),
        write: cfg.writes(None),
        limit: cfg.beyond.io_timeout,
        stop: stop.clone(),
    };
    let fail = |mut disk: DiskResult, sink: &mut dyn Sink, e: ProbeError| {
        sink.failed(name, &e)?;
        disk.error = Some(e.disk_failure());
        Ok::<_, io::Error>((disk, Flow::Continue))
    };
    let mut target = match device::open(name, &opts) {
        Ok(t) => t,
        Err(e) => return fail(disk, sink, e),
    };
    let mut prober_warning = None;
    let mut known_good = Vec::new();
    // --smr-check writes nothing on flash (decided here, before any write): a disk
    // no test will write to needs neither the signature check nor a confirmation;
    // nor does a resumed drive whose writing steps are all done.
    let medium = burnin::Medium::of(target.info().rotation);
    let done = burnin::done_steps(saved.first());
    let left = cfg
        .burn_in
        .is_none_or(|b| burnin::writes_left(medium, b, &done));
    if cfg.writes(Some(target.info())) && left {
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
            Err(CheckError::Refused(e)) => return fail(disk, sink, e),
        }
    }
    let info = target.info().clone();
    disk.warnings = validity::device_warnings(&info, !own.is_empty());
    disk.info = Some(info.clone());
    disk.smr_signs = crate::smr::signs::of(&info);
    sink.opened(&info, &disk.warnings)?;
    sink.drive_clock(target.clock().shared());
    // Printed before the confirmation already; recorded here.
    disk.warnings.extend(prober_warning);
    if !describe {
        return Ok((disk, Flow::Continue));
    }
    // Temperatures during long work (docs/smart.md, "Temperatures during long work").
    let long = cfg.burn_in.is_some() || (cfg.tests.iter()).any(|k| k.row().long);
    let (target, temps) = smart_watch::for_run(target, long, &cfg.smart);
    if let Some(h) = &temps {
        sink.temperature_watched(smart_watch::now(h));
    }
    let mut t = Tests {
        target,
        temps,
        info,
        engine: SyncEngine::new(MIB as usize),
        opts: &cfg.options,
        failed: None,
        stop,
        checkpoint: None,
        resume: None,
        known_good,
    };
    if let Some(settings) = cfg.burn_in {
        let mut drive = BurnIn::new(name, cfg, &mut t, sink, saved);
        let resuming = cfg.resume.is_some().then_some(saved);
        let (disk, stopped) = drive.run(name, settings, resuming, disk)?;
        let flow = if stopped {
            Flow::Interrupted
        } else {
            Flow::Continue
        };
        return Ok((disk, flow));
    }
    if cfg.smart.wanted() {
        // SMART before the tests, then the drive's self-tests (--smart-test).
        let watch = t.temps.as_ref();
        let (r, go_on) = smart_before_and_self_tests((t.target.as_mut(), watch), cfg, stop, sink);
        disk.smart = Some(r);
        if !go_on {
            smart_end((t.target.as_mut(), watch), &mut disk, &t.info, None, sink)?;
            return Ok((disk, Flow::Interrupted));
        }
    }
    let mut flow = Flow::Continue;
    for &test in &own {
        if t.run(test, cfg, &mut disk, sink)? == Outcome::Interrupted {
            flow = Flow::Interrupted;
            break;
        }
    }
    let after = (flow == Flow::Continue).then_some(&cfg.smart);
    let (target, watch) = (t.target.as_mut(), t.temps.as_ref());
    smart_watch::keep(watch, disk.smart.as_mut());
    smart_end((target, watch), &mut disk, &t.info, after, sink)?;
    Ok((disk, flow))
}

/// `--smart`: read the health before the tests; `--smart-test`: run the drive's
/// self-tests in order. False when Ctrl-C stopped a self-test (it was aborted on
/// the drive).
pub fn smart_before_and_self_tests(
    (target, watch): (&mut dyn Target, Option<&smart_watch::Watch>),
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> (SmartResult, bool) {
    let mut r = session::smart_before(target, watch, &cfg.smart);
    let go_on = session::smart_self_tests(
        target,
        watch,
        &mut r,
        &cfg.smart.self_tests,
        &cfg.smart,
        &|| stop.load(std::sync::atomic::Ordering::Relaxed),
        &mut |p| sink.self_test_progress(p),
    );
    (r, go_on)
}

/// SMART after the tests: read the health again and judge (with `settings`;
/// None after Ctrl-C, when only what was read is kept), then hand the result to
/// the sink. Nothing when SMART was not asked for.
pub fn smart_end(
    (target, watch): (&mut dyn Target, Option<&smart_watch::Watch>),
    disk: &mut DiskResult,
    info: &crate::results::device::DeviceInfo,
    settings: Option<&SmartSettings>,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let Some(r) = disk.smart.as_mut() else {
        return Ok(());
    };
    if let Some(settings) = settings {
        session::smart_after(target, watch, r, settings);
    }
    sink.smart_done(info, r)
}

/// What running a disk's tests one after the other needs.
struct Tests<'a> {
    target: Box<dyn Target>,
    /// The temperature samples of long work, when watched.
    temps: Option<smart_watch::Watch>,
    info: crate::results::device::DeviceInfo,
    engine: SyncEngine,
    /// The plans' options, as config made them.
    opts: &'a test_plans::Options,
    /// The first test that failed: the ones after it are skipped.
    failed: Option<TestKind>,
    stop: &'a AtomicBool,
    /// Saves the write-verify pass's checkpoints (a burn-in with --json-file).
    checkpoint: Option<checkpoint_file::SaveFn>,
    /// The checkpoint the next write-verify pass goes on from (--resume).
    resume: Option<crate::stamps::checkpoint::Checkpoint>,
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
            && !test.row().after_failure
        {
            let why = format!("the {} test did not complete", f.name());
            let r = executor::skipped(test, cfg.options.settle, why);
            let outcome = r.outcome.clone();
            disk.tests.push(r);
            sink.checkpoint(disk)?;
            return Ok(outcome);
        }
        let info = &self.info;
        let target = &mut self.target;
        // A real drive's queued passes: its temperature sampled from a side
        // thread, and held by --max-temp, while the pass runs (prober/pass_temps.rs).
        let watch = (test.row().pass)
            .then(|| self.temps.as_ref()?.pass(target.as_ref()))
            .flatten();
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
            watch: watch.as_ref().map(|w| w as &dyn device::PassWatch),
        };
        let run = executor::run_test(test, self.opts, &mut cx)?;
        let result = run.result;
        let mut notes = run.warnings;
        let more = validity::test_warnings(info, &result, &notes);
        notes.extend(more);
        // Judged (--qualify, --burn-in): a lying flush is the judge's finding.
        if cfg.qualify.is_some() || cfg.burn_in.is_some() {
            notes.retain(|w| w.code != WarningCode::FlushNotHonoured);
        }
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
            && test.row().other_io_checked
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

/// The line saying that the drive stopped answering during `r`, if it did (a drive
/// that turned read-only still answers).
fn stopped_answering(r: &crate::results::TestResult) -> Option<String> {
    let u = r
        .verify()
        .as_ref()
        .and_then(|v| v.unanswered.as_ref())
        .or_else(|| r.scan().and_then(|s| s.unanswered.as_ref()))?;
    (!u.read_only).then(|| u.line())
}

/// A drive's burn-in as the prober runs its steps: the disk's tests, the
/// configuration, where the write-verify pass checkpoints (beside the saved run,
/// for `--resume`), and the run's sink.
struct BurnIn<'t, 'a> {
    t: &'t mut Tests<'a>,
    cfg: &'t Config,
    checkpoint: Option<std::path::PathBuf>,
    /// The last checkpoint the pass saved (or went on from), for the line said
    /// when Ctrl-C stops it.
    last_saved: std::sync::Arc<std::sync::Mutex<Option<crate::stamps::checkpoint::Checkpoint>>>,
    /// The checkpoint file its pass goes on from (`--resume`): the matched saved
    /// disk's, by its saved name.
    resume_from: Option<std::path::PathBuf>,
    /// The steps the saved run was interrupted in (`--resume`).
    interrupted: Vec<crate::results::burnin::Step>,
    sink: &'t mut dyn Sink,
}

impl<'t, 'a> BurnIn<'t, 'a> {
    /// The burn-in of disk `name`, its write-verify pass saving its checkpoints
    /// beside the saved run (--json-file), going on from the checkpoint of the saved
    /// disk matched to it (`saved`, --resume), if any.
    fn new(
        name: &str,
        cfg: &'t Config,
        t: &'t mut Tests<'a>,
        sink: &'t mut dyn Sink,
        saved: &[DiskResult],
    ) -> Self {
        let checkpoint = cfg
            .json_file
            .as_deref()
            .map(|j| checkpoint_file::path(j, name));
        let last_saved: std::sync::Arc<
            std::sync::Mutex<Option<crate::stamps::checkpoint::Checkpoint>>,
        > = std::sync::Arc::default();
        if let Some(p) = checkpoint.clone() {
            let identity = t.info.identity();
            let last = std::sync::Arc::clone(&last_saved);
            t.checkpoint = Some(Box::new(move |cp| {
                checkpoint_file::save(&p, &identity, cp);
                *last.lock().unwrap_or_else(|e| e.into_inner()) = Some(cp.clone());
            }));
        }
        BurnIn {
            t,
            cfg,
            checkpoint,
            last_saved,
            resume_from: checkpoint_file::resume_path(cfg.resume.as_deref(), saved),
            interrupted: saved.first().map_or_else(Vec::new, |d| {
                (d.burn_in.iter())
                    .filter(|r| r.status == crate::results::burnin::Status::Interrupted)
                    .map(|r| r.step)
                    .collect()
            }),
            sink,
        }
    }

    /// Whether the saved run was interrupted in `test`'s step.
    fn interrupted_in(&self, test: TestKind) -> bool {
        self.interrupted
            .contains(&crate::results::burnin::Step::Test(test))
    }

    /// Run the drive's burn-in into `disk` in the order and with the judgement of
    /// [`burnin::runner::Course`], continuing the saved disks `resuming` holds
    /// (`--resume`): each step's I/O here, its end told to the sink once (it saves
    /// and draws). The disk's results, and whether Ctrl-C stopped the burn-in.
    fn run(
        &mut self,
        name: &str,
        settings: burnin::Settings,
        resuming: Option<&[DiskResult]>,
        mut disk: DiskResult,
    ) -> io::Result<(DiskResult, bool)> {
        use burnin::runner::{Course, Go, Ran};
        let refused = || self.resume_refused();
        let started = Course::start(name, settings, &self.t.info, resuming, refused, &mut disk);
        let mut course = match started {
            Ok(c) => c,
            Err(e) => {
                self.sink.failed(name, &e)?;
                disk.error = Some(e.disk_failure());
                return Ok((disk, false));
            }
        };
        let stop = self.t.stop;
        for step in course.steps() {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Ok((disk, true));
            }
            let go = course.begin(step, &mut disk);
            let record = if let Go::Kept(record) = go {
                record
            } else {
                self.sink.step_started(&self.t.info, step);
                // Timed around the step's whole action (a test, a self-test, a
                // SMART read).
                let began = std::time::Instant::now();
                let ran = match go {
                    Go::Skip(status) => Ran::Not(status),
                    _ => self.step(step, &mut disk)?,
                };
                course.ended(step, ran, &mut disk, began.elapsed().as_secs_f64())
            };
            let interrupted = record.status == crate::results::burnin::Status::Interrupted;
            disk.burn_in.push(record);
            let record = disk.burn_in.last().expect("just pushed");
            self.sink.step_done(&self.t.info, record, &disk)?;
            if burnin::runner::stop_hook() == Some(step) {
                // As Ctrl-C would, between two steps (for the tests of --resume).
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            if interrupted {
                return Ok((disk, true));
            }
        }
        Ok((disk, false))
    }

    /// Run `step` on the drive (its I/O), and what it gave.
    fn step(
        &mut self,
        step: crate::results::burnin::Step,
        disk: &mut DiskResult,
    ) -> io::Result<burnin::runner::Ran> {
        use crate::results::burnin::Step;
        use burnin::runner::Ran;
        Ok(match step {
            Step::Test(k) => {
                let (outcome, stopped) = self.test(k, disk)?;
                Ran::Test(outcome, stopped)
            }
            Step::SmartBefore => Ran::SmartBefore(Box::new(self.smart_before())),
            Step::SelfTest(kind) => match disk.smart.as_mut() {
                Some(r) => Ran::SelfTest(self.self_test(kind, r)),
                None => Ran::Not(burnin::runner::not_read()),
            },
            Step::Discard => Ran::Discard(self.discard()),
            Step::SmartAfter => {
                if let Some(r) = disk.smart.as_mut() {
                    self.smart_after(r);
                    self.sink.smart_done(&self.t.info, r)?;
                }
                Ran::SmartAfter
            }
        })
    }

    /// Run one of the ordinary tests whatever failed before it (the verdict lists
    /// every reason, and the write-verify pass maps what the others tripped on),
    /// going on from the saved checkpoint of a resumed pass, adding its result to
    /// `disk`; its outcome, and the line saying that the drive stopped answering
    /// during it, if it did.
    fn test(
        &mut self,
        test: TestKind,
        disk: &mut DiskResult,
    ) -> io::Result<(Outcome, Option<String>)> {
        let interrupted = self.interrupted_in(test);
        let (t, sink) = (&mut *self.t, &mut *self.sink);
        t.failed = None;
        if test.row().resumable {
            let identity = t.info.identity();
            t.resume =
                (self.resume_from.as_deref()).and_then(|p| checkpoint_file::load(p, &identity));
            // Where the pass goes on from, said before it writes further.
            let fits = (t.resume.as_ref())
                .is_some_and(|cp| checkpoint_file::fits_plan(cp, test, &t.info, t.opts));
            let line = match &t.resume {
                Some(cp) if fits => Some(checkpoint_file::resumed_line(cp)),
                Some(_) => Some(checkpoint_file::fresh_line(
                    "its checkpoint is of another range, block size or pass count",
                )),
                None if interrupted => Some(checkpoint_file::fresh_line(
                    "no checkpoint was saved before the interruption",
                )),
                None => None,
            };
            if let Some(line) = line {
                sink.note(&t.info, &line);
            }
            if let Some(cp) = &t.resume {
                checkpoint_file::replay_on_simulated(t.target.as_mut(), cp);
            }
            *self.last_saved.lock().unwrap_or_else(|e| e.into_inner()) =
                t.resume.clone().filter(|_| fits);
        }
        let outcome = t.run(test, self.cfg, disk, sink)?;
        t.resume = None;
        if test.row().resumable && outcome == Outcome::Interrupted && self.checkpoint.is_some() {
            let last = self.last_saved.lock().unwrap_or_else(|e| e.into_inner());
            sink.note(&t.info, &checkpoint_file::stopped_line(last.as_ref()));
        }
        if test.row().resumable
            && outcome != Outcome::Interrupted
            && let Some(p) = &self.checkpoint
        {
            checkpoint_file::remove(p);
        }
        Ok((outcome, disk.tests.last().and_then(stopped_answering)))
    }

    /// Why the saved progress of the drive (its write-verify checkpoint) cannot be
    /// resumed by this seekprobe, if it cannot (a checkpoint of older stamps).
    fn resume_refused(&self) -> Option<String> {
        let p = self.resume_from.as_deref()?;
        checkpoint_file::refusal(p, &self.t.info.identity())
    }

    /// Read the drive's SMART health before the other steps.
    fn smart_before(&mut self) -> SmartResult {
        let watch = self.t.temps.as_ref();
        session::smart_before(self.t.target.as_mut(), watch, &self.cfg.smart)
    }

    /// Run one of the drive's self-tests to its end and record it in `smart`; false
    /// when Ctrl-C stopped it (it was aborted on the drive).
    fn self_test(
        &mut self,
        kind: crate::results::smart::SelfTestKind,
        smart: &mut SmartResult,
    ) -> bool {
        let (stop, sink) = (self.t.stop, &mut *self.sink);
        session::smart_self_tests(
            self.t.target.as_mut(),
            self.t.temps.as_ref(),
            smart,
            &[kind],
            &self.cfg.smart,
            &|| stop.load(std::sync::atomic::Ordering::Relaxed),
            &mut |p| sink.self_test_progress(p),
        )
    }

    /// Read SMART again, keep the temperatures of long work, and judge the
    /// drive's health over the run.
    fn smart_after(&mut self, smart: &mut SmartResult) {
        smart_watch::keep(self.t.temps.as_ref(), Some(&mut *smart));
        let watch = self.t.temps.as_ref();
        session::smart_after(self.t.target.as_mut(), watch, smart, &self.cfg.smart);
    }

    /// Discard the whole drive (TRIM/UNMAP), and how it went.
    fn discard(&mut self) -> burnin::runner::Discarded {
        use burnin::runner::Discarded;
        match self.t.target.discard() {
            Ok(true) => Discarded::Done,
            Ok(false) => Discarded::NotOffered,
            Err(e) if device::watched::interrupted(&e) => Discarded::Interrupted,
            Err(e) if device::watched::NoAnswer::of(&e).is_some() => {
                Discarded::Unanswered(e.to_string())
            }
            Err(e) => Discarded::Refused(e.to_string()),
        }
    }
}
