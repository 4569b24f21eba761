//! Failed sectors kept as merged ranges by kind, in memory bounded whatever the
//! device size: a 20 TB drive whose every sector fails takes as little room as
//! one range per contiguous run of one kind.
//!
//! At the bound ([`Failures::limit`] ranges, [`DEFAULT_LIMIT`] unless set), the
//! ranges already listed stay exact, and every later failure that does not extend
//! one of them widens a single [`Overflow`] span instead, from the lowest to the
//! highest such sector. The span may include sectors that read fine, so a list
//! built from [`Failures::covered`] errs toward marking more blocks bad, never
//! fewer; the counts per kind stay exact. Plain data of --verify's results, with
//! the [`ReadBack`] of a read-back sector that `stamps::stamp` judges.

use serde::{Deserialize, Serialize};

/// What a read-back sector turned out to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum ReadBack {
    /// Exactly what this pass wrote at this LBA.
    Ok,
    /// Content that is neither what was written nor a valid stamp of this run:
    /// the drive altered the data (or returned zeros, or older data of another
    /// program) without an error.
    Corrupt,
    /// A valid stamp of this run, but of another LBA: the write for that LBA
    /// landed here (a misdirected write) or both addresses reach the same place
    /// (wrapped addressing: a drive that stores less than it reports).
    Misdirected {
        /// The LBA whose stamp was found.
        found_lba: u64,
        /// The pass (0 first) whose stamp for `found_lba` was found.
        found_pass: u32,
    },
    /// A valid stamp of this LBA from an earlier pass of this run: the last
    /// write never reached the medium (a lost write).
    Stale {
        /// The pass whose stamp was still there.
        found_pass: u32,
    },
    /// The read failed with an I/O error (recorded by the caller, never by
    /// `stamps::stamp::Stamper::check`).
    Unreadable,
}

impl ReadBack {
    /// Whether the sector read back as written.
    pub fn is_ok(self) -> bool {
        self == ReadBack::Ok
    }
}

/// The ranges kept before the rest goes to the overflow span: 65,536 ranges of
/// 40 bytes, 2.5 MiB.
pub const DEFAULT_LIMIT: usize = 1 << 16;

/// Why a sector failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// Its write failed with an I/O error.
    Unwritable,
    /// Its read failed with an I/O error.
    Unreadable,
    /// It read back altered content without an error.
    Corrupt,
    /// It read back another LBA's stamp of this run.
    Misdirected,
    /// It read back its own stamp of an earlier pass: the write was lost.
    Stale,
}

impl FailureKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [FailureKind; 5] = [
        FailureKind::Unwritable,
        FailureKind::Unreadable,
        FailureKind::Corrupt,
        FailureKind::Misdirected,
        FailureKind::Stale,
    ];

    /// The kind's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Unwritable => "unwritable",
            FailureKind::Unreadable => "unreadable",
            FailureKind::Corrupt => "corrupt",
            FailureKind::Misdirected => "misdirected",
            FailureKind::Stale => "stale",
        }
    }
}

/// Consecutive failed sectors of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedRange {
    /// Why they failed.
    pub kind: FailureKind,
    /// The first sector (LBA).
    pub start_lba: u64,
    /// How many sectors.
    pub sectors: u64,
    /// For misdirected sectors: the LBA whose stamp was read at `start_lba`; the
    /// range's next sectors held the stamps of the next LBAs in order (a range is
    /// split where that stops).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_lba: Option<u64>,
    /// For misdirected and stale sectors: the pass whose stamps were read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_pass: Option<u32>,
}

impl FailedRange {
    /// The LBA just past the range (`start_lba + sectors`), excluded.
    pub fn end_lba(&self) -> u64 {
        self.start_lba + self.sectors
    }

    /// Whether `next` continues this range: same kind and pass, starting where this
    /// one ends, and for misdirected sectors the found LBAs continuing in step.
    fn continued_by(&self, next: &FailedRange) -> bool {
        self.kind == next.kind
            && self.end_lba() == next.start_lba
            && self.found_pass == next.found_pass
            && match (self.found_lba, next.found_lba) {
                (Some(a), Some(b)) => a.checked_add(self.sectors) == Some(b),
                (None, None) => true,
                _ => false,
            }
    }
}

/// Failures past the bound: one span from the lowest to the highest such sector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overflow {
    /// The lowest failed sector not listed in a range.
    pub start_lba: u64,
    /// Just past the highest one.
    pub end_lba: u64,
    /// How many failed sectors it stands for (the span may be longer).
    pub sectors: u64,
}

