//! The seek-distance profile (`--seek-profile`): pairs of one-sector reads — an
//! untimed read, then a timed read a chosen distance away. In order: distances
//! spread evenly on a log scale from 1 MiB to the full stroke (the profile and the
//! fitted curve); a run at one fixed distance, whose spread measures the
//! revolution; short backward hops over the disk that measure the track capacity
//! (and so where each sector lies across the stroke, [`RadialMap`]); pairs at the
//! full stroke; and, planned from the measured map when the test gets there
//! ([`targeted`]), pairs a third of the stroke apart and hops of 1 to 64 tracks,
//! where the access time's floor steps from a head switch to a seek.

use super::Op;
use crate::results::settings::SectorSize;
use crate::rng::{self, Rng};

/// Timed reads at the fixed distance that measures the rotation.
pub const ROTATION_SAMPLES: u32 = 500;
/// The shortest distance: far enough that the drive's read-ahead cannot serve it
/// when reading backwards, and about a track on current drives.
pub const MIN_DISTANCE_BYTES: u64 = 1 << 20;

/// The rotation samples' distances vary by up to this much.
pub const ROTATION_JITTER_BYTES: u64 = 8 << 20;

/// Places over the disk where the track capacity is measured.
pub const TRACK_POSITIONS: u64 = 48;
/// The two backward hops that measure it: on the same track a hop of `d` bytes
/// waits `rev * (1 - d / track)`, so the difference of the two waits gives the track.
pub const TRACK_HOPS_BYTES: [u64; 2] = [32 << 10, 160 << 10];
/// Hops of each length at each place (the longest wait is the one on the same track).
pub const TRACK_REPEATS: u64 = 3;
/// The gap between the targets of successive hops at a place, so that each read is
/// behind the one before it (out of the read-ahead's reach).
const TRACK_GAP_BYTES: u64 = 512 << 10;
/// Pairs at the full stroke, and a third of it apart.
pub const STROKE_SAMPLES: u32 = 200;
/// The part of the device at each end that the full-stroke pairs start and end in.
pub const STROKE_END_FRACTION: f64 = 0.001;
/// Hop lengths of the floor classes, in tracks: [1, 2), [2, 4) … [32, 64).
pub const FLOOR_CLASSES: u32 = 6;
/// Hops in each floor class.
pub const FLOOR_SAMPLES: u32 = 250;
/// Zero-distance pairs, which measure the fixed cost of a read that misses the
/// cache ([`targeted`]).
pub const ZERO_SAMPLES: u64 = 120;
/// How far behind the one before each zero-distance read is: a physical sector
/// of 4 KiB, so that the drive has not read it, and all of them within 480 KiB.
pub const ZERO_STEP_BYTES: u64 = 4 << 10;
/// The window of angles of the zero-distance reads, as times from the head to the
/// sector in ns: from 0.5 ms behind to 1.5 ms ahead, which holds the fixed cost of a
/// read on current drives (a few tenths of a millisecond) with room for the
/// host's own delay; the steps are 2 ms / [`ZERO_SAMPLES`] apart.
pub const ZERO_WINDOW_NS: (f64, f64) = (-0.5e6, 1.5e6);

/// One sample: where the head is put (untimed) and the timed read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// One-sector read that puts the head at the start; untimed.
    pub from: Op,
    /// One-sector read `distance_sectors` away; only this one is timed.
    pub to: Op,
    /// The distance between them, in sectors.
    pub distance_sectors: u64,
    /// A pause between the two reads, in ns (0 but for the zero-distance pairs).
    pub pause_ns: u64,
}

impl Pair {
    /// The pair from sector `from` to sector `to`.
    pub fn between(from: u64, to: u64, ss: u32) -> Pair {
        Pair {
            from: Op::read_sectors(from, 1, ss),
            to: Op::read_sectors(to, 1, ss),
            distance_sectors: from.abs_diff(to),
            pause_ns: 0,
        }
    }
}

