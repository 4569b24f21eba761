//! The surface-scan engine: read every block of a range once, timing each; go on
//! past errors, and locate the unreadable sectors of the failed blocks afterwards
//! as ddrescue does ([`super::locate`]). A drive that stops answering
//! ([`super::liveness`]) ends the scan there.

use super::PassProgress;
use super::confirm::{Redo, confirm};
use super::in_order::InBlockOrder;
use super::liveness::{Liveness, given_up};
use super::locate::{LocateRead, locate, push_block};
use super::queue::{Completion, Feed, Request};
use super::queue_loop::NoAnswer;
use super::sync::EngineStop;
use super::threads;
use crate::clock::Clock;
use crate::device::{AlignedBuf, PassWatch, Target};
use crate::results::device::Rotation;
use crate::results::settings::QueueDepth;
use crate::results::verify::Unanswered;
use crate::results::{ScanResult, SectorRange, SlowRange};
use crate::test_plans::OpKind;
use crate::test_plans::scan::{BUCKET_LIMITS_MS, ScanRange, bucket};
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Cells of the scan map.
pub const MAP_CELLS: u64 = 1000;

/// Append sectors `[first, first + n)` to `ranges`, merging with the last range.
fn push_sectors(ranges: &mut Vec<SectorRange>, first: u64, n: u64) {
    if let Some(last) = ranges.last_mut()
        && last.first_sector + last.sectors == first
    {
        last.sectors += n;
        return;
    }
    ranges.push(SectorRange {
        first_sector: first,
        sectors: n,
    });
}

/// Requests kept in flight by the scan of a device that does not say it rotates
/// (flash, and the loop devices, virtual disks and USB bridges that report
/// nothing): enough to read at the device's speed (fio's sequential reads at depth
/// 16 on the RAM-backed loop device, docs/performance.md). With several in
/// flight, a slow block's time can land on a block in flight with it (threads
/// that the scheduler runs late enter the kernel out of order, and the device
/// serves a later block first): the pass only marks suspects, and
/// [`confirm`] reads them again alone, so that slow blocks are still placed
/// exactly.
pub const SCAN_DEPTH: QueueDepth = QueueDepth::fixed::<8>();

/// Requests kept in flight by the scan of a drive that reports a rotation rate:
/// one, as `dd`, badblocks and diskinfo's `-t` read. A rotating drive streams
/// sequential reads from its read-ahead at depth 1, so a deeper queue gains it
/// nothing, and each block's time is its own read's, alone on the device, with no
/// second pass over suspects (docs/performance.md, "The scan's depth").
pub const ROTATING_DEPTH: QueueDepth = QueueDepth::fixed::<1>();

/// The scan's depth on a device that reports `rotation`.
pub fn depth_for(rotation: Rotation) -> QueueDepth {
    match rotation {
        Rotation::Rpm(_) => ROTATING_DEPTH,
        _ => SCAN_DEPTH,
    }
}

/// What one block read gave: its index, offset, length, latency and result.
type Block = (u64, u64, u64, u64, std::io::Result<()>);

