//! The surface scan (`--scan`): every block of a byte range read once, in order.

use super::TooSmall;
use crate::results::settings::BlockSize;

/// The block size unless `--block-size` says otherwise.
pub const DEFAULT_BLOCK: BlockSize = BlockSize::MIB;
/// Blocks at least this slow are listed, unless `--slow-ms` says otherwise.
pub const DEFAULT_SLOW_MS: f64 = 50.0;
/// The upper bounds of the latency buckets, in ms; the last bucket is open.
pub const BUCKET_LIMITS_MS: [u64; 5] = [3, 10, 50, 150, 500];

/// The bytes a scan covers, and its block size, all in whole sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanRange {
    /// First byte (a sector boundary).
    pub start: u64,
    /// Just past the last byte (a sector boundary).
    pub end: u64,
    /// Bytes per read (a whole number of sectors); the last read may be shorter.
    pub block: u64,
}

impl ScanRange {
    /// The blocks: (offset, length) of each read, in order.
    pub fn blocks(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let block = self.block;
        (self.start..self.end)
            .step_by(block as usize)
            .map(move |o| (o, block.min(self.end - o)))
    }
    /// How many reads the scan makes.
    pub fn count(&self) -> u64 {
        (self.end - self.start).div_ceil(self.block)
    }
}

/// Check and align `--start`, `--end` and `--block-size` against the device: the
/// start is rounded down and the end up to a sector (the end at most the last
/// whole sector), the block down to a whole number of sectors.
pub fn range(
    media_size: u64,
    sector_size: u32,
    start: Option<u64>,
    end: Option<u64>,
    block: u64,
) -> Result<ScanRange, TooSmall> {
    let ss = u64::from(sector_size);
    let whole = media_size / ss * ss;
    if let (Some(s), Some(e)) = (start, end)
        && e <= s
    {
        return Err(TooSmall(format!("--end {e} is not after --start {s}")));
    }
    let start = start.unwrap_or(0) / ss * ss;
    let end = end.map_or(whole, |e| e.div_ceil(ss) * ss).min(whole);
    if start >= end {
        return Err(TooSmall(format!(
            "the scan range {start}..{end} is empty (the device has {whole} bytes in whole sectors)"
        )));
    }
    let block = block / ss * ss;
    if block == 0 {
        return Err(TooSmall(format!(
            "a block of less than one {sector_size}-byte sector"
        )));
    }
    Ok(ScanRange { start, end, block })
}

/// The bucket index of a latency: 0 for < 3 ms … 5 for ≥ 500 ms.
pub fn bucket(latency_ns: u64) -> usize {
    BUCKET_LIMITS_MS
        .iter()
        .position(|&ms| latency_ns < ms * 1_000_000)
        .unwrap_or(BUCKET_LIMITS_MS.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_aligned_and_clamped() {
        let r = range(10_000, 512, Some(1000), None, 4096).unwrap();
        assert_eq!((r.start, r.end, r.block), (512, 9728, 4096));
        let blocks: Vec<_> = r.blocks().collect();
        assert_eq!(blocks, [(512, 4096), (4608, 4096), (8704, 1024)]);
        assert_eq!(r.count(), 3);
        assert!(range(10_000, 512, Some(9728), None, 4096).is_err());
        assert!(range(10_000, 512, None, None, 100).is_err());
        assert_eq!(range(10_000, 512, None, Some(1), 512).unwrap().end, 512);
    }

    #[test]
    fn buckets_follow_the_limits() {
        assert_eq!(bucket(0), 0);
        assert_eq!(bucket(2_999_999), 0);
        assert_eq!(bucket(3_000_000), 1);
        assert_eq!(bucket(149_999_999), 3);
        assert_eq!(bucket(500_000_000), 5);
    }
}
