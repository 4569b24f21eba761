//! The synchronous flushed-write engine behind `-S`: random writes, each followed by
//! a cache flush, in batches until a minimum time has passed.
//!
//! A write larger than 128 KiB is split (see [`crate::test_plans::sync_write::pieces`]):
//! all pieces but the last are issued at once, the last alone, then all are awaited
//! — diskinfo's AIO `parwrite` — by the target ([`Target::write_pieces_timed`]: a real
//! device's I/O thread, under the watchdog); a simulated drive writes the whole
//! request at once.

use super::sync::EngineStop;
use crate::device::{AlignedBuf, Target};
use crate::results::stats::Histogram;
use crate::test_plans::iops::OffsetGen;
use crate::test_plans::sync_write::{BATCH, PIECE};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
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
    pub stop: Option<EngineStop>,
}

/// How the writes are made.
#[derive(Debug, Clone, Copy)]
pub struct WriteParams {
    /// EngineStop starting batches once this much timed time has passed.
    pub min_time: Duration,
    /// Read each block before writing it and write it back afterwards (untimed).
    pub preserve: bool,
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
    // Split by the target (a real device's I/O thread hands the pieces to threads
    // of its own), timed there around all the pieces, under the request limit.
    let write = |target: &mut dyn Target, offset: u64| {
        target.write_pieces_timed(data.for_write(..), offset, PIECE)
    };
    run_loop(target, offsets, params, stop, write)
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
        Some(EngineStop::Failed {
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
                run.stop = Some(EngineStop::Interrupted);
                break 'batches;
            }
            if let Some(b) = backup.as_mut()
                && let Err(e) = target.read_at(b.for_read(..), offset)
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
                let restored = target
                    .write_at(b.for_write(..), offset)
                    .and_then(|_| target.flush());
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
