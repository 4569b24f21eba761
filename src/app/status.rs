//! The exit statuses seekprobe ends with (README, "Errors and exit status", and
//! docs/verdict.md hold the table for every command).

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
