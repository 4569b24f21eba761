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
    /// Where to save the run as JSON as well.
    pub json_file: Option<PathBuf>,
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
    /// An option that this version does not provide yet.
    #[error("{0} is not available in this version of seekprobe yet; run without it")]
    NotYet(&'static str),
    /// A bad --settle value.
    #[error("--settle {0}: expected a number of seconds from 0 to 3600")]
    BadSettle(f64),
}

impl Config {
    /// Check the arguments.
    pub fn from_args(a: Args) -> Result<Config, ConfigError> {
        if a.physical_path || a.ident {
            let others = a.physical_path && a.ident
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
        if a.iops {
            return Err(ConfigError::NotYet("-i (asynchronous random reads)"));
        }
        if a.sync_write {
            return Err(ConfigError::NotYet("-S (synchronous random writes)"));
        }
        if a.write {
            return Err(ConfigError::NotYet("-w (write tests)"));
        }
        if !(a.settle.is_finite() && (0.0..=3600.0).contains(&a.settle)) {
            return Err(ConfigError::BadSettle(a.settle));
        }
        let mut tests = Vec::new();
        if a.command_overhead {
            tests.push(TestKind::CommandOverhead);
        }
        if a.seek_transfer {
            tests.push(TestKind::SeekTransfer);
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
            settle: Duration::from_secs_f64(a.settle),
            disks: a.disks,
            format: if a.json { Format::Json } else { a.format },
            json_file: a.json_file,
        })
    }
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
        assert!(matches!(parse(&["-i", "x"]), Err(ConfigError::NotYet(_))));
        assert!(matches!(
            parse(&["--settle=-1", "x"]),
            Err(ConfigError::BadSettle(_))
        ));
    }
}