/// Failed sectors by kind, in ranges (see the module's documentation for the
/// bound).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failures {
    /// The ranges, sorted by first sector.
    ranges: Vec<FailedRange>,
    /// Failed sectors of each kind, in [`FailureKind::ALL`]'s order.
    counts: [u64; 5],
    /// The span of failures past the bound, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    overflow: Option<Overflow>,
    /// Ranges kept before the rest goes to the overflow span ([`DEFAULT_LIMIT`] unless set).
    limit: usize,
}

impl Default for Failures {
    fn default() -> Self {
        Failures::new()
    }
}

impl Failures {
    /// An empty record that keeps up to [`DEFAULT_LIMIT`] ranges.
    pub fn new() -> Failures {
        Failures::with_limit(DEFAULT_LIMIT)
    }

    /// An empty record that keeps up to `limit` ranges (at least one).
    pub fn with_limit(limit: usize) -> Failures {
        Failures {
            ranges: Vec::new(),
            counts: [0; 5],
            overflow: None,
            limit: limit.max(1),
        }
    }

    /// Record the verdict of the sector at `lba` (an [`ReadBack::Ok`] is ignored).
    /// Each sector is recorded once; the order does not matter.
    pub fn record(&mut self, lba: u64, verdict: ReadBack) {
        let (kind, found_lba, found_pass) = match verdict {
            ReadBack::Ok => return,
            ReadBack::Corrupt => (FailureKind::Corrupt, None, None),
            ReadBack::Unreadable => (FailureKind::Unreadable, None, None),
            ReadBack::Stale { found_pass } => (FailureKind::Stale, None, Some(found_pass)),
            ReadBack::Misdirected {
                found_lba,
                found_pass,
            } => (FailureKind::Misdirected, Some(found_lba), Some(found_pass)),
        };
        self.add(FailedRange {
            kind,
            start_lba: lba,
            sectors: 1,
            found_lba,
            found_pass,
        });
    }

    /// Record `sectors` consecutive sectors from `start_lba` that failed alike,
    /// with no stamp found: a request whose write or read failed with an I/O error
    /// (`Unwritable`, `Unreadable`), or whose content was altered (`Corrupt`).
    /// Misdirected and stale sectors go through [`Failures::record`].
    pub fn record_span(&mut self, start_lba: u64, sectors: u64, kind: FailureKind) {
        debug_assert!(!matches!(
            kind,
            FailureKind::Misdirected | FailureKind::Stale
        ));
        if sectors > 0 {
            self.add(FailedRange {
                kind,
                start_lba,
                sectors,
                found_lba: None,
                found_pass: None,
            });
        }
    }

    fn add(&mut self, r: FailedRange) {
        self.counts[Self::index(r.kind)] += r.sectors;
        // The first range starting after r; r may continue the one before it and
        // be continued by it.
        let at = self.ranges.partition_point(|x| x.start_lba <= r.start_lba);
        let joins_prev = at > 0 && self.ranges[at - 1].continued_by(&r);
        let joins_next = at < self.ranges.len() && r.continued_by(&self.ranges[at]);
        match (joins_prev, joins_next) {
            (true, true) => {
                let next = self.ranges.remove(at);
                self.ranges[at - 1].sectors += r.sectors + next.sectors;
            }
            (true, false) => self.ranges[at - 1].sectors += r.sectors,
            (false, true) => {
                let next = &mut self.ranges[at];
                next.start_lba = r.start_lba;
                next.sectors += r.sectors;
                next.found_lba = r.found_lba;
            }
            (false, false) if self.ranges.len() < self.limit => self.ranges.insert(at, r),
            (false, false) => {
                let o = self.overflow.get_or_insert(Overflow {
                    start_lba: r.start_lba,
                    end_lba: r.end_lba(),
                    sectors: 0,
                });
                o.start_lba = o.start_lba.min(r.start_lba);
                o.end_lba = o.end_lba.max(r.end_lba());
                o.sectors += r.sectors;
            }
        }
    }

    fn index(kind: FailureKind) -> usize {
        FailureKind::ALL
            .iter()
            .position(|&k| k == kind)
            .expect("every kind is in ALL")
    }

    /// The listed ranges, sorted by first sector.
    pub fn ranges(&self) -> &[FailedRange] {
        &self.ranges
    }

    /// The span of failures that did not fit in the listed ranges, if the bound
    /// was reached.
    pub fn overflow(&self) -> Option<&Overflow> {
        self.overflow.as_ref()
    }

    /// Ranges kept before the rest goes to the overflow span.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Failed sectors of one kind (exact, listed or not).
    pub fn count(&self, kind: FailureKind) -> u64 {
        self.counts[Self::index(kind)]
    }

