//! The surface scan (`--scan`): every block of a byte range read once, in order.

use super::TooSmall;
use crate::results::settings::{BlockSize, ScanSpan, SectorSize};

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

/// Fit the checked `--start`, `--end` and `--block-size` to the device: the start
/// is rounded down and the end up to a sector (the end at most the last whole
/// sector), the block down to a whole number of sectors. Err when the span holds no
/// whole sector of the device or the block is less than one sector.
pub fn range(
    media_size: u64,
    sector_size: SectorSize,
    span: ScanSpan,
    block: BlockSize,
) -> Result<ScanRange, TooSmall> {
    let ss = sector_size.bytes();
    let whole = media_size / ss * ss;
    let start = span.start().unwrap_or(0) / ss * ss;
    let end = span.end().map_or(whole, |e| e.div_ceil(ss) * ss).min(whole);
    if start >= end {
        return Err(TooSmall(format!(
            "the scan range {start}..{end} is empty (the device has {whole} bytes in whole sectors)"
        )));
    }
    let block = block.bytes() / ss * ss;
    if block == 0 {
        return Err(TooSmall(format!(
            "a block of less than one {ss}-byte sector"
        )));
    }
    Ok(ScanRange { start, end, block })
}

/// The whole device of `media_size` bytes in 512-byte sectors, read in blocks of
/// `block` bytes: the range unit tests of the engines run on.
#[cfg(test)]
pub fn whole(media_size: u64, block: u64) -> ScanRange {
    let block = BlockSize::new(block).expect("a test picked a block size");
    range(media_size, SectorSize::B512, ScanSpan::WHOLE, block).expect("a test device")
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
        let span = |s, e| ScanSpan::new(s, e).unwrap();
        let block = |b| BlockSize::new(b).unwrap();
        let ss = SectorSize::B512;
        let r = range(10_000, ss, span(Some(1000), None), block(4096)).unwrap();
        assert_eq!((r.start, r.end, r.block), (512, 9728, 4096));
        let blocks: Vec<_> = r.blocks().collect();
        assert_eq!(blocks, [(512, 4096), (4608, 4096), (8704, 1024)]);
        assert_eq!(r.count(), 3);
        assert!(range(10_000, ss, span(Some(9728), None), block(4096)).is_err());
        assert!(range(10_000, ss, ScanSpan::WHOLE, block(100)).is_err());
        let first = range(10_000, ss, span(None, Some(1)), block(512)).unwrap();
        assert_eq!(first.end, 512);
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
