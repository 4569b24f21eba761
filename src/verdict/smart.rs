//! SMART's findings as the verdict's: each finding of the health rules
//! (`crate::smart::health_rules`, the failed self-tests among them) keeps its weight,
//! and SMART that could not be read fails the drive (as does a report the rules
//! say cannot be judged: `smart_unreadable`). A device without SMART adds
//! nothing here (`checks::nothing_to_judge` says it was not read).

use crate::results::smart::SmartResult;
use crate::results::{Code, Finding, Severity};

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
/// judges a saved report with these alone): each keeps its severity and code,
/// its reason says SMART, and the rule and figure stay with SMART's result.
pub fn rules(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .map(|f| Finding::new(f.severity, "smart", f.code, format!("SMART: {}", f.reason)))
        .collect()
}
