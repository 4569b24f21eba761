//! Findings and the one judge (docs/verdict.md). Each kind of test's results
//! yield findings through one pure function ([`test_findings`] lists them), the
//! batch comparison adds its own ([`batch`]), and [`judge`] turns a drive's
//! findings into its verdict: FAIL when any finding fails it, PASS otherwise. No
//! other code decides whether a drive failed; every output shows this verdict.
//!
//! Adding a kind of finding: its [`Code`] in `results/verdict.rs` (and its line
//! in docs/verdict.md), and the function that makes it, called from
//! [`test_findings`] (a test's results) or [`disk_findings`] (the disk's).

pub mod batch;
mod checks;
mod sectors;
mod smart;

pub use crate::results::{Code, Finding, Severity, Verdict};
pub use checks::test_id;
pub use sectors::span;

use crate::results::{DiskResult, TestResult};

/// The findings of one test's results: how it ended, then what it found.
pub fn test_findings(t: &TestResult) -> Vec<Finding> {
    let mut f = checks::outcome(t);
    f.extend(t.scan.iter().flat_map(sectors::scan));
    f.extend(t.verify.iter().flat_map(sectors::verify));
    f.extend(t.capacity.iter().flat_map(checks::capacity));
    f.extend(t.smr.iter().flat_map(checks::smr));
    f
}

/// Every finding of a drive's own results (without the batch comparison): the
/// drive could not be opened, each test's, SMART's, the SMR signs, the burn-in's
/// steps.
pub fn disk_findings(d: &DiskResult) -> Vec<Finding> {
    let mut f = checks::opened(d.error.as_ref());
    f.extend(d.tests.iter().flat_map(test_findings));
    f.extend(d.smart.iter().flat_map(smart::smart));
    f.extend(checks::smr_signs(&d.smr_signs));
    f.extend(checks::burn_in(&d.burn_in));
    f
}

/// THE judge: a drive fails when any of its findings fails it. The findings are
/// kept, failing ones first, then warnings, then notes (each in the order found).
pub fn judge(mut findings: Vec<Finding>) -> Verdict {
    findings.sort_by_key(|f| f.severity);
    Verdict {
        pass: findings.iter().all(|f| f.severity != Severity::Fail),
        findings,
    }
}

/// A drive's verdict: the one saved with it (--qualify, --burn-in), else
/// [`unqualified`]'s. Reporters and exit statuses read verdicts here.
pub fn of(d: &DiskResult) -> Verdict {
    d.verdict.clone().unwrap_or_else(|| unqualified(d))
}

/// The verdict of a drive in a run without --qualify or --burn-in (its exit
/// status 1, `seekprobe_disk_failed`): the judge of its own findings but those of
/// SMART's health rules and of the SMR check, which judge a drive only when it is
/// qualified (SMART that could not be read still fails it).
pub fn unqualified(d: &DiskResult) -> Verdict {
    let qualifying_only = |c: Code| {
        matches!(
            c,
            Code::Smart
                | Code::SelfTestFailed
                | Code::HiddenSmr
                | Code::SmrCannotTell
                | Code::SmrSign
        )
    };
    judge(
        disk_findings(d)
            .into_iter()
            .filter(|f| !qualifying_only(f.code))
            .collect(),
    )
}

/// How the batch is judged: against whom, and how far a figure may stray.
#[derive(Debug, Clone, Copy)]
pub struct Judging<'a> {
    /// Compare the timings (--qualify); without it only the drives' own findings
    /// count (a burn-in without --qualify).
    pub timings: bool,
    /// The known-good run's figures (--baseline).
    pub baseline: Option<&'a crate::compare::Comparison>,
    /// The largest deviation a figure may have (0.15 = 15%).
    pub max_deviation: f64,
}

/// Every drive's verdict, in order: its own findings ("nothing to judge" when no
/// test ran) and, when timings are judged, the batch comparison's.
pub fn qualify(disks: &[&DiskResult], how: &Judging<'_>) -> Vec<Verdict> {
    let own: Vec<Vec<Finding>> = disks
        .iter()
        .map(|d| {
            let mut f = disk_findings(d);
            f.extend(checks::nothing_to_judge(d));
            f
        })
        .collect();
    let mut extra = if how.timings {
        let ids: Vec<batch::Identity> = disks.iter().map(|d| batch::identity(d)).collect();
        batch::findings(disks, &ids, &own, how.baseline, how.max_deviation)
    } else {
        vec![Vec::new(); disks.len()]
    };
    own.into_iter()
        .zip(extra.iter_mut())
        .map(|(mut f, e)| {
            f.append(e);
            judge(f)
        })
        .collect()
}
