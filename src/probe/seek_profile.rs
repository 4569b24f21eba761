//! The seek-distance profile (`--seek-profile`): pairs of one-sector reads — an
//! untimed read at a random sector, then a timed read a random distance away — with
//! distances spread evenly on a log scale from 1 MiB to the full stroke; and a run of
//! pairs at one fixed distance, whose spread of latencies measures the revolution.

use super::Op;
use crate::rng::{self, Rng};

/// Timed reads at random distances, unless `--seek-samples` says otherwise.
pub const DEFAULT_SAMPLES: u32 = 2000;
/// Timed reads at the fixed distance that measures the rotation.
pub const ROTATION_SAMPLES: u32 = 1000;
/// The shortest distance: far enough that the drive's read-ahead cannot serve it
/// when reading backwards, and about a track on current drives.
pub const MIN_DISTANCE_BYTES: u64 = 1 << 20;

/// The rotation samples' distances vary by up to this much.
pub const ROTATION_JITTER_BYTES: u64 = 8 << 20;

/// One sample: where the head is put (untimed) and the timed read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// One-sector read that puts the head at the start; untimed.
    pub from: Op,
    /// One-sector read `distance_sectors` away; only this one is timed.
    pub to: Op,
    /// The distance between them, in sectors.
    pub distance_sectors: u64,
}

/// The plan: samples at random distances, then samples at the rotation distance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeekProfilePlan {
    /// Pairs at random distances.
    pub profile: Vec<Pair>,
    /// The distance of the rotation samples, in sectors (each adds up to
    /// [`ROTATION_JITTER_BYTES`]).
    pub rotation_distance_sectors: u64,
    /// Pairs at the fixed distance.
    pub rotation: Vec<Pair>,
}

/// A pair `d` sectors apart, from a random start. Short distances (under 16 MiB)
/// go backwards, out of the read-ahead's reach; longer ones either way.
fn pair(g: &mut Rng, n: u64, d: u64, ss: u32) -> Pair {
    let short = d * u64::from(ss) < (16 << 20);
    let backward = short || rng::coin(g);
    let room = n - d; // starts with the whole pair inside
    let a = rng::below(g, room);
    let (from, to) = if backward { (a + d, a) } else { (a, a + d) };
    Pair {
        from: Op::read_sectors(from, 1, ss),
        to: Op::read_sectors(to, 1, ss),
        distance_sectors: d,
    }
}

/// The plan for a device of `media_size` bytes: `samples` pairs at log-uniform
/// distances from 1 MiB (or less on a tiny device) to the last sector, and
/// [`ROTATION_SAMPLES`] pairs at 1/1000 of the device (at least 64 MiB, at most a
/// quarter), plus up to [`ROTATION_JITTER_BYTES`]. None when the device has fewer than 4 sectors.
pub fn plan(media_size: u64, sector_size: u32, samples: u32, seed: u64) -> Option<SeekProfilePlan> {
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
    Some(SeekProfilePlan {
        profile,
        rotation_distance_sectors: rot_d,
        rotation,
    })
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
            let p = plan(sectors * u64::from(ss), ss, 50, seed).unwrap();
            for pr in p.profile.iter().chain(&p.rotation) {
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
        let p = plan(n * 512, 512, 4000, 1).unwrap();
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
        assert_eq!(plan(1024, 512, 10, 1), None);
    }
}
