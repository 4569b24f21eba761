//! The live output of a probing run: the Sink that prints diskinfo's text as soon as
//! its data exists, saves the results after each test, and lets a drive be written
//! when it was confirmed before the run (app::prompt).

use super::output::save_json;
use crate::error::ProbeError;
use crate::executor::Observer;
use crate::prober::Sink;
use crate::progress::estimate::RateCurve;
use crate::progress::{Cost, Progress};
use crate::report::{self, diskinfo};
use crate::results::device::DeviceInfo;
use crate::results::test_kind::{LiveProgress, TestKind};
use crate::results::{DiskResult, Run, TestResult, Warning};
use crate::safety::Found;
use std::io::{self, Write};
use std::path::Path;

/// Prints diskinfo's text to `out` as results arrive (when that is the format),
/// errors and warnings to `err`, and progress on the terminal.
pub(super) struct LiveText<'a> {
    pub(super) out: &'a mut dyn Write,
    pub(super) err: &'a mut dyn Write,
    pub(super) verbose: bool,
    /// Whether diskinfo's text goes to `out` live.
    pub(super) text: bool,
    /// A burn-in: an interrupted pass is resumed with --resume.
    pub(super) burn_in: bool,
    /// The drives are judged at the end (--qualify, --burn-in).
    pub(super) judged: bool,
    /// A burn-in's settings: the live line's time left of the whole burn-in.
    pub(super) burn_in_plan: Option<crate::burnin::Settings>,
    /// The live view writes the step lines itself (off a terminal).
    pub(super) logs: bool,
    /// The test in progress outside a burn-in (for its step lines).
    pub(super) testing: Option<TestKind>,
    /// --yes: writing needs no confirmation.
    pub(super) yes: bool,
    /// The drives confirmed at the question before the run (the path opened
    /// and the identity): only they are written without --yes.
    pub(super) confirmed: &'a [(String, crate::results::device::Identity)],
    /// The progress bar on standard error; off unless asked for and a terminal.
    pub(super) progress: Progress,
    /// Where this disk's results are saved after each test or step (--json-file),
    /// and its place in the run.
    pub(super) saver: Option<(&'a Saver, usize)>,
}

impl LiveText<'_> {
    /// The drive ended (`interrupted`: Ctrl-C stopped it): its live line keeps
    /// its state and first reason to the end of the run: FAIL only for what the
    /// drive did, NOT TESTED or INCOMPLETE for what was not tested or finished.
    pub(super) fn finished(&mut self, disk: &DiskResult, interrupted: bool) {
        use crate::results::{State, verdict::Severity};
        let v = crate::verdict::of(disk);
        let first = v.findings.iter().find(|f| f.severity == Severity::Fail);
        let reason = first.map_or("", |f| f.reason.as_str());
        let line = match (v.state, self.judged) {
            (State::Fail, true) => format!("FAIL: {reason}"),
            (State::Fail, false) => format!("failed: {reason}"),
            (State::NotTested, _) => {
                let why = reason.strip_prefix("not tested: ").unwrap_or(reason);
                format!("NOT TESTED: {why}")
            }
            (State::Incomplete, _) => format!("INCOMPLETE: {reason}"),
            (_, true) => "done: no failing finding (judged with the others at the end)".into(),
            (_, false) => "done: no failing finding".into(),
        };
        // Stopped before its end, a drive that would pass is not judged whole.
        let (line, state) = match (interrupted, first) {
            (true, Some(_)) => (format!("interrupted; {line}"), v.state),
            (true, None) => (
                "interrupted; INCOMPLETE: no failing finding so far".into(),
                State::Incomplete,
            ),
            (false, _) => (line, v.state),
        };
        self.progress.finished(&line, state);
    }

    /// Write `text` to standard output, out of the progress bar's way.
    fn print(&mut self, text: &str) -> io::Result<()> {
        let out = &mut *self.out;
        self.progress.suspend(|| {
            out.write_all(text.as_bytes())?;
            out.flush()
        })
    }

    /// Write a line to standard error, out of the progress bar's way.
    fn say(&mut self, line: &str) {
        let err = &mut *self.err;
        self.progress.suspend(|| {
            let _ = writeln!(err, "{line}");
        });
    }
}

