//! Checked configuration: the raw arguments turned into what a run needs, with
//! diskinfo's rules enforced before any work.

use crate::cli::Args;
use crate::probe::TestKind;
use crate::report::Format;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

/// What to print for each disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The description (one line, or the -v block) and any tests.
    Describe,
    /// Only the physical path (-p).
    PhysicalPath,
    /// Only the ident (-s).
    Ident,
}

/// A checked configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// What to print.
    pub mode: Mode,
    /// With -p/-s: prefix lines with the device name.
    pub with_name: bool,
    /// The verbose form (explicit -v or implied by a test).
    pub verbose: bool,
    /// The tests to run, in diskinfo's order (-c, then -t).
    pub tests: Vec<TestKind>,
    /// The pause before each timed phase.
    pub settle: Duration,
    /// The disks, in order.
    pub disks: Vec<String>,
    /// How results are printed on standard output.
    pub format: Format,
    /// Write tests may write (-w).
    pub write: bool,
    /// Write despite signatures (--force).
    pub force: bool,
    /// Skip the confirmation (--yes).
    pub yes: bool,
    /// Restore what the write tests overwrite (--preserve).
    pub preserve: bool,
    /// The seed of the random offsets.
    pub seed: u64,
    /// Requests in flight for -i.
    pub queue_depth: u32,
    /// Time per size for -i.
    pub duration: Duration,
    /// Time per size for -S.
    pub write_duration: Duration,
    /// Print a comparison of the disks.
    pub compare: bool,
    /// Judge the disks.
    pub qualify: Option<Qualify>,
    /// Probe the disks at the same time.
    pub parallel: bool,
    /// No progress display.
    pub quiet: bool,
    /// Settings of the beyond-diskinfo tests.
    pub beyond: Beyond,
    /// Where to draw the plots.
    pub plot: Option<PathBuf>,
    /// Where to save the run as JSON as well.
    pub json_file: Option<PathBuf>,
    /// Where to write the run's figures for Prometheus (--prometheus).
    pub prometheus: Option<PathBuf>,
}

/// Settings of --zones, --seek-profile and --scan.
#[derive(Debug, Clone, PartialEq)]
pub struct Beyond {
    /// Samples of the zone curve.
    pub zones: u32,
    /// Bytes per zone sample.
    pub zone_size: u64,
    /// Reads at random distances.
    pub seek_samples: u32,
    /// Where the scan starts.
    pub scan_start: Option<u64>,
    /// Where the scan ends.
    pub scan_end: Option<u64>,
    /// Bytes per scan read.
    pub block_size: u64,
    /// The slow-block threshold.
    pub slow_ms: f64,
    /// Time of the queued part of each block-sweep size.
    pub sweep_duration: Duration,
}

/// How disks are judged (--qualify).
#[derive(Debug, Clone, PartialEq)]
pub struct Qualify {
    /// The largest relative deviation (0.15 = 15%).
    pub max_deviation: f64,
    /// A known-good saved run to judge against.
    pub baseline: Option<PathBuf>,
}

impl Qualify {
    /// The settings the options ask for (--baseline implies --qualify).
    pub fn from_args(j: crate::cli::JudgeArgs) -> Result<Option<Qualify>, ConfigError> {
        Qualify::new(
            j.qualify || j.baseline.is_some(),
            j.baseline,
            j.max_deviation,
        )
    }

    /// Qualification settings when `on`; the deviation is given in percent.
    pub fn new(
        on: bool,
        baseline: Option<PathBuf>,
        percent: f64,
    ) -> Result<Option<Qualify>, ConfigError> {
        if !(percent.is_finite() && percent > 0.0 && percent < 1000.0) {
            return Err(ConfigError::BadDeviation(percent.to_string()));
        }
        Ok(on.then(|| Qualify {
            max_deviation: percent / 100.0,
            baseline,
        }))
    }
}

