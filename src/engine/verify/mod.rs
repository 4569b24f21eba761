//! The write-and-verify engine (`--verify`): for each pass, every block of the
//! range written with fresh stamps, the write cache flushed, every block read back
//! and checked. The requests go through the queued engines' one loop
//! ([`super::driver::drive_feed`], picked by [`queued::run_feed`]): this file is
//! only the [`Feed`], which stamps a write's buffer before it is submitted and
//! checks a read's after it completed (both untimed), and the bookkeeping.
//!
//! A block's time is its service time, as the scan's: from when the device could
//! start on it (its submission, or the previous block's completion if later) to its
//! completion ([`InBlockOrder`]). Blocks that fail with an error are redone sector by sector after
//! their half (untimed, through the target), so that the failures name the exact
//! sectors: a sector whose write fails is unwritable (and not judged again when
//! read back), one whose read fails unreadable.

use super::confirm::{Redo, confirm};
use super::driver::NoAnswer;
use super::in_order::{InBlockOrder, Timed};
use super::liveness::{Liveness, given_up};
use super::locate::{Probe, locate, push_block};
use super::queue::{Completion, Feed, Request, Stop};
use super::queued;
use crate::device::{AlignedBuf, Target};
use crate::probe::OpKind;
use crate::probe::scan::{ScanRange, bucket};
use crate::results::failures::ReadBack;
use crate::results::failures::{FailureKind, Failures};
use crate::results::settings::QueueDepth;
use crate::results::verify::{
    Half, HalfKind, KeepsOnly, Pass, REGIONS, Stopped, Unanswered, VerifyResult,
};
use crate::results::{QueuedEngine, SlowRange};
use crate::verify::checkpoint::Checkpoint;
use crate::verify::stamp::{StampSize, Stamper};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

mod sample;
use sample::Sampler;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyParams {
    /// Bytes to verify and bytes per request, already sector-aligned.
    pub range: ScanRange,
    /// Passes, each with fresh content.
    pub passes: u32,
    /// The run's nonce ([`Stamper::fresh_nonce`]).
    pub nonce: u64,
    /// Requests kept in flight.
    pub queue_depth: QueueDepth,
    /// Blocks at least this slow are listed.
    pub slow_ms: f64,
    /// A request unanswered this long gives the drive up (None: no limit).
    pub io_timeout: Option<std::time::Duration>,
    /// Go on from this checkpoint of an interrupted run (its nonce and passes).
    pub resume: Option<Checkpoint>,
    /// Byte offsets of sectors that read fine before this test.
    pub known_good: Vec<u64>,
}

/// Checkpoints of the run, at least every 1% of the range and every minute,
/// handed to `save` as they are made.
pub struct Saver<'s> {
    /// Saves a checkpoint (atomically, beside --json-file).
    pub save: &'s mut dyn FnMut(&Checkpoint),
    /// A duplicate of the target's descriptor for the flush of a write half's
    /// checkpoint (None: no checkpoints of write halves).
    fd: Option<std::os::fd::OwnedFd>,
    last_bytes: u64,
    last_ns: u64,
}

/// The most time between two checkpoints.
pub const CHECKPOINT_NS: u64 = 60_000_000_000;

