//! The settings whose range matters to the engines, as types: a queue depth, the
//! passes of --verify, a block size, the span of --scan and --verify, the largest
//! deviation of --qualify and a sector size. Each is made once where its
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

/// Where --scan and --verify start and end on the device (`--start`, `--end`, in
/// bytes; none for the device's first byte or its end): the end after the start
/// when both are given. The plans round the start down and the end up to whole
/// sectors and keep the end within the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ScanSpan {
    start: Option<u64>,
    end: Option<u64>,
}

/// Why a start and an end are no [`ScanSpan`]: the end is not after the start
/// (both in bytes, as given).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndNotAfterStart {
    /// The start.
    pub start: u64,
    /// The end.
    pub end: u64,
}

impl ScanSpan {
    /// The whole device, the default.
    pub const WHOLE: ScanSpan = ScanSpan {
        start: None,
        end: None,
    };

    /// The one check of a span (config's of `--start` and `--end`): the end must be
    /// after the start when both are given.
    pub fn new(start: Option<u64>, end: Option<u64>) -> Result<ScanSpan, EndNotAfterStart> {
        match (start, end) {
            (Some(start), Some(end)) if end <= start => Err(EndNotAfterStart { start, end }),
            _ => Ok(ScanSpan { start, end }),
        }
    }

    /// The first byte asked for, if any.
    pub const fn start(self) -> Option<u64> {
        self.start
    }

    /// The byte just past the last one asked for, if any.
    pub const fn end(self) -> Option<u64> {
        self.end
    }
}

/// The largest relative deviation a figure may have from its reference under
/// --qualify, kept as a fraction (0.15 = 15%) from where --max-deviation's percent
/// enters the program to the judge: the one unit past the option.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
pub struct Deviation(f64);

impl Deviation {
    /// 15%, the default.
    pub const DEFAULT: Deviation = Deviation(0.15);

    /// The one check of `--max-deviation`, given in percent: above 0 and below
    /// 1000, or None.
    pub fn from_percent(percent: f64) -> Option<Deviation> {
        (percent.is_finite() && percent > 0.0 && percent < 1000.0)
            .then(|| Deviation(percent / 100.0))
    }

    /// The deviation as a fraction (0.15 = 15%), as figures are compared.
    pub const fn fraction(self) -> f64 {
        self.0
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
        assert_eq!(ScanSpan::new(None, None), Ok(ScanSpan::WHOLE));
        assert_eq!(
            ScanSpan::new(Some(5), Some(5)),
            Err(EndNotAfterStart { start: 5, end: 5 })
        );
        assert_eq!(
            ScanSpan::new(Some(5), Some(6)).map(ScanSpan::end),
            Ok(Some(6))
        );
        assert_eq!(Deviation::from_percent(15.0), Some(Deviation::DEFAULT));
        assert_eq!(
            Deviation::from_percent(0.5).map(Deviation::fraction),
            Some(0.005)
        );
        for bad in [0.0, -1.0, 1000.0, f64::NAN, f64::INFINITY] {
            assert_eq!(Deviation::from_percent(bad), None, "{bad}");
        }
    }

    proptest::proptest! {
        /// Each constructor refuses exactly what config refused before the types
        /// carried the checks: an end not after the start, a block of 0 or more
        /// than 64 MiB, a deviation not in (0, 1000) percent.
        #[test]
        fn constructors_refuse_what_config_refused(
            start in proptest::option::of(0u64..1 << 20),
            end in proptest::option::of(0u64..1 << 20),
            bytes in proptest::prop_oneof![0u64..=(MAX_BLOCK_SIZE as u64 + 2), proptest::num::u64::ANY],
            percent in proptest::prop_oneof![-10.0f64..1100.0, proptest::num::f64::ANY],
        ) {
            let refused = matches!((start, end), (Some(s), Some(e)) if e <= s);
            let span = ScanSpan::new(start, end);
            proptest::prop_assert_eq!(span.is_err(), refused);
            if let Ok(span) = span {
                proptest::prop_assert_eq!((span.start(), span.end()), (start, end));
            }
            let block = BlockSize::new(bytes);
            proptest::prop_assert_eq!(block.is_ok(), (1..=u64::from(MAX_BLOCK_SIZE)).contains(&bytes));
            if let Ok(b) = block {
                proptest::prop_assert_eq!(b.bytes(), bytes);
            }
            let ok = percent.is_finite() && percent > 0.0 && percent < 1000.0;
            let d = Deviation::from_percent(percent);
            proptest::prop_assert_eq!(d.is_some(), ok);
            if let Some(d) = d {
                proptest::prop_assert_eq!(d.fraction(), percent / 100.0);
            }
        }
    }
}
