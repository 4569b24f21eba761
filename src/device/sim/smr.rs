//! Drive-managed shingled recording (DM-SMR) on top of the rotating-disk model
//! (`sim:smr`, or `smr=dm` on a disk preset).
//!
//! The drive hides its shingled bands behind a **media cache**: a conventional region
//! at the outer edge to which every host write is appended, at the outer zone's rate,
//! whatever its address. The cache is kept per band (bytes cached for each band), not
//! per sector, so tens of GiB of writes cost a few counters. When a write finds the
//! cache full, the drive first **cleans** the band that entered the cache first (FIFO):
//! it reads the whole band, merges the cached data and rewrites the band
//! (read-modify-write), freeing that band's cached bytes; the write waits for it, a
//! stall of about a second per band. After `idle_ms` without host commands the drive
//! cleans in the background, band after band; a command that arrives meanwhile waits
//! for the band in progress. Reads are served from the disk model as usual. The
//! parameters and their sources are in docs/sim.md ("Drive-managed SMR").

use super::MS;
use super::hdd::Hdd;
use crate::rng::Rng;
use std::collections::{HashMap, VecDeque};

/// The DM-SMR parameters.
#[derive(Debug, Clone)]
pub(super) struct SmrParams {
    /// The media cache (persistent cache) size, bytes.
    pub(super) cache_bytes: u64,
    /// The shingled band size, bytes.
    pub(super) band_bytes: u64,
    /// Idle time before background cleaning starts, ms.
    pub(super) idle_ms: f64,
}

/// The default media cache: 20 GiB (Skylight's Seagate ST5000AS0011; docs/sim.md).
pub(super) const DEFAULT_CACHE: u64 = 20 << 30;
/// The default band: 36 MiB (the largest band Skylight measured; docs/sim.md).
pub(super) const DEFAULT_BAND: u64 = 36 << 20;
/// The default idle time before background cleaning, ms.
pub(super) const DEFAULT_IDLE_MS: f64 = 1000.0;

impl Default for SmrParams {
    fn default() -> Self {
        SmrParams {
            cache_bytes: DEFAULT_CACHE,
            band_bytes: DEFAULT_BAND,
            idle_ms: DEFAULT_IDLE_MS,
        }
    }
}

/// The media cache's state.
#[derive(Debug, Clone)]
pub(super) struct Smr {
    pub(super) p: SmrParams,
    /// Bands in the order they entered the cache (cleaned first in, first out).
    log: VecDeque<u64>,
    /// Bytes cached for each band (at most a band).
    cached: HashMap<u64, u64>,
    /// All cached bytes.
    pub(super) cached_bytes: u64,
    /// When the last host command completed.
    idle_since: f64,
    /// When the background clean in progress (or the last one) ends.
    clean_end: f64,
    /// Bands cleaned so far (foreground and background).
    pub(super) bands_cleaned: u64,
}

impl Smr {
    pub(super) fn new(p: SmrParams) -> Smr {
        Smr {
            p,
            log: VecDeque::new(),
            cached: HashMap::new(),
            cached_bytes: 0,
            idle_since: 0.0,
            clean_end: 0.0,
            bands_cleaned: 0,
        }
    }

    /// The time to clean `band`: seek from the cache at the outer edge to the band,
    /// half a revolution, read the band; half a revolution, rewrite it; seek back.
    fn clean_ns(&self, h: &Hdd, band: u64) -> f64 {
        let a = band * self.p.band_bytes;
        let b = (a + self.p.band_bytes).min(h.media_end);
        if a >= b {
            return 0.0;
        }
        let track = h.geo.locate(a).0;
        let seek = h.seek_between(0, track);
        let stream = (h.geo.end_tau(b) - h.geo.tau(a)) * h.rev_ns;
        2.0 * seek + h.rev_ns + 2.0 * stream
    }

    /// Clean the oldest cached band; returns its cleaning time (0 when the cache is
    /// empty).
    fn clean_oldest(&mut self, h: &mut Hdd) -> f64 {
        let Some(band) = self.log.pop_front() else {
            return 0.0;
        };
        let freed = self.cached.remove(&band).unwrap_or(0);
        self.cached_bytes -= freed;
        self.bands_cleaned += 1;
        // The head has been away: the read-ahead is gone, the head is back at the cache.
        h.stream = None;
        h.head_track = 0;
        self.clean_ns(h, band)
    }

    /// Background cleaning up to the arrival of a command at `t0`: returns when the
    /// drive can serve it (after the band clean in progress, if any).
    pub(super) fn arrive(&mut self, h: &mut Hdd, t0: f64) -> f64 {
        let mut t = (self.idle_since + self.p.idle_ms * MS).max(self.clean_end);
        let mut cleaned = false;
        while t < t0 && !self.log.is_empty() {
            t += self.clean_oldest(h);
            cleaned = true;
        }
        if cleaned {
            self.clean_end = t;
            t.max(t0)
        } else {
            t0
        }
    }

    /// A host command completed at `t`: the idle timer restarts.
    pub(super) fn completed(&mut self, t: f64) {
        self.idle_since = t;
    }

