//! Where an interrupted write-verify run can go on from: a checkpoint at least
//! every 1% of the range and every minute on the target's clock (a simulated
//! drive's virtual one), handed to the [`Saver`] as it is made. A write half's
//! checkpoint covers only what a flush of the drive's cache acknowledged: the
//! half stops handing out writes, lets those in flight complete, and flushes
//! through the target (`HalfFeed::flush_due`) before it goes on. The target's
//! watchdog holds that flush to `--io-timeout` as every request: a drive that
//! does not answer it is given up ([`flush_unanswered`]). (An `fdatasync` from
//! the pass's own thread, as before, waited for a hung drive for ever: a loop
//! device's flush waits behind a hung write, docs/testing.md.)

use super::feed::HalfFeed;
use super::{PassState, Run, VerifyParams};
use crate::device::Target;
use crate::engine::queue_loop::NoAnswer;
use crate::results::failures::Failures;
use crate::results::verify::{Half, HalfKind, Pass, Unanswered, VerifyResult};
use crate::stamps::checkpoint::Checkpoint;
use crate::test_plans::OpKind;

/// Checkpoints of the run, at least every 1% of the range and every minute,
/// handed to `save` as they are made.
pub struct Saver<'s> {
    /// Saves a checkpoint (atomically, beside --json-file).
    pub save: &'s mut dyn FnMut(&Checkpoint),
    pub(super) last_bytes: u64,
    pub(super) last_ns: u64,
}

/// The most time between two checkpoints.
pub const CHECKPOINT_NS: u64 = 60_000_000_000;

impl<'s> Saver<'s> {
    /// A saver handing checkpoints to `save`.
    pub fn new(save: &'s mut dyn FnMut(&Checkpoint)) -> Saver<'s> {
        Saver {
            save,
            last_bytes: 0,
            last_ns: 0,
        }
    }
}

/// The checkpoint at the start of `half` of pass `pass` of `p`'s run, before it
/// found anything, after the completed `passes`.
pub(super) fn half_start(
    p: &VerifyParams,
    nonce: u64,
    passes: &[Pass],
    pass: u32,
    half: HalfKind,
) -> Checkpoint {
    Checkpoint {
        nonce,
        start_bytes: p.range.start,
        end_bytes: p.range.end,
        block_bytes: p.range.block,
        passes_planned: p.passes,
        passes: passes.to_vec(),
        pass,
        half,
        done_to: p.range.start,
        failures: Failures::new(),
        unwritable: Vec::new(),
        failed_blocks: Vec::new(),
        keeps_only: None,
        stamp_format: crate::stamps::stamp::FORMAT,
    }
}

impl HalfFeed<'_, '_> {
    /// After a block completed (at `now_ns`): checkpoint when the done prefix
    /// moved 1% of the range or a minute passed. A write half's waits for a
    /// flush through the target, once the writes in flight completed
    /// (`flush_due`).
    pub(super) fn checkpoint(&mut self, now_ns: u64) {
        let Some(s) = self.saver.as_deref_mut() else {
            return;
        };
        let span = self.range.end - self.range.start;
        let due = self.prefix >= s.last_bytes + span.div_ceil(100)
            || (now_ns >= s.last_ns + CHECKPOINT_NS && self.prefix > s.last_bytes);
        if !due {
            return;
        }
        // A write half's checkpoint covers only what a flush of the drive's cache
        // acknowledged, after every block below the prefix completed.
        if self.kind == OpKind::Write {
            self.flush_wanted = true;
            return;
        }
        self.save_checkpoint(now_ns);
    }

