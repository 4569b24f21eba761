//! The synchronous flushed-write engine behind `-S`: random writes, each followed by
//! a cache flush, in batches until a minimum time has passed.
//!
//! A write larger than 128 KiB is split (see [`crate::probe::sync_write::pieces`]):
//! all pieces but the last are handed to a pool of writer threads at once, the last
//! is written by the engine itself, then all are awaited — diskinfo's AIO `parwrite`.
//! Targets without a descriptor (simulated drives) write the whole request through
//! [`Target::write_at`].

use super::sync::Stop;
use crate::device::pio::write_all_at;
use crate::device::{AlignedBuf, Target};
use crate::probe::iops::OffsetGen;
use crate::probe::sync_write::{BATCH, PIECE, pieces};
use crate::results::stats::Histogram;
use std::io;
use std::os::fd::{BorrowedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// What `-S` measured for one write size.
#[derive(Debug)]
pub struct SyncWriteRun {
    /// Writes completed (each with its flush).
    pub writes: u64,
    /// The time of the timed parts, in nanoseconds: from the first write to the
    /// last flush, without the untimed `--preserve` reads and restores.
    pub elapsed_ns: u64,
    /// Latency of each write plus its flush.
    pub latency: Histogram,
    /// False when the device said it cannot flush (then the rest ran unflushed).
    pub flush_supported: bool,
    /// Why it stopped early, if it did.
    pub stop: Option<Stop>,
}

/// How the writes are made.
#[derive(Debug, Clone, Copy)]
pub struct WriteParams {
    /// Stop starting batches once this much timed time has passed.
    pub min_time: Duration,
    /// Read each block before writing it and write it back afterwards (untimed).
    pub preserve: bool,
}

/// A pool of threads that write 128 KiB pieces of the shared buffer in parallel.
struct PiecePool<'a> {
    jobs: Vec<mpsc::SyncSender<(u64, usize, usize)>>,
    done: mpsc::Receiver<io::Result<()>>,
    /// The pieces of one write (offset in the request, length), split once.
    pieces: Vec<(u32, u32)>,
    _buf: std::marker::PhantomData<&'a AlignedBuf>,
}

impl<'a> PiecePool<'a> {
    fn start(
        scope: &'a std::thread::Scope<'a, '_>,
        fd: RawFd,
        buf: &'a AlignedBuf,
        threads: usize,
    ) -> PiecePool<'a> {
        let pieces = pieces(u32::try_from(buf.len()).unwrap_or(u32::MAX));
        // Bounded channels are preallocated: nothing is allocated per write.
        let per_thread = pieces.len().div_ceil(threads.max(1));
        let (done_tx, done) = mpsc::sync_channel(pieces.len());
        let jobs = (0..threads)
            .map(|_| {
                let (tx, rx) = mpsc::sync_channel::<(u64, usize, usize)>(per_thread);
                let done_tx = done_tx.clone();
                scope.spawn(move || {
                    // SAFETY: the descriptor outlives the scope (the target owns it).
                    let fd = unsafe { BorrowedFd::borrow_raw(fd) };
                    for (off, start, len) in rx {
                        let r = write_all_at(fd, &buf[start..start + len], off);
                        if done_tx.send(r).is_err() {
                            break;
                        }
                    }
                });
                tx
            })
            .collect();
        PiecePool {
            jobs,
            done,
            pieces,
            _buf: std::marker::PhantomData,
        }
    }

    /// Write the whole buffer at `offset`, split as diskinfo does.
    fn write(&self, fd: RawFd, buf: &AlignedBuf, offset: u64) -> io::Result<()> {
        let (last, parallel) = self.pieces.split_last().expect("at least one piece");
        for (i, &(o, l)) in parallel.iter().enumerate() {
            let job = (offset + u64::from(o), o as usize, l as usize);
            self.jobs[i % self.jobs.len()]
                .send(job)
                .map_err(|_| io::Error::other("writer thread ended"))?;
        }
        // SAFETY: as above.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let (o, l) = *last;
        let mut result = write_all_at(
            fd,
            &buf[o as usize..(o + l) as usize],
            offset + u64::from(o),
        );
        for _ in parallel {
            let r = self
                .done
                .recv()
                .unwrap_or_else(|_| Err(io::Error::other("writer thread ended")));
            if result.is_ok() {
                result = r;
            }
        }
        result
    }
}

