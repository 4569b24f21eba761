//! The path check's two measurements on one target, each timed on the target's
//! own clock: sequential reads from a position for a while, and the seek stress
//! (random reads with several in flight, the queued engine of `-i`).

use crate::device::{AlignedBuf, Target};
use crate::engine::queued::{QueuedParams, run_random_reads};
use crate::results::path::PathDrive;
use crate::results::settings::{QueueDepth, SectorSize};
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How a measurement ended before its time.
#[derive(Debug, Clone, PartialEq)]
pub enum Cut {
    /// The stop flag was raised (Ctrl-C): the figure of the cut phase is not kept.
    Stopped,
    /// A read failed (`error`: the read, its byte offset and the system's error,
    /// in words), or went unanswered for `--io-timeout` (`unanswered`).
    Failed {
        /// What failed, in words.
        error: String,
        /// The drive stopped answering (a request unanswered for `--io-timeout`).
        unanswered: bool,
    },
}

impl Cut {
    /// The cut of a read that failed with `e` (`what`: the read, in words): Ctrl-C
    /// while it waited is a stop, an unanswered request the drive's hang.
    fn of(what: String, e: &io::Error) -> Cut {
        match e.kind() {
            io::ErrorKind::Interrupted => Cut::Stopped,
            kind => Cut::Failed {
                error: format!("{what} failed: {e}"),
                unanswered: kind == io::ErrorKind::TimedOut,
            },
        }
    }

    /// Put the cut in `d`, the drive's part (`phase`: the phase it cut, in words).
    pub fn record(self, d: &mut PathDrive, phase: &str) {
        match self {
            Cut::Stopped => d.interrupted = true,
            Cut::Failed { error, unanswered } => {
                d.error = Some(format!("{phase}: {error}"));
                d.unanswered = unanswered;
            }
        }
    }
}

/// A test hook: `SEEKPROBE_PATH_CHECK_STOP=together` raises the stop flag as the
/// together phase starts, as Ctrl-C would, so that a cut path check is tested
/// exactly.
pub fn stop_hook(phase: &str) -> bool {
    std::env::var("SEEKPROBE_PATH_CHECK_STOP").is_ok_and(|p| p == phase)
}

/// The size of each sequential read (1 MiB, as diskinfo's transfer rates).
pub const SEQ_LEN: usize = 1 << 20;
/// The size of each random read of the seek stress.
pub const SEEK_LEN: u32 = 4096;
/// The random readers in flight on each drive during the seek stress.
pub const SEEK_READERS: QueueDepth = QueueDepth::fixed::<4>();

/// Read sequentially from byte `start` for `time` on the target's clock (going
/// back to `start` at the drive's end); the rate in bytes/s, over the reads' own
/// latencies ([`Target::read_timed`]), so that seekprobe's work between reads (its
/// threads sharing the CPUs while every drive reads together) is never counted as
/// the drive's or its path's. Err: stopped, or the read that failed.
pub fn sequential(
    t: &mut dyn Target,
    start: u64,
    time: Duration,
    stop: &AtomicBool,
) -> Result<f64, Cut> {
    let size = t.info().media_size_bytes;
    let ss = u64::from(t.info().sector_size.max(1));
    let len = (SEQ_LEN as u64).min(size / ss * ss);
    if len == 0 {
        return Err(Cut::Failed {
            error: "the drive is smaller than a sector".to_string(),
            unanswered: false,
        });
    }
    let mut buf = AlignedBuf::new(len as usize);
    let start = (start.min(size - len)) / ss * ss;
    let limit = time.as_nanos() as u64;
    let t0 = t.clock().now_ns();
    let (mut at, mut bytes, mut busy_ns) = (start, 0u64, 0u64);
    loop {
        if stop.load(Ordering::Relaxed) {
            return Err(Cut::Stopped);
        }
        if t.clock().now_ns() - t0 >= limit {
            return Ok(if busy_ns == 0 {
                0.0
            } else {
                bytes as f64 * 1e9 / busy_ns as f64
            });
        }
        if at + len > size {
            at = start;
        }
        busy_ns += t
            .read_timed(buf.for_read(..), at)
            .map_err(|e| Cut::of(format!("a read of {len} bytes at byte {at}"), &e))?;
        bytes += len;
        at += len;
    }
}

