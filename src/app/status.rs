//! The exit statuses seekprobe ends with (README, "Errors and exit status").

/// Exit status: every disk probed.
pub const EXIT_OK: i32 = 0;
/// Exit status: a disk failed, or the command line was wrong.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status: a drive failed qualification (--qualify).
pub const EXIT_QUALIFY: i32 = 3;
/// Exit status after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;
