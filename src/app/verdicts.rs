//! The verdicts of a run's disks, through the one judge ([`crate::verdict`]), and
//! the exit status they call for.

use super::status::{EXIT_OK, EXIT_QUALIFY};
use crate::compare::{self, Comparison};
use crate::config::Qualify;
use crate::results::{DiskResult, Verdict};
use crate::verdict::{self, Judging};

/// The comparison of the disks and, when they are judged (`qualify`, or a
/// burn-in, whose verdicts need no timings), each disk's verdict: its own
/// findings and, with --qualify, the batch comparison's.
pub(super) fn judge(
    disks: &[&DiskResult],
    qualify: Option<&Qualify>,
    baseline: Option<&Comparison>,
    judged: bool,
) -> (Comparison, Vec<Verdict>) {
    let cmp = compare::compare(disks);
    if !judged {
        return (cmp, Vec::new());
    }
    let how = Judging {
        timings: qualify.is_some(),
        baseline,
        max_deviation: qualify.map_or(crate::config::DEFAULT_MAX_DEVIATION / 100.0, |q| {
            q.max_deviation
        }),
    };
    (cmp, verdict::qualify(disks, &how))
}

/// The exit status of judged verdicts: 0 when every drive passed, 3 when one
/// failed (whatever the reason).
pub(super) fn status(verdicts: &[Verdict]) -> i32 {
    if verdicts.iter().all(|v| v.pass) {
        EXIT_OK
    } else {
        EXIT_QUALIFY
    }
}