impl<'s> Saver<'s> {
    /// A saver handing checkpoints to `save`.
    pub fn new(save: &'s mut dyn FnMut(&Checkpoint)) -> Saver<'s> {
        Saver {
            save,
            fd: None,
            last_bytes: 0,
            last_ns: 0,
        }
    }
}

/// Progress: (pass, half, bytes of the half done).
pub type Progress<'a> = &'a mut dyn FnMut(u32, HalfKind, u64);

/// One half's feed: hands out its blocks in order, collects their completions, and
/// records the failures and checkpoints.
struct HalfFeed<'a, 's> {
    kind: OpKind,
    range: ScanRange,
    ss: u64,
    stamper: &'a Stamper,
    next: u64,
    total: u64,
    start_ns: Option<u64>,
    last_done: u64,
    /// Completed blocks, their service times taken in block order: the length of
    /// each that moved its data.
    times: InBlockOrder<Option<u64>>,
    slow_ns: u64,
    half: Half,
    failures: &'a mut Failures,
    /// Runs of failed blocks (offset, len), consecutive ones joined as they
    /// complete, redone sector by sector afterwards.
    failed: Vec<(u64, u64)>,
    /// Sectors whose write failed in this pass (first, end), sorted.
    unwritable: &'a [(u64, u64)],
    done_bytes: u64,
    progress: Progress<'a>,
    pass: u32,
    half_kind: HalfKind,
    /// Whether the drive still answers, after failed blocks in a row.
    live: &'a mut Liveness,
    /// The clock reading at the test's start.
    test_start_ns: u64,
    /// Set when the drive stopped answering: nothing more is submitted.
    unanswered: Option<Unanswered>,
    /// Every block below this byte has completed (its failure recorded if failed).
    prefix: u64,
    /// Completed blocks past `prefix`.
    ahead: std::collections::BTreeSet<u64>,
    /// The content verdicts of completed blocks past `prefix` (by block offset),
    /// recorded in `failures` when the prefix reaches them: a checkpoint carries
    /// the failures below its `done_to` only, as the resumed run reads the rest
    /// again (and `Failures` counts a sector recorded twice twice).
    pending: std::collections::BTreeMap<u64, Vec<(u64, ReadBack)>>,
    /// Where checkpoints go, and what they carry besides the feed's own state.
    saver: Option<&'a mut Saver<'s>>,
    nonce: u64,
    passes_planned: u32,
    done_passes: &'a [Pass],
    /// The half ends here: the range's end, or where the drive stopped keeping
    /// what it was written (a read half after [`KeepsOnly`]).
    stop_at: u64,
    /// A write half's read-back as it goes (`sample.rs`); None in a read half.
    sampler: Option<Sampler>,
    /// The drive keeps only the first bytes written (found by the sampler, or by
    /// this pass's write half before a read half).
    keeps_only: Option<KeepsOnly>,
}

impl HalfFeed<'_, '_> {
    /// The block at `offset` completed: move the done prefix on, and checkpoint when
    /// it moved 1% of the range or a minute passed (`now_ns`).
    fn completed(&mut self, offset: u64, now_ns: u64) {
        self.ahead.insert(offset);
        while self.ahead.remove(&self.prefix) {
            for (lba, v) in self.pending.remove(&self.prefix).unwrap_or_default() {
                self.failures.record(lba, v);
            }
            self.prefix = (self.prefix + self.range.block).min(self.stop_at);
        }
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
        if self.kind == OpKind::Write
            && s.fd
                .as_ref()
                .is_none_or(|fd| rustix::fs::fdatasync(fd).is_err())
        {
            return;
        }
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
            stamp_format: crate::verify::stamp::FORMAT,
        };
        (s.save)(&cp);
        s.last_bytes = prefix;
        s.last_ns = now_ns;
    }

    /// Count a block's service time (a block that failed has none).
    fn timed(&mut self, t: Timed<Option<u64>>) {
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

    fn region(&self, offset: u64) -> usize {
        let n = self.half.region_bytes.len() as u64;
        let span = self.range.end - self.range.start;
        ((u128::from(offset - self.range.start) * u128::from(n) / u128::from(span)) as usize)
            .min(n as usize - 1)
    }
}

/// The checkpoint at the start of `half` of pass `pass` of `p`'s run, before it
/// found anything, after the completed `passes`.
fn half_start(
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
        stamp_format: crate::verify::stamp::FORMAT,
    }
}

/// Pass `pass` as it ended: its write half, its read half if that ran, its failures.
fn ended(pass: u32, halves: Vec<Half>, failures: Failures) -> Pass {
    let mut it = halves.into_iter();
    Pass {
        pass,
        write: it.next().expect("the write half ran"),
        read: it.next(),
        failures,
    }
}

/// Whether `lba` is among the `(first, end)` spans (sorted, disjoint).
fn within(spans: &[(u64, u64)], lba: u64) -> bool {
    let i = spans.partition_point(|&(s, _)| s <= lba);
    i > 0 && lba < spans[i - 1].1
}

