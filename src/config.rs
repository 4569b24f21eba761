//! Checked configuration: the raw arguments turned into what a run needs, with
//! diskinfo's rules enforced before any work.

use crate::cli::Args;
use crate::plans;
use crate::report::Format;
use crate::results::settings::{
    BlockSize, Deviation, EndNotAfterStart, MAX_PASSES, Passes, QueueDepth, ScanSpan,
};
use crate::results::test_kind::TestKind;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

pub mod measures;
mod rules;
pub use rules::{Needs, RuleError, needs, plotted_tests, tuning};
use rules::{check_rules, looks_like_a_count, tests_given};

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

/// The command line, checked and typed: everything `app` needs to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// What to print: the description and tests, or only the path (-p) or ident (-s).
    pub mode: Mode,
    /// With -p/-s: prefix lines with the device name.
    pub with_name: bool,
    /// The verbose form (explicit -v or implied by a test).
    pub verbose: bool,
    /// The tests to run, in diskinfo's order (-c, then -t); those of them whose
    /// row is `together` (`--path-check`) run across the drives after the others.
    pub tests: Vec<TestKind>,
    /// What shapes the tests' plans, every value checked here and carried as it is
    /// to the plans and the engines.
    pub options: plans::Options,
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
    /// Print a comparison of the disks.
    pub compare: bool,
    /// Judge the disks.
    pub qualify: Option<Qualify>,
    /// Probe the disks at the same time.
    pub parallel: bool,
    /// No progress display.
    pub quiet: bool,
    /// Settings of --scan and --verify outside their plans.
    pub beyond: Beyond,
    /// Where to draw the plots.
    pub plot: Option<PathBuf>,
    /// Where to save the run as JSON as well.
    pub json_file: Option<PathBuf>,
    /// Where to write the qualification report (--html).
    pub html: Option<PathBuf>,
    /// Where to write the run's figures for Prometheus (--prometheus).
    pub prometheus: Option<PathBuf>,
    /// `--burn-in`: the whole burn-in, its steps from [`crate::burnin::steps`].
    pub burn_in: Option<crate::burnin::Settings>,
    /// `--resume`: the saved burn-in to continue.
    pub resume: Option<PathBuf>,
    /// `--resume-changed`: a resume may go on with a changed drive list.
    pub resume_changed: bool,
    /// `--new-run`: a new burn-in may start over an unfinished one's --json-file.
    pub new_run: bool,
    /// `--status-interval`: how often a drive's status line is written off a terminal.
    pub status_interval: std::time::Duration,
    /// The command line as given (the program name first), for the resume hint;
    /// set by the program (empty when a configuration is built otherwise).
    pub command: Vec<String>,
    /// SMART health and self-tests (--smart, --smart-test, --new, --threshold).
    pub smart: crate::smart::SmartSettings,
    /// `--operator` and `--ticket`: the record's free-text fields, as given.
    pub operator: Option<String>,
    /// `--ticket`: see `operator`.
    pub ticket: Option<String>,
    /// `--sign-key`: the SSH key the run file is signed with at the end (opened,
    /// and so checked, by the program before anything runs: `sshsig::signer`).
    pub sign_key: Option<PathBuf>,
}

/// Settings of --scan and --verify that the executor and the program use, not the
/// plans (those are in [`plans::Options`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Beyond {
    /// How long a request to a drive may go unanswered (--io-timeout).
    pub io_timeout: Duration,
    /// Where --verify's bad-block list goes.
    pub bad_blocks: Option<PathBuf>,
    /// The block size of that list in bytes (`--bad-blocks-size`), a checked power of two.
    pub bad_blocks_size: u32,
}

/// How disks are judged (--qualify).
#[derive(Debug, Clone, PartialEq)]
pub struct Qualify {
    /// The largest relative deviation a figure may have.
    pub max_deviation: Deviation,
    /// A known-good saved run to judge against.
    pub baseline: Option<PathBuf>,
}

impl Qualify {
    /// The settings the options ask for; --max-deviation and --baseline apply to
    /// --qualify only.
    pub fn from_args(j: crate::cli::JudgeArgs) -> Result<Option<Qualify>, ConfigError> {
        if !j.qualify {
            let stray = if j.max_deviation.is_some() {
                Some("--max-deviation")
            } else {
                j.baseline.as_ref().map(|_| "--baseline")
            };
            if let Some(opt) = stray {
                return Err(RuleError::DoesNotApply(format!(
                    "{opt} applies to --qualify; add --qualify or drop {opt}"
                ))
                .into());
            }
        }
        Qualify::new(
            j.qualify,
            j.baseline,
            j.max_deviation.unwrap_or(DEFAULT_MAX_DEVIATION),
        )
    }

