//! The queued engine on Linux: io_uring.
//!
//! One ring whose submission queue holds every request in flight; one page-aligned
//! buffer per in-flight slot, registered with the ring (`READ_FIXED`), and the target's
//! descriptor registered too, where the kernel allows (else plain `READ` on the raw
//! descriptor). [`Uring`] is a [`Backend`] of the queued driver: each reap submits
//! the requests queued since the last one and waits for at least one completion in
//! one system call, then drains the whole completion queue. The clock is read just
//! before that system call (the submission time of the requests it submits) and just
//! after it returns (the completion time of every request reaped). Nothing is
//! allocated per request.
//!
//! When the kernel has no io_uring (or refuses it: seccomp, `kernel.io_uring_disabled`,
//! an old kernel lacking the read operations, or reads the ring refuses before any
//! completes) [`run`] returns [`Unavailable`] so that the caller can fall back to the
//! thread pool.

use super::queue::{Backend, Completion, EngineStop, QueuedParams, QueuedRun, Request};
use super::queue_loop::drive;
use crate::clock::Clock;
use crate::device::AlignedBuf;
use crate::device::pio::short_read;
use crate::results::QueuedEngine;
use crate::results::settings::QueueDepth;
use crate::test_plans::OpKind;
use crate::test_plans::iops::OffsetGen;
use io_uring::squeue::Entry;
use io_uring::{CompletionQueue, IoUring, Probe, SubmissionQueue, Submitter, opcode, types};
use rustix::io::Errno;
use std::fmt;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::AtomicBool;

/// The engine's name in [`QueuedRun::engine`].
pub const NAME: QueuedEngine = QueuedEngine::IoUring;

/// Why io_uring cannot be used: the caller falls back to the thread pool.
#[derive(Debug)]
pub struct Unavailable(pub String);

impl fmt::Display for Unavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unavailable {}

/// Set up a ring of at least `entries` submission entries, with the cheapest
/// completion handling the kernel offers: deferred task work run only when this
/// (single) thread waits (Linux 6.1), else cooperative task running (5.19), else the
/// default. The first is the setup fio 3.33's io_uring engine asks for
/// (COOP_TASKRUN | SINGLE_ISSUER | DEFER_TASKRUN, as `strace -e io_uring_setup fio
/// --ioengine=io_uring` shows).
fn build_ring(entries: u32) -> io::Result<IoUring> {
    let deferred = IoUring::builder()
        .setup_coop_taskrun()
        .setup_single_issuer()
        .setup_defer_taskrun()
        .build(entries);
    if let Ok(ring) = deferred {
        return Ok(ring);
    }
    if let Ok(ring) = IoUring::builder().setup_coop_taskrun().build(entries) {
        return Ok(ring);
    }
    IoUring::new(entries)
}

/// How requests are described to the kernel.
struct Reads {
    fd: RawFd,
    fixed_file: bool,
    fixed_bufs: bool,
    len: u32,
}

impl Reads {
    /// The submission entry reading `len` bytes at `offset` into slot `slot`'s
    /// buffer `buf`.
    #[inline]
    fn entry_of(&self, slot: usize, buf: *mut u8, offset: u64, len: u32) -> Entry {
        let e = match (self.fixed_bufs, self.fixed_file) {
            (true, true) => opcode::ReadFixed::new(types::Fixed(0), buf, len, slot as u16)
                .offset(offset)
                .build(),
            (true, false) => opcode::ReadFixed::new(types::Fd(self.fd), buf, len, slot as u16)
                .offset(offset)
                .build(),
            (false, true) => opcode::Read::new(types::Fixed(0), buf, len)
                .offset(offset)
                .build(),
            (false, false) => opcode::Read::new(types::Fd(self.fd), buf, len)
                .offset(offset)
                .build(),
        };
        e.user_data(slot as u64)
    }
}

/// Queue `e`, submitting what is queued first if the submission queue is full.
///
/// The queue's view of the kernel's head is a copy taken at its last sync: after an
/// `io_uring_enter` consumed the entries, the queue still looks full (at depth 1,
/// after every request) until it is synced again. So a full queue is synced first,
/// and only a queue that is still full after that costs a system call; the stale
/// view once cost one needless `io_uring_enter` per request at depth 1.
fn push(sq: &mut SubmissionQueue<'_>, submitter: &Submitter<'_>, e: &Entry) -> io::Result<()> {
    for attempt in 0..3 {
        // SAFETY: the entry's buffer belongs to its slot, which has no other request
        // in flight, and outlives the ring's use of it (buffers are dropped after the
        // ring is drained, or leaked).
        if unsafe { sq.push(e) }.is_ok() {
            return Ok(());
        }
        sq.sync();
        if attempt == 1 {
            submitter.submit()?;
            sq.sync();
        }
    }
    Err(io::Error::other("the io_uring submission queue stays full"))
}

