//! Checked configuration: the raw arguments turned into what a run needs, with
//! diskinfo's rules enforced before any work.

use crate::cli::Args;
use crate::report::Format;
use crate::results::settings::{
    BlockSize, Deviation, EndNotAfterStart, Passes, QueueDepth, ScanSpan,
};
use crate::results::test_kind::TestKind;
use crate::test_plans;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;
use thiserror::Error;

mod between;
mod bounds;
mod flags;
pub mod measures;
mod rules;
pub use flags::plotted_tests;
pub use rules::{Needs, RuleError, needs, tuning};
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
    pub options: test_plans::Options,
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
/// plans (those are in [`test_plans::Options`]).
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
    /// The settings the options ask for, checked as their declarations say (for
    /// `compare` too, whose options [`check_rules`] does not see); --max-deviation
    /// and --baseline apply to --qualify only.
    pub fn from_args(j: crate::cli::JudgeArgs) -> Result<Option<Qualify>, ConfigError> {
        if !j.qualify {
            let stray = if j.max_deviation.is_some() {
                Some("max_deviation")
            } else {
                j.baseline.as_ref().map(|_| "baseline")
            };
            if let Some(id) = stray {
                return Err(rules::needs_unmet(id).into());
            }
        }
        if let Some(percent) = j.max_deviation {
            bounds::check_declared("max_deviation", bounds::Value::Real(percent))?;
        }
        let percent = j.max_deviation.unwrap_or(crate::cli::DEFAULT_MAX_DEVIATION);
        let max_deviation = Deviation::from_percent(percent).ok_or_else(|| out_of_type(percent))?;
        Ok(j.qualify.then_some(Qualify {
            max_deviation,
            baseline: j.baseline,
        }))
    }
}

/// A value its option's declared range let through but its checked type refused:
/// the declaration and the type disagree (a bug, caught by config/bounds.rs's test).
fn out_of_type(v: impl std::fmt::Display) -> ConfigError {
    ConfigError::Parse(format!("{v}: within its option's range but not its type's"))
}

/// A command line that breaks a rule.
#[derive(Debug, Error, PartialEq)]
pub enum ConfigError {
    /// An option given without what it applies to, or against diskinfo's rules.
    #[error(transparent)]
    Rule(#[from] RuleError),
    /// A time in seconds outside its range ([`crate::cli::Range::Seconds`]): the
    /// option, the value, the lowest allowed (the highest is 3600).
    #[error(
        "{0} {1}: expected a number of seconds from {2} to 3600 (or a time: 500ms, 90s, 10m, 1h)"
    )]
    BadSeconds(String, String, f64),
    /// A percentage outside its range ([`crate::cli::Range::Percent`]): the option,
    /// the value.
    #[error("{0} {1}: expected a percentage above 0 and below 1000")]
    BadPercent(String, String),
    /// A size of 0 ([`crate::cli::Range::Bytes`]): the option.
    #[error("{0} must be more than 0")]
    Zero(String),
    /// A count outside its range ([`crate::cli::Range::Count`]): the option, the
    /// value, then the lowest and highest allowed.
    #[error("{0} {1}: expected {2} to {3}")]
    OutOfRange(String, String, i64, i64),
    /// A byte option that is not a whole number of 512-byte sectors
    /// ([`crate::cli::Range::Sectors`]): the option, the value, then the nearest
    /// allowed below and above.
    #[error("{0} {1}: not a multiple of the 512-byte sector; the nearest allowed are {2} and {3}")]
    NotSectors(String, u64, u64, u64),
    /// --end not after --start.
    #[error("--end {1} is not after --start {0}")]
    BadRange(u64, u64),
    /// A size beyond its range ([`crate::cli::Range::Sectors`] with a largest):
    /// the option, the value, the largest as written (`64M`).
    #[error("{0} {1}: expected 512 bytes to {2}, a multiple of the 512-byte sector")]
    BadSize(String, String, String),
    /// A time in milliseconds outside its range ([`crate::cli::Range::Millis`]):
    /// the option, the value, the highest allowed.
    #[error("{0} {1}: expected a number of milliseconds above 0, up to {2}")]
    BadMillis(String, String, u64),
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
        check_rules(&given)?;
        between::between_options(&given, disks)?;
        let a = Args::from_arg_matches(m).map_err(|e| ConfigError::Parse(e.to_string()))?;
        // An end not after the start is told before whether each is whole sectors.
        let scan_span = ScanSpan::new(a.start, a.end)
            .map_err(|EndNotAfterStart { start, end }| ConfigError::BadRange(start, end))?;
        bounds::check_all(m)?;
        Config::from_args(a, tests_given(&given), scan_span)
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
    /// accepted and whose values are in range; `tests` are the tests they ask for,
    /// in the order they run.
    fn from_args(
        a: Args,
        tests: Vec<TestKind>,
        scan_span: ScanSpan,
    ) -> Result<Config, ConfigError> {
        // Every value is in its declared range ([`bounds::check_all`]); the checked
        // types are built from them.
        let seconds = Duration::from_secs_f64;
        let queue_depth =
            QueueDepth::check_depth(a.queue_depth).ok_or_else(|| out_of_type(a.queue_depth))?;
        let burn_in = a.burn_in.then_some(crate::burnin::Settings {
            smr_check: a.smr_check,
            no_discard: a.no_discard,
        });
        let zones = a
            .zones
            .map_or_else(|| crate::cli::DEFAULT_ZONES.parse().ok(), NonZeroU32::new)
            .ok_or_else(|| out_of_type(crate::cli::DEFAULT_ZONES))?;
        let block_size = BlockSize::new(a.block_size).map_err(|_| out_of_type(a.block_size))?;
        let passes = Passes::new(a.passes).ok_or_else(|| out_of_type(a.passes))?;
        let mode = Mode::of(&a);
        // In the order they were always checked: the first bad one is reported.
        let compare = a.compare || a.judge.qualify;
        let qualify = Qualify::from_args(a.judge)?;
        let io_timeout = seconds(a.io_timeout);
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
            options: test_plans::Options {
                settle: seconds(a.settle),
                seed: a.seed.unwrap_or_else(random_seed),
                write: a.write,
                queue_depth,
                duration: seconds(a.duration),
                write_duration: seconds(a.write_duration),
                preserve: a.preserve,
                zones,
                zone_size: a.zone_size,
                seek_samples: a.seek_samples,
                scan_span,
                block_size,
                slow_ms: a.slow_ms,
                sweep_duration: seconds(a.sweep_duration),
                smr_budget: a.smr_budget.unwrap_or_default(),
                smr_idle: seconds(a.smr_idle),
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

impl Default for test_plans::Options {
    /// The plans' options of a command line that gives none: every default as its
    /// option's declaration states it (cli/probe.rs), the seed and the write-verify
    /// nonce 0. The plans restate no default.
    fn default() -> test_plans::Options {
        let c = Config::from_command_line(["seekprobe", "-"])
            .expect("the declared defaults are within their ranges");
        test_plans::Options {
            seed: 0,
            verify_nonce: 0,
            ..c.options
        }
    }
}

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
            Err(ConfigError::OutOfRange(..))
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
                Err(ConfigError::OutOfRange(..))
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
