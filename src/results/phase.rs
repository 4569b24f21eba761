//! One timed phase of a test as plain data (a line of diskinfo's output).

use serde::{Deserialize, Serialize};

use super::stats::{Histogram, Summary};
use super::test_kind::PhaseId;

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
    /// In nanoseconds: for a phase run one operation at a time, the sum of its
    /// operations' latencies (each timed where its request is carried out, the
    /// tool's own time between them excluded); for a queued phase, from the first
    /// submission to the last completion.
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
    /// Timed operations completed (from the histogram, or the kept latencies).
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
