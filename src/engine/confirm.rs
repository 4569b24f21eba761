//! Slow blocks of a queued pass placed exactly: the suspects read again alone.
//!
//! A pass that keeps several requests in flight reads at the device's speed, but a
//! block's time in it is not always its own: when the scheduler runs an I/O
//! thread late, its request enters the kernel after the one behind it, the device
//! serves them out of order, and the slow block's time lands on a block in flight
//! with it (docs/methods.md, "--scan"). No timestamp taken in user space can tell
//! the two apart. So the pass only marks suspects: every block at least as slow as
//! the threshold, and the blocks that may have been in flight with it (up to the
//! queue depth on either side). Each suspect is then done again alone, one request
//! in flight, in address order, on the same engine (the thread pool, watched by the
//! watchdog; the virtual queue for a simulated drive), those slow alone once
//! more, and only the blocks slow alone both times are listed, with the lower of
//! their two times ([`SlowTiming::Confirmed`]): a stall of the whole machine (or of
//! the I/O path: a FUSE device's daemon waiting for a CPU) rarely hits the same
//! block twice, and a slow block is slow each time it is read.
//! This is how ddrescue and HDDSuperClone work too: a fast first pass, then the
//! suspect areas again, slowly.
//!
//! A queued slow range none of whose suspects is slow alone is not listed; its
//! blocks are counted ([`Confirmed::unconfirmed`]), so that a slowness that did not
//! come back (a drive that served the second read from its cache, or a stall of
//! the whole machine) is still said.

use super::PassProgress;
use super::queue::{Completion, Feed, Request};
use super::queued;
use crate::device::{PassWatch, Target};
use crate::results::settings::QueueDepth;
use crate::results::{SlowRange, SlowTiming};
use crate::test_plans::OpKind;
use crate::test_plans::scan::ScanRange;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// What a confirmation answers to besides its requests: Ctrl-C, the watchdog's
/// limit (`--io-timeout`) and the pass's watch (a real drive's temperature).
pub type Limits<'a> = (&'a AtomicBool, Option<Duration>, Option<&'a dyn PassWatch>);

/// How a suspect block is done again.
#[derive(Clone, Copy)]
pub enum Redo<'a> {
    /// Read it (the scan, a verify pass's read half).
    Read,
    /// Write it again with the content the function puts in its buffer (given the
    /// buffer and the block's first sector; untimed, before the write): a verify
    /// pass's write half, which writes the same stamps again.
    Write(&'a dyn Fn(&mut [u8], u64)),
}

/// What the confirmation found.
#[derive(Debug, Default)]
pub struct Confirmed {
    /// The blocks slow when done alone, twice, as runs, each with the slowest
    /// of their lower times ([`SlowTiming::Confirmed`]); the queued ranges unchanged when the
    /// confirmation did not run to its end (Ctrl-C, the drive given up) or when the
    /// pass was one block deep ([`SlowTiming::Alone`]).
    pub slow: Vec<SlowRange>,
    /// Blocks of the queued slow ranges none of whose suspects was slow alone.
    pub unconfirmed: u64,
    /// Blocks done again.
    pub redone: u64,
    /// Their bytes (a range's last block may be short).
    pub redone_bytes: u64,
    /// The engine failed as a whole, or the watchdog gave a request up
    /// ([`super::queue_loop::NoAnswer`] inside).
    pub fatal: Option<io::Error>,
    /// Requests left behind unanswered (the watchdog or Ctrl-C).
    pub abandoned: usize,
}

/// The suspects of a pass kept `depth` deep over `range`: the block indices of
/// every block of the `slow` ranges (in address order, as the passes list them),
/// and of the `depth` blocks on either side of each, within the range; sorted,
/// each once. Sectors of `ss` bytes.
pub fn suspects(slow: &[SlowRange], range: &ScanRange, ss: u64, depth: QueueDepth) -> Vec<u64> {
    let reach = u64::from(depth.get());
    let last = range.count().saturating_sub(1);
    let mut out: Vec<u64> = Vec::new();
    for s in slow {
        let (first, end) = window(s, range, ss, reach, last);
        let from = first.max(out.last().map_or(0, |&l| l + 1));
        out.extend(from..=end);
    }
    out
}

