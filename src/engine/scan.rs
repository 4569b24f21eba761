//! The surface-scan engine: read every block of a range once, in order, timing each;
//! go on past errors, and find the unreadable sectors of a failed block by reading
//! them one by one.

use super::sync::Stop;
use crate::device::{AlignedBuf, Target};
use crate::probe::scan::{BUCKET_LIMITS_MS, ScanRange, bucket};
use crate::results::{ScanResult, SectorRange, SlowRange};
use std::sync::atomic::{AtomicBool, Ordering};

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

fn push_slow(ranges: &mut Vec<SlowRange>, first: u64, n: u64, ns: u64) {
    if let Some(last) = ranges.last_mut()
        && last.first_sector + last.sectors == first
    {
        last.sectors += n;
        last.max_ns = last.max_ns.max(ns);
        return;
    }
    ranges.push(SlowRange {
        first_sector: first,
        sectors: n,
        max_ns: ns,
    });
}

/// Scan `range`. Blocks of at least `slow_ns` are listed as slow. `on_block` is told
/// the bytes done after every block (for progress). Stops only for Ctrl-C.
pub fn run_scan(
    target: &mut dyn Target,
    range: &ScanRange,
    slow_ms: f64,
    stop: &AtomicBool,
    mut on_block: impl FnMut(u64),
) -> (ScanResult, Option<Stop>) {
    let ss = u64::from(target.info().sector_size);
    let slow_ns = (slow_ms * 1e6) as u64;
    let mut buf = AlignedBuf::new(range.block as usize);
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
    };
    let mut stopped = None;
    let mut last = target.clock().now_ns();
    for (i, (offset, len)) in range.blocks().enumerate() {
        if stop.load(Ordering::Relaxed) {
            stopped = Some(Stop::Interrupted);
            r.end_bytes = offset;
            break;
        }
        let res = target.read_at(&mut buf[..len as usize], offset);
        let now = target.clock().now_ns();
        let ns = now - last;
        r.elapsed_ns += ns;
        r.blocks_read += 1;
        let cell = (i as u64 * cells / blocks_total) as usize;
        match res {
            Ok(()) => {
                r.bytes_read += len;
                r.buckets[bucket(ns)] += 1;
                r.map_ns[cell] = r.map_ns[cell].max(ns);
                if ns >= slow_ns {
                    push_slow(&mut r.slow, offset / ss, len / ss, ns);
                }
            }
            Err(_) => {
                r.error_blocks += 1;
                r.map_ns[cell] = u64::MAX;
                // Which sectors: read them one by one (untimed).
                for s in (offset..offset + len).step_by(ss as usize) {
                    if target.read_at(&mut buf[..ss as usize], s).is_err() {
                        push_sectors(&mut r.unreadable, s / ss, 1);
                    }
                }
            }
        }
        on_block(offset + len - range.start);
        last = target.clock().now_ns();
    }
    (r, stopped)
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
}
