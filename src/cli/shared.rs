//! The option groups that several commands share: qualification, the SMART
//! health rules, the drive history's file.

use super::option::{Opt, Range, options};

/// The options a SMART health rule's option applies to: a SMART reading, or the
/// burn-in's own.
const SMART_HEALTH: &[&str] = &["smart", "smart_test", "burn_in"];

options! {
/// Qualification options, shared by the probing command and `compare`.
#[derive(Debug, clap::Args)]
pub struct JudgeArgs {
    /// Judge the disks (implies --compare): a disk fails when a figure deviates from
    /// the group median, or from --baseline, by more than --max-deviation. Exit
    /// status 3 when one fails
    #[arg(long)]
    pub qualify: bool => Opt::any_run(),

    /// With --qualify: the largest deviation a figure may have, in percent (15 by
    /// default)
    #[arg(long, value_name = "PERCENT")]
    pub max_deviation: Option<f64> => Opt::with(&["qualify"]).range(Range::Percent),

    /// With --qualify: judge against a known-good run saved with --json-file
    #[arg(long, value_name = "FILE.json")]
    pub baseline: Option<std::path::PathBuf> => Opt::with(&["qualify"]),
}
}

options! {
/// The SMART health rules' options.
#[derive(Debug, clap::Args)]
pub struct SmartRuleArgs {
    /// The drive is new: any reallocated, uncorrectable, grown-defect, media-error
    /// or command-timeout count, power-on hours above --new-max-hours, power
    /// cycles, load cycles or host writes above their limits, any wear and any
    /// past self-test failure fail it
    #[arg(long)]
    pub new: bool => Opt::with(SMART_HEALTH),

    /// With --new: the power-on hours a new drive may have
    #[arg(long, value_name = "HOURS", default_value_t = crate::smart::health_rules::DEFAULT_NEW_MAX_HOURS)]
    pub new_max_hours: u64 => Opt::with(SMART_HEALTH),

    /// Tolerate up to N of a counter (on any drive, so a warning or FAIL moves), and
    /// a rise of up to N during a run. NAME is one of reallocated,
    /// reallocation-events, pending, offline-uncorrectable, reported-uncorrectable,
    /// grown-defects, uncorrected, media-errors, command-timeouts, crc (default 0),
    /// and for --new power-cycles (20), load-cycles (100), host-writes-gib (64);
    /// repeat the option for several
    #[arg(long = "threshold", value_name = "NAME=N", value_parser = crate::smart::health_rules::Counter::parse_threshold)]
    pub thresholds: Vec<(crate::smart::health_rules::Counter, u64)> => Opt::with(SMART_HEALTH),
}
}

/// The largest deviation --qualify allows unless --max-deviation says otherwise, in
/// percent, the option's unit ([`crate::results::settings::Deviation::DEFAULT`] past
/// the option).
pub const DEFAULT_MAX_DEVIATION: f64 = 15.0;

impl SmartRuleArgs {
    /// The rules' options.
    pub fn options(&self) -> crate::smart::RuleOptions {
        crate::smart::RuleOptions {
            new_drive: self.new,
            thresholds: crate::smart::health_rules::Thresholds {
                limits: self.thresholds.clone(),
            },
            new_max_hours: self.new_max_hours,
        }
    }
}

options! {
/// Which drive history database a command uses (docs/history.md).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct HistoryFileArgs {
    /// The drive history database to record in and judge with, instead of the
    /// default (root: /var/lib/seekprobe/history.db; others:
    /// $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a
    /// serial or model are recorded only in a file named here
    #[arg(long, value_name = "FILE", global = true)]
    pub history: Option<std::path::PathBuf> => Opt::alone(),

    /// Record nothing in the drive history, and judge without it
    #[arg(long, conflicts_with = "history", global = true)]
    pub no_history: bool => Opt::alone(),
}
}
