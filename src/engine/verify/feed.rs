//! One half's [`Feed`]: hands out the half's blocks in order (a write's buffer
//! stamped before it is submitted), collects their completions (a read's buffer
//! checked after, both untimed), times them in block order and records the
//! failures; the done prefix it keeps is what a checkpoint covers
//! (`checkpoint.rs`).

use super::Sampler;
use super::Saver;
use super::VerifyProgress;
use super::within;
use crate::device::size_probe::SizeProbe;
use crate::engine::in_order::{InBlockOrder, Timed};
use crate::engine::liveness::Liveness;
use crate::engine::locate::push_block;
use crate::engine::queue::{Completion, Feed, Request};
use crate::results::SlowRange;
use crate::results::failures::{Failures, ReadBack};
use crate::results::verify::{Half, HalfKind, KeepsOnly, Pass, SizeChanged, Unanswered};
use crate::stamps::stamp::Stamper;
use crate::test_plans::OpKind;
use crate::test_plans::scan::{ScanRange, bucket};

/// One half's feed: hands out its blocks in order, collects their completions, and
/// records the failures and checkpoints.
pub(super) struct HalfFeed<'a, 's> {
    pub(super) kind: OpKind,
    pub(super) range: ScanRange,
    pub(super) ss: u64,
    pub(super) stamper: &'a Stamper,
    pub(super) next: u64,
    pub(super) total: u64,
    pub(super) start_ns: Option<u64>,
    pub(super) last_done: u64,
    /// Completed blocks, their service times taken in block order: the length of
    /// each that moved its data.
    pub(super) times: InBlockOrder<Option<u64>>,
    pub(super) slow_ns: u64,
    pub(super) half: Half,
    pub(super) failures: &'a mut Failures,
    /// Runs of failed blocks (offset, len), consecutive ones joined as they
    /// complete, redone sector by sector afterwards.
    pub(super) failed: Vec<(u64, u64)>,
    /// Sectors whose write failed in this pass (first, end), sorted.
    pub(super) unwritable: &'a [(u64, u64)],
    pub(super) done_bytes: u64,
    pub(super) progress: VerifyProgress<'a>,
    pub(super) pass: u32,
    pub(super) half_kind: HalfKind,
    /// Whether the drive still answers, after failed blocks in a row.
    pub(super) live: &'a mut Liveness,
    /// The clock reading at the test's start.
    pub(super) test_start_ns: u64,
    /// Set when the drive stopped answering: nothing more is submitted.
    pub(super) unanswered: Option<Unanswered>,
    /// Every block below this byte has completed (its failure recorded if failed).
    pub(super) prefix: u64,
    /// Completed blocks past `prefix`.
    pub(super) ahead: std::collections::BTreeSet<u64>,
    /// The content verdicts of completed blocks past `prefix` (by block offset),
    /// recorded in `failures` when the prefix reaches them: a checkpoint carries
    /// the failures below its `done_to` only, as the resumed run reads the rest
    /// again (and `Failures` counts a sector recorded twice twice).
    pub(super) pending: std::collections::BTreeMap<u64, Vec<(u64, ReadBack)>>,
    /// Where checkpoints go, and what they carry besides the feed's own state.
    pub(super) saver: Option<&'a mut Saver<'s>>,
    pub(super) nonce: u64,
    pub(super) passes_planned: u32,
    pub(super) done_passes: &'a [Pass],
    /// The half ends here: the range's end, or where the drive stopped keeping
    /// what it was written (a read half after [`KeepsOnly`]).
    pub(super) stop_at: u64,
    /// A write half's read-back as it goes (`sample.rs`); None in a read half.
    pub(super) sampler: Option<Sampler>,
    /// The drive keeps only the first bytes written (found by the sampler, or by
    /// this pass's write half before a read half).
    pub(super) keeps_only: Option<KeepsOnly>,
    /// A write half's checkpoint waits for a flush through the target: nothing
    /// more is handed out until it is done (`HalfFeed::flush_due`, saver.rs).
    pub(super) flush_wanted: bool,
    /// Reads the target's size again (None: the target cannot tell).
    pub(super) size: Option<&'a SizeProbe>,
    /// Set when the size read again differs: nothing more is submitted.
    pub(super) size_changed: Option<SizeChanged>,
}

/// Blocks completed between two readings of the size when none fails.
const SIZE_EVERY: u64 = 16;

impl HalfFeed<'_, '_> {
    /// The block at `offset` completed: move the done prefix on, and checkpoint when
    /// it moved 1% of the range or a minute passed (`now_ns`).
    pub(super) fn completed(&mut self, offset: u64, now_ns: u64) {
        self.ahead.insert(offset);
        while self.ahead.remove(&self.prefix) {
            for (lba, v) in self.pending.remove(&self.prefix).unwrap_or_default() {
                self.failures.record(lba, v);
            }
            self.prefix = (self.prefix + self.range.block).min(self.stop_at);
        }
        self.checkpoint(now_ns);
    }

    /// Count a block's service time (a block that failed has none).
    pub(super) fn timed(&mut self, t: Timed<Option<u64>>) {
        let Some(len) = t.item else {
            return;
        };
        let offset = self.range.start + t.index * self.range.block;
        self.half.buckets[bucket(t.ns)] += 1;
        let r = self.region(offset);
        self.half.region_bytes[r] += len;
        self.half.region_ns[r] += t.ns;
        if t.ns >= self.slow_ns {
            SlowRange::push(&mut self.half.slow, offset / self.ss, len / self.ss, t.ns);
        }
    }

