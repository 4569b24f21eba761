//! Walking one drive's burn-in: its steps ([`super::steps`]) in order, each through
//! what runs it ([`super::action`]), keeping the steps a saved run completed
//! (`--resume`), skipping the rest once the drive stopped answering, and saying
//! how each step ended. The run is saved after each step.
//!
//! The tests and SMART readings themselves are the ordinary run's: it hands the
//! drive in as a [`Drive`], so this module imports nothing of it.

use super::{Medium, Settings};
use crate::error::ProbeError;
use crate::results::burnin::{Status, Step, StepRecord};
use crate::results::device::DeviceInfo;
use crate::results::smart::{SelfTestKind, SelfTestOutcome, SmartResult};
use crate::results::test_kind::TestKind;
use crate::results::{DiskResult, Outcome, TestResult};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// The drive under burn-in as the ordinary run drives it (prober.rs implements it):
/// each method runs what one kind of step needs, or tells the run's sink what
/// happened.
pub trait Drive {
    /// What the drive is as opened: its medium picks the steps, its path and
    /// serial number tell whether a saved run is this drive's.
    fn info(&self) -> &DeviceInfo;
    /// The flag Ctrl-C raises, checked between steps (the test hook raises it too).
    fn stop(&self) -> &AtomicBool;
    /// Run one of the ordinary tests whatever failed before it (the verdict lists
    /// every reason, and the write-verify pass maps what the others tripped on),
    /// adding its result to `disk`; its outcome, and the line saying that the drive
    /// stopped answering during it, if it did.
    fn test(
        &mut self,
        test: TestKind,
        disk: &mut DiskResult,
    ) -> io::Result<(Outcome, Option<String>)>;
    /// Read the drive's SMART health before the other steps.
    fn smart_before(&mut self) -> SmartResult;
    /// Why the saved progress of the drive (its write-verify checkpoint) cannot be
    /// resumed by this seekprobe, if it cannot (a checkpoint of older stamps).
    fn resume_refused(&self) -> Option<String> {
        None
    }
    /// Run one of the drive's self-tests to its end and record it in `smart`; false
    /// when Ctrl-C stopped it (it was aborted on the drive).
    fn self_test(&mut self, kind: SelfTestKind, smart: &mut SmartResult) -> bool;
    /// Read SMART again, keep the temperatures of long work, and judge the
    /// drive's health over the run.
    fn smart_after(&mut self, smart: &mut SmartResult);
    /// Discard the whole drive (TRIM/UNMAP), and how it went.
    fn discard(&mut self) -> Discarded;
    /// The drive cannot be burnt in (`error` says why).
    fn failed(&mut self, name: &str, error: &ProbeError) -> io::Result<()>;
    /// SMART's part of the drive is complete.
    fn smart_done(&mut self, smart: &SmartResult) -> io::Result<()>;
    /// A step is about to run (for the live view).
    fn step_started(&mut self, _step: Step) {}
    /// A step ended (`record` says how), and the drive's results so far (`disk`)
    /// are to be saved.
    fn step_done(&mut self, record: &StepRecord, disk: &DiskResult) -> io::Result<()>;
}

/// How a whole-drive discard went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Discarded {
    /// The drive discarded it all.
    Done,
    /// The device offers no discard (ENOTSUP): nothing to judge.
    NotOffered,
    /// The drive refused it with an error (the message).
    Refused(String),
    /// The drive did not answer within the discard's limit, or had already been
    /// given up (the watchdog's message): the drive is given up.
    Unanswered(String),
    /// Ctrl-C or SIGTERM ended the wait.
    Interrupted,
}

