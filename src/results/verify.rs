//! What a write-and-verify run (`--verify`) found: plain data, filled by the
//! write-and-verify engine, stored in the test's result, read by
//! reporters.

use super::engine::QueuedEngine;
use super::failures::Failures;
use super::scan::SlowRange;
pub use super::scan::Unanswered;
use serde::{Deserialize, Serialize};

/// Regions of the write and read curves (fewer when the range has fewer blocks).
pub const REGIONS: usize = 100;

/// One half of a pass: every block of the range written, or read and checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Half {
    /// Requests completed, failed ones included.
    pub blocks: u64,
    /// Bytes moved by the requests that succeeded.
    pub bytes: u64,
    /// Requests that failed with an error.
    pub error_blocks: u64,
    /// Bytes of the failed requests that their sector-by-sector retries (untimed,
    /// after the half) still wrote, or read back: in neither `bytes` nor the rates.
    #[serde(default)]
    pub retried_bytes: u64,
    /// From the first submission to the last completion, in ns of the target's
    /// clock (the write half without its flush).
    pub elapsed_ns: u64,
    /// The flush after the write half, in ns (None for the read half).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_ns: Option<u64>,
    /// Blocks by service time, as --scan's: < 3, < 10, < 50, < 150, < 500 and
    /// >= 500 ms.
    pub buckets: Vec<u64>,
    /// Runs of blocks at least `slow_ms` slow.
    pub slow: Vec<SlowRange>,
    /// Blocks slow in the queued half of which no block, done again alone with
    /// the blocks in flight beside it, was slow (not listed in `slow`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unconfirmed: u64,
    /// Bytes of the slow blocks done again alone to place them (`engine::confirm`:
    /// read again, or written again with the same stamps): seekprobe's own I/O, in
    /// neither `bytes` nor the rates.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redone_bytes: u64,
    /// The curve: bytes moved in each of equal regions of the range.
    pub region_bytes: Vec<u64>,
    /// The curve: the blocks' service time in each region, in ns.
    pub region_ns: Vec<u64>,
    /// Just past the last byte done (the range's end when complete).
    pub end_bytes: u64,
    /// Runs `[first_lba, sectors]` of the failed sectors recorded without reading
    /// each one: between failed sectors of one long failed area
    /// (`engine::locate`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inferred: Vec<[u64; 2]>,
}

impl Half {
    /// An empty half over `regions` regions, ending at `start`.
    pub fn new(regions: usize, start: u64) -> Half {
        Half {
            blocks: 0,
            bytes: 0,
            error_blocks: 0,
            retried_bytes: 0,
            elapsed_ns: 0,
            flush_ns: None,
            buckets: vec![0; 6],
            slow: Vec::new(),
            unconfirmed: 0,
            redone_bytes: 0,
            region_bytes: vec![0; regions],
            region_ns: vec![0; regions],
            end_bytes: start,
            inferred: Vec::new(),
        }
    }

    /// Bytes per second over the half (0 when nothing was timed).
    pub fn rate(&self) -> f64 {
        if self.elapsed_ns == 0 {
            0.0
        } else {
            self.bytes as f64 * 1e9 / self.elapsed_ns as f64
        }
    }

    /// Each region's rate in bytes per second (0 where nothing was timed).
    pub fn curve(&self) -> Vec<f64> {
        self.region_bytes
            .iter()
            .zip(&self.region_ns)
            .map(|(&b, &ns)| {
                if ns == 0 {
                    0.0
                } else {
                    b as f64 * 1e9 / ns as f64
                }
            })
            .collect()
    }
}

/// One pass: fresh stamps written over the range, flushed, read back and checked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pass {
    /// The pass number (0 first), part of every stamp.
    pub pass: u32,
    /// The write half's timing, latencies and rate; always present, the pass starts with it.
    pub write: Half,
    /// The read half (None when the pass stopped before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<Half>,
    /// The sectors that failed in this pass, with their kinds.
    pub failures: Failures,
}

