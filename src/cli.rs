//! The command line, as clap definitions only (also used for the man page and
//! shell completions).

mod option;
mod probe;
mod shared;
mod subcommands;
mod values;

pub use option::{Applies, BesideId, Decl, Opt, Range};
pub use probe::{Args, DEFAULT_ZONES};
pub use shared::{DEFAULT_MAX_DEVIATION, HistoryFileArgs, JudgeArgs, SmartRuleArgs};
pub use subcommands::*;
pub use values::*;

/// The synopsis, one line a form: `--help`'s "Usage:" and the usage printed after
/// a command line that cannot be used (one text, so they never differ).
pub const SYNOPSIS: &str = "seekprobe [-citSvw] [OPTIONS] disk ...
       seekprobe [-l] -p disk ...
       seekprobe [-l] -s disk ...
       seekprobe render FILE.json [--format diskinfo|table|json]
       seekprobe compare A.json B.json ... [--qualify] [--baseline FILE]
       seekprobe report RUN.json ... -o FILE.html
       seekprobe smart FILE.json [AFTER.json]
       seekprobe plan RUN.json ... --layout L [--spares N] [--for zfs|mdadm]
       seekprobe history [SERIAL | import FILE... | ack SERIAL CODE | unack SERIAL CODE]
       seekprobe sign RUN.json --key KEY
       seekprobe verify-record RUN.json [--allowed-signers FILE]
       seekprobe generate man|bash|zsh|fish|elvish|powershell
       seekprobe help [SUBCOMMAND] | version";

/// What `--version` prints after the name: the version and the git commit built
/// from, or that it is unknown (build.rs).
pub const VERSION: &str = env!("SEEKPROBE_VERSION");

/// The subcommands: the first argument that names one is not a disk.
pub const SUBCOMMANDS: [&str; 9] = [
    "render",
    "compare",
    "report",
    "generate",
    "smart",
    "history",
    "plan",
    "sign",
    "verify-record",
];

/// The subcommand a first argument that names none was probably meant to be
/// (`rendr`, `comapre`: at most two letters off, as clap suggests options), for an
/// argument that is no path, short device name or simulated drive.
pub fn meant_subcommand(word: &str) -> Option<&'static str> {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut prev = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cur = row[j + 1];
                row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
                prev = cur;
            }
        }
        row[b.len()]
    }
    // Lower-case letters, and hyphens inside (`verify-recrod`), never an option.
    if word.len() < 4
        || word.starts_with('-')
        || !word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
    {
        return None;
    }
    SUBCOMMANDS
        .into_iter()
        .filter(|s| *s != word)
        .map(|s| (distance(word, s), s))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, s)| s)
}

/// `--help`'s examples and notes (the man page's EXAMPLES too).
pub const EXAMPLES: &str = "\
Examples:
  seekprobe -tv /dev/sdb          diskinfo's seek and transfer test, exact text
  seekprobe -ctv da0              short names are looked up under /dev/
  seekprobe /dev/sda /dev/sdb     one line per disk: sizes and geometry
  seekprobe -l -s /dev/sd?        serial numbers, prefixed by the device name
  seekprobe -tv sim:hdd           a simulated 7200 rpm drive (no disk needed)
  seekprobe -tv 'sim:hdd?rpm=5400&seed=2'
  seekprobe -i /dev/nvme0n1       random read IOPS, 128 requests in flight
  seekprobe -Sw --yes /dev/sdc    flushed random writes (a ZFS SLOG test): destroys data
  seekprobe -t --json-file run.json /dev/sdb   text now, JSON for later
  seekprobe render run.json --format table     render a saved run again
  seekprobe -t --qualify --parallel /dev/sd[b-e]   judge a batch of new drives
  seekprobe compare host1.json host2.json      compare runs saved on many hosts
  seekprobe report run.json -o report.html     the batch's qualification report, one HTML page
  seekprobe sign run.json --key ~/.ssh/id_ed25519   sign the record (run.json.sig, docs/record.md)
  seekprobe verify-record run.json --allowed-signers allowed_signers
                                  who signed it, and each drive's identity and verdict
  seekprobe smart --new sdb-smartctl.json      judge a saved smartctl --json -x report
  seekprobe -t --smart --smart-test short,long --new --qualify /dev/sd[b-e]
                                  SMART before and after, self-tests, verdicts
  seekprobe history                the drives the drive history knows (docs/history.md)
  seekprobe history ack ZL2ABC12 smart   accept a drive's SMART counts until they change
  seekprobe plan burnin.json --layout raidz2:6 --spares 1
                                  the zpool create command for the drives that passed (docs/plan.md)

Writes: nothing is written without -w. Even then a mounted or held disk is
refused, and one with a partition table or file-system signature needs --force.

Exit status: with --qualify or --burn-in, 0 when every drive passes its verdict,
3 when one fails (whatever the reason: a drive that cannot be opened fails), 4 when
none fails but one could not be judged whole (INCOMPLETE: run it again), 1 for
a command line or file that cannot be used. Without --qualify, 0 when every disk
was probed, 1 when one has a failing finding (the others are still probed): it
could not be opened, a test failed, sectors failed, a fake capacity. 130 after
Ctrl-C. The man page (seekprobe generate man) has every command's statuses.";
