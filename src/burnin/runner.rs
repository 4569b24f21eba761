//! One drive's course through its burn-in: its steps ([`super::steps`]) in
//! order, those a saved run completed kept (`--resume`), the rest skipped once the
//! drive stopped answering, and how each step that ran ended, judged from what
//! running it gave. Pure: `crate::prober` runs each step (the I/O) and hands back
//! what it gave ([`Ran`]); the app saves and draws each step's record. It imports
//! nothing of the prober, which alone imports it.

use super::{Medium, Settings};
use crate::error::ProbeError;
use crate::results::burnin::{Status, Step, StepRecord};
use crate::results::device::DeviceInfo;
use crate::results::smart::{SelfTestOutcome, SmartResult};
use crate::results::{DiskResult, Outcome, TestResult};

/// A SMART step skipped because SMART was not read (a self-test without it).
pub fn not_read() -> Status {
    Status::Skipped("SMART was not read".into())
}

/// The SMART-after step skipped because SMART was not read before.
fn not_read_before() -> Status {
    Status::Skipped("SMART was not read before".into())
}

/// One drive's burn-in as it goes: its steps, the saved disk it continues
/// (`--resume`), and whether a step found that the drive stopped answering.
pub struct Course<'s> {
    steps: Vec<Step>,
    /// The saved disk this drive goes on from, if any.
    prev: Option<&'s DiskResult>,
    /// Set when a step found that the drive stopped answering: the steps after it
    /// are skipped, saying why (the other drives of the run go on).
    gone: Option<String>,
    /// Before the self-test step that runs: how many self-tests SMART held, and
    /// whether it had failed already.
    self_tests_before: (usize, bool),
    /// Why the drive is not discarded when it offers no discard.
    not_discarded: &'static str,
}

/// How a step goes, decided before anything of it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Go {
    /// Completed by the saved run: its record (a test's result is back in the disk).
    Kept(StepRecord),
    /// Not run (the drive stopped answering, its capacity is fake, SMART was not
    /// read): the step's status.
    Skip(Status),
    /// Run it, and hand back what it gave to [`Course::ended`].
    Run,
}

/// What running a step gave, as the prober hands it back to be judged.
#[derive(Debug, Clone, PartialEq)]
pub enum Ran {
    /// Nothing ran ([`Go::Skip`]'s status).
    Not(Status),
    /// A test ran (its result is the disk's last): its outcome, and the line
    /// saying that the drive stopped answering during it, if it did.
    Test(Outcome, Option<String>),
    /// SMART read before the other steps.
    SmartBefore(Box<SmartResult>),
    /// A self-test ran into the disk's SMART; false when Ctrl-C stopped it (it
    /// was aborted on the drive).
    SelfTest(bool),
    /// The whole drive was discarded, so it went.
    Discard(Discarded),
    /// SMART was read again into the disk's and judged over the run.
    SmartAfter,
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

impl<'s> Course<'s> {
    /// The burn-in of drive `name` (`info`, as opened) into `disk`, continuing
    /// `saved` (the saved disks matched to it, given when resuming): the saved
    /// SMART is kept in `disk` when its reading before the steps was done. Err when
    /// the saved run cannot be continued on this drive: another drive, or its
    /// progress `refused` by this seekprobe (asked only of this drive's saved
    /// disk); the operator's resume, not the drive: NOT TESTED.
    pub fn start(
        name: &str,
        settings: Settings,
        info: &DeviceInfo,
        saved: Option<&'s [DiskResult]>,
        refused: impl FnOnce() -> Option<String>,
        disk: &mut DiskResult,
    ) -> Result<Course<'s>, ProbeError> {
        let prev = match saved {
            Some(saved) => {
                let other = "resume the burn-in on the drives it ran on, or start a new one without --resume";
                let older = "start the burn-in again without --resume (give --new-run to keep the saved run beside the new one)";
                let found = saved_disk(name, info, saved).map_err(|why| (why, other));
                found
                    .and_then(|d| refused().map_or(Ok(d), |why| Err((why, older))))
                    .map_err(|(why, hint)| ProbeError::Refused {
                        path: info.path.clone(),
                        why,
                        hint: hint.into(),
                        untested: true,
                    })?
            }
            None => None,
        };
        keep_saved_smart(prev, disk);
        Ok(Course {
            steps: super::steps(Medium::of(info.rotation), settings),
            prev,
            gone: None,
            self_tests_before: (0, false),
            not_discarded: not_discarded(info),
        })
    }

