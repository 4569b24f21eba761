//! The watchdog of every request a real device is sent one at a time: the read,
//! write, flush or sync runs on the device's own worker thread while the caller
//! waits at most the request limit (`--io-timeout`). A request unanswered past it
//! is given up ([`NoAnswer`]): the caller goes on (its test fails there, the other
//! drives go on) and the worker is left to the kernel, which may hold it as long as
//! it likes; every later request to that device is refused at once with the same
//! [`NoAnswer`], so that a drive is given up once. After Ctrl-C or SIGTERM (the
//! [`Stop`] the device was opened with) a request unanswered for [`GRACE`] is
//! given up too ([`interrupted`]), so that the run's results are written within
//! 2 s. Every request given up is counted in that [`Stop`] (main says so at exit).
//!
//! The worker reads into and writes from the caller's buffer (no copy: the time of
//! a copy would show up as the device's). Each request carries a [`Hold`] on that
//! buffer's memory ([`super::ReadBuf`], [`super::WriteBuf`]), dropped by the worker
//! once the kernel answered: a request given up keeps the memory it may still
//! fill allocated until then (for ever, if the kernel never answers), whenever
//! the caller drops its buffer.
//!
//! The worker reads the target's clock ([`Clock`]) right before and after each
//! request and hands the time back with its answer ([`Watchdog::read`],
//! [`Watchdog::write`], [`Watchdog::call_timed`]): that is the request's latency,
//! the engines' figure, so the hand-over below is no part of it (the tool's own
//! overhead never shows up as the device's latency).
//!
//! The hand-over costs two thread wake-ups a request; the worker polls for
//! [`SPIN`] for the next request before sleeping, so that back-to-back requests
//! (the sync tests) pass without waking it. The caller polls for its answer too,
//! but only when the process may run on more than one CPU ([`Watchdog::new`]
//! asks `available_parallelism`, which counts the CPUs of its affinity mask and
//! cgroup quota): then a short request is answered without a sleep, and the CPU
//! it polls on stays awake for the answer. On one CPU the caller sleeps at once:
//! polling there takes turns with the very threads the answer waits for (the
//! worker, the kernel's loop worker), and each turn lengthened the request the
//! worker times (rows 1a and 1b of benches/compare.sh: 1.22x and 1.34x fio's time
//! a 512-byte read polling, 0.93x and 0.97x sleeping; docs/performance.md). Both
//! poll with `sched_yield`, not a busy spin: a busy spin held the CPU the answer
//! needed, 111 µs a 512-byte read against fio's 7.8 (docs/performance.md).
//!
//! Why the request is carried by this thread and not by the caller (with a thread
//! that only watches a deadline): a read held by the kernel (a hung drive, in
//! uninterruptible sleep, which no signal ends) holds the thread that made it, and
//! the caller is the drive's test thread, which holds the drive's results so far and
//! which the run joins ([`crate::app`]'s scoped thread per disk): the run would wait
//! for the kernel. Here only the worker is held; the caller gives up, records the
//! finding and goes on. Its cost, the hand-over, lies outside every figure (above).

use super::aligned::Hold;
use super::{ReadBuf, Stop, WriteBuf};
use crate::clock::Clock;
use std::fs::File;
use std::io;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, TryRecvError, channel};
use std::time::{Duration, Instant};

/// The request limit without `--io-timeout`, in seconds (docs/testing.md says why:
/// above the kernel's own SCSI timeout of 30 s with a retry, a drive's error
/// recovery, a spin-up from standby and a drive-managed SMR drive's cleaning stall).
pub const DEFAULT_TIMEOUT_S: f64 = 120.0;

/// The slowest whole-drive discard (TRIM, UNMAP, `DIOCGDELETE`) waited for, in
/// bytes a second, beyond the request limit: 1 GB/s.
pub const DISCARD_BYTES_PER_S: u64 = 1_000_000_000;

