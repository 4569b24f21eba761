//! The seek part of `-t`: diskinfo's five stroke patterns and two sequential runs of
//! one-sector reads.

use super::{Op, Phase, TooSmall};
use crate::results::settings::SectorSize;
use crate::results::test_kind::PhaseId;

/// The smallest media size -t accepts (diskinfo: 1 MiB).
pub const MIN_BYTES: u64 = super::MIB;
/// The fewest sectors -t accepts (diskinfo: 2048).
pub const MIN_SECTORS: u64 = 2048;
/// The largest stride, in sectors.
pub const MAX_STRIDE: u64 = 16384;

/// Check diskinfo's size limits for -t, naming the one that is not met.
pub fn check_size(media_size: u64, sector_size: SectorSize) -> Result<u64, TooSmall> {
    let sector_size = sector_size.get();
    let sectors = media_size / u64::from(sector_size);
    if media_size < MIN_BYTES {
        return Err(TooSmall(format!(
            "{media_size} bytes, under the 1 MiB ({MIN_BYTES} bytes) it needs"
        )));
    }
    if sectors < MIN_SECTORS {
        return Err(TooSmall(format!(
            "{sectors} sectors of {sector_size} bytes, fewer than the {MIN_SECTORS} it needs"
        )));
    }
    Ok(sectors)
}

/// The stride between seek reads: the largest power of two not above
/// sectors / 800, at most 16384 sectors. `sectors` must be at least 800.
pub fn stride(sectors: u64) -> u64 {
    let q = sectors / 800;
    debug_assert!(q >= 1);
    let pow = 1u64 << (63 - q.max(1).leading_zeros());
    pow.min(MAX_STRIDE)
}

/// The seven seek phases, in diskinfo's order.
pub fn phases(media_size: u64, sector_size: SectorSize) -> Result<Vec<Phase>, TooSmall> {
    let n = check_size(media_size, sector_size)?;
    let sector_size = sector_size.get();
    let step = stride(n);
    let read = |sector: u64| Op::read_sectors(sector, 1, sector_size);
    // Pairs: a moves by da, b by db (in units of `step`), `pairs` times.
    let pairs = |a0: u64, a_up: bool, b0: u64, b_up: bool, count: u64| -> Vec<Op> {
        (0..count)
            .flat_map(|i| {
                let a = if a_up { a0 + i * step } else { a0 - i * step };
                let b = if b_up { b0 + i * step } else { b0 - i * step };
                [read(a), read(b)]
            })
            .collect()
    };
    let run = |start: u64, delta: u64, forward: bool, count: u64| -> Vec<Op> {
        (0..count)
            .map(|i| {
                if forward {
                    read(start + i * delta)
                } else {
                    read(start - i * delta)
                }
            })
            .collect()
    };
    let phase = |id, ops| Phase {
        id,
        setup: Vec::new(),
        ops,
    };
    Ok(vec![
        phase(PhaseId::FullStroke, pairs(0, true, n - step, false, 125)),
        phase(
            PhaseId::HalfStroke,
            pairs(n / 4, true, n / 4 + n / 2, true, 125),
        ),
        phase(
            PhaseId::QuarterStroke,
            pairs(n / 4, true, n / 4 + n / 4, true, 250),
        ),
        phase(PhaseId::ShortForward, run(n / 2, step, true, 400)),
        phase(PhaseId::ShortBackward, run(n / 2, step, false, 400)),
        phase(PhaseId::SeqOuter, run(0, 1, true, 2048)),
        phase(PhaseId::SeqInner, run(n - 2048, 1, true, 2048)),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stride_is_the_largest_power_of_two_under_n_over_800_capped() {
        assert_eq!(stride(2048), 2);
        assert_eq!(stride(524_288), 512); // 256 MiB of 512-byte sectors
        assert_eq!(stride(3_907_029_168), 16384); // the published 2 TB drive
        assert_eq!(stride(800 * 1024), 1024);
        assert_eq!(stride(800 * 1024 - 1), 512);
    }

    #[test]
    fn patterns_follow_diskinfo() {
        let n = 524_288u64;
        let p = phases(n * 512, SectorSize::B512).unwrap();
        let sectors = |i: usize| -> Vec<u64> { p[i].ops.iter().map(|o| o.offset / 512).collect() };
        assert_eq!(
            p.iter().map(|ph| ph.ops.len()).collect::<Vec<_>>(),
            [250, 250, 500, 400, 400, 2048, 2048]
        );
        assert_eq!(&sectors(0)[..4], &[0, n - 512, 512, n - 1024]);
        assert_eq!(
            &sectors(1)[..4],
            &[n / 4, 3 * n / 4, n / 4 + 512, 3 * n / 4 + 512]
        );
        assert_eq!(&sectors(2)[..4], &[n / 4, n / 2, n / 4 + 512, n / 2 + 512]);
        assert_eq!(&sectors(3)[..2], &[n / 2, n / 2 + 512]);
        assert_eq!(sectors(4)[399], n / 2 - 399 * 512);
        assert_eq!(sectors(5)[2047], 2047);
        assert_eq!(sectors(6)[0], n - 2048);
        assert!(
            p.iter()
                .all(|ph| ph.setup.is_empty() && ph.ops.iter().all(|o| o.len == 512))
        );
    }

    #[test]
    fn each_size_limit_is_named() {
        assert!(
            phases(MIN_BYTES - 512, SectorSize::B512)
                .unwrap_err()
                .0
                .contains("under the 1 MiB")
        );
        // 4 MiB of 4096-byte sectors: 1024 sectors.
        assert!(
            phases(4 << 20, SectorSize::B4096)
                .unwrap_err()
                .0
                .contains("fewer than the 2048")
        );
        assert!(phases(MIN_BYTES, SectorSize::B512).is_ok());
    }
}
