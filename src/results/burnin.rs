//! A drive's burn-in as a run saves it: the steps, how each ended, and the command
//! that started the burn-in (the list of steps and what runs each is the burn-in's
//! module).

use super::smart::SelfTestKind;
use super::test_kind::TestKind;
use serde::{Deserialize, Serialize};

/// One step of the burn-in: a SMART reading, one of the drive's self-tests, a
/// test of the registry ([`TestKind::row`]'s `burn_in`), or the discard. In the
/// JSON, its id (`smart_before`, `short_self_test`, `seek_transfer`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Step {
    /// The drive's SMART health before anything runs.
    SmartBefore,
    /// One of the drive's self-tests (short and conveyance first, long last).
    SelfTest(SelfTestKind),
    /// A test of the registry that is a burn-in step.
    Test(TestKind),
    /// The whole drive discarded (TRIM/UNMAP) after the write-verify pass, so flash
    /// starts clean (unless `--no-discard`).
    Discard,
    /// The drive's SMART health after the run, compared with before.
    SmartAfter,
}

impl Step {
    /// The step's name in the text and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Step::SmartBefore => "SMART before",
            Step::SelfTest(SelfTestKind::Short) => "short self-test",
            Step::SelfTest(SelfTestKind::Conveyance) => "conveyance self-test",
            Step::SelfTest(SelfTestKind::Long) => "long self-test",
            Step::Test(k) => k.row().burn_in.map_or(k.name(), |b| b.name),
            Step::Discard => "discard (TRIM/UNMAP)",
            Step::SmartAfter => "SMART after",
        }
    }

    /// The step's id in the JSON (`smart_before`, `seek_transfer`, ...).
    pub fn id(self) -> &'static str {
        match self {
            Step::SmartBefore => "smart_before",
            Step::SelfTest(SelfTestKind::Short) => "short_self_test",
            Step::SelfTest(SelfTestKind::Conveyance) => "conveyance_self_test",
            Step::SelfTest(SelfTestKind::Long) => "long_self_test",
            Step::Test(k) => k.row().burn_in.map_or(k.id(), |b| b.id),
            Step::Discard => "discard",
            Step::SmartAfter => "smart_after",
        }
    }

    /// The step of this JSON id.
    pub fn from_id(id: &str) -> Option<Step> {
        let fixed = [
            Step::SmartBefore,
            Step::SelfTest(SelfTestKind::Short),
            Step::SelfTest(SelfTestKind::Conveyance),
            Step::SelfTest(SelfTestKind::Long),
            Step::Discard,
            Step::SmartAfter,
        ];
        let tests = TestKind::ALL
            .into_iter()
            .filter(|k| k.row().burn_in.is_some())
            .map(Step::Test);
        fixed.into_iter().chain(tests).find(|s| s.id() == id)
    }
}

impl From<Step> for String {
    fn from(s: Step) -> String {
        s.id().into()
    }
}

impl TryFrom<String> for Step {
    type Error = String;
    fn try_from(id: String) -> Result<Step, String> {
        Step::from_id(&id).ok_or_else(|| format!("unknown burn-in step {id:?}"))
    }
}

/// How a step of one drive ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It ran to its end (its findings may still fail the drive).
    Done,
    /// It could not run to its end (why).
    Failed(String),
    /// Stopped by Ctrl-C: it runs again on `--resume`.
    Interrupted,
    /// Not run, and not a failure by itself (why: not in this build, not offered
    /// by the drive, too small).
    Skipped(String),
    /// Kept from the saved run given to `--resume` (it was done there).
    Resumed,
}

/// One step of one drive's burn-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Which step of the fixed burn-in sequence (SMART before, self-tests, the tests, ...).
    pub step: Step,
    /// How it ended.
    pub status: Status,
    /// How long it took, wall-clock seconds (a step kept by `--resume`: as the
    /// saved run recorded it; absent in runs saved before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// The step's request went unanswered and the drive was given up (a discard
    /// that hung): the step failed because the drive stopped answering.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

/// The burn-in of a whole run, saved in the JSON so that `--resume` can check it
/// is the same burn-in and say how to go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The command line that started it (the program name first).
    pub command: Vec<String>,
    /// The drives as named on the command line, in order.
    #[serde(default)]
    pub disks: Vec<String>,
    /// `--smr-check` was given too.
    #[serde(default)]
    pub smr_check: bool,
}
