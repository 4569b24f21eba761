//! The probing command's arguments (`seekprobe [OPTIONS] DISK...`).

use super::option::{Applies, Decl, Opt, Range, options};
use super::shared::{HistoryFileArgs, JudgeArgs, SmartRuleArgs};
use super::values::{parse_bytes, parse_interval, parse_millis, parse_seconds, parse_smr_budget};
use super::{EXAMPLES, SYNOPSIS};
use crate::report::Format;
use crate::results::settings::{MAX_BLOCK_SIZE, MAX_PASSES, MAX_QUEUE_DEPTH, QueueDepth};
use clap::Parser;

options! {
/// Measure how a disk really behaves: seek times, transfer rates over the zones and
/// command overhead, with FreeBSD diskinfo's exact output.
#[derive(Debug, Parser)]
#[command(name = "seekprobe", version = super::VERSION, after_help = EXAMPLES)]
#[command(override_usage = SYNOPSIS)]
pub struct Args {
    /// I/O command overhead test (implies -v)
    #[arg(short = 'c', long = "command-overhead")]
    pub command_overhead: bool => Opt::test().diskinfo(),

    /// Seek and transfer test (implies -v)
    #[arg(short = 't', long = "seek-transfer")]
    pub seek_transfer: bool => Opt::test().diskinfo(),

    /// Asynchronous random read IOPS test (implies -v)
    #[arg(short = 'i', long = "iops")]
    pub random_reads: bool => Opt::test().diskinfo(),

    /// Synchronous random write test, a ZFS SLOG test (implies -v, requires -w):
    /// DESTROYS DATA on the disk
    #[arg(short = 'S', long = "sync-write")]
    pub sync_write: bool => Opt::test().diskinfo(),

    /// Allow destructive write tests (-S, --verify, --capacity-check, --smr-check,
    /// --burn-in) and the write halves of --zones and --block-sweep; -p and -s accept
    /// it as diskinfo does
    #[arg(short = 'w', long = "write")]
    pub write: bool => Opt::writing(&["physical_path", "ident"]).beside_id(),

    /// With -w: write even though the disk carries a partition table or a file-system,
    /// RAID, LVM, ZFS, swap or LUKS signature (a mounted or held disk is refused anyway)
    #[arg(long)]
    pub force: bool => Opt::writing(&[]).with_w(),

    /// With -w: do not ask for confirmation (required when standard input is not a
    /// terminal)
    #[arg(long)]
    pub yes: bool => Opt::writing(&[]).with_w(),

    /// With -S or --capacity-check (and -w): read each block before overwriting it and
    /// write it back afterwards (untimed), also when interrupted. Refused beside a test
    /// that overwrites whole ranges (--zones or --block-sweep with -w, --verify,
    /// --smr-check, --burn-in)
    #[arg(long)]
    pub preserve: bool => Opt::new(Applies::Restoring),

    /// Seed of the random offsets of -i and -S (random by default; recorded in the
    /// JSON results so a run can be repeated)
    #[arg(long, value_name = "N")]
    pub seed: Option<u64> =>
        Opt::tunes(&["random_reads", "sync_write", "seek_profile", "smr_check"]),

    /// Seconds of flushed writes per size of -S (whole batches of 250 are written
    /// until this much has passed) (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = 1.0)]
    pub write_duration: f64 => Opt::tunes(&["sync_write"]).range(Range::seconds_from_ms(0)),

    /// Requests kept in flight by -i
    #[arg(long, value_name = "N", default_value_t = QueueDepth::DISKINFO.get())]
    pub queue_depth: u32 => Opt::tunes(&["random_reads", "block_sweep"])
        .range(Range::count(1, MAX_QUEUE_DEPTH as i64)),

    /// Seconds per request size of -i: new requests are issued while less than this
    /// has passed (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = 3.0)]
    pub duration: f64 => Opt::tunes(&["random_reads"]).range(Range::seconds_from_ms(1)),

    /// Print the fields one per line with a comment
    #[arg(short = 'v', long = "verbose")]
    pub verbose: bool => Opt::alone().diskinfo(),

    /// Print only the physical path of the disk
    #[arg(short = 'p', long = "physical-path")]
    pub physical_path: bool => Opt::alone().beside_id(),

    /// Print only the disk ident (usually the serial number)
    #[arg(short = 's', long = "ident")]
    pub ident: bool => Opt::alone().beside_id(),

    /// With -p or -s: prefix each line with the device name and a tab
    #[arg(short = 'l', long = "with-name")]
    pub with_name: bool => Opt::with(&["physical_path", "ident"]).beside_id(),

    /// Seconds to pause before each timed line, as diskinfo's sync(), sleep, sync(),
    /// sync(); 0 (the default) only syncs. diskinfo sleeps 1 s (about 10 s per -t):
    /// --settle 1 does the same. Raise it on drives that need to settle after a burst
    /// (e.g. to let a write-back finish) (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = 0.0)]
    pub settle: f64 => Opt::tunes(&[
        "command_overhead", "seek_transfer", "random_reads", "sync_write", "zones",
        "seek_profile", "block_sweep", "verify", "capacity_check", "smr_check",
    ])
    .and_burn_in()
    .range(Range::seconds_from_ms(0)),

    /// Output format: diskinfo's text (printed live), a table with percentiles, or JSON
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format => Opt::alone(),

    /// Print the whole run as JSON instead of text (same as --format json)
    #[arg(long)]
    pub json: bool => Opt::alone(),

    /// Also write the whole run as JSON to FILE (rewritten after each disk, so a late
    /// failure loses nothing); `seekprobe render FILE` prints it again
    #[arg(long, value_name = "FILE")]
    pub json_file: Option<std::path::PathBuf> => Opt::alone(),

    /// Also write the qualification report, one self-contained HTML page, to FILE
    /// (rewritten after each disk, as --json-file is); see docs/report.md
    #[arg(long, value_name = "FILE.html")]
    pub html: Option<std::path::PathBuf> => Opt::alone(),

    /// Who runs it: recorded in the run and shown in the report (free text)
    #[arg(long, value_name = "NAME")]
    pub operator: Option<String> => Opt::alone(),

    /// The ticket, order or job the run belongs to: recorded in the run and shown
    /// in the report (free text)
    #[arg(long, value_name = "ID")]
    pub ticket: Option<String> => Opt::alone(),

    /// Sign the run file (--json-file, or a burn-in's own file) with this ed25519
    /// SSH key once the run ends: FILE.sig beside it, which `ssh-keygen -Y verify
    /// -n seekprobe-record` and `seekprobe verify-record` check (docs/record.md).
    /// An OpenSSH private key file, or its .pub when an ssh-agent (SSH_AUTH_SOCK)
    /// holds it; checked before anything runs
    #[arg(long, value_name = "KEY")]
    pub sign_key: Option<std::path::PathBuf> => Opt::with(&["json_file", "burn_in"]),

    /// The transfer rate at N evenly spaced positions over the whole device (a zone
    /// curve; N defaults to 100). Write the number with =, as --zones=50
    #[arg(long, value_name = "N", num_args = 0..=1, require_equals = true, default_missing_value = DEFAULT_ZONES)]
    pub zones: Option<u32> => Opt::test().range(Range::count(1, 100_000)),

    /// Bytes read at each position of --zones (reduced on small devices)
    #[arg(long, value_name = "SIZE", default_value = "64M", value_parser = parse_bytes)]
    pub zone_size: u64 => Opt::tunes(&["zones"]).and_burn_in().range(Range::Bytes),

    /// Access time over seek distance (log-scale bins from 1 MiB to the full stroke),
    /// the seek times derived from it, and the rotation rate measured
    #[arg(long)]
    pub seek_profile: bool => Opt::test(),

    /// Timed reads at random distances for --seek-profile (the rotation, the track map,
    /// the full and a third of the stroke and the hops of 1 to 64 tracks take 2688 more)
    #[arg(long, value_name = "N", default_value_t = 760)]
    pub seek_samples: u32 => Opt::tunes(&["seek_profile"]).range(Range::count(1, 1_000_000)),

    /// A read-only surface scan: every block once, latencies bucketed, unreadable
    /// and slow ranges listed by sector; exit status 1 when sectors are unreadable
    #[arg(long)]
    pub scan: bool => Opt::test(),

    /// Bytes per request of --scan and --verify
    #[arg(long, value_name = "SIZE", default_value = "1M", value_parser = parse_bytes)]
    pub block_size: u64 => Opt::tunes(&["scan", "verify"])
        .range(Range::Sectors { max: Some(MAX_BLOCK_SIZE as u64) }),

    /// Where --scan or --verify starts (bytes; KiB, MiB, GiB, TiB or K, M, G, T;
    /// kB, MB, GB, TB are powers of 1000), to resume part of a drive
    #[arg(long, value_name = "OFFSET", value_parser = parse_bytes)]
    pub start: Option<u64> => Opt::tunes(&["scan", "verify"]).range(Range::Sectors { max: None }),

    /// Where --scan or --verify ends (bytes, in the units of --start)
    #[arg(long, value_name = "OFFSET", value_parser = parse_bytes)]
    pub end: Option<u64> => Opt::tunes(&["scan", "verify"]).range(Range::Sectors { max: None }),

    /// Blocks at least this slow are listed by --scan and --verify
    #[arg(long, value_name = "MS", value_parser = parse_millis, default_value_t = 50.0)]
    pub slow_ms: f64 => Opt::tunes(&["scan", "verify"]).range(Range::Millis { max: 3_600_000 }),

    /// Give a request to a drive up after this long without an answer (seconds),
    /// in every test, the checks before them and smartctl's runs; that drive is
    /// then given up and the run goes on (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = crate::device::watched::DEFAULT_TIMEOUT_S)]
    pub io_timeout: f64 => Opt::any_run().range(Range::seconds_from_ms(100)),

    /// ATTO-style: sequential reads from the start for request sizes from 4 KiB to
    /// 8 MiB, one at a time and --queue-depth deep
    #[arg(long)]
    pub block_sweep: bool => Opt::test(),

    /// With -w: is the drive as big as it says? Stamps a few hundred blocks over
    /// the whole reported size, reads them back, and says how much really stores
    /// data (fake flash); exit status 1 when it stores less
    #[arg(long)]
    pub capacity_check: bool => Opt::test(),

    /// Seconds of queued reads per size of --block-sweep (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = 1.0)]
    pub sweep_duration: f64 => Opt::tunes(&["block_sweep"]).range(Range::seconds_from_ms(0)),

    /// Hidden-SMR behaviour test (requires -w): sustained random writes until the
    /// write rate collapses as a drive-managed SMR cache does, or the budget runs out;
    /// then idle-time read probes. DESTROYS DATA on the disk
    #[arg(long)]
    pub smr_check: bool => Opt::test(),

    /// Read-only path check of the drives named, run together by the check itself:
    /// each drive's sequential rate and seek stress alone, then with every drive at
    /// once, drives grouped by their path (controller, expander, PCIe link); says
    /// whether a loss is the path's (a note) or one drive's (a warning)
    #[arg(long)]
    pub path_check: bool => Opt::test(),

    /// The budget of --smr-check: bytes and/or time, whichever comes first, e.g.
    /// 40G,30m (the default), 8G, 10m; times end in s, m (minutes) or h, sizes in
    /// K, M, G, T
    #[arg(long, value_name = "SIZE,TIME", value_parser = parse_smr_budget)]
    pub smr_budget: Option<crate::results::smr::Budget> => Opt::tunes(&["smr_check"]),

    /// Seconds --smr-check leaves the disk idle before its read probes (which then
    /// come 2 s apart, or closer after a shorter idle); 0 probes at once (TIME: seconds, or
    /// with a unit: 500ms, 30s, 10m, 1h)
    #[arg(long, value_name = "TIME", value_parser = parse_seconds, default_value_t = crate::test_plans::smr::IDLE_S)]
    pub smr_idle: f64 => Opt::tunes(&["smr_check"]).range(Range::seconds_from_ms(0)),

    /// Draw the zone curve with the access times over the disk, the scan map, and the
    /// write rate of --smr-check, to an SVG file (with --zones, --seek-profile, --scan,
    /// --smr-check or --burn-in)
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf> => Opt::new(Applies::Plotted),

    /// Also write the run's figures in Prometheus' text format to FILE, for
    /// node_exporter's textfile collector (rewritten atomically after each disk)
    #[arg(long, value_name = "FILE.prom")]
    pub prometheus: Option<std::path::PathBuf> => Opt::alone(),

    /// After the disks, a table comparing them: a column per disk, a row per figure,
    /// each figure's deviation from the group median
    #[arg(long)]
    pub compare: bool => Opt::any_run(),

    /// Qualification's options (--qualify, --max-deviation, --baseline).
    #[command(flatten)]
    pub judge: JudgeArgs => Decl::Group(JudgeArgs::declared),

    /// No progress bar on standard error
    #[arg(short = 'q', long)]
    pub quiet: bool => Opt::any_run(),

    /// Probe the disks at the same time, exposing controller or backplane contention
    /// (the text of each disk is printed when all are done, in order)
    #[arg(long)]
    pub parallel: bool => Opt::any_run(),

    /// Destructive (with -w): write stamped content to every block of the range
    /// (--start, --end, --block-size as for --scan), flush, read it all back and
    /// check it; failed sectors listed by kind (unwritable, unreadable, corrupt,
    /// misdirected, stale); exit status 1 when any failed
    #[arg(long)]
    pub verify: bool => Opt::test(),

    /// Passes of --verify, each with fresh content
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub passes: u32 => Opt::tunes(&["verify"]).and_burn_in().range(Range::count(1, MAX_PASSES as i64)),

    /// Write the blocks --verify found bad to FILE in badblocks' format (one block
    /// number a line), for mke2fs -l / e2fsck -l; one disk per run
    #[arg(long, value_name = "FILE")]
    pub bad_blocks: Option<std::path::PathBuf> => Opt::tunes(&["verify"]),

    /// The block size of the --bad-blocks list in bytes: the file system's block
    /// size (badblocks' -b)
    #[arg(long, value_name = "BYTES", default_value = "4096", value_parser = parse_bytes)]
    pub bad_blocks_size: u64 => Opt::tunes(&["verify"]).range(Range::BadBlocksSize),
    /// The whole burn-in in one command (requires -w; DESTROYS DATA): SMART before,
    /// the short and conveyance self-tests, -t, --zones, on rotating drives a short
    /// flushed-write step (-S) and the write-verify pass, on flash the capacity
    /// check, the write-verify pass and a discard (TRIM), the long self-test, SMART
    /// after, and a verdict per drive with every reason. With --json-file the run is
    /// saved after each step
    #[arg(long)]
    pub burn_in: bool => Opt::with(&["burn_in"]).with_w(),

    /// --burn-in: do not discard (TRIM/UNMAP) a flash drive after its write-verify
    /// pass (by default it is discarded, so it starts clean)
    #[arg(long)]
    pub no_discard: bool => Opt::with(&["burn_in"]),

    /// Continue an interrupted --burn-in saved in FILE.json (by --json-file): the
    /// steps each drive completed are kept, the rest run; FILE.json is rewritten
    /// unless --json-file names another file. Refused for a finished burn-in, or
    /// one run with other options (each named). Without FILE.json: the file
    /// --json-file names, else the newest unfinished burn-in of the same drives
    /// and options saved without --json-file (a drive's name after --resume is a
    /// drive, not the file)
    #[arg(long, value_name = "FILE.json", num_args = 0..=1, default_missing_value = "-")]
    pub resume: Option<std::path::PathBuf> => Opt::with(&["burn_in"]).with_w(),

    /// With --resume: go on although the drive list changed (drives added, removed,
    /// or another drive under a saved name, each named when refused); the changed
    /// drives start their burn-in afresh
    #[arg(long)]
    pub resume_changed: bool => Opt::with(&["resume"]),

    /// Start a new burn-in although --json-file holds a saved burn-in, unfinished
    /// (which --resume would continue) or finished; the old file is kept beside it
    /// as FILE.json.old-N
    #[arg(long)]
    pub new_run: bool => Opt::with(&["burn_in"]),

    /// Off a terminal (a log, Ansible, systemd), a status line per drive this often
    /// while it works, beside a line as each step starts and ends (seconds, or with
    /// an s, m or h suffix)
    #[arg(long, value_name = "TIME", default_value = "10m", value_parser = parse_interval)]
    pub status_interval: std::time::Duration => Opt::alone(),
    /// Read the drive's SMART health through smartctl before the tests and after
    /// them: a "SMART health" block, what changed, and the health rules' findings
    /// (with --qualify they join the verdict). Needs smartctl (smartmontools) except
    /// for simulated drives; a device without SMART gets a one-line note
    #[arg(long)]
    pub smart: bool => Opt::alone(),

    /// Run the drive's own self-test (short, conveyance or long; several in order,
    /// repeated or comma-separated) before the other tests, following it to its end;
    /// implies --smart. A kind the drive does not offer is skipped with a note;
    /// Ctrl-C aborts it on the drive
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = crate::results::smart::SelfTestKind::parse)]
    pub smart_test: Vec<crate::results::smart::SelfTestKind> => Opt::alone(),

    /// The SMART health rules' options (--new, --threshold).
    #[command(flatten)]
    pub smart_rules: SmartRuleArgs => Decl::Group(SmartRuleArgs::declared),

    /// During a --burn-in (or --verify, --scan, --smr-check with --smart): the drive's
    /// temperature limit in °C (default: the drive's own, else 60). Above it a
    /// warning, and the drive's writes (a real drive's --scan and --verify: all its
    /// requests) pause until it is 5 °C below
    #[arg(long, value_name = "C", allow_negative_numbers = true)]
    // From 20 °C: below room temperature the writes would pause for good; above
    // 100 °C no drive runs.
    pub max_temp: Option<i64> => Opt::tunes(&["scan", "verify", "smr_check"])
        .and_burn_in()
        .range(Range::count(20, 100)),

    /// The drive history database (--history FILE, --no-history; docs/history.md).
    #[command(flatten)]
    pub history: HistoryFileArgs => Decl::Group(HistoryFileArgs::declared),

    /// Disks: device paths (/dev/sdb), short names (sdb, da0), image files, or
    /// simulated drives (sim:hdd, sim:hdd5400, sim:ssd, sim:nvme)
    #[arg(value_name = "DISK", required = true)]
    pub disks: Vec<String> => Opt::alone().beside_id(),
}
}

/// Samples taken by `--zones` without a number (and the plans' when it is not
/// given), as written on the command line.
pub const DEFAULT_ZONES: &str = "100";
