//! Verdicts: the comparison and qualification of disks, and the burn-in's verdict.

use super::status::{EXIT_OK, EXIT_QUALIFY};
use crate::compare::{self, Verdict};
use crate::config::Qualify;
use crate::results::DiskResult;

/// Compare disks and, with qualification settings (and a baseline already loaded),
/// judge them: the comparison, the verdicts, and the exit status they call for (0
/// or 3).
pub(super) fn judge(
    disks: &[&DiskResult],
    qualify: Option<&Qualify>,
    baseline: Option<&compare::Comparison>,
) -> (compare::Comparison, Vec<Verdict>, i32) {
    let cmp = compare::compare(disks);
    let Some(q) = qualify else {
        return (cmp, Vec::new(), EXIT_OK);
    };
    let verdicts = compare::qualify(&cmp, disks, baseline, q.max_deviation);
    let code = if verdicts.iter().all(|v| v.pass) {
        EXIT_OK
    } else {
        EXIT_QUALIFY
    };
    (cmp, verdicts, code)
}

/// The burn-in's verdict of each disk: the timing verdicts of --qualify (when
/// given) with the reasons of every failed step added; a disk that could not be
/// probed fails.
pub(super) fn burn_in_verdicts(disks: &[DiskResult], timing: Vec<Verdict>) -> Vec<Verdict> {
    disks
        .iter()
        .map(|d| {
            let mut reasons: Vec<String> = Vec::new();
            if let Some(e) = &d.error {
                reasons.push(format!("not probed: {e}"));
            }
            reasons.extend(d.burn_in.iter().filter_map(crate::burnin::reason));
            let mut warnings = Vec::new();
            compare::smart_reasons(d.smart.as_ref(), &mut reasons, &mut warnings);
            if let Some(t) = timing.iter().find(|v| v.disk == d.name) {
                for r in &t.reasons {
                    if !reasons.iter().any(|x| x.ends_with(r.as_str())) {
                        reasons.push(r.clone());
                    }
                }
                for w in &t.warnings {
                    if !warnings.contains(w) {
                        warnings.push(w.clone());
                    }
                }
            }
            Verdict {
                disk: d.name.clone(),
                pass: reasons.is_empty(),
                reasons,
                warnings,
            }
        })
        .collect()
}
