//! A finding of the health rules: how much it weighs ([`Severity`]), why (a
//! reason with the figures) and the figure it is about ([`Figure`]). Plain data,
//! a leaf the rule files share; one judge turns a drive's findings into its
//! verdict.

use serde::{Deserialize, Serialize};

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// For information; the drive is not judged by it.
    Note,
    /// Worth a look, but not the drive's failure (e.g. a cable fault).
    Warn,
    /// The drive fails.
    Fail,
}

impl Severity {
    /// The word printed before the reason.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warn => "warning",
            Severity::Fail => "FAIL",
        }
    }
}

/// The figure a finding is about: which counter or field, its count, and where
/// it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figure {
    /// The counter or figure, e.g. "pending", "power-on-hours" (a `--threshold`
    /// name where there is one).
    pub counter: String,
    /// Its value (a count, hours, percent), when it is a number.
    pub count: Option<u64>,
    /// Where it was read, e.g. "ATA attribute 197, raw".
    pub source: String,
}

impl Figure {
    /// A figure.
    pub fn new(counter: &str, count: Option<u64>, source: &str) -> Figure {
        Figure {
            counter: counter.into(),
            count,
            source: source.into(),
        }
    }
}

/// One finding: how much it weighs, why, and the figure it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Its weight.
    pub severity: Severity,
    /// A short stable name for the rule, e.g. "smart-failing", "pending".
    pub rule: String,
    /// The reason, in words, with the figures.
    pub reason: String,
    /// The figure it is about (absent for a finding on no one figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Figure>,
}

impl Finding {
    /// A finding without a figure.
    pub fn new(severity: Severity, rule: &str, reason: String) -> Finding {
        Finding {
            severity,
            rule: rule.into(),
            reason,
            figure: None,
        }
    }

    /// The same, naming its figure.
    pub fn with(mut self, figure: Figure) -> Finding {
        self.figure = Some(figure);
        self
    }
}

/// Whether findings let the drive pass (nothing of severity Fail).
pub fn passes(findings: &[Finding]) -> bool {
    findings.iter().all(|f| f.severity != Severity::Fail)
}