    /// The drive's steps, in the order they run.
    pub fn steps(&self) -> Vec<Step> {
        self.steps.clone()
    }

    /// How `step` goes, from the saved run, the steps before it and `disk`'s
    /// results so far (a kept test's result is put back in `disk`).
    pub fn begin(&mut self, step: Step, disk: &mut DiskResult) -> Go {
        let kept =
            (self.prev).and_then(|p| p.burn_in.iter().find(|r| r.step == step && r.status.done()));
        if let Some(k) = kept {
            if let Step::Test(t) = step
                && let Some(r) = self.prev.and_then(|p| p.tests.iter().find(|r| r.test == t))
            {
                disk.tests.push(r.clone());
            }
            // A kept step's duration is the saved run's.
            return Go::Kept(StepRecord {
                step,
                status: Status::Resumed,
                duration_s: k.duration_s,
                unanswered: false,
            });
        }
        if let Some(why) = &self.gone {
            return Go::Skip(Status::Skipped(why.clone()));
        }
        // A drive the capacity check found fake is not written whole besides.
        if matches!(step, Step::Test(k) if k.row().pass) && fake_capacity(disk) {
            return Go::Skip(Status::Skipped(
                "the capacity check found that the drive stores less than it reports".into(),
            ));
        }
        match (step, disk.smart.as_ref()) {
            (Step::SelfTest(_), None) => Go::Skip(not_read()),
            (Step::SelfTest(_), Some(r)) if !r.judged() => {
                Go::Skip(Status::Skipped("the device has no SMART".into()))
            }
            (Step::SelfTest(_), Some(r)) => {
                self.self_tests_before = (r.self_tests.len(), r.stopped());
                Go::Run
            }
            (Step::SmartAfter, None) => Go::Skip(not_read_before()),
            _ => Go::Run,
        }
    }

    /// The record of `step`, which lasted `duration_s` around its whole action (a
    /// test, a self-test, a SMART read), judged from what it gave (`ran`, the SMART
    /// read before is kept in `disk`); a drive found to have stopped answering
    /// skips the steps after it.
    pub fn ended(
        &mut self,
        step: Step,
        ran: Ran,
        disk: &mut DiskResult,
        duration_s: f64,
    ) -> StepRecord {
        let mut unanswered = false;
        let status = match ran {
            Ran::Not(status) => status,
            Ran::Test(outcome, stopped_answering) => {
                self.gone = stopped_answering;
                test_status(outcome, disk.tests.last())
            }
            Ran::SmartBefore(r) => {
                let status = smart_status(&r);
                disk.smart = Some(*r);
                status
            }
            Ran::SelfTest(finished) => match disk.smart.as_ref() {
                Some(r) => self_test_status(r, self.self_tests_before, finished),
                None => not_read(),
            },
            Ran::Discard(d) => {
                let (status, stopped_answering) = discard_status(d, self.not_discarded);
                if stopped_answering.is_some() {
                    self.gone = stopped_answering;
                    unanswered = true;
                }
                status
            }
            Ran::SmartAfter => match disk.smart.as_ref() {
                Some(r) => smart_status(r),
                None => not_read_before(),
            },
        };
        StepRecord {
            step,
            status,
            duration_s: Some(duration_s),
            unanswered,
        }
    }
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

/// How the discard step ended (`not_offered`: why a drive that offers no discard
/// was not discarded), and the line saying that the drive stopped answering
/// during it, if it did.
fn discard_status(d: Discarded, not_offered: &str) -> (Status, Option<String>) {
    match d {
        Discarded::Done => (Status::Done, None),
        Discarded::NotOffered => (Status::Skipped(not_offered.into()), None),
        Discarded::Refused(why) => (Status::Failed(format!("discard: {why}")), None),
        Discarded::Unanswered(why) => (
            Status::Failed(format!("discard: {why}")),
            Some(format!("the drive stopped answering: discard: {why}")),
        ),
        Discarded::Interrupted => (Status::Interrupted, None),
    }
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
        (None, _) if r.not_read.is_some() => Status::Skipped(r.not_read.clone().unwrap()),
        (None, Some(note)) if !r.judged() => Status::Skipped(note.clone()),
        _ => Status::Done,
    }
}

