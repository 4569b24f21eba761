//! A counterfeit that remaps (`keeps=BYTES`): the drive reports its full size, and
//! its controller maps each address written for the first time to the next free
//! block of its real flash, until the real flash is used up; from then on a write
//! to an address never written before is acknowledged and dropped, while the
//! addresses already mapped keep working. So it keeps the first BYTES written,
//! wherever they were written, and reads return zeros where nothing was kept.
//!
//! f3's users report fakes of this kind that pass f3probe (AltraMayor/f3 issues
//! 176 and 219): a probe that writes less than the drive keeps sees every block
//! read back. Only writing more than the drive keeps, and reading back what was
//! written, finds it (docs/sim.md, "Faults"; docs/methods.md).
//!
//! The map is kept as disjoint, merged byte spans of logical addresses: the content
//! itself stays at its logical address in the store (the remapping is invisible to
//! the host, as on the counterfeit), so only which addresses hold data is modelled.

use std::collections::BTreeMap;

/// Which logical addresses a remapping counterfeit has given real flash to.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    /// The real flash, in bytes (whole sectors).
    limit: u64,
    /// Bytes mapped so far (at most `limit`).
    used: u64,
    /// Mapped spans: first byte → just past the last, disjoint, touching ones merged.
    spans: BTreeMap<u64, u64>,
}

impl Kept {
    /// A drive with `limit` bytes of real flash, none of it mapped yet.
    pub(super) fn new(limit: u64) -> Kept {
        Kept {
            limit,
            used: 0,
            spans: BTreeMap::new(),
        }
    }

    /// The real flash, in bytes.
    pub(super) fn limit(&self) -> u64 {
        self.limit
    }

    /// A write of `[a, b)`: its addresses not mapped yet get flash while some is
    /// left, lowest first. Returns the parts of `[a, b)` that are stored, sorted;
    /// the rest of the write is dropped.
    pub(super) fn write(&mut self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let gaps = self.gaps(a, b);
        for (x, y) in gaps {
            let room = self.limit - self.used;
            if room == 0 {
                break;
            }
            let end = y.min(x + room);
            self.used += end - x;
            self.insert(x, end);
        }
        self.mapped(a, b)
    }

    /// The parts of `[a, b)` that are mapped, sorted.
    pub(super) fn mapped(&self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let from = self.spans.range(..=a).next_back().map_or(a, |(&s, _)| s);
        self.spans
            .range(from..b)
            .filter(|&(_, &e)| e > a)
            .map(|(&s, &e)| (s.max(a), e.min(b)))
            .collect()
    }

    /// The parts of `[a, b)` not mapped, sorted.
    fn gaps(&self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut at = a;
        for (s, e) in self.mapped(a, b) {
            if s > at {
                out.push((at, s));
            }
            at = e;
        }
        if at < b {
            out.push((at, b));
        }
        out
    }

    /// Map `[a, b)` (not mapped before), merging it with the spans it touches.
    fn insert(&mut self, mut a: u64, mut b: u64) {
        if let Some((&s, &e)) = self.spans.range(..=a).next_back()
            && e == a
        {
            self.spans.remove(&s);
            a = s;
        }
        if let Some(e) = self.spans.remove(&b) {
            b = e;
        }
        self.spans.insert(a, b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_first_bytes_written_wherever_they_are_and_rewrites_of_them() {
        let mut k = Kept::new(4096);
        // 1 KiB high up, then 4 KiB from 0: only 3 KiB of it finds flash.
        assert_eq!(
            k.write(1 << 20, (1 << 20) + 1024),
            [(1 << 20, (1 << 20) + 1024)]
        );
        assert_eq!(k.write(0, 4096), [(0, 3072)]);
        // Full: a new address is dropped, a mapped one is kept again.
        assert_eq!(k.write(3072, 4096), []);
        assert_eq!(k.write(512, 2048), [(512, 2048)]);
        assert_eq!(
            k.write(0, 2 << 20),
            [(0, 3072), (1 << 20, (1 << 20) + 1024)]
        );
        // Touching spans merge.
        let mut k = Kept::new(1 << 20);
        k.write(0, 512);
        k.write(1024, 1536);
        k.write(512, 1024);
        assert_eq!(k.spans.len(), 1);
        assert_eq!(k.mapped(0, 4096), [(0, 1536)]);
    }
}
