//! The results of a run as plain, serialisable data: the only input of reporters.

use crate::compare::Verdict;
use crate::device::DeviceInfo;
use crate::probe::{PhaseId, TestKind};
use crate::stats::{Histogram, Summary};
use serde::{Deserialize, Serialize};

/// The version of this data model's JSON form; raised on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// One timed phase (one line of diskinfo's output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// Which phase.
    pub id: PhaseId,
    /// How many timed operations the plan had (for a phase bounded by time, the
    /// number issued).
    pub ops_planned: u64,
    /// The length of each timed operation in bytes.
    pub op_bytes: u32,
    /// Byte offset of the first timed operation.
    pub first_offset_bytes: u64,
    /// Time from the start of the first timed operation to the end of the last
    /// completed one, in nanoseconds.
    pub elapsed_ns: u64,
    /// Each completed operation's latency in nanoseconds, in order. They add up to
    /// `elapsed_ns`. Empty when the phase keeps a histogram instead.
    #[serde(default)]
    pub latencies_ns: Vec<u64>,
    /// The latencies as a histogram, for phases with too many operations to keep
    /// each (-i, -S).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Histogram>,
    /// Requests kept in flight (-i).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u32>,
    /// The seed of the random offsets (-i, -S), to repeat the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Mean, spread and percentiles of the latencies (absent when none completed).
    pub summary: Option<Summary>,
    /// Whether the phase was stopped (Ctrl-C or an error) before its end.
    #[serde(default)]
    pub stopped_early: bool,
}

impl PhaseResult {
    /// Operations completed.
    pub fn ops_done(&self) -> u64 {
        match &self.histogram {
            Some(h) => h.count,
            None => self.latencies_ns.len() as u64,
        }
    }
    /// Whether the phase ran to its end: every planned operation completed.
    pub fn complete(&self) -> bool {
        !self.stopped_early && self.ops_done() == self.ops_planned
    }
    /// Elapsed time in seconds.
    pub fn elapsed_s(&self) -> f64 {
        self.elapsed_ns as f64 / 1e9
    }
    /// Bytes transferred by the completed operations.
    pub fn bytes_done(&self) -> u64 {
        self.ops_done() * u64::from(self.op_bytes)
    }
}

/// How a test ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every phase ran to the end.
    Complete,
    /// Stopped by Ctrl-C; the phases listed are the ones measured.
    Interrupted,
    /// Stopped by an error (the message names the phase, offset and errno).
    Failed(String),
    /// Not run: the device is too small or an earlier test failed (why).
    Skipped(String),
}

/// One test (-c or -t) on one disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// Which test.
    pub test: TestKind,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// The engine that ran it ("sync").
    pub engine: String,
    /// The phases measured, in order. The last may be partial (interrupted or
    /// failed): its completed operations are kept, but reporters print only
    /// complete phases.
    pub phases: Vec<PhaseResult>,
    /// How the test ended.
    pub outcome: Outcome,
}

impl TestResult {
    /// The measured phase with this id.
    pub fn phase(&self, id: PhaseId) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.id == id)
    }
}

/// A note on the validity of a measurement, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// A stable identifier, e.g. `page_cache`.
    pub code: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub advice: String,
}

/// Everything about one disk of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskResult {
    /// The name as given.
    pub name: String,
    /// Identity and geometry; absent when the target could not be opened.
    pub info: Option<DeviceInfo>,
    /// The tests, in the order they ran.
    pub tests: Vec<TestResult>,
    /// Validity warnings.
    pub warnings: Vec<Warning>,
    /// The error that stopped this disk, if any.
    pub error: Option<String>,
}

impl DiskResult {
    /// Whether the disk failed (could not be opened, or a test failed or was skipped).
    pub fn failed(&self) -> bool {
        self.error.is_some()
            || self
                .tests
                .iter()
                .any(|t| matches!(t.outcome, Outcome::Failed(_) | Outcome::Skipped(_)))
    }
}

/// A whole run: the tool, what was asked, and each disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// "seekprobe".
    pub tool: String,
    /// The tool's version.
    pub tool_version: String,
    /// The tests asked for, in the order they run.
    pub tests: Vec<TestKind>,
    /// Whether the verbose (diskinfo -v) form was asked for.
    pub verbose: bool,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// Each disk, in the order given.
    pub disks: Vec<DiskResult>,
    /// Qualification verdicts (--qualify), one per disk.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<Verdict>,
}