/// How one of the drive's self-tests ended as a burn-in step, from the disk's
/// SMART `r` after it ran (`finished`: not stopped by Ctrl-C) and `before` it
/// (how many self-tests it held, and whether it had failed already).
fn self_test_status(r: &SmartResult, (n, had_error): (usize, bool), finished: bool) -> Status {
    if !finished {
        return Status::Interrupted;
    }
    if let (false, Some(e)) = (had_error, &r.error) {
        return Status::Failed(e.clone());
    }
    if let (false, Some(why)) = (had_error, &r.not_read) {
        return Status::Skipped(why.clone());
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
/// its `--resume` are tested exactly: the step after which to raise it.
pub fn stop_hook() -> Option<Step> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Engine;
    use crate::results::smart::SelfTestKind;
    use crate::results::test_kind::TestKind;

    fn info() -> DeviceInfo {
        serde_json::from_value(serde_json::json!({
            "name": "sim0", "path": "sim0", "kind": "simulated", "sector_size_bytes": 512,
            "physical_sector_size_bytes": 4096, "media_size_bytes": 268435456u64,
            "stripe_size_bytes": 4096, "stripe_offset_bytes": 0, "fw_heads": 255,
            "fw_sectors": 63, "descr": "a model", "ident": "SER1", "attachment": "sim",
            "physical_path": null, "trim": false, "rotation": {"rpm": 7200},
            "zone_mode": null, "parent_disk": null, "loop_device": null, "simulated": "a model",
            "interface": null, "allocated_bytes": null, "in_memory": false, "io_mode": "simulated"
        }))
        .unwrap()
    }

    fn record(step: Step, status: Status, duration_s: f64) -> StepRecord {
        StepRecord {
            step,
            status,
            duration_s: Some(duration_s),
            unanswered: false,
        }
    }

    #[test]
    fn a_discard_left_unanswered_fails_and_skips_every_step_after_it() {
        let mut disk = DiskResult::new("sim0");
        let settings = Settings::default();
        let mut course = Course::start("sim0", settings, &info(), None, || None, &mut disk)
            .expect("nothing to resume");
        let ran = Ran::Discard(Discarded::Unanswered("no answer in 30 s".into()));
        let r = course.ended(Step::Discard, ran, &mut disk, 30.0);
        assert_eq!(
            r.status,
            Status::Failed("discard: no answer in 30 s".into())
        );
        assert!(r.unanswered);
        assert_eq!(
            course.begin(Step::SelfTest(SelfTestKind::Long), &mut disk),
            Go::Skip(Status::Skipped(
                "the drive stopped answering: discard: no answer in 30 s".into()
            ))
        );
    }

    #[test]
    fn a_resumed_drive_keeps_its_completed_steps_and_runs_the_interrupted_one() {
        let mut saved = DiskResult::new("sim0");
        saved.info = Some(info());
        let seek = Step::Test(TestKind::SeekTransfer);
        saved.burn_in = vec![
            record(Step::SmartBefore, Status::Done, 1.5),
            record(seek, Status::Done, 20.0),
            record(Step::Test(TestKind::Verify), Status::Interrupted, 60.0),
        ];
        saved.tests = vec![TestResult::new(TestKind::SeekTransfer, 0.0, Engine::Sync)];
        let saved = [saved];
        let mut disk = DiskResult::new("sim0");
        let mut course = Course::start(
            "sim0",
            Settings::default(),
            &info(),
            Some(&saved),
            || None,
            &mut disk,
        )
        .expect("the same drive");
        assert_eq!(
            course.begin(seek, &mut disk),
            Go::Kept(StepRecord {
                status: Status::Resumed,
                ..record(seek, Status::Done, 20.0)
            })
        );
        assert_eq!(
            disk.tests.len(),
            1,
            "the kept test's result is the disk's again"
        );
        let verify = Step::Test(TestKind::Verify);
        assert_eq!(course.begin(verify, &mut disk), Go::Run);
        // No SMART was saved: the self-tests cannot run.
        assert_eq!(
            course.begin(Step::SelfTest(SelfTestKind::Short), &mut disk),
            Go::Skip(not_read())
        );
    }

    #[test]
    fn a_refused_checkpoint_leaves_the_drive_not_tested() {
        let mut saved = DiskResult::new("sim0");
        saved.info = Some(info());
        let saved = [saved];
        let mut disk = DiskResult::new("sim0");
        let why = || Some("its checkpoint was written by an older seekprobe".to_string());
        let err = Course::start(
            "sim0",
            Settings::default(),
            &info(),
            Some(&saved),
            why,
            &mut disk,
        )
        .err()
        .expect("refused");
        match err {
            ProbeError::Refused { why, untested, .. } => {
                assert_eq!(why, "its checkpoint was written by an older seekprobe");
                assert!(untested, "the operator's resume, not the drive");
            }
            e => panic!("{e:?}"),
        }
    }
}
