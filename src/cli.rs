//! The command line, as clap definitions only (also used for the man page and
//! shell completions).

use crate::report::Format;
use clap::Parser;

/// The synopsis, one line a form: `--help`'s "Usage:" and the usage printed after
/// a command line that cannot be used (one text, so they never differ).
pub const SYNOPSIS: &str = "seekprobe [-citSvw] [OPTIONS] disk ...
       seekprobe [-l] -p disk ...
       seekprobe [-l] -s disk ...
       seekprobe render FILE.json [--format diskinfo|table|json]
       seekprobe compare A.json B.json ... [--qualify] [--baseline FILE]
       seekprobe report RUN.json ... -o FILE.html
       seekprobe smart FILE.json [AFTER.json]
       seekprobe history [SERIAL | import FILE... | ack SERIAL CODE | unack SERIAL CODE]
       seekprobe generate man|bash|zsh|fish|elvish|powershell
       seekprobe help [SUBCOMMAND] | version";

/// The subcommands: the first argument that names one is not a disk.
pub const SUBCOMMANDS: [&str; 6] = [
    "render", "compare", "report", "generate", "smart", "history",
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
    if word.len() < 4 || !word.chars().all(|c| c.is_ascii_lowercase()) {
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
  seekprobe smart --new sdb-smartctl.json      judge a saved smartctl --json -x report
  seekprobe -t --smart --smart-test short,long --new --qualify /dev/sd[b-e]
                                  SMART before and after, self-tests, verdicts
  seekprobe history                the drives the drive history knows (docs/history.md)
  seekprobe history ack ZL2ABC12 smart   accept a drive's SMART counts until they change

Writes: nothing is written without -w. Even then a mounted or held disk is
refused, and one with a partition table or file-system signature needs --force.

Exit status: with --qualify or --burn-in, 0 when every drive passes its verdict,
3 when one fails (whatever the reason: a drive that cannot be opened fails), 4 when
none fails but one could not be judged whole (INCOMPLETE: run it again), 1 for
a command line or file that cannot be used. Without --qualify, 0 when every disk
was probed, 1 when one has a failing finding (the others are still probed): it
could not be opened, a test failed, sectors failed, a fake capacity. 130 after
Ctrl-C. The man page (seekprobe generate man) has every command's statuses.";

/// Measure how a disk really behaves: seek times, transfer rates over the zones and
/// command overhead, with FreeBSD diskinfo's exact output.
#[derive(Debug, Parser)]
#[command(name = "seekprobe", version, after_help = EXAMPLES)]
#[command(
    override_usage = SYNOPSIS
)]
pub struct Args {
    /// I/O command overhead test (implies -v)
    #[arg(short = 'c', long = "command-overhead")]
    pub command_overhead: bool,

    /// Seek and transfer test (implies -v)
    #[arg(short = 't', long = "seek-transfer")]
    pub seek_transfer: bool,

    /// Asynchronous random read IOPS test (implies -v)
    #[arg(short = 'i', long = "iops")]
    pub iops: bool,

    /// Synchronous random write test, a ZFS SLOG test (implies -v, requires -w):
    /// DESTROYS DATA on the disk
    #[arg(short = 'S', long = "sync-write")]
    pub sync_write: bool,

    /// Allow destructive write tests (-S, --verify, --capacity-check, --smr-check,
    /// --burn-in) and the write halves of --zones and --block-sweep; -p and -s accept
    /// it as diskinfo does
    #[arg(short = 'w', long = "write")]
    pub write: bool,

    /// With -w: write even though the disk carries a partition table or a file-system,
    /// RAID, LVM, ZFS, swap or LUKS signature (a mounted or held disk is refused anyway)
    #[arg(long)]
    pub force: bool,

    /// With -w: do not ask for confirmation (required when standard input is not a
    /// terminal)
    #[arg(long)]
    pub yes: bool,

    /// With -S or --capacity-check (and -w): read each block before overwriting it and
    /// write it back afterwards (untimed), also when interrupted. Refused beside a test
    /// that overwrites whole ranges (--zones or --block-sweep with -w, --verify,
    /// --smr-check, --burn-in)
    #[arg(long)]
    pub preserve: bool,

    /// Seed of the random offsets of -i and -S (random by default; recorded in the
    /// JSON results so a run can be repeated)
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// Seconds of flushed writes per size of -S (whole batches of 250 are written
    /// until this much has passed)
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub write_duration: f64,