/// Run `drive`'s burn-in into `disk`, continuing the saved run's `saved` disks when
/// `resuming`; the disk's results, and whether Ctrl-C stopped the burn-in.
pub fn run(
    name: &str,
    settings: Settings,
    resuming: bool,
    drive: &mut dyn Drive,
    mut disk: DiskResult,
    saved: &[DiskResult],
) -> io::Result<(DiskResult, bool)> {
    let prev = if resuming {
        let other =
            "resume the burn-in on the drives it ran on, or start a new one without --resume";
        let older = "start the burn-in again without --resume (give --new-run to keep the saved run beside the new one)";
        let found = saved_disk(name, drive.info(), saved).map_err(|why| (why, other));
        match found.and_then(|d| {
            drive
                .resume_refused()
                .map_or(Ok(d), |why| Err((why, older)))
        }) {
            Ok(d) => d,
            Err((why, hint)) => {
                // The operator's resume, not the drive: NOT TESTED.
                let e = ProbeError::Refused {
                    path: drive.info().path.clone(),
                    why,
                    hint: hint.into(),
                    untested: true,
                };
                drive.failed(name, &e)?;
                disk.error = Some(e.disk_failure());
                return Ok((disk, false));
            }
        }
    } else {
        None
    };
    keep_saved_smart(prev, &mut disk);
    // Set when a step found that the drive stopped answering: the steps after it
    // are skipped, saying why (the other drives of the run go on).
    let mut gone: Option<String> = None;
    for step in super::steps(Medium::of(drive.info().rotation), settings) {
        if drive.stop().load(Ordering::Relaxed) {
            return Ok((disk, true));
        }
        let kept = prev.and_then(|p| p.burn_in.iter().find(|r| r.step == step && r.status.done()));
        if kept.is_none() {
            drive.step_started(step);
        }
        let began = std::time::Instant::now();
        // A drive the capacity check found fake is not written whole besides.
        let fake = matches!(step, Step::Test(k) if k.row().pass) && fake_capacity(&disk);
        let mut unanswered = false;
        let status = match (kept, step) {
            (None, _) if gone.is_some() => Status::Skipped(gone.clone().unwrap_or_default()),
            (None, _) if fake => Status::Skipped(
                "the capacity check found that the drive stores less than it reports".into(),
            ),
            (Some(_), a) => {
                if let Step::Test(k) = a
                    && let Some(r) = prev.and_then(|p| p.tests.iter().find(|r| r.test == k))
                {
                    disk.tests.push(r.clone());
                }
                Status::Resumed
            }
            (None, Step::Test(k)) => {
                let (outcome, stopped_answering) = drive.test(k, &mut disk)?;
                gone = stopped_answering;
                test_status(outcome, disk.tests.last())
            }
            (None, Step::SmartBefore) => {
                let r = drive.smart_before();
                let status = smart_status(&r);
                disk.smart = Some(r);
                status
            }
            (None, Step::SelfTest(kind)) => self_test_step(drive, kind, &mut disk),
            (None, Step::Discard) => {
                let (status, stopped_answering) = discard_step(drive);
                if stopped_answering.is_some() {
                    gone = stopped_answering;
                    unanswered = true;
                }
                status
            }
            (None, Step::SmartAfter) => smart_after_step(drive, &mut disk)?,
        };
        // A kept step's duration is the saved run's; a step run here is timed
        // around its whole action (a test, a self-test, a SMART read).
        let duration_s = match kept {
            Some(k) => k.duration_s,
            None => Some(began.elapsed().as_secs_f64()),
        };
        let record = StepRecord {
            step,
            status,
            duration_s,
            unanswered,
        };
        let interrupted = record.status == Status::Interrupted;
        disk.burn_in.push(record);
        drive.step_done(disk.burn_in.last().expect("just pushed"), &disk)?;
        if stop_hook() == Some(step) {
            // As Ctrl-C would, between two steps (for the tests of --resume).
            drive.stop().store(true, Ordering::Relaxed);
        }
        if interrupted {
            return Ok((disk, true));
        }
    }
    Ok((disk, false))
}

/// Keep the SMART of the saved run `prev` when its reading before the steps was
/// done: its health before and the self-tests done (an interrupted self-test runs
/// again).
fn keep_saved_smart(prev: Option<&DiskResult>, disk: &mut DiskResult) {
    if let Some(p) = prev
        && p.burn_in
            .iter()
            .any(|r| r.step == Step::SmartBefore && r.status.done())
    {
        disk.smart = p.smart.clone();
        if let Some(s) = disk.smart.as_mut() {
            s.self_tests
                .retain(|t| t.outcome != SelfTestOutcome::Interrupted);
        }
    }
}

/// The discard step: how it ended, and the line saying that the drive stopped
/// answering during it, if it did.
fn discard_step(drive: &mut dyn Drive) -> (Status, Option<String>) {
    match drive.discard() {
        Discarded::Done => (Status::Done, None),
        Discarded::NotOffered => (Status::Skipped(not_discarded(drive.info()).into()), None),
        Discarded::Refused(why) => (Status::Failed(format!("discard: {why}")), None),
        Discarded::Unanswered(why) => (
            Status::Failed(format!("discard: {why}")),
            Some(format!("the drive stopped answering: discard: {why}")),
        ),
        Discarded::Interrupted => (Status::Interrupted, None),
    }
}

/// The SMART reading after the other steps, judged over the run, when SMART was
/// read before them.
fn smart_after_step(drive: &mut dyn Drive, disk: &mut DiskResult) -> io::Result<Status> {
    Ok(match disk.smart.as_mut() {
        Some(r) => {
            drive.smart_after(r);
            let status = smart_status(r);
            drive.smart_done(r)?;
            status
        }
        None => Status::Skipped("SMART was not read before".into()),
    })
}