    /// The first sector of the block whose sample is due for reading back, if one
    /// is (`sample.rs`); a block whose write failed is not sampled.
    fn sample_due(&mut self) -> Option<u64> {
        let total = self.total;
        let (start, block) = (self.range.start, self.range.block);
        loop {
            let i = self
                .sampler
                .as_mut()?
                .due(self.prefix, start, block, total)?;
            let offset = start + i * block;
            if !self
                .failed
                .iter()
                .any(|&(at, len)| at <= offset && offset < at + len)
            {
                return Some(offset);
            }
            self.sampler.as_mut()?.record(i, None);
        }
    }

    /// A sample read back (`buf`: None when the read failed): lost unless it holds
    /// what this pass wrote there.
    fn sampled(&mut self, offset: u64, buf: Option<&[u8]>) {
        let lba = offset / self.ss;
        let lost = buf
            .map(|b| self.stamper.check(&b[..self.ss as usize], lba).next() != Some(ReadBack::Ok));
        let i = (offset - self.range.start) / self.range.block;
        if let Some(s) = self.sampler.as_mut() {
            s.record(i, lost);
        }
    }

    /// Read the target's size again (after a failed block, or every
    /// [`SIZE_EVERY`] blocks): a size other than the one opened is recorded, found
    /// at the block at `offset` completed at `now_ns`. Returns whether it changed.
    pub(super) fn size_check(&mut self, offset: u64, now_ns: u64) -> bool {
        if self.size_changed.is_none() {
            let after_ns = now_ns.saturating_sub(self.test_start_ns);
            self.size_changed = self
                .size
                .and_then(|s| s.found(self.pass, self.half_kind, offset, after_ns));
        }
        self.size_changed.is_some()
    }

    fn region(&self, offset: u64) -> usize {
        let n = self.half.region_bytes.len() as u64;
        let span = self.range.end - self.range.start;
        ((u128::from(offset - self.range.start) * u128::from(n) / u128::from(span)) as usize)
            .min(n as usize - 1)
    }
}

impl Feed for HalfFeed<'_, '_> {
    fn next(&mut self, _slot: usize, buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        if self.unanswered.is_some() || self.size_changed.is_some() || self.flush_wanted {
            return None;
        }
        if let Some(offset) = self.sample_due() {
            return Some((offset, self.ss as u32, OpKind::Read));
        }
        if self.next >= self.total || self.sampler.as_ref().is_some_and(|s| s.suspect.is_some()) {
            return None;
        }
        let offset = self.range.start + self.next * self.range.block;
        let len = self.range.block.min(self.stop_at - offset);
        if self.kind == OpKind::Write {
            // A backend that lends no buffer cannot write: nothing is submitted,
            // and the half's end says how far it got.
            let buf = buf?;
            self.stamper
                .stamp(&mut buf[..len as usize], offset / self.ss);
        }
        self.next += 1;
        Some((offset, len as u32, self.kind))
    }

    fn done(&mut self, req: &Request, c: Completion, buf: Option<&[u8]>) -> bool {
        if self.kind == OpKind::Write && req.kind == OpKind::Read {
            self.sampled(req.offset, c.result.is_ok().then_some(buf).flatten());
            return true;
        }
        let start = *self.start_ns.get_or_insert(c.start_ns);
        self.last_done = self.last_done.max(c.done_ns);
        self.half.elapsed_ns = self.last_done - start;
        self.half.blocks += 1;
        let (offset, len) = (req.offset, u64::from(req.len));
        let lba = offset / self.ss;
        self.half.end_bytes = self.half.end_bytes.max(offset + len);
        let index = (offset - self.range.start) / self.range.block;
        let timed = c.result.is_ok().then_some(len);
        self.times.push(index, c.start_ns, c.done_ns, timed);
        while let Some(t) = self.times.pop() {
            self.timed(t);
        }
        match c.result {
            Ok(()) => {
                self.live.ok(offset);
                self.half.bytes += len;
                if self.kind == OpKind::Read
                    && let Some(buf) = buf
                {
                    let buf = &buf[..len as usize];
                    if !self.stamper.all_ok(buf, lba) {
                        let bad: Vec<(u64, ReadBack)> = (self.stamper.check(buf, lba))
                            .enumerate()
                            .map(|(i, v)| (lba + i as u64, v))
                            .filter(|&(at, v)| v != ReadBack::Ok && !within(self.unwritable, at))
                            .collect();
                        if !bad.is_empty() {
                            self.pending.insert(offset, bad);
                        }
                    }
                }
            }
            Err(_) if self.size_check(offset, c.done_ns) => {
                // A block failed because the device shrank: no failed sectors.
                return false;
            }
            Err(e) => {
                self.half.error_blocks += 1;
                push_block(&mut self.failed, offset, len);
                let after = c.done_ns.saturating_sub(self.test_start_ns);
                if self.unanswered.is_none() {
                    self.unanswered = match self.kind {
                        OpKind::Write => self.live.write_refused(offset, &e, after),
                        _ => None,
                    }
                    .or_else(|| self.live.failed(offset, &e, after));
                }
            }
        }
        if self.unanswered.is_some()
            || (self.half.blocks.is_multiple_of(SIZE_EVERY) && self.size_check(offset, c.done_ns))
        {
            return false;
        }
        self.completed(offset, c.done_ns);
        self.done_bytes += len;
        let bytes = crate::engine::PassProgress::Bytes(self.done_bytes);
        (self.progress)(self.pass, self.half_kind, bytes);
        true
    }
}
