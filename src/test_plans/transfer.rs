//! The transfer part of `-t`: sequential 1 MiB reads at the outer, middle and inner
//! zones, each after an untimed one-sector read that positions the head.

use super::{MIB, Op, Phase, TooSmall};
use crate::results::settings::SectorSize;
use crate::results::test_kind::PhaseId;

/// How many 1 MiB reads each zone gets: media size in MiB, at most 100.
pub fn bulk(media_size: u64) -> u64 {
    (media_size / MIB).min(100)
}

/// A zone whose timed reads start at sector `first` (moved back when diskinfo's
/// start would run past the end), preceded by an untimed read of the sector before.
fn zone(id: PhaseId, first: u64, n: u64, bulk: u64, sector_size: u32) -> Phase {
    let per_mib = MIB / u64::from(sector_size);
    let first = first.min(n - bulk * per_mib);
    let setup = if first > 0 {
        vec![Op::read_sectors(first - 1, 1, sector_size)]
    } else {
        Vec::new()
    };
    let ops = (0..bulk)
        .map(|i| Op::read_sectors(first + i * per_mib, per_mib as u32, sector_size))
        .collect();
    Phase { id, setup, ops }
}

/// The three transfer phases, in diskinfo's order. Needs the -t size limits.
///
/// diskinfo positions at sector 0 (outside), N/2 - bulk MiB/2 - 1 (middle) and
/// N - bulk MiB - 1 (inside), then reads `bulk` MiB from the next sector. Where that
/// would read past the end (a device of exactly `bulk` MiB, which makes diskinfo
/// fail), the zone moves back to end at the last whole sector.
pub fn phases(media_size: u64, sector_size: SectorSize) -> Result<Vec<Phase>, TooSmall> {
    let n = super::seek::check_size(media_size, sector_size)?;
    let sector_size = sector_size.get();
    let bulk = bulk(media_size);
    let per_mib = MIB / u64::from(sector_size);
    let span = bulk * per_mib;
    Ok(vec![
        zone(PhaseId::Outside, 1, n, bulk, sector_size),
        zone(PhaseId::Middle, n / 2 - span / 2, n, bulk, sector_size),
        zone(PhaseId::Inside, n - span, n, bulk, sector_size),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_follow_diskinfo_on_a_large_device() {
        let n = 3_907_029_168u64;
        let p = phases(n * 512, SectorSize::B512).unwrap();
        let span = 100 * 2048;
        let firsts: Vec<u64> = p.iter().map(|ph| ph.ops[0].offset / 512).collect();
        let setups: Vec<u64> = p.iter().map(|ph| ph.setup[0].offset / 512).collect();
        assert_eq!(setups, [0, n / 2 - span / 2 - 1, n - span - 1]);
        assert_eq!(firsts, [1, n / 2 - span / 2, n - span]);
        for ph in &p {
            assert_eq!(ph.ops.len(), 100);
            assert!(ph.ops.windows(2).all(|w| w[1].offset == w[0].end()));
            assert_eq!(ph.timed_bytes(), 100 * MIB);
        }
    }

    #[test]
    fn an_exact_mebibyte_multiple_stays_inside() {
        let p = phases(50 * MIB, SectorSize::B512).unwrap();
        assert_eq!(p[0].ops[0].offset, 0);
        assert!(p[0].setup.is_empty());
        assert_eq!(p[2].ops[0].offset, 0);
        assert_eq!(p[2].ops.last().unwrap().end(), 50 * MIB);
    }

    #[test]
    fn bulk_is_capped_at_100() {
        assert_eq!(bulk(MIB), 1);
        assert_eq!(bulk(99 * MIB + 5), 99);
        assert_eq!(bulk(1 << 40), 100);
    }
}
