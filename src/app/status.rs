//! The exit statuses seekprobe ends with (README, "Errors and exit status", and
//! docs/verdict.md hold the table for every command), and the one function that
//! picks one: from how the command ended and its verdicts, never from what
//! happened to standard output (a closed pipe drops the text, not the status).

use crate::results::Verdict;

/// Exit status: every drive passed (or, without --qualify, was probed with no
/// failing finding); a subcommand wrote its output.
pub const EXIT_OK: i32 = 0;
/// Exit status: a command line or an input file that cannot be used, an output
/// that cannot be written; without --qualify, a disk with a failing finding.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status: a judged drive failed its verdict (--qualify, --burn-in,
/// `compare --qualify`), or `seekprobe smart` found a failing drive.
pub const EXIT_QUALIFY: i32 = 3;
/// Exit status after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

/// How a command ended, as far as its exit status goes.
#[derive(Debug, Clone, Copy)]
pub(super) enum Ending<'a> {
    /// The command line, an input file or an output could not be used (or written).
    Unusable,
    /// A subcommand, the help or the version wrote its output.
    Written,
    /// Ctrl-C stopped the run.
    Interrupted,
    /// The drives were judged (--qualify, --burn-in, `compare --qualify`,
    /// `seekprobe smart`): their verdicts.
    Judged(&'a [Verdict]),
    /// A probing run without verdicts: whether a disk had a failing finding.
    Probed {
        /// A disk had a failing finding (or a -p/-s line it has no value for).
        failing: bool,
    },
}

/// The exit status a command ends with: the one place that decides it.
pub(super) fn exit_status(ending: Ending<'_>) -> i32 {
    match ending {
        Ending::Unusable => EXIT_FAILURE,
        Ending::Written => EXIT_OK,
        Ending::Interrupted => EXIT_INTERRUPTED,
        Ending::Judged(verdicts) if verdicts.iter().all(|v| v.pass) => EXIT_OK,
        Ending::Judged(_) => EXIT_QUALIFY,
        Ending::Probed { failing: true } => EXIT_FAILURE,
        Ending::Probed { failing: false } => EXIT_OK,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_decide_a_judged_run() {
        let pass = Verdict {
            pass: true,
            findings: Vec::new(),
        };
        let fail = Verdict {
            pass: false,
            findings: Vec::new(),
        };
        assert_eq!(
            exit_status(Ending::Judged(std::slice::from_ref(&pass))),
            EXIT_OK
        );
        assert_eq!(exit_status(Ending::Judged(&[pass, fail])), EXIT_QUALIFY);
        assert_eq!(exit_status(Ending::Judged(&[])), EXIT_OK);
        assert_eq!(exit_status(Ending::Unusable), EXIT_FAILURE);
        assert_eq!(exit_status(Ending::Interrupted), EXIT_INTERRUPTED);
        assert_eq!(exit_status(Ending::Probed { failing: true }), EXIT_FAILURE);
    }
}
