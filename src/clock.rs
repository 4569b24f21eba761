//! Time sources: the monotonic clock for real devices and a virtual clock that a
//! simulated drive advances by each operation's service time.
//!
//! Engines read time only through [`Clock`], so timing logic can be tested exactly.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A source of time in nanoseconds since an arbitrary origin.
pub trait Clock: Send + Sync {
    /// Nanoseconds since this clock's origin.
    fn now_ns(&self) -> u64;
    /// Let `d` pass (really sleep, or advance virtual time).
    fn sleep(&self, d: Duration);
    /// This clock, to keep (a virtual clock's copy shares its time): the live
    /// view's rates are on the drive's clock.
    fn shared(&self) -> Arc<dyn Clock>;
}

/// The operating system's monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A monotonic clock whose origin is now.
    pub fn new() -> Self {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now_ns(&self) -> u64 {
        u64::try_from(self.origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
    fn shared(&self) -> Arc<dyn Clock> {
        Arc::new(*self)
    }
}

/// Virtual time, advanced explicitly. Clones share the same time.
#[derive(Debug, Clone, Default)]
pub struct VirtualClock {
    ns: Arc<AtomicU64>,
}

impl VirtualClock {
    /// A virtual clock at time zero; only `advance` and `advance_to` move it.
    pub fn new() -> Self {
        Self::default()
    }
    /// Move time forward by `ns` nanoseconds.
    pub fn advance(&self, ns: u64) {
        self.ns.fetch_add(ns, Ordering::Relaxed);
    }
    /// Set the time, which must not move backwards; an earlier time is ignored.
    pub fn advance_to(&self, ns: u64) {
        self.ns.fetch_max(ns, Ordering::Relaxed);
    }
}

impl Clock for VirtualClock {
    fn now_ns(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }
    fn sleep(&self, d: Duration) {
        self.advance(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }
    fn shared(&self) -> Arc<dyn Clock> {
        Arc::new(self.clone())
    }
}

/// Seconds since the Unix epoch as the UTC civil date and time: (year, month, day,
/// hour, minute, second), by Howard Hinnant's days-to-civil algorithm (the
/// proleptic Gregorian calendar; negative seconds are before 1970).
pub fn civil_utc(unix_s: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = unix_s.div_euclid(86_400);
    let rem = unix_s.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Seconds since the Unix epoch as UTC text to the minute: "2026-12-01 15:40 UTC".
pub fn utc_minutes(unix_s: i64) -> String {
    let (y, mo, d, h, mi, _) = civil_utc(unix_s);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02} UTC")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_advances_exactly_and_clones_share_time() {
        let c = VirtualClock::new();
        let d = c.clone();
        c.advance(1_500);
        d.sleep(Duration::from_micros(2));
        assert_eq!(c.now_ns(), 3_500);
        c.advance_to(1_000);
        assert_eq!(d.now_ns(), 3_500);
    }

    #[test]
    fn monotonic_clock_does_not_go_back() {
        let c = MonotonicClock::new();
        let a = c.now_ns();
        assert!(c.now_ns() >= a);
    }
}
