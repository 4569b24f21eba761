//! The command line, as clap definitions only (also used for the man page and
//! shell completions).

use crate::report::Format;
use clap::Parser;

const EXAMPLES: &str = "\
Examples:
  seekprobe -tv /dev/sdb          diskinfo's seek and transfer test, exact text
  seekprobe -ctv da0              short names are looked up under /dev/
  seekprobe /dev/sda /dev/sdb     one line per disk: sizes and geometry
  seekprobe -l -s /dev/sd?        serial numbers, prefixed by the device name
  seekprobe -tv sim:hdd           a simulated 7200 rpm drive (no disk needed)
  seekprobe -tv 'sim:hdd?rpm=5400&seed=2'
  seekprobe -t --json-file run.json /dev/sdb   text now, JSON for later
  seekprobe render run.json --format table     render a saved run again

Exit status: 0 when every disk was probed, 1 when any failed (the others are
still probed), 130 after Ctrl-C.";

/// Measure how a disk really behaves: seek times, transfer rates over the zones and
/// command overhead, with FreeBSD diskinfo's exact output.
#[derive(Debug, Parser)]
#[command(name = "seekprobe", version, after_help = EXAMPLES)]
#[command(
    override_usage = "seekprobe [-ctv] disk ...\n       seekprobe [-l] -p disk ...\n       seekprobe [-l] -s disk ..."
)]
pub struct Args {
    /// I/O command overhead test (implies -v)
    #[arg(short = 'c', long = "command-overhead")]
    pub command_overhead: bool,

    /// Seek and transfer test (implies -v)
    #[arg(short = 't', long = "seek-transfer")]
    pub seek_transfer: bool,

    /// Asynchronous random read IOPS test (implies -v) [not available yet]
    #[arg(short = 'i', long = "iops")]
    pub iops: bool,

    /// Synchronous random write test, a ZFS SLOG test (implies -v, requires -w) [not available yet]
    #[arg(short = 'S', long = "sync-write")]
    pub sync_write: bool,

    /// Allow destructive write tests [not available yet]
    #[arg(short = 'w', long = "write")]
    pub write: bool,

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

    /// Seconds to pause before each timed line. diskinfo sleeps 1 s (about 10 s per
    /// -t); the default 0 keeps runs short. Raise it on drives that need to settle
    /// after a burst (e.g. to let a write-back finish)
    #[arg(long, value_name = "SECONDS", default_value_t = 0.0)]
    pub settle: f64,

    /// Output format: diskinfo's text (printed live), a table with percentiles, or JSON
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format,

    /// Print the whole run as JSON instead of text (same as --format json)
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// Also write the whole run as JSON to FILE (rewritten after each disk, so a late
    /// failure loses nothing); `seekprobe render FILE` prints it again
    #[arg(long, value_name = "FILE")]
    pub json_file: Option<std::path::PathBuf>,

    /// Disks: device paths (/dev/sdb), short names (sdb, da0), image files, or
    /// simulated drives (sim:hdd, sim:hdd5400, sim:ssd, sim:nvme)
    #[arg(value_name = "DISK", required = true)]
    pub disks: Vec<String>,
}

/// `seekprobe render FILE.json`: print a saved run again, without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe render", version)]
pub struct RenderArgs {
    /// A run saved with --json or --json-file
    #[arg(value_name = "FILE.json")]
    pub file: std::path::PathBuf,

    /// Output format
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format,
}
