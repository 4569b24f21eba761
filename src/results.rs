//! The results of a run as plain, serialisable data: the only input of reporters.

use crate::analysis::{CommandOverhead, SeekAnalysis, SeekSamples, ZoneCurve};
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
    /// `--zones`: the transfer curve derived from the `zone` phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_curve: Option<ZoneCurve>,
    /// `--zones` with -w: the write curve derived from the `zone_write` phases.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_curve: Option<ZoneCurve>,
    /// `--seek-profile`: every sample's distance and latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek_samples: Option<SeekSamples>,
    /// `--seek-profile`: the bins and the figures derived from the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seek_analysis: Option<SeekAnalysis>,
    /// `--scan`: the surface scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<ScanResult>,
    /// `-c`: the command overhead per real sector (the text prints diskinfo's
    /// arithmetic, which assumes 512-byte sectors).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_overhead: Option<CommandOverhead>,
}

impl TestResult {
    /// A test that has measured nothing yet, complete until told otherwise.
    pub fn new(test: TestKind, settle_s: f64, engine: &str) -> TestResult {
        TestResult {
            test,
            settle_s,
            engine: engine.to_string(),
            phases: Vec::new(),
            outcome: Outcome::Complete,
            zone_curve: None,
            write_curve: None,
            seek_samples: None,
            seek_analysis: None,
            scan: None,
            command_overhead: None,
        }
    }

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
    /// Signs of shingled recording that need no writing ([`crate::smr::signs`]).
    #[serde(default)]
    pub smr_signs: Vec<crate::smr::signs::SmrSign>,
}

impl DiskResult {
    /// A disk not probed yet.
    pub fn new(name: &str) -> DiskResult {
        DiskResult {
            name: name.to_string(),
            info: None,
            tests: Vec::new(),
            warnings: Vec::new(),
            error: None,
            smr_signs: Vec::new(),
        }
    }

    /// Whether the disk failed (could not be opened, or a test failed or was skipped).
    pub fn failed(&self) -> bool {
        self.error.is_some()
            || self.tests.iter().any(|t| {
                matches!(t.outcome, Outcome::Failed(_) | Outcome::Skipped(_))
                    || t.scan.as_ref().is_some_and(|s| s.error_blocks > 0)
            })
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
    /// When the run started, in seconds since the Unix epoch (absent in runs saved
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_s: Option<u64>,
}

/// A run of unreadable sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorRange {
    /// The first sector.
    pub first_sector: u64,
    /// How many sectors.
    pub sectors: u64,
}

/// A run of slow blocks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowRange {
    /// The first sector of the first slow block.
    pub first_sector: u64,
    /// How many sectors the slow blocks cover.
    pub sectors: u64,
    /// The slowest block's latency.
    pub max_ns: u64,
}

/// What a surface scan found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanResult {
    /// The first byte scanned.
    pub start_bytes: u64,
    /// Just past the last byte scanned (when complete).
    pub end_bytes: u64,
    /// Bytes per read.
    pub block_bytes: u64,
    /// Reads made (including failed ones).
    pub blocks_read: u64,
    /// Bytes read successfully.
    pub bytes_read: u64,
    /// Time spent in the reads of blocks, without the sector-by-sector re-reads of
    /// failed blocks.
    pub elapsed_ns: u64,
    /// Blocks by latency: < 3, < 10, < 50, < 150, < 500 and >= 500 ms.
    pub buckets: Vec<u64>,
    /// Blocks that failed to read.
    pub error_blocks: u64,
    /// The unreadable sectors, found by reading each sector of a failed block.
    pub unreadable: Vec<SectorRange>,
    /// Blocks at least this slow are listed in `slow`.
    pub slow_ms: f64,
    /// Runs of slow blocks.
    pub slow: Vec<SlowRange>,
    /// The scan map: the slowest latency in each of up to 1000 equal runs of blocks
    /// (`u64::MAX` where a block failed, 0 where none was read).
    pub map_ns: Vec<u64>,
}
