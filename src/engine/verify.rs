//! The write-and-verify engine (`--verify`): for each pass, every block of the
//! range written with fresh stamps, the write cache flushed, every block read back
//! and checked. The requests go through the queued engines' one loop
//! ([`super::queue::drive_feed`], picked by [`queued::run_feed`]): this file is
//! only the [`Feed`], which stamps a write's buffer before it is submitted and
//! checks a read's after it completed (both untimed), and the bookkeeping.
//!
//! A block's time is its service time, as the scan's: from when the device could
//! start on it (its submission, or the previous completion if later) to its
//! completion. Blocks that fail with an error are redone sector by sector after
//! their half (untimed, through the target), so that the failures name the exact
//! sectors: a sector whose write fails is unwritable (and not judged again when
//! read back), one whose read fails unreadable.

use super::name::QueuedEngine;
use super::queue::{Completion, Feed, Request, Stop};
use super::queued;
use crate::device::{AlignedBuf, Target};
use crate::probe::OpKind;
use crate::probe::scan::{ScanRange, SlowRange, bucket};
use crate::verify::failures::{FailureKind, Failures};
use crate::verify::result::{Half, HalfKind, Pass, REGIONS, Stopped, VerifyResult};
use crate::verify::stamp::{Stamper, Verdict};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct VerifyParams {
    /// The range and the request size.
    pub range: ScanRange,
    /// Passes, each with fresh content.
    pub passes: u32,
    /// The run's nonce ([`Stamper::fresh_nonce`]).
    pub nonce: u64,
    /// Requests kept in flight.
    pub queue_depth: usize,
    /// Blocks at least this slow are listed.
    pub slow_ms: f64,
}

/// Progress: (pass, half, bytes of the half done).
pub type Progress<'a> = &'a mut dyn FnMut(u32, HalfKind, u64);

/// The feed of one half.
struct HalfFeed<'a> {
    kind: OpKind,
    range: ScanRange,
    ss: u64,
    stamper: &'a Stamper,
    next: u64,
    total: u64,
    start_ns: Option<u64>,
    last_done: u64,
    slow_ns: u64,
    half: Half,
    failures: &'a mut Failures,
    /// Failed blocks (offset, len), redone sector by sector afterwards.
    failed: Vec<(u64, u64)>,
    /// Sectors whose write failed in this pass (first, end), sorted.
    unwritable: &'a [(u64, u64)],
    done_bytes: u64,
    progress: Progress<'a>,
    pass: u32,
    half_kind: HalfKind,
}

impl HalfFeed<'_> {
    fn region(&self, offset: u64) -> usize {
        let n = self.half.region_bytes.len() as u64;
        let span = self.range.end - self.range.start;
        ((u128::from(offset - self.range.start) * u128::from(n) / u128::from(span)) as usize)
            .min(n as usize - 1)
    }
}

/// Whether `lba` is among the `(first, end)` spans (sorted, disjoint).
fn within(spans: &[(u64, u64)], lba: u64) -> bool {
    let i = spans.partition_point(|&(s, _)| s <= lba);
    i > 0 && lba < spans[i - 1].1
}

impl Feed for HalfFeed<'_> {
    fn next(&mut self, _slot: usize, buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        if self.next >= self.total {
            return None;
        }
        let offset = self.range.start + self.next * self.range.block;
        let len = self.range.block.min(self.range.end - offset);
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
        let start = *self.start_ns.get_or_insert(c.start_ns);
        let ns = c.done_ns.saturating_sub(c.start_ns.max(self.last_done));
        self.last_done = self.last_done.max(c.done_ns);
        self.half.elapsed_ns = self.last_done - start;
        self.half.blocks += 1;
        let (offset, len) = (req.offset, u64::from(req.len));
        let lba = offset / self.ss;
        self.half.end_bytes = self.half.end_bytes.max(offset + len);
        match c.result {
            Ok(()) => {
                self.half.bytes += len;
                self.half.buckets[bucket(ns)] += 1;
                let r = self.region(offset);
                self.half.region_bytes[r] += len;
                self.half.region_ns[r] += ns;
                if ns >= self.slow_ns {
                    SlowRange::push(&mut self.half.slow, lba, len / self.ss, ns);
                }
                if self.kind == OpKind::Read
                    && let Some(buf) = buf
                {
                    let buf = &buf[..len as usize];
                    if !self.stamper.all_ok(buf, lba) {
                        for (i, v) in self.stamper.check(buf, lba).enumerate() {
                            let at = lba + i as u64;
                            if v != Verdict::Ok && !within(self.unwritable, at) {
                                self.failures.record(at, v);
                            }
                        }
                    }
                }
            }
            Err(_) => {
                self.half.error_blocks += 1;
                // Contiguous failed blocks as one span (issue 24: bounded memory).
                match self.failed.last_mut() {
                    Some((o, l)) if *o + *l == offset => *l += len,
                    _ => self.failed.push((offset, len)),
                }
            }
        }
        self.done_bytes += len;
        (self.progress)(self.pass, self.half_kind, self.done_bytes);
        true
    }
}

