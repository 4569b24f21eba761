//! The verdicts of a run's disks, through the one judge ([`crate::verdict`]), the
//! comparison and burn-in blocks shown with them, and the exit status they call for.

use super::output::terminal_width;
use crate::compare::{self, Comparison};
use crate::config::{Config, Mode, Qualify};
use crate::report;
use crate::results::{DiskResult, Run, Verdict};
use crate::verdict::earlier::History;
use crate::verdict::{self, Judging};

/// Whether the run's disks are judged (--qualify, --burn-in): it then ends with
/// their verdicts' status.
pub(super) fn judged(cfg: &Config) -> bool {
    cfg.mode == Mode::Describe && (cfg.qualify.is_some() || cfg.burn_in.is_some())
}

/// What the end of a run (not interrupted) adds to it.
pub(super) struct Conclusion {
    /// The text printed after the run (the comparison, the burn-in's block);
    /// empty when there is none.
    pub(super) text: String,
    /// Whether the disks were compared or judged (their verdicts, if judged, are
    /// now in the run).
    pub(super) compared: bool,
    /// Whether the disks are judged (their verdicts then decide the exit status).
    pub(super) judged: bool,
}

/// After the last disk: compare the disks and judge them (--compare, --qualify,
/// --burn-in), putting each verdict in its disk, and render the text shown after
/// the run.
pub(super) fn conclude(
    cfg: &Config,
    run: &mut Run,
    baseline: Option<&Comparison>,
    history: &History,
) -> Conclusion {
    let judged = judged(cfg);
    let mut end = Conclusion {
        text: String::new(),
        compared: cfg.mode == Mode::Describe && (cfg.compare || judged),
        judged,
    };
    if end.compared {
        let disks: Vec<&DiskResult> = run.disks.iter().collect();
        let (cmp, verdicts) =
            comparison_and_verdicts(&disks, cfg.qualify.as_ref(), (baseline, history), judged);
        if cfg.compare {
            // A burn-in shows its verdicts, with every finding, in its own block.
            let shown: &[Verdict] = if cfg.burn_in.is_some() {
                &[]
            } else {
                &verdicts
            };
            end.text = format!(
                "\n{}",
                report::compare::render(&cmp, shown, terminal_width())
            );
        }
        for (d, v) in run.disks.iter_mut().zip(verdicts) {
            d.verdict = Some(v);
        }
    }
    if cfg.mode == Mode::Describe && cfg.burn_in.is_some() {
        end.text.push_str(&report::burnin::render(run));
    }
    end
}

/// After Ctrl-C: a --qualify run still puts each drive's verdict in the run, as
/// `compare --qualify` of the saved run gives it: a test interrupted leaves its
/// drive INCOMPLETE unless a finding of its own (SMART, a lying flush, bad
/// sectors) fails it. In a burn-in only the drives that finished every step
/// before Ctrl-C (`stopped` false) get theirs (PASS or FAIL on what they did);
/// the others have none until `--resume` completes them. The saved run, its
/// report, its metrics and the history then show the verdict the one judge
/// gave; the exit status stays Ctrl-C's.
pub(super) fn judge_stopped(
    cfg: &Config,
    run: &mut Run,
    (baseline, history): (Option<&Comparison>, &History),
    stopped: &[bool],
) {
    if !judged(cfg) {
        return;
    }
    let disks: Vec<&DiskResult> = run.disks.iter().collect();
    let (_, verdicts) =
        comparison_and_verdicts(&disks, cfg.qualify.as_ref(), (baseline, history), true);
    for (i, (d, v)) in run.disks.iter_mut().zip(verdicts).enumerate() {
        let unfinished_burn_in = cfg.burn_in.is_some() && stopped.get(i) != Some(&false);
        if !unfinished_burn_in {
            d.verdict = Some(v);
        }
    }
}

/// The comparison of the disks and, when they are judged (`qualify`, or a
/// burn-in, whose verdicts need no timings), each disk's verdict: its own
/// findings and, with --qualify, the batch comparison's.
pub(super) fn comparison_and_verdicts(
    disks: &[&DiskResult],
    qualify: Option<&Qualify>,
    (baseline, history): (Option<&Comparison>, &History),
    judged: bool,
) -> (Comparison, Vec<Verdict>) {
    let cmp = compare::compare(disks);
    if !judged {
        return (cmp, Vec::new());
    }
    let how = Judging {
        timings: qualify.is_some(),
        baseline,
        max_deviation: qualify.map_or(crate::results::settings::Deviation::DEFAULT, |q| {
            q.max_deviation
        }),
    };
    (cmp, verdict::qualify_with(disks, &how, history))
}