/// The first and last block index of `s`'s window: its blocks and `reach` more on
/// either side, within blocks 0..=`last`.
fn window(s: &SlowRange, range: &ScanRange, ss: u64, reach: u64, last: u64) -> (u64, u64) {
    let block = |sector: u64| (sector * ss).saturating_sub(range.start) / range.block;
    let first = block(s.first_sector);
    let end = block(s.first_sector + s.sectors.max(1) - 1);
    (first.saturating_sub(reach), (end + reach).min(last))
}

/// Confirm the slow ranges `queued` of a pass kept `depth` deep over `range`:
/// each suspect ([`suspects`]) done again alone as `redo` says, on `target`'s
/// engine, and only those at least `slow_ns` listed. A pass one block deep needs
/// no confirmation: its ranges are returned as [`SlowTiming::Alone`]. `stop` is
/// Ctrl-C; a request unanswered for `io_timeout` gives the confirmation up.
/// `told` hears each block done again ([`PassProgress::Again`]).
#[allow(clippy::too_many_arguments)]
pub fn confirm(
    target: &mut dyn Target,
    range: &ScanRange,
    queued: &[SlowRange],
    slow_ns: u64,
    depth: QueueDepth,
    redo: Redo<'_>,
    (stop, io_timeout, watch): Limits<'_>,
    told: &mut dyn FnMut(PassProgress),
) -> Confirmed {
    let mut out = Confirmed {
        slow: queued.to_vec(),
        ..Confirmed::default()
    };
    if depth.get() == 1 {
        for s in &mut out.slow {
            s.timed = SlowTiming::Alone;
        }
        return out;
    }
    if queued.is_empty() || stop.load(Ordering::Relaxed) {
        return out;
    }
    let ss = u64::from(target.info().sector_size);
    let blocks = suspects(queued, range, ss, depth);
    let first = alone(
        target,
        range,
        &blocks,
        redo,
        (stop, io_timeout, watch),
        (&mut out, &mut *told),
    );
    let Some(first) = first else {
        // Not every suspect was done again: the pass's own ranges stand.
        return out;
    };
    // Those slow alone, once more: a stall of the machine (or of a drive's
    // firmware) rarely hits the same block twice, a slow block is slow each time.
    let again: Vec<u64> = first
        .iter()
        .filter(|t| t.1.is_some_and(|ns| ns >= slow_ns))
        .map(|t| t.0)
        .collect();
    let Some(second) = alone(
        target,
        range,
        &again,
        redo,
        (stop, io_timeout, watch),
        (&mut out, told),
    ) else {
        return out;
    };
    let mut slow = Vec::new();
    for (&i, &(_, ns)) in again.iter().zip(&second) {
        let before = first.iter().find(|t| t.0 == i).and_then(|t| t.1);
        if let (Some(a), Some(b)) = (before, ns)
            && b >= slow_ns
        {
            let (offset, len) = span(range, i);
            SlowRange::push(&mut slow, offset / ss, len / ss, a.min(b));
        }
    }
    for s in &mut slow {
        s.timed = SlowTiming::Confirmed;
    }
    let last = range.count().saturating_sub(1);
    let reach = u64::from(depth.get());
    for q in queued {
        let (first, end) = window(q, range, ss, reach, last);
        let seen = slow.iter().any(|s| {
            let (a, b) = window(s, range, ss, 0, last);
            a <= end && b >= first
        });
        if !seen {
            out.unconfirmed += q.sectors * ss / range.block.max(1);
        }
    }
    out.slow = slow;
    out
}

