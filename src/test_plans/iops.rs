//! The plan of diskinfo's `-i` test (asynchronous random reads): which request sizes
//! are measured, and a seeded, reproducible stream of random offsets.
//!
//! Offsets are uniform over every position of the whole device that is a multiple of
//! the request size and leaves the whole request inside the device's whole sectors
//! (`offset + len <= sectors * sector_size`). Unlike diskinfo, whose `random()` reaches
//! at most 2^31 request positions, the range is 64-bit.
//!
//! # The stream
//!
//! Request number `k` (0, 1, 2, …) of a run seeded with `seed` reads at
//! [`OffsetGen::offset`]`(k)`, a pure function of `(seed, k)`: with `n` request
//! positions, the position is drawn uniformly from `[0, n)` by `rand`'s `Uniform`
//! (exactly uniform, by rejection) with the generator
//! [`rng::seeded`]`(`[`rng::derive`]`(seed, k))`, and the offset is the position times
//! the request size. The generator is seekprobe's one seeded generator (PCG XSL-RR
//! 128/64, see [`crate::rng`]); a request's own generator is what makes its offset
//! independent of how many numbers the other requests' rejections used.
//!
//! The stream is the same on every platform, and it is pinned by a test. Because each
//! request's offset depends only on its number, engines that issue requests from
//! several threads share one atomic request counter and together read exactly the
//! offsets of a single stream.

use crate::results::settings::SectorSize;
use crate::rng;
use rand::distr::{Distribution, Uniform};
use std::fmt;

/// The request sizes diskinfo measures, apart from the sector size itself.
const FIXED_SIZES: [u32; 4] = [4096, 32 << 10, 128 << 10, 1024 << 10];

/// The request sizes of the `-i` test on a device of `media_size` bytes with
/// `sector_size`-byte logical sectors, in diskinfo's order: the sector size, 4 KiB,
/// 32 KiB, 128 KiB and 1024 KiB.
///
/// A size equal to one already listed (4 KiB on a 4096-byte-sector device, as diskinfo
/// skips it), smaller than the sector size or not a multiple of it is skipped, and so
/// is any size larger than the device's whole sectors. A device smaller than one
/// sector gets no size at all.
pub fn sizes(media_size: u64, sector_size: SectorSize) -> Vec<u32> {
    let whole = whole_bytes(media_size, sector_size);
    let sector_size = sector_size.get();
    let mut out = Vec::with_capacity(1 + FIXED_SIZES.len());
    for len in std::iter::once(sector_size).chain(FIXED_SIZES) {
        let fits = u64::from(len) <= whole;
        if len >= sector_size && len.is_multiple_of(sector_size) && fits && !out.contains(&len) {
            out.push(len);
        }
    }
    out
}

/// The bytes of the device's whole sectors.
fn whole_bytes(media_size: u64, sector_size: SectorSize) -> u64 {
    let ss = sector_size.bytes();
    media_size / ss * ss
}

/// Why no offsets can be generated for a request size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest(pub String);

impl fmt::Display for BadRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadRequest {}

/// The seed of the offset stream for the `index`-th request size of a run seeded
/// with `seed` (each size of -i and -S gets its own stream).
pub fn stream_seed(seed: u64, index: usize) -> u64 {
    rng::derive(seed, index as u64)
}

/// A seeded generator of random, size-aligned read offsets inside a device.
///
/// [`OffsetGen::offset`] gives request `k`'s offset without state;
/// [`OffsetGen::next_offset`] walks the stream `k = 0, 1, 2, …`.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    /// Request `k`'s generator is seeded with `key + k` (wrapping), which is
    /// `rng::derive(seed, k)`.
    key: u64,
    /// Uniform over the request positions.
    pick: Uniform<u64>,
    len: u32,
    positions: u64,
    next: u64,
    sequential: bool,
    /// Where a sequential stream starts.
    base: u64,
}