/// Run the passes of `p` on `target`. `progress` is told each half's bytes done.
/// Stops only for Ctrl-C (the result says where, and the `--start` that resumes)
/// or an engine that fails as a whole; failed requests are recorded and passed.
pub fn run_verify(
    target: &mut dyn Target,
    p: &VerifyParams,
    stop: &AtomicBool,
    progress: Progress<'_>,
) -> (VerifyResult, Option<Stop>) {
    let ss = target.info().sector_size;
    let regions = (p.range.count() as usize).clamp(1, REGIONS);
    let mut r = VerifyResult {
        nonce: p.nonce,
        start_bytes: p.range.start,
        end_bytes: p.range.end,
        block_bytes: p.range.block,
        sector_bytes: ss,
        queue_depth: p.queue_depth as u32,
        passes_planned: p.passes,
        slow_ms: p.slow_ms,
        engine: QueuedEngine::Unknown,
        passes: Vec::new(),
        stopped: None,
    };
    let stamp_err = |e: crate::verify::stamp::BadSectorSize| Stop::Failed {
        setup: true,
        offset: 0,
        error: io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
    };
    for pass in 0..p.passes {
        let stamper = match Stamper::new(p.nonce, pass, ss) {
            Ok(s) => s,
            Err(e) => return (r, Some(stamp_err(e))),
        };
        let mut failures = Failures::new();
        let mut halves = Vec::new();
        let mut unwritable: Vec<(u64, u64)> = Vec::new();
        for kind in [OpKind::Write, OpKind::Read] {
            let half_kind = if kind == OpKind::Write {
                HalfKind::Write
            } else {
                HalfKind::Read
            };
            let mut feed = HalfFeed {
                kind,
                range: p.range,
                ss: u64::from(ss),
                stamper: &stamper,
                next: 0,
                total: p.range.count(),
                start_ns: None,
                last_done: 0,
                slow_ns: (p.slow_ms * 1e6) as u64,
                half: Half::new(regions, p.range.start),
                failures: &mut failures,
                failed: Vec::new(),
                unwritable: &unwritable,
                done_bytes: 0,
                progress: &mut *progress,
                pass,
                half_kind,
            };
            let run =
                queued::run_feed(target, p.range.block as u32, p.queue_depth, &mut feed, stop);
            r.engine = run.engine;
            let HalfFeed {
                mut half,
                mut failed,
                ..
            } = feed;
            // The failed blocks, sector by sector (untimed), in address order, until
            // Ctrl-C: `cut` is then the first sector not redone.
            failed.sort_unstable();
            let mut sector = AlignedBuf::new(ss as usize);
            let s64 = u64::from(ss);
            let mut new_unwritable = Vec::new();
            let mut cut = None;
            'retry: for (offset, len) in failed {
                for at in (offset..offset + len).step_by(ss as usize) {
                    if stop.load(Ordering::Relaxed) {
                        cut = Some(at);
                        break 'retry;
                    }
                    let lba = at / s64;
                    match kind {
                        OpKind::Write => {
                            stamper.stamp(&mut sector, lba);
                            if target.write_at(&sector, at).is_ok() {
                                half.retried_bytes += s64;
                            } else {
                                failures.record_span(lba, 1, FailureKind::Unwritable);
                                // One span per run of failed sectors, so that a pass
                                // whose writes all fail keeps one (issue 24).
                                match new_unwritable.last_mut() {
                                    Some((_, end)) if *end == lba => *end += 1,
                                    _ => new_unwritable.push((lba, lba + 1)),
                                }
                            }
                        }
                        OpKind::Read => {
                            if within(&unwritable, lba) {
                                continue;
                            }
                            match target.read_at(&mut sector, at) {
                                Ok(()) => {
                                    half.retried_bytes += s64;
                                    failures.record(lba, stamper.check_sector(&sector, lba));
                                }
                                Err(_) => failures.record(lba, Verdict::Unreadable),
                            }
                        }
                    }
                }
            }
            unwritable.extend(new_unwritable);
            unwritable.sort_unstable();
            if kind == OpKind::Write && !run.interrupted && cut.is_none() && run.fatal.is_none() {
                let t0 = target.clock().now_ns();
                let _ = target.flush();
                half.flush_ns = Some(target.clock().now_ns() - t0);
            }
            let end = half.end_bytes;
            halves.push(half);
            let interrupted = run.interrupted || cut.is_some() || stop.load(Ordering::Relaxed);
            // A half that ended short without Ctrl-C (an engine that stopped
            // handing out requests) is a failure, never a clean half.
            let fatal = run.fatal.or_else(|| {
                (!interrupted && end < p.range.end).then(|| {
                    io::Error::other(format!(
                        "the {} engine ended the half at byte {end} of {}",
                        run.engine.name(),
                        p.range.end
                    ))
                })
            });
            let stopped = if let Some(error) = fatal {
                Some(Stop::Failed {
                    setup: false,
                    offset: end,
                    error,
                })
            } else if run.interrupted
                || cut.is_some()
                || stop.load(Ordering::Relaxed) && end < p.range.end
            {
                r.stopped = Some(Stopped {
                    pass,
                    half: half_kind,
                    at_bytes: end,
                    // A failed block not redone sector by sector was not judged.
                    resume_start: if kind == OpKind::Read {
                        cut.map_or(end, |c| c.min(end))
                    } else {
                        p.range.start
                    },
                });
                Some(Stop::Interrupted)
            } else {
                None
            };
            if stopped.is_some() {
                let mut it = halves.into_iter();
                r.passes.push(Pass {
                    pass,
                    write: it.next().expect("the write half ran"),
                    read: it.next(),
                    failures,
                });
                return (r, stopped);
            }
        }
        let mut it = halves.into_iter();
        r.passes.push(Pass {
            pass,
            write: it.next().expect("the write half ran"),
            read: it.next(),
            failures,
        });
    }
    (r, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::scan::range;

    fn params(size: u64, block: u64) -> VerifyParams {
        VerifyParams {
            range: range(size, 512, None, None, block).unwrap(),
            passes: 2,
            nonce: 42,
            queue_depth: 4,
            slow_ms: 50.0,
        }
    }

    #[test]
    fn ctrl_c_during_the_retries_stops_them_and_the_pass_resumes_from_its_start() {
        let mut t =
            crate::device::sim::SimTarget::open("sim:ssd?size=16M&unwritable=1000-1003").unwrap();
        let p = VerifyParams {
            passes: 1,
            ..params(16 << 20, 1 << 20)
        };
        let stop = AtomicBool::new(false);
        // Ctrl-C as the write half's last block completes: the failed block's
        // sectors are not redone one by one, and nothing is judged of them.
        let (r, stopped) = run_verify(&mut t, &p, &stop, &mut |_, half, done| {
            if half == HalfKind::Write && done == 16 << 20 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(stopped, Some(Stop::Interrupted)), "{stopped:?}");
        let st = r.stopped.unwrap();
        assert_eq!((st.half, st.resume_start), (HalfKind::Write, 0));
        let pass = &r.passes[0];
        assert_eq!(pass.write.error_blocks, 1);
        assert_eq!(pass.write.retried_bytes, 0);
        assert_eq!(pass.write.flush_ns, None);
        assert!(pass.read.is_none());
        assert!(pass.failures.is_empty(), "{:?}", pass.failures);
    }

    #[test]
    fn an_image_file_passes_clean_with_both_halves_timed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("img");
        // 8 MiB and a partial last block of 3 sectors.
        std::fs::write(&path, vec![0u8; (8 << 20) + 1536]).unwrap();
        let opts = crate::device::OpenOptions {
            io: true,
            write: true,
        };
        let mut t = crate::device::open(path.to_str().unwrap(), &opts).unwrap();
        let size = (8 << 20) + 1536;
        let p = params(size, 256 << 10);
        let mut seen = 0u64;
        let (r, stop) = run_verify(t.as_mut(), &p, &AtomicBool::new(false), &mut |_, _, d| {
            seen = seen.max(d)
        });
        assert!(stop.is_none());
        assert_eq!(seen, size);
        // The thread pool: each request timed by the thread that did it.
        assert_eq!(r.engine, QueuedEngine::Threads);
        assert_eq!(r.passes.len(), 2);
        for pass in &r.passes {
            assert!(pass.failures.is_empty(), "{:?}", pass.failures);
            let read = pass.read.as_ref().unwrap();
            for h in [&pass.write, read] {
                assert_eq!((h.blocks, h.bytes, h.error_blocks), (33, size, 0));
                assert_eq!(h.buckets.iter().sum::<u64>(), 33);
                assert_eq!(h.region_bytes.iter().sum::<u64>(), size);
                assert_eq!(h.end_bytes, size);
            }
        }
        // The file holds the last pass's stamps.
        let data = std::fs::read(&path).unwrap();
        let s = Stamper::new(42, 1, 512).unwrap();
        assert!(s.all_ok(&data, 0));
        // Altered content is found, sector by sector, with its kind.
        let mut buf = data[..2 << 20].to_vec();
        buf[4096..5120].fill(0xFF);
        let v: Vec<Verdict> = s.check(&buf, 0).filter(|v| !v.is_ok()).collect();
        assert_eq!(v, [Verdict::Corrupt, Verdict::Corrupt]);
    }
}