/// Do `blocks` again alone as `redo` says: each one's index and time (None: it
/// failed), or None when not every block was done (Ctrl-C, the watchdog, a
/// failed engine: `out` says which, and counts them); `told` hears each done.
fn alone(
    target: &mut dyn Target,
    range: &ScanRange,
    blocks: &[u64],
    redo: Redo<'_>,
    (stop, io_timeout, watch): Limits<'_>,
    (out, told): (&mut Confirmed, &mut dyn FnMut(PassProgress)),
) -> Option<Vec<(u64, Option<u64>)>> {
    if blocks.is_empty() {
        return Some(Vec::new());
    }
    let mut feed = Again {
        range,
        ss: u64::from(target.info().sector_size),
        blocks,
        next: 0,
        redo,
        times: Vec::with_capacity(blocks.len()),
        told,
    };
    (feed.told)(PassProgress::Again {
        done: 0,
        of: blocks.len() as u64,
    });
    let run = queued::run_feed(
        target,
        (range.block as u32, QueueDepth::fixed::<1>()),
        &mut feed,
        stop,
        (io_timeout, watch),
    );
    out.redone += feed.times.len() as u64;
    out.redone_bytes += (feed.times.iter())
        .map(|&(i, _)| span(range, i).1)
        .sum::<u64>();
    out.abandoned += run.abandoned;
    out.fatal = run.fatal;
    let whole = !run.interrupted && out.fatal.is_none() && feed.times.len() == blocks.len();
    whole.then_some(feed.times)
}

/// The offset and length of block `i` of `range`.
fn span(range: &ScanRange, i: u64) -> (u64, u64) {
    let offset = range.start + i * range.block;
    (offset, range.block.min(range.end - offset))
}

/// The suspects as a [`Feed`], one at a time, in address order: each one's time
/// is its own request's, from its submission to its completion.
struct Again<'a> {
    range: &'a ScanRange,
    ss: u64,
    blocks: &'a [u64],
    next: usize,
    redo: Redo<'a>,
    /// Each block done: its index and time (None: it failed).
    times: Vec<(u64, Option<u64>)>,
    /// Hears each block done.
    told: &'a mut dyn FnMut(PassProgress),
}

