//! The zone transfer curve (`--zones`): sequential reads of `zone_size` bytes at N
//! evenly spaced positions from the first to the last sector.

use super::{MIB, Op, Phase, TooSmall};
use crate::results::settings::SectorSize;
use crate::results::test_kind::PhaseId;
use std::num::NonZeroU32;

/// The bytes each sample reads: `zone_size`, reduced so that the samples do not
/// overlap on a small device; whole MiB (read 1 MiB at a time) from 1 MiB up, else
/// whole sectors (read at once), so that every read of a sample has the same length.
pub fn sample_bytes(media_size: u64, sector_size: u32, zones: NonZeroU32, zone_size: u64) -> u64 {
    let ss = u64::from(sector_size);
    let whole = media_size / ss * ss;
    let size = zone_size.min(whole / u64::from(zones.get())) / ss * ss;
    if size >= MIB { size / MIB * MIB } else { size }
}

/// One phase per sample: an untimed read of the sector before it (as diskinfo
/// positions the head), then sequential reads of up to 1 MiB. Sample `i` of `n`
/// starts at `i * (whole - size) / (n - 1)`, rounded down to a sector, so the first
/// starts at 0 and the last ends at the last whole sector.
pub fn phases(
    media_size: u64,
    sector_size: SectorSize,
    zones: NonZeroU32,
    zone_size: u64,
) -> Result<Vec<Phase>, TooSmall> {
    let sector_size = sector_size.get();
    let ss = u64::from(sector_size);
    let whole = media_size / ss * ss;
    let size = sample_bytes(media_size, sector_size, zones, zone_size);
    if size == 0 {
        return Err(TooSmall(format!(
            "{media_size} bytes cannot hold {zones} samples of at least one {sector_size}-byte sector"
        )));
    }
    let span = whole - size;
    let n = u64::from(zones.get());
    Ok((0..n)
        .map(|i| {
            let start = if n > 1 {
                (u128::from(span) * u128::from(i) / u128::from(n - 1)) as u64 / ss * ss
            } else {
                0
            };
            // Put the head on the sector before (sector 0 for the first sample, which
            // the drive then serves from the read-ahead it started).
            let setup = vec![Op::read_sectors((start / ss).max(1) - 1, 1, sector_size)];
            let mut ops = Vec::new();
            let mut at = start;
            while at < start + size {
                let len = (start + size - at).min(MIB);
                ops.push(Op {
                    offset: at,
                    len: len as u32,
                    kind: super::OpKind::Read,
                });
                at += len;
            }
            Phase {
                id: PhaseId::Zone,
                setup,
                ops,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `n` samples.
    fn z(n: u32) -> NonZeroU32 {
        NonZeroU32::new(n).unwrap()
    }

    #[test]
    fn samples_span_the_device_from_first_to_last_sector() {
        let media = 2_000_398_934_016u64;
        let p = phases(media, SectorSize::B512, z(100), 64 << 20).unwrap();
        assert_eq!(p.len(), 100);
        assert_eq!(p[0].ops[0].offset, 0);
        assert_eq!(p[0].setup[0].offset, 0);
        assert_eq!(p[99].ops.last().unwrap().end(), media / 512 * 512);
        assert_eq!(p[0].timed_bytes(), 64 << 20);
        assert_eq!(p[0].ops.len(), 64);
    }

    #[test]
    fn small_devices_get_smaller_samples() {
        assert_eq!(sample_bytes(100 << 20, 512, z(100), 64 << 20), 1 << 20);
        assert_eq!(sample_bytes(64 << 20, 512, z(10), 64 << 20), 6 << 20);
        assert_eq!(sample_bytes(1 << 20, 512, z(10), 64 << 20), 104448);
        assert_eq!(sample_bytes(1000, 512, z(10), 64 << 20), 0);
        assert!(phases(1000, SectorSize::B512, z(10), 64 << 20).is_err());
    }

    proptest! {
        #[test]
        fn every_read_is_aligned_inside_and_samples_do_not_overlap(
            sectors in 1u64..(1 << 32), big in any::<bool>(), zones in 1u32..300, zone_mib in 1u64..128
        ) {
            let ss: u32 = if big { 4096 } else { 512 };
            let media = sectors * u64::from(ss) + 17;
            if let Ok(p) = phases(media, SectorSize::new(ss).unwrap(), z(zones), zone_mib << 20) {
                let whole = media / u64::from(ss) * u64::from(ss);
                let mut last_end = 0;
                for ph in &p {
                    for op in ph.all_ops() {
                        prop_assert_eq!(op.offset % u64::from(ss), 0);
                        prop_assert_eq!(u64::from(op.len) % u64::from(ss), 0);
                        prop_assert!(op.end() <= whole);
                    }
                                        prop_assert!(ph.ops[0].offset >= last_end);
                    prop_assert!(ph.ops.iter().all(|o| o.len == ph.ops[0].len));
                    last_end = ph.ops.last().unwrap().end();
                }
            }
        }
    }
}
