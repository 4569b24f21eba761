//! A drive's burn-in as a run saves it: the steps, how each ended, and the command
//! that started the burn-in (the list of steps and what runs each is the burn-in's
//! module).

use serde::{Deserialize, Serialize};

/// One step of the burn-in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The drive's SMART health before anything runs.
    SmartBefore,
    /// The drive's short self-test.
    ShortSelfTest,
    /// The conveyance self-test (ATA drives that offer it).
    ConveyanceSelfTest,
    /// `-t`: diskinfo's seek and transfer test.
    SeekTransfer,
    /// `--zones`: the read and write rate over the whole device.
    Zones,
    /// `--smr-check`: the hidden-SMR behaviour test (only when asked for).
    SmrCheck,
    /// `--verify`: write and read back every sector (one pass, on rotating drives
    /// and flash alike).
    Verify,
    /// `--capacity-check`: is the drive as big as it says (flash drives: seconds,
    /// before the write-verify pass).
    CapacityCheck,
    /// `-S`: flushed random writes, seconds long, that find a flush the drive
    /// acknowledges without writing its cache (rotating drives).
    FlushedWrites,
    /// The whole drive discarded (TRIM/UNMAP) after the write-verify pass, so flash
    /// starts clean (unless `--no-discard`).
    Discard,
    /// The drive's long (extended) self-test.
    LongSelfTest,
    /// The drive's SMART health after the run, compared with before.
    SmartAfter,
}

/// How a step of one drive ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It ran to its end (its findings may still fail the drive).
    Done,
    /// It could not run to its end (why).
    Failed(String),
    /// Stopped by Ctrl-C: it runs again on `--resume`.
    Interrupted,
    /// Not run, and not a failure by itself (why: not in this build, not offered
    /// by the drive, too small).
    Skipped(String),
    /// Kept from the saved run given to `--resume` (it was done there).
    Resumed,
}

/// One step of one drive's burn-in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// Which step of the fixed burn-in sequence (SMART before, self-tests, the tests, ...).
    pub step: Step,
    /// How it ended.
    pub status: Status,
    /// How long it took, wall-clock seconds (a step kept by `--resume`: as the
    /// saved run recorded it; absent in runs saved before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// The step's request went unanswered and the drive was given up (a discard
    /// that hung): the step failed because the drive stopped answering.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
}

/// The burn-in of a whole run, saved in the JSON so that `--resume` can check it
/// is the same burn-in and say how to go on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// The command line that started it (the program name first).
    pub command: Vec<String>,
    /// The drives as named on the command line, in order.
    #[serde(default)]
    pub disks: Vec<String>,
    /// `--smr-check` was given too.
    #[serde(default)]
    pub smr_check: bool,
}
