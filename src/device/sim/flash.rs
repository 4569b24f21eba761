//! The flash model: flat latency plus size over bandwidth, with internal parallelism
//! whose transfers share the bandwidth.

use super::presets::FlashParams;
use super::{Kind, MS, US, jitter};
use crate::rng::Rng;

#[derive(Debug, Clone)]
pub(super) struct Flash {
    pub(super) p: FlashParams,
    pub(super) dirty_bytes: u64,
    /// When the shared transfer path (the interface) is next free, in ns: requests
    /// overlap their latencies, but their transfers share the bandwidth.
    pub(super) bus_free: f64,
}

impl Flash {
    /// An access starting at `start` (ns): its latency, then its transfer once the
    /// shared bandwidth is free. Returns its duration.
    pub(super) fn access_ns(&mut self, kind: Kind, start: f64, len: u64, rng: &mut Rng) -> f64 {
        let (us, rate) = match kind {
            Kind::Read => (self.p.read_us, self.p.read_rate),
            Kind::Write => {
                self.dirty_bytes += len;
                (self.p.write_us, self.p.write_rate)
            }
        };
        let ready = start + us * US * jitter(rng, self.p.jitter);
        let done = ready.max(self.bus_free) + len as f64 * 1e9 / rate;
        self.bus_free = done;
        done - start
    }
    pub(super) fn flush_ns(&mut self, lying: bool, rng: &mut Rng) -> f64 {
        let cmd = 2.0 * US * jitter(rng, self.p.jitter);
        if lying {
            return cmd;
        }
        let dirty = std::mem::take(&mut self.dirty_bytes);
        cmd + self.p.flush_ms * MS + dirty as f64 * 1e9 / self.p.write_rate
    }
}
