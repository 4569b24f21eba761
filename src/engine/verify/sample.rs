//! The read-back as the write half goes: a drive that stops keeping what it is
//! written from some byte on (a counterfeit that remaps its addresses to less flash
//! than it reports, and drops the writes once that flash is used) is named early,
//! once it has written a bounded margin past what it keeps, not after writing its
//! whole claimed size.
//!
//! While the write half writes, the first sector of one block in every
//! `every` blocks (about [`SAMPLES`] over the range) is read back and checked, once
//! every block up to `every` blocks past it has completed (the lag: the sample is
//! read back from the drive, not from the request just acknowledged). When
//! [`SUSTAINED`] samples in a row read back other than as written, the write half
//! stops handing out writes and the loss is put to the test (`confirm`): a sector
//! at each of four places spread over the rest of the range is written, the drive's
//! cache flushed, and each read back. A drive that remaps keeps none of them (its
//! flash is used up); a drive with a damaged area keeps them, and the pass goes on
//! writing as before (the damaged area's sectors are found by the read half, as
//! ever). A confirmed loss is located to the sector by bisection between the last
//! sample read back as written and the first lost one ([`locate`]).
//!
//! Margin: the loss is suspected when the write front is at most `SUSTAINED + 2`
//! sample spacings (plus the requests in flight) past the first lost byte, so a
//! drive is written at most about 6/256 (2.4 %) of the range past what it keeps,
//! far inside the 25 % the issue allows.

use super::HalfFeed;
use crate::device::{AlignedBuf, PassWatch, Target};
use crate::engine::queued::{self, FeedRun};
use crate::results::failures::ReadBack;
use crate::results::settings::QueueDepth;
use crate::results::verify::KeepsOnly;
use crate::stamps::stamp::Stamper;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

/// About how many samples a write half reads back over its range.
pub const SAMPLES: u64 = 256;
/// Samples lost in a row that make a loss sustained.
pub const SUSTAINED: usize = 4;
/// Places past the write front that a suspected loss is put to the test at.
const PROBES: u64 = 4;

/// The write half's samples: which are due, and what they read back, walked in
/// block order.
#[derive(Debug)]
pub(super) struct Sampler {
    /// Blocks from one sample to the next, and the lag behind the completed writes.
    every: u64,
    /// The block whose sample is due next.
    next: u64,
    /// Sample outcomes not walked yet, by block: lost or not (None: not judged,
    /// the read failed or the block's write did).
    results: BTreeMap<u64, Option<bool>>,
    /// The block whose sample is walked next.
    cursor: u64,
    /// The block of the last sample read back as written.
    last_good: Option<u64>,
    /// The first of the samples lost in a row since, and how many.
    first_lost: u64,
    lost_run: usize,
    /// After a loss put to the test and found to be damage: lost samples are not
    /// counted until one reads back as written again.
    dismissed: bool,
    /// A sustained loss: the blocks of (the last sample read back as written, if
    /// any; the first lost one).
    pub(super) suspect: Option<(Option<u64>, u64)>,
}

impl Sampler {
    /// The samples of a write half of `blocks` blocks starting at block `first`.
    pub(super) fn new(blocks: u64, first: u64) -> Sampler {
        let every = (blocks / SAMPLES).max(1);
        Sampler {
            every,
            next: first,
            results: BTreeMap::new(),
            cursor: first,
            last_good: None,
            first_lost: 0,
            lost_run: 0,
            dismissed: false,
            suspect: None,
        }
    }

    /// The block whose sample is due now that every byte below `prefix` was
    /// written (`start`, `block`: the range's), if one is, or None.
    pub(super) fn due(&mut self, prefix: u64, start: u64, block: u64, blocks: u64) -> Option<u64> {
        if self.suspect.is_some() || self.next >= blocks {
            return None;
        }
        let needed = start + (self.next + 1 + self.every) * block;
        if prefix < needed {
            return None;
        }
        let i = self.next;
        self.next += self.every;
        Some(i)
    }

    /// The sample of block `i` read back: lost or not, None when it could not be
    /// judged. Walks the outcomes in block order and sets `suspect` when the loss
    /// is sustained.
    pub(super) fn record(&mut self, i: u64, lost: Option<bool>) {
        self.results.insert(i, lost);
        while let Some(r) = self.results.remove(&self.cursor) {
            let at = self.cursor;
            self.cursor += self.every;
            match r {
                None => {}
                Some(false) => {
                    self.last_good = Some(at);
                    self.lost_run = 0;
                    self.dismissed = false;
                }
                Some(true) if !self.dismissed => {
                    if self.lost_run == 0 {
                        self.first_lost = at;
                    }
                    self.lost_run += 1;
                    if self.lost_run >= SUSTAINED && self.suspect.is_none() {
                        self.suspect = Some((self.last_good, self.first_lost));
                    }
                }
                Some(true) => {}
            }
        }
    }