    /// Requests kept in flight by -i
    #[arg(long, value_name = "N", default_value_t = crate::probe::iops::DEFAULT_QUEUE_DEPTH as u32)]
    pub queue_depth: u32,

    /// Seconds per request size of -i: new requests are issued while less than this
    /// has passed
    #[arg(long, value_name = "SECONDS", default_value_t = crate::probe::iops::DEFAULT_DURATION.as_secs_f64())]
    pub duration: f64,

    /// Print the fields one per line with a comment
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool,

    /// Print only the physical path of the disk
    #[arg(short = 'p', long = "physical-path")]
    pub physical_path: bool,

    /// Print only the disk ident (usually the serial number)
    #[arg(short = 's', long = "ident")]
    pub ident: bool,

    /// With -p or -s: prefix each line with the device name and a tab
    #[arg(short = 'l', long = "with-name")]
    pub with_name: bool,

    /// Seconds to pause before each timed line, as diskinfo's sync(), sleep, sync(),
    /// sync(); 0 (the default) only syncs. diskinfo sleeps 1 s (about 10 s per -t):
    /// --settle 1 does the same. Raise it on drives that need to settle after a burst
    /// (e.g. to let a write-back finish)
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub settle: f64,

    /// Output format: diskinfo's text (printed live), a table with percentiles, or JSON
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format,

    /// Print the whole run as JSON instead of text (same as --format json)
    #[arg(long)]
    pub json: bool,

    /// Also write the whole run as JSON to FILE (rewritten after each disk, so a late
    /// failure loses nothing); `seekprobe render FILE` prints it again
    #[arg(long, value_name = "FILE")]
    pub json_file: Option<std::path::PathBuf>,

    /// Also write the qualification report, one self-contained HTML page, to FILE
    /// (rewritten after each disk, as --json-file is); see docs/report.md
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<std::path::PathBuf>,

    /// Who runs it: recorded in the run and shown in the report (free text)
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String>,

    /// The ticket, order or job the run belongs to: recorded in the run and shown
    /// in the report (free text)
    #[arg(long, value_name = "ID")]
    pub ticket: Option<String>,