/// Scan `range`. Blocks of at least `slow_ms` are listed as slow. `on_block` is told
/// the bytes done after every block, in order (for progress). Stops for Ctrl-C, or
/// when the drive stopped answering: a read unanswered for `io_timeout`, or failed
/// blocks in a row while sectors that read fine before fail too (this scan's, or
/// `known_good`, byte offsets read fine earlier in the run).
///
/// A real device is read [`depth_for`] its rotation blocks deep on the thread pool
/// (each block's time is its service time: from the previous block's completion,
/// or its own submission if later, to its completion; [`InBlockOrder`]), and the
/// slow blocks of a queued pass are read again alone with their neighbours
/// ([`confirm`]): only those slow alone are listed; a simulated one in order, one
/// block at a time. Failed blocks are re-read sector by sector after the
/// pass (untimed) to list the exact unreadable sectors. The count returned last is of
/// the requests left behind unanswered (the watchdog or Ctrl-C).
pub fn run_scan(
    target: &mut dyn Target,
    range: &ScanRange,
    slow_ms: f64,
    stop: &AtomicBool,
    (io_timeout, known_good, watch): (Option<Duration>, &[u64], Option<&dyn PassWatch>),
    mut told: impl FnMut(PassProgress),
) -> (ScanResult, Option<EngineStop>, usize) {
    let ss = u64::from(target.info().sector_size);
    let slow_ns = (slow_ms * 1e6) as u64;
    let blocks_total = range.count();
    let cells = blocks_total.min(MAP_CELLS);
    let mut r = empty_result(range, slow_ms, cells);
    let mut failed = Vec::new();
    let mut live = Liveness::new(target.raw_fd(), ss).knowing(known_good);
    let start = target.clock().now_ns();
    let mut unanswered = None;
    // Returns whether to go on.
    let mut record = |(i, offset, len, ns, res): Block, now: u64| -> bool {
        r.blocks_read += 1;
        let cell = (i * cells / blocks_total) as usize;
        if res.is_ok() {
            live.ok(offset);
            r.bytes_read += len;
            r.buckets[bucket(ns)] += 1;
            // At least 1 ns: 0 marks a cell not read (a block served before the
            // one ahead of it has no service time of its own).
            r.map_ns[cell] = r.map_ns[cell].max(ns.max(1));
            if ns >= slow_ns {
                SlowRange::push(&mut r.slow, offset / ss, len / ss, ns);
            }
        } else {
            r.error_blocks += 1;
            r.map_ns[cell] = u64::MAX;
            push_block(&mut failed, offset, len);
            if let Err(e) = &res
                && let Some(u) = live.failed(offset, e, now.saturating_sub(start))
            {
                unanswered = Some(u);
            }
        }
        told(PassProgress::Bytes(offset + len - range.start));
        unanswered.is_none()
    };
    let fd = target
        .raw_fd()
        .map(|fd| std::os::fd::AsRawFd::as_raw_fd(&fd));
    let depth = match fd {
        Some(_) => depth_for(target.info().rotation),
        None => ROTATING_DEPTH,
    };
    let done = match fd {
        Some(fd) => threaded_pass(
            fd,
            target.clock(),
            range,
            depth,
            stop,
            &mut record,
            (io_timeout, watch),
        ),
        None => (sync_pass(target, range, stop, &mut record), None, 0),
    };
    let (done, mut no_answer, mut abandoned) = done;
    r.elapsed_ns = target.clock().now_ns() - start;
    if unanswered.is_none() && no_answer.is_none() {
        // The suspects of a queued pass, read again alone (untimed in elapsed_ns).
        let read = ScanRange {
            end: (range.start + done * range.block).min(range.end),
            ..*range
        };
        let slow_ns = (slow_ms * 1e6) as u64;
        let c = confirm(
            target,
            &read,
            &r.slow,
            slow_ns,
            depth,
            Redo::Read,
            (stop, io_timeout, watch),
            &mut told,
        );
        (r.slow, r.unconfirmed, r.redone_bytes) = (c.slow, c.unconfirmed, c.redone_bytes);
        abandoned += c.abandoned;
        no_answer = c.fatal.as_ref().and_then(NoAnswer::of);
    }
    // The watchdog gave a request up: the drive is given up too.
    let unanswered = unanswered
        .or_else(|| no_answer.map(|n| Unanswered::stopped(n.offset, r.elapsed_ns, n.to_string())));
    if let Some(u) = unanswered {
        // The drive is gone: its failed blocks are not located (every read fails).
        r.end_bytes = (range.start + done * range.block).min(range.end);
        let stop = given_up(&u);
        r.unanswered = Some(u);
        return (r, Some(stop), abandoned);
    }
    let stopped = (done < blocks_total).then(|| {
        r.end_bytes = range.start + done * range.block;
        EngineStop::Interrupted
    });
    locate_failed(target, range, &failed, (stop, &mut told), &mut r);
    (r, stopped, abandoned)
}

/// The result of a scan of `range` before its first block, with a map of `cells`.
fn empty_result(range: &ScanRange, slow_ms: f64, cells: u64) -> ScanResult {
    ScanResult {
        start_bytes: range.start,
        end_bytes: range.end,
        block_bytes: range.block,
        blocks_read: 0,
        bytes_read: 0,
        elapsed_ns: 0,
        buckets: vec![0; BUCKET_LIMITS_MS.len() + 1],
        error_blocks: 0,
        unreadable: Vec::new(),
        slow_ms,
        slow: Vec::new(),
        map_ns: vec![0; cells as usize],
        inferred: Vec::new(),
        unanswered: None,
        unlocated_from: None,
        unconfirmed: 0,
        redone_bytes: 0,
    }
}

