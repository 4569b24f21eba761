//! One half of a pass: its blocks through the feed (`feed.rs`), then its slow
//! blocks done again alone (`engine::confirm`) and its failed ones located to the
//! sector (`engine::locate`); how the half ended decides whether the run goes on.

use super::feed::HalfFeed;
use super::sample::{self, Sampler};
use super::{PassState, Run, within};
use crate::device::AlignedBuf;
use crate::engine::confirm::{Redo, confirm};
use crate::engine::in_order::InBlockOrder;
use crate::engine::liveness::given_up;
use crate::engine::locate::{LocateRead, locate};
use crate::engine::queue::EngineStop;
use crate::engine::queue_loop::NoAnswer;
use crate::engine::queued;
use crate::results::QueuedEngine;
use crate::results::failures::{FailureKind, ReadBack};
use crate::results::verify::{Half, HalfKind, SizeChanged, Stopped, Unanswered, VerifyResult};
use crate::stamps::stamp::Stamper;
use crate::test_plans::OpKind;
use crate::test_plans::scan::ScanRange;
use std::io;
use std::sync::atomic::Ordering;

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
    /// The device's size changed under the half.
    size_changed: Option<SizeChanged>,
}

/// How a half's work ended, which decides whether the run goes on (`how_it_ended`).
struct Ended {
    kind: OpKind,
    pass: u32,
    /// The byte the half reached.
    end: u64,
    /// Where it was to end (`FeedEnd::half_end`).
    half_end: u64,
    /// Ctrl-C ended its feed.
    interrupted: bool,
    /// The first byte its failed blocks' locating left, when Ctrl-C cut it short.
    cut: Option<u64>,
    /// The engine's failure, in the feed or the confirmation.
    fatal: Option<io::Error>,
    engine: QueuedEngine,
}