/// The plan: samples at random distances, at the rotation distance, the track
/// hops and the full-stroke pairs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekProfilePlan {
    /// Pairs at random distances.
    pub profile: Vec<Pair>,
    /// The distance of the rotation samples, in sectors (each adds up to
    /// [`ROTATION_JITTER_BYTES`]).
    pub rotation_distance_sectors: u64,
    /// Pairs at the fixed distance.
    pub rotation: Vec<Pair>,
    /// Backward hops that measure the track capacity ([`TRACK_POSITIONS`] places,
    /// at each [`TRACK_REPEATS`] times the hops of [`TRACK_HOPS_BYTES`], in that order).
    pub tracks: Vec<Pair>,
    /// Pairs between the first and the last [`STROKE_END_FRACTION`] of the device.
    pub full_stroke: Vec<Pair>,
}

/// A pair `d` sectors apart, from a random start. Short distances (under 16 MiB)
/// go backwards, out of the read-ahead's reach; longer ones either way.
fn pair(g: &mut Rng, n: u64, d: u64, ss: u32) -> Pair {
    let short = d * u64::from(ss) < (16 << 20);
    let backward = short || rng::coin(g);
    let room = n - d; // starts with the whole pair inside
    let a = rng::below(g, room);
    let (from, to) = if backward { (a + d, a) } else { (a, a + d) };
    Pair::between(from, to, ss)
}

/// The plan for a device of `media_size` bytes: `samples` pairs at log-uniform
/// distances from 1 MiB (or less on a tiny device) to the last sector, and
/// [`ROTATION_SAMPLES`] pairs at 1/1000 of the device (at least 64 MiB, at most a
/// quarter), plus up to [`ROTATION_JITTER_BYTES`]; the track hops and the
/// full-stroke pairs. None when the device has fewer than 4 sectors.
pub fn plan(
    media_size: u64,
    sector_size: SectorSize,
    samples: u32,
    seed: u64,
) -> Option<SeekProfilePlan> {
    let sector_size = sector_size.get();
    let ss = u64::from(sector_size);
    let n = media_size / ss;
    if n < 4 {
        return None;
    }
    let mut g = rng::seeded(seed);
    let d_min = (MIN_DISTANCE_BYTES / ss).clamp(1, n / 4);
    let d_max = n - 1;
    let (lmin, lmax) = ((d_min as f64).ln(), (d_max as f64).ln());
    let profile = (0..samples)
        .map(|_| {
            let u = rng::unit(&mut g);
            let d = ((lmin + u * (lmax - lmin)).exp() as u64).clamp(d_min, d_max);
            pair(&mut g, n, d, sector_size)
        })
        .collect();
    let rot_d = (n / 1000).max((64 << 20) / ss).min(n / 4).max(1);
    // At one exact distance the angle between the two sectors hardly changes, so the
    // wait would not be uniform: up to 8 MiB more (several tracks, a negligible
    // change of seek) makes the angle random.
    let jitter = (ROTATION_JITTER_BYTES / ss).min(n / 8).max(1);
    let rotation = (0..ROTATION_SAMPLES)
        .map(|_| {
            let d = rot_d + rng::below(&mut g, jitter);
            pair(&mut g, n, d, sector_size)
        })
        .collect();
    let mut g = rng::seeded(rng::derive(seed, 1));
    Some(SeekProfilePlan {
        profile,
        rotation_distance_sectors: rot_d,
        rotation,
        tracks: track_hops(n, sector_size, seed),
        full_stroke: full_stroke(&mut g, n, sector_size),
    })
}

/// The place (sector) of the track hops number `i`.
pub fn track_position(n: u64, i: u64) -> u64 {
    ((i as f64 + 0.5) / TRACK_POSITIONS as f64 * n as f64) as u64
}

