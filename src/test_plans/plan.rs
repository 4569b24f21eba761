//! Every test as data: a [`Plan`] is the lines of a test (one per line of output or
//! of the progress display), each a list of [`PlanStep`]s, built from the device's size
//! and sector size and the checked [`Options`] alone. No I/O, no clock: the executor
//! (`crate::executor`) walks any plan against a target.

use super::iops::{self, BadRequest, OffsetGen};
use super::scan::{self, ScanRange};
use super::seek_profile::{self, Pair};
use super::{Op, OpKind, Options, Phase, TooSmall, overhead, seek, sweep, sync_write, transfer};
use super::{smr, zones};
use crate::results::settings::{MAX_BLOCK_SIZE, Passes, QueueDepth, SectorSize};
use crate::results::test_kind::{PhaseId, TestKind};
use std::time::Duration;

/// Where the offsets of queued reads come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Random, size-aligned offsets of this seed ([`OffsetGen::new`]).
    Random {
        /// Seeds the offset generator; the plan derives it from `--seed` and the line.
        seed: u64,
    },
    /// Sequential offsets from this byte ([`OffsetGen::sequential`]).
    Sequential {
        /// Byte offset of the first request, a multiple of `len`; later ones follow on.
        from: u64,
    },
}

/// Reads kept `queue_depth` deep for `duration` (one phase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedStep {
    /// Which phase the results record this step's measurement under.
    pub id: PhaseId,
    /// Whether the offsets are random (seeded) or sequential, and from where.
    pub stream: Stream,
    /// Request size in bytes.
    pub len: u32,
    /// The device's sector, which the offsets are whole multiples of.
    pub sector_size: SectorSize,
    /// Requests in flight.
    pub queue_depth: QueueDepth,
    /// New requests are issued while less than this has passed.
    pub duration: Duration,
    /// What it is, in error messages.
    pub what: String,
}

/// Which samples of the seek profile a [`PlanStep::Pairs`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairsKind {
    /// At random distances; the samples start here.
    Profile {
        /// The distance of the rotation samples that follow, in sectors.
        rotation_distance_sectors: u64,
        /// The `--seed` the random distances were drawn with, recorded with the samples.
        seed: u64,
    },
    /// At the fixed distance that measures the rotation.
    Rotation,
    /// The short backward hops that measure the track capacity over the disk.
    Tracks,
    /// At the full stroke.
    FullStroke,
    /// Planned by the executor from the measured track map
    /// ([`super::seek_profile::targeted`]): a third of the stroke apart, and the
    /// hops of the floor classes; the step's own pairs are empty.
    Targeted {
        /// The `--seed` they are drawn with.
        seed: u64,
    },
}