/// The burn-in's steps for `info` and what each costs: the SMART reads are
/// brief; the other steps' times are not known before they run (a self-test's
/// is the drive's, a pass's the drive's rate over it).
fn burn_in_costs(info: &DeviceInfo, settings: crate::burnin::Settings) -> Vec<(String, Cost)> {
    use crate::burnin::Medium;
    use crate::results::burnin::Step;
    crate::burnin::steps(Medium::of(info.rotation), settings)
        .into_iter()
        .map(|step| {
            let cost = match step {
                Step::SmartBefore | Step::SmartAfter => Cost::Brief,
                _ => Cost::Unknown,
            };
            (step.name().to_string(), cost)
        })
        .collect()
}

/// How fast the drive moves its bytes where they lie, from a test's results, for
/// the time left of a pass over it: --zones' curve, or -t's outside, middle and
/// inside transfers; None from another test.
fn measured_rates(info: &DeviceInfo, test: &TestResult) -> Option<RateCurve> {
    let size = info.media_size_bytes.max(1) as f64;
    if let Some(z) = test.zone_curve() {
        let points = z
            .points
            .iter()
            .map(|p| (p.offset_bytes as f64 / size, p.rate_bytes_per_s));
        return RateCurve::measured(points);
    }
    use crate::results::test_kind::PhaseId;
    let transfers = (test.phases.iter())
        .filter(|p| matches!(p.id, PhaseId::Outside | PhaseId::Middle | PhaseId::Inside))
        .filter(|p| p.complete() && p.elapsed_s() > 0.0)
        .map(|p| {
            let at = (p.first_offset_bytes + p.bytes_done() / 2) as f64 / size;
            (at, p.bytes_done() as f64 / p.elapsed_s())
        });
    RateCurve::measured(transfers)
}

impl Observer for LiveText<'_> {
    fn line_started(&mut self, test: TestKind, index: usize, total: usize, label: &str) {
        // Outside a burn-in, each test is a step of the live view.
        if !self.burn_in && self.testing != Some(test) {
            self.testing = Some(test);
            self.progress.step_started(test.name(), "test");
        }
        // A write-verify half moves the drive in 100 steps, a scan in all of its.
        let per_pass = match test.row().progress {
            LiveProgress::Percent => 100,
            LiveProgress::Lines => total,
            LiveProgress::None => 0,
        };
        self.progress
            .line(test.name(), per_pass, index, total, label);
    }

    fn phase_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()> {
        if !self.text {
            return Ok(());
        }
        let last = test.phases.len() - 1;
        let mut text = String::new();
        if test.phases.iter().filter(|p| p.complete()).count() == 1 {
            text.push_str(diskinfo::test_start(test.test));
        }
        text.push_str(&diskinfo::phase_line(test, last, info.sector_size));
        self.print(&text)
    }

    fn failed(&mut self, _name: &str, error: &ProbeError) -> io::Result<()> {
        self.progress.done();
        self.say(&format!("seekprobe: {error}"));
        Ok(())
    }
}