impl OffsetGen {
    /// Offsets for `len`-byte reads on a device of `media_size` bytes with
    /// `sector_size`-byte sectors, seeded with `seed`. Fails when `len` is zero, not a
    /// multiple of the sector size, or larger than the device's whole sectors.
    pub fn new(
        seed: u64,
        media_size: u64,
        sector_size: SectorSize,
        len: u32,
    ) -> Result<Self, BadRequest> {
        if len == 0 || !len.is_multiple_of(sector_size.get()) {
            return Err(BadRequest(format!(
                "a request of {len} bytes is not a whole number of {}-byte sectors",
                sector_size.get()
            )));
        }
        let whole = whole_bytes(media_size, sector_size);
        let positions = whole / u64::from(len);
        if positions == 0 {
            return Err(BadRequest(format!(
                "a request of {len} bytes does not fit in a device of {whole} bytes"
            )));
        }
        let pick = Uniform::new(0, positions).map_err(|e| BadRequest(e.to_string()))?;
        Ok(OffsetGen {
            key: rng::derive(seed, 0),
            pick,
            len,
            positions,
            next: 0,
            sequential: false,
            base: 0,
        })
    }

    /// Sequential offsets instead, from `start` (a multiple of `len`): request `k`
    /// reads position `k` after it, wrapping back to `start` at the end of the
    /// device; for the block sweep's queued reads.
    pub fn sequential(
        media_size: u64,
        sector_size: SectorSize,
        len: u32,
        start: u64,
    ) -> Result<Self, BadRequest> {
        let whole = whole_bytes(media_size, sector_size);
        let mut g = OffsetGen::new(0, whole.saturating_sub(start), sector_size, len)?;
        g.sequential = true;
        g.base = start;
        Ok(g)
    }

    /// Bytes per request, a whole number of sectors; every offset is a multiple of it.
    pub fn request_len(&self) -> u32 {
        self.len
    }

    /// The number of distinct request positions (offsets) the stream chooses from.
    pub fn positions(&self) -> u64 {
        self.positions
    }

    /// The byte offset of request number `k` of the stream.
    pub fn offset(&self, k: u64) -> u64 {
        let n = self.positions;
        if self.sequential {
            return self.base + (k % n) * u64::from(self.len);
        }
        let mut g = rng::seeded(self.key.wrapping_add(k));
        self.pick.sample(&mut g) * u64::from(self.len)
    }

    /// The offset of the next request of the stream.
    pub fn next_offset(&mut self) -> u64 {
        let o = self.offset(self.next);
        self.next += 1;
        o
    }

