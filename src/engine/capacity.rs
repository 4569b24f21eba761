//! The capacity check's I/O (`--capacity-check`): rounds of stamped probe blocks,
//! written from the end of the device toward its start, flushed and read back, until
//! [`capacity::refine`] names no further probe; with `preserve`, every block is read
//! before it is written and everything is written back afterwards.
//!
//! The probes are not timed: stamping a block happens before its write, checking it
//! after its read, and nothing here measures the device. Which blocks, and what their
//! read-backs mean, are the pure functions of [`crate::test_plans::capacity`].

use crate::device::{AlignedBuf, Target};
use crate::engine::sync::EngineStop;
use crate::results::capacity::{Capacity, Probe};
use crate::results::failures::ReadBack;
use crate::stamps::stamp::{StampSize, Stamper};
use crate::test_plans::Op;
use crate::test_plans::capacity;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// The most rounds (the first and its refinements): refining halves the gap by 64
/// each round, so a 1 PiB drive needs at most 6.
const MAX_ROUNDS: u32 = 16;

/// What the check did.
#[derive(Debug)]
pub struct CapacityRun {
    /// The conclusion over every round's probes (None when no round completed).
    pub capacity: Option<Capacity>,
    /// Every probe read back, in the order read.
    pub probes: Vec<Probe>,
    /// Rounds completed: the first and each refining one.
    pub rounds: u32,
    /// Probe writes that failed (their read-backs say what they left).
    pub failed_writes: u32,
    /// Bytes read and written (probes, and with `preserve` the saving and restoring).
    pub bytes: u64,
    /// Why it stopped early: Ctrl-C, or a failed flush or restore.
    pub stop: Option<EngineStop>,
}

/// Run the check on `target`: `first` is the first round's probes
/// ([`capacity::plan`]), `block` the probe block for [`capacity::refine`].
pub fn run_capacity_check(
    target: &mut dyn Target,
    first: &[Op],
    block: u64,
    preserve: bool,
    stop: &AtomicBool,
) -> CapacityRun {
    let info = target.info().clone();
    let (media, ss) = (info.media_size_bytes, info.sector_size);
    let mut run = CapacityRun {
        capacity: None,
        probes: Vec::new(),
        rounds: 0,
        failed_writes: 0,
        bytes: 0,
        stop: None,
    };
    // The sector size checked once, before any I/O: every round's stamper follows.
    let size = match StampSize::new(ss) {
        Ok(size) => size,
        Err(e) => {
            run.stop = Some(EngineStop::Failed {
                setup: true,
                offset: 0,
                error: io::Error::new(io::ErrorKind::InvalidInput, e.to_string()),
            });
            return run;
        }
    };
    let nonce = Stamper::fresh_nonce();
    // The blocks' former content, in the order written, for --preserve.
    let mut saved: Vec<(u64, AlignedBuf)> = Vec::new();
    let mut ops: Vec<Op> = first.to_vec();
    let largest = ops.iter().map(|o| o.len as usize).max().unwrap_or(0);
    let mut buf = AlignedBuf::new(largest.max(ss as usize));
    'rounds: while !ops.is_empty() && run.rounds < MAX_ROUNDS {
        let st = Stamper::new(nonce, run.rounds, size);
        if preserve {
            for op in &ops {
                if stop.load(Ordering::Relaxed) {
                    run.stop = Some(EngineStop::Interrupted);
                    break 'rounds;
                }
                let mut old = AlignedBuf::new(op.len as usize);
                if let Err(e) = target.read_at(old.for_read(..), op.offset) {
                    run.stop = Some(failed(op.offset, e));
                    break 'rounds;
                }
                run.bytes += u64::from(op.len);
                saved.push((op.offset, old));
            }
        }
        for op in &ops {
            if stop.load(Ordering::Relaxed) {
                run.stop = Some(EngineStop::Interrupted);
                break 'rounds;
            }
            let n = op.len as usize;
            st.stamp(&mut buf[..n], op.offset / u64::from(ss));
            run.bytes += u64::from(op.len);
            if target.write_at(buf.for_write(..n), op.offset).is_err() {
                run.failed_writes += 1;
            }
        }
        if let Err(e) = target.flush() {
            run.stop = Some(failed(0, e));
            break;
        }
        for op in &ops {
            if stop.load(Ordering::Relaxed) {
                run.stop = Some(EngineStop::Interrupted);
                break 'rounds;
            }
            let n = op.len as usize;
            let verdict = match target.read_at(buf.for_read(..n), op.offset) {
                Ok(()) => capacity::block_verdict(st.check(&buf[..n], op.offset / u64::from(ss))),
                Err(_) => ReadBack::Unreadable,
            };
            run.bytes += u64::from(op.len);
            run.probes.push(Probe {
                offset: op.offset,
                len: u64::from(op.len),
                verdict,
            });
        }
        run.rounds += 1;
        let c = capacity::analyse(media, ss, &run.probes);
        run.capacity = Some(c);
        ops = capacity::refine(&c, ss, block);
    }
    // Undo every write in the reverse order: whatever aliases whatever, each place
    // ends with what it held before the first probe reached it.
    // A failed restore is reported (the first one), and the others still run.
    for (offset, old) in saved.iter().rev() {
        match target.write_at(old.for_write(..), *offset) {
            Ok(()) => run.bytes += old.len() as u64,
            Err(e) => {
                if run.stop.is_none() {
                    run.stop = Some(failed(*offset, e));
                }
            }
        }
    }
    if !saved.is_empty()
        && let Err(e) = target.flush()
    {
        run.stop = Some(failed(0, e));
    }
    run
}

fn failed(offset: u64, error: io::Error) -> EngineStop {
    EngineStop::Failed {
        setup: false,
        offset,
        error,
    }
}
