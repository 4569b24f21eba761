//! Where an interrupted write-and-verify pass can go on from (`--burn-in --resume`
//! after a crash or a power cut): plain data, made by the verify engine at least
//! every 1% of the range and every minute, saved atomically beside `--json-file`
//! by the burn-in (`crate::prober`, its `checkpoint_file` module).
//!
//! A checkpoint covers only what the drive acknowledged: in a write half, the blocks
//! below `done_to` were written and a flush of the drive's cache returned after
//! them (a power cut loses only its volatile cache); in a read half, the blocks
//! below `done_to` were read back and judged. Resumed, a write half writes again
//! from `done_to` (the blocks after it may be lost) and then the whole read half
//! runs, so the blocks written before the crash but not yet read back are read and
//! judged, not rewritten; a read half reads on from `done_to`.

use crate::results::failures::Failures;
use crate::results::verify::{HalfKind, KeepsOnly, Pass};
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
    /// Number of the pass in progress (0 first), as in its stamps.
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
    /// The pass in progress found that the drive keeps only the first bytes
    /// written: its read half reads back only those.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeps_only: Option<KeepsOnly>,
    /// The format of the stamps the run wrote ([`crate::stamps::stamp::FORMAT`]);
    /// 1 in a file saved before the field existed. A run of another format is not
    /// resumed: what it wrote would read back as corrupt.
    #[serde(default = "format_1")]
    pub stamp_format: u32,
}

/// The stamp format of a checkpoint saved before it said which (format 1: magic
/// `SEEKPRB1`, a check value in each sector's last 8 bytes).
fn format_1() -> u32 {
    1
}

impl Checkpoint {
    /// Whether this checkpoint is of a run over the same range, blocks and passes,
    /// with this build's stamps, and holds together as the engine made it (a file edited or damaged by hand
    /// is not resumed from): one record per completed pass, `done_to` on a block
    /// boundary, the unwritable spans sorted and disjoint, the failed blocks below
    /// `done_to`.
    pub fn fits(&self, start: u64, end: u64, block: u64, passes: u32) -> bool {
        let same = (
            self.start_bytes,
            self.end_bytes,
            self.block_bytes,
            self.passes_planned,
        ) == (start, end, block, passes);
        // A read half of a drive that keeps only the first bytes written ends
        // where it stopped keeping them (a sector boundary).
        let kept_end = self.keeps_only.map(|k| k.lost_from);
        let on_block = self.done_to == end
            || Some(self.done_to) == kept_end
            || (self.done_to >= start && (self.done_to - start).is_multiple_of(block));
        let keeps_fits = self.keeps_only.is_none_or(|k| {
            k.pass == self.pass
                && (start..=end).contains(&k.lost_from)
                && k.kept_bytes == k.lost_from - start
                && self.half == HalfKind::Read
                && self.done_to <= k.lost_from
        });
        let spans_sorted = self.unwritable.iter().all(|&(a, b)| a < b)
            && self.unwritable.windows(2).all(|w| w[0].1 <= w[1].0);
        let blocks_done = self.failed_blocks.iter().all(|&(at, len)| {
            len > 0 && at >= start && at.checked_add(len).is_some_and(|e| e <= self.done_to)
        });
        same && self.stamp_format == crate::stamps::stamp::FORMAT
            && self.pass < passes
            && self.passes.len() == self.pass as usize
            && (start..=end).contains(&self.done_to)
            && on_block
            && spans_sorted
            && blocks_done
            && keeps_fits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checkpoint() -> Checkpoint {
        Checkpoint {
            nonce: 7,
            start_bytes: 0,
            end_bytes: 1 << 20,
            block_bytes: 65536,
            passes_planned: 2,
            passes: Vec::new(),
            pass: 0,
            half: HalfKind::Write,
            done_to: 131072,
            failures: Failures::new(),
            unwritable: vec![(10, 12), (40, 41)],
            failed_blocks: vec![(65536, 65536)],
            keeps_only: None,
            stamp_format: crate::stamps::stamp::FORMAT,
        }
    }

    #[test]
    fn a_checkpoint_as_the_engine_makes_it_fits_and_a_damaged_one_does_not() {
        let fits = |c: &Checkpoint| c.fits(0, 1 << 20, 65536, 2);
        assert!(fits(&checkpoint()));
        let damaged: [fn(&mut Checkpoint); 7] = [
            |c| c.stamp_format = 1,
            |c| c.block_bytes = 4096,
            |c| c.pass = 1,
            |c| c.done_to = 100_000,
            |c| c.unwritable.reverse(),
            |c| c.failed_blocks = vec![(131072, 65536)],
            |c| c.done_to = 2 << 20,
        ];
        for (i, damage) in damaged.iter().enumerate() {
            let mut c = checkpoint();
            damage(&mut c);
            assert!(!fits(&c), "damage {i} fits: {c:?}");
        }
    }
}
