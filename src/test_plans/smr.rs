//! The hidden-SMR behaviour test's plan (`--smr-check`, with -w): sustained random
//! writes over the whole device at queue depth 1, each completion timed, until the
//! signature of a drive-managed SMR media cache shows or the budget of bytes and time
//! runs out; then an idle period probed with reads. Pure: offsets come from
//! [`crate::rng`], aligned and inside the device. docs/methods.md ("Hidden SMR") gives
//! the reasons for every figure.

use super::{Op, OpKind};
use crate::results::settings::SectorSize;
use crate::results::smr::Budget;
use crate::rng::{self, Rng};

/// The request sizes, drawn uniformly: 128 KiB (ZFS's default record, the size of
/// the writes that made DM-SMR drives fail resilvers) to 1 MiB (large records and
/// aggregated resilver I/O), so that a conventional drive still writes tens of GiB
/// within the time budget.
pub const SIZES: [u32; 4] = [128 << 10, 256 << 10, 512 << 10, 1 << 20];
/// One write at a time: each completion is timed on its own, and a DM-SMR drive's
/// media cache absorbs random writes at any depth.
pub const QUEUE_DEPTH: u32 = 1;
/// Offsets are multiples of this (a 4 KiB physical sector), or of the logical
/// sector when it is larger.
pub const ALIGN: u64 = 4096;
/// Default budget of bytes: more than the largest media cache published (25 GiB,
/// Skylight's ST8000AS0002) with room to see the collapse.
pub const DEFAULT_BUDGET_BYTES: u64 = 40 << 30;
/// Default budget of time: 30 minutes, enough for a conventional 5400 rpm drive to
/// write the byte budget in random requests of these sizes (about 35 MB/s).
pub const DEFAULT_BUDGET_S: f64 = 1800.0;
/// The idle period after the writes, before the read probes: longer than the idle
/// time after which DM-SMR drives start cleaning their cache.
pub const IDLE_S: f64 = 5.0;
/// The read probes before the writes (the baseline) and after the idle period.
pub const PROBES: usize = 20;
/// The pause before each post-idle probe, so the drive goes back to cleaning
/// between probes.
pub const PROBE_SPACING_S: f64 = 2.0;
/// Each probe reads this much (one 4 KiB physical sector, or a logical sector).
pub const PROBE_BYTES: u32 = 4096;

impl Default for Budget {
    fn default() -> Self {
        Budget {
            bytes: DEFAULT_BUDGET_BYTES,
            seconds: DEFAULT_BUDGET_S,
        }
    }
}

/// The endless stream of random writes (the executor stops it at the budget or at
/// the signature): sizes from [`SIZES`], offsets uniform over the device, aligned.
#[derive(Debug, Clone, PartialEq)]
pub struct SmrWrites {
    rng: Rng,
    media: u64,
    align: u64,
}

impl Iterator for SmrWrites {
    type Item = Op;

    fn next(&mut self) -> Option<Op> {
        let len = SIZES[rng::below(&mut self.rng, SIZES.len() as u64) as usize];
        let len = u64::from(len).min(self.media / self.align * self.align);
        let slots = (self.media - len) / self.align + 1;
        Some(Op {
            offset: rng::below(&mut self.rng, slots) * self.align,
            len: len as u32,
            kind: OpKind::Write,
        })
    }
}

/// The plan for a device of `media_size` bytes: its writes and its read probes. None
/// when the device is smaller than the largest request.
#[derive(Debug, Clone)]
pub struct SmrPlan {
    /// The writes, endless.
    pub writes: SmrWrites,
    /// The read probes, at the same offsets before the writes and after the idle
    /// period.
    pub probes: Vec<Op>,
}

/// The plan for a device of `media_size` bytes with `sector_size`-byte sectors and
/// the run's `seed` (sub-stream 0 draws the writes, 1 the probes).
pub fn plan(media_size: u64, sector_size: SectorSize, seed: u64) -> Option<SmrPlan> {
    let ss = sector_size.bytes();
    let align = ALIGN.max(ss).next_multiple_of(ss);
    let media = media_size / ss * ss;
    if media < u64::from(SIZES[SIZES.len() - 1]).max(align) {
        return None;
    }
    let mut g = rng::seeded(rng::derive(seed, 1));
    let probe = u64::from(PROBE_BYTES).max(ss);
    let slots = (media - probe) / align + 1;
    let probes = (0..PROBES)
        .map(|_| Op {
            offset: rng::below(&mut g, slots) * align,
            len: probe as u32,
            kind: OpKind::Read,
        })
        .collect();
    Some(SmrPlan {
        writes: SmrWrites {
            rng: rng::seeded(rng::derive(seed, 0)),
            media,
            align,
        },
        probes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_op_is_aligned_and_inside(
            sectors in 2048u64..(1u64 << 41),
            extra in 0u64..4096,
            big in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let s = if big { SectorSize::B4096 } else { SectorSize::B512 };
            let ss = s.get();
            let media = sectors * u64::from(ss) + extra % u64::from(ss);
            if let Some(p) = plan(media, s, seed) {
                for op in p.writes.take(200).chain(p.probes) {
                    prop_assert_eq!(op.offset % 4096, 0);
                    prop_assert_eq!(op.len % ss, 0);
                    prop_assert!(op.len > 0);
                    prop_assert!(op.end() <= media / u64::from(ss) * u64::from(ss), "{:?}", op);
                }
            } else {
                prop_assert!(media < 1 << 20);
            }
        }
    }

    #[test]
    fn writes_cover_the_device_with_every_size_and_are_reproducible() {
        let media = 8_001_563_222_016u64;
        let p = plan(media, SectorSize::B512, 7).unwrap();
        let ops: Vec<Op> = p.writes.clone().take(4000).collect();
        assert_eq!(
            ops,
            plan(media, SectorSize::B512, 7)
                .unwrap()
                .writes
                .take(4000)
                .collect::<Vec<_>>()
        );
        assert_ne!(
            ops,
            plan(media, SectorSize::B512, 8)
                .unwrap()
                .writes
                .take(4000)
                .collect::<Vec<_>>()
        );
        for s in SIZES {
            let n = ops.iter().filter(|o| o.len == s).count();
            assert!((850..1150).contains(&n), "{s}: {n}");
        }
        let tenths = |o: &Op| (o.offset * 10 / media) as usize;
        let mut bins = [0; 10];
        ops.iter().for_each(|o| bins[tenths(o)] += 1);
        assert!(bins.iter().all(|&b| (320..480).contains(&b)), "{bins:?}");
        assert_eq!(p.probes.len(), PROBES);
        assert!(
            p.probes
                .iter()
                .all(|o| o.kind == OpKind::Read && o.len == 4096)
        );
        assert!(plan(1 << 19, SectorSize::B512, 1).is_none());
        assert!(plan(1 << 20, SectorSize::B4096, 1).is_some());
    }
}
