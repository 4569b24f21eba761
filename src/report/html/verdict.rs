//! The verdict as the page shows it, read through one adapter ([`drive_verdict`]),
//! and the drive's temperature samples through one accessor ([`temperatures`]),
//! so that a change of the data model is followed in one place.

use crate::results::{DiskResult, Run, Severity};

/// How much a finding weighs on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ViewSeverity {
    /// For information.
    Note,
    /// Worth a look; the drive does not fail by it.
    Warning,
    /// The drive fails.
    Fail,
}

impl ViewSeverity {
    /// The word shown before the reason, as the text prints it.
    pub fn label(self) -> &'static str {
        match self {
            ViewSeverity::Note => "note",
            ViewSeverity::Warning => "warning",
            ViewSeverity::Fail => "FAIL",
        }
    }

    /// The CSS class of its row.
    pub fn class(self) -> &'static str {
        match self {
            ViewSeverity::Note => "note",
            ViewSeverity::Warning => "warn",
            ViewSeverity::Fail => "fail",
        }
    }
}

/// One finding: its weight, the test it comes from (empty when the verdict does
/// not say) and the reason with its figures, word for word as the text has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewFinding {
    /// Fail, warning or note: sets the item's class (colour) on the page.
    pub severity: ViewSeverity,
    /// The test it comes from, when known.
    pub test: String,
    /// The reason, with its figures.
    pub reason: String,
}

/// A drive's verdict on the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewVerdict {
    /// Whether it passed.
    pub pass: bool,
    /// Every finding, failures first.
    pub findings: Vec<ViewFinding>,
}

impl ViewVerdict {
    /// The findings of severity Fail, in the verdict's order.
    pub fn failures(&self) -> impl Iterator<Item = &ViewFinding> {
        self.findings
            .iter()
            .filter(|f| f.severity == ViewSeverity::Fail)
    }
}

fn finding(severity: ViewSeverity, test: &str, reason: String) -> ViewFinding {
    ViewFinding {
        severity,
        test: test.to_string(),
        reason,
    }
}

/// The verdict of `disk` as the one judge gives it (`crate::verdict::of`: the
/// verdict saved with the run under --qualify or --burn-in, else the judge of the
/// drive's own findings), every finding word for word. The one place the page
/// reads a verdict.
pub fn drive_verdict(_run: &Run, disk: &DiskResult) -> ViewVerdict {
    let v = crate::verdict::of(disk);
    let findings = v
        .findings
        .iter()
        .map(|f| {
            let severity = match f.severity {
                Severity::Fail => ViewSeverity::Fail,
                Severity::Warning => ViewSeverity::Warning,
                Severity::Note => ViewSeverity::Note,
            };
            finding(severity, &f.test, f.reason.clone())
        })
        .collect();
    ViewVerdict {
        pass: v.pass,
        findings,
    }
}

/// One temperature reading during the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TempSample {
    /// When, in seconds since the drive's run started.
    pub at_s: f64,
    /// The drive's temperature, °C.
    pub celsius: f64,
}

/// The drive's temperatures over the run, oldest first (SMART's log of long
/// work, `smart.temperature`); empty when none were recorded. The one place the
/// page reads them.
pub fn temperatures(disk: &DiskResult) -> Vec<TempSample> {
    let log = disk.smart.as_ref().and_then(|s| s.temperature.as_ref());
    log.map(|l| {
        l.samples
            .iter()
            .map(|s| TempSample {
                at_s: s.at_s as f64,
                celsius: s.celsius as f64,
            })
            .collect()
    })
    .unwrap_or_default()
}
