//! Pure plans: which operations a test performs, as functions of the device's size
//! and sector size alone. No I/O, no clock.
//!
//! Every test has a [`Plan`] ([`plan`]): its lines, each a list of [`Step`]s (sync
//! phases, queued reads, flushed writes, seek pairs, a scan range). A [`Phase`] has
//! untimed setup operations (diskinfo's positioning reads) and the timed operations,
//! in order.

pub mod capacity;
pub mod iops;
pub mod overhead;
mod plan;
pub mod scan;
pub mod seek;
pub mod seek_profile;
pub mod smr;
pub mod sweep;
pub mod sync_write;
pub mod transfer;
pub mod zones;

pub use plan::{Line, Options, PairsKind, Plan, ProbeSet, QueuedStep, Step, Stream, plan};

use serde::{Deserialize, Serialize};

/// One mebibyte, diskinfo's transfer unit.
pub const MIB: u64 = 1 << 20;

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// A positioned read.
    Read,
    /// A positioned write (only with -w, after the safety checks).
    Write,
}

/// One positioned operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Op {
    /// Byte offset, a multiple of the logical sector size.
    pub offset: u64,
    /// Length in bytes, a multiple of the logical sector size.
    pub len: u32,
    /// What it does.
    pub kind: OpKind,
}

impl Op {
    /// A read of `count` sectors starting at sector `sector`.
    pub fn read_sectors(sector: u64, count: u32, sector_size: u32) -> Op {
        Op {
            offset: sector * u64::from(sector_size),
            len: count * sector_size,
            kind: OpKind::Read,
        }
    }
    /// The byte just past this operation.
    pub fn end(&self) -> u64 {
        self.offset + u64::from(self.len)
    }
}

/// A test, as selected on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    /// `-c`: I/O command overhead.
    CommandOverhead,
    /// `-t`: seek times and transfer rates.
    SeekTransfer,
    /// `-i`: asynchronous random reads.
    RandomReads,
    /// `-S`: synchronous random writes, each flushed.
    SyncWrite,
    /// `--zones`: the sequential read rate over the whole device.
    Zones,
    /// `--seek-profile`: access time over seek distance, and the rotation rate.
    SeekProfile,
    /// `--scan`: a read-only surface scan.
    Scan,
    /// `--block-sweep`: sequential reads by request size, one at a time and queued.
    BlockSweep,
    /// `--verify` (-w): every block written with stamps, read back and checked.
    Verify,
    /// `--capacity-check` (with -w): stamped probe blocks read back, to find a
    /// drive that stores less than it reports.
    CapacityCheck,
    /// `--smr-check`: sustained random writes, looking for a hidden-SMR collapse.
    SmrCheck,
}

impl TestKind {
    /// Whether the test writes when -w is given (-S always does; --zones and
    /// --block-sweep add their write halves).
    pub fn may_write(self) -> bool {
        matches!(
            self,
            TestKind::SyncWrite
                | TestKind::Zones
                | TestKind::BlockSweep
                | TestKind::Verify
                | TestKind::CapacityCheck
                | TestKind::SmrCheck
        )
    }

    /// The test's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            TestKind::CommandOverhead => "command overhead (-c)",
            TestKind::SeekTransfer => "seek and transfer (-t)",
            TestKind::RandomReads => "random reads (-i)",
            TestKind::SyncWrite => "synchronous writes (-S)",
            TestKind::Zones => "zone curve (--zones)",
            TestKind::SeekProfile => "seek profile (--seek-profile)",
            TestKind::Scan => "surface scan (--scan)",
            TestKind::BlockSweep => "block sweep (--block-sweep)",
            TestKind::Verify => "write and verify (--verify)",
            TestKind::CapacityCheck => "capacity check (--capacity-check)",
            TestKind::SmrCheck => "hidden-SMR check (--smr-check)",
        }
    }
}