/// One step of a test, run in order by the executor.
#[derive(Debug, Clone, PartialEq)]
pub enum PlanStep {
    /// Write back dirty data and drop the target's cached data (diskinfo's sync()).
    Quiesce,
    /// diskinfo's pause before a timed line: sync(), and when the duration is not
    /// zero, the sleep on the target's clock, sync(), sync(); Ctrl-C ends the test here.
    Pause(Duration),
    /// A phase run one operation at a time: its setup, a quiesce and the `settle`
    /// pause, then its timed operations; with `flush_after`, the device's write
    /// cache flushed untimed after it (the write halves, -w).
    Sync {
        /// The untimed setup and the timed operations, with the phase id they record under.
        phase: Phase,
        /// Pause between the setup (and its quiesce) and the timed operations; `--settle`.
        settle: Duration,
        /// What it is, in error messages.
        what: String,
        /// Flush the write cache afterwards.
        flush_after: bool,
    },
    /// Queued reads (-i, the queued half of --block-sweep).
    Queued(QueuedStep),
    /// Random writes of `size` bytes each flushed, in batches for at least
    /// `min_time` (-S).
    FlushedWrites {
        /// Bytes per write.
        size: u32,
        /// Seeds the random offsets; the plan derives it from `--seed` and the line.
        seed: u64,
        /// The device's sector, which the offsets are whole multiples of.
        sector_size: SectorSize,
        /// Batches are written until this much has passed.
        min_time: Duration,
        /// Read each block first, write it back after.
        preserve: bool,
        /// What it is, in error messages.
        what: String,
    },
    /// Pairs of reads where only the second is timed (--seek-profile).
    Pairs {
        /// The (untimed, timed) read pairs, run in this order.
        pairs: Vec<Pair>,
        /// Which samples they are.
        kind: PairsKind,
    },
    /// The capacity check (--capacity-check): rounds of stamped probe blocks, the
    /// first these, written in this order (from the end toward the start), flushed,
    /// read back, refined ([`super::capacity::refine`]) until none is left.
    CapacityCheck {
        /// The first round's probe blocks.
        probes: Vec<super::Op>,
        /// The probe block, for refining rounds.
        block: u64,
        /// Read each block first and write everything back afterwards.
        preserve: bool,
    },
    /// Every block of a range read once (--scan); progress in `progress_steps`.
    Scan {
        /// Bytes to read and bytes per read, from `--start`, `--end` and `--block-size`,
        /// sector-aligned.
        range: ScanRange,
        /// Blocks at least this slow are listed.
        slow_ms: f64,
        /// Progress is reported in this many steps.
        progress_steps: usize,
    },
    /// Every block of a range written with stamps, flushed, read back and checked,
    /// `passes` times (--verify).
    Verify {
        /// Bytes to verify and bytes per request, sector-aligned like the scan's.
        range: ScanRange,
        /// Passes, each with fresh content.
        passes: Passes,
        /// The run's nonce, in every stamp: fresh from the OS per run, so old stamps fail.
        nonce: u64,
        /// Requests in flight.
        queue_depth: QueueDepth,
        /// Blocks at least this slow are listed.
        slow_ms: f64,
    },
    /// The hidden-SMR check's first step, from which its result holds the check's
    /// payload (concluded on by the analysis whatever follows). The test ends
    /// here, complete and having done nothing, on a device that does not rotate
    /// (flash, or data in memory): decided before anything is written.
    OnlyIfRotating,
    /// Reads one at a time, each timed on its own, with an untimed wait of
    /// `spacing` (a real sleep, or the simulated drive's clock) before each.
    ProbeReads {
        /// Run in this order, each timed on its own.
        ops: Vec<super::Op>,
        /// Untimed wait before each read, outside its timing.
        spacing: Duration,
        /// Which probes they are.
        set: ProbeSet,
    },
    /// SmrWrites one at a time, each completion timed, until `budget` runs out or the
    /// write rate collapses (`crate::smr::behaviour::find_collapse`, checked between
    /// writes, outside the timing); Ctrl-C stops it too (--smr-check).
    SustainedWrites {
        /// Endless random writes; only the budget or a collapse stops them.
        writes: smr::SmrWrites,
        /// Bytes and time, whichever runs out first.
        budget: crate::results::smr::Budget,
    },
    /// Let time pass without I/O (a real sleep, or the simulated drive's clock
    /// advanced); never timed. Ctrl-C ends the test here.
    Idle(Duration),
}

/// Which read probes a [`PlanStep::ProbeReads`] takes (--smr-check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeSet {
    /// Before the writes: the baseline read latency.
    SmrBaseline,
    /// After an idle period of this long: reads that may wait for a cache being
    /// cleaned.
    SmrPostIdle {
        /// The idle period before the first of them.
        after_idle: Duration,
    },
}

/// One line of a test (of its output, or of the progress display).
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Its label in the progress display.
    pub label: String,
    /// What it does, in order.
    pub steps: Vec<PlanStep>,
}

/// A whole test: its lines in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Which test.
    pub test: TestKind,
    /// The lines, run in this order.
    pub lines: Vec<Line>,
}