/// Run `-S` for one size: batches of 250 writes at offsets from `offsets`, each followed
/// by a flush, until `params.min_time` of timed time has passed. `stop` is checked
/// before every write; with `--preserve`, a block already overwritten is always
/// restored first.
pub fn run_sync_writes(
    target: &mut dyn Target,
    offsets: &mut OffsetGen,
    params: &WriteParams,
    stop: &AtomicBool,
) -> SyncWriteRun {
    let len = offsets.request_len();
    let mut data = AlignedBuf::new(len as usize);
    for (i, b) in data.iter_mut().enumerate() {
        *b = (i % 251) as u8 ^ 0x5a; // not zeros: some devices shortcut zero writes
    }
    // Raw: `target` is borrowed mutably below while the pieces use the descriptor;
    // the target, and so its file, outlives this scope.
    let fd = target
        .raw_fd()
        .map(|fd| std::os::fd::AsRawFd::as_raw_fd(&fd));
    let threads = (len.div_ceil(PIECE) as usize).saturating_sub(1);
    std::thread::scope(|scope| {
        let pool = match fd {
            Some(fd) if threads > 0 => Some(PiecePool::start(scope, fd, &data, threads)),
            _ => None,
        };
        let limit = target.info().sectors() * u64::from(target.info().sector_size);
        let write = |target: &mut dyn Target, offset: u64| {
            // The pieces bypass write_at's own check: never past the last sector.
            if offset + u64::from(len) > limit {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("a write at {offset} of {len} bytes would pass the end ({limit})"),
                ));
            }
            match (&pool, fd) {
                // Split over the pool's threads: timed here, around all the pieces.
                (Some(pool), Some(fd)) => {
                    let t0 = target.clock().now_ns();
                    pool.write(fd, &data, offset)?;
                    Ok(target.clock().now_ns().saturating_sub(t0))
                }
                _ => target.write_timed(&data, offset),
            }
        };
        run_loop(target, offsets, params, stop, write)
    })
}

fn run_loop(
    target: &mut dyn Target,
    offsets: &mut OffsetGen,
    params: &WriteParams,
    stop: &AtomicBool,
    write: impl Fn(&mut dyn Target, u64) -> io::Result<u64>,
) -> SyncWriteRun {
    let len = offsets.request_len() as usize;
    let mut backup = params.preserve.then(|| AlignedBuf::new(len));
    let mut run = SyncWriteRun {
        writes: 0,
        elapsed_ns: 0,
        latency: Histogram::new(),
        flush_supported: true,
        stop: None,
    };
    let min_ns = u64::try_from(params.min_time.as_nanos()).unwrap_or(u64::MAX);
    let fail = |offset, error| {
        Some(Stop::Failed {
            setup: false,
            offset,
            error,
        })
    };
    let mut batch = Vec::with_capacity(BATCH as usize);
    'batches: loop {
        // The batch's offsets are drawn before its first write: drawing one (a
        // generator's seeding and a uniform draw) is never inside a timed write.
        batch.clear();
        batch.extend((0..BATCH).map(|_| offsets.next_offset()));
        for &offset in &batch {
            if stop.load(Ordering::Relaxed) {
                run.stop = Some(Stop::Interrupted);
                break 'batches;
            }
            if let Some(b) = backup.as_mut()
                && let Err(e) = target.read_at(b, offset)
            {
                run.stop = fail(offset, e);
                break 'batches;
            }
            // The write's and the flush's latencies as the target measures them
            // (each request alone, the hand-over to the I/O thread excluded).
            let mut result = write(target, offset);
            if let Ok(ns) = result
                && run.flush_supported
            {
                match target.flush_timed() {
                    Ok((true, flush_ns)) => result = Ok(ns + flush_ns),
                    Ok((false, _)) => run.flush_supported = false,
                    Err(e) => result = Err(e),
                }
            }
            if let Some(b) = backup.as_ref() {
                // Restore before anything else, even after an error or Ctrl-C.
                let restored = target.write_at(b, offset).and_then(|_| target.flush());
                if let Err(e) = restored {
                    run.stop = fail(offset, e);
                    break 'batches;
                }
            }
            let ns = match result {
                Ok(ns) => ns,
                Err(e) => {
                    run.stop = fail(offset, e);
                    break 'batches;
                }
            };
            run.latency.record(ns);
            run.elapsed_ns += ns;
            run.writes += 1;
        }
        if run.elapsed_ns >= min_ns {
            break;
        }
    }
    run
}
