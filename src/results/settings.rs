//! The settings whose range matters to the engines, as types: a queue depth, the
//! passes of --verify, a block size and a sector size. Each is made once where its
//! value enters the program (config for the command line, the executor for the
//! device's sector size) and carried as it is to the plans and the engines, which
//! trust it: nothing downstream checks, clamps or floors it again.
//!
//! Constants of the program are made by `fixed`, whose range is asserted when the
//! program is compiled. Imports nothing: config, probe and engine all use these.

use std::num::NonZeroU32;

/// Whether `n` lies in `lo..=hi`, for the constructors and the compile-time
/// assertions alike.
const fn within(n: u32, lo: u32, hi: u32) -> bool {
    lo <= n && n <= hi
}

/// The largest queue depth: each request in flight has its own buffer (and, for the
/// thread pool, its own thread).
pub const MAX_QUEUE_DEPTH: u32 = 4096;

/// Requests kept in flight, 1..=[`MAX_QUEUE_DEPTH`] (`--queue-depth` for -i and
/// --block-sweep; the program's own depths for --scan and --verify).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct QueueDepth(NonZeroU32);

impl QueueDepth {
    /// diskinfo's depth, 128.
    pub const DISKINFO: QueueDepth = QueueDepth::fixed::<128>();

    /// The one check of a queue depth: `n` as a depth, or None outside
    /// 1..=[`MAX_QUEUE_DEPTH`]. Config calls it for `--queue-depth`.
    pub fn check_depth(n: u32) -> Option<QueueDepth> {
        if within(n, 1, MAX_QUEUE_DEPTH) {
            NonZeroU32::new(n).map(QueueDepth)
        } else {
            None
        }
    }

    /// A depth the program chose, `N` asserted in range at compile time.
    pub const fn fixed<const N: u32>() -> QueueDepth {
        const { assert!(within(N, 1, MAX_QUEUE_DEPTH), "a queue depth is 1..=4096") };
        match NonZeroU32::new(N) {
            Some(n) => QueueDepth(n),
            None => unreachable!(),
        }
    }

    /// A depth a unit test picks. Panics outside 1..=[`MAX_QUEUE_DEPTH`].
    #[cfg(test)]
    pub fn of(n: u32) -> QueueDepth {
        let depth = Some(n)
            .filter(|&n| within(n, 1, MAX_QUEUE_DEPTH))
            .and_then(NonZeroU32::new);
        QueueDepth(depth.unwrap_or_else(|| panic!("a test picked a queue depth of {n}")))
    }

    /// The depth as a plain number, 1..=[`MAX_QUEUE_DEPTH`].
    pub const fn get(self) -> u32 {
        self.0.get()
    }

    /// The number of slots (buffers, threads, entries) the engines keep.
    pub const fn slots(self) -> usize {
        self.0.get() as usize
    }
}

/// The most passes of --verify.
pub const MAX_PASSES: u32 = 1000;

/// Passes of --verify, 1..=[`MAX_PASSES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Passes(NonZeroU32);

impl Passes {
    /// One pass, the default.
    pub const ONE: Passes = Passes::fixed::<1>();

    /// `n` passes, or None outside 1..=[`MAX_PASSES`] (config's check of `--passes`).
    pub fn new(n: u32) -> Option<Passes> {
        if within(n, 1, MAX_PASSES) {
            NonZeroU32::new(n).map(Passes)
        } else {
            None
        }
    }

    /// A count the program chose, `N` asserted in range at compile time.
    pub const fn fixed<const N: u32>() -> Passes {
        const { assert!(within(N, 1, MAX_PASSES), "passes are 1..=1000") };
        match NonZeroU32::new(N) {
            Some(n) => Passes(n),
            None => unreachable!(),
        }
    }

    /// The passes as a plain number, 1..=[`MAX_PASSES`].
    pub const fn get(self) -> u32 {
        self.0.get()
    }
}

/// The largest block of --scan and --verify: one buffer per request in flight.
pub const MAX_BLOCK_SIZE: u32 = 64 << 20;