impl Feed for HalfFeed<'_, '_> {
    fn next(&mut self, _slot: usize, buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        if self.unanswered.is_some() {
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
        if self.unanswered.is_some() {
            return false;
        }
        self.completed(offset, c.done_ns);
        self.done_bytes += len;
        (self.progress)(self.pass, self.half_kind, self.done_bytes);
        true
    }
}

/// What a run carries from half to half: the target and its parameters, the
/// drive's liveness, and the requests left behind.
struct Run<'a, 's> {
    target: &'a mut dyn Target,
    p: &'a VerifyParams,
    stop: &'a AtomicBool,
    progress: Progress<'a>,
    saver: Option<&'a mut Saver<'s>>,
    /// Whether the drive still answers, over the whole run.
    live: Liveness,
    /// The clock reading at the test's start.
    test_start_ns: u64,
    /// Requests left behind unanswered (the watchdog or Ctrl-C), over the halves.
    abandoned: usize,
    /// The run's nonce (a resumed run's own).
    nonce: u64,
    /// The regions of each half's curve.
    regions: usize,
}

/// One pass in progress: its stamps, its failures and the halves done.
struct PassState<'c> {
    pass: u32,
    stamper: Stamper,
    /// The checkpoint this pass resumes from, if it does.
    resumed: Option<&'c Checkpoint>,
    failures: Failures,
    /// Sectors whose write failed in this pass (first, end), sorted.
    unwritable: Vec<(u64, u64)>,
    halves: Vec<Half>,
}

/// Run the passes of `p` on `target`. `progress` is told each half's bytes done.
/// Stops only for Ctrl-C (the result says where, and the `--start` that resumes)
/// or an engine that fails as a whole; failed requests are recorded and passed.
/// The count returned last is of the requests left behind unanswered (the
/// watchdog or Ctrl-C): seekprobe can end only when the kernel gives them back.
pub fn run_verify(
    target: &mut dyn Target,
    p: &VerifyParams,
    stop: &AtomicBool,
    progress: Progress<'_>,
    mut saver: Option<&mut Saver<'_>>,
) -> (VerifyResult, Option<Stop>, usize) {
    let ss = target.info().sector_size;
    // A resumed run: its nonce, its completed passes, and the pass in progress.
    let resume = p
        .resume
        .as_ref()
        .filter(|c| c.fits(p.range.start, p.range.end, p.range.block, p.passes));
    let nonce = resume.map_or(p.nonce, |c| c.nonce);
    let mut r = VerifyResult {
        nonce,
        start_bytes: p.range.start,
        end_bytes: p.range.end,
        block_bytes: p.range.block,
        sector_bytes: ss,
        queue_depth: p.queue_depth.get(),
        passes_planned: p.passes,
        slow_ms: p.slow_ms,
        engine: QueuedEngine::Unknown,
        passes: resume.map(|c| c.passes.clone()).unwrap_or_default(),
        stopped: None,
        unanswered: None,
        keeps_only: resume.and_then(|c| c.keeps_only),
    };
    // The sector size checked once, before any I/O: every pass's stamper follows.
    let size = match StampSize::new(ss) {
        Ok(size) => size,
        Err(e) => {
            let error = io::Error::new(io::ErrorKind::InvalidInput, e.to_string());
            let stop = Stop::Failed {
                setup: true,
                offset: 0,
                error,
            };
            return (r, Some(stop), 0);
        }
    };
    if let Some(s) = saver.as_deref_mut() {
        s.fd = target.raw_fd().and_then(|fd| fd.try_clone_to_owned().ok());
        s.last_ns = target.clock().now_ns();
        s.last_bytes = p.range.start;
    }
    let mut run = Run {
        test_start_ns: target.clock().now_ns(),
        live: Liveness::new(target.raw_fd(), u64::from(ss)).knowing(&p.known_good),
        target,
        p,
        stop,
        progress,
        saver,
        abandoned: 0,
        nonce,
        regions: (p.range.count() as usize).clamp(1, REGIONS),
    };
    for pass in resume.map_or(0, |c| c.pass)..p.passes {
        let resumed = resume.filter(|c| c.pass == pass);
        let mut ps = PassState {
            pass,
            stamper: Stamper::new(nonce, pass, size),
            resumed,
            failures: resumed.map_or_else(Failures::new, |c| c.failures.clone()),
            unwritable: resumed.map(|c| c.unwritable.clone()).unwrap_or_default(),
            halves: Vec::new(),
        };
        for kind in [OpKind::Write, OpKind::Read] {
            let stopped = run.half(&mut r, &mut ps, kind);
            if stopped.is_some() {
                r.passes.push(ended(pass, ps.halves, ps.failures));
                return (r, stopped, run.abandoned);
            }
        }
        r.passes.push(ended(pass, ps.halves, ps.failures));
        // A drive that keeps only the first bytes written: no later pass.
        if r.keeps_only.is_some() {
            break;
        }
        if let Some(s) = run.saver.as_deref_mut()
            && pass + 1 < p.passes
        {
            let cp = half_start(p, nonce, &r.passes, pass + 1, HalfKind::Write);
            (s.save)(&cp);
            s.last_bytes = p.range.start;
        }
    }
    (r, None, run.abandoned)
}

