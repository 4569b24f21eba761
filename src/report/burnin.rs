//! The "Burn-in" block: each drive's steps and how they ended, then its verdict
//! with every finding. A pure function of the run.

use crate::results::burnin::{Status, StepRecord};
use crate::results::{Run, Verdict};

/// One step's line: its name and how it ended.
pub fn step_line(r: &StepRecord) -> String {
    format!("  {:<36} {}\n", r.step.name(), status(&r.status))
}

/// How a step ended, in words ("done", "FAILED: why", ...).
pub fn status(s: &Status) -> String {
    match s {
        Status::Done => "done".to_string(),
        Status::Resumed => "done (kept from the saved run)".to_string(),
        Status::Failed(why) => format!("FAILED: {why}"),
        Status::Interrupted => "interrupted".to_string(),
        Status::Skipped(why) => format!("skipped: {why}"),
    }
}

/// The block for a whole run: for each drive of the burn-in, its steps and its
/// verdict (the disk's, when the run got that far). A drive that could not be
/// opened or written has its block too, saying why it ran no step.
pub fn render(run: &Run) -> String {
    use crate::results::DiskFailure;
    let mut s = String::new();
    for d in &run.disks {
        s.push_str(&format!("\nBurn-in of {}:\n", d.name));
        for r in &d.burn_in {
            s.push_str(&step_line(r));
        }
        match (&d.error, d.burn_in.is_empty()) {
            // Why, in full, is the verdict's finding below.
            (Some(DiskFailure::Open(_)), true) => {
                s.push_str("  not burnt in: it could not be opened\n");
            }
            (Some(DiskFailure::Refused(_)), true) => {
                s.push_str("  not burnt in: writing to it was refused\n");
            }
            (Some(DiskFailure::NotTested(_)), true) => {
                s.push_str("  not burnt in: not tested (the verdict says why and what to do)\n");
            }
            (None, true) => s.push_str("  not burnt in: no step ran\n"),
            _ => {}
        }
        if let Some(v) = &d.verdict {
            s.push_str(&verdict(v));
        }
    }
    s
}

/// "verdict: " and the state (PASS, PASS with warnings, FAIL, NOT TESTED,
/// INCOMPLETE), then a line per finding (failing ones
/// first, the others after their severity).
pub fn verdict(v: &Verdict) -> String {
    let mut s = format!("  verdict: {}\n", v.word());
    for f in &v.findings {
        s.push_str(&format!("    - {}\n", super::compare::finding_line(f)));
    }
    s
}
