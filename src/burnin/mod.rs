//! The burn-in (`--burn-in`) as data: the one list of its steps, in order, what
//! each step runs, and what a drive's record of them says (the records are plain
//! data in the results, re-exported here). The steps run through the ordinary
//! tests: [`runner`] walks [`steps`] for each drive, which `crate::run` hands it.
//!
//! Beside the runner, pure data and pure functions: no I/O. `crate::app` saves the
//! run after each step and resumes a saved one.

use crate::probe::TestKind;
pub use crate::results::burnin::{RunInfo, Status, Step, StepRecord};

pub mod resume;
pub mod runner;
use crate::smart::selftest::SelfTestKind;

impl Step {
    /// The step's name in the text and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Step::SmartBefore => "SMART before",
            Step::ShortSelfTest => "short self-test",
            Step::ConveyanceSelfTest => "conveyance self-test",
            Step::SeekTransfer => "seek and transfer (-t)",
            Step::Zones => "zone curve (--zones)",
            Step::SmrCheck => "SMR check (--smr-check)",
            Step::Verify => "write-verify pass (--verify)",
            Step::CapacityCheck => "capacity check (--capacity-check)",
            Step::FlushedWrites => "flushed writes (-S)",
            Step::Discard => "discard (TRIM/UNMAP)",
            Step::LongSelfTest => "long self-test",
            Step::SmartAfter => "SMART after",
        }
    }

    /// The step's id in the JSON (`smart_before`, `seek_transfer`, ...).
    pub fn id(self) -> &'static str {
        match self {
            Step::SmartBefore => "smart_before",
            Step::ShortSelfTest => "short_self_test",
            Step::ConveyanceSelfTest => "conveyance_self_test",
            Step::SeekTransfer => "seek_transfer",
            Step::Zones => "zones",
            Step::SmrCheck => "smr_check",
            Step::Verify => "verify",
            Step::CapacityCheck => "capacity_check",
            Step::FlushedWrites => "flushed_writes",
            Step::Discard => "discard",
            Step::LongSelfTest => "long_self_test",
            Step::SmartAfter => "smart_after",
        }
    }

    /// The step of this JSON id.
    pub fn from_id(id: &str) -> Option<Step> {
        ALL.iter().copied().find(|s| s.id() == id)
    }
}

/// Every step, in the order a burn-in runs them.
pub const ALL: [Step; 12] = [
    Step::SmartBefore,
    Step::ShortSelfTest,
    Step::ConveyanceSelfTest,
    Step::SeekTransfer,
    Step::Zones,
    Step::SmrCheck,
    Step::FlushedWrites,
    Step::CapacityCheck,
    Step::Verify,
    Step::Discard,
    Step::LongSelfTest,
    Step::SmartAfter,
];

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
    pub fn of(rotation: crate::device::Rotation) -> Medium {
        match rotation {
            crate::device::Rotation::NonRotating => Medium::Flash,
            crate::device::Rotation::Rpm(_) => Medium::Rotating,
            _ => Medium::Unknown,
        }
    }
}

/// THE list of the burn-in's steps for one drive, in order: SMART before, the
/// short and conveyance self-tests, -t, --zones, the hidden-SMR test when asked
/// for, then on a rotating drive the flushed writes (not where the rotation is
/// unknown) and the write-verify pass, on
/// flash the capacity check, the write-verify pass and the discard (unless
/// `--no-discard`), the long self-test, SMART after.
pub fn steps(medium: Medium, settings: Settings) -> Vec<Step> {
    ALL.into_iter()
        .filter(|s| match s {
            Step::SmrCheck => settings.smr_check,
            Step::FlushedWrites => medium == Medium::Rotating,
            Step::CapacityCheck => medium == Medium::Flash,
            Step::Discard => medium == Medium::Flash && !settings.no_discard,
            _ => true,
        })
        .collect()
}

/// How a step is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// One of the ordinary tests, through the executor.
    Test(TestKind),
    /// Read the drive's SMART health before the other steps (`--smart`).
    SmartBefore,
    /// One of the drive's own self-tests (`--smart-test`).
    SelfTest(SelfTestKind),
    /// Read SMART again and judge the drive's health over the run.
    SmartAfter,
    /// Discard the whole drive (TRIM/UNMAP), where the device offers it.
    Discard,
    /// Not in this build yet: the step is skipped, saying so.
    Missing(&'static str),
}

/// What runs a step. The one place that maps the burn-in's steps to the tests.
pub fn action(step: Step) -> Action {
    match step {
        Step::SeekTransfer => Action::Test(TestKind::SeekTransfer),
        Step::Zones => Action::Test(TestKind::Zones),
        Step::SmartBefore => Action::SmartBefore,
        Step::ShortSelfTest => Action::SelfTest(SelfTestKind::Short),
        Step::ConveyanceSelfTest => Action::SelfTest(SelfTestKind::Conveyance),
        Step::LongSelfTest => Action::SelfTest(SelfTestKind::Long),
        Step::SmartAfter => Action::SmartAfter,
        Step::SmrCheck => Action::Test(TestKind::SmrCheck),
        Step::Verify => Action::Test(TestKind::Verify),
        Step::CapacityCheck => Action::Test(TestKind::CapacityCheck),
        Step::FlushedWrites => Action::Test(TestKind::SyncWrite),
        Step::Discard => Action::Discard,
    }
}

/// The tests that the burn-in runs (for the run's test list and the write gate).
pub fn tests(settings: Settings) -> Vec<TestKind> {
    let mut t: Vec<TestKind> = Vec::new();
    for m in [Medium::Rotating, Medium::Unknown, Medium::Flash] {
        for s in steps(m, settings) {
            if let Action::Test(k) = action(s)
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
        if skip {
            skip = false;
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
        let s = Settings::default();
        assert_eq!(
            steps(Medium::Rotating, s),
            [
                SmartBefore,
                ShortSelfTest,
                ConveyanceSelfTest,
                SeekTransfer,
                Zones,
                FlushedWrites,
                Verify,
                LongSelfTest,
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
                ShortSelfTest,
                ConveyanceSelfTest,
                SeekTransfer,
                Zones,
                SmrCheck,
                CapacityCheck,
                Verify,
                Discard,
                LongSelfTest,
                SmartAfter
            ]
        );
        let kept = Settings {
            no_discard: true,
            ..smr
        };
        assert!(!steps(Medium::Flash, kept).contains(&Discard));
        assert!(tests(s).contains(&TestKind::SyncWrite));
        assert!(!steps(Medium::Unknown, s).contains(&FlushedWrites));
        assert!(steps(Medium::Unknown, s).contains(&Verify));
        for step in ALL {
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