impl Plan {
    /// The phases run one operation at a time, in order (all of -c and -t).
    pub fn phases(&self) -> impl Iterator<Item = &Phase> {
        self.lines
            .iter()
            .flat_map(|l| &l.steps)
            .filter_map(|s| match s {
                PlanStep::Sync { phase, .. } => Some(phase),
                _ => None,
            })
    }

    /// Every operation of every step, to check that each is aligned and inside a
    /// device of `media_size` bytes with `sector_size`-byte sectors (the device the
    /// plan was made for). Endless or seeded streams (queued reads, flushed writes,
    /// --smr-check's writes) give their first `SAMPLED_OPS` operations and, for a
    /// stream that wraps, its last position; a scan or a verify pass gives its
    /// first and last `SAMPLED_OPS` blocks, written and read. A stream the
    /// engine would refuse (a request that does not fit) gives an error.
    pub fn ops(
        &self,
        media_size: u64,
        sector_size: SectorSize,
    ) -> Result<Vec<super::Op>, BadRequest> {
        let mut out = Vec::new();
        for step in self.lines.iter().flat_map(|l| &l.steps) {
            match step {
                PlanStep::Sync { phase, .. } => out.extend(phase.all_ops().copied()),
                PlanStep::Pairs { pairs, .. } => {
                    out.extend(pairs.iter().flat_map(|p| [p.from, p.to]))
                }
                PlanStep::CapacityCheck { probes, .. } => out.extend(probes.iter().copied()),
                PlanStep::ProbeReads { ops, .. } => out.extend(ops.iter().copied()),
                PlanStep::SustainedWrites { writes, .. } => {
                    out.extend(writes.clone().take(SAMPLED_OPS))
                }
                PlanStep::Queued(q) => {
                    let g = q.stream.offsets(media_size, sector_size, q.len)?;
                    let read = |offset| Op {
                        offset,
                        len: q.len,
                        kind: OpKind::Read,
                    };
                    out.extend((0..SAMPLED_OPS as u64).map(|k| read(g.offset(k))));
                    out.push(read(g.offset(g.positions() - 1)));
                }
                PlanStep::FlushedWrites { size, seed, .. } => {
                    let g = OffsetGen::new(*seed, media_size, sector_size, *size)?;
                    out.extend((0..SAMPLED_OPS as u64).map(|k| Op {
                        offset: g.offset(k),
                        len: *size,
                        kind: OpKind::Write,
                    }));
                }
                PlanStep::Scan { range, .. } => out.extend(sampled_blocks(range, &[OpKind::Read])),
                PlanStep::Verify { range, .. } => {
                    out.extend(sampled_blocks(range, &[OpKind::Write, OpKind::Read]))
                }
                PlanStep::Quiesce
                | PlanStep::Pause(_)
                | PlanStep::OnlyIfRotating
                | PlanStep::Idle(_) => {}
            }
        }
        Ok(out)
    }
}

/// How many operations [`Plan::ops`] takes from each end of a stream or range.
pub const SAMPLED_OPS: usize = 1000;

/// The first and last [`SAMPLED_OPS`] blocks of `range` (all of them when fewer),
/// as operations of each kind in `kinds`. The range's block is a plan's, at most a
/// [`BlockSize`](crate::results::settings::BlockSize).
fn sampled_blocks(range: &ScanRange, kinds: &[OpKind]) -> Vec<Op> {
    let n = range.count();
    let first = range.blocks().take(SAMPLED_OPS);
    let skip = n.saturating_sub(SAMPLED_OPS as u64).max(SAMPLED_OPS as u64);
    let last_start = range.start + skip * range.block;
    let last = ScanRange {
        start: last_start.min(range.end),
        ..*range
    };
    let mut out = Vec::new();
    for (offset, len) in first.chain(last.blocks()) {
        debug_assert!(
            len <= u64::from(MAX_BLOCK_SIZE),
            "config makes the block size"
        );
        let len = len as u32;
        out.extend(kinds.iter().map(|&kind| Op { offset, len, kind }));
    }
    out
}