/// Which sectors of the `failed` blocks (offset, len) are unreadable: located as
/// ddrescue does (untimed), until Ctrl-C (`stop`), into `r`; `told` hears each
/// area as it starts.
fn locate_failed(
    target: &mut dyn Target,
    range: &ScanRange,
    failed: &[(u64, u64)],
    (stop, told): (&AtomicBool, &mut dyn FnMut(PassProgress)),
    r: &mut ScanResult,
) {
    let ss = u64::from(target.info().sector_size);
    let mut buf = AlignedBuf::new(range.block as usize);
    let located = locate(
        failed,
        range.block,
        ss,
        &mut |at, len| {
            if stop.load(Ordering::Relaxed) {
                LocateRead::EngineStop
            } else if target.read_at(buf.for_read(..len as usize), at).is_ok() {
                LocateRead::Ok
            } else {
                LocateRead::Failed
            }
        },
        told,
    );
    r.unlocated_from = located.cut;
    for (first, end) in located.failed {
        push_sectors(&mut r.unreadable, first, end - first);
    }
    for (first, end) in located.inferred {
        push_sectors(&mut r.inferred, first, end - first);
    }
}

/// One block at a time, in order, through the target. Returns the blocks done.
fn sync_pass(
    target: &mut dyn Target,
    range: &ScanRange,
    stop: &AtomicBool,
    record: &mut impl FnMut(Block, u64) -> bool,
) -> u64 {
    let mut buf = AlignedBuf::new(range.block as usize);
    let mut done = 0;
    for (i, (offset, len)) in range.blocks().enumerate() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let t0 = target.clock().now_ns();
        let res = target.read_at(buf.for_read(..len as usize), offset);
        let t1 = target.clock().now_ns();
        done += 1;
        if !record((i as u64, offset, len, t1 - t0, res), t1) {
            break;
        }
    }
    done
}

/// `depth` requests in flight on the thread pool (`super::threads`), whose
/// threads each read a block with a positioned read (the pool's thread, not this
/// one, so that the watchdog sees a read that never returns); the results are
/// recorded in block order. Returns the blocks recorded (all of those read before a Ctrl-C),
/// the watchdog's verdict when a request went unanswered for `io_timeout`, and the
/// requests left behind unanswered.
fn threaded_pass(
    fd: RawFd,
    clock: &dyn Clock,
    range: &ScanRange,
    depth: QueueDepth,
    stop: &AtomicBool,
    record: &mut impl FnMut(Block, u64) -> bool,
    limits: (Option<Duration>, Option<&dyn PassWatch>),
) -> (u64, Option<NoAnswer>, usize) {
    let total = range.count();
    let mut feed = InOrder {
        range,
        next: 0,
        total,
        order: InBlockOrder::new(0),
        record,
        ended: false,
    };
    let (_, fatal, abandoned) = threads::drive_pool(
        fd,
        clock,
        (range.block as u32, depth),
        &mut feed,
        stop,
        limits,
    );
    (
        feed.order.next_index(),
        fatal.as_ref().and_then(NoAnswer::of),
        abandoned,
    )
}

/// The scan's reads as a [`Feed`]: blocks handed out in order, their results
/// recorded in block order (early arrivals held until their turn).
struct InOrder<'a, F: FnMut(Block, u64) -> bool> {
    range: &'a ScanRange,
    next: u64,
    total: u64,
    /// Completed blocks waiting for the ones before them: (offset, length, result).
    order: InBlockOrder<(u64, u64, std::io::Result<()>)>,
    record: &'a mut F,
    ended: bool,
}