impl Run<'_, '_> {
    /// Half `kind` of the pass `ps`: its blocks, its slow blocks confirmed, its
    /// failed blocks located, a write half flushed. The half goes to `ps.halves`;
    /// returns why the run stops here, if it does (`r` then says where).
    pub(super) fn half(
        &mut self,
        r: &mut VerifyResult,
        ps: &mut PassState<'_>,
        kind: OpKind,
    ) -> Option<EngineStop> {
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
            size_changed,
        } = self.feed_half(r, ps, kind, from, earlier_failed);
        r.engine = run.engine;
        self.abandoned += run.abandoned;
        if let Some(stop) = self.size_stop(r, size_changed, ps.pass, half_kind, half.end_bytes) {
            ps.halves.push(half);
            return Some(stop);
        }
        // A drive that stops answering while its suspects are done again is given
        // up as in the pass itself (never a clean half).
        let gone = unanswered.is_some() || run.fatal.as_ref().and_then(NoAnswer::of).is_some();
        let confirm_fatal = if gone {
            None
        } else {
            self.confirm_half((kind, ps.pass), &mut half, &ps.stamper, &run, half_end)
        };
        let unanswered = unanswered.or_else(|| self.given_up_by_watchdog(&run, &confirm_fatal));
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
        if kind == OpKind::Write
            && whole
            && from < p.range.end
            && let Some(u) = self.flush_write_half(r, ps, &mut half)
        {
            // The drive stopped answering at the flush: given up as in the pass.
            ps.halves.push(half);
            let stop = given_up(&u);
            r.unanswered = Some(u);
            return Some(stop);
        }
        let end = half.end_bytes;
        ps.halves.push(half);
        let ended = Ended {
            kind,
            pass: ps.pass,
            end,
            half_end,
            interrupted: run.interrupted,
            cut,
            fatal: run_fatal,
            engine: run.engine,
        };
        self.how_it_ended(r, ended)
    }

    /// The watchdog's give-up of a request in the half's feed or its confirmation,
    /// as the drive's: the drive is given up too.
    fn given_up_by_watchdog(
        &self,
        run: &queued::FeedRun,
        confirm_fatal: &Option<io::Error>,
    ) -> Option<Unanswered> {
        let n = (run.fatal.as_ref().and_then(NoAnswer::of))
            .or_else(|| confirm_fatal.as_ref().and_then(NoAnswer::of))?;
        let now = self.target.clock().now_ns();
        let after_ns = now.saturating_sub(self.test_start_ns);
        Some(Unanswered::stopped(n.offset, after_ns, n.to_string()))
    }

    /// Whether the run goes on after the half `e`: a failure of the engine, or a
    /// half that ended short without Ctrl-C (an engine that stopped handing out
    /// requests), stops it as failed, never a clean half; Ctrl-C stops it as
    /// interrupted, `r.stopped` saying where a resumed run starts again.
    fn how_it_ended(&self, r: &mut VerifyResult, e: Ended) -> Option<EngineStop> {
        let p = self.p;
        let stop_asked = self.stop.load(Ordering::Relaxed);
        let interrupted = e.interrupted || e.cut.is_some() || stop_asked;
        let fatal = e.fatal.or_else(|| {
            (!interrupted && e.end < e.half_end).then(|| {
                io::Error::other(format!(
                    "the {} engine ended the half at byte {} of {}",
                    e.engine.name(),
                    e.end,
                    p.range.end
                ))
            })
        });
        if let Some(error) = fatal {
            return Some(EngineStop::Failed {
                setup: false,
                offset: e.end,
                error,
            });
        }
        if e.interrupted || e.cut.is_some() || stop_asked && e.end < e.half_end {
            r.stopped = Some(Stopped {
                pass: e.pass,
                half: if e.kind == OpKind::Write {
                    HalfKind::Write
                } else {
                    HalfKind::Read
                },
                at_bytes: e.end,
                // A failed block not redone sector by sector was not judged.
                resume_start: if e.kind == OpKind::Read {
                    e.cut.map_or(e.end, |c| c.min(e.end))
                } else {
                    p.range.start
                },
            });
            return Some(EngineStop::Interrupted);
        }
        None
    }

    /// The stop a size that changed makes, found by the half's feed (`found`: a
    /// failed block) or read again now at the half's end (`at`), recorded in `r`:
    /// the run stops there, nothing confirmed or located (the blocks past the new
    /// end failed for it, not for their sectors).
    fn size_stop(
        &self,
        r: &mut VerifyResult,
        found: Option<SizeChanged>,
        pass: u32,
        half: HalfKind,
        at: u64,
    ) -> Option<EngineStop> {
        let c = found.or_else(|| {
            let after = self.target.clock().now_ns();
            let after = after.saturating_sub(self.test_start_ns);
            (self.size.as_ref()?).found(pass, half, at, after)
        })?;
        r.size_changed = Some(c);
        Some(EngineStop::Failed {
            setup: false,
            offset: c.at_bytes,
            error: io::Error::other(c.line()),
        })
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
            flush_wanted: false,
            size: self.size.as_ref(),
            size_changed: None,
        };
        let (depth, stop, limits) = (p.queue_depth, self.stop, (p.io_timeout, self.watch));
        let run = if kind == OpKind::Write {
            sample::run_write_half(self.target, &mut feed, depth, stop, limits)
        } else {
            let block = p.range.block as u32;
            queued::run_feed(self.target, (block, depth), &mut feed, stop, limits)
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
            size_changed,
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
            size_changed,
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
        (kind, pass): (OpKind, u32),
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
        let half_kind = match kind {
            OpKind::Write => HalfKind::Write,
            _ => HalfKind::Read,
        };
        let progress = &mut *self.progress;
        let c = confirm(
            self.target,
            &range,
            &half.slow,
            slow_ns,
            p.queue_depth,
            redo,
            (self.stop, p.io_timeout, self.watch),
            &mut |t| progress(pass, half_kind, t),
        );
        (half.slow, half.unconfirmed, half.redone_bytes) = (c.slow, c.unconfirmed, c.redone_bytes);
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
        let (pass, progress) = (ps.pass, &mut *self.progress);
        let half_kind = match kind {
            OpKind::Write => HalfKind::Write,
            _ => HalfKind::Read,
        };
        failed.sort_unstable();
        let s64 = u64::from(ps.stamper.sector_size());
        let mut buf = AlignedBuf::new(p.range.block as usize);
        let mut retried = 0u64;
        let (stamper, unwritable, failures) = (&ps.stamper, &ps.unwritable, &mut ps.failures);
        let located = locate(
            failed,
            p.range.block,
            s64,
            &mut |at, len| {
                if stop.load(Ordering::Relaxed) {
                    return LocateRead::EngineStop;
                }
                let n = len as usize;
                let lba = at / s64;
                match kind {
                    OpKind::Write => {
                        stamper.stamp(&mut buf[..n], lba);
                        if target.write_at(buf.for_write(..n), at).is_err() {
                            return LocateRead::Failed;
                        }
                    }
                    OpKind::Read => {
                        if target.read_at(buf.for_read(..n), at).is_err() {
                            return LocateRead::Failed;
                        }
                        for (i, v) in stamper.check(&buf[..n], lba).enumerate() {
                            let l = lba + i as u64;
                            if !within(unwritable, l) {
                                failures.record(l, v);
                            }
                        }
                    }
                }
                retried += len;
                LocateRead::Ok
            },
            &mut |t| progress(pass, half_kind, t),
        );
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
}
