//! The block sweep (`--block-sweep`, ATTO-style): sequential reads at the outer zone
//! for request sizes from 4 KiB to 8 MiB, one at a time and queued.

use super::{MIB, Op, OpKind, Phase, PhaseId};

/// The smallest request size.
pub const MIN_SIZE: u32 = 4 << 10;
/// The largest request size.
pub const MAX_SIZE: u32 = 8 << 20;
/// Bytes each synchronous size reads (less on a small device).
pub const SYNC_BYTES: u64 = 64 * MIB;

/// The request sizes: powers of two from 4 KiB to 8 MiB, those at least a sector,
/// a whole number of sectors, and no larger than the device.
pub fn sizes(media_size: u64, sector_size: u32) -> Vec<u32> {
    let whole = media_size / u64::from(sector_size.max(1)) * u64::from(sector_size);
    std::iter::successors(Some(MIN_SIZE), |s| s.checked_mul(2))
        .take_while(|&s| s <= MAX_SIZE)
        .filter(|&s| s >= sector_size && s.is_multiple_of(sector_size) && u64::from(s) <= whole)
        .collect()
}

/// The synchronous phase of one size: an untimed read of sector 0, then
/// sequential reads of `size` bytes from offset 0, 64 MiB in all (or the device).
pub fn sync_phase(media_size: u64, sector_size: u32, size: u32) -> Phase {
    let whole = media_size / u64::from(sector_size) * u64::from(sector_size);
    let count = (SYNC_BYTES.min(whole) / u64::from(size)).max(1);
    Phase {
        id: PhaseId::SweepSync,
        setup: vec![Op::read_sectors(0, 1, sector_size)],
        ops: (0..count)
            .map(|i| Op {
                offset: i * u64::from(size),
                len: size,
                kind: OpKind::Read,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_run_from_4_kib_to_8_mib() {
        let s = sizes(1 << 40, 512);
        assert_eq!(s.len(), 12);
        assert_eq!((s[0], s[11]), (4096, 8 << 20));
        assert_eq!(sizes(1 << 40, 8192)[0], 8192);
        assert_eq!(sizes(3 << 20, 512).last(), Some(&(2 << 20)));
    }

    #[test]
    fn the_sync_phase_reads_64_mib_from_the_start_and_stays_inside() {
        let p = sync_phase(1 << 40, 512, 4096);
        assert_eq!(p.ops.len(), 16384);
        assert_eq!(p.timed_bytes(), 64 << 20);
        let small = sync_phase(10 << 20, 512, 8 << 20);
        assert_eq!(small.ops.len(), 1);
        assert!(small.ops[0].end() <= 10 << 20);
    }
}