/// A named, separately timed part of a test (one line of diskinfo's output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseId {
    /// 250 alternating one-sector reads at both ends of the device.
    FullStroke,
    /// 250 alternating reads half the device apart.
    HalfStroke,
    /// 500 alternating reads a quarter of the device apart.
    QuarterStroke,
    /// 400 reads one stride apart, forward from the middle.
    ShortForward,
    /// 400 reads one stride apart, backward from the middle.
    ShortBackward,
    /// 2048 consecutive one-sector reads from sector 0.
    SeqOuter,
    /// 2048 consecutive one-sector reads ending at the last sector.
    SeqInner,
    /// Sequential 1 MiB reads at the start of the device.
    Outside,
    /// Sequential 1 MiB reads around the middle.
    Middle,
    /// Sequential 1 MiB reads ending at the end.
    Inside,
    /// `-c`: ten sequential 1 MiB reads.
    OverheadMega,
    /// `-c`: 20480 reads of sector 0.
    OverheadSector,
    /// `-i`: random reads of one size, many in flight.
    RandomRead,
    /// `-S`: random writes of one size, each followed by a flush.
    SyncWrite,
    /// `--zones`: one sample of the zone curve.
    Zone,
    /// `--block-sweep`: sequential reads of one size, one at a time.
    SweepSync,
    /// `--block-sweep`: sequential reads of one size, queued.
    SweepQueued,
    /// `--zones` with -w: one write sample of the zone curve.
    ZoneWrite,
    /// `--block-sweep` with -w: sequential writes of one size, one at a time.
    SweepWrite,
}

impl PhaseId {
    /// A short human name, used in messages ("Full stroke", "outside", ...).
    pub fn name(self) -> &'static str {
        match self {
            PhaseId::FullStroke => "Full stroke",
            PhaseId::HalfStroke => "Half stroke",
            PhaseId::QuarterStroke => "Quarter stroke",
            PhaseId::ShortForward => "Short forward",
            PhaseId::ShortBackward => "Short backward",
            PhaseId::SeqOuter => "Seq outer",
            PhaseId::SeqInner => "Seq inner",
            PhaseId::Outside => "Transfer outside",
            PhaseId::Middle => "Transfer middle",
            PhaseId::Inside => "Transfer inside",
            PhaseId::OverheadMega => "Overhead 10MB block",
            PhaseId::OverheadSector => "Overhead 20480 sectors",
            PhaseId::RandomRead => "Random reads",
            PhaseId::SyncWrite => "Synchronous writes",
            PhaseId::Zone => "Zone sample",
            PhaseId::SweepSync => "Sweep, one at a time",
            PhaseId::SweepQueued => "Sweep, queued",
            PhaseId::ZoneWrite => "Zone write sample",
            PhaseId::SweepWrite => "Sweep, writes",
        }
    }
}

/// One timed phase: untimed setup operations, then the timed operations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// Which phase.
    pub id: PhaseId,
    /// Untimed operations run before the pause and the timing start.
    pub setup: Vec<Op>,
    /// The timed operations, in order.
    pub ops: Vec<Op>,
}

impl Phase {
    /// All operations of the phase, setup first.
    pub fn all_ops(&self) -> impl Iterator<Item = &Op> {
        self.setup.iter().chain(self.ops.iter())
    }
    /// The same phase with its timed operations turned into writes, as `id` (the
    /// write half of --zones and --block-sweep with -w). The setup stays reads.
    pub fn as_writes(&self, id: PhaseId) -> Phase {
        let mut p = self.clone();
        p.id = id;
        p.ops.iter_mut().for_each(|op| op.kind = OpKind::Write);
        p
    }

    /// Total bytes of the timed operations.
    pub fn timed_bytes(&self) -> u64 {
        self.ops.iter().map(|o| u64::from(o.len)).sum()
    }
}