    /// The transfer rate at N evenly spaced positions over the whole device (a zone
    /// curve; N defaults to 100). Write the number with =, as --zones=50
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = "100")]
    pub zones: Option<u32>,

    /// Bytes read at each position of --zones (reduced on small devices)
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_bytes)]
    pub zone_size: u64,

    /// Access time over seek distance (log-scale bins from 1 MiB to the full stroke),
    /// the seek times derived from it, and the rotation rate measured
    #[arg(long)]
    pub seek_profile: bool,

    /// Timed reads at random distances for --seek-profile (the rotation, the track map,
    /// the full and a third of the stroke and the hops of 1 to 64 tracks take 2688 more)
    #[arg(long, value_name = "N", default_value_t = crate::probe::seek_profile::DEFAULT_SAMPLES)]
    pub seek_samples: u32,

    /// A read-only surface scan: every block once, latencies bucketed, unreadable
    /// and slow ranges listed by sector; exit status 1 when sectors are unreadable
    #[arg(long)]
    pub scan: bool,

    /// Bytes per request of --scan and --verify
    #[arg(long, value_name = "SIZE", default_value = "1M", value_parser = parse_bytes)]
    pub block_size: u64,

    /// Where --scan or --verify starts (bytes; K, M, G, T suffixes), to resume part
    /// of a drive
    #[arg(long, value_name = "OFFSET", value_parser = parse_bytes)]
    pub start: Option<u64>,

    /// Where --scan or --verify ends (bytes; K, M, G, T suffixes)
    #[arg(long, value_name = "OFFSET", value_parser = parse_bytes)]
    pub end: Option<u64>,

    /// Blocks at least this slow are listed by --scan and --verify
    #[arg(long, value_name = "MS", default_value_t = 50.0)]
    pub slow_ms: f64,

    /// Give a request to a drive up after this long without an answer (seconds),
    /// in every test, the checks before them and smartctl's runs; that drive is
    /// then given up and the run goes on
    #[arg(long, value_name = "SECS", default_value_t = crate::device::watched::DEFAULT_TIMEOUT_S)]
    pub io_timeout: f64,

    /// ATTO-style: sequential reads from the start for request sizes from 4 KiB to
    /// 8 MiB, one at a time and --queue-depth deep
    #[arg(long)]
    pub block_sweep: bool,

    /// With -w: is the drive as big as it says? Stamps a few hundred blocks over
    /// the whole reported size, reads them back, and says how much really stores
    /// data (fake flash); exit status 1 when it stores less
    #[arg(long)]
    pub capacity_check: bool,

    /// Seconds of queued reads per size of --block-sweep
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0)]
    pub sweep_duration: f64,

    /// Hidden-SMR behaviour test (requires -w): sustained random writes until the
    /// write rate collapses as a drive-managed SMR cache does, or the budget runs out;
    /// then idle-time read probes. DESTROYS DATA on the disk
    #[arg(long)]
    pub smr_check: bool,

    /// Read-only path check of the drives named, run together by the check itself:
    /// each drive's sequential rate and seek stress alone, then with every drive at
    /// once, drives grouped by their path (controller, expander, PCIe link); says
    /// whether a loss is the path's (a note) or one drive's (a warning)
    #[arg(long)]
    pub path_check: bool,

    /// The budget of --smr-check: bytes and/or time, whichever comes first, e.g.
    /// 40G,30m (the default), 8G, 10m; times end in s, m (minutes) or h, sizes in
    /// K, M, G, T
    #[arg(long, value_name = "SIZE,TIME", value_parser = parse_smr_budget)]
    pub smr_budget: Option<crate::results::smr::Budget>,

    /// Seconds --smr-check leaves the disk idle before its read probes (which then
    /// come 2 s apart, or closer after a shorter idle); 0 probes at once
    #[arg(long, value_name = "SECONDS", default_value_t = crate::probe::smr::IDLE_S)]
    pub smr_idle: f64,

    /// Draw the zone curve with the access times over the disk, the scan map, and the
    /// write rate of --smr-check, to an SVG file (with --zones, --seek-profile, --scan,
    /// --smr-check or --burn-in)
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,

    /// Also write the run's figures in Prometheus' text format to FILE, for
    /// node_exporter's textfile collector (rewritten atomically after each disk)
    #[arg(long, value_name = "FILE.prom")]
    pub prometheus: Option<std::path::PathBuf>,

    /// After the disks, a table comparing them: a column per disk, a row per figure,
    /// each figure's deviation from the group median
    #[arg(long)]
    pub compare: bool,

    /// Qualification's options (--qualify, --max-deviation, --baseline).
    #[command(flatten)]
    pub judge: JudgeArgs,

    /// No progress bar on standard error
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Probe the disks at the same time, exposing controller or backplane contention
    /// (the text of each disk is printed when all are done, in order)
    #[arg(long)]
    pub parallel: bool,

    /// Destructive (with -w): write stamped content to every block of the range
    /// (--start, --end, --block-size as for --scan), flush, read it all back and
    /// check it; failed sectors listed by kind (unwritable, unreadable, corrupt,
    /// misdirected, stale); exit status 1 when any failed
    #[arg(long)]
    pub verify: bool,

    /// Passes of --verify, each with fresh content
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub passes: u32,

    /// Write the blocks --verify found bad to FILE in badblocks' format (one block
    /// number a line), for mke2fs -l / e2fsck -l; one disk per run
    #[arg(long, value_name = "FILE")]
    pub bad_blocks: Option<std::path::PathBuf>,

    /// The block size of the --bad-blocks list in bytes: the file system's block
    /// size (badblocks' -b)
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    pub bad_blocks_size: u32,
    /// The whole burn-in in one command (requires -w; DESTROYS DATA): SMART before,
    /// the short and conveyance self-tests, -t, --zones, on rotating drives a short
    /// flushed-write step (-S) and the write-verify pass, on flash the capacity
    /// check, the write-verify pass and a discard (TRIM), the long self-test, SMART
    /// after, and a verdict per drive with every reason. With --json-file the run is
    /// saved after each step
    #[arg(long)]
    pub burn_in: bool,

    /// --burn-in: do not discard (TRIM/UNMAP) a flash drive after its write-verify
    /// pass (by default it is discarded, so it starts clean)
    #[arg(long)]
    pub no_discard: bool,

    /// Continue an interrupted --burn-in saved in FILE.json (by --json-file): the
    /// steps each drive completed are kept, the rest run; FILE.json is rewritten
    /// unless --json-file names another file. Without FILE.json (written last, or
    /// before --): the newest unfinished burn-in saved without --json-file
    #[arg(long, value_name = "FILE.json", num_args = 0..=1, default_missing_value = "-")]
    pub resume: Option<std::path::PathBuf>,

    /// With --resume: go on although the drive list changed (drives added, removed,
    /// or another drive under a saved name, each named when refused); the changed
    /// drives start their burn-in afresh
    #[arg(long)]
    pub resume_changed: bool,

    /// Start a new burn-in although --json-file holds an unfinished one (which
    /// --resume would continue); the old file is kept beside it as FILE.json.old-N
    #[arg(long)]
    pub new_run: bool,

    /// Off a terminal (a log, Ansible, systemd), a status line per drive this often
    /// while it works, beside a line as each step starts and ends (seconds, or with
    /// an s, m or h suffix)
    #[arg(long, value_name = "TIME", default_value = "10m", value_parser = parse_interval)]
    pub status_interval: std::time::Duration,
    /// Read the drive's SMART health through smartctl before the tests and after
    /// them: a "SMART health" block, what changed, and the health rules' findings
    /// (with --qualify they join the verdict). Needs smartctl (smartmontools) except
    /// for simulated drives; a device without SMART gets a one-line note
    #[arg(long)]
    pub smart: bool,

    /// Run the drive's own self-test (short, conveyance or long; several in order,
    /// repeated or comma-separated) before the other tests, following it to its end;
    /// implies --smart. A kind the drive does not offer is skipped with a note;
    /// Ctrl-C aborts it on the drive
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = crate::results::smart::SelfTestKind::parse)]
    pub smart_test: Vec<crate::results::smart::SelfTestKind>,

    /// The SMART health rules' options (--new, --threshold).
    #[command(flatten)]
    pub smart_rules: SmartRuleArgs,

    /// During a --burn-in (or --verify, --scan, --smr-check with --smart): the drive's
    /// temperature limit in °C (default: the drive's own, else 60). Above it a
    /// warning, and the drive's writes (a real drive's --scan and --verify: all its
    /// requests) pause until it is 5 °C below
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    pub max_temp: Option<i64>,

    /// The drive history database (--history FILE, --no-history; docs/history.md).
    #[command(flatten)]
    pub history: HistoryFileArgs,

    /// Disks: device paths (/dev/sdb), short names (sdb, da0), image files, or
    /// simulated drives (sim:hdd, sim:hdd5400, sim:ssd, sim:nvme)
    #[arg(value_name = "DISK", required = true)]
    pub disks: Vec<String>,
}

