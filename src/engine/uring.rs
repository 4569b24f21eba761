//! The queued engine on Linux: io_uring.
//!
//! One ring whose submission queue holds every request in flight; one page-aligned
//! buffer per in-flight slot, registered with the ring (`READ_FIXED`), and the target's
//! descriptor registered too, where the kernel allows (else plain `READ` on the raw
//! descriptor). The loop submits all pending requests and waits for at least one
//! completion in one system call, then drains the whole completion queue, reading the
//! clock once per wakeup: that time is the completion time of every request reaped
//! and the submission time of every replacement queued (submitted by the next system
//! call, microseconds later). Nothing is allocated per request.
//!
//! When the kernel has no io_uring (or refuses it: seccomp, `kernel.io_uring_disabled`,
//! an old kernel lacking the read operations, or reads the ring refuses before any
//! completes) [`run`] returns [`Unavailable`] so that the caller can fall back to the
//! thread pool.

use super::queued::{QueuedParams, QueuedRun};
use super::sync::Stop;
use super::threads::short_read;
use crate::clock::Clock;
use crate::device::AlignedBuf;
use crate::probe::iops::OffsetGen;
use io_uring::squeue::Entry;
use io_uring::{IoUring, Probe, SubmissionQueue, Submitter, opcode, types};
use std::fmt;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, Ordering};

/// The engine's name in [`QueuedRun::engine`].
pub const NAME: &str = "io_uring";

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
/// default.
fn build_ring(entries: u32) -> io::Result<IoUring> {
    let deferred = IoUring::builder()
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
    fn entry(&self, slot: usize, buf: *mut u8, offset: u64) -> Entry {
        let e = match (self.fixed_bufs, self.fixed_file) {
            (true, true) => opcode::ReadFixed::new(types::Fixed(0), buf, self.len, slot as u16)
                .offset(offset)
                .build(),
            (true, false) => opcode::ReadFixed::new(types::Fd(self.fd), buf, self.len, slot as u16)
                .offset(offset)
                .build(),
            (false, true) => opcode::Read::new(types::Fixed(0), buf, self.len)
                .offset(offset)
                .build(),
            (false, false) => opcode::Read::new(types::Fd(self.fd), buf, self.len)
                .offset(offset)
                .build(),
        };
        e.user_data(slot as u64)
    }
}

/// Queue `e`, submitting what is queued first if the submission queue is full.
fn push(sq: &mut SubmissionQueue<'_>, submitter: &Submitter<'_>, e: &Entry) -> io::Result<()> {
    for _ in 0..2 {
        // SAFETY: the entry's buffer belongs to its slot, which has no other request
        // in flight, and outlives the ring's use of it (buffers are dropped after the
        // ring is drained, or leaked).
        if unsafe { sq.push(e) }.is_ok() {
            return Ok(());
        }
        sq.sync();
        submitter.submit()?;
        sq.sync();
    }
    Err(io::Error::other("the io_uring submission queue stays full"))
}

