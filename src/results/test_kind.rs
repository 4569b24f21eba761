//! The names of the tests and of their timed phases: plain data, recorded in
//! the results and re-exported by `probe`, whose plans make them.

use serde::{Deserialize, Serialize};

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
