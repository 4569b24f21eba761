//! Queued I/O: the types every queued backend and its callers share, the
//! [`Backend`] trait (submit, reap with timestamps) and the [`Feed`] trait; the one
//! loop that owns the queue depth, the duration, draining and stopping
//! ([`super::queue_loop::drive`], [`super::queue_loop::drive_feed`]) is in `queue_loop.rs`.
//!
//! The backends (io_uring in `uring.rs`, the thread pool in `threads.rs`, the
//! simulation's virtual queue in `virtual_queue.rs`) only move requests: they never
//! choose offsets, never decide when to stop and never keep statistics. The
//! dispatcher (`queued.rs`) picks one for a target and hands it to the loop. This
//! module and `queue_loop.rs` import none of them, so the imports run one way:
//! dispatcher → backends → `queue_loop.rs` → this module.

use crate::results::QueuedEngine;
use crate::results::settings::QueueDepth;
use crate::results::stats::Histogram;
use crate::test_plans::OpKind;
use std::io;
use std::time::Duration;

/// Why a phase or a run stopped before its end.
#[derive(Debug)]
pub enum EngineStop {
    /// The stop flag was raised (Ctrl-C).
    Interrupted,
    /// An operation failed.
    Failed {
        /// Whether the failed operation was an untimed setup one (for a queued run:
        /// the run could not start at all).
        setup: bool,
        /// Its byte offset.
        offset: u64,
        /// The operating system's error, as the backend reported it.
        error: io::Error,
    },
}

/// What to run: one request size, one queue depth, one duration, one seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedParams {
    /// Request size in bytes: a multiple of the sector size, at most the device size
    /// (see [`crate::test_plans::iops::sizes`]).
    pub len: u32,
    /// Requests kept in flight (diskinfo: 128).
    pub queue_depth: QueueDepth,
    /// Replacements are submitted while less than this has passed (diskinfo: 3 s).
    pub duration: Duration,
    /// Seeds the random offsets ([`crate::test_plans::iops::OffsetGen::new`]); 0 with a
    /// sequential stream.
    pub seed: u64,
    /// A request unanswered this long ends the run with a
    /// [`crate::device::watched::NoAnswer`] error (--io-timeout); None: no limit.
    pub io_timeout: Option<Duration>,
}

/// What one queued run measured: completions, elapsed time, latencies, and why it stopped.
#[derive(Debug)]
pub struct QueuedRun {
    /// Which engine ran.
    pub engine: QueuedEngine,
    /// Requests completed successfully (a failed one is not counted).
    pub completed: u64,
    /// From the start to the last completion, in nanoseconds of the target's clock.
    pub elapsed_ns: u64,
    /// Each completed request's latency (its completion time minus the time it was
    /// handed to the device, as its backend stamps them); its count equals
    /// `completed`.
    pub latency: Histogram,
    /// Why the run stopped early, if it did: the stop flag, or the first failed
    /// request (`setup: true` when the run could not start at all).
    pub stop: Option<EngineStop>,
    /// Something the caller should tell the user (on stderr), e.g. why io_uring was
    /// not used.
    pub note: Option<String>,
    /// Bytes moved by the requests that completed (`completed` × the request size):
    /// what the engine itself read, beside the target's own read/write counter.
    pub bytes: u64,
    /// Requests this run left behind in flight, unanswered (see
    /// [`super::queue_loop::drive_feed`]).
    pub abandoned: usize,
}

impl QueuedRun {
    /// An empty run by `engine`.
    pub fn new(engine: QueuedEngine) -> Self {
        QueuedRun {
            engine,
            completed: 0,
            elapsed_ns: 0,
            latency: Histogram::new(),
            stop: None,
            note: None,
            bytes: 0,
            abandoned: 0,
        }
    }

    /// Completed requests per second (0 when nothing was timed).
    pub fn iops(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.completed as f64 * 1e9 / self.elapsed_ns as f64
    }

    /// A run that could not start: no completions, stopped by a setup failure at offset 0.
    pub fn refused(engine: QueuedEngine, kind: io::ErrorKind, why: String) -> Self {
        let mut run = QueuedRun::new(engine);
        run.stop = Some(EngineStop::Failed {
            setup: true,
            offset: 0,
            error: io::Error::new(kind, why),
        });
        run
    }
}

