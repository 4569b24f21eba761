//! The capacity check (`--capacity-check`): is the drive as big as it says?
//!
//! [`plan`] picks a few hundred probe blocks over the whole reported size; the
//! executor stamps them (with [`crate::stamps::stamp::Stamper`]) **in the order
//! given, from the end of the device toward its start**, flushes, reads them all
//! back and hands each block's verdict ([`block_verdict`]) to [`analyse`], which
//! concludes how much the drive really stores. [`refine`] then names the probes of
//! a further round inside the gap between the last good and the first failed
//! probe, until that gap is one probe block; every round's probes are stamped with
//! their own pass number and analysed together.
//!
//! Why from the end first: on a drive whose addresses wrap (a write to `a` lands
//! at `a mod real`), a probe past the real size overwrites a lower one that it
//! aliases. Written last, the lower (real) probes keep their own stamps and the
//! higher ones read back a lower block's stamp ([`ReadBack::Misdirected`]), so the
//! prefix that reads back as written is the real size, never less.
//!
//! Which blocks: the first and the last; 128 spread evenly; the blocks at
//! 1, 3, 5 and 7 times every power of two (in blocks), which alias block 0 on a
//! drive that wraps at any such size (sizes of flash sold as bigger ones are
//! powers of two or small multiples of them, since their controllers drop the
//! high address bits); and blocks log-spaced toward the end (the last block, the
//! one 2 blocks before the end, 4, 8, ...), which find a limit near the end. A wrap
//! at a size with no probe at a multiple of it shows only where two probes happen
//! to alias; a full `--verify` pass finds any.

use super::{MIB, Op, OpKind, TooSmall};
use crate::results::capacity::{Capacity, CapacityOutcome, Probe};
use crate::results::failures::ReadBack;
use crate::results::settings::SectorSize;

/// The probe block unless told otherwise.
pub const DEFAULT_BLOCK: u64 = MIB;
/// Probes spread evenly from the first block to the last.
pub const EVEN_PROBES: u64 = 128;
/// The most probes of one refining round.
pub const REFINE_PROBES: u64 = 64;

/// The probe blocks for a device of `media_size` bytes with `sector_size`-byte
/// sectors, as writes in the order they must be written (highest offset first).
/// Blocks are `block` bytes (rounded up to whole sectors: a probe is at least one
/// sector; at most the device),
/// aligned to `block` from the start, disjoint, inside the device; when the device
/// is not a whole number of blocks, the last probe is the shorter tail.
pub fn plan(media_size: u64, sector_size: SectorSize, block: u64) -> Result<Vec<Op>, TooSmall> {
    let sector_size = sector_size.get();
    let ss = u64::from(sector_size);
    let whole = media_size / ss * ss;
    let b = whole_sectors(block, ss).min(whole);
    if b == 0 {
        return Err(TooSmall(format!(
            "{media_size} bytes do not hold a probe block of at least one {sector_size}-byte sector"
        )));
    }
    let nb = whole / b; // whole blocks, at least 1
    let mut idx: Vec<u64> = vec![0, nb - 1];
    idx.extend(
        (0..EVEN_PROBES)
            .map(|i| (u128::from(nb - 1) * u128::from(i) / u128::from(EVEN_PROBES - 1)) as u64),
    );
    for m in [1u64, 3, 5, 7] {
        idx.extend((0..64).map_while(|j| m.checked_shl(j).filter(|&x| x < nb && x >> j == m)));
    }
    idx.extend((0..64).map_while(|k| 1u64.checked_shl(k).filter(|&d| d <= nb).map(|d| nb - d)));
    idx.sort_unstable();
    idx.dedup();
    let mut ops: Vec<Op> = idx.into_iter().map(|i| write_op(i * b, b)).collect();
    if whole > nb * b {
        ops.push(write_op(nb * b, whole - nb * b));
    }
    ops.reverse();
    Ok(ops)
}

/// A probe block of `block` bytes rounded up to whole `ss`-byte sectors (at least
/// one), and at most what one `u32`-long write holds.
fn whole_sectors(block: u64, ss: u64) -> u64 {
    block
        .div_ceil(ss)
        .clamp(1, u64::from(u32::MAX) / ss)
        .saturating_mul(ss)
}

fn write_op(offset: u64, len: u64) -> Op {
    Op {
        offset,
        len: len as u32,
        kind: OpKind::Write,
    }
}

