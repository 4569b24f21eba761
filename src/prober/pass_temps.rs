//! A real drive's temperature during a queued pass (`--scan`, `--verify`): the
//! drive loop's requests are in flight on the pool's threads, so no request of the
//! run's own thread can take the samples (as `TempWatched::read_at` does for the
//! synchronous tests). A side thread reads smartctl every
//! [`crate::smart::temperature::EVERY_REAL_S`] into the run's [`Sampler`], and every
//! [`crate::smart::temperature::PAUSED_EVERY_S`] while the drive is above `--max-temp`; the
//! drive loop asks it before each submission
//! ([`crate::engine::queue_loop::drive_feed_watched`]), handed to the pass through the
//! executor's context ([`crate::executor::Context::watch`]). Dropping the watch stops the
//! thread (a smartctl still running is left to finish, bounded by smartctl's own
//! timeout, and its reading is not recorded).

use crate::device::PassWatch;
use crate::smart::smartctl::{SmartRead, Smartctl};
use crate::smart::temperature::Sampler;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The run's sampler of the drive (`prober::smart_watch::Handle`).
type Handle = Arc<Mutex<Sampler>>;

/// How often the side thread looks at its stop flag and the clock.
const TICK: Duration = Duration::from_millis(100);

/// The watch of one queued pass: the side thread and the sampler it fills.
pub struct SideSampler {
    side: Arc<Side>,
}

struct Side {
    sampler: Handle,
    stop: Arc<AtomicBool>,
}

/// Start sampling `device` through `smartctl` into `sampler`, its
/// times counted from `base_s` (the run's seconds now) onwards; `paused_every_s`
/// apart while the drive is held, for `max_pause_s` at most.
pub fn start(
    smartctl: Smartctl,
    device: String,
    sampler: Handle,
    base_s: f64,
    paused_every_s: f64,
    max_pause_s: f64,
) -> SideSampler {
    let stop = Arc::new(AtomicBool::new(false));
    let (s, flag) = (sampler.clone(), stop.clone());
    let origin = Instant::now();
    let spawned = std::thread::Builder::new()
        .name("temperature".into())
        .spawn(move || {
            let now_s = || base_s + origin.elapsed().as_secs_f64();
            let mut last_s = f64::NEG_INFINITY;
            while !flag.load(Ordering::Relaxed) {
                let now = now_s();
                let due = {
                    let mut g = s.lock().expect("temperature sampler");
                    end_long_pause(&mut g, now, max_pause_s);
                    if g.paused() {
                        now - last_s >= paused_every_s
                    } else {
                        g.due(now)
                    }
                };
                if due {
                    let c = match smartctl.read(&device) {
                        Ok(SmartRead::Health { health, .. }) => health.temperature_c,
                        _ => None,
                    };
                    if flag.load(Ordering::Relaxed) {
                        break;
                    }
                    let now = now_s();
                    s.lock().expect("temperature sampler").record(now, c);
                    last_s = now;
                }
                std::thread::sleep(TICK);
            }
        });
    if spawned.is_err() {
        // Without the thread the pass runs unsampled, as before; never held.
        stop.store(true, Ordering::Relaxed);
    }
    SideSampler {
        side: Arc::new(Side { sampler, stop }),
    }
}

/// A pause longer than `max_pause_s` ends without the drive cooling, as the
/// synchronous tests' pause does.
fn end_long_pause(s: &mut Sampler, now_s: f64, max_pause_s: f64) {
    if let Some(p) = s.log.pauses.last_mut()
        && p.to_s.is_none()
        && now_s - p.from_s as f64 >= max_pause_s
    {
        p.to_s = Some(now_s as u64);
        p.cooled = false;
    }
}

impl PassWatch for SideSampler {
    fn held(&self) -> bool {
        let side = &self.side;
        !side.stop.load(Ordering::Relaxed)
            && side.sampler.lock().expect("temperature sampler").paused()
    }
}

impl Drop for SideSampler {
    fn drop(&mut self) {
        self.side.stop.store(true, Ordering::Relaxed);
    }
}
