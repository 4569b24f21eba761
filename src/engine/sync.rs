//! The synchronous engine: one positioned operation at a time, as diskinfo does.

use crate::device::{AlignedBuf, Target};
use crate::results::PhaseResult;
use crate::results::stats::Summary;
use crate::test_plans::{Op, OpKind, Phase};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub use super::queue::EngineStop;

/// A phase's measurement, and why it stopped early if it did.
#[derive(Debug)]
pub struct PhaseRun {
    /// The operations completed and their timing.
    pub result: PhaseResult,
    /// Why it stopped before the end, if it did.
    pub stop: Option<EngineStop>,
}

/// diskinfo's pause before each timed line, `fflush(stdout); sync(); sleep(d);
/// sync(); sync();`: sync() (the target's [`Target::quiesce`], which also drops the
/// page cache where it cannot be bypassed), then, when `d` is not zero, `d` on the
/// target's clock in slices of at most 50 ms (so that Ctrl-C is honoured promptly),
/// sync() and sync() again. Standard output needs no flush here: measurement never
/// prints, and the live sink flushes each piece of text as it prints it. A failed
/// sync() is not a measurement error; the line runs regardless. False when `stop`
/// was raised.
pub fn pause(target: &mut dyn Target, d: Duration, stop: &AtomicBool) -> bool {
    let _ = target.quiesce();
    if d.is_zero() {
        return !stop.load(Ordering::Relaxed);
    }
    if !sleep(target, d, stop) {
        return false;
    }
    let _ = target.quiesce();
    let _ = target.quiesce();
    !stop.load(Ordering::Relaxed)
}

/// Let `d` pass on the target's clock (a real sleep, or the simulated drive's clock
/// advanced) in slices of at most 50 ms, so that Ctrl-C is honoured promptly; no I/O.
/// False when `stop` was raised.
pub fn sleep(target: &dyn Target, d: Duration, stop: &AtomicBool) -> bool {
    const SLICE: Duration = Duration::from_millis(50);
    let mut left = d;
    while !left.is_zero() {
        if stop.load(Ordering::Relaxed) {
            return false;
        }
        let step = left.min(SLICE);
        target.clock().sleep(step);
        left -= step;
    }
    !stop.load(Ordering::Relaxed)
}

/// Runs phases one operation at a time, reusing one aligned buffer.
pub struct SyncEngine {
    buf: AlignedBuf,
    /// The data written by write operations.
    pattern: AlignedBuf,
}

impl SyncEngine {
    /// An engine with a buffer large enough for `max_len`-byte operations.
    pub fn new(max_len: usize) -> Self {
        SyncEngine {
            buf: AlignedBuf::new(max_len),
            pattern: AlignedBuf::new(0),
        }
    }