/// The track hops: at each place, targets going backwards so that every read is a
/// miss; empty when the device is too small for them.
fn track_hops(n: u64, ss: u32, seed: u64) -> Vec<Pair> {
    let s = u64::from(ss);
    let gap = (TRACK_GAP_BYTES / s).max(1);
    let per_place = TRACK_REPEATS * TRACK_HOPS_BYTES.len() as u64;
    if n / TRACK_POSITIONS < 2 * gap * (per_place + 2) {
        return Vec::new();
    }
    // Each target a gap and a random part of another behind the one before, so
    // that the repeats sit at unrelated places on their tracks.
    let mut g = rng::seeded(rng::derive(seed, 3));
    let mut out = Vec::new();
    for i in 0..TRACK_POSITIONS {
        let mut to = track_position(n, i);
        for _ in 0..TRACK_REPEATS {
            for hop in TRACK_HOPS_BYTES {
                to -= gap + rng::below(&mut g, gap);
                out.push(Pair::between(to + (hop / s).max(1), to, ss));
            }
        }
    }
    out
}

/// Pairs between the ends, alternating in direction, each start and end at random
/// in its end's [`STROKE_END_FRACTION`] (so that the angles are random).
fn full_stroke(g: &mut Rng, n: u64, ss: u32) -> Vec<Pair> {
    let end = ((n as f64 * STROKE_END_FRACTION) as u64).max(1);
    if n < 4 * end {
        return Vec::new();
    }
    (0..STROKE_SAMPLES)
        .map(|i| {
            let a = rng::below(g, end);
            let b = n - 1 - rng::below(g, end);
            if i % 2 == 0 {
                Pair::between(a, b, ss)
            } else {
                Pair::between(b, a, ss)
            }
        })
        .collect()
}

/// Where each sector lies across the stroke, from the track capacities measured
/// at [`TRACK_POSITIONS`] places: a drive has as many tracks in each band of
/// sectors as the band's sectors over its track capacity, so the fraction of the
/// stroke before a sector is the sum of `sectors / track` up to it.
#[derive(Debug, Clone, PartialEq)]
pub struct RadialMap {
    /// The device's sectors.
    pub sectors: u64,
    /// Sectors per track in each of the equal bands, outer (first sector) first.
    pub track_sectors: Vec<f64>,
    /// The fraction of the stroke at the start of each band, and 1 at the end.
    cumulative: Vec<f64>,
}

impl RadialMap {
    /// The map of `sectors` cut into equal bands with these track capacities;
    /// None when there are none or one is not positive.
    pub fn new(sectors: u64, track_sectors: Vec<f64>) -> Option<RadialMap> {
        if track_sectors.is_empty() || track_sectors.iter().any(|&t| t.is_nan() || t <= 0.0) {
            return None;
        }
        let band = sectors as f64 / track_sectors.len() as f64;
        let mut cumulative = vec![0.0];
        for t in &track_sectors {
            cumulative.push(cumulative.last().unwrap_or(&0.0) + band / t);
        }
        let total = *cumulative.last()?;
        cumulative.iter_mut().for_each(|c| *c /= total);
        Some(RadialMap {
            sectors,
            track_sectors,
            cumulative,
        })
    }

    fn band(&self) -> f64 {
        self.sectors as f64 / self.track_sectors.len() as f64
    }

    /// The fraction of the stroke at sector `x`.
    pub fn fraction(&self, x: u64) -> f64 {
        let pos = (x as f64 / self.band()).clamp(0.0, self.track_sectors.len() as f64);
        let i = (pos as usize).min(self.track_sectors.len() - 1);
        let c = self.cumulative[i];
        c + (pos - i as f64) * (self.cumulative[i + 1] - c)
    }

    /// The sector at fraction `f` of the stroke.
    pub fn sector(&self, f: f64) -> u64 {
        let f = f.clamp(0.0, 1.0);
        let i = self
            .cumulative
            .partition_point(|&c| c <= f)
            .clamp(1, self.track_sectors.len())
            - 1;
        let (c0, c1) = (self.cumulative[i], self.cumulative[i + 1]);
        let within = if c1 > c0 { (f - c0) / (c1 - c0) } else { 0.0 };
        (((i as f64 + within) * self.band()) as u64).min(self.sectors - 1)
    }