/// How long a discard of `bytes` from byte 0 may go unanswered before the drive is
/// given up: the request limit (`request`, `--io-timeout`: its floor, for a small
/// drive), plus a second for every GB ([`DISCARD_BYTES_PER_S`]). One request
/// covers the whole drive, and the kernel splits it into as many commands as the
/// drive's largest discard allows, each answered before the next; a flash drive
/// usually unmaps a whole drive in seconds, but some take minutes a terabyte, so
/// the limit is generous: it is there to give up a drive that hangs on TRIM, not to
/// time one (docs/testing.md). Ctrl-C still ends the wait within [`GRACE`].
pub fn discard_limit(request: Duration, bytes: u64) -> Duration {
    request + Duration::from_secs(bytes.div_ceil(DISCARD_BYTES_PER_S))
}

/// How often a waiting caller looks at the stop flag.
pub const POLL: Duration = Duration::from_millis(100);

/// After Ctrl-C or SIGTERM, how long a request in flight may still take before it
/// is given up (the run's results must be written within 2 s).
pub const GRACE: Duration = Duration::from_secs(1);

/// How long each side of the hand-over polls (yielding) before it sleeps (the
/// caller only on more than one CPU: [`caller_spin`]).
pub const SPIN: Duration = Duration::from_micros(50);

/// How long a caller polls for its answer: [`SPIN`] when this process may run on
/// more than one CPU, none on one (the module's documentation says why).
fn caller_spin() -> Duration {
    match std::thread::available_parallelism() {
        Ok(n) if n.get() > 1 => SPIN,
        _ => Duration::ZERO,
    }
}

/// The error of a request given up by the watchdog: no answer for `waited` at
/// `offset` (wrapped in an [`io::ErrorKind::TimedOut`] error).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoAnswer {
    /// The request's byte offset.
    pub offset: u64,
    /// How long it went unanswered: from its submission to the look that gave it
    /// up (at least the limit, by up to a poll).
    pub waited: Duration,
}

impl std::fmt::Display for NoAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no answer for {} s at byte {}",
            self.waited.as_secs_f64(),
            self.offset
        )
    }
}

impl std::error::Error for NoAnswer {}

impl NoAnswer {
    /// The watchdog's verdict in `e`, if it is one.
    pub fn of(e: &io::Error) -> Option<NoAnswer> {
        e.get_ref()?.downcast_ref::<NoAnswer>().copied()
    }

    /// As an [`io::Error`] of kind [`io::ErrorKind::TimedOut`].
    pub fn error(self) -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, self)
    }
}

/// The error of a request left unanswered after Ctrl-C or SIGTERM (kind
/// [`io::ErrorKind::Interrupted`]): the test ends interrupted, not failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abandoned {
    /// The request's byte offset.
    pub offset: u64,
}

impl std::fmt::Display for Abandoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "interrupted while the request at byte {} went unanswered",
            self.offset
        )
    }
}

impl std::error::Error for Abandoned {}

/// Whether `e` is a request left unanswered after Ctrl-C or SIGTERM.
pub fn interrupted(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|e| e.is::<Abandoned>())
}

/// A request as the worker runs it. The buffers are the caller's, passed as
/// addresses with a hold on their memory: the caller's borrow lasts while it
/// waits for the answer, the hold until the worker is done with the request.
enum Job {
    Read {
        ptr: usize,
        len: usize,
        at: u64,
        hold: Hold,
    },
    /// A write in pieces of `piece` bytes (the last the rest): all but the last
    /// written at once by the worker's piece threads, the last by the worker, all
    /// awaited (one piece when `piece >= len`).
    Write {
        ptr: usize,
        len: usize,
        at: u64,
        piece: usize,
        hold: Hold,
    },
    Call(Call),
}

/// A call on the device's descriptor (a flush, a sync), run by the worker.
type Call = Box<dyn FnOnce(&File) -> io::Result<bool> + Send>;

/// The worker's answer: the request's number, its result, and how long it took on
/// the target's clock, read by the worker right before and after it.
type Answer = (u64, io::Result<bool>, u64);

