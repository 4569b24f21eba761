//! SMART's findings as the verdict's: each finding of the health rules
//! (`crate::smart::rules`, the failed self-tests among them) keeps its weight,
//! and SMART that could not be read fails the drive (as does a report the rules
//! say cannot be judged: `smart_unreadable`). A device without SMART adds
//! nothing.

use crate::results::{Code, Finding, Severity};
use crate::smart::record::SmartResult;
use crate::smart::rules::{Finding as Rule, Severity as Weight};

/// The verdict's findings of a disk's SMART result.
pub fn smart(s: &SmartResult) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(e) = &s.error {
        out.push(Finding::new(
            Severity::Fail,
            "smart",
            Code::SmartUnreadable,
            format!("SMART: {e}"),
        ));
    }
    out.extend(rules(&s.findings));
    out
}

/// The verdict's findings of the health rules' findings (`seekprobe smart`
/// judges a saved report with these alone).
pub fn rules(findings: &[Rule]) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in findings {
        let severity = match f.severity {
            Weight::Fail => Severity::Fail,
            Weight::Warn => Severity::Warning,
            Weight::Note => Severity::Note,
        };
        let code = if f.cannot_judge() {
            Code::SmartUnreadable
        } else if f.rule.starts_with("self-test") {
            Code::SelfTestFailed
        } else {
            Code::Smart
        };
        out.push(Finding::new(
            severity,
            "smart",
            code,
            format!("SMART: {}", f.reason),
        ));
    }
    out
}