    /// The track capacity at sector `x`, in sectors.
    pub fn track_at(&self, x: u64) -> f64 {
        let i = ((x as f64 / self.band()) as usize).min(self.track_sectors.len() - 1);
        self.track_sectors[i]
    }
}

/// The pairs planned from the measured map and revolution (`rev_ns`):
/// [`STROKE_SAMPLES`] pairs a third of the stroke apart; [`FLOOR_SAMPLES`] backward
/// hops in each floor class, from the last sectors to the first (each read behind
/// the one before); and the zero-distance pairs ([`zero_distance`]).
pub fn targeted(map: &RadialMap, ss: u32, seed: u64, rev_ns: f64) -> [Vec<Pair>; 3] {
    let n = map.sectors;
    let mut g = rng::seeded(rng::derive(seed, 2));
    let third = (0..STROKE_SAMPLES)
        .map(|_| {
            let u = rng::unit(&mut g) * 2.0 / 3.0;
            let (a, b) = (map.sector(u), map.sector(u + 1.0 / 3.0));
            if rng::coin(&mut g) {
                Pair::between(a, b, ss)
            } else {
                Pair::between(b, a, ss)
            }
        })
        .collect();
    let total = u64::from(FLOOR_CLASSES * FLOOR_SAMPLES);
    let mut hops = Vec::new();
    for k in (0..total).rev() {
        let class = (k % u64::from(FLOOR_CLASSES)) as i32;
        let x = ((k as f64 + 0.25 + 0.5 * rng::unit(&mut g)) / total as f64 * n as f64) as u64;
        let tracks = 2f64.powi(class) * (1.0 + rng::unit(&mut g));
        let d = (tracks * map.track_at(x)) as u64;
        if d >= 1 && x + d < n && x < n {
            hops.push(Pair::between(x + d, x, ss));
        }
    }
    let track = map.track_at(n - 1);
    [third, hops, zero_distance(n, ss, rev_ns, track)]
}

