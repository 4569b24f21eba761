//! The surface-scan engine: read every block of a range once, timing each; go on
//! past errors, and locate the unreadable sectors of the failed blocks afterwards
//! as ddrescue does ([`super::locate`]). A drive that stops answering
//! ([`super::liveness`]) ends the scan there.

use super::liveness::Liveness;
use super::locate::{Probe, locate};
use super::sync::Stop;
use crate::clock::Clock;
use crate::device::pio::read_exact_at;
use crate::device::{AlignedBuf, Target};
use crate::probe::scan::{BUCKET_LIMITS_MS, ScanRange, bucket};
use crate::results::{ScanResult, SectorRange, SlowRange};
use std::collections::BTreeMap;
use std::os::fd::{BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

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

/// Requests kept in flight by a scan of a real device: enough for the device to
/// stream at its sequential rate, few enough that latencies stay per block.
pub const SCAN_DEPTH: usize = 4;

/// What one block read gave: its index, offset, length, latency and result.
type Block = (u64, u64, u64, u64, std::io::Result<()>);

/// Scan `range`. Blocks of at least `slow_ms` are listed as slow. `on_block` is told
/// the bytes done after every block, in order (for progress). Stops only for Ctrl-C.
///
/// A real device is read [`SCAN_DEPTH`] blocks deep by a few threads (each block's
/// time is its service time: from the previous completion, or its own submission if
/// later, to its completion); a simulated one in order, one block at a time. Failed blocks are re-read sector by sector after the pass
/// (untimed) to list the exact unreadable sectors.
pub fn run_scan(
    target: &mut dyn Target,
    range: &ScanRange,
    slow_ms: f64,
    stop: &AtomicBool,
    mut on_block: impl FnMut(u64),
) -> (ScanResult, Option<Stop>) {
    let ss = u64::from(target.info().sector_size);
    let slow_ns = (slow_ms * 1e6) as u64;
    let blocks_total = range.count();
    let cells = blocks_total.min(MAP_CELLS);
    let mut r = ScanResult {
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
    };
    let mut failed = Vec::new();
    let mut live = Liveness::new(target.raw_fd(), ss);
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
            r.map_ns[cell] = r.map_ns[cell].max(ns);
            if ns >= slow_ns {
                SlowRange::push(&mut r.slow, offset / ss, len / ss, ns);
            }
        } else {
            r.error_blocks += 1;
            r.map_ns[cell] = u64::MAX;
            failed.push((offset, len));
            if let Err(e) = &res
                && let Some(u) = live.failed(offset, e, now.saturating_sub(start))
            {
                unanswered = Some(u);
            }
        }
        on_block(offset + len - range.start);
        unanswered.is_none()
    };
    let done = match target
        .raw_fd()
        .map(|fd| std::os::fd::AsRawFd::as_raw_fd(&fd))
    {
        Some(fd) => threaded_pass(fd, target.clock(), range, stop, &mut record),
        None => sync_pass(target, range, stop, &mut record),
    };
    r.elapsed_ns = target.clock().now_ns() - start;
    if let Some(u) = unanswered {
        // The drive is gone: its failed blocks are not located (every read fails).
        r.end_bytes = (range.start + done * range.block).min(range.end);
        let error = std::io::Error::other(u.line());
        let offset = u.at_bytes;
        r.unanswered = Some(u);
        return (
            r,
            Some(Stop::Failed {
                setup: false,
                offset,
                error,
            }),
        );
    }
    let stopped = (done < blocks_total).then(|| {
        r.end_bytes = range.start + done * range.block;
        Stop::Interrupted
    });
    // Which sectors of the failed blocks: located (untimed).
    let mut buf = AlignedBuf::new(range.block as usize);
    let located = locate(&failed, ss, &mut |at, len| {
        if stop.load(Ordering::Relaxed) {
            Probe::Stop
        } else if target.read_at(&mut buf[..len as usize], at).is_ok() {
            Probe::Ok
        } else {
            Probe::Failed
        }
    });
    for (first, end) in located.failed {
        push_sectors(&mut r.unreadable, first, end - first);
    }
    for (first, end) in located.inferred {
        push_sectors(&mut r.inferred, first, end - first);
    }
    (r, stopped)
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
        let res = target.read_at(&mut buf[..len as usize], offset);
        let t1 = target.clock().now_ns();
        done += 1;
        if !record((i as u64, offset, len, t1 - t0, res), t1) {
            break;
        }
    }
    done
}