/// How a half's feed ran, and what it left.
struct FeedEnd {
    run: queued::FeedRun,
    half: Half,
    /// Runs of failed blocks (offset, len), to locate.
    failed: Vec<(u64, u64)>,
    unanswered: Option<Unanswered>,
    /// Where this half was to end: the range's end, or where it stopped writing
    /// (or reading back) because the drive keeps only that much.
    half_end: u64,
}

impl Run<'_, '_> {
    /// Half `kind` of the pass `ps`: its blocks, its slow blocks confirmed, its
    /// failed blocks located, a write half flushed. The half goes to `ps.halves`;
    /// returns why the run stops here, if it does (`r` then says where).
    fn half(&mut self, r: &mut VerifyResult, ps: &mut PassState<'_>, kind: OpKind) -> Option<Stop> {
        let p = self.p;
        let half_kind = if kind == OpKind::Write {
            HalfKind::Write
        } else {
            HalfKind::Read
        };
        // Where this half starts: a resumed half from its checkpoint (a write
        // half resumed in its read half is done: nothing written in this run).
        let (from, earlier_failed) = match ps.resumed {
            Some(c) if c.half == half_kind => (c.done_to, c.failed_blocks.clone()),
            Some(c) if c.half == HalfKind::Read => (p.range.end, Vec::new()),
            _ => (p.range.start, Vec::new()),
        };
        let FeedEnd {
            run,
            mut half,
            mut failed,
            unanswered,
            half_end,
        } = self.feed_half(r, ps, kind, from, earlier_failed);
        r.engine = run.engine;
        self.abandoned += run.abandoned;
        // A drive that stops answering while its suspects are done again is given
        // up as in the pass itself (never a clean half).
        let gone = unanswered.is_some() || run.fatal.as_ref().and_then(NoAnswer::of).is_some();
        let confirm_fatal = if gone {
            None
        } else {
            self.confirm_half(kind, &mut half, &ps.stamper, &run, half_end)
        };
        // The watchdog gave a request up: the drive is given up too.
        let unanswered = unanswered.or_else(|| {
            let n = (run.fatal.as_ref().and_then(NoAnswer::of))
                .or_else(|| confirm_fatal.as_ref().and_then(NoAnswer::of))?;
            Some(Unanswered {
                at_bytes: n.offset,
                after_ns: self
                    .target
                    .clock()
                    .now_ns()
                    .saturating_sub(self.test_start_ns),
                reason: n.to_string(),
                read_only: false,
            })
        });
        if let Some(u) = unanswered {
            // The drive is gone: nothing more to learn from it. The failed
            // blocks are not located (each read would fail the same way).
            ps.halves.push(half);
            let stop = given_up(&u);
            r.unanswered = Some(u);
            return Some(stop);
        }
        let cut = self.locate_half(kind, ps, &mut half, &mut failed);
        // The confirmation's other failures (an engine error) end the half as
        // failed, as the pass's own do.
        let run_fatal = run.fatal.or(confirm_fatal);
        let whole = !run.interrupted && cut.is_none() && run_fatal.is_none();
        // A write half resumed in its read half wrote nothing in this run: no
        // flush, and its checkpoint stays (`{half: Read, done_to: start}` would
        // send a crash back to the read half's start).
        if kind == OpKind::Write && whole && from < p.range.end {
            self.flush_write_half(r, ps, &mut half);
        }
        let end = half.end_bytes;
        ps.halves.push(half);
        let interrupted = run.interrupted || cut.is_some() || self.stop.load(Ordering::Relaxed);
        // A half that ended short without Ctrl-C (an engine that stopped handing
        // out requests) is a failure, never a clean half.
        let fatal = run_fatal.or_else(|| {
            (!interrupted && end < half_end).then(|| {
                io::Error::other(format!(
                    "the {} engine ended the half at byte {end} of {}",
                    run.engine.name(),
                    p.range.end
                ))
            })
        });
        if let Some(error) = fatal {
            return Some(Stop::Failed {
                setup: false,
                offset: end,
                error,
            });
        }
        if run.interrupted || cut.is_some() || self.stop.load(Ordering::Relaxed) && end < half_end {
            r.stopped = Some(Stopped {
                pass: ps.pass,
                half: half_kind,
                at_bytes: end,
                // A failed block not redone sector by sector was not judged.
                resume_start: if kind == OpKind::Read {
                    cut.map_or(end, |c| c.min(end))
                } else {
                    p.range.start
                },
            });
            return Some(Stop::Interrupted);
        }
        None
    }