/// The seek stress: random reads of [`SEEK_LEN`] bytes with [`SEEK_READERS`] in
/// flight for `time`; completed reads per second. Err: stopped, or the read that
/// failed.
pub fn seek_stress(
    t: &mut dyn Target,
    (time, io_timeout): (Duration, Option<Duration>),
    seed: u64,
    stop: &AtomicBool,
) -> Result<f64, Cut> {
    let size = t.info().media_size_bytes;
    let ss = SectorSize::new(t.info().sector_size).ok_or_else(|| Cut::Failed {
        error: format!("a sector size of {} bytes", t.info().sector_size),
        unanswered: false,
    })?;
    let len = SEEK_LEN.max(ss.get());
    let params = QueuedParams {
        len,
        queue_depth: SEEK_READERS,
        duration: time,
        seed,
        io_timeout,
    };
    let run = run_random_reads(t, size, ss, &params, stop);
    match run.stop {
        Some(crate::engine::queued::EngineStop::Failed { offset, error, .. }) => Err(Cut::of(
            format!("a random read of {len} bytes at byte {offset}"),
            &error,
        )),
        Some(crate::engine::queued::EngineStop::Interrupted) => Err(Cut::Stopped),
        None => Ok(run.iops()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::SimTarget;
    use crate::device::{Simulated, Together};

    #[test]
    fn a_shared_controller_caps_the_sequential_rate_on_the_virtual_clock() {
        let stop = AtomicBool::new(false);
        let second = Duration::from_secs(1);
        let mut t = SimTarget::open("sim:hdd?controller=hba0:300M").unwrap();
        let alone = sequential(&mut t, 0, second, &stop).unwrap();
        assert!(alone > 150e6, "{alone}");
        t.set_together(Together {
            drives: 4,
            on_controller: 4,
        });
        let together = sequential(&mut t, 0, second, &stop).unwrap();
        // 300 MB/s shared by four: 75 MB/s each, to within the last read's share.
        assert!((together - 75e6).abs() < 1e6, "{together}");
    }

    #[test]
    fn vibration_slows_the_seek_stress_only_together() {
        let stop = AtomicBool::new(false);
        let second = Duration::from_secs(1);
        let mut t = SimTarget::open("sim:hdd?vibration=0.5").unwrap();
        let alone = seek_stress(&mut t, (second, None), 1, &stop).unwrap();
        t.set_together(Together {
            drives: 4,
            on_controller: 1,
        });
        let together = seek_stress(&mut t, (second, None), 1, &stop).unwrap();
        let ratio = together / alone;
        assert!((0.4..0.6).contains(&ratio), "{alone} {together}");
    }

    #[test]
    fn a_stop_or_a_hang_cuts_the_measurement() {
        let stop = AtomicBool::new(true);
        let mut t = SimTarget::open("sim:hdd").unwrap();
        let second = Duration::from_secs(1);
        assert_eq!(sequential(&mut t, 0, second, &stop), Err(Cut::Stopped));
        assert_eq!(
            seek_stress(&mut t, (second, None), 1, &stop),
            Err(Cut::Stopped)
        );
        let hung = io::Error::new(io::ErrorKind::TimedOut, "no answer in 30 s");
        assert_eq!(
            Cut::of("a read at byte 0".into(), &hung),
            Cut::Failed {
                error: "a read at byte 0 failed: no answer in 30 s".into(),
                unanswered: true
            }
        );
        let abandoned = io::Error::new(io::ErrorKind::Interrupted, "Ctrl-C");
        assert_eq!(Cut::of(String::new(), &abandoned), Cut::Stopped);
    }
}
