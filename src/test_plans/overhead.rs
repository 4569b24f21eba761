//! `-c`: command overhead. Ten sequential 1 MiB reads, then 20480 reads of sector 0,
//! each after an untimed read of sector 0.

use super::{MIB, Op, Phase, TooSmall};
use crate::results::settings::SectorSize;
use crate::results::test_kind::PhaseId;

/// The number of one-sector reads timed by -c.
pub const SECTOR_READS: u32 = 20480;
/// The number of 1 MiB reads timed by -c.
pub const MEGA_READS: u64 = 10;

/// The two phases of -c. The 1 MiB reads follow sector 0 directly, so the device
/// needs 10 MiB plus one sector.
pub fn phases(media_size: u64, sector_size: SectorSize) -> Result<Vec<Phase>, TooSmall> {
    let sector_size = sector_size.get();
    let ss = u64::from(sector_size);
    let need = MEGA_READS * MIB + ss;
    if media_size / ss * ss < need {
        return Err(TooSmall(format!(
            "{media_size} bytes, under the 10 MiB plus one sector ({need} bytes) it reads"
        )));
    }
    let per_mib = MIB / ss;
    let sector0 = Op::read_sectors(0, 1, sector_size);
    Ok(vec![
        Phase {
            id: PhaseId::OverheadMega,
            setup: vec![sector0],
            ops: (0..MEGA_READS)
                .map(|i| Op::read_sectors(1 + i * per_mib, per_mib as u32, sector_size))
                .collect(),
        },
        Phase {
            id: PhaseId::OverheadSector,
            setup: vec![sector0],
            ops: vec![sector0; SECTOR_READS as usize],
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_follow_diskinfo() {
        let p = phases(256 * MIB, SectorSize::B512).unwrap();
        assert_eq!(p[0].ops.len(), 10);
        assert_eq!(p[0].ops[0].offset, 512);
        assert_eq!(p[0].ops[9].end(), 512 + 10 * MIB);
        assert_eq!(p[1].ops.len(), 20480);
        assert!(p[1].ops.iter().all(|o| o.offset == 0 && o.len == 512));
    }

    #[test]
    fn too_small_is_explained() {
        let e = phases(10 * MIB, SectorSize::B512).unwrap_err();
        assert!(e.0.contains("10 MiB plus one sector"), "{}", e.0);
        assert!(phases(10 * MIB + 512, SectorSize::B512).is_ok());
    }
}