impl Stream {
    /// The offsets of `len`-byte requests of this stream on a device of
    /// `media_size` bytes with `sector_size`-byte sectors.
    pub fn offsets(
        self,
        media_size: u64,
        sector_size: SectorSize,
        len: u32,
    ) -> Result<OffsetGen, BadRequest> {
        match self {
            Stream::Random { seed } => OffsetGen::new(seed, media_size, sector_size, len),
            Stream::Sequential { from } => {
                OffsetGen::sequential(media_size, sector_size, len, from)
            }
        }
    }
}

/// The plan of `test` on a device of `media_size` bytes with `sector_size`-byte
/// logical sectors, shaped by `opts`. Only whole sectors are used. Err says why the
/// device is too small for it.
pub fn plan(
    test: TestKind,
    media_size: u64,
    sector_size: SectorSize,
    opts: &Options,
) -> Result<Plan, TooSmall> {
    let (m, ss) = (media_size, sector_size);
    let lines = match test {
        TestKind::SeekTransfer => {
            let mut phases = seek::phases(m, ss)?;
            phases.extend(transfer::phases(m, ss)?);
            diskinfo_lines(phases, opts)
        }
        TestKind::CommandOverhead => diskinfo_lines(overhead::phases(m, ss)?, opts),
        TestKind::RandomReads => random_reads(m, ss, opts)?,
        TestKind::SyncWrite => sync_writes(m, ss, opts)?,
        TestKind::Zones => zone_lines(m, ss, opts)?,
        TestKind::SeekProfile => seek_profile_lines(m, ss, opts)?,
        TestKind::Scan => scan_lines(m, ss, opts)?,
        TestKind::BlockSweep => sweep_lines(m, ss, opts)?,
        TestKind::Verify => verify_lines(m, ss, opts)?,
        TestKind::CapacityCheck => capacity_lines(m, ss, opts)?,
        TestKind::SmrCheck => smr_lines(m, ss, opts)?,
        // Not a drive's plan: crate::pathcheck runs it across the drives at once
        // (its row's `together`), and no drive's sequence of tests holds it.
        TestKind::PathCheck => Vec::new(),
    };
    Ok(Plan { test, lines })
}

/// diskinfo's phases (-c, -t), each a line with the settle pause.
fn diskinfo_lines(phases: Vec<Phase>, opts: &Options) -> Vec<Line> {
    phases
        .into_iter()
        .map(|phase| Line {
            label: phase.id.name().to_string(),
            steps: vec![PlanStep::Sync {
                what: phase.id.name().to_string(),
                phase,
                settle: opts.settle,
                flush_after: false,
            }],
        })
        .collect()
}

/// -i: for each request size, random reads kept `--queue-depth` deep for `--duration`.
fn random_reads(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let sizes = iops::sizes(m, ss);
    if sizes.is_empty() {
        return Err(TooSmall("no request size fits in it".into()));
    }
    Ok(sizes
        .iter()
        .enumerate()
        .map(|(i, &size)| Line {
            label: format!("{size} bytes"),
            steps: vec![
                PlanStep::Pause(opts.settle),
                PlanStep::Queued(QueuedStep {
                    id: PhaseId::RandomRead,
                    stream: Stream::Random {
                        seed: iops::stream_seed(opts.seed, i),
                    },
                    len: size,
                    sector_size: ss,
                    queue_depth: opts.queue_depth,
                    duration: opts.duration,
                    what: format!("{size}-byte random reads"),
                }),
            ],
        })
        .collect())
}

/// -S: for each size, batches of flushed random writes for at least a second.
fn sync_writes(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let sizes = sync_write::sizes(m, ss);
    if sizes.is_empty() {
        return Err(TooSmall("no whole sector".into()));
    }
    let mut lines = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        let seed = iops::stream_seed(opts.seed, i);
        OffsetGen::new(seed, m, ss, size).map_err(|e| TooSmall(e.0))?;
        lines.push(Line {
            label: format!("{size} bytes"),
            steps: vec![
                PlanStep::Pause(opts.settle),
                PlanStep::FlushedWrites {
                    size,
                    seed,
                    sector_size: ss,
                    min_time: opts.write_duration,
                    preserve: opts.preserve,
                    what: format!("{size}-byte synchronous writes"),
                },
            ],
        });
    }
    Ok(lines)
}