/// `seekprobe render FILE.json`: print a saved run again, without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe render", bin_name = "seekprobe render", version)]
pub struct RenderArgs {
    /// A run saved with --json or --json-file (- for standard input)
    #[arg(value_name = "FILE.json")]
    pub file: std::path::PathBuf,

    /// Output format
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format,

    /// Also draw the saved run's plots to an SVG file
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,

    /// Also write the saved run's figures in Prometheus' text format to a file
    #[arg(long, value_name = "FILE.prom")]
    pub prometheus: Option<std::path::PathBuf>,
}

/// `seekprobe compare A.json B.json ...`: compare saved runs (each may hold several
/// disks), without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe compare", bin_name = "seekprobe compare", version)]
pub struct CompareArgs {
    /// Runs saved with --json or --json-file
    #[arg(value_name = "FILE.json", required = true)]
    pub files: Vec<std::path::PathBuf>,

    /// Qualification's options (--qualify, --max-deviation, --baseline).
    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Print the comparison (and verdicts) as JSON, for machines (docs/json.md)
    #[arg(long)]
    pub json: bool,

    /// With --history FILE: judge a model with too few drives here against its
    /// earlier drives in FILE (saved runs are recorded by `history import`, not here).
    #[command(flatten)]
    pub history: HistoryFileArgs,
}

/// `seekprobe report RUN.json... -o report.html`: the qualification report of saved
/// runs, one self-contained HTML page, without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe report", bin_name = "seekprobe report", version)]
pub struct ReportArgs {
    /// Runs saved with --json or --json-file (one host's run, a burn-in, or many
    /// hosts' runs; - for standard input)
    #[arg(value_name = "RUN.json", required = true)]
    pub files: Vec<std::path::PathBuf>,

    /// Where to write the page
    #[arg(short, long, value_name = "FILE.html")]
    pub output: std::path::PathBuf,

    /// With --history FILE: each drive's section lists its earlier runs in FILE.
    #[command(flatten)]
    pub history: HistoryFileArgs,
}

/// What `seekprobe generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generated {
    /// The man page (roff), e.g. `seekprobe generate man > seekprobe.1`
    Man,
    /// bash completions
    Bash,
    /// zsh completions
    Zsh,
    /// fish completions
    Fish,
    /// elvish completions
    Elvish,
    /// PowerShell completions
    Powershell,
}

