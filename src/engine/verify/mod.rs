//! The write-and-verify engine (`--verify`): for each pass, every block of the
//! range written with fresh stamps, the write cache flushed, every block read back
//! and checked. The requests go through the queued engines' one loop
//! ([`super::queue_loop::drive_feed`], picked by [`queued::run_feed`]): `feed.rs` is
//! the [`Feed`], which stamps a write's buffer before it is submitted and checks a
//! read's after it completed (both untimed); `half.rs` runs a half and redoes its
//! slow and failed blocks; `checkpoint.rs` saves where a run can go on from; this
//! file holds the parameters and walks the passes.
//!
//! A block's time is its service time, as the scan's: from when the device could
//! start on it (its submission, or the previous block's completion if later) to its
//! completion ([`InBlockOrder`]). Blocks that fail with an error are redone sector by sector after
//! their half (untimed, through the target), so that the failures name the exact
//! sectors: a sector whose write fails is unwritable (and not judged again when
//! read back), one whose read fails unreadable.

use super::liveness::Liveness;
use super::queue::EngineStop;
use crate::device::size_probe::SizeProbe;
use crate::device::{PassWatch, Target};
use crate::results::QueuedEngine;
use crate::results::failures::Failures;
use crate::results::settings::QueueDepth;
use crate::results::verify::{Half, HalfKind, Pass, REGIONS, VerifyResult};
use crate::stamps::checkpoint::Checkpoint;
use crate::stamps::stamp::{StampSize, Stamper};
use crate::test_plans::OpKind;
use crate::test_plans::scan::ScanRange;
use std::io;
use std::sync::atomic::AtomicBool;

mod feed;
mod half;
mod sample;
mod saver;
use feed::HalfFeed;
use sample::Sampler;
use saver::half_start;
pub use saver::{CHECKPOINT_NS, Saver};

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

/// VerifyProgress: (pass, half, how far the half got: its bytes done, then the slow
/// blocks done again alone and the failed areas located after it).
pub type VerifyProgress<'a> = &'a mut dyn FnMut(u32, HalfKind, crate::engine::PassProgress);

/// The checkpoint a run of `p` goes on from: its own, when it fits the range,
/// block and passes asked for (else the run starts afresh).
pub fn resumed_from(p: &VerifyParams) -> Option<&Checkpoint> {
    (p.resume.as_ref()).filter(|c| c.fits(p.range.start, p.range.end, p.range.block, p.passes))
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

/// What a run carries from half to half: the target and its parameters, the
/// drive's liveness, and the requests left behind.
struct Run<'a, 's> {
    target: &'a mut dyn Target,
    p: &'a VerifyParams,
    stop: &'a AtomicBool,
    /// The pass's watch (a real drive's temperature holds the feed).
    watch: Option<&'a dyn PassWatch>,
    progress: VerifyProgress<'a>,
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
    /// Reads the target's size again (None: the target cannot tell).
    size: Option<SizeProbe>,
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

/// Run the passes of `p` on `target`, held while the pass's `watch` says so (a
/// real drive's temperature). `progress` is told each half's bytes done.
/// Stops only for Ctrl-C (the result says where, and the `--start` that resumes),
/// a drive given up, a size that changed ([`VerifyResult::size_changed`]) or an
/// engine that fails as a whole; failed requests are recorded and passed.
/// The count returned last is of the requests left behind unanswered (the
/// watchdog or Ctrl-C): seekprobe can end only when the kernel gives them back.
pub fn run_verify(
    target: &mut dyn Target,
    p: &VerifyParams,
    (stop, watch): (&AtomicBool, Option<&dyn PassWatch>),
    progress: VerifyProgress<'_>,
    mut saver: Option<&mut Saver<'_>>,
) -> (VerifyResult, Option<EngineStop>, usize) {
    let ss = target.info().sector_size;
    // A resumed run: its nonce, its completed passes, and the pass in progress.
    let resume = resumed_from(p);
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
        size_changed: None,
    };
    // The sector size checked once, before any I/O: every pass's stamper follows.
    let size = match StampSize::new(ss) {
        Ok(size) => size,
        Err(e) => {
            let error = io::Error::new(io::ErrorKind::InvalidInput, e.to_string());
            let stop = EngineStop::Failed {
                setup: true,
                offset: 0,
                error,
            };
            return (r, Some(stop), 0);
        }
    };
    if let Some(s) = saver.as_deref_mut() {
        s.last_ns = target.clock().now_ns();
        s.last_bytes = p.range.start;
    }
    let mut run = Run {
        size: target.size_probe(),
        test_start_ns: target.clock().now_ns(),
        live: Liveness::new(target.raw_fd(), u64::from(ss)).knowing(&p.known_good),
        target,
        p,
        stop,
        watch,
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

#[cfg(test)]
mod tests;