    /// The suspected loss was damage: go on writing, and count no lost sample
    /// until one reads back as written.
    fn dismiss(&mut self) {
        self.suspect = None;
        self.lost_run = 0;
        self.dismissed = true;
    }
}

/// Whether the sector at `offset` reads back other than as `stamper` wrote it (a
/// failed read counts as lost: nothing says it was kept).
fn lost(target: &mut dyn Target, stamper: &Stamper, ss: u64, offset: u64) -> bool {
    let mut buf = AlignedBuf::new(ss as usize);
    if target.read_at(buf.for_read(..), offset).is_err() {
        return true;
    }
    stamper.check(&buf[..], offset / ss).next() != Some(ReadBack::Ok)
}

/// Put a suspected loss to the test: a stamped sector written at [`PROBES`] places
/// spread over `[front, end)`, the cache flushed, each read back. Whether the
/// drive kept none of them (a write or read that fails, or no room to probe,
/// confirms nothing).
fn confirm(target: &mut dyn Target, stamper: &Stamper, ss: u64, front: u64, end: u64) -> bool {
    let mut at: Vec<u64> = (1..=PROBES)
        .map(|i| (front + (end - front) / (PROBES + 1) * i) / ss * ss)
        .filter(|&x| x >= front && x + ss <= end)
        .collect();
    at.dedup();
    if at.is_empty() {
        return false;
    }
    let mut buf = AlignedBuf::new(ss as usize);
    for &x in &at {
        stamper.stamp(&mut buf[..], x / ss);
        if target.write_at(buf.for_write(..), x).is_err() {
            return false;
        }
    }
    if target.flush().is_err() {
        return false;
    }
    for &x in &at {
        let mut b = AlignedBuf::new(ss as usize);
        if target.read_at(b.for_read(..), x).is_err() {
            return false;
        }
        if stamper.check(&b[..], x / ss).next() == Some(ReadBack::Ok) {
            return false;
        }
    }
    true
}

/// The first lost sector between the last sample read back as written (`good`,
/// None: none did) and the first lost one (`bad`), by bisection: the byte from
/// which the drive keeps nothing of what it was written.
pub(super) fn locate(
    target: &mut dyn Target,
    stamper: &Stamper,
    ss: u64,
    good: Option<u64>,
    start: u64,
    bad: u64,
) -> u64 {
    let mut lo = match good {
        Some(g) => g,
        None if lost(target, stamper, ss, start) => return start,
        None => start,
    };
    let mut hi = bad;
    while hi - lo > ss {
        let mid = lo + (hi - lo) / 2 / ss * ss;
        if lost(target, stamper, ss, mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Run a write half's feed on `target`; each time its samples find a sustained
/// loss, put it to the test: a confirmed one ends the half there
/// (`feed.keeps_only`), damage lets the half go on. The runs' outcomes merged.
pub(super) fn run_write_half(
    target: &mut dyn Target,
    feed: &mut HalfFeed<'_, '_>,
    depth: QueueDepth,
    stop: &AtomicBool,
    limits: (Option<std::time::Duration>, Option<&dyn PassWatch>),
) -> FeedRun {
    let block = feed.range.block;
    let mut run = queued::run_feed(target, (block as u32, depth), feed, stop, limits);
    loop {
        let clean = !run.interrupted && run.fatal.is_none() && feed.unanswered.is_none();
        // Stopped for a checkpoint that waits for a flush through the target:
        // flushed and saved, the half goes on.
        if !clean {
            feed.flush_wanted = false;
        } else if feed.flush_due(target) {
            let more = queued::run_feed(target, (block as u32, depth), feed, stop, limits);
            run = joined(run, more);
            continue;
        }
        let Some(sampler) = feed.sampler.as_mut() else {
            return run;
        };
        let Some((good, bad)) = sampler.suspect.filter(|_| clean) else {
            return run;
        };
        let at = |i: u64| feed.range.start + i * block;
        let (good, bad) = (good.map(at), at(bad));
        let front = (feed.range.start + feed.next * block).min(feed.range.end);
        if confirm(target, feed.stamper, feed.ss, front, feed.range.end) {
            let lost_from = locate(target, feed.stamper, feed.ss, good, feed.range.start, bad);
            feed.keeps_only = Some(KeepsOnly {
                pass: feed.pass,
                lost_from,
                kept_bytes: lost_from - feed.range.start,
                written_to: front,
            });
            return run;
        }
        sampler.dismiss();
        let more = queued::run_feed(target, (block as u32, depth), feed, stop, limits);
        run = joined(run, more);
    }
}

/// A half's feed run in two goes, as one: how the second ended, the requests left
/// behind by both.
fn joined(first: FeedRun, more: FeedRun) -> FeedRun {
    FeedRun {
        engine: more.engine,
        interrupted: more.interrupted,
        fatal: more.fatal,
        abandoned: first.abandoned + more.abandoned,
    }
}
