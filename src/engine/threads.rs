//! The portable queued engine: a pool of threads doing blocking positioned reads.
//!
//! Each thread stands for one request in flight: it reads, and when the read
//! completes it reads again (the replacement) if less than the duration has passed
//! since the start, so `queue_depth` threads keep `queue_depth` requests in flight
//! as diskinfo's asynchronous requests do. The threads share one atomic request
//! counter: request `k` reads at [`OffsetGen::offset`]`(k)`, so together they read
//! exactly the offsets of the seed's single stream (which thread reads which one
//! depends on scheduling). A latency is the time around one `pread`; each thread keeps
//! its own [`Histogram`], merged at the end.
//!
//! The target's descriptor is borrowed, never closed.

use super::queued::{QueuedParams, QueuedRun};
use super::sync::Stop;
use crate::clock::Clock;
use crate::device::AlignedBuf;
use crate::probe::iops::OffsetGen;
use crate::stats::Histogram;
use std::io;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};
use std::thread;

/// The engine's name in [`QueuedRun::engine`].
pub const NAME: &str = "threads";

/// Each thread's stack: the loop needs little.
const STACK: usize = 256 << 10;

/// The number of threads for `queue_depth` requests in flight: one per request.
pub fn thread_count(queue_depth: usize) -> usize {
    queue_depth.max(1)
}

/// Read exactly `buf.len()` bytes at `offset` with one `pread` (retried on EINTR);
/// a short read is an error.
fn pread_exact(fd: RawFd, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let off = libc::off_t::try_from(offset)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "offset out of range"))?;
    loop {
        // SAFETY: buf is valid for writes of buf.len() bytes; fd is only read from.
        let n = unsafe { libc::pread(fd, buf.as_mut_ptr().cast(), buf.len(), off) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        let n = n as usize;
        if n != buf.len() {
            return Err(short_read(n, buf.len()));
        }
        return Ok(());
    }
}

/// The error for a read that returned fewer bytes than asked.
pub(crate) fn short_read(got: usize, len: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("short read: {got} of {len} bytes"),
    )
}

/// State shared by the threads of one run.
struct Shared<'a> {
    fd: RawFd,
    clock: &'a dyn Clock,
    stream: OffsetGen,
    duration: u64,
    stop: &'a AtomicBool,
    /// The next request number.
    next: AtomicU64,
    /// Submit nothing more (a failure, or the stop flag).
    halt: AtomicBool,
    /// The stop flag was seen.
    interrupted: AtomicBool,
    /// The first failure: its offset and error.
    failure: Mutex<Option<(u64, io::Error)>>,
    /// The start time, and whether the threads may go.
    gate: Mutex<Option<u64>>,
    opened: Condvar,
}

/// What one thread measured.
struct Part {
    latency: Histogram,
    completed: u64,
    last_ns: u64,
}

impl Shared<'_> {
    fn fail(&self, offset: u64, error: io::Error) {
        self.halt.store(true, Ordering::Relaxed);
        if let Ok(mut f) = self.failure.lock()
            && f.is_none()
        {
            *f = Some((offset, error));
        }
    }

    /// Wait for the gate; the start time, or None if the run was called off.
    fn wait_for_start(&self) -> Option<u64> {
        let mut g = self.gate.lock().ok()?;
        loop {
            if let Some(start) = *g {
                return Some(start);
            }
            if self.halt.load(Ordering::Relaxed) {
                return None;
            }
            g = self.opened.wait(g).ok()?;
        }
    }

    fn open(&self, start: Option<u64>) {
        if let Ok(mut g) = self.gate.lock() {
            *g = start;
        }
        self.opened.notify_all();
    }

    /// One request in flight: read, and read again while less than the duration
    /// has passed.
    fn worker(&self, len: usize) -> Part {
        let mut buf = AlignedBuf::new(len);
        let mut part = Part {
            latency: Histogram::new(),
            completed: 0,
            last_ns: 0,
        };
        let Some(start) = self.wait_for_start() else {
            return part;
        };
        part.last_ns = start;
        loop {
            if self.halt.load(Ordering::Relaxed) {
                break;
            }
            let offset = self
                .stream
                .offset(self.next.fetch_add(1, Ordering::Relaxed));
            let t0 = self.clock.now_ns();
            let r = pread_exact(self.fd, &mut buf, offset);
            let t1 = self.clock.now_ns();
            if let Err(e) = r {
                self.fail(offset, e);
                break;
            }
            part.latency.record(t1.saturating_sub(t0));
            part.completed += 1;
            part.last_ns = part.last_ns.max(t1);
            if self.stop.load(Ordering::Relaxed) {
                self.interrupted.store(true, Ordering::Relaxed);
                self.halt.store(true, Ordering::Relaxed);
                break;
            }
            if t1.saturating_sub(start) >= self.duration {
                break;
            }
        }
        part
    }
}