/// Bytes per read of --scan and per request of --verify (`--block-size`),
/// 1..=[`MAX_BLOCK_SIZE`]; the plans round it down to whole sectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockSize(NonZeroU32);

/// Why a number of bytes is no [`BlockSize`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadBlockSize {
    /// Zero bytes.
    Zero,
    /// More than [`MAX_BLOCK_SIZE`].
    TooLarge,
}

impl BlockSize {
    /// 1 MiB, the default.
    pub const MIB: BlockSize = BlockSize::fixed::<{ 1 << 20 }>();

    /// `bytes` as a block size (config's check of `--block-size`).
    pub fn new(bytes: u64) -> Result<BlockSize, BadBlockSize> {
        match u32::try_from(bytes) {
            Ok(0) => Err(BadBlockSize::Zero),
            Ok(n) if n <= MAX_BLOCK_SIZE => {
                NonZeroU32::new(n).map(BlockSize).ok_or(BadBlockSize::Zero)
            }
            _ => Err(BadBlockSize::TooLarge),
        }
    }

    /// A size the program chose, `N` asserted in range at compile time.
    pub const fn fixed<const N: u32>() -> BlockSize {
        const { assert!(within(N, 1, MAX_BLOCK_SIZE), "a block is 1 byte to 64 MiB") };
        match NonZeroU32::new(N) {
            Some(n) => BlockSize(n),
            None => unreachable!(),
        }
    }

    /// The bytes, which fit a request's length.
    pub const fn get(self) -> u32 {
        self.0.get()
    }

    /// The bytes, for offset arithmetic.
    pub const fn bytes(self) -> u64 {
        self.0.get() as u64
    }
}

/// A device's logical sector in bytes, never zero: what every offset and length of
/// a plan is a multiple of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SectorSize(NonZeroU32);

impl SectorSize {
    /// 512 bytes.
    pub const B512: SectorSize = SectorSize::fixed::<512>();
    /// 4096 bytes.
    pub const B4096: SectorSize = SectorSize::fixed::<4096>();

    /// The device's sector size, or None for a device that reports none (zero).
    pub fn new(bytes: u32) -> Option<SectorSize> {
        NonZeroU32::new(bytes).map(SectorSize)
    }

    /// A size the program chose, `N` asserted non-zero at compile time.
    pub const fn fixed<const N: u32>() -> SectorSize {
        const { assert!(N > 0, "a sector has bytes") };
        match NonZeroU32::new(N) {
            Some(n) => SectorSize(n),
            None => unreachable!(),
        }
    }

    /// The size in bytes as a plain number, never zero.
    pub const fn get(self) -> u32 {
        self.0.get()
    }

    /// The bytes, for offset arithmetic.
    pub const fn bytes(self) -> u64 {
        self.0.get() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constructor_takes_its_range_and_refuses_the_rest() {
        assert_eq!(QueueDepth::DISKINFO.get(), 128);
        assert_eq!(QueueDepth::fixed::<4096>().slots(), 4096);
        assert_eq!(Passes::new(1), Some(Passes::ONE));
        assert_eq!(Passes::new(1000).map(Passes::get), Some(1000));
        assert_eq!(Passes::new(0), None);
        assert_eq!(Passes::new(1001), None);
        assert_eq!(BlockSize::new(1 << 20), Ok(BlockSize::MIB));
        assert_eq!(BlockSize::new(0), Err(BadBlockSize::Zero));
        assert_eq!(BlockSize::new(64 << 20).map(BlockSize::bytes), Ok(64 << 20));
        assert_eq!(BlockSize::new((64 << 20) + 1), Err(BadBlockSize::TooLarge));
        assert_eq!(BlockSize::new(1 << 40), Err(BadBlockSize::TooLarge));
        assert_eq!(SectorSize::new(0), None);
        assert_eq!(SectorSize::new(4096), Some(SectorSize::B4096));
        assert_eq!(SectorSize::B512.bytes(), 512);
        assert_eq!(QueueDepth::of(4), QueueDepth::fixed::<4>());
    }
}