    /// Run half `kind` of the pass `ps` from byte `from` through its feed, the
    /// failed blocks of an interrupted run's half (`earlier_failed`) carried on.
    fn feed_half(
        &mut self,
        r: &mut VerifyResult,
        ps: &mut PassState<'_>,
        kind: OpKind,
        from: u64,
        earlier_failed: Vec<(u64, u64)>,
    ) -> FeedEnd {
        let p = self.p;
        let first = (from - p.range.start).div_ceil(p.range.block);
        // A read half reads back only what the drive kept, when it keeps only
        // the first bytes written.
        let stop_at = match (kind, r.keeps_only) {
            (OpKind::Read, Some(k)) => k.lost_from,
            _ => p.range.end,
        };
        let mut feed = HalfFeed {
            kind,
            range: p.range,
            ss: u64::from(ps.stamper.sector_size()),
            stamper: &ps.stamper,
            next: first,
            total: (stop_at - p.range.start).div_ceil(p.range.block),
            start_ns: None,
            last_done: 0,
            times: InBlockOrder::new(first),
            slow_ns: (p.slow_ms * 1e6) as u64,
            half: Half::new(self.regions, from),
            failures: &mut ps.failures,
            failed: earlier_failed,
            unwritable: &ps.unwritable,
            done_bytes: 0,
            progress: &mut *self.progress,
            pass: ps.pass,
            half_kind: if kind == OpKind::Write {
                HalfKind::Write
            } else {
                HalfKind::Read
            },
            live: &mut self.live,
            test_start_ns: self.test_start_ns,
            unanswered: None,
            prefix: from,
            ahead: Default::default(),
            pending: Default::default(),
            saver: self.saver.as_deref_mut(),
            nonce: self.nonce,
            passes_planned: p.passes,
            done_passes: &r.passes,
            stop_at,
            sampler: (kind == OpKind::Write).then(|| Sampler::new(p.range.count(), first)),
            keeps_only: r.keeps_only,
        };
        let (depth, stop, timeout) = (p.queue_depth, self.stop, p.io_timeout);
        let run = if kind == OpKind::Write {
            sample::run_write_half(self.target, &mut feed, depth, stop, timeout)
        } else {
            let block = p.range.block as u32;
            queued::run_feed(self.target, block, depth, &mut feed, stop, timeout)
        };
        // The blocks that completed past one that never did (Ctrl-C, the drive
        // given up).
        while let Some(t) = feed.times.pop_any() {
            feed.timed(t);
        }
        let HalfFeed {
            half,
            failed,
            unanswered,
            pending,
            keeps_only,
            ..
        } = feed;
        r.keeps_only = keeps_only;
        // The verdicts of blocks completed past the prefix when the half ended
        // (Ctrl-C, the drive given up).
        for (lba, v) in pending.into_values().flatten() {
            ps.failures.record(lba, v);
        }
        let half_end = match (kind, keeps_only) {
            (OpKind::Write, Some(k)) if k.pass == ps.pass => k.written_to,
            _ => stop_at,
        };
        FeedEnd {
            run,
            half,
            failed,
            unanswered,
            half_end,
        }
    }