/// [`SCAN_DEPTH`] threads take the blocks in order from a shared counter and read
/// them with positioned reads on the borrowed descriptor; the results are recorded
/// in block order. Returns the blocks done (all of those taken before a Ctrl-C).
fn threaded_pass(
    fd: RawFd,
    clock: &dyn Clock,
    range: &ScanRange,
    stop: &AtomicBool,
    record: &mut impl FnMut(Block, u64) -> bool,
) -> u64 {
    let next = AtomicU64::new(0);
    // Raised when `record` says stop (the drive stopped answering).
    let ended = AtomicBool::new(false);
    let total = range.count();
    // (index, offset, length, start, end, ok)
    let (tx, rx) = mpsc::channel::<(u64, u64, u64, u64, u64, std::io::Result<()>)>();
    std::thread::scope(|scope| {
        for _ in 0..SCAN_DEPTH.min(total as usize).max(1) {
            let tx = tx.clone();
            let next = &next;
            let ended = &ended;
            scope.spawn(move || {
                // SAFETY: the target owns the descriptor and outlives the scope.
                let fd = unsafe { BorrowedFd::borrow_raw(fd) };
                let mut buf = AlignedBuf::new(range.block as usize);
                while !stop.load(Ordering::Relaxed) && !ended.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= total {
                        break;
                    }
                    let offset = range.start + i * range.block;
                    let len = range.block.min(range.end - offset);
                    let t0 = clock.now_ns();
                    let res = read_exact_at(fd, &mut buf[..len as usize], offset);
                    let t1 = clock.now_ns();
                    if tx.send((i, offset, len, t0, t1, res)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // A block's time is its service time: from when the device could start on it
        // (its submission, or the previous completion if later) to its completion,
        // so that waiting behind the other reads in flight is not counted as its
        // own. Then record in block order: hold early arrivals until their turn.
        let mut pending = BTreeMap::new();
        let mut expected = 0;
        let mut last_done = 0;
        for (i, offset, len, t0, t1, res) in rx {
            let ns = t1.saturating_sub(t0.max(last_done));
            last_done = last_done.max(t1);
            pending.insert(i, ((i, offset, len, ns, res), t1));
            if ended.load(Ordering::Relaxed) {
                continue;
            }
            while let Some((b, t)) = pending.remove(&expected) {
                expected += 1;
                if !record(b, t) {
                    ended.store(true, Ordering::Relaxed);
                    break;
                }
            }
        }
        expected
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::SimTarget;
    use crate::probe::scan::range;

    #[test]
    fn every_injected_bad_and_slow_range_is_found_and_nothing_else() {
        let spec = "sim:hdd?size=1G&bad=1000-1003&bad=500000-500001&slow=1048576-1048600:120";
        let mut t = SimTarget::open(spec).unwrap();
        let r = range(1 << 30, 512, None, None, 1 << 20).unwrap();
        let (s, stop) = run_scan(&mut t, &r, 50.0, &AtomicBool::new(false), |_| {});
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
        let r = range(64 << 20, 512, None, None, 1 << 20).unwrap();
        let stop = AtomicBool::new(false);
        let mut n = 0;
        let (s, why) = run_scan(&mut t, &r, 50.0, &stop, |_| {
            n += 1;
            if n == 10 {
                stop.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(why, Some(Stop::Interrupted)));
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
        };
        let mut t = crate::device::open(path.to_str().unwrap(), &opts).unwrap();
        let r = range(8 << 20, 512, None, None, 64 << 10).unwrap();
        let mut seen = Vec::new();
        let (s, stop) = run_scan(t.as_mut(), &r, 50.0, &AtomicBool::new(false), |done| {
            seen.push(done)
        });
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
        let flag = AtomicBool::new(false);
        let mut n = 0;
        let (s, stop) = run_scan(t.as_mut(), &r, 50.0, &flag, |_| {
            n += 1;
            if n == 10 {
                flag.store(true, Ordering::Relaxed);
            }
        });
        assert!(matches!(stop, Some(Stop::Interrupted)));
        assert!((10..128).contains(&s.blocks_read), "{}", s.blocks_read);
        assert_eq!(s.end_bytes, s.blocks_read * (64 << 10));
    }
}