    /// A write half stopped for its checkpoint (`flush_wanted`, every write
    /// handed out completed): the drive's cache flushed through `target` on its
    /// clock, then the checkpoint saved. False when none was wanted. A flush that
    /// fails or flushes nothing saves none; one given up by the target's watchdog
    /// gives the drive up (`unanswered`: nothing more is handed out).
    pub(super) fn flush_due(&mut self, target: &mut dyn Target) -> bool {
        if !std::mem::take(&mut self.flush_wanted) {
            return false;
        }
        let r = target.flush();
        let now = target.clock().now_ns();
        let after = now.saturating_sub(self.test_start_ns);
        if let Ok(true) = r {
            self.save_checkpoint(now);
        } else if let Some(u) =
            (r.as_ref().err()).and_then(|e| flush_unanswered(e, self.prefix, after))
        {
            self.unanswered = Some(u);
        } else if let Some(s) = self.saver.as_deref_mut() {
            // Nothing flushed (a drive that cannot, or an error): no checkpoint,
            // and the next try waits for the next 1% or minute, not the next block.
            s.last_bytes = self.prefix;
            s.last_ns = now;
        }
        true
    }

    /// Save the checkpoint of the done prefix, made at `now_ns`.
    fn save_checkpoint(&mut self, now_ns: u64) {
        let Some(s) = self.saver.as_deref_mut() else {
            return;
        };
        let prefix = self.prefix;
        let cp = Checkpoint {
            nonce: self.nonce,
            start_bytes: self.range.start,
            end_bytes: self.range.end,
            block_bytes: self.range.block,
            passes_planned: self.passes_planned,
            passes: self.done_passes.to_vec(),
            pass: self.pass,
            half: self.half_kind,
            done_to: prefix,
            failures: self.failures.clone(),
            unwritable: self.unwritable.to_vec(),
            // The failed runs below the prefix (clipped to it: the resumed run
            // reads the rest again).
            failed_blocks: self
                .failed
                .iter()
                .filter(|b| b.0 < prefix)
                .map(|&(at, len)| (at, len.min(prefix - at)))
                .collect(),
            keeps_only: self.keeps_only,
            stamp_format: crate::stamps::stamp::FORMAT,
        };
        (s.save)(&cp);
        s.last_bytes = prefix;
        s.last_ns = now_ns;
    }
}

impl Run<'_, '_> {
    /// A whole write half's end: the drive's cache flushed (timed in `half`),
    /// and, once it is, the checkpoint that resumes with the read half. Some when
    /// the target's watchdog gave the flush up: the drive stopped answering.
    pub(super) fn flush_write_half(
        &mut self,
        r: &VerifyResult,
        ps: &PassState<'_>,
        half: &mut Half,
    ) -> Option<Unanswered> {
        let t0 = self.target.clock().now_ns();
        // Ok(false): nothing was flushed (`Target::flush`). Timed where it is
        // carried out (a real device's I/O thread), the hand-over excluded; a flush
        // that failed is timed here.
        let (flushed, ns) = match self.target.flush_timed() {
            Ok((flushed, ns)) => (flushed, ns),
            Err(e) => {
                let now = self.target.clock().now_ns();
                let after = now.saturating_sub(self.test_start_ns);
                let given_up = flush_unanswered(&e, half.end_bytes, after);
                // A flush given up has no time of the drive's: only the limit waited.
                if given_up.is_none() {
                    half.flush_ns = Some(now - t0);
                }
                return given_up;
            }
        };
        half.flush_ns = Some(ns);
        // The write half is done and flushed: a crash now resumes with the read
        // half from its start.
        if let (true, Some(s)) = (flushed, self.saver.as_deref_mut()) {
            let cp = Checkpoint {
                failures: ps.failures.clone(),
                unwritable: ps.unwritable.clone(),
                keeps_only: r.keeps_only,
                ..half_start(self.p, self.nonce, &r.passes, ps.pass, HalfKind::Read)
            };
            (s.save)(&cp);
            s.last_bytes = self.p.range.start;
            s.last_ns = self.target.clock().now_ns();
        }
        None
    }
}

/// The drive given up, when the flush's error `e` says the target's watchdog
/// gave it up, with the writes below `written` done, `after_ns` into the test:
/// stopped at `written`, the flush named as the request. None for any other
/// error.
fn flush_unanswered(e: &std::io::Error, written: u64, after_ns: u64) -> Option<Unanswered> {
    let n = NoAnswer::of(e)?;
    Some(Unanswered::stopped(
        written,
        after_ns,
        format!(
            "no answer for {} s to a cache flush of the writes below byte {written}",
            n.waited.as_secs_f64()
        ),
    ))
}