    /// How many offsets [`OffsetGen::next_offset`] has given.
    pub fn issued(&self) -> u64 {
        self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Build a `SectorSize` from bytes known to be valid.
    fn ss(bytes: u32) -> SectorSize {
        SectorSize::new(bytes).unwrap()
    }

    #[test]
    fn the_stream_is_pinned() {
        // Any change here changes every recorded seed's offsets (as the move from a
        // hand-written SplitMix64 to crate::rng did once): don't.
        let g = OffsetGen::new(42, 2_000_398_934_016, ss(512), 4096).unwrap();
        let got: Vec<u64> = (0..4).map(|k| g.offset(k)).collect();
        assert_eq!(got, PINNED);
        // The stateful walk is the same stream.
        let mut h = g.clone();
        let walked: Vec<u64> = (0..4).map(|_| h.next_offset()).collect();
        assert_eq!(walked, PINNED);
        assert_eq!(h.issued(), 4);
    }

    // Computed independently of rand (a few lines of Python following the definitions
    // in crate::rng's documentation and Lemire's rejection).
    const PINNED: [u64; 4] = [
        1_245_812_359_168,
        1_163_139_633_152,
        1_831_454_949_376,
        1_386_482_700_288,
    ];

    #[test]
    fn sizes_follow_diskinfo() {
        let big = 1u64 << 40;
        assert_eq!(sizes(big, ss(512)), [512, 4096, 32768, 131072, 1048576]);
        assert_eq!(sizes(big, ss(4096)), [4096, 32768, 131072, 1048576]);
        assert_eq!(sizes(big, ss(8192)), [8192, 32768, 131072, 1048576]);
        assert_eq!(sizes(big, ss(65536)), [65536, 131072, 1048576]);
        // 520-byte sectors: no fixed size is a multiple.
        assert_eq!(sizes(big, ss(520)), [520]);
        // Sizes larger than the whole sectors are skipped.
        assert_eq!(sizes(100_000, ss(512)), [512, 4096, 32768]);
        assert_eq!(sizes(1 << 20, ss(512)), [512, 4096, 32768, 131072, 1048576]);
        assert_eq!(sizes((1 << 20) - 1, ss(512)), [512, 4096, 32768, 131072]);
        assert_eq!(sizes(4095, ss(4096)), Vec::<u32>::new());
        assert_eq!(sizes(511, ss(512)), Vec::<u32>::new());
    }

    #[test]
    fn bad_requests_are_refused() {
        assert!(OffsetGen::new(1, 1 << 30, ss(4096), 512).is_err());
        assert!(OffsetGen::new(1, 1 << 30, ss(512), 0).is_err());
        assert!(OffsetGen::new(1, 1 << 30, ss(512), 1000).is_err());
        assert!(OffsetGen::new(1, 4095, ss(512), 4096).is_err());
        assert!(OffsetGen::new(1, 4096, ss(512), 4096).is_ok());
    }

    #[test]
    fn a_device_of_one_request_always_reads_at_zero() {
        let mut g = OffsetGen::new(7, 4096 + 4095, ss(4096), 4096).unwrap();
        assert_eq!(g.positions(), 1);
        assert!((0..1000).all(|_| g.next_offset() == 0));
    }

    #[test]
    fn offsets_reach_beyond_two_to_the_31_requests() {
        // diskinfo's random() cap: 2^31 positions. A 2^50-byte device has 2^41.
        let g = OffsetGen::new(3, 1 << 50, ss(512), 512).unwrap();
        let beyond = (0..10_000)
            .filter(|&k| g.offset(k) / 512 >= 1 << 31)
            .count();
        // Uniform: all but a fraction 2^-10 lie beyond.
        assert!(beyond > 9_900, "{beyond}");
    }

    #[test]
    fn offsets_are_spread_uniformly() {
        // 16 equal bins over 1 GiB of 4 KiB requests: each within 10% of the mean.
        let g = OffsetGen::new(11, 1 << 30, ss(512), 4096).unwrap();
        let mut bins = [0u32; 16];
        let n = 160_000u64;
        for k in 0..n {
            bins[(g.offset(k) >> 26) as usize] += 1;
        }
        for b in bins {
            assert!((9_000..=11_000).contains(&b), "{bins:?}");
        }
    }

    #[test]
    fn rejection_keeps_offsets_inside_for_huge_position_counts() {
        // n close to 2^64 / len makes rejections likely enough to be exercised.
        let media = u64::MAX;
        let g = OffsetGen::new(5, media, ss(512), 512).unwrap();
        let whole = media / 512 * 512;
        for k in 0..10_000 {
            let o = g.offset(k);
            assert_eq!(o % 512, 0);
            assert!(o + 512 <= whole);
        }
    }

    proptest! {
        #[test]
        fn every_offset_is_aligned_and_inside(
            seed in any::<u64>(),
            sectors in 1u64..(1u64 << 41),
            extra in 0u64..4096,
            big in proptest::bool::ANY,
            which in 0usize..5,
        ) {
            let s = if big { SectorSize::B4096 } else { SectorSize::B512 };
            let media = sectors * s.bytes() + extra % s.bytes();
            let whole = sectors * s.bytes();
            let all = sizes(media, s);
            prop_assume!(which < all.len());
            let len = all[which];
            let mut g = OffsetGen::new(seed, media, s, len).unwrap();
            for _ in 0..200 {
                let o = g.next_offset();
                prop_assert_eq!(o % u64::from(len), 0);
                prop_assert!(o + u64::from(len) <= whole, "{} + {} > {}", o, len, whole);
            }
        }

        #[test]
        fn the_same_seed_gives_the_same_stream(
            seed in any::<u64>(),
            media in (1u64 << 20)..(1u64 << 50),
        ) {
            let mut a = OffsetGen::new(seed, media, ss(512), 4096).unwrap();
            let mut b = OffsetGen::new(seed, media, ss(512), 4096).unwrap();
            for _ in 0..100 {
                prop_assert_eq!(a.next_offset(), b.next_offset());
            }
            let c = OffsetGen::new(seed ^ 1, media, ss(512), 4096).unwrap();
            let differ = (0..100).filter(|&k| c.offset(k) != a.offset(k)).count();
            prop_assert!(differ > 90);
        }
    }
}
