//! The portable queued engine: a pool of threads doing blocking positioned reads and
//! writes.
//!
//! Each slot of the queue has its own thread and buffer: [`Threads`] is a
//! [`Backend`] of the queued driver whose `submit` hands a request to its slot's
//! thread and whose `reap` waits for finished ones, so `queue_depth` threads keep
//! `queue_depth` requests in flight as diskinfo's asynchronous requests do. A
//! request's times are the clock readings around its one `pread` or `pwrite`, taken by
//! its thread, whatever the loop is doing meanwhile. The channels are
//! bounded (preallocated): nothing is allocated per request.
//!
//! The threads are not bound to the call: each holds a duplicate of the target's
//! descriptor and, while it carries a request, that request's buffer. A request
//! that never comes back is left to its thread by the loop (the watchdog,
//! Ctrl-C), and its buffer stays alive until the kernel returns it; idle threads
//! end when the pool is dropped. Each thread times its request on the target's
//! clock through an [`Instant`] taken against it when the pool started.

use super::queue::{
    Backend, Completion, EngineStop, Fatal, Feed, QueuedParams, QueuedRun, Request,
};
use super::queue_loop::{drive, drive_feed_watched};
use crate::clock::Clock;
use crate::device::pio::{read_exact_at, write_all_at};
use crate::device::{AlignedBuf, PassWatch};
use crate::results::QueuedEngine;
use crate::results::settings::QueueDepth;
use crate::test_plans::OpKind;
use crate::test_plans::iops::OffsetGen;
use std::io;
use std::os::fd::{BorrowedFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TryRecvError, sync_channel};
use std::thread;
use std::time::{Duration, Instant};

/// The engine's name in [`QueuedRun::engine`].
pub const NAME: QueuedEngine = QueuedEngine::Threads;

/// Each thread's stack: the loop needs little.
const STACK: usize = 256 << 10;

/// The number of threads for `queue_depth` requests in flight: one per request.
pub fn thread_count(queue_depth: QueueDepth) -> usize {
    queue_depth.slots()
}

/// The thread-pool [`Backend`]: one thread per slot.
pub struct Threads<'c> {
    clock: &'c dyn Clock,
    /// Each slot's request channel: the request and the slot's buffer.
    jobs: Vec<SyncSender<(Request, AlignedBuf)>>,
    done: Receiver<(Completion, AlignedBuf)>,
    /// Each slot's buffer while no request is in flight for it.
    bufs: Vec<Option<AlignedBuf>>,
}

impl<'c> Threads<'c> {
    /// Start `depth` threads moving up to `len` bytes a request on a duplicate of
    /// `fd`, their buffers allocated here, before any timed operation. An error when
    /// the descriptor cannot be duplicated or a thread cannot be created (those
    /// started end with the pool).
    pub fn start(
        fd: BorrowedFd<'_>,
        clock: &'c dyn Clock,
        len: u32,
        depth: QueueDepth,
    ) -> io::Result<Self> {
        let fd: Arc<OwnedFd> = Arc::new(fd.try_clone_to_owned()?);
        // The target's clock, read through an Instant by threads that may outlive
        // the borrow: base_ns + the time since base.
        let (base, base_ns) = (Instant::now(), clock.now_ns());
        let n = thread_count(depth);
        let (done_tx, done) = sync_channel::<(Completion, AlignedBuf)>(n);
        let mut jobs = Vec::with_capacity(n);
        let mut bufs = Vec::with_capacity(n);
        for slot in 0..n {
            let (tx, rx) = sync_channel::<(Request, AlignedBuf)>(1);
            let done_tx = done_tx.clone();
            let fd = Arc::clone(&fd);
            bufs.push(Some(AlignedBuf::new(len as usize)));
            let now = move || base_ns + base.elapsed().as_nanos() as u64;
            thread::Builder::new()
                .name("seekprobe-io".into())
                .stack_size(STACK)
                .spawn(move || {
                    for (req, mut buf) in rx {
                        let n = (req.len as usize).min(buf.len());
                        let start_ns = now();
                        let result = match req.kind {
                            OpKind::Read => read_exact_at(&*fd, &mut buf[..n], req.offset),
                            OpKind::Write => write_all_at(&*fd, &buf[..n], req.offset),
                        };
                        let done_ns = now();
                        let c = Completion {
                            slot,
                            start_ns,
                            done_ns,
                            result,
                        };
                        if done_tx.send((c, buf)).is_err() {
                            break;
                        }
                    }
                })
                .map_err(|e| {
                    io::Error::new(e.kind(), format!("cannot start {n} I/O threads: {e}"))
                })?;
            jobs.push(tx);
        }
        Ok(Threads {
            clock,
            jobs,
            done,
            bufs,
        })
    }