    /// Serve a write of [a, a + len) arriving at `t0` (the drive being free): clean
    /// bands until the cache has room, then append to the cache. Returns the
    /// completion time.
    pub(super) fn write(&mut self, h: &mut Hdd, t0: f64, a: u64, len: u64, rng: &mut Rng) -> f64 {
        let ovh = h.overhead(rng);
        let mut t = t0;
        while self.cached_bytes + len > self.p.cache_bytes && !self.log.is_empty() {
            t += self.clean_oldest(h);
        }
        let band_bytes = self.p.band_bytes;
        let (mut x, end) = (a, a + len);
        while x < end {
            let band = x / band_bytes;
            let upto = end.min((band + 1) * band_bytes);
            let entry = self.cached.entry(band).or_insert_with(|| {
                self.log.push_back(band);
                0
            });
            let add = (upto - x).min(band_bytes - *entry);
            *entry += add;
            self.cached_bytes += add;
            x = upto;
        }
        t + ovh + len as f64 * 1e9 / self.cache_rate(h)
    }

    /// The rate of appends to the media cache at the outer edge: the outer zone's
    /// media rate, capped by the host rate.
    fn cache_rate(&self, h: &Hdd) -> f64 {
        let outer = h.geo.zones.first().map_or(0, |z| z.track_bytes) as f64 * 1e9
            / (h.rev_ns * (1.0 + h.geo.skew));
        outer.min(h.p.host_rate)
    }
}

#[cfg(test)]
mod tests {
    use crate::clock::Clock;
    use crate::device::sim::SimTarget;
    use crate::device::{AlignedBuf, Target};
    use crate::results::device::ZoneMode;

    fn write_ms(t: &mut SimTarget, offset: u64, len: usize) -> f64 {
        let buf = AlignedBuf::new(len);
        let s = t.virtual_clock().now_ns();
        t.write_at(buf.for_write(..), offset).unwrap();
        (t.virtual_clock().now_ns() - s) as f64 / 1e6
    }

    #[test]
    fn the_smr_keys_and_preset_are_parsed_and_described() {
        let t = SimTarget::open("sim:smr").unwrap();
        let i = t.info();
        assert!(i.trim);
        assert_eq!(i.zone_mode, Some(ZoneMode::NotZoned));
        assert_eq!(i.media_size_bytes, 8_001_563_222_016);
        let d = i.simulated.as_deref().unwrap();
        assert!(
            d.contains("drive-managed SMR: 20 GiB media cache, 36 MiB bands"),
            "{d}"
        );
        let t = SimTarget::open("sim:hdd?smr_cache=1G&smr_band=256M&smr_idle=0").unwrap();
        assert!(t.info().trim);
        assert!(
            t.info()
                .simulated
                .as_deref()
                .unwrap()
                .contains("1 GiB media cache, 256 MiB bands")
        );
        assert!(!SimTarget::open("sim:hdd?smr=none").unwrap().info().trim);
        assert!(!SimTarget::open("sim:smr?smr=none").unwrap().info().trim);
        for bad in [
            "sim:ssd?smr=dm",
            "sim:nvme?smr_cache=1G",
            "sim:hdd?smr=hm",
            "sim:hdd?smr_band=1K",
            "sim:hdd?smr_idle=-1",
        ] {
            let e = SimTarget::open(bad).err().unwrap().to_string();
            assert!(e.contains("smr"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_full_cache_stalls_writes_for_a_band_clean_and_idle_time_cleans_it() {
        let mut t = SimTarget::open("sim:hdd?smr_cache=64M&smr_band=36M&smr_idle=1000").unwrap();
        let band = 36u64 << 20;
        // 64 random 1 MiB writes in 64 different bands fill the cache at the outer rate.
        for k in 0..64u64 {
            let ms = write_ms(&mut t, (k * 997 + 13) % 50_000 * band, 1 << 20);
            assert!(ms < 7.0, "write {k}: {ms} ms");
        }
        // The next one waits for the oldest band to be read and rewritten.
        let stall = write_ms(&mut t, 52_000 * band, 1 << 20);
        assert!((300.0..1100.0).contains(&stall), "{stall} ms");
        // After 10 s idle the drive has cleaned bands in the background: room again,
        // though the write may wait for the band being cleaned when it arrives.
        t.virtual_clock().advance(10_000_000_000);
        let ms = write_ms(&mut t, 3 * band, 1 << 20);
        assert!(ms < 1100.0, "{ms} ms");
        let next = write_ms(&mut t, 7 * band + (1 << 20), 1 << 20);
        assert!(next < 7.0, "{next} ms");
    }

    #[test]
    fn sequential_writes_fill_whole_bands_and_one_clean_frees_a_band() {
        let mut t = SimTarget::open("sim:hdd?smr_cache=72M&smr_band=36M").unwrap();
        for k in 0..72u64 {
            assert!(write_ms(&mut t, k << 20, 1 << 20) < 7.0);
        }
        // Full: the first band is cleaned once, which frees 36 writes' worth.
        assert!(write_ms(&mut t, 100 << 20, 1 << 20) > 300.0);
        for k in 0..35u64 {
            assert!(write_ms(&mut t, (101 + k) << 20, 1 << 20) < 7.0, "{k}");
        }
    }
}