/// A device's worker thread, the limit its requests are held to and the stop
/// that ends its waits.
#[derive(Debug)]
pub struct Watchdog {
    limit: Duration,
    /// Raised, a request unanswered for [`GRACE`] is given up; counts those given up.
    stop: Stop,
    /// How long the caller polls for an answer before it sleeps ([`caller_spin`]).
    spin: Duration,
    jobs: Sender<(u64, Job)>,
    answers: Receiver<Answer>,
    /// The number of the next request (answers of given-up ones are told apart).
    seq: u64,
    /// Set once a request was given up: the worker may be held by the kernel.
    given_up: Option<io::ErrorKind>,
    last: Option<NoAnswer>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

impl Watchdog {
    /// A worker for `file` (a duplicate of its descriptor is moved to it), with
    /// requests held to `limit`, given up [`GRACE`] after `stop` is raised, and
    /// timed on `clock` (the target's own, so that a latency is in the target's
    /// time).
    pub fn new(
        file: &File,
        limit: Duration,
        stop: Stop,
        clock: impl Clock + 'static,
    ) -> io::Result<Watchdog> {
        let file = file.try_clone()?;
        let (jobs, jobs_rx) = channel::<(u64, Job)>();
        let (answers_tx, answers) = channel();
        std::thread::Builder::new()
            .name("seekprobe-io".into())
            .spawn(move || work(&file, &clock, &jobs_rx, &answers_tx))?;
        Ok(Watchdog {
            limit,
            stop,
            spin: caller_spin(),
            jobs,
            answers,
            seq: 0,
            given_up: None,
            last: None,
        })
    }

    /// Read `buf.len()` bytes at `at` (as [`super::pio::read_exact_at`]); the
    /// read's latency in ns, timed by the worker around the read alone.
    pub fn read(&mut self, mut buf: ReadBuf<'_>, at: u64) -> io::Result<u64> {
        let (ptr, len, hold) = (buf.as_mut_ptr() as usize, buf.len(), buf.hold());
        self.run(at, Job::Read { ptr, len, at, hold })
            .map(|(_, ns)| ns)
    }

    /// Write all of `buf` at `at` (as [`super::pio::write_all_at`]); the write's
    /// latency in ns, timed by the worker around the write alone.
    pub fn write(&mut self, buf: WriteBuf<'_>, at: u64) -> io::Result<u64> {
        self.write_pieces(buf, at, buf.len())
    }

    /// Write all of `buf` at `at` in pieces of `piece` bytes, the last the rest:
    /// all but the last at once, each from a thread of its own (diskinfo's
    /// `parwrite`; the threads started before the clock is read), the last by the
    /// worker, then all awaited; the latency in ns, from the first piece's
    /// hand-out to the last piece's answer, timed by the worker. Held to the
    /// request limit as one request: a piece that hangs gives the drive up as any
    /// request does.
    pub fn write_pieces(&mut self, buf: WriteBuf<'_>, at: u64, piece: usize) -> io::Result<u64> {
        let (ptr, len, hold) = (buf.as_ptr() as usize, buf.len(), buf.hold());
        let piece = piece.max(1);
        let job = Job::Write {
            ptr,
            len,
            at,
            piece,
            hold,
        };
        self.run(at, job).map(|(_, ns)| ns)
    }

    /// Run `f` on the device's descriptor on the worker (a flush, a sync), held to
    /// the same limit; `at` is the byte named if it is given up.
    pub fn call(
        &mut self,
        at: u64,
        f: impl FnOnce(&File) -> io::Result<bool> + Send + 'static,
    ) -> io::Result<bool> {
        self.call_timed(at, f).map(|(r, _)| r)
    }

    /// As [`Watchdog::call`], with the call's latency in ns, timed by the worker
    /// around the call alone.
    pub fn call_timed(
        &mut self,
        at: u64,
        f: impl FnOnce(&File) -> io::Result<bool> + Send + 'static,
    ) -> io::Result<(bool, u64)> {
        self.run(at, Job::Call(Box::new(f)))
    }

    /// As [`Watchdog::call`], held to `limit` instead of the request limit (a
    /// whole-drive discard: [`discard_limit`]); refused at once, as every request,
    /// on a device already given up.
    pub fn call_within(
        &mut self,
        at: u64,
        limit: Duration,
        f: impl FnOnce(&File) -> io::Result<bool> + Send + 'static,
    ) -> io::Result<bool> {
        let request = std::mem::replace(&mut self.limit, limit);
        let r = self.call(at, f);
        self.limit = request;
        r
    }

    /// The limit a request is held to now.
    pub fn limit(&self) -> Duration {
        self.limit
    }