    /// Size the read buffer and the write pattern for every operation of `ops`, so
    /// that running them allocates nothing. Called before any timed operation.
    pub fn prepare<'o>(&mut self, ops: impl IntoIterator<Item = &'o Op>) {
        let (mut read, mut write) = (0, 0);
        for op in ops {
            match op.kind {
                OpKind::Read => read = read.max(op.len as usize),
                OpKind::Write => write = write.max(op.len as usize),
            }
        }
        self.reserve(read, write);
    }

    fn reserve(&mut self, read: usize, write: usize) {
        if self.buf.len() < read {
            self.buf = AlignedBuf::new(read);
        }
        if self.pattern.len() < write {
            self.pattern = AlignedBuf::new(write);
            // Not zeros: some devices shortcut writes of zeros.
            for (i, b) in self.pattern.iter_mut().enumerate() {
                *b = (i % 251) as u8 ^ 0xa5;
            }
        }
    }

    /// Run one operation with the engine's buffer (grown first if the operation
    /// is larger than what [`prepare`](Self::prepare) sized it for).
    pub fn execute(&mut self, target: &mut dyn Target, op: &Op) -> io::Result<()> {
        self.execute_timed(target, op).map(|_| ())
    }

    /// [`execute`](Self::execute), and the operation's latency in ns as the target
    /// measures it ([`Target::read_timed`]: the clock read right before and after
    /// the request where it is carried out, the tool's hand-over excluded).
    pub fn execute_timed(&mut self, target: &mut dyn Target, op: &Op) -> io::Result<u64> {
        let len = op.len as usize;
        match op.kind {
            OpKind::Read => {
                self.reserve(len, 0);
                target.read_timed(self.buf.for_read(..len), op.offset)
            }
            OpKind::Write => {
                self.reserve(0, len);
                target.write_timed(self.pattern.for_write(..len), op.offset)
            }
        }
    }

    /// Run one phase: its untimed setup operations, then the `settle`
    /// [`pause`] (diskinfo's sync(), sleep, sync(), sync()), then the timed
    /// operations. Each timed operation's latency is what the target measured
    /// around the request itself ([`SyncEngine::execute_timed`]), and the phase's
    /// elapsed time is their sum: the time the device spent on the phase's
    /// requests, one after the other. The tool's own time between two requests (the
    /// hand-over to a real device's I/O thread, the loop) is in neither; on a
    /// simulated drive, whose clock moves only by its service times, the sum is also
    /// the clock's whole advance over the phase. `stop` is checked before every
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
            ops_planned: phase.ops.len() as u64,
            op_bytes: phase.ops.first().map_or(0, |o| o.len),
            first_offset_bytes: phase.ops.first().map_or(0, |o| o.offset),
            elapsed_ns: 0,
            latencies_ns: Vec::with_capacity(phase.ops.len()),
            histogram: None,
            queue_depth: None,
            seed: None,
            summary: None,
            stopped_early: false,
        };
        self.prepare(phase.setup.iter().chain(&phase.ops));
        let fail = |setup, op: &Op, error| {
            Some(EngineStop::Failed {
                setup,
                offset: op.offset,
                error,
            })
        };
        for op in &phase.setup {
            if stop.load(Ordering::Relaxed) {
                return PhaseRun {
                    result,
                    stop: Some(EngineStop::Interrupted),
                };
            }
            if let Err(e) = self.execute(target, op) {
                return PhaseRun {
                    result,
                    stop: fail(true, op, e),
                };
            }
        }
        if !pause(target, settle, stop) {
            return PhaseRun {
                result,
                stop: Some(EngineStop::Interrupted),
            };
        }
        let mut stopped = None;
        for op in &phase.ops {
            if stop.load(Ordering::Relaxed) {
                stopped = Some(EngineStop::Interrupted);
                break;
            }
            match self.execute_timed(target, op) {
                Ok(ns) => result.latencies_ns.push(ns),
                Err(e) => {
                    stopped = fail(false, op, e);
                    break;
                }
            }
        }
        result.elapsed_ns = result.latencies_ns.iter().sum();
        result.stopped_early = stopped.is_some();
        result.summary = Summary::of(&result.latencies_ns);
        PhaseRun {
            result,
            stop: stopped,
        }
    }
}

/// Pairs of operations where only the second of each is timed (the seek profile:
/// an untimed read puts the head somewhere, the timed one measures the way from
/// there). Returns each timed latency, in order, and why it stopped early if it did.
pub fn run_pairs(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    pairs: &[(Op, Op)],
    stop: &AtomicBool,
) -> (Vec<u64>, Option<EngineStop>) {
    run_paused_pairs(engine, target, pairs, &[], stop)
}