/// A command line that breaks a rule.
#[derive(Debug, Error, PartialEq)]
pub enum ConfigError {
    /// diskinfo's rule for -p and -s.
    #[error("-p or -s cannot be used with other options")]
    ExclusiveOutput,
    /// diskinfo's rule for -S.
    #[error("-S require also -w")]
    SyncWriteNeedsWrite,
    /// A write option without -w.
    #[error("{0} only applies to write tests; it needs -w (and -S)")]
    NeedsWrite(&'static str),
    /// A bad number of seconds.
    #[error("{0} {1}: expected a number of seconds up to 3600")]
    BadSeconds(&'static str, String),
    /// A bad --max-deviation.
    #[error("--max-deviation {0}: expected a percentage above 0")]
    BadDeviation(String),
    /// A count or size that must not be zero.
    #[error("{0} must be more than 0")]
    Zero(&'static str),
    /// A bad queue depth.
    #[error("--queue-depth {0}: expected 1 to 4096")]
    BadQueueDepth(u32),
    /// Confirmation cannot be asked for several disks at once.
    #[error(
        "--parallel with a write test needs --yes: the confirmation is asked one disk at a time"
    )]
    ParallelWrites,
    /// A count so large that its plan would not fit in memory.
    #[error("{0}: at most {1}")]
    TooMany(&'static str, u64),
    /// --end not after --start.
    #[error("--end {1} is not after --start {0}")]
    BadRange(u64, u64),
    /// --plot without a test that has something to draw.
    #[error("--plot draws the results of --zones, --seek-profile and --scan: add one of them")]
    NothingToPlot,
    /// A --block-size beyond what a read may be.
    #[error("--block-size {0}: at most 64M")]
    BadBlockSize(u64),
    /// A bad --slow-ms.
    #[error("--slow-ms {0}: expected a number of milliseconds above 0")]
    BadSlowMs(String),
}

impl Config {
    /// Check the arguments.
    pub fn from_args(a: Args) -> Result<Config, ConfigError> {
        if a.physical_path || a.ident {
            let others = a.physical_path && a.ident
                || a.zones.is_some()
                || a.seek_profile
                || a.scan
                || a.block_sweep
                || a.json
                || a.json_file.is_some()
                || a.prometheus.is_some()
                || a.plot.is_some()
                || a.format != Format::Diskinfo
                || a.compare
                || a.judge.qualify
                || a.judge.baseline.is_some()
                || a.command_overhead
                || a.seek_transfer
                || a.iops
                || a.sync_write
                || a.write
                || a.verbose;
            if others {
                return Err(ConfigError::ExclusiveOutput);
            }
        }
        if a.sync_write && !a.write {
            return Err(ConfigError::SyncWriteNeedsWrite);
        }
        if (a.force || a.preserve) && !a.write {
            return Err(ConfigError::NeedsWrite(if a.force {
                "--force"
            } else {
                "--preserve"
            }));
        }
        let seconds = |name, v: f64, min: f64| {
            if v.is_finite() && (min..=3600.0).contains(&v) {
                Ok(Duration::from_secs_f64(v))
            } else {
                Err(ConfigError::BadSeconds(name, v.to_string()))
            }
        };
        let settle = seconds("--settle", a.settle, 0.0)?;
        let duration = seconds("--duration", a.duration, 0.001)?;
        let write_duration = seconds("--write-duration", a.write_duration, 0.0)?;
        if !(1..=crate::engine::queued::MAX_QUEUE_DEPTH as u32).contains(&a.queue_depth) {
            return Err(ConfigError::BadQueueDepth(a.queue_depth));
        }
        if a.preserve && (a.zones.is_some() || a.block_sweep) {
            return Err(ConfigError::NeedsWrite(
                "--preserve (which -S alone supports; --zones and --block-sweep with -w overwrite their ranges)",
            ));
        }
        if a.zones.is_some_and(|z| z > MAX_ZONES) {
            return Err(ConfigError::TooMany("--zones", MAX_ZONES as u64));
        }
        if a.seek_samples > MAX_SEEK_SAMPLES {
            return Err(ConfigError::TooMany(
                "--seek-samples",
                u64::from(MAX_SEEK_SAMPLES),
            ));
        }
        if let (Some(s), Some(e)) = (a.start, a.end)
            && e <= s
        {
            return Err(ConfigError::BadRange(s, e));
        }
        let plotted = a.zones.is_some() || a.seek_profile || a.scan;
        if a.plot.is_some() && !plotted {
            return Err(ConfigError::NothingToPlot);
        }
        // The tests asked for, in diskinfo's order and then seekprobe's own.
        let tests: Vec<TestKind> = [
            (a.command_overhead, TestKind::CommandOverhead),
            (a.seek_transfer, TestKind::SeekTransfer),
            (a.iops, TestKind::RandomReads),
            (a.sync_write, TestKind::SyncWrite),
            (a.zones.is_some(), TestKind::Zones),
            (a.seek_profile, TestKind::SeekProfile),
            (a.scan, TestKind::Scan),
            (a.block_sweep, TestKind::BlockSweep),
        ]
        .into_iter()
        .filter_map(|(asked, t)| asked.then_some(t))
        .collect();
        let writes = a.write && tests.iter().any(|t| t.may_write());
        if a.parallel && writes && !a.yes {
            return Err(ConfigError::ParallelWrites);
        }
        let sweep_duration = seconds("--sweep-duration", a.sweep_duration, 0.0)?;
        if a.zones == Some(0) || a.seek_samples == 0 {
            return Err(ConfigError::Zero(if a.zones == Some(0) {
                "--zones"
            } else {
                "--seek-samples"
            }));
        }
        if a.zone_size == 0 || a.block_size == 0 {
            return Err(ConfigError::Zero(if a.zone_size == 0 {
                "--zone-size"
            } else {
                "--block-size"
            }));
        }
        if a.block_size > 64 << 20 {
            return Err(ConfigError::BadBlockSize(a.block_size));
        }
        if !(a.slow_ms.is_finite() && a.slow_ms > 0.0) {
            return Err(ConfigError::BadSlowMs(a.slow_ms.to_string()));
        }
        let mode = if a.physical_path {
            Mode::PhysicalPath
        } else if a.ident {
            Mode::Ident
        } else {
            Mode::Describe
        };
        Ok(Config {
            mode,
            with_name: a.with_name,
            verbose: a.verbose || !tests.is_empty(),
            tests,
            settle,
            disks: a.disks,
            format: if a.json { Format::Json } else { a.format },
            json_file: a.json_file,
            prometheus: a.prometheus,
            write: a.write,
            force: a.force,
            yes: a.yes,
            preserve: a.preserve,
            seed: a.seed.unwrap_or_else(random_seed),
            queue_depth: a.queue_depth,
            duration,
            write_duration,
            compare: a.compare || a.judge.qualify || a.judge.baseline.is_some(),
            qualify: Qualify::from_args(a.judge)?,
            parallel: a.parallel,
            quiet: a.quiet,
            plot: a.plot,
            beyond: Beyond {
                zones: a.zones.unwrap_or(crate::probe::zones::DEFAULT_ZONES),
                zone_size: a.zone_size,
                seek_samples: a.seek_samples,
                scan_start: a.start,
                scan_end: a.end,
                block_size: a.block_size,
                slow_ms: a.slow_ms,
                sweep_duration,
            },
        })
    }
}

/// The most --zones samples (each is a planned phase).
pub const MAX_ZONES: u32 = 100_000;
/// The most --seek-samples (each is a planned pair of reads).
pub const MAX_SEEK_SAMPLES: u32 = 1_000_000;

/// A seed for runs that name none, from the operating system's entropy.
fn random_seed() -> u64 {
    crate::rng::fresh_seed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Result<Config, ConfigError> {
        let mut v = vec!["seekprobe"];
        v.extend_from_slice(args);
        Config::from_args(Args::try_parse_from(v).unwrap())
    }

    #[test]
    fn tests_imply_verbose_and_run_in_diskinfo_order() {
        let c = parse(&["-tc", "x"]).unwrap();
        assert!(c.verbose);
        assert_eq!(c.tests, [TestKind::CommandOverhead, TestKind::SeekTransfer]);
        assert!(!parse(&["x"]).unwrap().verbose);
    }

    #[test]
    fn diskinfo_rules_are_enforced() {
        assert_eq!(parse(&["-p", "-t", "x"]), Err(ConfigError::ExclusiveOutput));
        assert_eq!(parse(&["-p", "-s", "x"]), Err(ConfigError::ExclusiveOutput));
        assert_eq!(parse(&["-l", "-s", "x"]).unwrap().mode, Mode::Ident);
        assert_eq!(parse(&["-S", "x"]), Err(ConfigError::SyncWriteNeedsWrite));
        assert!(matches!(
            parse(&["--settle=-1", "x"]),
            Err(ConfigError::BadSeconds(..))
        ));
        assert!(matches!(
            parse(&["--force", "x"]),
            Err(ConfigError::NeedsWrite(_))
        ));
        assert!(matches!(
            parse(&["--queue-depth", "0", "x"]),
            Err(ConfigError::BadQueueDepth(0))
        ));
        let c = parse(&["-Sciwt", "--seed", "7", "x"]).unwrap();
        assert_eq!(
            c.tests,
            [
                TestKind::CommandOverhead,
                TestKind::SeekTransfer,
                TestKind::RandomReads,
                TestKind::SyncWrite
            ]
        );
        assert_eq!(c.seed, 7);
    }
}
