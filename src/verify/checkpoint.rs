//! Where an interrupted write-and-verify pass can go on from (`--burn-in --resume`
//! after a crash or a power cut): plain data, made by the verify engine at least
//! every 1% of the range and every minute, saved atomically beside `--json-file`
//! by the burn-in (`crate::run`, its `checkpoint` module).
//!
//! A checkpoint covers only what the drive acknowledged: in a write half, the blocks
//! below `done_to` were written and a flush of the drive's cache returned after
//! them (a power cut loses only its volatile cache); in a read half, the blocks
//! below `done_to` were read back and judged. Resumed, a write half writes again
//! from `done_to` (the blocks after it may be lost) and then the whole read half
//! runs, so the blocks written before the crash but not yet read back are read and
//! judged, not rewritten; a read half reads on from `done_to`.

use crate::results::failures::Failures;
use crate::results::verify::{HalfKind, Pass};
use serde::{Deserialize, Serialize};

/// How far a write-and-verify run had got, and what it had found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// The run's nonce: the resumed run stamps with it, so that what was written
    /// before the crash reads back as its own.
    pub nonce: u64,
    /// The range and request size (a resume of another range is refused).
    pub start_bytes: u64,
    /// Just past the range.
    pub end_bytes: u64,
    /// Bytes per request.
    pub block_bytes: u64,
    /// Passes asked for.
    pub passes_planned: u32,
    /// The passes completed before the one in progress.
    pub passes: Vec<Pass>,
    /// The pass in progress.
    pub pass: u32,
    /// Its half in progress.
    pub half: HalfKind,
    /// Every block below this byte is done and acknowledged (see the module's
    /// documentation).
    pub done_to: u64,
    /// The failed sectors the pass in progress has found so far.
    pub failures: Failures,
    /// Its sectors whose write failed, `(first, end)`, sorted.
    pub unwritable: Vec<(u64, u64)>,
    /// Its failed blocks `(offset, len)` below `done_to` in the half in progress,
    /// not yet located (they are located when the half ends).
    pub failed_blocks: Vec<(u64, u64)>,
}

impl Checkpoint {
    /// Whether this checkpoint is of a run over the same range, blocks and passes.
    pub fn fits(&self, start: u64, end: u64, block: u64, passes: u32) -> bool {
        (
            self.start_bytes,
            self.end_bytes,
            self.block_bytes,
            self.passes_planned,
        ) == (start, end, block, passes)
            && self.pass < passes
            && (start..=end).contains(&self.done_to)
    }
}
