//! The tests and their timed phases: their names, and the one table of the tests
//! ([`TestKind::row`]) that the option rules, the write gate and `--plot` read;
//! plain data, recorded in the results and re-exported by `probe`, whose plans make
//! them.

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

/// Whether a test writes to the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writes {
    /// Never: it only reads.
    No,
    /// Only with -w, which adds its write half (--zones, --block-sweep).
    WithW,
    /// Always: it is refused without -w.
    NeedsW,
}

/// A test's row of [`TestKind::ALL`]'s table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The clap argument id that selects it (the field of the command line's `Args`).
    pub id: &'static str,
    /// Whether and when it writes.
    pub writes: Writes,
    /// Whether `--preserve` restores what it overwrites.
    pub restores: bool,
    /// Whether `--plot` draws its results.
    pub plots: bool,
    /// The options (clap ids) that tune it and mean nothing without a test that
    /// takes them, such as `--settle` or `--seed`.
    pub options: &'static [&'static str],
}

impl TestKind {
    /// Every test, in the order a run makes them (diskinfo's first, then
    /// seekprobe's own): the order of the messages that list tests.
    pub const ALL: [TestKind; 11] = [
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

    /// The one table of the tests: the option rules (config::rules), the write
    /// gate ([`TestKind::run_writes`]), `--plot`'s rule and the burn-in's write and
    /// plot rules all read it.
    pub const fn row(self) -> Row {
        use Writes::*;
        /// A row, its fields in their order.
        const fn row(
            id: &'static str,
            writes: Writes,
            restores: bool,
            plots: bool,
            options: &'static [&'static str],
        ) -> Row {
            Row {
                id,
                writes,
                restores,
                plots,
                options,
            }
        }
        match self {
            TestKind::CommandOverhead => row("command_overhead", No, false, false, &["settle"]),
            TestKind::SeekTransfer => row("seek_transfer", No, false, false, &["settle"]),
            TestKind::RandomReads => row(
                "iops",
                No,
                false,
                false,
                &["settle", "seed", "queue_depth", "duration"],
            ),
            TestKind::SyncWrite => row(
                "sync_write",
                NeedsW,
                true,
                false,
                &["settle", "seed", "write_duration"],
            ),
            TestKind::Zones => row("zones", WithW, false, true, &["settle", "zone_size"]),
            TestKind::SeekProfile => row(
                "seek_profile",
                No,
                false,
                true,
                &["settle", "seed", "seek_samples"],
            ),
            // The scan reads at once, without pausing first.
            TestKind::Scan => row(
                "scan",
                No,
                false,
                true,
                &[
                    "block_size",
                    "start",
                    "end",
                    "slow_ms",
                    "io_timeout",
                    "max_temp",
                ],
            ),
            TestKind::BlockSweep => row(
                "block_sweep",
                WithW,
                false,
                false,
                &["settle", "queue_depth", "sweep_duration"],
            ),
            TestKind::Verify => row(
                "verify",
                NeedsW,
                false,
                false,
                &[
                    "settle",
                    "passes",
                    "bad_blocks",
                    "bad_blocks_size",
                    "block_size",
                    "start",
                    "end",
                    "slow_ms",
                    "io_timeout",
                    "max_temp",
                ],
            ),
            TestKind::CapacityCheck => row("capacity_check", NeedsW, true, false, &["settle"]),
            TestKind::SmrCheck => row(
                "smr_check",
                NeedsW,
                false,
                true,
                &["settle", "seed", "max_temp", "smr_budget", "smr_idle"],
            ),
        }
    }

    /// The clap argument id of the option that selects the test.
    pub const fn id(self) -> &'static str {
        self.row().id
    }

    /// Whether the test writes when -w is `write`.
    pub fn writes(self, write: bool) -> bool {
        write && !matches!(self.row().writes, Writes::No)
    }

    /// THE write gate: whether a run of `tests`, with -w (`write`) or without,
    /// writes to a disk. `here` says whether a test runs on the disk at hand (the
    /// hidden-SMR check leaves flash alone); before a disk is open, `|_| true`.
    pub fn run_writes(tests: &[TestKind], write: bool, here: impl Fn(TestKind) -> bool) -> bool {
        tests.iter().any(|&t| t.writes(write) && here(t))
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