/// Where an interrupted run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stopped {
    /// Number of the pass that was running (0 first), as in [`Pass::pass`].
    pub pass: u32,
    /// The half that was running: "write" or "read".
    pub half: HalfKind,
    /// Just past the last byte that half did.
    pub at_bytes: u64,
    /// The `--start` that resumes the pass: the end of what was read back and
    /// checked in it (its start when it stopped while writing).
    pub resume_start: u64,
}

/// Which half of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HalfKind {
    /// Stamped blocks written over the range, then flushed.
    Write,
    /// The range read back and each stamp checked.
    Read,
}

/// A drive that stopped keeping what it was written from one byte on, found by the
/// write half's read-back as it goes (a counterfeit that remaps: it keeps the first
/// `kept_bytes` written, wherever written, and drops the rest). The pass stopped
/// writing at `written_to` and read back only what the drive kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeepsOnly {
    /// The pass that found it (0 first); no later pass ran.
    pub pass: u32,
    /// The first byte (a sector boundary) from which nothing written was kept.
    pub lost_from: u64,
    /// Bytes the drive kept of those the pass wrote: from the range's start to
    /// `lost_from`.
    pub kept_bytes: u64,
    /// Just past the last block the pass wrote before it stopped writing.
    pub written_to: u64,
}

/// A write-and-verify run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// The run's nonce, in every stamp.
    pub nonce: u64,
    /// The range's first byte, a sector boundary (`--start` aligned down).
    pub start_bytes: u64,
    /// Just past the range's last byte.
    pub end_bytes: u64,
    /// Bytes per request.
    pub block_bytes: u64,
    /// The logical sector size the stamps and failures count in.
    pub sector_bytes: u32,
    /// Requests kept in flight.
    pub queue_depth: u32,
    /// Passes asked for.
    pub passes_planned: u32,
    /// Blocks at least this slow are listed.
    pub slow_ms: f64,
    /// The queued engine that moved the data.
    pub engine: QueuedEngine,
    /// The passes run, in order (the last may be partial).
    pub passes: Vec<Pass>,
    /// Where the run stopped, when Ctrl-C stopped it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
    /// The drive stopped answering and the run was given up there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<Unanswered>,
    /// The drive kept only the first bytes written: the pass stopped writing there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeps_only: Option<KeepsOnly>,
    /// The device's size changed under the run, and the run was stopped there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size_changed: Option<SizeChanged>,
}

/// The device's size changed during a pass (a bridge that re-enumerated, an HPA
/// set, a loop device resized): found when a request failed, or at a half's end,
/// by reading the size again. The run stopped there: nothing past the new end was
/// asked, and the blocks that failed for it are not failed sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SizeChanged {
    /// The size the run opened, in bytes.
    pub from_bytes: u64,
    /// The size read again, in bytes.
    pub to_bytes: u64,
    /// The pass it was found in (0 first).
    pub pass: u32,
    /// The half it was found in.
    pub half: HalfKind,
    /// The byte of the request whose failure (or the half's end) found it.
    pub at_bytes: u64,
    /// When, in ns since the test's start.
    pub after_ns: u64,
}

impl SizeChanged {
    /// The finding's one line: "the device's size changed during the pass: from X
    /// to Y bytes at byte B (pass P, writing, after T s)".
    pub fn line(&self) -> String {
        let what = match self.half {
            HalfKind::Write => "writing",
            HalfKind::Read => "reading back",
        };
        format!(
            "the device's size changed during the pass: from {} to {} bytes at byte {} (pass {}, {what}, after {:.1} s)",
            self.from_bytes,
            self.to_bytes,
            self.at_bytes,
            self.pass + 1,
            self.after_ns as f64 / 1e9
        )
    }
}

impl VerifyResult {
    /// Failed sectors over every pass.
    pub fn failed_sectors(&self) -> u64 {
        self.passes.iter().map(|p| p.failures.total()).sum()
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}