/// [`run_pairs`] with a pause between the two reads of pair `i` of `pauses_ns[i]`
/// ns on the target's clock (none where the slice ends): the platter turns on
/// while the head stays, so the timed read starts at an angle of the plan's choosing.
pub fn run_paused_pairs(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    pairs: &[(Op, Op)],
    pauses_ns: &[u64],
    stop: &AtomicBool,
) -> (Vec<u64>, Option<EngineStop>) {
    let mut latencies = Vec::with_capacity(pairs.len());
    engine.prepare(pairs.iter().flat_map(|(a, b)| [a, b]));
    for (i, (setup, timed)) in pairs.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return (latencies, Some(EngineStop::Interrupted));
        }
        if let Err(error) = engine.execute(target, setup) {
            let offset = setup.offset;
            return (
                latencies,
                Some(EngineStop::Failed {
                    setup: true,
                    offset,
                    error,
                }),
            );
        }
        let pause = pauses_ns.get(i).copied().unwrap_or(0);
        if pause > 0 && !sleep(target, Duration::from_nanos(pause), stop) {
            return (latencies, Some(EngineStop::Interrupted));
        }
        match engine.execute_timed(target, timed) {
            Ok(ns) => latencies.push(ns),
            Err(error) => {
                let offset = timed.offset;
                let failed = EngineStop::Failed {
                    setup: false,
                    offset,
                    error,
                };
                return (latencies, Some(failed));
            }
        }
    }
    (latencies, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, VirtualClock};
    use crate::device::ReadBuf;
    use crate::results::device::{DeviceInfo, TargetKind};
    use crate::results::test_kind::PhaseId;

    /// Each read costs 1000 ns plus its sector number; reads at `bad` fail.
    struct Fake {
        info: DeviceInfo,
        clock: VirtualClock,
        bad: u64,
        log: Vec<u64>,
        quiesced: u32,
        /// The clock at each quiesce (sync()).
        synced_at: Vec<u64>,
    }

    impl Target for Fake {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, _buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
            self.log.push(offset);
            self.clock.advance(1000 + offset / 512);
            if offset == self.bad {
                return Err(io::Error::from(rustix::io::Errno::IO));
            }
            Ok(())
        }
        fn quiesce(&mut self) -> io::Result<()> {
            self.quiesced += 1;
            self.synced_at.push(self.clock.now_ns());
            Ok(())
        }
    }

    fn fake(bad: u64) -> Fake {
        Fake {
            info: DeviceInfo::new("f", "f", TargetKind::Simulated),
            clock: VirtualClock::new(),
            bad,
            log: Vec::new(),
            quiesced: 0,
            synced_at: Vec::new(),
        }
    }

    fn phase() -> Phase {
        Phase {
            id: PhaseId::SeqOuter,
            setup: vec![Op::read_sectors(7, 1, 512)],
            ops: (0..4).map(|s| Op::read_sectors(s, 1, 512)).collect(),
        }
    }

    #[test]
    fn latencies_are_exact_and_setup_and_settle_are_untimed() {
        let mut t = fake(u64::MAX);
        let mut e = SyncEngine::new(512);
        let r = e.run_phase(
            &mut t,
            &phase(),
            Duration::from_millis(120),
            &AtomicBool::new(false),
        );
        assert!(r.stop.is_none());
        assert_eq!(r.result.latencies_ns, [1000, 1001, 1002, 1003]);
        assert_eq!(r.result.elapsed_ns, 4006);
        assert_eq!(t.log, [7 * 512, 0, 512, 1024, 1536]);
        // diskinfo's sync(); sleep; sync(); sync();
        assert_eq!(t.synced_at, [1007, 1007 + 120_000_000, 1007 + 120_000_000]);
        // setup 1007 ns + settle 120 ms + timed 4006 ns
        assert_eq!(t.clock.now_ns(), 1007 + 120_000_000 + 4006);
    }

    #[test]
    fn a_pair_s_pause_passes_between_its_reads_and_is_not_timed() {
        let mut t = fake(u64::MAX);
        let r = |s| Op::read_sectors(s, 1, 512);
        let pairs = [(r(4), r(2)), (r(6), r(3))];
        let (lat, stop) = run_paused_pairs(
            &mut SyncEngine::new(512),
            &mut t,
            &pairs,
            &[5000],
            &AtomicBool::new(false),
        );
        assert!(stop.is_none());
        assert_eq!(lat, [1002, 1003]);
        // 1004 + 5000 pause + 1002, then 1006 + 1003 (no pause given for the second).
        assert_eq!(t.clock.now_ns(), 1004 + 5000 + 1002 + 1006 + 1003);
        assert_eq!(t.quiesced, 0);
    }

    #[test]
    fn the_pause_is_diskinfos_sync_sleep_sync_sync_and_a_bare_sync_without_settle() {
        let mut t = fake(u64::MAX);
        let go = AtomicBool::new(false);
        assert!(pause(&mut t, Duration::ZERO, &go));
        assert_eq!(t.synced_at, [0]);
        assert!(pause(&mut t, Duration::from_millis(1234), &go));
        assert_eq!(t.synced_at, [0, 0, 1_234_000_000, 1_234_000_000]);
        assert_eq!(t.clock.now_ns(), 1_234_000_000);
        // Ctrl-C during the sleep: no more waiting.
        assert!(!pause(
            &mut t,
            Duration::from_secs(5),
            &AtomicBool::new(true)
        ));
        assert_eq!(t.clock.now_ns(), 1_234_000_000);
    }

    #[test]
    fn a_failure_keeps_what_was_measured_and_names_the_offset() {
        let mut t = fake(1024);
        let r = SyncEngine::new(512).run_phase(
            &mut t,
            &phase(),
            Duration::ZERO,
            &AtomicBool::new(false),
        );
        assert_eq!(r.result.latencies_ns, [1000, 1001]);
        match r.stop {
            Some(EngineStop::Failed {
                setup: false,
                offset: 1024,
                error,
            }) => {
                assert_eq!(
                    error.raw_os_error(),
                    Some(rustix::io::Errno::IO.raw_os_error())
                )
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_raised_stop_flag_stops_before_the_next_operation() {
        let mut t = fake(u64::MAX);
        let r = SyncEngine::new(512).run_phase(
            &mut t,
            &phase(),
            Duration::from_secs(5),
            &AtomicBool::new(true),
        );
        assert!(matches!(r.stop, Some(EngineStop::Interrupted)));
        assert!(r.result.latencies_ns.is_empty());
        assert_eq!(t.log.len(), 0);
    }
}