    /// Failed sectors of every kind.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Whether no sector failed.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Every failed sector, as (first LBA, sectors) spans in order of first LBA:
    /// the ranges and the overflow span (which may also cover good sectors). What
    /// a bad-block list is built from.
    pub fn covered(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut spans: Vec<(u64, u64)> = self
            .ranges
            .iter()
            .map(|r| (r.start_lba, r.sectors))
            .chain(
                self.overflow
                    .map(|o| (o.start_lba, o.end_lba - o.start_lba)),
            )
            .collect();
        spans.sort_unstable();
        spans.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mis(found_lba: u64) -> ReadBack {
        ReadBack::Misdirected {
            found_lba,
            found_pass: 0,
        }
    }

    #[test]
    fn neighbours_of_one_kind_merge_in_any_order() {
        let mut f = Failures::new();
        for lba in [12, 10, 11, 14, 13] {
            f.record(lba, ReadBack::Corrupt);
        }
        f.record(15, ReadBack::Unreadable);
        f.record(16, ReadBack::Ok);
        assert_eq!(f.ranges().len(), 2);
        assert_eq!((f.ranges()[0].start_lba, f.ranges()[0].sectors), (10, 5));
        assert_eq!(f.ranges()[1].kind, FailureKind::Unreadable);
        assert_eq!(f.count(FailureKind::Corrupt), 5);
        assert_eq!(f.total(), 6);
        f.record_span(16, 1000, FailureKind::Unreadable);
        assert_eq!(f.ranges()[1].sectors, 1001);
        assert_eq!(f.covered().collect::<Vec<_>>(), [(10, 5), (15, 1001)]);
    }

    #[test]
    fn misdirected_ranges_keep_where_their_stamps_came_from() {
        let mut f = Failures::new();
        // LBAs 100..104 hold the stamps of 0..4 (a wrap), then 104 holds 50's.
        for i in 0..4 {
            f.record(100 + i, mis(i));
        }
        f.record(104, mis(50));
        f.record(105, ReadBack::Stale { found_pass: 0 });
        f.record(106, ReadBack::Stale { found_pass: 1 });
        let r = f.ranges();
        assert_eq!(r.len(), 4);
        assert_eq!(
            (r[0].start_lba, r[0].sectors, r[0].found_lba),
            (100, 4, Some(0))
        );
        assert_eq!((r[1].start_lba, r[1].found_lba), (104, Some(50)));
        assert_eq!(r[2].found_pass, Some(0));
        assert_eq!(r[3].found_pass, Some(1));
    }

    #[test]
    fn at_the_bound_the_rest_widens_one_span_and_counts_stay_exact() {
        let mut f = Failures::with_limit(3);
        for lba in [0, 10, 20, 30, 25, 50] {
            f.record(lba, ReadBack::Corrupt);
        }
        // Extending a listed range still works past the bound.
        f.record(21, ReadBack::Corrupt);
        assert_eq!(f.ranges().len(), 3);
        assert_eq!(
            f.overflow(),
            Some(&Overflow {
                start_lba: 25,
                end_lba: 51,
                sectors: 3
            })
        );
        assert_eq!(f.total(), 7);
        let covered: Vec<_> = f.covered().collect();
        assert_eq!(covered, [(0, 1), (10, 1), (20, 2), (25, 26)]);
    }

    #[test]
    fn serde_round_trip() {
        let mut f = Failures::with_limit(2);
        f.record(5, mis(9));
        f.record_span(100, 8, FailureKind::Unwritable);
        f.record(1000, ReadBack::Corrupt);
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(serde_json::from_str::<Failures>(&json).unwrap(), f);
    }

    proptest! {
        #[test]
        fn every_failed_sector_is_covered_and_memory_is_bounded(
            lbas in proptest::collection::vec((0u64..2000, 0u8..3), 0..400),
            limit in 1usize..40,
        ) {
            let mut f = Failures::with_limit(limit);
            let mut seen = std::collections::BTreeMap::new();
            for (lba, k) in lbas {
                if seen.contains_key(&lba) {
                    continue;
                }
                let v = [ReadBack::Corrupt, ReadBack::Unreadable, mis(lba ^ 1)][k as usize];
                seen.insert(lba, v);
                f.record(lba, v);
            }
            prop_assert!(f.ranges().len() <= limit);
            prop_assert_eq!(f.total(), seen.len() as u64);
            let spans: Vec<_> = f.covered().collect();
            for lba in seen.keys() {
                prop_assert!(spans.iter().any(|&(s, n)| s <= *lba && *lba < s + n));
            }
            // Listed ranges hold only failed sectors, of their own kind.
            for r in f.ranges() {
                for lba in r.start_lba..r.end_lba() {
                    let v = seen[&lba];
                    let kind = match v {
                        ReadBack::Corrupt => FailureKind::Corrupt,
                        ReadBack::Unreadable => FailureKind::Unreadable,
                        _ => FailureKind::Misdirected,
                    };
                    prop_assert_eq!(kind, r.kind);
                }
            }
        }
    }
}
