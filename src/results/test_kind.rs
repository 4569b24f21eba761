//! The tests and their timed phases: their names, and the one table of the tests
//! ([`TestKind::row`]) that the option rules, the write gate, `--plot`, the
//! diskinfo text, the run and the live view read;
//! plain data, recorded in the results; `probe`'s plans make them. Each kind's
//! row is a const of its own, which `row` names.

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
    /// `--path-check`: every drive's read rate alone and with the others at once,
    /// by the path they share (run across the drives, not in a drive's sequence).
    PathCheck,
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

/// How the live view counts a test's progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveProgress {
    /// Not within the test: one step for the whole test.
    None,
    /// In 100 steps a pass over the drive (a write-verify half).
    Percent,
    /// One step a line of its plan (a scan's blocks).
    Lines,
}

/// A test's row of [`TestKind::ALL`]'s table: everything about the kind that is
/// data; what it does (its plan, analysis, rendering) is found from its kind and
/// its payload by the rooms that do it (docs/architecture.md, "Adding a test").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// The clap argument id that selects it (the field of the command line's
    /// `Args`), and its name in the JSON and in the burn-in's step ids.
    pub id: &'static str,
    /// Its name in messages.
    pub name: &'static str,
    /// What diskinfo's text prints before its first phase (empty for seekprobe's
    /// own tests, which print their whole block at their end).
    pub header: &'static str,
    /// Whether and when it writes.
    pub writes: Writes,
    /// Whether `--preserve` restores what it overwrites.
    pub restores: bool,
    /// Whether `--plot` draws its results.
    pub plots: bool,
    /// Whether its end block is printed even when no phase completed (seekprobe's
    /// own tests, whose block says what was measured).
    pub own_block: bool,
    /// A queued pass over the drive's range (--scan, --verify): a real drive's
    /// temperature is watched from a side thread while it runs, it is a long step
    /// of the live board, and its end is printed when interrupted too (the partial
    /// map says where to resume).
    pub pass: bool,
    /// Long work during which temperatures are sampled (the passes, --smr-check).
    pub long: bool,
    /// Runs even when an earlier test of the drive failed (a scan maps a failing
    /// drive).
    pub after_failure: bool,
    /// Its bytes are compared with the kernel's counts to find other programs'
    /// I/O (not -S, whose flushes the kernel counts its own way).
    pub other_io_checked: bool,
    /// Resumable from a checkpoint (--verify's `--resume`).
    pub resumable: bool,
    /// Announced as queued before it runs (-i); the others as sync.
    pub queued: bool,
    /// How the live view counts its progress.
    pub progress: LiveProgress,
    /// Its step in the burn-in, if it is one.
    pub burn_in: Option<BurnInStep>,
    /// It runs across the run's drives at once (the path check), not in each
    /// drive's sequence of tests: the program runs it after the drives' own tests
    /// (and the burn-in after every drive's own steps), and its results are each
    /// drive's part of it (`DiskResult::path_check`), not a `TestResult`.
    pub together: bool,
    /// Ends at once, having read and written nothing, on a drive that does not
    /// rotate (flash, or data in memory): its plan's first step is
    /// `OnlyIfRotating`, so the write gate does not count it on such a drive.
    pub skips_flash: bool,
    /// How the HTML report shows its block.
    pub html: HtmlBlock,
}

/// How the HTML report shows a test's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HtmlBlock {
    /// Its diskinfo text (when it measured something, or with -v) under its name.
    Text,
    /// Its end block (diskinfo's), under its name without the option, after what
    /// its payload draws (a chart, a conclusion).
    Own,
    /// Its end block folded under its name without the option: long tables (the
    /// zone curve, the seek profile).
    Folded,
}

/// A test's step in the burn-in (`--burn-in`; the burn-in's module orders the
/// tests' steps among the SMART readings and self-tests by `order`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BurnInStep {
    /// The step's id in the saved JSON (`results::burnin::Step`).
    pub id: &'static str,
    /// Its name in the burn-in's text and messages.
    pub name: &'static str,
    /// Its place among the burn-in's tests, first lowest.
    pub order: u8,
    /// Whether it runs on a drive that reports a rotation rate.
    pub rotating: bool,
    /// Whether it runs on a drive that does not say whether it rotates.
    pub unknown: bool,
    /// Whether it runs on flash.
    pub flash: bool,
    /// Only when its option is given beside `--burn-in` (`--smr-check`).
    pub optional: bool,
}

/// A burn-in step on every medium, always run.
const EVERY: BurnInStep = BurnInStep {
    id: "",
    name: "",
    order: 0,
    rotating: true,
    unknown: true,
    flash: true,
    optional: false,
};

/// The row every test starts from: reads, restores nothing, draws nothing, one
/// step of the live view.
const BASE: Row = Row {
    id: "",
    name: "",
    header: "",
    writes: Writes::No,
    restores: false,
    plots: false,
    own_block: false,
    pass: false,
    long: false,
    after_failure: false,
    other_io_checked: true,
    resumable: false,
    queued: false,
    progress: LiveProgress::None,
    burn_in: None,
    together: false,
    skips_flash: false,
    html: HtmlBlock::Text,
};

/// `CommandOverhead`'s row.
const COMMAND_OVERHEAD: Row = Row {
    id: "command_overhead",
    name: "command overhead (-c)",
    header: "I/O command overhead:\n",
    ..BASE
};

/// `SeekTransfer`'s row.
const SEEK_TRANSFER: Row = Row {
    id: "seek_transfer",
    name: "seek and transfer (-t)",
    header: "Seek times:\n",
    burn_in: Some(BurnInStep {
        id: "seek_transfer",
        name: "seek and transfer (-t)",
        order: 0,
        ..EVERY
    }),
    ..BASE
};