/// Run the queued random reads on descriptor `fd` with one thread per request in
/// flight, timed by `clock`. Never panics on I/O errors; a thread that cannot be
/// created ends the run with a setup failure.
pub fn run(
    fd: RawFd,
    clock: &dyn Clock,
    stream: OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> QueuedRun {
    let mut run = QueuedRun::new(NAME);
    if stop.load(Ordering::Relaxed) {
        run.stop = Some(Stop::Interrupted);
        return run;
    }
    let len = stream.request_len() as usize;
    let shared = Shared {
        fd,
        clock,
        stream,
        duration: u64::try_from(params.duration.as_nanos()).unwrap_or(u64::MAX),
        stop,
        next: AtomicU64::new(0),
        halt: AtomicBool::new(false),
        interrupted: AtomicBool::new(false),
        failure: Mutex::new(None),
        gate: Mutex::new(None),
        opened: Condvar::new(),
    };
    let n = thread_count(params.queue_depth);
    let mut start = 0;
    let mut spawn_error = None;
    let parts: Vec<Part> = thread::scope(|s| {
        let mut handles = Vec::with_capacity(n);
        for _ in 0..n {
            let sh = &shared;
            let b = thread::Builder::new()
                .name("seekprobe-read".into())
                .stack_size(STACK);
            match b.spawn_scoped(s, move || sh.worker(len)) {
                Ok(h) => handles.push(h),
                Err(e) => {
                    spawn_error = Some(e);
                    break;
                }
            }
        }
        if spawn_error.is_some() {
            shared.halt.store(true, Ordering::Relaxed);
            shared.open(None);
        } else {
            start = clock.now_ns();
            shared.open(Some(start));
        }
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    if let Some(e) = spawn_error {
        run.stop = Some(Stop::Failed {
            setup: true,
            offset: 0,
            error: io::Error::new(e.kind(), format!("cannot start {n} reader threads: {e}")),
        });
        return run;
    }
    let mut last = start;
    for p in &parts {
        run.latency.merge(&p.latency);
        run.completed += p.completed;
        last = last.max(p.last_ns);
    }
    run.elapsed_ns = last - start;
    let failure = shared.failure.into_inner().ok().flatten();
    run.stop = match failure {
        Some((offset, error)) => Some(Stop::Failed {
            setup: false,
            offset,
            error,
        }),
        None if shared.interrupted.load(Ordering::Relaxed) => Some(Stop::Interrupted),
        None => None,
    };
    run
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
        let block: Vec<u8> = (0..bytes).map(|i| (i / 512) as u8).collect();
        f.write_all(&block).unwrap();
        f.flush().unwrap();
        let r = File::open(f.path()).unwrap();
        (f, r)
    }

    fn params(len: u32, queue_depth: usize, ms: u64) -> QueuedParams {
        QueuedParams {
            len,
            queue_depth,
            duration: Duration::from_millis(ms),
            seed: 3,
        }
    }

    #[test]
    fn threads_read_an_image_file_and_count_every_completion() {
        let (_keep, f) = image(1 << 20);
        let clock = MonotonicClock::new();
        let p = params(4096, 8, 30);
        let stream = OffsetGen::new(p.seed, 1 << 20, 512, p.len).unwrap();
        let r = run(f.as_raw_fd(), &clock, stream, &p, &AtomicBool::new(false));
        assert_eq!(r.engine, "threads");
        assert!(r.stop.is_none(), "{:?}", r.stop);
        assert!(r.completed >= 8);
        assert_eq!(r.latency.count, r.completed);
        assert!(r.elapsed_ns >= 30_000_000);
        // The descriptor is still open.
        let mut b = [0u8; 1];
        assert!(pread_exact(f.as_raw_fd(), &mut b, 1024).is_ok());
        assert_eq!(b[0], 2);
    }

    #[test]
    fn a_read_past_the_end_is_a_short_read_failure_with_its_offset() {
        // The generator believes in 1 MiB; the file has 8 KiB: most reads fail.
        let (_keep, f) = image(8192);
        let clock = MonotonicClock::new();
        let p = params(4096, 4, 1000);
        let stream = OffsetGen::new(p.seed, 1 << 20, 512, p.len).unwrap();
        let r = run(f.as_raw_fd(), &clock, stream, &p, &AtomicBool::new(false));
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
        let clock = MonotonicClock::new();
        let p = params(4096, 4, 60_000);
        let stream = OffsetGen::new(p.seed, 1 << 20, 512, p.len).unwrap();
        let stop = AtomicBool::new(false);
        let r = thread::scope(|s| {
            s.spawn(|| {
                thread::sleep(Duration::from_millis(30));
                stop.store(true, Ordering::Relaxed);
            });
            run(f.as_raw_fd(), &clock, stream, &p, &stop)
        });
        assert!(matches!(r.stop, Some(Stop::Interrupted)), "{:?}", r.stop);
        assert!(r.elapsed_ns < 10_000_000_000);
        assert_eq!(r.latency.count, r.completed);
    }
}