impl<F: FnMut(Block, u64) -> bool> Feed for InOrder<'_, F> {
    fn next(&mut self, _slot: usize, _buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        if self.ended || self.next >= self.total {
            return None;
        }
        let offset = self.range.start + self.next * self.range.block;
        let len = self.range.block.min(self.range.end - offset);
        self.next += 1;
        Some((offset, len as u32, OpKind::Read))
    }

    fn done(&mut self, req: &Request, c: Completion, _buf: Option<&[u8]>) -> bool {
        // Each block's time is its service time, taken in block order
        // ([`InBlockOrder`]).
        let i = (req.offset - self.range.start) / self.range.block;
        let item = (req.offset, u64::from(req.len), c.result);
        self.order.push(i, c.start_ns, c.done_ns, item);
        while !self.ended
            && let Some(t) = self.order.pop()
        {
            let (offset, len, res) = t.item;
            if !(self.record)((t.index, offset, len, t.ns, res), t.done_ns) {
                self.ended = true;
            }
        }
        !self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::SimTarget;
    use crate::test_plans::scan::whole;

    #[test]
    fn every_injected_bad_and_slow_range_is_found_and_nothing_else() {
        let spec = "sim:hdd?size=1G&bad=1000-1003&bad=500000-500001&slow=1048576-1048600:120";
        let mut t = SimTarget::open(spec).unwrap();
        let r = whole(1 << 30, 1 << 20);
        let (s, stop, _) = run_scan(
            &mut t,
            &r,
            50.0,
            &AtomicBool::new(false),
            (None, &[], None),
            |_| {},
        );
        assert!(stop.is_none());
        assert_eq!(s.blocks_read, 1024);
        assert_eq!(s.error_blocks, 2);
        assert_eq!(
            s.unreadable,
            [
                SectorRange {
                    first_sector: 1000,
                    sectors: 3
                },
                SectorRange {
                    first_sector: 500000,
                    sectors: 1
                }
            ]
        );
        assert_eq!(s.slow.len(), 1, "{:?}", s.slow);
        let slow = &s.slow[0];
        assert!(
            slow.first_sector <= 1048576 && slow.first_sector + slow.sectors >= 1048600,
            "{slow:?}"
        );
        assert!(slow.max_ns >= 120_000_000);
        assert_eq!(s.buckets.iter().sum::<u64>(), 1022);
        assert_eq!(s.map_ns.iter().filter(|&&x| x == u64::MAX).count(), 2);
    }

    #[test]
    fn ctrl_c_stops_and_keeps_what_was_scanned() {
        let mut t = SimTarget::open("sim:ssd?size=64M").unwrap();
        let r = whole(64 << 20, 1 << 20);
        let stop = AtomicBool::new(false);
        let mut n = 0;
        let (s, why, _) = run_scan(&mut t, &r, 50.0, &stop, (None, &[], None), |_| {
            n += 1;
            if n == 10 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(why, Some(EngineStop::Interrupted)));
        assert_eq!(s.blocks_read, 10);
        assert_eq!(s.end_bytes, 10 << 20);
    }

    #[test]
    fn a_file_is_scanned_by_the_threads_in_block_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("img");
        std::fs::write(&path, vec![9u8; 8 << 20]).unwrap();
        let opts = crate::device::OpenOptions {
            io: true,
            write: false,
            limit: Duration::from_secs(120),
            stop: crate::device::Stop::default(),
        };
        let mut t = crate::device::open(path.to_str().unwrap(), &opts).unwrap();
        let r = whole(8 << 20, 64 << 10);
        let mut seen = Vec::new();
        let (s, stop, _) = run_scan(
            t.as_mut(),
            &r,
            50.0,
            &AtomicBool::new(false),
            (None, &[], None),
            |p| {
                if let PassProgress::Bytes(done) = p {
                    seen.push(done)
                }
            },
        );
        assert!(stop.is_none());
        assert_eq!(
            (s.blocks_read, s.bytes_read, s.error_blocks),
            (128, 8 << 20, 0)
        );
        assert_eq!(s.buckets.iter().sum::<u64>(), 128);
        assert_eq!(
            seen,
            (1..=128).map(|i| i * (64 << 10)).collect::<Vec<u64>>(),
            "in block order"
        );
        // Ctrl-C: what was taken is finished, and the end says where it stopped.
        // The pass is held after its first HANDED_OUT blocks: while block 0's
        // thread waits for a CPU, the 7 other slots read on, and on a loaded
        // machine had read all 128 blocks (from the page cache) before block 0
        // came back and the 10th was told, so Ctrl-C came after the end.
        let flag = AtomicBool::new(false);
        let hold = HoldAfter(std::sync::atomic::AtomicU64::new(0));
        let mut n = 0;
        let limits = (None, &[][..], Some(&hold as &dyn crate::device::PassWatch));
        let (s, stop, _) = run_scan(t.as_mut(), &r, 50.0, &flag, limits, |_| {
            n += 1;
            if n == 10 {
                flag.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(stop, Some(EngineStop::Interrupted)), "{stop:?}");
        assert!(
            (10..=HANDED_OUT).contains(&s.blocks_read),
            "{}",
            s.blocks_read
        );
        assert_eq!(s.end_bytes, s.blocks_read * (64 << 10));
    }

    /// Submissions let through by [`HoldAfter`].
    const HANDED_OUT: u64 = 24;

    /// A pass watch that holds the pass from its [`HANDED_OUT`]th question on
    /// (the drive loop asks it before each submission).
    struct HoldAfter(std::sync::atomic::AtomicU64);

    impl crate::device::PassWatch for HoldAfter {
        fn held(&self) -> bool {
            self.0.fetch_add(1, Ordering::Relaxed) >= HANDED_OUT
        }
    }
}
