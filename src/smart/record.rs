//! What `--smart` and `--smart-test` found on one disk during a probing run, as
//! plain serialisable data (a disk's result holds it; `report::smart` renders it;
//! `compare` turns its failing findings into qualification reasons), and the
//! settings that ask for it.

use super::health::Health;
use super::rules::{Finding, RuleOptions, Severity};
use super::selftest::SelfTestKind;
use serde::{Deserialize, Serialize};

/// What a run asks of SMART (checked options).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SmartSettings {
    /// Read the health before the tests and after them (`--smart`, implied by
    /// `--smart-test`).
    pub read: bool,
    /// Self-tests to run, in order, before the other tests (`--smart-test`).
    pub self_tests: Vec<SelfTestKind>,
    /// The health rules' options (`--new`, `--threshold`).
    pub rules: RuleOptions,
    /// The temperature limit of long work (`--max-temp`; None: the drive's own,
    /// else 60 °C).
    pub max_temp: Option<i64>,
}

impl SmartSettings {
    /// Whether SMART is asked for at all.
    pub fn wanted(&self) -> bool {
        self.read || !self.self_tests.is_empty()
    }
}

/// How one asked-for self-test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelfTestOutcome {
    /// Completed without error.
    Passed,
    /// The drive found an error (the first error's LBA when it says).
    Failed,
    /// Aborted by something other than seekprobe (a reset, another program).
    Aborted,
    /// Ctrl-C: seekprobe aborted it on the drive.
    Interrupted,
    /// Not run: the drive does not offer this kind, or it has no SMART.
    Skipped,
}

/// One self-test asked for with `--smart-test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfTestRecord {
    /// The kind.
    pub kind: SelfTestKind,
    /// How it ended.
    pub outcome: SelfTestOutcome,
    /// The drive's log entry in smartctl's words ("Completed: read failure"), or
    /// why it was skipped.
    pub status: String,
    /// The LBA of the first error, for a failed test when the drive says.
    #[serde(default)]
    pub first_error_lba: Option<u64>,
    /// How long it ran (the drive's clock: real time, or a simulated drive's
    /// virtual time), in seconds.
    #[serde(default)]
    pub elapsed_s: f64,
}

/// What SMART said about one disk during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartResult {
    /// The health read before the tests (None: no SMART, or it could not be read).
    pub before: Option<Health>,
    /// The health read after them (None when the run stopped before).
    pub after: Option<Health>,
    /// The self-tests asked for, in the order they ran.
    pub self_tests: Vec<SelfTestRecord>,
    /// The health rules' findings (before against after, and the self-tests).
    pub findings: Vec<Finding>,
    /// The device has no SMART: the one-line note (never a failure by itself).
    pub note: Option<String>,
    /// SMART could not be read or a self-test not started: why (the disk fails).
    pub error: Option<String>,
    /// The drive's temperatures during long work (a burn-in, --verify,
    /// --smr-check), with the pauses of its writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<super::temperature::TemperatureLog>,
}

impl SmartResult {
    /// Whether the health was read, so its rules could judge the drive.
    pub fn judged(&self) -> bool {
        self.before.is_some() || self.after.is_some()
    }

    /// The findings that fail the drive.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Fail)
    }

    /// The findings worth a look that do not fail it (a cable fault).
    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warn)
    }
}
