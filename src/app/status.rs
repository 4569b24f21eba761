//! The exit statuses seekprobe ends with (README, "Errors and exit status", and
//! docs/verdict.md hold the table for every command), and the one function that
//! picks one: from how the command ended and its verdicts, never from what
//! happened to standard output (a closed pipe drops the text, not the status).

use crate::results::{State, Verdict};

/// Exit status: every drive passed (or, without --qualify, was probed with no
/// failing finding); a subcommand wrote its output.
pub const EXIT_OK: i32 = 0;
/// Exit status: a command line or an input file that cannot be used, an output
/// that cannot be written; without --qualify, a disk with a failing finding.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status: a judged drive failed its verdict (--qualify, --burn-in,
/// `compare --qualify`), or `seekprobe smart` found a failing drive.
pub const EXIT_QUALIFY: i32 = 3;
/// Exit status: no judged drive failed, but not every drive could be judged (a
/// test interrupted or one the drive is too small for: INCOMPLETE; left
/// untested by seekprobe or the operator: NOT TESTED): run it again.
pub const EXIT_INCOMPLETE: i32 = 4;
/// Exit status after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// How a command ended, as far as its exit status goes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ending<'a> {
    /// The command line, an input file or an output could not be used (or written).
    Unusable,
    /// A subcommand, the help or the version wrote its output.
    Written,
    /// A signal stopped the run: its number (SIGINT 2 after Ctrl-C, SIGTERM 15,
    /// SIGHUP 1), as the run's [`crate::device::Stop`] recorded it.
    Interrupted(i32),
    /// The drives were judged (--qualify, --burn-in, `compare --qualify`,
    /// `seekprobe smart`): their verdicts.
    Judged(&'a [Verdict]),
    /// A probing run without verdicts: whether a disk had a failing finding.
    Probed {
        /// A disk had a failing finding (or a -p/-s line it has no value for).
        failing: bool,
    },
    /// A probing run, as it ended: [`exit_status`] picks among the endings above.
    Run {
        /// The signal that stopped it, if one did.
        signal: Option<i32>,
        /// Its end files (--json-file, --html, --prometheus, ...) were written.
        written: bool,
        /// A disk had a failing finding, or a file could not be saved or a -p/-s
        /// line had no value (in a judged run, only the latter).
        failed: bool,
        /// The verdicts, when the disks were judged (--qualify, --burn-in).
        verdicts: Option<&'a [Verdict]>,
    },
}

/// The exit status a command ends with: the one place that decides it.
pub(super) fn exit_status(ending: Ending<'_>) -> i32 {
    match ending {
        Ending::Unusable => EXIT_FAILURE,
        Ending::Written => EXIT_OK,
        // 128 + the signal's number: 130 after Ctrl-C, 143 after SIGTERM, 129 after
        // SIGHUP.
        Ending::Interrupted(signal) => 128 + signal,
        // A drive that failed decides (send it back), then one that could not be
        // judged whole (run it again).
        Ending::Judged(verdicts) if verdicts.iter().any(|v| v.state == State::Fail) => EXIT_QUALIFY,
        Ending::Judged(verdicts) if verdicts.iter().all(|v| v.state.passes()) => EXIT_OK,
        Ending::Judged(_) => EXIT_INCOMPLETE,
        Ending::Probed { failing: true } => EXIT_FAILURE,
        Ending::Probed { failing: false } => EXIT_OK,
        Ending::Run {
            signal,
            written,
            failed,
            verdicts,
        } => exit_status(match (signal, verdicts) {
            (Some(signal), _) => Ending::Interrupted(signal),
            // A judged run fails (status 1) only for a file it could not write
            // (or a -p/-s line it has no value for): `failed` holds nothing else then.
            _ if !written => Ending::Unusable,
            (None, Some(_)) if failed => Ending::Unusable,
            (None, Some(verdicts)) => Ending::Judged(verdicts),
            (None, None) => Ending::Probed { failing: failed },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_decide_a_judged_run() {
        let v = |state: State| Verdict {
            state,
            findings: Vec::new(),
        };
        let (pass, warned) = (v(State::Pass), v(State::PassWithWarnings));
        let (fail, incomplete) = (v(State::Fail), v(State::Incomplete));
        let judged = |vs: &[Verdict]| exit_status(Ending::Judged(vs));
        assert_eq!(judged(std::slice::from_ref(&pass)), EXIT_OK);
        assert_eq!(judged(&[pass.clone(), warned.clone()]), EXIT_OK);
        assert_eq!(judged(&[pass.clone(), fail.clone()]), EXIT_QUALIFY);
        // Send it back before run it again.
        assert_eq!(judged(&[incomplete.clone(), fail]), EXIT_QUALIFY);
        assert_eq!(
            judged(&[pass.clone(), warned.clone(), incomplete]),
            EXIT_INCOMPLETE
        );
        // Not tested (a signature, a device held): run it again, never 3.
        let untested = v(State::NotTested);
        assert_eq!(judged(&[pass, warned, untested.clone()]), EXIT_INCOMPLETE);
        assert_eq!(judged(&[untested, v(State::Fail)]), EXIT_QUALIFY);
        assert_eq!(judged(&[]), EXIT_OK);
        assert_eq!(exit_status(Ending::Unusable), EXIT_FAILURE);
        assert_eq!(exit_status(Ending::Interrupted(2)), EXIT_INTERRUPTED);
        assert_eq!(exit_status(Ending::Interrupted(15)), 143);
        assert_eq!(exit_status(Ending::Interrupted(1)), 129);
        assert_eq!(exit_status(Ending::Probed { failing: true }), EXIT_FAILURE);
    }

    #[test]
    fn a_run_s_status_the_signal_first_then_its_files_then_its_verdicts() {
        let incomplete = [Verdict {
            state: State::Incomplete,
            findings: Vec::new(),
        }];
        let run = |signal, written, failed, verdicts| {
            exit_status(Ending::Run {
                signal,
                written,
                failed,
                verdicts,
            })
        };
        let judged = Some(&incomplete[..]);
        assert_eq!(run(Some(2), false, true, judged), EXIT_INTERRUPTED);
        assert_eq!(run(Some(15), true, false, None), 143);
        assert_eq!(run(None, false, false, judged), EXIT_FAILURE);
        assert_eq!(run(None, true, true, judged), EXIT_FAILURE);
        assert_eq!(run(None, true, false, judged), EXIT_INCOMPLETE);
        assert_eq!(run(None, true, true, None), EXIT_FAILURE);
        assert_eq!(run(None, true, false, None), EXIT_OK);
    }
}