    /// The half's slow blocks placed exactly (`engine::confirm`): each suspect
    /// done again alone after the half. A read half reads them again; a write half
    /// writes them again with the stamps the pass wrote there (so the read half's
    /// checks hold as before), only within what the half wrote (`written_end`),
    /// and only when it wrote all of it (not after Ctrl-C or an engine's failure,
    /// when its blocks were not all written once). Returns the confirmation's
    /// failure of the engine, if any.
    fn confirm_half(
        &mut self,
        kind: OpKind,
        half: &mut Half,
        stamper: &Stamper,
        run: &queued::FeedRun,
        written_end: u64,
    ) -> Option<io::Error> {
        let p = self.p;
        let fill = |b: &mut [u8], lba: u64| stamper.stamp(b, lba);
        let (range, redo) = match kind {
            OpKind::Write if run.interrupted || run.fatal.is_some() => return None,
            OpKind::Write => {
                let written = ScanRange {
                    end: written_end.min(p.range.end),
                    ..p.range
                };
                (written, Redo::Write(&fill))
            }
            _ => (p.range, Redo::Read),
        };
        let slow_ns = (p.slow_ms * 1e6) as u64;
        let c = confirm(
            self.target,
            &range,
            &half.slow,
            slow_ns,
            p.queue_depth,
            redo,
            (self.stop, p.io_timeout),
        );
        (half.slow, half.unconfirmed) = (c.slow, c.unconfirmed);
        self.abandoned += c.abandoned;
        c.fatal
    }

    /// The half's failed blocks located as ddrescue does (untimed), in address
    /// order, until Ctrl-C, and their sectors recorded: a write's as unwritable
    /// (added to `ps.unwritable`), a read's as unreadable. Returns the first byte
    /// not located, when Ctrl-C cut it short.
    fn locate_half(
        &mut self,
        kind: OpKind,
        ps: &mut PassState<'_>,
        half: &mut Half,
        failed: &mut [(u64, u64)],
    ) -> Option<u64> {
        let (p, stop, target) = (self.p, self.stop, &mut *self.target);
        failed.sort_unstable();
        let s64 = u64::from(ps.stamper.sector_size());
        let mut buf = AlignedBuf::new(p.range.block as usize);
        let mut retried = 0u64;
        let (stamper, unwritable, failures) = (&ps.stamper, &ps.unwritable, &mut ps.failures);
        let located = locate(failed, p.range.block, s64, &mut |at, len| {
            if stop.load(Ordering::Relaxed) {
                return Probe::Stop;
            }
            let b = &mut buf[..len as usize];
            let lba = at / s64;
            match kind {
                OpKind::Write => {
                    stamper.stamp(b, lba);
                    if target.write_at(b, at).is_err() {
                        return Probe::Failed;
                    }
                }
                OpKind::Read => {
                    if target.read_at(b, at).is_err() {
                        return Probe::Failed;
                    }
                    for (i, v) in stamper.check(b, lba).enumerate() {
                        let l = lba + i as u64;
                        if !within(unwritable, l) {
                            failures.record(l, v);
                        }
                    }
                }
            }
            retried += len;
            Probe::Ok
        });
        half.retried_bytes += retried;
        let mut new_unwritable = Vec::new();
        for &(first, end) in &located.failed {
            match kind {
                OpKind::Write => {
                    ps.failures
                        .record_span(first, end - first, FailureKind::Unwritable);
                    new_unwritable.push((first, end));
                }
                OpKind::Read if ps.unwritable.is_empty() => {
                    ps.failures
                        .record_span(first, end - first, FailureKind::Unreadable);
                }
                OpKind::Read => {
                    for l in (first..end).filter(|&l| !within(&ps.unwritable, l)) {
                        ps.failures.record(l, ReadBack::Unreadable);
                    }
                }
            }
        }
        half.inferred = located.inferred.iter().map(|&(a, b)| [a, b - a]).collect();
        ps.unwritable.extend(new_unwritable);
        ps.unwritable.sort_unstable();
        located.cut
    }

    /// A whole write half's end: the drive's cache flushed (timed in `half`),
    /// and, once it is, the checkpoint that resumes with the read half.
    fn flush_write_half(&mut self, r: &VerifyResult, ps: &PassState<'_>, half: &mut Half) {
        let t0 = self.target.clock().now_ns();
        // Ok(false): nothing was flushed (`Target::flush`). Timed where it is
        // carried out (a real device's I/O thread), the hand-over excluded; a flush
        // that failed is timed here.
        let (flushed, ns) = match self.target.flush_timed() {
            Ok((flushed, ns)) => (flushed, ns),
            Err(_) => (false, self.target.clock().now_ns() - t0),
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
    }
}

#[cfg(test)]
mod tests;