/// Why a device is too small for a test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooSmall(pub String);

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const ALL: [TestKind; 11] = [
        TestKind::CommandOverhead,
        TestKind::SeekTransfer,
        TestKind::RandomReads,
        TestKind::SyncWrite,
        TestKind::Zones,
        TestKind::SeekProfile,
        TestKind::Scan,
        TestKind::BlockSweep,
        TestKind::Verify,
        TestKind::CapacityCheck,
        TestKind::SmrCheck,
    ];

    fn with_writes() -> Options {
        Options {
            write: true,
            ..Options::default()
        }
    }

    #[test]
    fn every_test_has_a_plan_on_a_large_device() {
        for test in ALL {
            let p = plan(test, 1 << 40, 512, &with_writes()).unwrap();
            assert!(!p.lines.is_empty(), "{test:?}");
            check_inside_and_aligned(&p, 1 << 40, 512);
        }
    }

    #[test]
    fn a_tiny_device_is_too_small_for_each_test_with_a_reason() {
        // Two sectors: the tests that work block by block still fit; the others
        // say why not.
        let fits = [
            TestKind::RandomReads,
            TestKind::SyncWrite,
            TestKind::Scan,
            TestKind::Verify,
            TestKind::CapacityCheck,
        ];
        for test in ALL {
            match plan(test, 1024, 512, &with_writes()) {
                Err(TooSmall(why)) => {
                    assert!(!fits.contains(&test), "{test:?}: {why}");
                    assert!(!why.is_empty(), "{test:?}");
                }
                Ok(p) => {
                    assert!(fits.contains(&test), "{test:?} planned on 1024 bytes");
                    check_inside_and_aligned(&p, 1024, 512);
                }
            }
        }
        assert!(plan(TestKind::BlockSweep, 2048, 512, &Options::default()).is_err());
        assert!(plan(TestKind::SeekProfile, 1024, 512, &Options::default()).is_err());
    }

    fn check_inside_and_aligned(p: &Plan, media: u64, ss: u32) {
        let limit = media / u64::from(ss) * u64::from(ss);
        let ops = p
            .ops(media, ss)
            .expect("every stream of a plan fits its device");
        assert!(!ops.is_empty(), "{:?} names no operation", p.test);
        for op in ops {
            assert_eq!(op.offset % u64::from(ss), 0, "{:?} {op:?}", p.test);
            assert_eq!(op.len % ss, 0, "{:?} {op:?}", p.test);
            assert!(op.len > 0);
            assert!(op.end() <= limit, "{:?} {op:?} past {limit}", p.test);
        }
    }

    proptest! {
        #[test]
        fn every_op_is_aligned_and_inside(
            sectors in 2048u64..(1u64 << 41),
            extra in 0u64..4096,
            big in proptest::bool::ANY,
            test in proptest::sample::select(ALL.to_vec()),
        ) {
            let ss: u32 = if big { 4096 } else { 512 };
            let media = sectors * u64::from(ss) + extra % u64::from(ss);
            if let Ok(p) = plan(test, media, ss, &with_writes()) {
                check_inside_and_aligned(&p, media, ss);
            }
        }
    }

    #[test]
    fn a_two_to_the_fifty_byte_device_plans_without_overflow() {
        for ss in [512u32, 4096] {
            for test in [TestKind::SeekTransfer, TestKind::CommandOverhead] {
                let p = plan(test, 1u64 << 50, ss, &Options::default()).unwrap();
                check_inside_and_aligned(&p, 1 << 50, ss);
            }
        }
    }

    #[test]
    fn small_odd_sizes_are_planned_inside() {
        for media in [
            MIB,
            MIB + 1,
            MIB + 511,
            3 * MIB - 1,
            100 * MIB,
            101 * MIB + 7,
            256 * MIB,
        ] {
            for ss in [512u32, 4096] {
                for test in ALL {
                    if let Ok(p) = plan(test, media, ss, &with_writes()) {
                        check_inside_and_aligned(&p, media, ss);
                    }
                }
            }
        }
    }
}
