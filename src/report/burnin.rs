//! The "Burn-in" block: each drive's steps and how they ended, then its verdict
//! with every finding. A pure function of the run.

use crate::burnin::{Status, StepRecord};
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
/// opened or was refused before its first step (its signature areas did not
/// answer, ...) has a block too, saying why it was not started.
pub fn render(run: &Run) -> String {
    let mut s = String::new();
    for d in (run.disks.iter()).filter(|d| !d.burn_in.is_empty() || d.error.is_some()) {
        s.push_str(&format!("\nBurn-in of {}:\n", d.name));
        if let (true, Some(e)) = (d.burn_in.is_empty(), &d.error) {
            s.push_str(&format!("  not started: {}\n", e.message()));
        }
        for r in &d.burn_in {
            s.push_str(&step_line(r));
        }
        if let Some(v) = &d.verdict {
            s.push_str(&verdict(v));
        }
    }
    s
}

/// "verdict: PASS" or "verdict: FAIL", then a line per finding (failing ones
/// first, the others after their severity).
pub fn verdict(v: &Verdict) -> String {
    let mut s = format!("  verdict: {}\n", v.word());
    for f in &v.findings {
        s.push_str(&format!("    - {}\n", super::compare::finding_line(f)));
    }
    s
}
