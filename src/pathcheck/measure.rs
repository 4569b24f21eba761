//! The path check's two measurements on one target, each timed on the target's
//! own clock: sequential reads from a position for a while, and the seek stress
//! (random reads with several in flight, the queued engine of `-i`).

use crate::device::{AlignedBuf, Target};
use crate::engine::queued::{QueuedParams, run_random_reads};
use crate::results::settings::{QueueDepth, SectorSize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The size of each sequential read (1 MiB, as diskinfo's transfer rates).
pub const SEQ_LEN: usize = 1 << 20;
/// The size of each random read of the seek stress.
pub const SEEK_LEN: u32 = 4096;
/// The random readers in flight on each drive during the seek stress.
pub const SEEK_READERS: QueueDepth = QueueDepth::fixed::<4>();

/// Read sequentially from byte `start` for `time` on the target's clock (going
/// back to `start` at the drive's end); the rate in bytes/s. Err: the read that
/// failed, in words.
pub fn sequential(
    t: &mut dyn Target,
    start: u64,
    time: Duration,
    stop: &AtomicBool,
) -> Result<f64, String> {
    let size = t.info().media_size_bytes;
    let ss = u64::from(t.info().sector_size.max(1));
    let len = (SEQ_LEN as u64).min(size / ss * ss);
    if len == 0 {
        return Err("the drive is smaller than a sector".to_string());
    }
    let mut buf = AlignedBuf::new(len as usize);
    let start = (start.min(size - len)) / ss * ss;
    let limit = time.as_nanos() as u64;
    let t0 = t.clock().now_ns();
    let (mut at, mut bytes) = (start, 0u64);
    loop {
        let elapsed = t.clock().now_ns() - t0;
        if elapsed >= limit || stop.load(Ordering::Relaxed) {
            return Ok(if elapsed == 0 {
                0.0
            } else {
                bytes as f64 * 1e9 / elapsed as f64
            });
        }
        if at + len > size {
            at = start;
        }
        t.read_at(&mut buf[..], at)
            .map_err(|e| format!("a read of {len} bytes at byte {at} failed: {e}"))?;
        bytes += len;
        at += len;
    }
}

/// The seek stress: random reads of [`SEEK_LEN`] bytes with [`SEEK_READERS`] in
/// flight for `time`; completed reads per second.
pub fn seek_stress(
    t: &mut dyn Target,
    (time, io_timeout): (Duration, Option<Duration>),
    seed: u64,
    stop: &AtomicBool,
) -> Result<f64, String> {
    let size = t.info().media_size_bytes;
    let ss = SectorSize::new(t.info().sector_size)
        .ok_or_else(|| format!("a sector size of {} bytes", t.info().sector_size))?;
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
        Some(crate::engine::queued::Stop::Failed { offset, error, .. }) => {
            Err(format!("a random read at byte {offset} failed: {error}"))
        }
        _ => Ok(run.iops()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Together;
    use crate::device::sim::SimTarget;

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
}