    /// The refusal of a request to a device whose earlier request was given up.
    fn refused(&self, at: u64) -> io::Error {
        match (self.given_up, self.last) {
            (Some(io::ErrorKind::Interrupted), _) | (_, None) => {
                io::Error::new(io::ErrorKind::Interrupted, Abandoned { offset: at })
            }
            (_, Some(n)) => n.error(),
        }
    }

    fn run(&mut self, at: u64, job: Job) -> io::Result<(bool, u64)> {
        if self.given_up.is_some() {
            return Err(self.refused(at));
        }
        self.seq += 1;
        let seq = self.seq;
        let start = Instant::now();
        if self.jobs.send((seq, job)).is_err() {
            return Err(io::Error::other("the device's I/O thread ended"));
        }
        let mut stopped_at: Option<Instant> = None;
        loop {
            let waited = start.elapsed();
            let answer = if waited < self.spin {
                match self.answers.try_recv() {
                    Ok(a) => Ok(a),
                    Err(TryRecvError::Empty) => {
                        // Yield, not a busy spin: the worker (or the kernel's
                        // loop worker) may need this very CPU to answer.
                        std::thread::yield_now();
                        continue;
                    }
                    Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
                }
            } else {
                let left = self.limit.saturating_sub(waited);
                self.answers.recv_timeout(left.min(POLL))
            };
            match answer {
                Ok((s, r, ns)) if s == seq => return r.map(|r| (r, ns)),
                Ok(_) => continue, // the late answer of a request given up
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(io::Error::other("the device's I/O thread ended"));
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
            let waited = start.elapsed();
            if waited >= self.limit {
                let n = NoAnswer { offset: at, waited };
                self.give_up(io::ErrorKind::TimedOut, Some(n));
                return Err(n.error());
            }
            if self.stop.stopping() {
                let since = *stopped_at.get_or_insert_with(Instant::now);
                if since.elapsed() >= GRACE {
                    self.give_up(io::ErrorKind::Interrupted, None);
                    return Err(self.refused(at));
                }
            }
        }
    }

    /// Give the request in flight up: the job the worker holds keeps its
    /// buffer's memory ([`Hold`]) until the kernel answers.
    fn give_up(&mut self, how: io::ErrorKind, n: Option<NoAnswer>) {
        self.given_up = Some(how);
        self.last = n;
        self.stop.leave_one();
    }

    /// The request given up, if one was (not after Ctrl-C).
    pub fn given_up(&self) -> Option<NoAnswer> {
        self.last
    }
}

/// The worker: runs each job as it comes, answers with its number and its time on
/// `clock` (read right before and after the job, nothing else between); ends when
/// the device is closed (its sender dropped). Polls for [`SPIN`] before sleeping.
fn work(file: &File, clock: &dyn Clock, jobs: &Receiver<(u64, Job)>, answers: &Sender<Answer>) {
    let mut pieces = PieceThreads::new();
    loop {
        let start = Instant::now();
        let next = loop {
            match jobs.try_recv() {
                Ok(j) => break Some(j),
                Err(TryRecvError::Disconnected) => break None,
                Err(TryRecvError::Empty) if start.elapsed() < SPIN => std::thread::yield_now(),
                Err(TryRecvError::Empty) => break jobs.recv().ok(),
            }
        };
        let Some((seq, job)) = next else { return };
        if let Job::Write { len, piece, .. } = job
            && len > piece
            && let Err(e) = pieces.ensure(file, (len - 1) / piece)
        {
            if answers.send((seq, Err(e), 0)).is_err() {
                return;
            }
            continue;
        }
        // The request's hold on the caller's buffer, let go once the answer is
        // sent: letting go (an atomic count, or freeing the memory of a buffer
        // whose caller gave the request up) is no part of the request's time.
        let held: Option<Hold>;
        let t0 = clock.now_ns();
        let r = match job {
            Job::Read { ptr, len, at, hold } => {
                held = Some(hold);
                // SAFETY: the caller's buffer of `len` bytes at `ptr` is borrowed
                // mutably until it receives this answer; when it stops waiting,
                // `held` keeps the memory allocated until this read returns.
                let buf = unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, len) };
                super::pio::read_exact_at(file, buf, at).map(|()| true)
            }
            Job::Write {
                ptr,
                len,
                at,
                piece,
                hold,
            } => {
                held = Some(hold);
                if len > piece {
                    pieces.write(file, ptr, len, at, piece).map(|()| true)
                } else {
                    // SAFETY: as for a read; the buffer is only read.
                    let buf = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
                    super::pio::write_all_at(file, buf, at).map(|()| true)
                }
            }
            Job::Call(f) => {
                held = None;
                f(file)
            }
        };
        let ns = clock.now_ns().saturating_sub(t0);
        let sent = answers.send((seq, r, ns));
        drop(held);
        if sent.is_err() {
            return;
        }
    }
}