/// Whether an error from `io_uring_enter` only asks to try again.
fn transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(n) if [Errno::INTR, Errno::AGAIN, Errno::BUSY].iter().any(|x| x.raw_os_error() == n)
    )
}

/// A ring set up for one run: one registered buffer per slot, the descriptor
/// registered where the kernel allows. [`Ring::backend`] lends it to the driver.
pub struct Ring {
    // The ring is declared before the buffers: dropped first.
    ring: IoUring,
    bufs: Vec<AlignedBuf>,
    ptrs: Vec<*mut u8>,
    reads: Reads,
    /// A wait failed: requests may still be in flight into the buffers.
    poisoned: bool,
}

impl Ring {
    /// Set up a ring for `depth` requests of `len` bytes on `fd`: the buffers are
    /// allocated and registered here, before any timed operation. [`Unavailable`]
    /// when io_uring cannot be used at all.
    pub fn new(fd: RawFd, len: u32, depth: QueueDepth) -> Result<Self, Unavailable> {
        let mut bufs: Vec<AlignedBuf> = (0..depth.slots())
            .map(|_| AlignedBuf::new(len as usize))
            .collect();
        let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let ring =
            build_ring(depth.get()).map_err(|e| Unavailable(format!("io_uring_setup: {e}")))?;
        let mut probe = Probe::new();
        ring.submitter()
            .register_probe(&mut probe)
            .map_err(|e| Unavailable(format!("io_uring probe: {e}")))?;
        // io_uring's registration takes the C iovec (neither rustix nor nix makes
        // one from a raw buffer pointer).
        let iovecs: Vec<libc::iovec> = ptrs
            .iter()
            .map(|&p| libc::iovec {
                iov_base: p.cast(),
                iov_len: len as usize,
            })
            .collect();
        // SAFETY: every iovec describes a live buffer of `bufs`, which outlives the
        // ring (dropped after it, or leaked).
        let fixed_bufs = probe.is_supported(opcode::ReadFixed::CODE)
            && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        if !fixed_bufs && !probe.is_supported(opcode::Read::CODE) {
            return Err(Unavailable(
                "the kernel's io_uring has no read operation".to_string(),
            ));
        }
        let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
        Ok(Ring {
            ring,
            bufs,
            ptrs,
            reads: Reads {
                fd,
                fixed_file,
                fixed_bufs,
                len,
            },
            poisoned: false,
        })
    }

    /// The [`Backend`] on this ring, timed by `clock`.
    pub fn backend<'r>(&'r mut self, clock: &'r dyn Clock) -> Uring<'r> {
        let depth = self.ptrs.len();
        let (mut submitter, sq, cq) = self.ring.split();
        // Saves a descriptor lookup per system call where the kernel allows (5.18).
        let _ = submitter.register_ring_fd();
        Uring {
            submitter,
            sq,
            cq,
            ptrs: &self.ptrs,
            reads: &self.reads,
            clock,
            pending: Vec::with_capacity(depth),
            start_ns: vec![0; depth],
            lens: vec![self.reads.len; depth],
        }
    }
}

impl Drop for Ring {
    fn drop(&mut self) {
        if self.poisoned {
            // Requests may still be in flight into these buffers: never free them.
            std::mem::forget(std::mem::take(&mut self.bufs));
            return;
        }
        // Release the registered descriptor and buffers now rather than in the
        // ring's deferred teardown, so the target is no longer held once the run
        // returns.
        if self.reads.fixed_file {
            let _ = self.ring.submitter().unregister_files();
        }
        if self.reads.fixed_bufs {
            let _ = self.ring.submitter().unregister_buffers();
        }
    }
}

/// The io_uring [`Backend`], borrowing a [`Ring`].
pub struct Uring<'r> {
    submitter: Submitter<'r>,
    sq: SubmissionQueue<'r>,
    cq: CompletionQueue<'r>,
    ptrs: &'r [*mut u8],
    reads: &'r Reads,
    clock: &'r dyn Clock,
    /// Slots queued since the last system call, and each slot's submission time.
    pending: Vec<usize>,
    start_ns: Vec<u64>,
    /// Each slot's request length, to tell a short transfer.
    lens: Vec<u32>,
}

