//! Where bytes are on the platters (zoned recording, tracks, track skew) and the
//! seek curve over a distance in cylinders.

use super::MS;
use super::presets::{HddParams, SeekSpec};

/// A recording zone: consecutive tracks of equal capacity.
#[derive(Debug, Clone, Copy)]
pub(super) struct Zone {
    pub(super) first_track: u64,
    pub(super) first_byte: u64,
    pub(super) track_bytes: u64,
}

/// Where bytes are on the platters.
#[derive(Debug, Clone)]
pub(super) struct Geometry {
    pub(super) zones: Vec<Zone>,
    pub(super) heads: u64,
    pub(super) cylinders: u64,
    pub(super) tracks: u64,
    pub(super) skew: f64,
}

impl Geometry {
    /// Zones of equal cylinder count whose track capacity follows the profile, with
    /// enough cylinders for `media` bytes.
    pub(super) fn build(p: &HddParams, media: u64, phys: u64) -> Geometry {
        let nz = u64::from(p.zones.max(1));
        let rev_s = 60.0 / f64::from(p.nominal_rpm);
        let track_bytes: Vec<u64> = (0..nz)
            .map(|z| {
                let x = if nz > 1 {
                    z as f64 / (nz - 1) as f64
                } else {
                    0.0
                };
                let rate = p.outer_rate - (p.outer_rate - p.inner_rate) * x.powf(p.profile_exp);
                let bytes = rate * rev_s * (1.0 + p.skew);
                ((bytes / phys as f64).floor() as u64).max(1) * phys
            })
            .collect();
        let heads = u64::from(p.heads.max(1));
        let per_cyl_all: u64 = track_bytes.iter().sum::<u64>() * heads;
        let cyl_per_zone = media.div_ceil(per_cyl_all).max(1);
        let mut zones = Vec::with_capacity(track_bytes.len());
        let (mut track, mut byte) = (0u64, 0u64);
        for b in track_bytes {
            zones.push(Zone {
                first_track: track,
                first_byte: byte,
                track_bytes: b,
            });
            track += cyl_per_zone * heads;
            byte += cyl_per_zone * heads * b;
        }
        let mut g = Geometry {
            zones,
            heads,
            cylinders: cyl_per_zone * nz,
            tracks: track,
            skew: p.skew,
        };
        // The last zone is only partly used: the stroke ends at the last cylinder
        // that holds data.
        let last_track = g.locate(media.saturating_sub(1)).0;
        g.cylinders = g.cylinder(last_track) + 1;
        g.tracks = g.cylinders * heads;
        g
    }

    pub(super) fn zone_of_byte(&self, x: u64) -> &Zone {
        let i = self.zones.partition_point(|z| z.first_byte <= x);
        &self.zones[i.saturating_sub(1)]
    }

    pub(super) fn zone_of_track(&self, t: u64) -> &Zone {
        let i = self.zones.partition_point(|z| z.first_track <= t);
        &self.zones[i.saturating_sub(1)]
    }

    /// (track, byte within the track, track capacity) of byte `x`.
    pub(super) fn locate(&self, x: u64) -> (u64, u64, u64) {
        let z = self.zone_of_byte(x);
        let rel = x - z.first_byte;
        (
            z.first_track + rel / z.track_bytes,
            rel % z.track_bytes,
            z.track_bytes,
        )
    }

    pub(super) fn track_start(&self, t: u64) -> u64 {
        let z = self.zone_of_track(t);
        z.first_byte + (t - z.first_track) * z.track_bytes
    }

    /// Position of byte `x` on the stream scale, in revolutions: every track takes
    /// one revolution plus the skew, so frac(tau) is the byte's angle.
    pub(super) fn tau(&self, x: u64) -> f64 {
        let (t, k, b) = self.locate(x);
        t as f64 * (1.0 + self.skew) + k as f64 / b as f64
    }

    /// Where reading ends after byte `x - 1` (x > 0), on the same scale.
    pub(super) fn end_tau(&self, x: u64) -> f64 {
        let (t, k, b) = self.locate(x.saturating_sub(1));
        t as f64 * (1.0 + self.skew) + (k + 1) as f64 / b as f64
    }

    pub(super) fn cylinder(&self, track: u64) -> u64 {
        track / self.heads
    }
}

/// A [`SeekSpec`] scaled to the drive's cylinders; times in ns, distances in cylinders.
#[derive(Debug, Clone, Copy)]
pub(super) struct SeekCurve {
    pub(super) t2t: f64,
    pub(super) head_switch: f64,
    pub(super) coeff: f64,
    pub(super) knee1: f64,
    pub(super) knee1_ns: f64,
    pub(super) knee2: f64,
    pub(super) knee2_ns: f64,
    pub(super) slope: f64,
}

impl SeekCurve {
    pub(super) fn new(s: &SeekSpec, cylinders: u64) -> SeekCurve {
        let span = cylinders.saturating_sub(1).max(1) as f64;
        let knee1 = (s.sqrt_end.0 * span).max(1.0);
        let knee2 = (s.long_start.0 * span).max(knee1);
        let coeff = if knee1 > 1.0 {
            (s.sqrt_end.1 - s.t2t_ms) * MS / (knee1.sqrt() - 1.0)
        } else {
            0.0
        };
        let knee1_ns = s.t2t_ms * MS + coeff * (knee1.sqrt() - 1.0);
        let knee2_ns = (s.long_start.1 * MS).max(knee1_ns);
        let slope = if span > knee2 {
            ((s.full_ms * MS - knee2_ns) / (span - knee2)).max(0.0)
        } else {
            0.0
        };
        SeekCurve {
            t2t: s.t2t_ms * MS,
            head_switch: s.head_switch_ms * MS,
            coeff,
            knee1,
            knee1_ns,
            knee2,
            knee2_ns,
            slope,
        }
    }

    /// The nominal time to seek `d` cylinders, ns (0 for no seek).
    pub(super) fn seek_ns(&self, d: u64) -> f64 {
        if d == 0 {
            return 0.0;
        }
        let d = d as f64;
        if d <= self.knee1 {
            self.t2t + self.coeff * (d.sqrt() - 1.0)
        } else if d < self.knee2 {
            let f = (d - self.knee1) / (self.knee2 - self.knee1);
            self.knee1_ns + f * (self.knee2_ns - self.knee1_ns)
        } else {
            self.knee2_ns + self.slope * (d - self.knee2)
        }
    }
}