/// The write half of a --zones sample or a --block-sweep size (-w): the same range
/// written, then the write cache flushed outside the timing, so that the next
/// measurement does not pay for these writes.
fn write_half(read: &Phase, id: PhaseId, what: &str) -> PlanStep {
    PlanStep::Sync {
        phase: read.as_writes(id),
        settle: Duration::ZERO,
        what: what.to_string(),
        flush_after: true,
    }
}

/// The settle pause of the `i`-th line of a test whose lines follow each other
/// (--zones, --block-sweep): before the first only.
fn first_only(i: usize, opts: &Options) -> Duration {
    if i == 0 { opts.settle } else { Duration::ZERO }
}

/// --zones: the sequential read rate at evenly spaced positions.
fn zone_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let phases = zones::phases(m, ss, opts.zones, opts.zone_size)?;
    Ok(phases
        .into_iter()
        .enumerate()
        .map(|(i, phase)| {
            let label = format!("at byte {}", phase.ops[0].offset);
            let write = opts
                .write
                .then(|| write_half(&phase, PhaseId::ZoneWrite, "zone write sample"));
            let read = PlanStep::Sync {
                phase,
                settle: first_only(i, opts),
                what: "zone sample".into(),
                flush_after: false,
            };
            Line {
                label,
                steps: std::iter::once(read).chain(write).collect(),
            }
        })
        .collect())
}

/// --seek-profile: one-sector reads at random distances, and at one fixed distance
/// to measure the rotation.
fn seek_profile_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let p = seek_profile::plan(m, ss, opts.seek_samples, opts.seed)
        .ok_or_else(|| TooSmall("fewer than 4 sectors".into()))?;
    Ok(vec![
        Line {
            label: "random distances".into(),
            steps: vec![
                PlanStep::Pause(opts.settle),
                PlanStep::Pairs {
                    pairs: p.profile,
                    kind: PairsKind::Profile {
                        rotation_distance_sectors: p.rotation_distance_sectors,
                        seed: opts.seed,
                    },
                },
            ],
        },
        Line {
            label: "fixed distance (rotation)".into(),
            steps: vec![PlanStep::Pairs {
                pairs: p.rotation,
                kind: PairsKind::Rotation,
            }],
        },
        Line {
            label: "track capacity".into(),
            steps: vec![PlanStep::Pairs {
                pairs: p.tracks,
                kind: PairsKind::Tracks,
            }],
        },
        Line {
            label: "full stroke".into(),
            steps: vec![PlanStep::Pairs {
                pairs: p.full_stroke,
                kind: PairsKind::FullStroke,
            }],
        },
        Line {
            label: "a third of the stroke, and one to 64 tracks".into(),
            steps: vec![PlanStep::Pairs {
                pairs: Vec::new(),
                kind: PairsKind::Targeted { seed: opts.seed },
            }],
        },
    ])
}

/// --scan: every block once, past errors.
fn scan_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let range = scan::range(m, ss, opts.scan_span, opts.block_size)?;
    Ok(vec![Line {
        label: "reading".into(),
        steps: vec![
            PlanStep::Quiesce,
            PlanStep::Scan {
                range,
                slow_ms: opts.slow_ms,
                progress_steps: 100,
            },
        ],
    }])
}

