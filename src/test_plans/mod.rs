//! Pure plans: which operations a test performs, as functions of the device's size
//! and sector size alone. No I/O, no clock.
//!
//! Every test has a [`Plan`] ([`plan`]): its lines, each a list of [`PlanStep`]s (sync
//! phases, queued reads, flushed writes, seek pairs, a scan range). A [`Phase`] has
//! untimed setup operations (diskinfo's positioning reads) and the timed operations,
//! in order.

pub mod capacity;
pub mod iops;
mod options;
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

use crate::results::test_kind::PhaseId;
pub use options::Options;
pub use plan::{Line, PairsKind, Plan, PlanStep, ProbeSet, QueuedStep, Stream, VERIFY_DEPTH, plan};

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
    use crate::results::settings::SectorSize;
    use crate::results::test_kind::TestKind;
    use proptest::prelude::*;

    const S512: SectorSize = SectorSize::B512;

    /// The tests a drive's sequence plans (not the path check, run across the
    /// drives).
    fn all() -> Vec<TestKind> {
        (TestKind::ALL.into_iter())
            .filter(|t| !t.row().together)
            .collect()
    }

    fn with_writes() -> Options {
        Options {
            write: true,
            ..Options::default()
        }
    }

    #[test]
    fn every_test_has_a_plan_on_a_large_device() {
        for test in all() {
            let p = plan(test, 1 << 40, S512, &with_writes()).unwrap();
            assert!(!p.lines.is_empty(), "{test:?}");
            check_inside_and_aligned(&p, 1 << 40, S512);
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
        for test in all() {
            match plan(test, 1024, S512, &with_writes()) {
                Err(TooSmall(why)) => {
                    assert!(!fits.contains(&test), "{test:?}: {why}");
                    assert!(!why.is_empty(), "{test:?}");
                }
                Ok(p) => {
                    assert!(fits.contains(&test), "{test:?} planned on 1024 bytes");
                    check_inside_and_aligned(&p, 1024, S512);
                }
            }
        }
        assert!(plan(TestKind::BlockSweep, 2048, S512, &Options::default()).is_err());
        assert!(plan(TestKind::SeekProfile, 1024, S512, &Options::default()).is_err());
    }

    fn check_inside_and_aligned(p: &Plan, media: u64, s: SectorSize) {
        let ss = s.get();
        let limit = media / u64::from(ss) * u64::from(ss);
        let ops = p
            .ops(media, s)
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
            test in proptest::sample::select(all()),
        ) {
            let ss = if big { SectorSize::B4096 } else { S512 };
            let media = sectors * ss.bytes() + extra % ss.bytes();
            if let Ok(p) = plan(test, media, ss, &with_writes()) {
                check_inside_and_aligned(&p, media, ss);
            }
        }
    }

    #[test]
    fn a_two_to_the_fifty_byte_device_plans_without_overflow() {
        for ss in [S512, SectorSize::B4096] {
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
            for ss in [S512, SectorSize::B4096] {
                for test in all() {
                    if let Ok(p) = plan(test, media, ss, &with_writes()) {
                        check_inside_and_aligned(&p, media, ss);
                    }
                }
            }
        }
    }
}