    fn take_rest(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        loop {
            match self.done.try_recv() {
                Ok((c, buf)) => {
                    self.bufs[c.slot] = Some(buf);
                    out.push(c);
                }
                Err(TryRecvError::Empty) => return Ok(()),
                Err(TryRecvError::Disconnected) => {
                    return Err(io::Error::other("the I/O threads ended"));
                }
            }
        }
    }
}

impl Backend for Threads<'_> {
    fn engine(&self) -> QueuedEngine {
        NAME
    }

    fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    fn submit(&mut self, req: Request) -> io::Result<()> {
        let (Some(job), Some(buf)) = (
            self.jobs.get(req.slot),
            self.bufs.get_mut(req.slot).and_then(Option::take),
        ) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "no such slot, or a request in flight on it",
            ));
        };
        job.send((req, buf))
            .map_err(|_| io::Error::other("an I/O thread ended"))
    }

    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.bufs.get_mut(slot)?.as_deref_mut()
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        let (first, buf) = self
            .done
            .recv()
            .map_err(|_| io::Error::other("the I/O threads ended"))?;
        self.bufs[first.slot] = Some(buf);
        out.push(first);
        self.take_rest(out)
    }

    fn reap_within(&mut self, out: &mut Vec<Completion>, wait: Duration) -> io::Result<()> {
        match self.done.recv_timeout(wait) {
            Ok((first, buf)) => {
                self.bufs[first.slot] = Some(buf);
                out.push(first);
                self.take_rest(out)
            }
            Err(RecvTimeoutError::Timeout) => Ok(()),
            Err(RecvTimeoutError::Disconnected) => Err(io::Error::other("the I/O threads ended")),
        }
    }
}

/// Run the queued random reads on descriptor `fd` with one thread per request in
/// flight, timed by `clock`. Never panics on I/O errors; a thread that cannot be
/// created ends the run with a setup failure.
pub fn run(
    fd: RawFd,
    clock: &dyn Clock,
    mut stream: OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> QueuedRun {
    // SAFETY: the caller's target owns the descriptor and outlives this call; the
    // threads use a duplicate of it.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    let len = stream.request_len();
    let mut pool = match Threads::start(fd, clock, len, params.queue_depth) {
        Ok(p) => p,
        Err(error) => {
            let mut run = QueuedRun::new(NAME);
            run.stop = Some(EngineStop::Failed {
                setup: true,
                offset: 0,
                error,
            });
            return run;
        }
    };
    let (mut run, fatal) = drive(&mut pool, &mut stream, params, stop);
    if let Some(error) = fatal
        && run.stop.is_none()
    {
        run.stop = Some(EngineStop::Failed {
            setup: false,
            offset: super::queue_loop::NoAnswer::of(&error).map_or(0, |n| n.offset),
            error,
        });
    }
    run
}

/// Run the requests of `feed` on descriptor `fd` with one thread per request in
/// flight, `depth` deep in buffers of `len` bytes, timed by `clock`: whether
/// Ctrl-C ended it, a fatal error (a thread that could not be created, or a
/// request unanswered for `io_timeout`: [`super::queue_loop::NoAnswer`]), and the
/// requests left behind unanswered. The pass's `watch` (a real drive's
/// temperature, `--max-temp`) holds the feed while it says so.
pub fn drive_pool(
    fd: RawFd,
    clock: &dyn Clock,
    (len, depth): (u32, QueueDepth),
    feed: &mut dyn Feed,
    stop: &AtomicBool,
    (io_timeout, watch): (Option<Duration>, Option<&dyn PassWatch>),
) -> (bool, Fatal, usize) {
    // SAFETY: as in `run`: the caller's target owns the descriptor and outlives
    // this call; the threads use a duplicate of it.
    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
    match Threads::start(fd, clock, len, depth) {
        Ok(mut pool) => drive_feed_watched(&mut pool, feed, depth, stop, io_timeout, watch),
        Err(error) => (false, Some(error), 0),
    }
}