impl Sink for LiveText<'_> {
    fn opened(&mut self, info: &DeviceInfo, warnings: &[Warning]) -> io::Result<()> {
        self.progress
            .opened(info.ident.as_deref(), info.media_size_bytes);
        if let Some(settings) = self.burn_in_plan {
            self.progress.plan(burn_in_costs(info, settings));
        }
        for w in warnings {
            self.warning(w)?;
        }
        if !self.text {
            return Ok(());
        }
        let text = if self.verbose {
            diskinfo::verbose_header(info)
        } else {
            diskinfo::one_line(info)
        };
        self.print(&text)
    }

    fn drive_clock(&mut self, clock: std::sync::Arc<dyn crate::clock::Clock>) {
        self.progress.clock_from(clock);
    }

    fn temperature_watched(&mut self, now: crate::prober::TemperatureNow) {
        self.progress.temperature_from(now);
    }

    fn warning(&mut self, w: &Warning) -> io::Result<()> {
        self.say(&format!("seekprobe: warning: {}; {}", w.message, w.advice));
        Ok(())
    }

    fn confirm_write(&mut self, info: &DeviceInfo, _found: &[Found]) -> io::Result<bool> {
        // Asked once for the whole run before it started (app::prompt).
        if self.yes
            || self
                .confirmed
                .contains(&(info.path.clone(), info.identity()))
        {
            return Ok(true);
        }
        self.say(&format!(
            "seekprobe: {}: not the drive confirmed when the run started (not among those named, or its identity changed since): not written",
            info.path
        ));
        Ok(false)
    }

    fn test_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()> {
        self.progress.done();
        if let Some(curve) = measured_rates(info, test) {
            self.progress.rates(curve);
        }
        if !self.burn_in && self.testing.take().is_some() {
            let how = match &test.outcome {
                crate::results::Outcome::Complete => "done".to_string(),
                crate::results::Outcome::Interrupted => "interrupted".to_string(),
                crate::results::Outcome::Failed(why) => format!("FAILED: {why}"),
                crate::results::Outcome::Skipped(why) => format!("skipped: {why}"),
            };
            let failed = matches!(test.outcome, crate::results::Outcome::Failed(_));
            self.progress
                .step_ended("test", &format!("{} {how}", test.test.name()), failed);
        }
        if self.text && diskinfo::end_printed(test) {
            let text = match test.verify() {
                Some(_) if self.burn_in => report::verify::burn_in_block(test),
                _ => diskinfo::test_end(test, info),
            };
            self.print(&text)?;
        }
        Ok(())
    }

    fn step_done(
        &mut self,
        info: &DeviceInfo,
        record: &crate::results::burnin::StepRecord,
        disk: &DiskResult,
    ) -> io::Result<()> {
        let line = report::burnin::step_line(record);
        let failed = matches!(record.status, crate::results::burnin::Status::Failed(_));
        // Off a terminal the live view writes the line as it happens (with
        // --parallel, `err` is this drive's buffer, written out at the end).
        if !self.logs {
            self.say(&format!(
                "seekprobe: {}: burn-in: {}",
                info.name,
                line.trim()
            ));
        }
        let ended = format!(
            "{}: {}",
            record.step.name(),
            report::burnin::status(&record.status)
        );
        self.progress.step_ended("burn-in", &ended, failed);
        self.checkpoint(disk)
    }

    fn step_started(&mut self, _info: &DeviceInfo, step: crate::results::burnin::Step) {
        self.progress.step_started(step.name(), "burn-in");
    }

    fn note(&mut self, info: &DeviceInfo, line: &str) {
        self.say(&format!("seekprobe: {}: {line}", info.name));
    }

    fn checkpoint(&mut self, disk: &DiskResult) -> io::Result<()> {
        if let Some((saver, i)) = self.saver
            && let Err(e) = saver.put(i, disk.clone())
        {
            let why = crate::error::describe_io(&e);
            self.say(&format!(
                "seekprobe: {}: cannot save the results: {why}",
                saver.path.display()
            ));
        }
        Ok(())
    }

    fn self_test_progress(&mut self, p: &crate::smart::source::SelfTestProgress) {
        let name = format!("SMART {} self-test", p.kind.arg());
        self.progress.self_test(&name, p.done_percent, p.eta);
    }

    fn smart_done(
        &mut self,
        info: &DeviceInfo,
        smart: &crate::results::smart::SmartResult,
    ) -> io::Result<()> {
        self.progress.done();
        if let Some(e) = smart.error.as_ref().or(smart.not_read.as_ref()) {
            self.say(&format!("seekprobe: {}: SMART: {e}", info.path));
        }
        if self.text {
            self.print(&report::smart::render_result(smart, &info.path))?;
        }
        Ok(())
    }
}

/// The run as saved to --json-file while it goes on: the run's header and a slot
/// per disk (a resumed burn-in's slots start as the saved disks, so a drive not
/// reached yet keeps its steps in the file).
pub(super) struct Saver {
    pub(super) path: std::path::PathBuf,
    pub(super) run: std::sync::Mutex<(Run, Vec<Option<DiskResult>>)>,
}

impl Saver {
    /// Put disk `i`'s results in its slot and save the run.
    pub(super) fn put(&self, i: usize, disk: DiskResult) -> io::Result<()> {
        let mut g = self.run.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = g.1.get_mut(i) {
            *slot = Some(disk);
        }
        Self::write(&self.path, &g)
    }

    /// Save the run with the verdicts of these disks, and when it ended.
    pub(super) fn finish(&self, disks: &[DiskResult], ended: Option<u64>) -> io::Result<()> {
        let mut g = self.run.lock().unwrap_or_else(|p| p.into_inner());
        g.0.record.ended_unix_s = ended;
        for slot in g.1.iter_mut().flatten() {
            if let Some(d) = disks.iter().find(|d| d.name == slot.name) {
                slot.verdict = d.verdict.clone();
                slot.path_check = d.path_check.clone();
                // The path check's step, recorded after every drive's own.
                slot.burn_in = d.burn_in.clone();
            }
        }
        Self::write(&self.path, &g)
    }

    fn write(path: &Path, g: &(Run, Vec<Option<DiskResult>>)) -> io::Result<()> {
        let mut run = g.0.clone();
        run.disks = g.1.iter().flatten().cloned().collect();
        save_json(path, &run)
    }
}