/// Whether an error from `io_uring_enter` only asks to try again.
fn transient(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINTR) | Some(libc::EAGAIN) | Some(libc::EBUSY)
    )
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
    let depth = params.queue_depth.clamp(1, super::queued::MAX_QUEUE_DEPTH);
    let entries = u32::try_from(depth).unwrap_or(u32::MAX);
    let len = stream.request_len();
    let duration = u64::try_from(params.duration.as_nanos()).unwrap_or(u64::MAX);

    // Buffers first: the ring, declared after them, is dropped before them.
    let mut bufs: Vec<AlignedBuf> = (0..depth).map(|_| AlignedBuf::new(len as usize)).collect();
    let ptrs: Vec<*mut u8> = bufs.iter_mut().map(|b| b.as_mut_ptr()).collect();
    let mut ring = build_ring(entries).map_err(|e| Unavailable(format!("io_uring_setup: {e}")))?;

    let mut probe = Probe::new();
    ring.submitter()
        .register_probe(&mut probe)
        .map_err(|e| Unavailable(format!("io_uring probe: {e}")))?;
    let iovecs: Vec<libc::iovec> = ptrs
        .iter()
        .map(|&p| libc::iovec {
            iov_base: p.cast(),
            iov_len: len as usize,
        })
        .collect();
    // SAFETY: every iovec describes a live buffer of `bufs`, which outlives the ring.
    let fixed_bufs = probe.is_supported(opcode::ReadFixed::CODE)
        && unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
    if !fixed_bufs && !probe.is_supported(opcode::Read::CODE) {
        return Err(Unavailable(
            "the kernel's io_uring has no read operation".to_string(),
        ));
    }
    let fixed_file = ring.submitter().register_files(&[fd]).is_ok();
    let reads = Reads {
        fd,
        fixed_file,
        fixed_bufs,
        len,
    };

    let mut run = QueuedRun::new(NAME);
    if stop.load(Ordering::Relaxed) {
        run.stop = Some(Stop::Interrupted);
        return Ok(run);
    }
    let mut submit_ns = vec![0u64; depth];
    let mut offsets = vec![0u64; depth];
    let mut failure: Option<(u64, io::Error)> = None;
    let mut fatal: Option<io::Error> = None;
    let mut interrupted = false;

    let (mut submitter, mut sq, mut cq) = ring.split();
    // Saves a descriptor lookup per system call where the kernel allows (5.18).
    let _ = submitter.register_ring_fd();

    let start = clock.now_ns();
    let mut last = start;
    let mut in_flight = 0usize;
    for slot in 0..depth {
        let offset = stream.next_offset();
        if let Err(e) = push(&mut sq, &submitter, &reads.entry(slot, ptrs[slot], offset)) {
            failure = Some((offset, e));
            break;
        }
        submit_ns[slot] = start;
        offsets[slot] = offset;
        in_flight += 1;
    }
    sq.sync();

    while in_flight > 0 && fatal.is_none() {
        if let Err(e) = submitter.submit_and_wait(1)
            && !transient(&e)
        {
            fatal = Some(e);
            break;
        }
        cq.sync();
        let now = clock.now_ns();
        if !interrupted && stop.load(Ordering::Relaxed) {
            interrupted = true;
        }
        let more = !interrupted && now - start < duration;
        for cqe in &mut cq {
            let slot = cqe.user_data() as usize;
            if slot >= depth {
                continue;
            }
            in_flight -= 1;
            let res = cqe.result();
            if res >= 0 && res as u32 == len {
                run.completed += 1;
                run.latency.record(now - submit_ns[slot]);
                last = now;
            } else if failure.is_none() {
                let error = if res < 0 {
                    io::Error::from_raw_os_error(-res)
                } else {
                    short_read(res as usize, len as usize)
                };
                failure = Some((offsets[slot], error));
            }
            if more && failure.is_none() {
                let offset = stream.next_offset();
                if let Err(e) = push(&mut sq, &submitter, &reads.entry(slot, ptrs[slot], offset)) {
                    failure = Some((offset, e));
                    continue;
                }
                submit_ns[slot] = now;
                offsets[slot] = offset;
                in_flight += 1;
            }
        }
        cq.sync();
        sq.sync();
    }
    drop((submitter, sq, cq));
    run.elapsed_ns = last - start;

    if let Some(error) = fatal {
        // Requests may still be in flight into these buffers: never free them.
        drop(ring);
        std::mem::forget(bufs);
        if run.completed == 0 {
            return Err(Unavailable(format!("io_uring_enter: {error}")));
        }
        run.stop = Some(Stop::Failed {
            setup: false,
            offset: 0,
            error,
        });
        return Ok(run);
    }
    // Release the registered descriptor and buffers now rather than in the ring's
    // deferred teardown, so the target is no longer held once this returns.
    if fixed_file {
        let _ = ring.submitter().unregister_files();
    }
    if fixed_bufs {
        let _ = ring.submitter().unregister_buffers();
    }
    drop(ring);
    drop(bufs);
    run.stop = match failure {
        Some((_, e))
            if run.completed == 0
                && matches!(
                    e.raw_os_error(),
                    Some(libc::EINVAL) | Some(libc::EOPNOTSUPP)
                ) =>
        {
            return Err(Unavailable(format!("the ring refuses the reads: {e}")));
        }
        Some((offset, error)) => Some(Stop::Failed {
            setup: false,
            offset,
            error,
        }),
        None if interrupted => Some(Stop::Interrupted),
        None => None,
    };
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::MonotonicClock;
    use std::fs::File;
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::time::Duration;

    fn image(bytes: usize) -> (tempfile::NamedTempFile, File) {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&vec![7u8; bytes]).unwrap();
        f.flush().unwrap();
        let r = File::open(f.path()).unwrap();
        (f, r)
    }

    fn params(len: u32, queue_depth: usize, ms: u64) -> QueuedParams {
        QueuedParams {
            len,
            queue_depth,
            duration: Duration::from_millis(ms),
            seed: 9,
        }
    }

    /// Run, or say why io_uring is not there (then the test has nothing to check).
    fn try_run(f: &File, media: u64, p: &QueuedParams, stop: &AtomicBool) -> Option<QueuedRun> {
        let stream = OffsetGen::new(p.seed, media, 512, p.len).unwrap();
        match run(f.as_raw_fd(), &MonotonicClock::new(), stream, p, stop) {
            Ok(r) => Some(r),
            Err(why) => {
                eprintln!("skipped: io_uring is unavailable here ({why})");
                None
            }
        }
    }

    #[test]
    fn the_ring_reads_an_image_file_and_counts_every_completion() {
        let (_keep, f) = image(1 << 20);
        let Some(r) = try_run(&f, 1 << 20, &params(4096, 16, 30), &AtomicBool::new(false)) else {
            return;
        };
        assert_eq!(r.engine, "io_uring");
        assert!(r.stop.is_none(), "{:?}", r.stop);
        assert!(r.completed >= 16);
        assert_eq!(r.latency.count, r.completed);
        assert!(r.elapsed_ns >= 30_000_000);
        // The descriptor is still open.
        let mut b = [0u8; 1];
        assert_eq!(nix::sys::uio::pread(&f, &mut b, 10).unwrap(), 1);
    }

    #[test]
    fn a_read_past_the_end_is_a_short_read_failure_and_the_ring_drains() {
        let (_keep, f) = image(8192);
        let Some(r) = try_run(&f, 1 << 20, &params(4096, 4, 1000), &AtomicBool::new(false)) else {
            return;
        };
        match r.stop {
            Some(Stop::Failed {
                setup: false,
                offset,
                error,
            }) => {
                assert!(offset >= 8192, "{offset}");
                assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(r.latency.count, r.completed);
    }

    #[test]
    fn a_raised_stop_flag_ends_the_run_interrupted() {
        let (_keep, f) = image(1 << 20);
        let stop = AtomicBool::new(false);
        let r = std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(30));
                stop.store(true, Ordering::Relaxed);
            });
            try_run(&f, 1 << 20, &params(4096, 8, 60_000), &stop)
        });
        let Some(r) = r else { return };
        assert!(matches!(r.stop, Some(Stop::Interrupted)), "{:?}", r.stop);
        assert!(r.elapsed_ns < 10_000_000_000);
        assert_eq!(r.latency.count, r.completed);
    }

    #[test]
    fn a_stop_flag_raised_before_the_start_submits_nothing() {
        let (_keep, f) = image(1 << 20);
        let Some(r) = try_run(&f, 1 << 20, &params(4096, 8, 1000), &AtomicBool::new(true)) else {
            return;
        };
        assert!(matches!(r.stop, Some(Stop::Interrupted)));
        assert_eq!(r.completed, 0);
    }
}