/// --block-sweep: for each request size, sequential reads one at a time, then
/// queued `--queue-depth` deep for `--sweep-duration`.
fn sweep_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let sizes = sweep::sizes(m, ss);
    if sizes.is_empty() {
        return Err(TooSmall("smaller than the smallest request (4 KiB)".into()));
    }
    let mut lines = Vec::new();
    for (i, &size) in sizes.iter().enumerate() {
        let start = sweep::region(m, ss, i);
        let phase = sweep::sync_phase(m, ss, size, start);
        let from = sweep::queued_start(m, ss, size, start);
        OffsetGen::sequential(m, ss, size, from).map_err(|e| TooSmall(e.0))?;
        let write = opts
            .write
            .then(|| write_half(&phase, PhaseId::SweepWrite, "block sweep writes"));
        let read = PlanStep::Sync {
            phase,
            settle: first_only(i, opts),
            what: "block sweep".into(),
            flush_after: false,
        };
        let mut steps: Vec<PlanStep> = std::iter::once(read).chain(write).collect();
        steps.push(PlanStep::Queued(QueuedStep {
            id: PhaseId::SweepQueued,
            stream: Stream::Sequential { from },
            len: size,
            sector_size: ss,
            queue_depth: opts.queue_depth,
            duration: opts.sweep_duration,
            what: "block sweep (queued)".into(),
        }));
        lines.push(Line {
            label: format!("{size} bytes"),
            steps,
        });
    }
    Ok(lines)
}

/// --smr-check: on a rotating drive only, the baseline read probes, the sustained
/// random writes until the collapse or the budget, the idle period, and the spaced
/// read probes (docs/methods.md, "Hidden SMR").
fn smr_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let p = smr::plan(m, ss, opts.seed)
        .ok_or_else(|| TooSmall("smaller than its largest write (1 MiB)".into()))?;
    let secs = Duration::from_secs_f64;
    Ok(vec![
        Line {
            label: "baseline reads".into(),
            steps: vec![
                PlanStep::OnlyIfRotating,
                PlanStep::Pause(opts.settle),
                PlanStep::ProbeReads {
                    ops: p.probes.clone(),
                    spacing: Duration::ZERO,
                    set: ProbeSet::SmrBaseline,
                },
            ],
        },
        Line {
            label: "random writes".into(),
            steps: vec![PlanStep::SustainedWrites {
                writes: p.writes,
                budget: opts.smr_budget,
            }],
        },
        Line {
            label: "idle, then reads".into(),
            steps: vec![
                PlanStep::Idle(opts.smr_idle),
                PlanStep::ProbeReads {
                    ops: p.probes,
                    // 2 s apart, or closer after a shorter idle period.
                    spacing: secs(smr::PROBE_SPACING_S).min(opts.smr_idle),
                    set: ProbeSet::SmrPostIdle {
                        after_idle: opts.smr_idle,
                    },
                },
            ],
        },
    ])
}

/// Requests --verify keeps in flight: enough for a device to stream writes, few
/// enough that service times stay near their block (a slow block's time may land
/// on one of the others in flight; `--scan` places slow blocks exactly).
pub const VERIFY_DEPTH: QueueDepth = QueueDepth::fixed::<4>();

/// --verify: the range (--start, --end, --block-size as --scan's) written and
/// checked --passes times, [`VERIFY_DEPTH`] requests deep.
fn verify_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let range = scan::range(m, ss, opts.scan_span, opts.block_size)?;
    Ok(vec![Line {
        label: "writing".into(),
        steps: vec![PlanStep::Verify {
            range,
            passes: opts.verify_passes,
            nonce: opts.verify_nonce,
            queue_depth: VERIFY_DEPTH,
            slow_ms: opts.slow_ms,
        }],
    }])
}

/// --capacity-check: the probe blocks of [`super::capacity::plan`], one line.
fn capacity_lines(m: u64, ss: SectorSize, opts: &Options) -> Result<Vec<Line>, TooSmall> {
    let block = super::capacity::DEFAULT_BLOCK;
    let probes = super::capacity::plan(m, ss, block)?;
    Ok(vec![Line {
        label: "probing".into(),
        steps: vec![
            PlanStep::Quiesce,
            PlanStep::CapacityCheck {
                probes,
                block,
                preserve: opts.preserve,
            },
        ],
    }])
}