impl Feed for Again<'_> {
    fn next(&mut self, _slot: usize, buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        let &i = self.blocks.get(self.next)?;
        let (offset, len) = span(self.range, i);
        let kind = match self.redo {
            Redo::Read => OpKind::Read,
            Redo::Write(fill) => {
                fill(&mut buf?[..len as usize], offset / self.ss);
                OpKind::Write
            }
        };
        self.next += 1;
        Some((offset, len as u32, kind))
    }

    fn done(&mut self, req: &Request, c: Completion, _buf: Option<&[u8]>) -> bool {
        let i = (req.offset - self.range.start) / self.range.block;
        let ns = c
            .result
            .is_ok()
            .then(|| c.done_ns.saturating_sub(c.start_ns));
        self.times.push((i, ns));
        (self.told)(PassProgress::Again {
            done: self.times.len() as u64,
            of: self.blocks.len() as u64,
        });
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::SimTarget;
    use crate::test_plans::scan::whole;

    fn slow(first_sector: u64, sectors: u64, max_ns: u64) -> SlowRange {
        SlowRange {
            first_sector,
            sectors,
            max_ns,
            timed: SlowTiming::Queued,
        }
    }

    #[test]
    fn suspects_are_the_slow_blocks_and_those_in_flight_beside_them_once_each() {
        let r = whole(64 << 20, 1 << 20);
        let d4 = QueueDepth::fixed::<4>();
        // Block 10 slow: blocks 6-14.
        assert_eq!(
            suspects(&[slow(10 * 2048, 2048, 1)], &r, 512, d4),
            (6..=14).collect::<Vec<_>>()
        );
        // Blocks 1 and 9-10: windows clipped at 0 and joined without repeats.
        let joined = suspects(&[slow(2048, 2048, 1), slow(9 * 2048, 4096, 1)], &r, 512, d4);
        assert_eq!(joined, (0..=14).collect::<Vec<_>>());
        // Apart: two windows.
        let both = suspects(
            &[slow(2048, 2048, 1), slow(20 * 2048, 2048, 1)],
            &r,
            512,
            d4,
        );
        assert_eq!(both, [0, 1, 2, 3, 4, 5, 16, 17, 18, 19, 20, 21, 22, 23, 24]);
        // At the end of the range.
        assert_eq!(
            suspects(&[slow(63 * 2048, 2048, 1)], &r, 512, d4),
            (59..=63).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_slow_time_landed_on_a_neighbour_is_moved_to_the_slow_block_with_its_own_time() {
        // The drive's slow block is 8 (sectors 16384-18431, 120 ms more); the queued
        // pass charged its time to block 7.
        let mut t = SimTarget::open("sim:ssd?size=64M&slow=16384-18432:120").unwrap();
        let r = whole(64 << 20, 1 << 20);
        let mut told = Vec::new();
        let c = confirm(
            &mut t,
            &r,
            &[slow(7 * 2048, 2048, 125_000_000)],
            50_000_000,
            QueueDepth::fixed::<4>(),
            Redo::Read,
            (&AtomicBool::new(false), None, None),
            &mut |p| told.push(p),
        );
        assert!(c.fatal.is_none());
        assert_eq!(c.redone, 10, "blocks 3-11, then block 8 once more");
        assert_eq!(c.redone_bytes, 10 << 20);
        // Each block done again is told, from none of each round on.
        let again = |done, of| PassProgress::Again { done, of };
        assert_eq!(told.len(), 1 + 9 + 1 + 1, "{told:?}");
        assert_eq!(
            (told[0], told[9], told[10]),
            (again(0, 9), again(9, 9), again(0, 1))
        );
        assert_eq!(c.slow.len(), 1, "{:?}", c.slow);
        let s = c.slow[0];
        assert_eq!((s.first_sector, s.sectors), (16384, 2048), "{s:?}");
        assert_eq!(s.timed, SlowTiming::Confirmed);
        assert!((120_000_000..125_000_000).contains(&s.max_ns), "{s:?}");
        assert_eq!(c.unconfirmed, 0);
    }

    #[test]
    fn a_slowness_that_does_not_come_back_is_counted_not_listed() {
        let mut t = SimTarget::open("sim:ssd?size=64M").unwrap();
        let r = whole(64 << 20, 1 << 20);
        let c = confirm(
            &mut t,
            &r,
            &[slow(7 * 2048, 4096, 90_000_000)],
            50_000_000,
            QueueDepth::fixed::<4>(),
            Redo::Read,
            (&AtomicBool::new(false), None, None),
            &mut |_| {},
        );
        assert!(c.slow.is_empty(), "{:?}", c.slow);
        assert_eq!((c.unconfirmed, c.redone), (2, 10));
    }

    #[test]
    fn a_pass_one_block_deep_is_not_read_again_and_ctrl_c_keeps_the_pass_ranges() {
        let mut t = SimTarget::open("sim:ssd?size=64M").unwrap();
        let r = whole(64 << 20, 1 << 20);
        let q = [slow(7 * 2048, 2048, 90_000_000)];
        let go = AtomicBool::new(false);
        let c = confirm(
            &mut t,
            &r,
            &q,
            1,
            QueueDepth::fixed::<1>(),
            Redo::Read,
            (&go, None, None),
            &mut |_| {},
        );
        assert_eq!((c.redone, c.slow[0].timed), (0, SlowTiming::Alone));
        let stop = AtomicBool::new(true);
        let d4 = QueueDepth::fixed::<4>();
        let c = confirm(
            &mut t,
            &r,
            &q,
            1,
            d4,
            Redo::Read,
            (&stop, None, None),
            &mut |_| {},
        );
        assert_eq!((c.redone, c.slow.as_slice()), (0, q.as_slice()));
    }

    #[test]
    fn a_write_is_done_again_with_the_content_given() {
        let mut t = SimTarget::open("sim:ssd?size=64M&slow=4096-6144:80").unwrap();
        let r = whole(64 << 20, 1 << 20);
        let filled = std::cell::Cell::new(0u64);
        let fill = |b: &mut [u8], lba: u64| {
            b.fill(7);
            filled.set(filled.get() + 1);
            assert_eq!(lba % 2048, 0);
        };
        let c = confirm(
            &mut t,
            &r,
            &[slow(4096, 2048, 85_000_000)],
            50_000_000,
            QueueDepth::fixed::<2>(),
            Redo::Write(&fill),
            (&AtomicBool::new(false), None, None),
            &mut |_| {},
        );
        assert_eq!(filled.get(), 6, "blocks 0-4, then block 2 once more");
        assert_eq!(c.redone, 6);
        assert_eq!(c.slow.len(), 1, "{:?}", c.slow);
        assert_eq!(c.slow[0].first_sector, 4096);
    }
}
