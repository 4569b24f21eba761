//! What a surface scan (--scan) found, the runs of slow blocks that --scan and
//! --verify list, and a drive given up mid-test by either: plain data.

use serde::{Deserialize, Serialize};

/// A run of consecutive slow blocks, as --scan and --verify list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlowRange {
    /// The first sector of the first slow block.
    pub first_sector: u64,
    /// How many sectors the slow blocks cover.
    pub sectors: u64,
    /// The slowest block's time (the scan's latency, the verify pass's service
    /// time).
    pub max_ns: u64,
    /// How the blocks' times were taken: queued with others in flight, in a pass
    /// one block deep, or read again alone after a queued pass.
    #[serde(default)]
    pub timed: SlowTiming,
}

/// How the times of a [`SlowRange`]'s blocks were taken: what says that a time is
/// its own block's and not a neighbour's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SlowTiming {
    /// In a queued pass, other blocks in flight (a slow time may belong to one of
    /// them; runs saved before the confirmation existed).
    #[default]
    Queued,
    /// In a pass one block deep: each block alone on the device.
    Alone,
    /// Slow in a queued pass (or beside a slow one), then read again alone
    /// (`engine::confirm`): the time is that read's.
    Confirmed,
}

impl SlowRange {
    /// Add a slow block of `sectors` sectors from `first`, which took `ns`, to
    /// `ranges`: it extends the last range when it follows it.
    pub fn push(ranges: &mut Vec<SlowRange>, first: u64, sectors: u64, ns: u64) {
        if let Some(last) = ranges.last_mut()
            && last.first_sector + last.sectors == first
        {
            last.sectors += sectors;
            last.max_ns = last.max_ns.max(ns);
            return;
        }
        ranges.push(SlowRange {
            first_sector: first,
            sectors,
            max_ns: ns,
            timed: SlowTiming::Queued,
        });
    }
}

/// A run of unreadable sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectorRange {
    /// LBA of the run's first sector, in the device's logical sectors.
    pub first_sector: u64,
    /// How many sectors.
    pub sectors: u64,
}

/// What a surface scan found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanResult {
    /// The scan's first byte, a sector boundary (`--start` aligned down).
    pub start_bytes: u64,
    /// Just past the last byte scanned (when complete).
    pub end_bytes: u64,
    /// Bytes per read.
    pub block_bytes: u64,
    /// Reads made (including failed ones).
    pub blocks_read: u64,
    /// Bytes read successfully.
    pub bytes_read: u64,
    /// Time spent in the reads of blocks, without the sector-by-sector re-reads of
    /// failed blocks.
    pub elapsed_ns: u64,
    /// Blocks by latency: < 3, < 10, < 50, < 150, < 500 and >= 500 ms.
    pub buckets: Vec<u64>,
    /// Blocks that failed to read.
    pub error_blocks: u64,
    /// The unreadable sectors of the failed blocks, located as ddrescue does
    /// (`engine::locate`).
    pub unreadable: Vec<SectorRange>,
    /// The runs of `unreadable` not read sector by sector: between unreadable
    /// sectors of one long failed area.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inferred: Vec<SectorRange>,
    /// The drive stopped answering and the scan was given up there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<Unanswered>,
    /// Ctrl-C stopped the locating of the failed blocks' sectors here: the first
    /// byte of the failed blocks not located.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlocated_from: Option<u64>,
    /// Blocks at least this slow are listed in `slow`.
    pub slow_ms: f64,
    /// Runs of slow blocks.
    pub slow: Vec<SlowRange>,
    /// Blocks slow in the queued pass of which no block, read again alone with
    /// the blocks in flight beside it, was slow (not listed in `slow`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unconfirmed: u64,
    /// Bytes of the slow blocks read again alone to place them
    /// (`engine::confirm`): seekprobe's own reads, in neither `bytes_read` nor the
    /// rates, counted so that the kernel's count of the device's I/O is not taken
    /// for another program's.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub redone_bytes: u64,
    /// The scan map: the slowest latency in each of up to 1000 equal runs of blocks
    /// (`u64::MAX` where a block failed, 0 where none was read).
    pub map_ns: Vec<u64>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A drive that stopped answering mid-test (it vanished, or it no longer reads
/// sectors that read fine earlier): the test was given up there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unanswered {
    /// The first byte of the run of failed requests that ended with the drive given
    /// up (the drive "stopped answering at byte X").
    pub at_bytes: u64,
    /// When, from the start of the test's pass over the range, in ns.
    pub after_ns: u64,
    /// What showed it, e.g. "3 sectors that read fine earlier fail now (...)".
    pub reason: String,
    /// The drive turned read-only (writes refused with EROFS, EPERM or EACCES after
    /// writes succeeded) rather than stopped answering.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The drive was removed from the system: its block device is gone (a drive
    /// that dropped off its bus, pulled from its slot), not a drive whose sectors
    /// failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

impl Unanswered {
    /// A drive that stopped answering at `at_bytes`, `after_ns` into the pass, as
    /// `reason` shows (not turned read-only, not removed).
    pub fn stopped(at_bytes: u64, after_ns: u64, reason: String) -> Unanswered {
        Unanswered {
            at_bytes,
            after_ns,
            reason,
            read_only: false,
            removed: false,
        }
    }

    /// The finding's one line: "the drive stopped answering at byte X after T s"
    /// (or "turned read-only", or "was removed from the system").
    pub fn line(&self) -> String {
        format!(
            "the drive {} at byte {} after {:.1} s: {}",
            if self.removed {
                "was removed from the system"
            } else if self.read_only {
                "turned read-only"
            } else {
                "stopped answering"
            },
            self.at_bytes,
            self.after_ns as f64 / 1e9,
            self.reason
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_slow_blocks_make_one_range() {
        let mut v = Vec::new();
        SlowRange::push(&mut v, 0, 8, 60);
        SlowRange::push(&mut v, 8, 8, 90);
        SlowRange::push(&mut v, 32, 8, 70);
        let r = |first_sector, sectors, max_ns| SlowRange {
            first_sector,
            sectors,
            max_ns,
            timed: SlowTiming::Queued,
        };
        assert_eq!(v, [r(0, 16, 90), r(32, 8, 70)]);
    }
}
