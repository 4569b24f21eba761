//! The plan of diskinfo's `-S` test (synchronous random writes, a ZFS SLOG test):
//! the write sizes, how a large write is split, and the batch rules.
//!
//! Offsets come from the same seeded stream as `-i` ([`super::iops::OffsetGen`]),
//! one stream per size, so every write is size-aligned and inside the device.

use crate::results::settings::SectorSize;

/// The largest write (diskinfo's MAXTX).
pub const MAX_WRITE: u32 = 8 << 20;
/// Writes larger than this are split into pieces of this size (diskinfo's MAXIO).
pub const PIECE: u32 = 128 << 10;
/// Writes are issued in batches of this many; the time is checked after each batch.
pub const BATCH: u64 = 250;

/// The write sizes: the sector size, doubling, up to 8 MiB, skipping sizes larger
/// than the device's whole sectors.
pub fn sizes(media_size: u64, sector_size: SectorSize) -> Vec<u32> {
    let whole = media_size / sector_size.bytes() * sector_size.bytes();
    std::iter::successors(Some(sector_size.get()), |s| s.checked_mul(2))
        .take_while(|&s| s <= MAX_WRITE)
        .filter(|&s| u64::from(s) <= whole)
        .collect()
}

/// How a `len`-byte write is issued: `(offset within the write, length)` of each
/// piece. All but the last are 128 KiB pieces issued in parallel; the last (at most
/// 128 KiB) is written synchronously, then all are awaited (diskinfo's parwrite).
pub fn pieces(len: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut o = 0;
    let mut left = len;
    while left > PIECE {
        out.push((o, PIECE));
        o += PIECE;
        left -= PIECE;
    }
    out.push((o, left));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_plans::iops::OffsetGen;
    use proptest::prelude::*;

    #[test]
    fn sizes_double_from_the_sector_size_to_8_mib() {
        let s = sizes(1 << 30, SectorSize::B512);
        assert_eq!(s.len(), 15);
        assert_eq!((s[0], s[14]), (512, 8 << 20));
        assert_eq!(sizes(1 << 30, SectorSize::B4096).len(), 12);
        assert_eq!(sizes(3 << 20, SectorSize::B512).last(), Some(&(2 << 20)));
    }

    #[test]
    fn pieces_follow_diskinfo() {
        assert_eq!(pieces(4096), [(0, 4096)]);
        assert_eq!(pieces(PIECE), [(0, PIECE)]);
        let p = pieces(PIECE * 2 + 512);
        assert_eq!(p, [(0, PIECE), (PIECE, PIECE), (2 * PIECE, 512)]);
        assert_eq!(pieces(MAX_WRITE).len(), 64);
    }

    proptest! {
        #[test]
        fn every_planned_write_lies_inside_the_target(
            sectors in 1u64..(1 << 24), extra in 0u64..4096, big in proptest::bool::ANY, seed in any::<u64>()
        ) {
            let s = if big { SectorSize::B4096 } else { SectorSize::B512 };
            let ss = s.get();
            let media = sectors * u64::from(ss) + extra % u64::from(ss);
            let whole = media / u64::from(ss) * u64::from(ss);
            for (i, size) in sizes(media, s).into_iter().enumerate() {
                let mut g = OffsetGen::new(crate::test_plans::iops::stream_seed(seed, i), media, s, size).unwrap();
                for _ in 0..50 {
                    let o = g.next_offset();
                    prop_assert_eq!(o % u64::from(size), 0);
                    prop_assert!(o + u64::from(size) <= whole);
                    for (po, pl) in pieces(size) {
                        prop_assert!(o + u64::from(po) + u64::from(pl) <= whole);
                        prop_assert_eq!((o + u64::from(po)) % u64::from(ss), 0);
                    }
                }
            }
        }
    }
}