/// A piece of a caller's buffer for a piece thread: its address, length and byte
/// offset on the device.
type Piece = (usize, usize, u64);

/// The worker's piece threads, started when a write first needs them: each writes
/// the pieces it is handed through a descriptor of its own, and ends when the
/// worker does (its sender dropped).
struct PieceThreads {
    jobs: Vec<Sender<Piece>>,
    /// Where each piece thread answers, and where the worker awaits the answers.
    done_tx: Sender<io::Result<()>>,
    done: Receiver<io::Result<()>>,
}

impl PieceThreads {
    /// None started yet.
    fn new() -> PieceThreads {
        let (done_tx, done) = channel();
        PieceThreads {
            jobs: Vec::new(),
            done_tx,
            done,
        }
    }

    /// Start piece threads until there are `n`, each with a descriptor of its own
    /// for `file`: before the write's clock is read, so that a thread's start is
    /// never part of a latency. A piece thread answers every piece it is handed,
    /// a panic included (as an error), so that the worker never waits for an
    /// answer that cannot come.
    fn ensure(&mut self, file: &File, n: usize) -> io::Result<()> {
        while self.jobs.len() < n {
            let (tx, rx) = channel::<Piece>();
            let (file, done) = (file.try_clone()?, self.done_tx.clone());
            std::thread::Builder::new()
                .name("seekprobe-piece".into())
                .spawn(move || {
                    for (ptr, len, at) in rx {
                        let write = std::panic::AssertUnwindSafe(|| {
                            // SAFETY: a piece of the caller's buffer, borrowed until
                            // the worker answers, which waits for this piece's
                            // answer, and held by the worker (`held`) until then.
                            let buf = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
                            super::pio::write_all_at(&file, buf, at)
                        });
                        let r = std::panic::catch_unwind(write).unwrap_or_else(|_| {
                            Err(io::Error::other("a piece thread of the device panicked"))
                        });
                        if done.send(r).is_err() {
                            return;
                        }
                    }
                })?;
            self.jobs.push(tx);
        }
        Ok(())
    }

    /// Write the `len` bytes at `ptr` to byte `at` of `file` in pieces of `piece`
    /// bytes: all but the last handed to the piece threads ([`PieceThreads::ensure`]
    /// started them), the last written here, then every piece handed out awaited
    /// (whatever happens, none is left writing from the buffer when this returns);
    /// the first error.
    fn write(
        &mut self,
        file: &File,
        ptr: usize,
        len: usize,
        at: u64,
        piece: usize,
    ) -> io::Result<()> {
        let parallel = (len - 1) / piece; // the pieces before the last
        let mut handed = 0;
        for (i, tx) in self.jobs.iter().take(parallel).enumerate() {
            let off = i * piece;
            if tx.send((ptr + off, piece, at + off as u64)).is_err() {
                break;
            }
            handed += 1;
        }
        let mut result = if handed < parallel {
            // A piece thread is gone: start afresh at the next write.
            self.jobs.clear();
            Err(io::Error::other("a piece thread of the device ended"))
        } else {
            let off = parallel * piece;
            // SAFETY: as for a whole write; the last piece of the caller's buffer.
            let last = unsafe { std::slice::from_raw_parts((ptr + off) as *const u8, len - off) };
            super::pio::write_all_at(file, last, at + off as u64)
        };
        for _ in 0..handed {
            // Never an Err: this side holds a sender of the channel.
            let r = self.done.recv().unwrap_or(Ok(()));
            if result.is_ok() {
                result = r;
            }
        }
        result
    }
}

#[cfg(test)]
mod tests;
