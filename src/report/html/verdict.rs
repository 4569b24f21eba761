//! The verdict as the page shows it, read through one adapter ([`drive_verdict`]),
//! and the drive's temperature samples through one accessor ([`temperatures`]),
//! so that a change of the data model is followed in one place.

use crate::results::{DiskResult, Outcome, Run};

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
    /// Its weight.
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
    /// The findings that fail the drive.
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

/// The verdict of `disk` in `run`: the run's own verdict when it was judged
/// (--qualify, --burn-in: `Run::verdicts`, its reasons and warnings word for word),
/// else `DiskResult::failed` with the reasons the results give (the error, failed
/// or skipped tests, failed burn-in steps, unreadable or failed sectors, a fake
/// capacity, SMART's findings). The one place the page reads a verdict.
pub fn drive_verdict(run: &Run, disk: &DiskResult) -> ViewVerdict {
    use ViewSeverity::*;
    if let Some(v) = run.verdicts.iter().find(|v| v.disk == disk.name) {
        let mut findings: Vec<ViewFinding> = v
            .reasons
            .iter()
            .map(|r| finding(Fail, "", r.clone()))
            .collect();
        findings.extend(v.warnings.iter().map(|w| finding(Warning, "", w.clone())));
        // A verdict that fails without a reason still says so.
        if !v.pass && !findings.iter().any(|f| f.severity == Fail) {
            findings.insert(0, finding(Fail, "", "the run's verdict is FAIL".into()));
        }
        return ViewVerdict {
            pass: v.pass,
            findings,
        };
    }
    let mut findings = Vec::new();
    if let Some(e) = &disk.error {
        findings.push(finding(Fail, "", format!("not probed: {e}")));
    }
    for r in disk.burn_in.iter().filter_map(crate::burnin::reason) {
        findings.push(finding(Fail, "burn-in", r));
    }
    for t in &disk.tests {
        let name = t.test.name();
        match &t.outcome {
            Outcome::Failed(why) => findings.push(finding(Fail, name, why.clone())),
            Outcome::Skipped(why) => findings.push(finding(Fail, name, format!("skipped: {why}"))),
            Outcome::Complete | Outcome::Interrupted => {}
        }
        if let Some(s) = t.scan.as_ref().filter(|s| s.error_blocks > 0) {
            findings.push(finding(
                Fail,
                name,
                format!("{} blocks could not be read", s.error_blocks),
            ));
        }
        if let Some(n) = t
            .verify
            .as_ref()
            .map(|v| v.failed_sectors())
            .filter(|&n| n > 0)
        {
            findings.push(finding(
                Fail,
                name,
                format!("{n} sectors failed the write and read-back"),
            ));
        }
        if let Some(r) = t
            .capacity
            .as_ref()
            .and_then(|c| crate::compare::fake_reason(&c.conclusion))
        {
            findings.push(finding(Fail, name, r));
        }
    }
    if let Some(s) = &disk.smart {
        if let Some(e) = &s.error {
            findings.push(finding(Fail, "SMART", e.clone()));
        }
        for f in &s.findings {
            let sev = match f.severity {
                crate::smart::rules::Severity::Fail => Fail,
                crate::smart::rules::Severity::Warn => Warning,
                crate::smart::rules::Severity::Note => Note,
            };
            findings.push(finding(sev, "SMART", f.reason.clone()));
        }
    }
    let pass = !disk.failed();
    if !pass && !findings.iter().any(|f| f.severity == Fail) {
        findings.insert(0, finding(Fail, "", "the results say it failed".into()));
    }
    findings.sort_by_key(|f| std::cmp::Reverse(f.severity));
    ViewVerdict { pass, findings }
}

/// One temperature reading during the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TempSample {
    /// When, in seconds since the drive's run started.
    pub at_s: f64,
    /// The drive's temperature, °C.
    pub celsius: f64,
}

/// The drive's temperatures over the run, oldest first; empty when none were
/// recorded. The results do not record them yet (a list per drive is coming
/// with SMART's sampling): this is the one place to read them from then.
pub fn temperatures(_disk: &DiskResult) -> Vec<TempSample> {
    Vec::new()
}