/// `RandomReads`'s row.
const RANDOM_READS: Row = Row {
    id: "random_reads",
    name: "random reads (-i)",
    header: "Asynchronous random reads:\n",
    queued: true,
    ..BASE
};

/// `SyncWrite`'s row.
const SYNC_WRITE: Row = Row {
    id: "sync_write",
    name: "synchronous writes (-S)",
    header: "Synchronous random writes:\n",
    writes: Writes::NeedsW,
    restores: true,
    other_io_checked: false,
    // Rotating drives only: without a revolution to compare with,
    // the flushes' timing means nothing.
    burn_in: Some(BurnInStep {
        id: "flushed_writes",
        name: "flushed writes (-S)",
        order: 3,
        unknown: false,
        flash: false,
        ..EVERY
    }),
    ..BASE
};

/// `Zones`'s row.
const ZONES: Row = Row {
    id: "zones",
    name: "zone curve (--zones)",
    writes: Writes::WithW,
    plots: true,
    own_block: true,
    burn_in: Some(BurnInStep {
        id: "zones",
        name: "zone curve (--zones)",
        order: 1,
        ..EVERY
    }),
    html: HtmlBlock::Folded,
    ..BASE
};

/// `SeekProfile`'s row.
const SEEK_PROFILE: Row = Row {
    id: "seek_profile",
    name: "seek profile (--seek-profile)",
    plots: true,
    own_block: true,
    html: HtmlBlock::Folded,
    ..BASE
};

/// `Scan`'s row: the scan reads at once, without pausing first.
const SCAN: Row = Row {
    id: "scan",
    name: "surface scan (--scan)",
    plots: true,
    own_block: true,
    pass: true,
    long: true,
    after_failure: true,
    progress: LiveProgress::Lines,
    html: HtmlBlock::Own,
    ..BASE
};

/// `BlockSweep`'s row.
const BLOCK_SWEEP: Row = Row {
    id: "block_sweep",
    name: "block sweep (--block-sweep)",
    writes: Writes::WithW,
    own_block: true,
    ..BASE
};

/// `Verify`'s row.
const VERIFY: Row = Row {
    id: "verify",
    name: "write and verify (--verify)",
    writes: Writes::NeedsW,
    own_block: true,
    pass: true,
    long: true,
    resumable: true,
    progress: LiveProgress::Percent,
    burn_in: Some(BurnInStep {
        id: "verify",
        name: "write-verify pass (--verify)",
        order: 5,
        ..EVERY
    }),
    html: HtmlBlock::Own,
    ..BASE
};

/// `CapacityCheck`'s row.
const CAPACITY_CHECK: Row = Row {
    id: "capacity_check",
    name: "capacity check (--capacity-check)",
    writes: Writes::NeedsW,
    restores: true,
    own_block: true,
    // Flash: seconds, before the write-verify pass (which finds a
    // fake capacity on the other drives).
    burn_in: Some(BurnInStep {
        id: "capacity_check",
        name: "capacity check (--capacity-check)",
        order: 4,
        rotating: false,
        unknown: false,
        ..EVERY
    }),
    html: HtmlBlock::Own,
    ..BASE
};

/// `SmrCheck`'s row.
const SMR_CHECK: Row = Row {
    id: "smr_check",
    name: "hidden-SMR check (--smr-check)",
    writes: Writes::NeedsW,
    plots: true,
    own_block: true,
    long: true,
    burn_in: Some(BurnInStep {
        id: "smr_check",
        name: "SMR check (--smr-check)",
        order: 2,
        optional: true,
        ..EVERY
    }),
    skips_flash: true,
    html: HtmlBlock::Own,
    ..BASE
};

/// The path check's row (`--path-check`): read-only, on its own clock
/// (crate::pathcheck), across the drives at once (`together`); under `--burn-in`
/// of two drives or more with `--parallel`, the last step, once every drive's own
/// steps have ended (it needs them all at once).
const PATH_CHECK: Row = Row {
    id: "path_check",
    name: "path check (--path-check)",
    other_io_checked: false,
    together: true,
    burn_in: Some(BurnInStep {
        id: "path_check",
        name: "path check (--path-check)",
        order: 6,
        ..EVERY
    }),
    ..BASE
};

impl TestKind {
    /// Every test, in the order a run makes them (diskinfo's first, then
    /// seekprobe's own): the order of the messages that list tests.
    pub const ALL: [TestKind; 12] = [
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
        TestKind::PathCheck,
    ];

    /// The one table of the tests: the option rules (config::rules), the write
    /// gate ([`TestKind::run_writes`]), `--plot`'s rule, the burn-in's write and
    /// plot rules, diskinfo's headers, the run's watch, the live view and the HTML
    /// report read it.
    pub const fn row(self) -> Row {
        match self {
            TestKind::CommandOverhead => COMMAND_OVERHEAD,
            TestKind::SeekTransfer => SEEK_TRANSFER,
            TestKind::RandomReads => RANDOM_READS,
            TestKind::SyncWrite => SYNC_WRITE,
            TestKind::Zones => ZONES,
            TestKind::SeekProfile => SEEK_PROFILE,
            TestKind::Scan => SCAN,
            TestKind::BlockSweep => BLOCK_SWEEP,
            TestKind::Verify => VERIFY,
            TestKind::CapacityCheck => CAPACITY_CHECK,
            TestKind::SmrCheck => SMR_CHECK,
            TestKind::PathCheck => PATH_CHECK,
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
        self.row().name
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