/// One request handed to a backend: read `len` bytes at `offset` into the buffer
/// of `slot` (0..queue depth), or write them from it. A slot has at most one
/// request in flight; its buffer belongs to the backend, and [`Backend::buffer`]
/// lends it while no request is in flight for the slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// The slot, 0..queue depth.
    pub slot: usize,
    /// Byte offset on the device, a multiple of the sector size.
    pub offset: u64,
    /// Bytes to move: at most the buffer's length (the run's request size).
    pub len: u32,
    /// A read or a write.
    pub kind: OpKind,
}

/// One finished request, with the backend's timestamps.
#[derive(Debug)]
pub struct Completion {
    /// The slot of the request (as submitted).
    pub slot: usize,
    /// When the request was handed to the device (the clock reading just before the
    /// system call that submitted it, or before the blocking read), in ns.
    pub start_ns: u64,
    /// When it completed, in ns: the clock reading just after the system call that
    /// did it (the thread pool: each thread times its own request), or just after
    /// the wait that returned it (io_uring: a completion is seen only when the loop
    /// waits, so the loop's work in between delays it; see `queued::run_feed`).
    pub done_ns: u64,
    /// Whether the whole request succeeded (a short transfer is an error).
    pub result: io::Result<()>,
}

/// A queued backend: it moves requests, the [`super::queue_loop::drive`] loop decides
/// which and when.
pub trait Backend {
    /// The engine recorded in [`QueuedRun::engine`].
    fn engine(&self) -> QueuedEngine;

    /// The backend's clock, in ns (the same clock as its timestamps).
    fn now_ns(&self) -> u64;

    /// Queue `req`; it may be handed to the device only at the next [`reap`](Self::reap).
    /// An error means the request was not queued (nothing is in flight for its slot).
    fn submit(&mut self, req: Request) -> io::Result<()>;

    /// Hand what was queued to the device, wait until at least one request in flight
    /// has finished, and append every finished one to `out` (which has room for the
    /// queue depth: appending never allocates). An error here is fatal: what is in
    /// flight is unknown.
    fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<()>;

    /// As [`Backend::reap`], but return with `out` unchanged when nothing finished
    /// within `wait` (the loop's watchdog and Ctrl-C poll). The default waits as
    /// `reap` does: a backend whose requests cannot hang (the simulation's).
    fn reap_within(&mut self, out: &mut Vec<Completion>, _wait: Duration) -> io::Result<()> {
        self.reap(out)
    }

    /// Called once after the drain with the last successful completion time.
    fn finish(&mut self, _last_ns: u64) {}

    /// The buffer of `slot` (the run's request size), while no request is in
    /// flight for it: a write's content is put there before its submission, a
    /// read's is found there after its completion. None for a backend that moves
    /// no data.
    fn buffer(&mut self, _slot: usize) -> Option<&mut [u8]> {
        None
    }
}

/// Where the requests of a [`super::queue_loop::drive_feed`] come from and where their completions
/// go: the caller's side of the one loop. Both calls run between a completion's
/// timestamp and the next submission's, so filling or checking a buffer never
/// counts as that request's time. Other requests in flight meanwhile are timed
/// right only by a backend whose completions are timestamped where the I/O is
/// done (the thread pool, the virtual queue), not by one that timestamps them
/// when this loop reaps them (io_uring): `queued::run_feed` picks accordingly.
pub trait Feed {
    /// The next request for `slot` (its previous one, if any, has completed), with
    /// the slot's buffer to fill for a write; None when there is nothing more to
    /// submit on this slot now.
    fn next(&mut self, slot: usize, buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)>;
    /// `req` finished as `c` says; `buf` holds what a read brought. Returns whether
    /// to go on submitting (false stops submission: the loop drains and ends).
    fn done(&mut self, req: &Request, c: Completion, buf: Option<&[u8]>) -> bool;
}

/// How a drive ended besides its [`QueuedRun`]: `Some(error)` when the backend failed
/// as a whole (a [`Backend::reap`] error), with requests possibly still in flight.
pub type Fatal = Option<io::Error>;
