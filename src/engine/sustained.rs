//! The engine of the hidden-SMR behaviour test (--smr-check): writes one at a time
//! until a budget runs out or the write rate collapses, read probes spaced in time,
//! and idle waits. Each completion is timed on its own with the target's clock; the
//! stop condition and the waits fall between the timings, never inside one.

use super::sync::{EngineStop, SyncEngine};
use crate::device::Target;
use crate::results::smr::{Budget, RateWindow, WriteSample};
use crate::smr::behaviour::{WINDOW_S, find_collapse};
use crate::test_plans::Op;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Let `d` pass on the target's clock (a real sleep, or virtual time advanced), in
/// slices of at most 50 ms so that Ctrl-C is honoured promptly. No I/O, no sync():
/// the device is left alone. False when `stop` was raised.
pub fn idle(target: &dyn Target, d: Duration, stop: &AtomicBool) -> bool {
    super::sync::sleep(target, d, stop)
}

/// Reads one at a time, each preceded by an untimed wait of `spacing`: each read's
/// latency in order, and why it stopped early if it did.
pub fn probe_reads(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    ops: &[Op],
    spacing: Duration,
    stop: &AtomicBool,
) -> (Vec<u64>, Option<EngineStop>) {
    engine.prepare(ops);
    let mut latencies = Vec::with_capacity(ops.len());
    for op in ops {
        if !idle(target, spacing, stop) {
            return (latencies, Some(EngineStop::Interrupted));
        }
        match engine.execute_timed(target, op) {
            Ok(ns) => latencies.push(ns),
            Err(error) => {
                let offset = op.offset;
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

/// Write `writes` one at a time, each timed from issue to completion, until
/// `budget` runs out (bytes written, or time since the first write) or the write
/// rate collapses ([`find_collapse`] on the full windows, checked when a write
/// completes in a new window), or Ctrl-C. `progress` is told the bytes written and
/// the time so far after each write. Returns the completions and why it stopped
/// early (None when the budget or the collapse ended it).
pub fn sustained_writes(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    writes: impl Iterator<Item = Op>,
    budget: Budget,
    stop: &AtomicBool,
    mut progress: impl FnMut(u64, u64),
) -> (Vec<WriteSample>, Option<EngineStop>) {
    let window_ns = (WINDOW_S * 1e9) as u64;
    let budget_ns = (budget.seconds * 1e9) as u64;
    let mut samples: Vec<WriteSample> = Vec::new();
    // The bytes of each window of WINDOW_S, as the writes complete.
    let mut per_window: Vec<RateWindow> = Vec::new();
    let mut bytes = 0u64;
    let start = target.clock().now_ns();
    for op in writes {
        if stop.load(Ordering::Relaxed) {
            return (samples, Some(EngineStop::Interrupted));
        }
        let r = engine.execute_timed(target, &op);
        let t1 = target.clock().now_ns();
        let latency_ns = match r {
            Ok(ns) => ns,
            Err(error) => {
                let failed = EngineStop::Failed {
                    setup: false,
                    offset: op.offset,
                    error,
                };
                return (samples, Some(failed));
            }
        };
        // When it ended in the pass (the rate windows' time, the tool's included);
        // its latency is the target's measure of the write alone.
        let end_ns = t1 - start;
        samples.push(WriteSample {
            end_ns,
            bytes: op.len,
            latency_ns,
        });
        bytes += u64::from(op.len);
        progress(bytes, end_ns);
        if bytes >= budget.bytes || end_ns >= budget_ns {
            break;
        }
        // Between writes, outside the timing: a write completing in a new window
        // closes the windows before it; look for the collapse in them.
        let i = (end_ns / window_ns) as usize;
        if i >= per_window.len() {
            let full = per_window.len();
            per_window.extend((full..=i).map(|k| RateWindow {
                start_s: k as f64 * WINDOW_S,
                bytes: 0,
                rate_bytes_per_s: 0.0,
            }));
            if find_collapse(&per_window[..i]).is_some() {
                break;
            }
        }
        let w = &mut per_window[i];
        w.bytes += u64::from(op.len);
        w.rate_bytes_per_s = w.bytes as f64 / WINDOW_S;
    }
    (samples, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, VirtualClock};
    use crate::device::{ReadBuf, WriteBuf};
    use crate::results::device::{DeviceInfo, TargetKind};
    use crate::test_plans::OpKind;
    use std::io;

    /// Each write takes `fast` ns until `after` bytes were written, then `slow` ns.
    struct Collapsing {
        info: DeviceInfo,
        clock: VirtualClock,
        written: u64,
        after: u64,
        fast: u64,
        slow: u64,
    }

    impl Target for Collapsing {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, _buf: ReadBuf<'_>, _offset: u64) -> io::Result<()> {
            self.clock.advance(5_000_000);
            Ok(())
        }
        fn quiesce(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn write_at(&mut self, buf: WriteBuf<'_>, _offset: u64) -> io::Result<()> {
            let t = if self.written < self.after {
                self.fast
            } else {
                self.slow
            };
            self.written += buf.len() as u64;
            self.clock.advance(t);
            Ok(())
        }
    }

    fn drive(after: u64) -> Collapsing {
        Collapsing {
            info: DeviceInfo::new("c", "c", TargetKind::Simulated),
            clock: VirtualClock::new(),
            written: 0,
            after,
            fast: 10_000_000,
            slow: 1_000_000_000,
        }
    }

    fn writes() -> impl Iterator<Item = Op> {
        std::iter::repeat(Op {
            offset: 0,
            len: 1 << 20,
            kind: OpKind::Write,
        })
    }

    #[test]
    fn writes_stop_at_the_collapse_with_every_completion_timed_exactly() {
        let mut t = drive(2 << 30);
        let mut e = SyncEngine::new(1 << 20);
        let (s, stop) = sustained_writes(
            &mut e,
            &mut t,
            writes(),
            Budget::default(),
            &AtomicBool::new(false),
            |_, _| {},
        );
        assert!(stop.is_none());
        // 2048 fast writes (20.48 s), then 1-s writes: the windows from 30 s on
        // collapse; the fourth window after that closes when the write ending at
        // 120 s completes, and the writes stop there.
        assert_eq!(s[0].latency_ns, 10_000_000);
        assert_eq!(s[2047].end_ns, 20_480_000_000);
        assert_eq!(s[2048].latency_ns, 1_000_000_000);
        let last = s.last().unwrap();
        assert_eq!(last.end_ns, 120_480_000_000);
        assert!(
            s.windows(2)
                .all(|w| w[1].end_ns - w[0].end_ns == w[1].latency_ns)
        );
    }

    #[test]
    fn writes_stop_at_the_byte_budget_and_the_time_budget() {
        let mut e = SyncEngine::new(1 << 20);
        let go = AtomicBool::new(false);
        let b = Budget {
            bytes: 100 << 20,
            seconds: 1800.0,
        };
        let (s, _) = sustained_writes(&mut e, &mut drive(u64::MAX), writes(), b, &go, |_, _| {});
        assert_eq!(s.len(), 100);
        let b = Budget {
            bytes: 1 << 40,
            seconds: 2.0,
        };
        let (s, _) = sustained_writes(&mut e, &mut drive(u64::MAX), writes(), b, &go, |_, _| {});
        assert_eq!(s.len(), 200);
        let (s, stop) = sustained_writes(
            &mut e,
            &mut drive(0),
            writes(),
            b,
            &AtomicBool::new(true),
            |_, _| {},
        );
        assert!(s.is_empty() && matches!(stop, Some(EngineStop::Interrupted)));
    }

    #[test]
    fn probes_are_timed_without_their_spacing_and_idle_advances_the_clock() {
        let mut t = drive(0);
        let mut e = SyncEngine::new(4096);
        let go = AtomicBool::new(false);
        let ops = [Op::read_sectors(8, 8, 512); 3];
        let (l, stop) = probe_reads(&mut e, &mut t, &ops, Duration::from_secs(2), &go);
        assert!(stop.is_none());
        assert_eq!(l, [5_000_000; 3]);
        assert_eq!(t.clock.now_ns(), 3 * 2_005_000_000);
        assert!(idle(&t, Duration::from_secs(5), &go));
        assert_eq!(t.clock.now_ns(), 3 * 2_005_000_000 + 5_000_000_000);
        assert!(!idle(&t, Duration::from_secs(5), &AtomicBool::new(true)));
    }
}
