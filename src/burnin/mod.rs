//! The burn-in (`--burn-in`) as data: the one list of its steps, in order (SMART
//! readings, self-tests, and the registry's tests whose row has a `burn_in`, those
//! across the drives last), and what a drive's record of them says (the records are plain
//! data in the results, re-exported here). The steps run through the ordinary
//! tests: [`runner`] walks [`steps`] for each drive, which `crate::prober` hands it.
//!
//! Beside the runner, pure data and pure functions: no I/O. `crate::app` saves the
//! run after each step and resumes a saved one.

use crate::results::burnin::{Status, Step};
use crate::results::test_kind::TestKind;

pub mod resume;
pub mod runner;
use crate::results::smart::SelfTestKind;

/// Every step, in the order a burn-in runs them: each drive's own, then the tests
/// that run across the drives at once (their row's `together`: the path check,
/// under `--parallel` of two drives or more), once every drive's own have ended.
pub fn all() -> Vec<Step> {
    let mut tests: Vec<_> = TestKind::ALL
        .into_iter()
        .filter_map(|k| k.row().burn_in.map(|b| (b.order, Step::Test(k))))
        .collect();
    tests.sort_by_key(|&(order, _)| order);
    let (together, own): (Vec<_>, Vec<_>) = (tests.into_iter().map(|(_, s)| s))
        .partition(|s| matches!(s, Step::Test(k) if k.row().together));
    let mut out = vec![
        Step::SmartBefore,
        Step::SelfTest(SelfTestKind::Short),
        Step::SelfTest(SelfTestKind::Conveyance),
    ];
    out.extend(own);
    out.extend([
        Step::Discard,
        Step::SelfTest(SelfTestKind::Long),
        Step::SmartAfter,
    ]);
    out.extend(together);
    out
}

/// What the burn-in is asked to do beyond its fixed steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Settings {
    /// `--smr-check` was given too.
    pub smr_check: bool,
    /// `--no-discard`: flash is not discarded after its write-verify pass.
    pub no_discard: bool,
}

/// The kind of medium, as far as the burn-in cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Medium {
    /// A drive that reports its rotation rate: a short flushed-write step (a lying
    /// flush), then the full write-verify pass, which also finds a fake capacity.
    Rotating,
    /// A drive that does not say whether it rotates (a loop device, an image file,
    /// many USB bridges): the rotating drive's steps but the flushed writes, whose
    /// timing means nothing without a revolution to compare with.
    Unknown,
    /// Flash (the device says it does not rotate): the capacity check (seconds),
    /// one stamped write-verify pass (one write of each cell, a negligible share of
    /// any SSD's endurance) that finds a drive remapping what it is written, then
    /// a discard so the drive starts clean.
    Flash,
}

impl Medium {
    /// The medium of a device, from its reported rotation.
    pub fn of(rotation: crate::results::device::Rotation) -> Medium {
        match rotation {
            crate::results::device::Rotation::NonRotating => Medium::Flash,
            crate::results::device::Rotation::Rpm(_) => Medium::Rotating,
            _ => Medium::Unknown,
        }
    }
}

/// THE list of the burn-in's steps for one drive, in order: SMART before, the
/// short and conveyance self-tests, the registry's tests that are burn-in steps
/// on this medium in their order (-t, --zones, the hidden-SMR test when asked
/// for, on a rotating drive the flushed writes (not where the rotation is
/// unknown), on flash the capacity check, the write-verify pass), on flash the
/// discard (unless `--no-discard`), the long self-test, SMART after. Not the
/// steps across the drives ([`all`]'s last), which the program runs once every
/// drive's own have ended.
pub fn steps(medium: Medium, settings: Settings) -> Vec<Step> {
    all()
        .into_iter()
        .filter(|s| match s {
            // The tests across the drives are the program's, not a drive's.
            Step::Test(k) if k.row().together => false,
            Step::Test(k) => k.row().burn_in.is_some_and(|b| {
                let on = match medium {
                    Medium::Rotating => b.rotating,
                    Medium::Unknown => b.unknown,
                    Medium::Flash => b.flash,
                };
                on && (!b.optional || settings.smr_check)
            }),
            Step::Discard => medium == Medium::Flash && !settings.no_discard,
            _ => true,
        })
        .collect()
}

/// Whether a burn-in of `settings` on a drive of `medium` still writes on it
/// once the steps `done` (kept from a saved run) are left out: a writing test's
/// step, or the discard. A resumed drive whose writing steps are all done is
/// neither asked about nor checked before writing, for nothing is written.
pub fn writes_left(medium: Medium, settings: Settings, done: &[Step]) -> bool {
    steps(medium, settings).into_iter().any(|s| {
        !done.contains(&s)
            && match s {
                Step::Test(k) => k.writes(true),
                Step::Discard => true,
                _ => false,
            }
    })
}

/// The steps of `saved` (a drive of a saved burn-in) that a resumed run keeps.
pub fn done_steps(saved: Option<&crate::results::DiskResult>) -> Vec<Step> {
    saved.map_or(Vec::new(), |d| {
        (d.burn_in.iter())
            .filter(|r| r.status.done())
            .map(|r| r.step)
            .collect()
    })
}