    /// Qualification settings when `on`; the deviation is given in percent.
    pub fn new(
        on: bool,
        baseline: Option<PathBuf>,
        percent: f64,
    ) -> Result<Option<Qualify>, ConfigError> {
        let max_deviation = Deviation::from_percent(percent)
            .ok_or_else(|| ConfigError::BadDeviation(percent.to_string()))?;
        Ok(on.then_some(Qualify {
            max_deviation,
            baseline,
        }))
    }
}

/// The largest deviation --qualify allows unless --max-deviation says otherwise, in
/// percent, the option's unit ([`Deviation::DEFAULT`] past the option).
pub const DEFAULT_MAX_DEVIATION: f64 = 15.0;

/// A command line that breaks a rule.
#[derive(Debug, Error, PartialEq)]
pub enum ConfigError {
    /// An option given without what it applies to, or against diskinfo's rules.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A seconds option outside its range: the option, the value, the lowest
    /// allowed (the highest is 3600).
    #[error(
        "{0} {1}: expected a number of seconds from {2} to 3600 (or a time: 500ms, 90s, 10m, 1h)"
    )]
    BadSeconds(&'static str, String, f64),
    /// A bad --max-deviation.
    #[error("--max-deviation {0}: expected a percentage above 0 and below 1000")]
    BadDeviation(String),
    /// A count or size that must not be zero.
    #[error("{0} must be more than 0")]
    Zero(&'static str),
    /// A `--queue-depth` outside 1..=4096.
    #[error("--queue-depth {0}: expected 1 to 4096")]
    BadQueueDepth(u32),
    /// A count outside its range (the value, then the lowest and highest allowed).
    #[error("{0} {1}: expected {2} to {3}")]
    OutOfRange(&'static str, String, i64, i64),
    /// A byte option that is not a whole number of 512-byte sectors (the value,
    /// then the nearest allowed below and above).
    #[error("{0} {1}: not a multiple of the 512-byte sector; the nearest allowed are {2} and {3}")]
    NotSectors(&'static str, u64, u64, u64),
    /// --end not after --start.
    #[error("--end {1} is not after --start {0}")]
    BadRange(u64, u64),
    /// A --block-size beyond what a read may be.
    #[error("--block-size {0}: expected 512 bytes to 64M, a multiple of the 512-byte sector")]
    BadBlockSize(u64),
    /// A bad --slow-ms.
    #[error("--slow-ms {0}: expected a number of milliseconds above 0, up to 3600000")]
    BadSlowMs(String),
    /// `--zones 50`: the number of an option whose value is written with `=` was
    /// read as a disk.
    #[error(
        "{value}: no such disk; to give {flag} a number, write {flag}={value} (with =, or the number is read as a disk)"
    )]
    NeedsEquals {
        /// The option, as `--zones`.
        flag: String,
        /// What was read as a disk.
        value: String,
    },
    /// clap's matches did not fit the arguments (a bug).
    #[error("{0}")]
    Parse(String),
}

/// The values of --scan's and --verify's own options, checked in this order:
/// `--block-size`, `--passes`, `--bad-blocks-size`, `--slow-ms`.
fn check_scan_and_verify(a: &Args) -> Result<(BlockSize, Passes), ConfigError> {
    let block_size = BlockSize::new(a.block_size)
        .ok()
        .filter(|b| b.bytes() >= SECTOR)
        .ok_or(ConfigError::BadBlockSize(a.block_size))?;
    whole_sectors("--block-size", Some(a.block_size))?;
    whole_sectors("--start", a.start)?;
    whole_sectors("--end", a.end)?;
    let passes = Passes::new(a.passes).ok_or_else(|| {
        ConfigError::OutOfRange("--passes", a.passes.to_string(), 1, i64::from(MAX_PASSES))
    })?;
    let bad_blocks_size = u32::try_from(a.bad_blocks_size).map_err(|_| {
        ConfigError::Parse(format!(
            "--bad-blocks-size {}: too large",
            a.bad_blocks_size
        ))
    })?;
    if let Err(e) = crate::stamps::badblocks::check_block_size(bad_blocks_size) {
        return Err(ConfigError::Parse(e.to_string()));
    }
    if !(a.slow_ms.is_finite() && a.slow_ms > 0.0 && a.slow_ms <= 3_600_000.0) {
        return Err(ConfigError::BadSlowMs(a.slow_ms.to_string()));
    }
    Ok((block_size, passes))
}

/// The option `name`'s value `v` in seconds, at least `min` and at most an hour.
fn seconds(name: &'static str, v: f64, min: f64) -> Result<Duration, ConfigError> {
    if v.is_finite() && (min..=3600.0).contains(&v) {
        Ok(Duration::from_secs_f64(v))
    } else {
        Err(ConfigError::BadSeconds(name, v.to_string(), min))
    }
}

/// The smallest logical sector: --block-size, --start and --end are whole
/// numbers of it, so that no drive rounds them silently.
const SECTOR: u64 = 512;

/// `v` (of `option`) a whole number of 512-byte sectors; Err names the nearest
/// allowed values below and above.
fn whole_sectors(option: &'static str, v: Option<u64>) -> Result<(), ConfigError> {
    match v {
        Some(v) if v % SECTOR != 0 => {
            let below = v / SECTOR * SECTOR;
            Err(ConfigError::NotSectors(option, v, below, below + SECTOR))
        }
        _ => Ok(()),
    }
}

/// The temperatures `--max-temp` may be, in °C: below room temperature the writes
/// would pause for good; above 100 °C no drive runs.
pub const MAX_TEMP_RANGE: std::ops::RangeInclusive<i64> = 20..=100;

impl Mode {
    /// What the command line asks of the disks besides tests: -p, -s, or their
    /// description.
    fn of(a: &Args) -> Mode {
        if a.physical_path {
            Mode::PhysicalPath
        } else if a.ident {
            Mode::Ident
        } else {
            Mode::Describe
        }
    }
}

impl Config {
    /// Check what clap parsed, once: a `--zones N` that clap took for a disk, then
    /// diskinfo's rules for -p, -s and -S, every option against the tests given
    /// ([`needs`]), then each value. `m` says which
    /// options were given on the command line.
    pub fn from_matches(m: &clap::ArgMatches) -> Result<Config, ConfigError> {
        use clap::FromArgMatches;
        let given = |id: &str| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        let disks = m.get_many::<String>("disks").map_or(0, |d| d.len());
        // `--zones 50`: clap reads 50 as the first disk, right after an option whose
        // value is written with = (told first: the rules would count it as a disk).
        let cmd = <Args as clap::CommandFactory>::command();
        for arg in cmd.get_arguments().filter(|a| a.is_require_equals_set()) {
            let id = arg.get_id().as_str();
            if given(id)
                && let (Some(at), Some(disks), Some(indices)) = (
                    m.index_of(id),
                    m.get_many::<String>("disks"),
                    m.indices_of("disks"),
                )
                && let Some((d, _)) = disks
                    .zip(indices)
                    .find(|(d, i)| *i == at + 1 && looks_like_a_count(d))
            {
                let flag = format!("--{}", arg.get_long().unwrap_or(id));
                return Err(ConfigError::NeedsEquals {
                    flag,
                    value: d.clone(),
                });
            }
        }
        check_rules(&given, disks)?;
        let a = Args::from_arg_matches(m).map_err(|e| ConfigError::Parse(e.to_string()))?;
        Config::from_args(a, tests_given(&given))
    }

    /// Parse a command line (the program name first) with clap and check it as
    /// [`Config::from_matches`] does; the error as the program would print it. For
    /// tests and tools that build a configuration from arguments.
    pub fn from_command_line<I, T>(args: I) -> Result<Config, String>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        use clap::CommandFactory;
        let m = Args::command()
            .try_get_matches_from(args)
            .map_err(|e| e.to_string())?;
        Config::from_matches(&m).map_err(|e| e.to_string())
    }

    /// Check the values of arguments whose combination [`Config::from_matches`] has
    /// accepted; `tests` are the tests they ask for, in the order they run.
    fn from_args(a: Args, tests: Vec<TestKind>) -> Result<Config, ConfigError> {
        let settle = seconds("--settle", a.settle, 0.0)?;
        let duration = seconds("--duration", a.duration, 0.001)?;
        let write_duration = seconds("--write-duration", a.write_duration, 0.0)?;
        let queue_depth = QueueDepth::check_depth(a.queue_depth)
            .ok_or(ConfigError::BadQueueDepth(a.queue_depth))?;
        if let Some(z) = a.zones.filter(|z| !(1..=MAX_ZONES).contains(z)) {
            return Err(ConfigError::OutOfRange(
                "--zones",
                z.to_string(),
                1,
                MAX_ZONES.into(),
            ));
        }
        if !(1..=MAX_SEEK_SAMPLES).contains(&a.seek_samples) {
            return Err(ConfigError::OutOfRange(
                "--seek-samples",
                a.seek_samples.to_string(),
                1,
                MAX_SEEK_SAMPLES.into(),
            ));
        }
        if let Some(t) = a.max_temp.filter(|t| !MAX_TEMP_RANGE.contains(t)) {
            return Err(ConfigError::OutOfRange(
                "--max-temp",
                t.to_string(),
                *MAX_TEMP_RANGE.start(),
                *MAX_TEMP_RANGE.end(),
            ));
        }
        let scan_span = ScanSpan::new(a.start, a.end)
            .map_err(|EndNotAfterStart { start, end }| ConfigError::BadRange(start, end))?;
        let burn_in = a.burn_in.then_some(crate::burnin::Settings {
            smr_check: a.smr_check,
            no_discard: a.no_discard,
        });
        let sweep_duration = seconds("--sweep-duration", a.sweep_duration, 0.0)?;
        let zones = a
            .zones
            .map_or(Some(plans::zones::DEFAULT_ZONES), NonZeroU32::new)
            .ok_or(ConfigError::Zero("--zones"))?;
        if a.zone_size == 0 {
            return Err(ConfigError::Zero("--zone-size"));
        }
        let (block_size, passes) = check_scan_and_verify(&a)?;
        let mode = Mode::of(&a);
        // In the order they were always checked: the first bad one is reported.
        let compare = a.compare || a.judge.qualify;
        let qualify = Qualify::from_args(a.judge)?;
        let io_timeout = seconds("--io-timeout", a.io_timeout, 0.1)?;
        let smr_idle = seconds("--smr-idle", a.smr_idle, 0.0)?;
        let smart = crate::smart::SmartSettings {
            // --burn-in reads SMART and runs the self-tests as its steps.
            read: a.smart || !a.smart_test.is_empty() || a.burn_in,
            self_tests: a.smart_test.clone(),
            rules: a.smart_rules.options(),
            max_temp: a.max_temp,
            // Held to --io-timeout, as every request to the drive.
            smartctl_limit: io_timeout,
        };
        Ok(Config {
            mode,
            with_name: a.with_name,
            // A drive's own tests (not the path check, across the drives).
            verbose: a.verbose || tests.iter().any(|t| !t.row().together) || smart.wanted(),
            tests,
            options: plans::Options {
                settle,
                seed: a.seed.unwrap_or_else(random_seed),
                write: a.write,
                queue_depth,
                duration,
                write_duration,
                preserve: a.preserve,
                zones,
                zone_size: a.zone_size,
                seek_samples: a.seek_samples,
                scan_span,
                block_size,
                slow_ms: a.slow_ms,
                sweep_duration,
                smr_budget: a.smr_budget.unwrap_or_default(),
                smr_idle,
                verify_passes: passes,
                verify_nonce: crate::stamps::stamp::Stamper::fresh_nonce(),
            },
            disks: a.disks,
            format: if a.json { Format::Json } else { a.format },
            json_file: a.json_file.or_else(|| a.resume.clone()),
            html: a.html,
            prometheus: a.prometheus,
            write: a.write,
            force: a.force,
            yes: a.yes,
            compare,
            qualify,
            parallel: a.parallel,
            quiet: a.quiet,
            plot: a.plot,
            beyond: Beyond {
                io_timeout,
                bad_blocks: a.bad_blocks,
                bad_blocks_size: a.bad_blocks_size as u32,
            },
            burn_in,
            resume: a.resume,
            resume_changed: a.resume_changed,
            new_run: a.new_run,
            status_interval: a.status_interval,
            command: Vec::new(),
            smart,
            operator: a.operator,
            ticket: a.ticket,
            sign_key: a.sign_key,
        })
    }
}

