//! Queued I/O: the types every queued backend and its callers share, the
//! [`Backend`] trait (submit, reap with timestamps), and the one [`drive`] loop that
//! owns the queue depth, the duration, draining and stopping.
//!
//! The backends (io_uring in `uring.rs`, the thread pool in `threads.rs`, the
//! simulation's virtual queue in `virtual_queue.rs`) only move requests: they never
//! choose offsets, never decide when to stop and never keep statistics. The
//! dispatcher (`queued.rs`) picks one for a target and hands it to [`drive`]. This
//! module imports none of them, so the imports run one way: dispatcher → backends
//! → this module.
//!
//! The loop, as diskinfo's `-i`: start the clock, submit `queue_depth` requests, and
//! each time one completes submit a replacement into its slot if less than the
//! duration has passed since the start (measured at that completion), nothing has
//! failed and the stop flag is down; then wait for everything submitted (drain).

use crate::probe::iops::OffsetGen;
use crate::stats::Histogram;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The largest queue depth accepted: each request in flight has its own buffer
/// (and, for the thread pool, its own thread).
pub const MAX_QUEUE_DEPTH: usize = 4096;

/// Why a phase or a run stopped before its end.
#[derive(Debug)]
pub enum Stop {
    /// The stop flag was raised (Ctrl-C).
    Interrupted,
    /// An operation failed.
    Failed {
        /// Whether the failed operation was an untimed setup one (for a queued run:
        /// the run could not start at all).
        setup: bool,
        /// Its byte offset.
        offset: u64,
        /// The error.
        error: io::Error,
    },
}

/// What to run: one request size, one queue depth, one duration, one seed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedParams {
    /// Request size in bytes: a multiple of the sector size, at most the device size
    /// (see [`crate::probe::iops::sizes`]).
    pub len: u32,
    /// Requests kept in flight (diskinfo: 128), 1..=[`MAX_QUEUE_DEPTH`].
    pub queue_depth: usize,
    /// Replacements are submitted while less than this has passed (diskinfo: 3 s).
    pub duration: Duration,
    /// The seed of the offset stream.
    pub seed: u64,
}

/// The measurement of one queued run.
#[derive(Debug)]
pub struct QueuedRun {
    /// Which engine ran: `"io_uring"`, `"threads"` or `"virtual"`.
    pub engine: String,
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
    pub stop: Option<Stop>,
    /// Something the caller should tell the user (on stderr), e.g. why io_uring was
    /// not used.
    pub note: Option<String>,
    /// Bytes moved by the requests that completed (`completed` × the request size):
    /// what the engine itself read, beside the target's own read/write counter.
    pub bytes: u64,
}

impl QueuedRun {
    /// An empty run by `engine`.
    pub fn new(engine: &str) -> Self {
        QueuedRun {
            engine: engine.to_string(),
            completed: 0,
            elapsed_ns: 0,
            latency: Histogram::new(),
            stop: None,
            note: None,
            bytes: 0,
        }
    }

    /// Completed requests per second (0 when nothing was timed).
    pub fn iops(&self) -> f64 {
        if self.elapsed_ns == 0 {
            return 0.0;
        }
        self.completed as f64 * 1e9 / self.elapsed_ns as f64
    }

    /// A run that could not start.
    pub fn refused(engine: &str, kind: io::ErrorKind, why: String) -> Self {
        let mut run = QueuedRun::new(engine);
        run.stop = Some(Stop::Failed {
            setup: true,
            offset: 0,
            error: io::Error::new(kind, why),
        });
        run
    }
}

/// One request handed to a backend: read the run's request length at `offset`
/// into the buffer of `slot` (0..queue depth). A slot has at most one request in
/// flight; its buffer belongs to the backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// The slot, 0..queue depth.
    pub slot: usize,
    /// The byte offset.
    pub offset: u64,
}

/// One finished request, with the backend's timestamps.
#[derive(Debug)]
pub struct Completion {
    /// The slot of the request (as submitted).
    pub slot: usize,
    /// When the request was handed to the device (the clock reading just before the
    /// system call that submitted it, or before the blocking read), in ns.
    pub start_ns: u64,
    /// When its completion was seen (the clock reading just after the wait that
    /// returned it), in ns.
    pub done_ns: u64,
    /// Whether the whole request succeeded (a short transfer is an error).
    pub result: io::Result<()>,
}

/// A queued backend: it moves requests, the [`drive`] loop decides which and when.
pub trait Backend {
    /// The engine name recorded in [`QueuedRun::engine`].
    fn name(&self) -> &'static str;

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

    /// Called once after the drain with the last successful completion time.
    fn finish(&mut self, _last_ns: u64) {}
}

/// How a drive ended besides its [`QueuedRun`]: `Some(error)` when the backend failed
/// as a whole (a [`Backend::reap`] error), with requests possibly still in flight.
pub type Fatal = Option<io::Error>;

/// Run `params.queue_depth` requests of `stream` in flight on `backend` for
/// `params.duration`, then drain. `stop` is checked after every reap: once raised,
/// nothing more is submitted and the run ends [`Stop::Interrupted`] after the drain.
/// The first failed request likewise stops submission and ends the run with
/// [`Stop::Failed`] naming its offset. Allocates only before the start.
pub fn drive(
    backend: &mut dyn Backend,
    stream: &mut OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> (QueuedRun, Fatal) {
    let mut run = QueuedRun::new(backend.name());
    if stop.load(Ordering::Relaxed) {
        run.stop = Some(Stop::Interrupted);
        return (run, None);
    }
    let depth = params.queue_depth.clamp(1, MAX_QUEUE_DEPTH);
    let duration = u64::try_from(params.duration.as_nanos()).unwrap_or(u64::MAX);
    let len = u64::from(stream.request_len());
    let mut offsets = vec![0u64; depth];
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    let mut failure: Option<(u64, io::Error)> = None;
    let mut fatal = None;
    let mut interrupted = false;
    let mut in_flight = 0usize;

    let start = backend.now_ns();
    let mut last = start;
    for (slot, o) in offsets.iter_mut().enumerate() {
        let offset = stream.next_offset();
        if let Err(e) = backend.submit(Request { slot, offset }) {
            failure = Some((offset, e));
            break;
        }
        *o = offset;
        in_flight += 1;
    }
    while in_flight > 0 {
        if let Err(e) = backend.reap(&mut done) {
            fatal = Some(e);
            break;
        }
        if !interrupted && stop.load(Ordering::Relaxed) {
            interrupted = true;
        }
        for c in done.drain(..) {
            in_flight -= 1;
            match c.result {
                Ok(()) => {
                    run.completed += 1;
                    run.latency.record(c.done_ns.saturating_sub(c.start_ns));
                    last = last.max(c.done_ns);
                }
                Err(e) => {
                    if failure.is_none() {
                        failure = Some((offsets[c.slot], e));
                    }
                }
            }
            if interrupted || failure.is_some() || c.done_ns.saturating_sub(start) >= duration {
                continue;
            }
            let offset = stream.next_offset();
            match backend.submit(Request {
                slot: c.slot,
                offset,
            }) {
                Ok(()) => {
                    offsets[c.slot] = offset;
                    in_flight += 1;
                }
                Err(e) => failure = Some((offset, e)),
            }
        }
    }
    backend.finish(last);
    run.elapsed_ns = last - start;
    run.bytes = run.completed * len;
    run.stop = match failure {
        Some((offset, error)) => Some(Stop::Failed {
            setup: false,
            offset,
            error,
        }),
        None if interrupted => Some(Stop::Interrupted),
        None => None,
    };
    (run, fatal)
}
