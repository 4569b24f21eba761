//! The block sweep (`--block-sweep`, ATTO-style): sequential reads at the outer zone
//! for request sizes from 4 KiB to 8 MiB, one at a time and queued.

use super::{MIB, Op, OpKind, Phase};
use crate::results::settings::SectorSize;
use crate::results::test_kind::PhaseId;

/// First request size of the sweep, in bytes (4 KiB); sizes double from here.
pub const MIN_SIZE: u32 = 4 << 10;
/// Last request size of the sweep, in bytes (8 MiB), if the device holds it.
pub const MAX_SIZE: u32 = 8 << 20;
/// Bytes each synchronous size reads (less on a small device).
pub const SYNC_BYTES: u64 = 64 * MIB;

/// The request sizes: powers of two from 4 KiB to 8 MiB, those at least a sector,
/// a whole number of sectors, and no larger than the device.
pub fn sizes(media_size: u64, sector_size: SectorSize) -> Vec<u32> {
    let whole = whole_bytes(media_size, sector_size);
    let sector_size = sector_size.get();
    std::iter::successors(Some(MIN_SIZE), |s| s.checked_mul(2))
        .take_while(|&s| s <= MAX_SIZE)
        .filter(|&s| s >= sector_size && s.is_multiple_of(sector_size) && u64::from(s) <= whole)
        .collect()
}

/// The bytes of the device's whole sectors.
fn whole_bytes(media_size: u64, sector_size: SectorSize) -> u64 {
    media_size / sector_size.bytes() * sector_size.bytes()
}

/// Each size gets its own region near the start, so that no size re-reads what an
/// earlier one left in the drive's cache: 64 MiB for the synchronous reads (and the
/// writes), then the queued reads from the next 64 MiB on.
pub const REGION: u64 = 2 * SYNC_BYTES;

/// Where the region of the `index`-th size starts (regions wrap on a small device).
pub fn region(media_size: u64, sector_size: SectorSize, index: usize) -> u64 {
    let whole = whole_bytes(media_size, sector_size);
    let slots = (whole / REGION).max(1);
    (index as u64 % slots) * REGION
}

/// Where the queued reads of a size whose region starts at `start` begin: after the
/// synchronous 64 MiB, where the device has room.
pub fn queued_start(media_size: u64, sector_size: SectorSize, size: u32, start: u64) -> u64 {
    let whole = whole_bytes(media_size, sector_size);
    let after = start + SYNC_BYTES;
    if after + u64::from(size) <= whole {
        after
    } else {
        start
    }
}

/// The synchronous phase of one size: an untimed read of the region's first sector,
/// then sequential reads of `size` bytes from `start`, 64 MiB in all (or what the
/// device has from there).
pub fn sync_phase(media_size: u64, sector_size: SectorSize, size: u32, start: u64) -> Phase {
    let whole = whole_bytes(media_size, sector_size);
    let count = (SYNC_BYTES.min(whole - start) / u64::from(size)).max(1);
    Phase {
        id: PhaseId::SweepSync,
        setup: vec![Op::read_sectors(
            start / sector_size.bytes(),
            1,
            sector_size.get(),
        )],
        ops: (0..count)
            .map(|i| Op {
                offset: start + i * u64::from(size),
                len: size,
                kind: OpKind::Read,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: SectorSize = SectorSize::B512;

    #[test]
    fn sizes_run_from_4_kib_to_8_mib() {
        let s = sizes(1 << 40, S);
        assert_eq!(s.len(), 12);
        assert_eq!((s[0], s[11]), (4096, 8 << 20));
        assert_eq!(sizes(1 << 40, SectorSize::fixed::<8192>())[0], 8192);
        assert_eq!(sizes(3 << 20, S).last(), Some(&(2 << 20)));
    }

    #[test]
    fn each_size_has_its_own_region_and_everything_stays_inside() {
        let media = 1u64 << 40;
        let starts: Vec<u64> = (0..12).map(|i| region(media, S, i)).collect();
        assert_eq!(starts[1], REGION);
        assert_eq!(
            queued_start(media, S, 4096, starts[3]),
            starts[3] + SYNC_BYTES
        );
        // A 300 MiB device: two regions, and the queued reads stay inside.
        let small = 300u64 << 20;
        for i in 0..12 {
            let s = region(small, S, i);
            for size in sizes(small, S) {
                let p = sync_phase(small, S, size, s);
                assert!(p.ops.last().unwrap().end() <= small);
                assert!(queued_start(small, S, size, s) + u64::from(size) <= small);
            }
        }
    }

    #[test]
    fn the_sync_phase_reads_64_mib_from_the_start_and_stays_inside() {
        let p = sync_phase(1 << 40, S, 4096, 0);
        assert_eq!(p.ops.len(), 16384);
        assert_eq!(p.timed_bytes(), 64 << 20);
        let small = sync_phase(10 << 20, S, 8 << 20, 0);
        assert_eq!(small.ops.len(), 1);
        assert!(small.ops[0].end() <= 10 << 20);
    }
}