/// `seekprobe generate man|bash|zsh|fish|...`: the man page or shell completions,
/// generated from these definitions.
#[derive(Debug, Parser)]
#[command(name = "seekprobe generate", bin_name = "seekprobe generate", version)]
pub struct GenerateArgs {
    /// What to print
    #[arg(value_enum)]
    pub what: Generated,
}

/// A byte count with an optional binary suffix: `4096`, `64M`, `1.5G`, `2T`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'P' => 1 << 50,
                _ => return Err(format!("{s:?}: unknown suffix {c:?} (use K, M, G, T or P)")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: not a number of bytes (e.g. 4096, 64M, 1.5G)"))?;
    let bytes = v * mult as f64;
    if !(v.is_finite() && v >= 0.0 && bytes < u64::MAX as f64) {
        return Err(format!("{s:?}: out of range"));
    }
    Ok(bytes as u64)
}

/// The budget of `--smr-check`: comma-separated parts, each a size (`40G`, as
/// [`parse_bytes`]) or a time (`30m`, `90s`, `1.5h`: lowercase s, m or h); a part
/// not given keeps its default.
pub fn parse_smr_budget(s: &str) -> Result<crate::results::smr::Budget, String> {
    let mut b = crate::results::smr::Budget::default();
    let (mut size, mut time) = (false, false);
    for part in s.split(',').map(str::trim) {
        let unit = match part.chars().last() {
            Some('s') => Some(1.0),
            Some('m') => Some(60.0),
            Some('h') => Some(3600.0),
            _ => None,
        };
        if let Some(unit) = unit {
            let v: f64 = part[..part.len() - 1].parse().map_err(|_| {
                format!("{part:?}: not a time (e.g. 30m, 90s, 1.5h) or a size (e.g. 40G)")
            })?;
            let secs = v * unit;
            if time || !(secs.is_finite() && secs > 0.0 && secs <= 7.0 * 86400.0) {
                return Err(format!("{s:?}: one time from 1s to 168h, e.g. 40G,30m"));
            }
            (b.seconds, time) = (secs, true);
        } else {
            let bytes = parse_bytes(part)?;
            if size || bytes < 1 << 20 {
                return Err(format!("{s:?}: one size of at least 1M, e.g. 40G,30m"));
            }
            (b.bytes, size) = (bytes, true);
        }
    }
    Ok(b)
}

/// A time between status lines: seconds (`90`), or with a lowercase s, m or h
/// suffix (`30s`, `10m`, `1h`); from 1 s to a day.
pub fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let (num, unit) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1.0),
        Some('m') => (&t[..t.len() - 1], 60.0),
        Some('h') => (&t[..t.len() - 1], 3600.0),
        _ => (t, 1.0),
    };
    let secs = num
        .parse::<f64>()
        .ok()
        .map(|v| v * unit)
        .filter(|v| v.is_finite() && (1.0..=86400.0).contains(v))
        .ok_or_else(|| format!("{s:?}: a time from 1s to 24h (e.g. 90s, 10m, 1h)"))?;
    Ok(std::time::Duration::from_secs_f64(secs))
}

/// Qualification options, shared by the probing command and `compare`.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// Judge the disks (implies --compare): a disk fails when a figure deviates from
    /// the group median, or from --baseline, by more than --max-deviation. Exit
    /// status 3 when one fails
    #[arg(long)]
    pub qualify: bool,

    /// With --qualify: the largest deviation a figure may have, in percent (15 by
    /// default)
    #[arg(long, value_name = "PERCENT")]
    pub max_deviation: Option<f64>,

    /// With --qualify: judge against a known-good run saved with --json-file
    #[arg(long, value_name = "FILE.json")]
    pub baseline: Option<std::path::PathBuf>,
}

/// `seekprobe smart FILE.json [AFTER.json]`: judge a saved smartctl report
/// without a drive.
#[derive(Debug, Parser)]
#[command(name = "seekprobe smart", bin_name = "seekprobe smart", version)]
#[command(
    after_help = "Exit status: 0 healthy, 3 failing, 1 when a report cannot be read or judged (it holds no SMART data, or smartctl could not read the drive)."
)]
pub struct SmartArgs {
    /// A report saved with `smartctl --json -x DEVICE` (- for standard input)
    #[arg(value_name = "FILE.json")]
    pub file: std::path::PathBuf,