/// One block's verdict from its sectors' (`verdicts`, in order): [`ReadBack::Ok`]
/// when all are, else the first other one, a misdirected one's `found_lba` moved
/// back by the sector's place in the block (so that it names the LBA whose stamp
/// the block's first sector would hold under the same shift).
pub fn block_verdict(verdicts: impl IntoIterator<Item = ReadBack>) -> ReadBack {
    for (i, v) in verdicts.into_iter().enumerate() {
        match v {
            ReadBack::Ok => {}
            ReadBack::Misdirected {
                found_lba,
                found_pass,
            } => {
                return ReadBack::Misdirected {
                    found_lba: found_lba.checked_sub(i as u64).unwrap_or(found_lba),
                    found_pass,
                };
            }
            other => return other,
        }
    }
    ReadBack::Ok
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Conclude from the read-backs of every round's probes (any order) on a device
/// of `media_size` bytes with `sector_size`-byte sectors.
pub fn analyse(media_size: u64, sector_size: u32, probes: &[Probe]) -> Capacity {
    let ss = u64::from(sector_size);
    let reported = media_size / ss * ss;
    let mut sorted = probes.to_vec();
    sorted.sort_by_key(|p| p.offset);
    let failed: Vec<&Probe> = sorted.iter().filter(|p| !p.verdict.is_ok()).collect();
    let mut c = Capacity {
        reported,
        real: reported,
        uncertainty: 0,
        first_failed: None,
        probes: sorted.len() as u32,
        failed: failed.len() as u32,
        finding: CapacityOutcome::Full,
    };
    let Some(first) = failed.first() else {
        return c;
    };
    let prefix = sorted
        .iter()
        .take_while(|p| p.verdict.is_ok())
        .last()
        .map_or(0, |p| p.offset + p.len);
    c.first_failed = Some(first.offset);
    c.real = prefix;
    c.uncertainty = first.offset + first.len - prefix;
    let misdirected: Vec<(u64, u64)> = failed
        .iter()
        .filter_map(|p| match p.verdict {
            ReadBack::Misdirected { found_lba, .. } => {
                Some((p.offset, found_lba.saturating_mul(ss)))
            }
            _ => None,
        })
        .collect();
    let ok_above = sorted
        .iter()
        .any(|p| p.offset > first.offset && p.verdict.is_ok());
    c.finding = if let Some(&(example_at, example_found)) = misdirected.first() {
        let m = misdirected
            .iter()
            .fold(0, |g, &(at, found)| gcd(g, at.abs_diff(found)));
        let modulus = wrap_size(m, prefix, first.offset + first.len, ss);
        if let Some(r) = modulus {
            c.real = r;
            c.uncertainty = 0;
        }
        CapacityOutcome::Wraps {
            modulus,
            example_at,
            example_found,
        }
    } else if ok_above {
        CapacityOutcome::Scattered
    } else if failed.iter().all(|p| p.verdict == ReadBack::Unreadable) {
        CapacityOutcome::ReadsFail
    } else {
        CapacityOutcome::WritesLost
    };
    c
}

/// The size addresses wrap at: the largest whole-sector divisor of `m` (every
/// misdirected distance is a multiple of it) from `lo` to `hi`, if any.
fn wrap_size(m: u64, lo: u64, hi: u64, ss: u64) -> Option<u64> {
    if m == 0 || m < lo.max(1) {
        return None;
    }
    // m / k for k = 1, 2, ...: the first inside [lo, hi] is the largest.
    let k0 = m.div_ceil(hi.max(1)).max(1);
    (k0..k0.saturating_add(1 << 16))
        .map(|k| (k, m / k))
        .take_while(|&(_, r)| r >= lo.max(1))
        .find(|&(k, r)| m.is_multiple_of(k) && r.is_multiple_of(ss) && r <= hi)
        .map(|(_, r)| r)
}

/// The probes of the next round, as writes in the order they must be written
/// (highest first): up to [`REFINE_PROBES`] blocks of `block` bytes spread over
/// the gap between `c.real` and the first failed probe, or tiling it when it is
/// small. Empty when there is nothing to narrow: nothing failed, the failures are
/// scattered, the gap is at most one block, or addresses wrap (where new probes
/// past the real size could read back their own stamps and push the prefix past
/// it; the wrap size comes from the misdirected stamps instead).
pub fn refine(c: &Capacity, sector_size: u32, block: u64) -> Vec<Op> {
    let ss = u64::from(sector_size);
    let b = whole_sectors(block, ss);
    let (Some(end), CapacityOutcome::WritesLost | CapacityOutcome::ReadsFail) =
        (c.first_failed, c.finding)
    else {
        return Vec::new();
    };
    let (lo, hi) = (c.real, end);
    if hi <= lo || hi - lo <= b {
        return Vec::new();
    }
    let gap = hi - lo;
    let mut ops = Vec::new();
    if gap <= REFINE_PROBES * b {
        // Small: tile it, so the next round pins the size to one block.
        let mut at = lo;
        while at < hi {
            ops.push(write_op(at, b.min(hi - at)));
            at += b;
        }
    } else {
        // Spread REFINE_PROBES - 1 blocks, one every gap / REFINE_PROBES (at
        // least a block, so they are disjoint and the last ends inside the gap).
        let step = gap / REFINE_PROBES / ss * ss;
        ops.extend((1..REFINE_PROBES).map(|i| write_op(lo + i * step, b)));
    }
    ops.reverse();
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::capacity::conclusion;
    use proptest::prelude::*;
    use std::collections::HashMap;

    const GIB: u64 = 1 << 30;
    const TIB: u64 = 1 << 40;

    /// A model drive at sector level: where each write lands, what each read
    /// returns, as (stamp LBA, pass) or nothing readable as a stamp.
    struct Model {
        ss: u64,
        /// Where a write to an LBA lands; None: it is dropped.
        land: Box<dyn Fn(u64) -> Option<u64>>,
        /// Where a read of an LBA is served from; None: the read fails.
        serve: Box<dyn Fn(u64) -> Option<u64>>,
        /// Physical sector -> (stamp LBA, pass).
        store: HashMap<u64, (u64, u32)>,
    }

    impl Model {
        fn new(ss: u64) -> Model {
            Model {
                ss,
                land: Box::new(Some),
                serve: Box::new(Some),
                store: HashMap::new(),
            }
        }
        fn write(&mut self, ops: &[Op], pass: u32) {
            for op in ops {
                let lba0 = op.offset / self.ss;
                for i in 0..u64::from(op.len) / self.ss {
                    if let Some(p) = (self.land)(lba0 + i) {
                        self.store.insert(p, (lba0 + i, pass));
                    }
                }
            }
        }
        fn read(&self, ops: &[Op], pass: u32) -> Vec<Probe> {
            ops.iter()
                .map(|op| {
                    let lba0 = op.offset / self.ss;
                    let v = (0..u64::from(op.len) / self.ss).map(|i| {
                        let lba = lba0 + i;
                        match (self.serve)(lba) {
                            None => ReadBack::Unreadable,
                            Some(p) => match self.store.get(&p) {
                                None => ReadBack::Corrupt,
                                Some(&(l, ps)) if l == lba && ps == pass => ReadBack::Ok,
                                Some(&(l, ps)) if l == lba => ReadBack::Stale { found_pass: ps },
                                Some(&(l, ps)) => ReadBack::Misdirected {
                                    found_lba: l,
                                    found_pass: ps,
                                },
                            },
                        }
                    });
                    Probe {
                        offset: op.offset,
                        len: u64::from(op.len),
                        verdict: block_verdict(v),
                    }
                })
                .collect()
        }
        /// The whole check: plan, then refining rounds until none is left.
        fn check(&mut self, media: u64) -> Capacity {
            let ss = self.ss as u32;
            let mut ops = plan(media, SectorSize::new(ss).unwrap(), DEFAULT_BLOCK).unwrap();
            let mut probes = Vec::new();
            for pass in 0.. {
                self.write(&ops, pass);
                probes.extend(self.read(&ops, pass));
                let c = analyse(media, ss, &probes);
                ops = refine(&c, ss, DEFAULT_BLOCK);
                if ops.is_empty() {
                    return c;
                }
                assert!(pass < 10, "refining does not end: {c:?}");
            }
            unreachable!()
        }
    }

    #[test]
    fn a_clean_drive_reports_its_full_size() {
        for ss in [512u64, 4096] {
            let mut m = Model::new(ss);
            let c = m.check(2 * TIB);
            assert_eq!(c.finding, CapacityOutcome::Full);
            assert_eq!(c.real, 2 * TIB);
            assert!(!c.is_fake());
            assert!(c.probes >= 200 && c.probes <= 400, "{}", c.probes);
            assert!(
                conclusion(&c).contains("over the 2.0 TiB reported read back as written"),
                "{}",
                conclusion(&c)
            );
        }
    }

    #[test]
    fn a_wrap_at_64_gib_of_a_2_tib_drive() {
        let real = 64 * GIB / 4096;
        let mut m = Model::new(4096);
        m.land = Box::new(move |l| Some(l % real));
        m.serve = Box::new(move |l| Some(l % real));
        let c = m.check(2 * TIB);
        assert_eq!(c.real, 64 * GIB);
        assert_eq!(c.uncertainty, 0);
        assert!(
            matches!(c.finding, CapacityOutcome::Wraps { modulus: Some(m), .. } if m == 64 * GIB)
        );
        assert!(c.is_fake());
        let s = conclusion(&c);
        assert!(
            s.starts_with(
                "only the first 64.0 GiB store data; writes beyond it land at their address modulo 64.0 GiB"
            ),
            "{s}"
        );
    }

    #[test]
    fn a_wrap_at_a_size_between_probes_is_found_within_the_probes() {
        // 48 GiB (3 × 16 GiB) of a 1 TiB drive, 512-byte sectors.
        let real = 48 * GIB / 512;
        let mut m = Model::new(512);
        m.land = Box::new(move |l| Some(l % real));
        m.serve = Box::new(move |l| Some(l % real));
        let c = m.check(TIB);
        assert_eq!(c.real, 48 * GIB, "{c:?}");
        assert!(c.is_fake());
    }

    #[test]
    fn a_drive_that_drops_writes_past_x() {
        // Stores 1000 GiB + 3 MiB + 512 bytes of a 2 TiB drive; writes past are
        // dropped, reads there return zeros or what an earlier round left.
        let x = (1000 * GIB + 3 * MIB + 512) / 512;
        let mut m = Model::new(512);
        m.land = Box::new(move |l| (l < x).then_some(l));
        let c = m.check(2 * TIB);
        assert_eq!(c.finding, CapacityOutcome::WritesLost);
        assert!(
            c.real <= x * 512 && x * 512 < c.real + c.uncertainty,
            "{c:?}"
        );
        assert!(c.uncertainty <= DEFAULT_BLOCK, "{c:?}");
        assert!(conclusion(&c).starts_with("only the first 1000.0 GiB (to within 1.0 MiB) store data; writes beyond it are lost"), "{}", conclusion(&c));
    }

    #[test]
    fn a_drive_whose_reads_past_x_fail() {
        let x = 1536 * GIB / 4096;
        let mut m = Model::new(4096);
        m.serve = Box::new(move |l| (l < x).then_some(l));
        let c = m.check(2 * TIB);
        assert_eq!(c.finding, CapacityOutcome::ReadsFail);
        assert_eq!(c.real, 1536 * GIB);
        assert!(c.uncertainty <= DEFAULT_BLOCK);
        assert!(conclusion(&c).contains("reads beyond it fail"));
    }

    #[test]
    fn scattered_bad_sectors_are_not_a_smaller_drive() {
        let mut m = Model::new(512);
        let media = 1u64 << 39;
        let ops = plan(media, SectorSize::B512, DEFAULT_BLOCK).unwrap();
        // Put a bad sector inside one probe in the middle.
        let mid = ops[ops.len() / 2].offset / 512 + 3;
        m.serve = Box::new(move |l| (l != mid).then_some(l));
        m.write(&ops, 0);
        let c = analyse(media, 512, &m.read(&ops, 0));
        assert_eq!(c.finding, CapacityOutcome::Scattered);
        assert!(!c.is_fake());
        assert!(refine(&c, 512, DEFAULT_BLOCK).is_empty());
    }

    #[test]
    fn real_stamps_on_a_drive_that_wraps_at_8_mib_of_256() {
        use crate::stamps::stamp::{StampSize, Stamper};
        let (reported, real, ss, block) = (256 * MIB, 8 * MIB, 512u32, 64 << 10);
        let mut store = vec![0u8; real as usize];
        let st = Stamper::new(Stamper::fresh_nonce(), 0, StampSize::new(ss).unwrap());
        let ops = plan(reported, SectorSize::new(ss).unwrap(), block).unwrap();
        for op in &ops {
            let at = (op.offset % real) as usize;
            st.stamp(&mut store[at..at + op.len as usize], op.offset / 512);
        }
        let probes: Vec<Probe> = ops
            .iter()
            .map(|op| {
                let at = (op.offset % real) as usize;
                let buf = &store[at..at + op.len as usize];
                Probe {
                    offset: op.offset,
                    len: u64::from(op.len),
                    verdict: block_verdict(st.check(buf, op.offset / 512)),
                }
            })
            .collect();
        let c = analyse(reported, ss, &probes);
        assert_eq!(c.real, real, "{c:?}");
        assert!(matches!(c.finding, CapacityOutcome::Wraps { modulus: Some(m), .. } if m == real));
        assert!(conclusion(&c).starts_with("only the first 8.0 MiB store data"));
    }

    #[test]
    fn block_verdicts() {
        assert_eq!(block_verdict([ReadBack::Ok; 4]), ReadBack::Ok);
        let mis = |found_lba| ReadBack::Misdirected {
            found_lba,
            found_pass: 0,
        };
        assert_eq!(block_verdict([ReadBack::Ok, mis(17), mis(18)]), mis(16));
        assert_eq!(block_verdict([ReadBack::Ok, mis(0)]), mis(0));
        assert_eq!(
            block_verdict([ReadBack::Ok, ReadBack::Unreadable, mis(5)]),
            ReadBack::Unreadable
        );
    }

    #[test]
    fn tiny_and_odd_devices() {
        assert!(plan(511, SectorSize::B512, MIB).is_err());
        // A block smaller than a sector is one sector (proptest found it refused).
        assert_eq!(
            plan(4096, SectorSize::B4096, 1024).unwrap(),
            [write_op(0, 4096)]
        );
        assert_eq!(
            plan(8192, SectorSize::B512, 1000).unwrap()[0],
            write_op(7168, 1024)
        );
        let p = plan(512, SectorSize::B512, MIB).unwrap();
        assert_eq!(p, [write_op(0, 512)]);
        let p = plan(3 * MIB + 1024, SectorSize::B512, MIB).unwrap();
        let offs: Vec<u64> = p.iter().map(|o| o.offset).collect();
        assert_eq!(offs, [3 * MIB, 2 * MIB, MIB, 0]);
        assert_eq!(p[0].len, 1024);
    }

    proptest! {
        #[test]
        fn probes_are_aligned_disjoint_inside_and_written_from_the_end(
            sectors in 1u64..(1 << 40), extra in 0u64..4096, big in any::<bool>(),
            block_kib in 1u64..4096,
        ) {
            let ss: u32 = if big { 4096 } else { 512 };
            let s = u64::from(ss);
            let media = sectors.saturating_mul(s).min(1 << 52) + extra % s;
            let whole = media / s * s;
            let block = block_kib * 1024;
            let p = plan(media, SectorSize::new(ss).unwrap(), block).unwrap();
            prop_assert!(!p.is_empty() && p.len() <= 400, "{} probes", p.len());
            let b = u64::from(p[p.len() - 1].len);
            prop_assert_eq!(p[p.len() - 1].offset, 0);
            prop_assert_eq!(p[0].end(), whole);
            for w in p.windows(2) {
                prop_assert!(w[1].end() <= w[0].offset, "{:?}", w);
            }
            for op in &p {
                prop_assert_eq!(op.kind, OpKind::Write);
                prop_assert_eq!(op.offset % s, 0);
                prop_assert_eq!(op.offset % b, 0);
                prop_assert!(op.len > 0 && u64::from(op.len) % s == 0);
                prop_assert!(op.end() <= whole);
            }
            // Refining rounds stay inside the gap, aligned and disjoint.
            let c = Capacity {
                reported: whole, real: whole / 3 / s * s, uncertainty: 0,
                first_failed: Some(whole / 2 / s * s), probes: 1, failed: 1,
                finding: CapacityOutcome::WritesLost,
            };
            let r = refine(&c, ss, block);
            for w in r.windows(2) {
                prop_assert!(w[1].end() <= w[0].offset);
            }
            for op in &r {
                prop_assert!(op.offset >= c.real && op.end() <= c.first_failed.unwrap());
                prop_assert_eq!(op.offset % s, 0);
                prop_assert!(op.len > 0 && u64::from(op.len) % s == 0);
            }
        }
    }
}
