//! What SMART found on one disk during a run, as plain data: the health before and
//! after, the self-tests asked for, the rules' findings and the temperatures during
//! long work (reading, judging and sampling are the SMART module's).

use super::health::Health;
use serde::{Deserialize, Serialize};

/// How one asked-for self-test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelfTestOutcome {
    /// Completed without error.
    Passed,
    /// The drive found an error (the first error's LBA when it says).
    Failed,
    /// Aborted by something other than seekprobe (a reset, another program).
    Aborted,
    /// Ctrl-C: seekprobe aborted it on the drive.
    Interrupted,
    /// Not run: the drive does not offer this kind, or it has no SMART.
    Skipped,
}

/// One self-test asked for with `--smart-test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfTestRecord {
    /// Which self-test was asked for (short, conveyance or long), as `--smart-test` named it.
    pub kind: SelfTestKind,
    /// How it ended.
    pub outcome: SelfTestOutcome,
    /// The drive's log entry in smartctl's words ("Completed: read failure"), or
    /// why it was skipped.
    pub status: String,
    /// The LBA of the first error, for a failed test when the drive says.
    #[serde(default)]
    pub first_error_lba: Option<u64>,
    /// How long it ran (the drive's clock: real time, or a simulated drive's
    /// virtual time), in seconds.
    #[serde(default)]
    pub elapsed_s: f64,
}

/// What SMART said about one disk during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartResult {
    /// The health read before the tests (None: no SMART, or it could not be read).
    pub before: Option<Health>,
    /// The health read after them (None when the run stopped before).
    pub after: Option<Health>,
    /// The self-tests asked for, in the order they ran.
    pub self_tests: Vec<SelfTestRecord>,
    /// The health rules' findings (before against after, and the self-tests).
    pub findings: Vec<Finding>,
    /// The device has no SMART: the one-line note (never a failure by itself).
    pub note: Option<String>,
    /// SMART could not be read or a self-test not started: why (the disk fails).
    pub error: Option<String>,
    /// The drive's temperatures during long work (a burn-in, --verify,
    /// --smr-check), with the pauses of its writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<TemperatureLog>,
}

/// A self-test kind, as `smartctl -t` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfTestKind {
    /// The short self-test (ATA: usually under ten minutes; NVMe: two minutes or
    /// less; SCSI: "Background short").
    Short,
    /// The conveyance self-test (ATA only): damage from transport.
    Conveyance,
    /// The long (extended) self-test: the whole surface.
    Long,
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// For information; the drive is not judged by it.
    Note,
    /// Worth a look, but not the drive's failure (e.g. a cable fault).
    Warn,
    /// The drive fails.
    Fail,
}

/// The figure a finding is about: which counter or field, its count, and where
/// it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figure {
    /// The counter or figure, e.g. "pending", "power-on-hours" (a `--threshold`
    /// name where there is one).
    pub counter: String,
    /// Its value (a count, hours, percent), when it is a number.
    pub count: Option<u64>,
    /// Where it was read, e.g. "ATA attribute 197, raw".
    pub source: String,
}

/// One finding: how much it weighs, why, and the figure it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Fail, warning or note: whether and how it counts against the drive.
    pub severity: Severity,
    /// A short stable name for the rule, e.g. "smart-failing", "pending".
    pub rule: String,
    /// The reason, in words, with the figures.
    pub reason: String,
    /// The figure it is about (absent for a finding on no one figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub figure: Option<Figure>,
}

/// One temperature reading of the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// When, in whole seconds since the sampling started (the drive's clock:
    /// real, or a simulated drive's virtual time).
    pub at_s: u64,
    /// The temperature, °C.
    pub celsius: i64,
}

/// A pause of the drive's writes because it was too hot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// When it began, seconds since the sampling started.
    pub from_s: u64,
    /// When writes resumed (None: the work ended first).
    pub to_s: Option<u64>,
    /// The reading that paused them, °C.
    pub celsius: i64,
    /// Whether the drive cooled 5 °C below the limit (false: the work ended
    /// first, or the pause reached its longest and writes resumed hot).
    pub cooled: bool,
}

/// The temperatures of one drive during the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TemperatureLog {
    /// The limit, °C.
    pub limit_c: i64,
    /// Where the limit comes from: "--max-temp", "the drive's
    /// temperature.op_limit_max" or "seekprobe's default".
    pub limit_source: String,
    /// The readings, oldest first.
    pub samples: Vec<Sample>,
    /// The pauses of the drive's writes.
    pub pauses: Vec<Pause>,
    /// Readings that failed (the drive did not say): how many.
    pub unread: u64,
}
