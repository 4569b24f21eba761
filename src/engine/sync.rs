//! The synchronous engine: one positioned operation at a time, as diskinfo does.

use crate::device::{AlignedBuf, Target};
use crate::probe::{Op, OpKind, Phase};
use crate::results::PhaseResult;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Why a phase stopped before its end.
#[derive(Debug)]
pub enum Stop {
    /// The stop flag was raised (Ctrl-C).
    Interrupted,
    /// An operation failed.
    Failed {
        /// Whether the failed operation was an untimed setup one.
        setup: bool,
        /// Its byte offset.
        offset: u64,
        /// The error.
        error: io::Error,
    },
}

/// A phase's measurement, and why it stopped early if it did.
#[derive(Debug)]
pub struct PhaseRun {
    /// The operations completed and their timing.
    pub result: PhaseResult,
    /// Why it stopped before the end, if it did.
    pub stop: Option<Stop>,
}

/// Runs phases one operation at a time, reusing one aligned buffer.
pub struct SyncEngine {
    buf: AlignedBuf,
}

impl SyncEngine {
    /// An engine with a buffer large enough for `max_len`-byte operations.
    pub fn new(max_len: usize) -> Self {
        SyncEngine {
            buf: AlignedBuf::new(max_len),
        }
    }

    fn execute(&mut self, target: &mut dyn Target, op: &Op) -> io::Result<()> {
        let len = op.len as usize;
        if self.buf.len() < len {
            self.buf = AlignedBuf::new(len);
        }
        match op.kind {
            OpKind::Read => target.read_at(&mut self.buf[..len], op.offset),
        }
    }

    /// Run one phase: its untimed setup operations, then `quiesce` and the `settle`
    /// pause (diskinfo's sync() and sleep), then the timed operations. Each timed
    /// operation's latency is the time between consecutive clock readings, so the
    /// latencies add up exactly to the elapsed time. `stop` is checked before every
    /// operation.
    pub fn run_phase(
        &mut self,
        target: &mut dyn Target,
        phase: &Phase,
        settle: Duration,
        stop: &AtomicBool,
    ) -> PhaseRun {
        let mut result = PhaseResult {
            id: phase.id,
            ops_planned: phase.ops.len() as u32,
            op_bytes: phase.ops.first().map_or(0, |o| o.len),
            first_offset_bytes: phase.ops.first().map_or(0, |o| o.offset),
            elapsed_ns: 0,
            latencies_ns: Vec::with_capacity(phase.ops.len()),
        };
        let fail = |setup, op: &Op, error| {
            Some(Stop::Failed {
                setup,
                offset: op.offset,
                error,
            })
        };
        for op in &phase.setup {
            if stop.load(Ordering::Relaxed) {
                return PhaseRun {
                    result,
                    stop: Some(Stop::Interrupted),
                };
            }
            if let Err(e) = self.execute(target, op) {
                return PhaseRun {
                    result,
                    stop: fail(true, op, e),
                };
            }
        }
        // A failed sync() is not a measurement error; the phase runs regardless.
        let _ = target.quiesce();
        if !settle.is_zero() {
            target.clock().sleep(settle);
        }
        let start = target.clock().now_ns();
        let mut last = start;
        let mut stopped = None;
        for op in &phase.ops {
            if stop.load(Ordering::Relaxed) {
                stopped = Some(Stop::Interrupted);
                break;
            }
            let r = self.execute(target, op);
            let now = target.clock().now_ns();
            if let Err(e) = r {
                stopped = fail(false, op, e);
                break;
            }
            result.latencies_ns.push(now - last);
            last = now;
        }
        result.elapsed_ns = last - start;
        PhaseRun {
            result,
            stop: stopped,
        }
    }
}
