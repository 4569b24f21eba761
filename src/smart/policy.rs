//! What a run asks of SMART (`--smart`, `--smart-test`) and which findings of what
//! it found fail the drive or are worth a look. What it found on one disk is plain
//! data in the results (re-exported here): a disk's result holds it,
//! `report::smart` renders it, `compare` turns its failing findings into
//! qualification reasons.

use super::health_rules::RuleOptions;
use crate::results::smart::{SelfTestKind, SmartResult};
use crate::results::{Finding, Severity};

/// What a run asks of SMART (checked options).
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// How long one smartctl run may take before it is killed (`--io-timeout`,
    /// as every request to the drive).
    pub smartctl_limit: std::time::Duration,
}

impl Default for SmartSettings {
    /// Nothing asked; smartctl held to [`super::smartctl::DEFAULT_TIMEOUT`].
    fn default() -> SmartSettings {
        SmartSettings {
            read: false,
            self_tests: Vec::new(),
            rules: RuleOptions::default(),
            max_temp: None,
            smartctl_limit: super::smartctl::DEFAULT_TIMEOUT,
        }
    }
}

impl SmartSettings {
    /// Whether SMART is asked for at all.
    pub fn wanted(&self) -> bool {
        self.read || !self.self_tests.is_empty()
    }
}

impl SmartResult {
    /// Whether the health was read, so its rules could judge the drive.
    pub fn judged(&self) -> bool {
        self.before.is_some() || self.after.is_some()
    }

    /// The findings of severity Fail, in the record's order.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Fail)
    }

    /// The findings worth a look that do not fail it (a cable fault).
    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
    }
}