/// The tests that the burn-in runs (for the run's test list and the write gate).
pub fn tests(settings: Settings) -> Vec<TestKind> {
    let mut t: Vec<TestKind> = Vec::new();
    for m in [Medium::Rotating, Medium::Unknown, Medium::Flash] {
        for s in steps(m, settings) {
            if let Step::Test(k) = s
                && !t.contains(&k)
            {
                t.push(k);
            }
        }
    }
    t
}

impl Status {
    /// Whether a resumed burn-in need not run the step again.
    pub fn done(&self) -> bool {
        matches!(self, Status::Done | Status::Resumed)
    }
}

/// A command line as a shell reads it back: each argument quoted when it holds
/// anything but letters, digits and `-_./:=,+@%`.
pub fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The command that resumes the burn-in `command` from `file`: the same command
/// line without any `--resume`, then `--resume FILE`.
pub fn resume_command(command: &[String], file: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in command {
        // The file after --resume, when one follows it (a bare --resume has none).
        if std::mem::take(&mut skip) && !a.starts_with('-') {
            continue;
        }
        if a == "--resume" {
            skip = true;
            continue;
        }
        if a.starts_with("--resume=") {
            continue;
        }
        out.push(a.clone());
    }
    out.push("--resume".into());
    out.push(file.into());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_steps_are_in_the_burn_in_order_for_each_medium() {
        use Step::*;
        const SHORT_SELF_TEST: Step = SelfTest(SelfTestKind::Short);
        const CONVEYANCE_SELF_TEST: Step = SelfTest(SelfTestKind::Conveyance);
        const LONG_SELF_TEST: Step = SelfTest(SelfTestKind::Long);
        const SEEK_TRANSFER: Step = Test(TestKind::SeekTransfer);
        const ZONES: Step = Test(TestKind::Zones);
        const FLUSHED_WRITES: Step = Test(TestKind::SyncWrite);
        const VERIFY: Step = Test(TestKind::Verify);
        const SMR_CHECK: Step = Test(TestKind::SmrCheck);
        const CAPACITY_CHECK: Step = Test(TestKind::CapacityCheck);
        let s = Settings::default();
        assert_eq!(
            steps(Medium::Rotating, s),
            [
                SmartBefore,
                SHORT_SELF_TEST,
                CONVEYANCE_SELF_TEST,
                SEEK_TRANSFER,
                ZONES,
                FLUSHED_WRITES,
                VERIFY,
                LONG_SELF_TEST,
                SmartAfter
            ]
        );
        let smr = Settings {
            smr_check: true,
            ..Settings::default()
        };
        assert_eq!(
            steps(Medium::Flash, smr),
            [
                SmartBefore,
                SHORT_SELF_TEST,
                CONVEYANCE_SELF_TEST,
                SEEK_TRANSFER,
                ZONES,
                SMR_CHECK,
                CAPACITY_CHECK,
                VERIFY,
                Discard,
                LONG_SELF_TEST,
                SmartAfter
            ]
        );
        let kept = Settings {
            no_discard: true,
            ..smr
        };
        assert!(!steps(Medium::Flash, kept).contains(&Discard));
        assert!(tests(s).contains(&TestKind::SyncWrite));
        assert!(!steps(Medium::Unknown, s).contains(&FLUSHED_WRITES));
        assert!(steps(Medium::Unknown, s).contains(&VERIFY));
        // The ids saved in the JSON, as before the steps were the registry's.
        let ids: Vec<&str> = all().into_iter().map(Step::id).collect();
        assert_eq!(
            ids,
            [
                "smart_before",
                "short_self_test",
                "conveyance_self_test",
                "seek_transfer",
                "zones",
                "smr_check",
                "flushed_writes",
                "capacity_check",
                "verify",
                "discard",
                "long_self_test",
                "smart_after",
                "path_check"
            ]
        );
        // The tests across the drives (the path check) are no drive's own step,
        // and no test of a drive's burn-in.
        let together: Vec<TestKind> = (TestKind::ALL.into_iter())
            .filter(|k| k.row().together)
            .collect();
        assert!(!together.is_empty());
        for k in together {
            for m in [Medium::Rotating, Medium::Unknown, Medium::Flash] {
                assert!(!steps(m, smr).contains(&Test(k)));
            }
            assert!(!tests(smr).contains(&k));
        }
        assert_eq!(Step::from_id("sync_write"), None);
        for step in all() {
            assert_eq!(Step::from_id(step.id()), Some(step));
            let json = serde_json::to_string(&step).unwrap();
            assert_eq!(json, format!("\"{}\"", step.id()));
        }
    }

    #[test]
    fn the_resume_command_is_the_same_line_with_resume() {
        let cmd: Vec<String> = [
            "seekprobe",
            "--burn-in",
            "-w",
            "--resume",
            "old.json",
            "sim:hdd?size=1G&bad=5",
        ]
        .map(String::from)
        .to_vec();
        let r = resume_command(&cmd, "run.json");
        assert_eq!(
            shell_line(&r),
            "seekprobe --burn-in -w 'sim:hdd?size=1G&bad=5' --resume run.json"
        );
        assert_eq!(shell_line(&["it's".into()]), r"'it'\''s'");
    }
}