/// Reads that need neither a seek nor a head switch, on the device's last track,
/// at angles stepping evenly through a window round the floor: each pair's
/// untimed read is the last sector (the read-ahead stops at the media's end, so
/// the head stays on that track), then a pause, then the timed read
/// [`ZERO_STEP_BYTES`] behind the timed read before it (behind everything the
/// drive has read since, so a miss). The pause of read `i` (from 1) puts its
/// sector `ZERO_WINDOW_NS.0 + (i − 1/2) / ZERO_SAMPLES` of the window's width
/// ahead of the head, counted from the end of the last sector on a track of
/// `track` sectors (the measured map's) and a revolution of `rev_ns`: a read
/// whose sector comes round before the drive's fixed cost is spent waits a whole
/// revolution more, the others not, so the floor lies between two steps. An error
/// of `track` only stretches the steps a little. Empty on a tiny device.
fn zero_distance(n: u64, ss: u32, rev_ns: f64, track: f64) -> Vec<Pair> {
    let step = (ZERO_STEP_BYTES / u64::from(ss)).max(1);
    if n < 4 * step * (ZERO_SAMPLES + 2) || rev_ns.is_nan() || rev_ns <= 0.0 {
        return Vec::new();
    }
    let (w0, w1) = ZERO_WINDOW_NS;
    let last = n - 1;
    (1..=ZERO_SAMPLES)
        .map(|i| {
            let ahead = (w0 + (w1 - w0) * (i as f64 - 0.5) / ZERO_SAMPLES as f64) / rev_ns;
            let behind = (step * i + 1) as f64 / track;
            let pause = (1.0 - behind - ahead).rem_euclid(1.0);
            Pair {
                pause_ns: (pause * rev_ns) as u64,
                ..Pair::between(last, last - step * i, ss)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_pair_is_inside_aligned_and_the_right_distance_apart(
            sectors in 4u64..(1 << 40), big in any::<bool>(), seed in any::<u64>()
        ) {
            let ss: u32 = if big { 4096 } else { 512 };
            let p = plan(sectors * u64::from(ss), SectorSize::new(ss).unwrap(), 50, seed).unwrap();
            for pr in p.profile.iter().chain(&p.rotation).chain(&p.tracks).chain(&p.full_stroke) {
                for op in [pr.from, pr.to] {
                    prop_assert!(op.end() <= sectors * u64::from(ss));
                    prop_assert_eq!(op.len, ss);
                }
                prop_assert_eq!(pr.from.offset.abs_diff(pr.to.offset), pr.distance_sectors * u64::from(ss));
            }
        }
    }

    #[test]
    fn distances_cover_one_mib_to_the_full_stroke_on_a_log_scale() {
        let n = 3_907_029_168u64;
        let p = plan(n * 512, SectorSize::B512, 4000, 1).unwrap();
        assert_eq!(p.tracks.len(), 288);
        assert_eq!(p.full_stroke.len(), STROKE_SAMPLES as usize);
        let d: Vec<u64> = p.profile.iter().map(|x| x.distance_sectors).collect();
        assert!(*d.iter().min().unwrap() < 4096);
        assert!(*d.iter().max().unwrap() > n / 2);
        // About a tenth of the samples in each tenth of the log range.
        let below_geo_mean = d
            .iter()
            .filter(|&&x| (x as f64) < (2048.0 * n as f64).sqrt())
            .count();
        assert!((1700..2300).contains(&below_geo_mean), "{below_geo_mean}");
        assert_eq!(p.rotation_distance_sectors, n / 1000);
        assert!(
            p.rotation
                .iter()
                .all(|r| (n / 1000..n / 1000 + 16384).contains(&r.distance_sectors))
        );
        assert_eq!(plan(1024, SectorSize::B512, 10, 1), None);
    }

    #[test]
    fn the_zero_distance_reads_step_back_on_the_last_track_with_pauses_under_a_revolution() {
        let n = 3_907_029_168u64;
        let m = RadialMap::new(n, vec![2000.0; 48]).unwrap();
        let rev = 8_333_333.0;
        let [_, _, zero] = targeted(&m, 512, 3, rev);
        assert_eq!(zero.len() as u64, ZERO_SAMPLES);
        for (i, p) in zero.iter().enumerate() {
            assert_eq!(p.from.offset, (n - 1) * 512);
            assert_eq!(p.to.offset, (n - 1 - 8 * (i as u64 + 1)) * 512);
            assert!((p.pause_ns as f64) < rev);
            // The sector's angle ahead of the head after the pause, in ns.
            let behind = (8.0 * (i as f64 + 1.0) + 1.0) / 2000.0;
            let ahead = (1.0 - behind - p.pause_ns as f64 / rev).rem_euclid(1.0) * rev;
            let ahead = if ahead > rev / 2.0 {
                ahead - rev
            } else {
                ahead
            };
            let want = -0.5e6 + 2e6 * (i as f64 + 0.5) / ZERO_SAMPLES as f64;
            assert!((ahead - want).abs() < 10.0, "{i}: {ahead} vs {want}");
        }
    }

    #[test]
    fn the_radial_map_inverts_and_a_band_of_short_tracks_holds_more_of_the_stroke() {
        // Outer half twice the track of the inner half: the outer half of the
        // sectors is a third of the stroke.
        let m = RadialMap::new(1000, vec![20.0, 10.0]).unwrap();
        assert!((m.fraction(500) - 1.0 / 3.0).abs() < 1e-9);
        for f in [0.0, 0.2, 1.0 / 3.0, 0.7, 0.99] {
            assert!((m.fraction(m.sector(f)) - f).abs() < 0.002, "{f}");
        }
        let [third, hops, zero] = targeted(&m, 512, 3, 8e6);
        assert!(zero.is_empty());
        for p in &third {
            let d = (m.fraction(p.from.offset / 512) - m.fraction(p.to.offset / 512)).abs();
            assert!((d - 1.0 / 3.0).abs() < 0.003, "{d}");
        }
        assert!(
            hops.iter()
                .all(|p| p.from.offset > p.to.offset && p.from.offset < 512_000)
        );
    }
}