/// How a test step ended: its outcome, and for a complete one, the first failing
/// finding of what it found.
fn test_status(outcome: Outcome, result: Option<&TestResult>) -> Status {
    match outcome {
        // What the test found fails the step as it fails the drive (the judge's
        // first failing finding).
        Outcome::Complete => match result.and_then(crate::verdict::test_failure) {
            Some(why) => Status::Failed(why),
            None => Status::Done,
        },
        Outcome::Interrupted => Status::Interrupted,
        Outcome::Failed(why) => Status::Failed(why),
        Outcome::Skipped(why) => Status::Skipped(why),
    }
}

/// Whether the capacity check found the drive fake (flash's burn-in runs it
/// before the write-verify pass).
fn fake_capacity(disk: &DiskResult) -> bool {
    (disk.tests.iter())
        .filter_map(|t| t.capacity())
        .any(|c| c.conclusion.is_fake())
}

/// Why a drive was not discarded (its target offers no discard).
fn not_discarded(info: &DeviceInfo) -> &'static str {
    if info.simulated.is_some() {
        "a simulated drive: nothing to discard"
    } else if info.kind == crate::results::device::TargetKind::File {
        "an image file: nothing to discard"
    } else {
        "the device does not offer TRIM/UNMAP"
    }
}

/// How a SMART reading step ended: done, skipped for a device without SMART (its
/// note), failed when SMART could not be read.
fn smart_status(r: &SmartResult) -> Status {
    match (&r.error, &r.note) {
        (Some(e), _) => Status::Failed(e.clone()),
        (None, Some(note)) if !r.judged() => Status::Skipped(note.clone()),
        _ => Status::Done,
    }
}

/// One of the drive's self-tests as a burn-in step: run it to its end (Ctrl-C
/// aborts it on the drive) and record it in the disk's SMART result.
fn self_test_step(drive: &mut dyn Drive, kind: SelfTestKind, disk: &mut DiskResult) -> Status {
    let Some(r) = disk.smart.as_mut() else {
        return Status::Skipped("SMART was not read".into());
    };
    if !r.judged() {
        return Status::Skipped("the device has no SMART".into());
    }
    let (n, had_error) = (r.self_tests.len(), r.error.is_some());
    if !drive.self_test(kind, r) {
        return Status::Interrupted;
    }
    if let (false, Some(e)) = (had_error, &r.error) {
        return Status::Failed(e.clone());
    }
    match r.self_tests.get(n) {
        Some(rec) => match rec.outcome {
            SelfTestOutcome::Passed => Status::Done,
            SelfTestOutcome::Failed => Status::Failed(format!(
                "{}{}",
                rec.status,
                rec.first_error_lba
                    .map(|l| format!(", first error at LBA {l}"))
                    .unwrap_or_default()
            )),
            SelfTestOutcome::Aborted => Status::Failed(rec.status.clone()),
            SelfTestOutcome::Interrupted => Status::Interrupted,
            SelfTestOutcome::Skipped => Status::Skipped(rec.status.clone()),
        },
        None => Status::Skipped("not run".into()),
    }
}

/// A test hook: `SEEKPROBE_BURN_IN_STOP_AFTER=STEP` (a step's JSON id) raises the
/// stop flag after that step, as Ctrl-C would, so that an interrupted burn-in and
/// its `--resume` are tested exactly.
fn stop_hook() -> Option<Step> {
    std::env::var("SEEKPROBE_BURN_IN_STOP_AFTER")
        .ok()
        .and_then(|id| Step::from_id(&id))
}

/// The saved disk that a resumed burn-in continues on this drive: of `saved` (the
/// saved disks the run matched to it, see [`super::resume`]), the one whose
/// identity is this drive's; None for a drive the saved run had not reached. Err
/// when the saved drive is another drive (it changed since the run was matched),
/// or has another sector size.
fn saved_disk<'a>(
    name: &str,
    info: &DeviceInfo,
    saved: &'a [DiskResult],
) -> Result<Option<&'a DiskResult>, String> {
    use super::resume::{Change, NewDrive, match_drives};
    if saved.is_empty() {
        return Ok(None);
    }
    let this = NewDrive {
        name: name.into(),
        identity: Some(info.identity()),
    };
    let names: Vec<String> = saved.iter().map(|d| d.name.clone()).collect();
    let m = match_drives(std::slice::from_ref(&this), saved, &names);
    let Some(found) = m.kept[0].map(|j| &saved[j]) else {
        let why = m
            .changes
            .iter()
            .find_map(|c| match c {
                Change::Replaced { why, .. } => Some(why.clone()),
                _ => None,
            })
            .unwrap_or_else(|| "another identity".into());
        return Err(format!(
            "the saved burn-in of {} ran on another drive ({why})",
            saved[0].name
        ));
    };
    // Results measured on another sector size are another drive's.
    if let Some(was) = &found.info
        && was.sector_size != info.sector_size
    {
        return Err(format!(
            "the saved burn-in of {name} ran on a drive of {}-byte sectors; this one has {}-byte sectors",
            was.sector_size, info.sector_size
        ));
    }
    Ok(Some(found))
}