    /// A second report of the same drive, taken after a run: the changes are shown
    /// and counters that rose fail the drive
    #[arg(value_name = "AFTER.json")]
    pub after: Option<std::path::PathBuf>,

    /// The SMART health rules' options (--new, --threshold).
    #[command(flatten)]
    pub rules: SmartRuleArgs,

    /// The drive history database (--history FILE, --no-history; docs/history.md).
    #[command(flatten)]
    pub history: HistoryFileArgs,
}

/// The SMART health rules' options.
#[derive(Debug, clap::Args)]
pub struct SmartRuleArgs {
    /// The drive is new: any reallocated, uncorrectable, grown-defect, media-error
    /// or command-timeout count, power-on hours above --new-max-hours, power
    /// cycles, load cycles or host writes above their limits, any wear and any
    /// past self-test failure fail it
    #[arg(long)]
    pub new: bool,

    /// With --new: the power-on hours a new drive may have
    #[arg(long, value_name = "HOURS", default_value_t = crate::smart::rules::DEFAULT_NEW_MAX_HOURS)]
    pub new_max_hours: u64,

    /// Tolerate up to N of a counter (on any drive, so a warning or FAIL moves), and
    /// a rise of up to N during a run. NAME is one of reallocated,
    /// reallocation-events, pending, offline-uncorrectable, reported-uncorrectable,
    /// grown-defects, uncorrected, media-errors, command-timeouts, crc (default 0),
    /// and for --new power-cycles (20), load-cycles (100), host-writes-gib (64);
    /// repeat the option for several
    #[arg(long = "threshold", value_name = "NAME=N", value_parser = crate::smart::rules::Counter::parse_threshold)]
    pub thresholds: Vec<(crate::smart::rules::Counter, u64)>,
}

impl SmartRuleArgs {
    /// The rules' options.
    pub fn options(&self) -> crate::smart::RuleOptions {
        crate::smart::RuleOptions {
            new_drive: self.new,
            thresholds: crate::smart::rules::Thresholds {
                limits: self.thresholds.clone(),
            },
            new_max_hours: self.new_max_hours,
        }
    }
}

/// Which drive history database a command uses (docs/history.md).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HistoryFileArgs {
    /// The drive history database to record in and judge with, instead of the
    /// default (root: /var/lib/seekprobe/history.db; others:
    /// $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a
    /// serial or model are recorded only in a file named here
    #[arg(long, value_name = "FILE", global = true)]
    pub history: Option<std::path::PathBuf>,

    /// Record nothing in the drive history, and judge without it
    #[arg(long, conflicts_with = "history", global = true)]
    pub no_history: bool,
}

/// How `seekprobe history` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HistoryFormat {
    /// A text table.
    Table,
    /// JSON, for machines (docs/history.md).
    Json,
}

/// `seekprobe history [SERIAL]`: the drives the history database knows, or one
/// drive's runs; `import`, `ack` and `unack`.
#[derive(Debug, Parser)]
#[command(name = "seekprobe history", bin_name = "seekprobe history", version)]
#[command(args_conflicts_with_subcommands = true)]
pub struct HistoryArgs {
    /// What to do (without one: list the drives, or SERIAL's runs).
    #[command(subcommand)]
    pub action: Option<HistoryAction>,

    /// A drive's serial number: its runs, oldest first (verdicts, key figures,
    /// SMART counters, temperatures)
    #[arg(value_name = "SERIAL")]
    pub serial: Option<String>,

    /// Output format
    #[arg(
        long,
        value_enum,
        default_value = "table",
        value_name = "FORMAT",
        global = true
    )]
    pub format: HistoryFormat,

    /// The drive history database (--history FILE, --no-history).
    #[command(flatten)]
    pub file: HistoryFileArgs,
}

/// The actions of `seekprobe history`.
#[derive(Debug, clap::Subcommand)]
pub enum HistoryAction {
    /// Import runs saved with --json-file and other hosts' history databases (a
    /// run already there is skipped)
    Import {
        /// Saved runs (FILE.json) or history databases
        #[arg(value_name = "FILE", required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Accept the findings with CODE (as docs/verdict.md names it, e.g. smart) of
    /// the drive's last run at their current figures: later runs show them
    /// acknowledged and do not judge them until the figure changes
    Ack {
        /// The drive's serial number
        serial: String,
        /// The finding's code
        code: String,
    },
    /// Undo `ack`: the findings with CODE are judged again
    Unack {
        /// The drive's serial number
        serial: String,
        /// The finding's code
        code: String,
    },
}