impl Config {
    /// THE write gate, [`TestKind::run_writes`] for this run: whether it writes to
    /// a disk (-w and a test that writes). With `disk`, the disk at hand once open,
    /// a test that leaves it alone does not count (one that skips flash, such as
    /// --smr-check, on flash); without, every test counts.
    pub fn writes(&self, disk: Option<&crate::results::device::DeviceInfo>) -> bool {
        let here =
            |t: TestKind| !t.row().skips_flash || disk.is_none_or(crate::smr::behaviour::applies);
        self.mode == Mode::Describe && TestKind::run_writes(&self.tests, self.write, here)
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
    use clap::CommandFactory;

    fn parse(args: &[&str]) -> Result<Config, ConfigError> {
        let mut v = vec!["seekprobe"];
        v.extend_from_slice(args);
        Config::from_matches(&Args::command().try_get_matches_from(v).unwrap())
    }

    #[test]
    fn smr_check_adds_the_burn_in_s_smr_step() {
        let with = parse(&["--burn-in", "-w", "--smr-check", "x"]).unwrap();
        assert_eq!(
            with.burn_in,
            Some(crate::burnin::Settings {
                smr_check: true,
                no_discard: false
            })
        );
        let without = parse(&["--burn-in", "-w", "x"]).unwrap();
        assert_eq!(without.burn_in, Some(crate::burnin::Settings::default()));
    }

    #[test]
    fn a_zone_count_taken_for_a_disk_is_told_before_the_rules_count_it() {
        let e = parse(&[
            "--bad-blocks",
            "f",
            "--verify",
            "-w",
            "--zones",
            "50",
            "sim:hdd",
        ])
        .unwrap_err()
        .to_string();
        assert!(e.contains("write --zones=50"), "{e}");
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
        assert_eq!(
            parse(&["-p", "-t", "x"]),
            Err(ConfigError::Rule(RuleError::ExclusiveOutput))
        );
        assert_eq!(
            parse(&["-p", "-s", "x"]),
            Err(ConfigError::Rule(RuleError::ExclusiveOutput))
        );
        assert_eq!(
            parse(&["-s", "-S", "x"]),
            Err(ConfigError::Rule(RuleError::ExclusiveOutput))
        );
        assert_eq!(parse(&["-l", "-s", "x"]).unwrap().mode, Mode::Ident);
        // diskinfo's -p and -s accept -w and -l.
        assert_eq!(
            parse(&["-l", "-w", "-p", "x"]).unwrap().mode,
            Mode::PhysicalPath
        );
        assert_eq!(
            parse(&["-S", "x"]),
            Err(ConfigError::Rule(RuleError::SyncWriteNeedsWrite))
        );
        assert!(matches!(
            parse(&["-t", "--settle=-1", "x"]),
            Err(ConfigError::BadSeconds(..))
        ));
        assert!(matches!(
            parse(&["-i", "--queue-depth", "0", "x"]),
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
        assert_eq!(c.options.seed, 7);
        assert_eq!(c.options.queue_depth.get(), 128);
    }

    #[test]
    fn a_command_line_is_parsed_and_checked_in_one_call() {
        let c = Config::from_command_line(["seekprobe", "-i", "--queue-depth", "4", "x"]).unwrap();
        assert_eq!(c.options.queue_depth.get(), 4);
        let e = Config::from_command_line(["seekprobe", "--seed", "1", "x"]).unwrap_err();
        assert!(
            e.contains("--seed applies to -i, -S, --seek-profile or --smr-check"),
            "{e}"
        );
    }

    #[test]
    fn queue_depth_is_checked_once() {
        for bad in ["0", "4097"] {
            assert!(matches!(
                parse(&["-i", "--queue-depth", bad, "x"]),
                Err(ConfigError::BadQueueDepth(_))
            ));
        }
        assert_eq!(
            parse(&["-i", "--queue-depth", "1", "x"])
                .unwrap()
                .options
                .queue_depth
                .get(),
            1
        );
    }

    #[test]
    fn the_write_gate_asks_for_w_and_a_test_that_writes() {
        assert!(!parse(&["--zones=4", "x"]).unwrap().writes(None));
        assert!(parse(&["--zones=4", "-w", "x"]).unwrap().writes(None));
        assert!(!parse(&["-t", "--scan", "x"]).unwrap().writes(None));
        assert!(parse(&["--burn-in", "-w", "x"]).unwrap().writes(None));
        let smr = parse(&["--smr-check", "-w", "x"]).unwrap();
        assert!(smr.writes(None));
        // --smr-check leaves flash alone: nothing to write there.
        use crate::device::Target;
        let info = |spec| {
            crate::device::sim::SimTarget::open(spec)
                .unwrap()
                .info()
                .clone()
        };
        assert!(!smr.writes(Some(&info("sim:ssd"))));
        assert!(smr.writes(Some(&info("sim:hdd"))));
    }

    #[test]
    fn a_zone_count_read_as_a_disk_says_to_write_equals() {
        let e = parse(&["--zones", "50"]).unwrap_err();
        assert_eq!(
            e,
            ConfigError::NeedsEquals {
                flag: "--zones".into(),
                value: "50".into()
            }
        );
        assert!(e.to_string().contains("write --zones=50"), "{e}");
        assert!(parse(&["--zones=50", "x"]).is_ok());
        assert!(parse(&["--zones", "-t", "50"]).is_ok());
    }
}