impl Uring<'_> {
    /// Submit what is queued and wait for at least one completion.
    fn wait(&mut self) -> io::Result<()> {
        self.submitter.submit_and_wait(1).map(|_| ())
    }
}

impl Backend for Uring<'_> {
    fn engine(&self) -> QueuedEngine {
        NAME
    }

    fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    fn submit(&mut self, req: Request) -> io::Result<()> {
        let Some(&buf) = self.ptrs.get(req.slot) else {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "no such slot"));
        };
        if req.kind == OpKind::Write {
            // Writes go through the thread pool (`queued::run_feed` says why).
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the io_uring backend only reads",
            ));
        }
        let len = req.len.min(self.reads.len);
        let e = self.reads.entry_of(req.slot, buf, req.offset, len);
        push(&mut self.sq, &self.submitter, &e)?;
        self.lens[req.slot] = len;
        self.pending.push(req.slot);
        Ok(())
    }

    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        let &p = self.ptrs.get(slot)?;
        // SAFETY: the slot's buffer is live for the ring's lifetime, `len` bytes
        // long, and the driver asks for it only while no request is in flight for
        // the slot (so the kernel does not touch it).
        Some(unsafe { std::slice::from_raw_parts_mut(p, self.reads.len as usize) })
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        loop {
            self.sq.sync();
            if !self.pending.is_empty() {
                // The slots' offsets were drawn and their entries pushed (by
                // `drive`, through `submit`) before this: the submission time is
                // taken just before the system call that submits them.
                let t = self.clock.now_ns();
                for &s in &self.pending {
                    self.start_ns[s] = t;
                }
                self.pending.clear();
            }
            let waited = self.wait();
            let now = self.clock.now_ns();
            if let Err(e) = waited
                && !transient(&e)
            {
                return Err(e);
            }
            self.cq.sync();
            for cqe in &mut self.cq {
                let slot = cqe.user_data() as usize;
                let Some(&start_ns) = self.start_ns.get(slot) else {
                    continue;
                };
                let res = cqe.result();
                let len = self.lens[slot];
                let result = if res < 0 {
                    Err(io::Error::from_raw_os_error(-res))
                } else if res as u32 != len {
                    Err(short_read(res as usize, len as usize))
                } else {
                    Ok(())
                };
                out.push(Completion {
                    slot,
                    start_ns,
                    done_ns: now,
                    result,
                });
            }
            self.cq.sync();
            if !out.is_empty() {
                return Ok(());
            }
        }
    }
}

/// Run the queued random reads on descriptor `fd` with io_uring, timed by `clock`.
///
/// Returns [`Unavailable`] when io_uring cannot be set up, or when the ring refuses
/// the reads (EINVAL, EOPNOTSUPP) before any completes; then nothing is in flight
/// and the caller may use another engine. Every other outcome, I/O errors included,
/// is a [`QueuedRun`].
pub fn run(
    fd: RawFd,
    clock: &dyn Clock,
    mut stream: OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> Result<QueuedRun, Unavailable> {
    let mut ring = Ring::new(fd, stream.request_len(), params.queue_depth)?;
    let (mut run, fatal) = drive(&mut ring.backend(clock), &mut stream, params, stop);
    ring.poisoned = fatal.is_some();
    drop(ring);
    if let Some(error) = fatal {
        // A request the watchdog gave up is the drive's, not io_uring's.
        let unanswered = super::queue_loop::NoAnswer::of(&error);
        if run.completed == 0 && unanswered.is_none() {
            return Err(Unavailable(format!("io_uring_enter: {error}")));
        }
        run.stop = Some(EngineStop::Failed {
            setup: false,
            offset: unanswered.map_or(0, |n| n.offset),
            error,
        });
        return Ok(run);
    }
    if let Some(EngineStop::Failed { error, .. }) = &run.stop
        && run.completed == 0
        && error.raw_os_error().is_some_and(|n| {
            [Errno::INVAL, Errno::OPNOTSUPP]
                .iter()
                .any(|x| x.raw_os_error() == n)
        })
    {
        return Err(Unavailable(format!("the ring refuses the reads: {error}")));
    }
    Ok(run)
}
