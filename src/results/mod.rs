//! The results of a run as plain, serialisable data: the only input of reporters.

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

pub mod burnin;
pub mod capacity;
pub mod device;
pub mod engine;
pub mod failures;
pub mod health;
pub mod path;
pub mod record;
pub mod scan;
pub mod settings;
pub mod smart;
pub mod smr;
pub mod stats;
pub mod test_kind;
pub mod verdict;
pub mod verify;
use device::DeviceInfo;
pub use engine::QueuedEngine;
pub use scan::{ScanResult, SectorRange, SlowRange, SlowTiming};
use stats::{Histogram, Summary};
use test_kind::{PhaseId, TestKind};
pub use verdict::{ByteSpan, Code, Finding, Severity, State, Verdict};

/// The version of this data model's JSON form; raised on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// One timed phase (one line of diskinfo's output).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    /// Which phase.
    pub id: PhaseId,
    /// How many timed operations the plan had (for a phase bounded by time, the
    /// number issued).
    pub ops_planned: u64,
    /// The length of each timed operation in bytes.
    pub op_bytes: u32,
    /// Byte offset of the first timed operation.
    pub first_offset_bytes: u64,
    /// In nanoseconds: for a phase run one operation at a time, the sum of its
    /// operations' latencies (each timed where its request is carried out, the
    /// tool's own time between them excluded); for a queued phase, from the first
    /// submission to the last completion.
    pub elapsed_ns: u64,
    /// Each completed operation's latency in nanoseconds, in order. They add up to
    /// `elapsed_ns`. Empty when the phase keeps a histogram instead.
    #[serde(default)]
    pub latencies_ns: Vec<u64>,
    /// The latencies as a histogram, for phases with too many operations to keep
    /// each (-i, -S).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub histogram: Option<Histogram>,
    /// Requests kept in flight (-i).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u32>,
    /// The seed of the random offsets (-i, -S), to repeat the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Mean, spread and percentiles of the latencies (absent when none completed).
    pub summary: Option<Summary>,
    /// Whether the phase was stopped (Ctrl-C or an error) before its end.
    #[serde(default)]
    pub stopped_early: bool,
}

impl PhaseResult {
    /// Timed operations completed (from the histogram, or the kept latencies).
    pub fn ops_done(&self) -> u64 {
        match &self.histogram {
            Some(h) => h.count,
            None => self.latencies_ns.len() as u64,
        }
    }
    /// Whether the phase ran to its end: every planned operation completed.
    pub fn complete(&self) -> bool {
        !self.stopped_early && self.ops_done() == self.ops_planned
    }
    /// Elapsed time in seconds.
    pub fn elapsed_s(&self) -> f64 {
        self.elapsed_ns as f64 / 1e9
    }
    /// Bytes transferred by the completed operations.
    pub fn bytes_done(&self) -> u64 {
        self.ops_done() * u64::from(self.op_bytes)
    }
}

/// How a test ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every phase ran to the end.
    Complete,
    /// Stopped by Ctrl-C; the phases listed are the ones measured.
    Interrupted,
    /// Stopped by an error (the message names the phase, offset and errno).
    Failed(String),
    /// Not run: the device is too small or an earlier test failed (why).
    Skipped(String),
}

/// One test (any [`TestKind`]) on one disk: its phases, how it ended, what was derived.
///
/// Its JSON is [`Wire`]'s: the payload's fields side by side, each absent when
/// empty, as before the payload was one enum.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// Which test.
    pub test: TestKind,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// How its I/O was issued: sync, queued (with the engine's name), both, or none.
    pub engine: Engine,
    /// The phases measured, in order. The last may be partial (interrupted or
    /// failed): its completed operations are kept, but reporters print only
    /// complete phases.
    pub phases: Vec<PhaseResult>,
    /// How the test ended.
    pub outcome: Outcome,
    /// What the test found beyond its phases: one kind's, never two.
    pub payload: Payload,
}

/// What a test found beyond its phases, by the test that finds it: one kind's
/// figures at most, so a result cannot carry two tests' findings.
#[derive(Debug, Clone, Default, PartialEq)]
// One payload per test of a drive, a handful a run: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Payload {
    /// Nothing yet (or nothing derived: the diskinfo tests, -i, -S, the sweep).
    #[default]
    None,
    /// `-c`: the command overhead per real sector (the text prints diskinfo's
    /// arithmetic, which assumes 512-byte sectors).
    CommandOverhead(CommandOverhead),
    /// `--zones`: the transfer curves derived from the `zone` phases.
    Zones {
        /// The read curve, from the `zone` phases.
        read: Option<ZoneCurve>,
        /// With -w, the write curve, from the `zone_write` phases.
        write: Option<ZoneCurve>,
    },
    /// `--seek-profile`: the samples and what they show.
    SeekProfile {
        /// Every sample's distance and latency.
        samples: Option<SeekSamples>,
        /// The bins and the figures derived from the samples.
        analysis: Option<SeekAnalysis>,
    },
    /// `--scan`: the surface scan.
    Scan(ScanResult),
    /// `--verify`: the write-and-verify passes.
    Verify(verify::VerifyResult),
    /// `--capacity-check`: what the probe blocks said about the drive's real size.
    Capacity(CapacityResult),
    /// `--smr-check`: the conclusion and what it was drawn from.
    Smr {
        /// The verdict with its evidence and the write rate over time.
        analysis: Option<smr::SmrAnalysis>,
        /// Every timed completion, kept for the analysis while the run lasts
        /// (not saved: the analysis holds what the reporters need).
        samples: Option<smr::SmrSamples>,
    },
}

/// [`TestResult`]'s JSON form: the payload's fields side by side, each absent
/// when empty (the form saved before the payload was one enum; docs/json.md).
/// Borrowed when saving, owned when read.
#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    test: TestKind,
    settle_s: f64,
    engine: Engine,
    phases: Cow<'a, [PhaseResult]>,
    outcome: Cow<'a, Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    zone_curve: Option<Cow<'a, ZoneCurve>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_curve: Option<Cow<'a, ZoneCurve>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seek_samples: Option<Cow<'a, SeekSamples>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seek_analysis: Option<Cow<'a, SeekAnalysis>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scan: Option<Cow<'a, ScanResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command_overhead: Option<Cow<'a, CommandOverhead>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verify: Option<Cow<'a, verify::VerifyResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<Cow<'a, CapacityResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    smr: Option<Cow<'a, smr::SmrAnalysis>>,
}

impl Serialize for TestResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Wire {
            test: self.test,
            settle_s: self.settle_s,
            engine: self.engine,
            phases: Cow::Borrowed(&self.phases),
            outcome: Cow::Borrowed(&self.outcome),
            zone_curve: self.zone_curve().map(Cow::Borrowed),
            write_curve: self.write_curve().map(Cow::Borrowed),
            seek_samples: self.seek_samples().map(Cow::Borrowed),
            seek_analysis: self.seek_analysis().map(Cow::Borrowed),
            scan: self.scan().map(Cow::Borrowed),
            command_overhead: self.command_overhead().map(Cow::Borrowed),
            verify: self.verify().map(Cow::Borrowed),
            capacity: self.capacity().map(Cow::Borrowed),
            smr: self.smr().map(Cow::Borrowed),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for TestResult {
    /// A saved result; more than one kind's payload is refused.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TestResult, D::Error> {
        let w = Wire::deserialize(d)?;
        let mut kinds = Vec::new();
        let mut payload = Payload::None;
        let mut one = |name: &'static str, p: Payload| {
            kinds.push(name);
            payload = p;
        };
        if let Some(c) = w.command_overhead.map(Cow::into_owned) {
            one("command_overhead", Payload::CommandOverhead(c));
        }
        if w.zone_curve.is_some() || w.write_curve.is_some() {
            let (read, write) = (
                w.zone_curve.map(Cow::into_owned),
                w.write_curve.map(Cow::into_owned),
            );
            one("zone_curve", Payload::Zones { read, write });
        }
        if w.seek_samples.is_some() || w.seek_analysis.is_some() {
            let (samples, analysis) = (
                w.seek_samples.map(Cow::into_owned),
                w.seek_analysis.map(Cow::into_owned),
            );
            one("seek_samples", Payload::SeekProfile { samples, analysis });
        }
        if let Some(x) = w.scan.map(Cow::into_owned) {
            one("scan", Payload::Scan(x));
        }
        if let Some(x) = w.verify.map(Cow::into_owned) {
            one("verify", Payload::Verify(x));
        }
        if let Some(x) = w.capacity.map(Cow::into_owned) {
            one("capacity", Payload::Capacity(x));
        }
        if let Some(x) = w.smr.map(Cow::into_owned) {
            let analysis = Some(x);
            one(
                "smr",
                Payload::Smr {
                    analysis,
                    samples: None,
                },
            );
        }
        if kinds.len() > 1 {
            return Err(serde::de::Error::custom(format!(
                "a {} test result carries {}: one kind's at most",
                w.test.id(),
                kinds.join(" and ")
            )));
        }
        Ok(TestResult {
            test: w.test,
            settle_s: w.settle_s,
            engine: w.engine,
            phases: w.phases.into_owned(),
            outcome: w.outcome.into_owned(),
            payload,
        })
    }
}

/// The capacity check's result (`--capacity-check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityResult {
    /// Reported size against the size that stores data, over every round's probes.
    pub conclusion: capacity::Capacity,
    /// Rounds of probes (the first and its refinements).
    pub rounds: u32,
    /// Probe writes that failed (their read-backs say what they left).
    pub failed_writes: u32,
    /// Every probe block and how it read back, in the order read.
    pub probe_blocks: Vec<capacity::Probe>,
}

impl TestResult {
    /// A test that has measured nothing yet, complete until told otherwise.
    pub fn new(test: TestKind, settle_s: f64, engine: Engine) -> TestResult {
        TestResult {
            test,
            settle_s,
            engine,
            phases: Vec::new(),
            outcome: Outcome::Complete,
            payload: Payload::None,
        }
    }

    /// `-c`: the command overhead per real sector.
    pub fn command_overhead(&self) -> Option<&CommandOverhead> {
        match &self.payload {
            Payload::CommandOverhead(c) => Some(c),
            _ => None,
        }
    }

    /// `--zones`: the read curve.
    pub fn zone_curve(&self) -> Option<&ZoneCurve> {
        match &self.payload {
            Payload::Zones { read, .. } => read.as_ref(),
            _ => None,
        }
    }

    /// `--zones` with -w: the write curve.
    pub fn write_curve(&self) -> Option<&ZoneCurve> {
        match &self.payload {
            Payload::Zones { write, .. } => write.as_ref(),
            _ => None,
        }
    }

    /// `--seek-profile`: every sample's distance and latency.
    pub fn seek_samples(&self) -> Option<&SeekSamples> {
        match &self.payload {
            Payload::SeekProfile { samples, .. } => samples.as_ref(),
            _ => None,
        }
    }

    /// `--seek-profile`: the samples to add to, once the profile's are taken.
    pub fn seek_samples_mut(&mut self) -> Option<&mut SeekSamples> {
        match &mut self.payload {
            Payload::SeekProfile { samples, .. } => samples.as_mut(),
            _ => None,
        }
    }

    /// `--seek-profile`: the bins and the figures derived from the samples.
    pub fn seek_analysis(&self) -> Option<&SeekAnalysis> {
        match &self.payload {
            Payload::SeekProfile { analysis, .. } => analysis.as_ref(),
            _ => None,
        }
    }

    /// `--scan`: the surface scan.
    pub fn scan(&self) -> Option<&ScanResult> {
        match &self.payload {
            Payload::Scan(s) => Some(s),
            _ => None,
        }
    }

    /// `--verify`: the write-and-verify passes.
    pub fn verify(&self) -> Option<&verify::VerifyResult> {
        match &self.payload {
            Payload::Verify(v) => Some(v),
            _ => None,
        }
    }

    /// `--capacity-check`: what the probe blocks said.
    pub fn capacity(&self) -> Option<&CapacityResult> {
        match &self.payload {
            Payload::Capacity(c) => Some(c),
            _ => None,
        }
    }

    /// `--smr-check`: the conclusion with its evidence.
    pub fn smr(&self) -> Option<&smr::SmrAnalysis> {
        match &self.payload {
            Payload::Smr { analysis, .. } => analysis.as_ref(),
            _ => None,
        }
    }

    /// `--smr-check`: the timed completions kept while the run lasts.
    pub fn smr_samples(&self) -> Option<&smr::SmrSamples> {
        match &self.payload {
            Payload::Smr { samples, .. } => samples.as_ref(),
            _ => None,
        }
    }

    /// `--smr-check`: the samples to add to, made (with the payload) if none yet.
    pub fn smr_samples_mut(&mut self) -> &mut smr::SmrSamples {
        if !matches!(self.payload, Payload::Smr { .. }) {
            self.payload = Payload::Smr {
                analysis: None,
                samples: None,
            };
        }
        match &mut self.payload {
            Payload::Smr { samples, .. } => samples.get_or_insert_with(Default::default),
            _ => unreachable!("the payload was made an SMR check's above"),
        }
    }

    /// The first phase recorded with this id, complete or not; None if it never ran.
    pub fn phase(&self, id: PhaseId) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.id == id)
    }
}

/// A note on the validity of a measurement, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// A stable identifier, e.g. `page_cache`.
    pub code: WarningCode,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub advice: String,
}

/// The stable identifiers of warnings (docs/json.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// A simulated drive: figures from a model.
    Simulated,
    /// O_DIRECT refused: the page cache may serve reads.
    PageCache,
    /// A loop device without direct I/O on its backing file.
    LoopWithoutDirectIo,
    /// The data lives in RAM (tmpfs or ramfs).
    InMemory,
    /// A sparse image file: its holes are read without touching a disk.
    Sparse,
    /// A file size that is not a whole number of sectors.
    PartialSector,
    /// The device does not support flushing its write cache.
    FlushUnsupported,
    /// io_uring unavailable: the queued engine fell back.
    QueuedEngine,
    /// Other programs used the device during a test.
    OtherIo,
    /// A transfer faster than the interface: a cache.
    FasterThanInterface,
    /// Seeks faster than the rotation allows: a cache.
    SeekFasterThanRotation,
    /// Flushed writes too fast for the medium: a lying write cache.
    FlushNotHonoured,
    /// libblkid could not check for signatures before writing: only the
    /// built-in list was.
    SignaturesBuiltinOnly,
    /// The signature check could not read part of the device (--force went on).
    SignaturesUnreadable,
    /// A request was given up unanswered (--io-timeout or Ctrl-C): the process can
    /// end only when the kernel gives it back.
    RequestAbandoned,
    /// A simulated drive reached a limit of the simulator (docs/sim.md, "Stored
    /// data"): a note about the run, never a fault of the drive or its sectors.
    SimulatorLimit,
}

impl WarningCode {
    /// Its stable name, as in the JSON (e.g. `page_cache`).
    pub fn name(self) -> &'static str {
        match self {
            WarningCode::Simulated => "simulated",
            WarningCode::PageCache => "page_cache",
            WarningCode::LoopWithoutDirectIo => "loop_without_direct_io",
            WarningCode::InMemory => "in_memory",
            WarningCode::Sparse => "sparse",
            WarningCode::PartialSector => "partial_sector",
            WarningCode::FlushUnsupported => "flush_unsupported",
            WarningCode::QueuedEngine => "queued_engine",
            WarningCode::OtherIo => "other_io",
            WarningCode::FasterThanInterface => "faster_than_interface",
            WarningCode::SeekFasterThanRotation => "seek_faster_than_rotation",
            WarningCode::FlushNotHonoured => "flush_not_honoured",
            WarningCode::SignaturesBuiltinOnly => "signatures_builtin_only",
            WarningCode::SignaturesUnreadable => "signatures_unreadable",
            WarningCode::RequestAbandoned => "request_abandoned",
            WarningCode::SimulatorLimit => "simulator_limit",
        }
    }
}

/// The engine that ran a test; in the JSON `"none"`, `"sync"`, the queued engine's
/// name, or `"sync+"` and the queued engine's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Engine {
    /// Nothing ran (an earlier test failed).
    None,
    /// One positioned operation at a time.
    Sync,
    /// Many operations in flight.
    Queued(QueuedEngine),
    /// Both: one at a time, then queued (--block-sweep).
    SyncAndQueued(QueuedEngine),
}

impl Engine {
    /// The engine after a queued step ran with `q`: queued alone, or beside sync.
    pub fn with_queued(self, q: QueuedEngine) -> Engine {
        match self {
            Engine::Queued(_) => Engine::Queued(q),
            _ => Engine::SyncAndQueued(q),
        }
    }
}

impl From<Engine> for String {
    fn from(e: Engine) -> String {
        match e {
            Engine::None => "none".into(),
            Engine::Sync => "sync".into(),
            Engine::Queued(q) => q.name().into(),
            Engine::SyncAndQueued(q) => format!("sync+{}", q.name()),
        }
    }
}

impl TryFrom<String> for Engine {
    type Error = String;
    fn try_from(s: String) -> Result<Engine, String> {
        let queued = |n: &str| match QueuedEngine::from_name(n) {
            QueuedEngine::Unknown if n != "queued" => Err(format!("unknown engine {s:?}")),
            q => Ok(q),
        };
        match s.as_str() {
            "none" => Ok(Engine::None),
            "sync" => Ok(Engine::Sync),
            other => match other.strip_prefix("sync+") {
                Some(q) => queued(q).map(Engine::SyncAndQueued),
                None => queued(other).map(Engine::Queued),
            },
        }
    }
}

/// Why a disk was not probed (in the JSON, the message alone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum DiskFailure {
    /// It could not be opened or described.
    Open(String),
    /// Writing to it was refused: a safety rule, no confirmation, or the signature
    /// check could not read it.
    Refused(String),
}

impl DiskFailure {
    /// The message: the path, what was wrong, what to do.
    pub fn message(&self) -> &str {
        match self {
            DiskFailure::Open(m) | DiskFailure::Refused(m) => m,
        }
    }
}

impl std::fmt::Display for DiskFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl From<DiskFailure> for String {
    fn from(f: DiskFailure) -> String {
        match f {
            DiskFailure::Open(m) | DiskFailure::Refused(m) => m,
        }
    }
}

impl From<String> for DiskFailure {
    /// A saved message: a refusal says "refusing to write" (`ProbeError::Refused`).
    fn from(m: String) -> DiskFailure {
        if m.contains(": refusing to write: ") {
            DiskFailure::Refused(m)
        } else {
            DiskFailure::Open(m)
        }
    }
}

/// Everything about one disk of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskResult {
    /// The disk as named on the command line (a path, or a `sim:` spec).
    pub name: String,
    /// Identity and geometry; absent when the target could not be opened.
    pub info: Option<DeviceInfo>,
    /// The tests, in the order they ran.
    pub tests: Vec<TestResult>,
    /// Warnings about the figures' validity (page cache, simulation, ...), with advice.
    pub warnings: Vec<Warning>,
    /// The error that stopped this disk, if any.
    pub error: Option<DiskFailure>,
    /// Signs of shingled recording that need no writing (read from the device's
    /// description before any test).
    #[serde(default)]
    pub smr_signs: Vec<smr::SmrSign>,
    /// `--burn-in`: each step of this drive's burn-in and how it ended, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub burn_in: Vec<burnin::StepRecord>,
    /// SMART health before and after the tests, the self-tests and the findings
    /// (--smart, --smart-test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smart: Option<smart::SmartResult>,
    /// The drive's verdict with its findings (--qualify, --burn-in): see
    /// docs/verdict.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// `--path-check`: the drive's rates alone and with the run's other drives,
    /// its path and the check's findings about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_check: Option<path::PathDrive>,
}

impl DiskResult {
    /// A result with only the name: no info, tests, warnings or error yet.
    pub fn new(name: &str) -> DiskResult {
        DiskResult {
            name: name.to_string(),
            info: None,
            tests: Vec::new(),
            warnings: Vec::new(),
            error: None,
            smr_signs: Vec::new(),
            burn_in: Vec::new(),
            smart: None,
            verdict: None,
            path_check: None,
        }
    }
}

/// A whole run: the tool, what was asked, and each disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// "seekprobe".
    pub tool: String,
    /// The version of seekprobe that made the run (its Cargo version).
    pub tool_version: String,
    /// The tests asked for, in the order they run.
    pub tests: Vec<TestKind>,
    /// Whether the verbose (diskinfo -v) form was asked for.
    pub verbose: bool,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// Each disk, in the order given.
    pub disks: Vec<DiskResult>,
    /// When the run started, in seconds since the Unix epoch (absent in runs saved
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_s: Option<u64>,
    /// `--burn-in`: the command that started it, for `--resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burn_in: Option<burnin::RunInfo>,
    /// The host, command line, end and operator's fields of the run.
    #[serde(default)]
    pub record: record::RunRecord,
}

// The analyses, computed from the measurements and stored beside them.

/// -c's figures per real sector (diskinfo's text divides by 2048 whatever the
/// sector size; see docs/methods.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandOverhead {
    /// The logical sector size the figures are per.
    pub sector_bytes: u32,
    /// The 10 MiB of sequential reads, per sector read.
    pub mega_ms_per_sector: f64,
    /// The 20480 reads of sector 0, per read.
    pub sector_ms_per_read: f64,
    /// The difference: the cost of one command beyond moving one sector.
    pub overhead_ms: f64,
}

/// One point of the zone curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZonePoint {
    /// Where the sample starts.
    pub offset_bytes: u64,
    /// Its sequential read rate.
    pub rate_bytes_per_s: f64,
    /// The mean time of its reads (for the access-time curve).
    pub mean_read_ns: f64,
}

/// A step between recording zones: the rate, smoothed by a median of three samples,
/// changes by more than the analysis's step threshold between neighbouring samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneStep {
    /// Where the later sample starts.
    pub offset_bytes: u64,
    /// The smoothed rate just before the step, in bytes/s.
    pub from_bytes_per_s: f64,
    /// The smoothed rate at the later sample, in bytes/s.
    pub to_bytes_per_s: f64,
}

/// The transfer rate over the whole device.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ZoneCurve {
    /// The samples, from the outer to the inner zone.
    pub points: Vec<ZonePoint>,
    /// Highest sample rate, unsmoothed, in bytes/s.
    pub max_bytes_per_s: f64,
    /// Lowest sample rate, unsmoothed, in bytes/s.
    pub min_bytes_per_s: f64,
    /// Unweighted mean of the sample rates, in bytes/s.
    pub mean_bytes_per_s: f64,
    /// The first sample's rate over the last one's.
    pub outer_inner_ratio: f64,
    /// Where the rate steps.
    pub steps: Vec<ZoneStep>,
}

/// The raw samples of `--seek-profile`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeekSamples {
    /// The distance of each timed read from the one before it, in sectors.
    pub distances_sectors: Vec<u64>,
    /// Latency of each timed read in ns, in the order of `distances_sectors`.
    pub latencies_ns: Vec<u64>,
    /// Where each timed read was, in sectors (for access times over the disk).
    #[serde(default)]
    pub positions_sectors: Vec<u64>,
    /// The fixed distance of the rotation samples, in sectors.
    pub rotation_distance_sectors: u64,
    /// Latencies of the rotation samples in ns, in the order taken.
    pub rotation_latencies_ns: Vec<u64>,
    /// The device's size in sectors (the full stroke).
    pub sectors: u64,
    /// The seed the pairs were drawn with (`--seed` repeats them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Where the untimed read of each random-distance pair was, in sectors, in the
    /// order of `distances_sectors` (for the fitted curve).
    #[serde(default)]
    pub from_sectors: Vec<u64>,
    /// Short backward hops over the disk that measure its track capacity, and with
    /// it where each sector lies across the stroke.
    #[serde(default)]
    pub tracks: SeekSet,
    /// Pairs between the first and the last thousandth of the device.
    #[serde(default)]
    pub full_stroke: SeekSet,
    /// Pairs a third of the stroke apart (on the measured track map).
    #[serde(default)]
    pub third: SeekSet,
    /// Backward hops of one to 64 tracks (on the measured track map), where the
    /// access time's floor steps from a head switch to a seek.
    #[serde(default)]
    pub adjacent: SeekSet,
    /// Reads 32 KiB behind the one before, after a pause uniform over a
    /// revolution: neither seek nor head switch, so their floor is the fixed
    /// cost of a read that misses the cache.
    #[serde(default)]
    pub zero: SeekSet,
}

/// Timed reads of one kind of the seek profile, each after an untimed read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeekSet {
    /// Where each untimed read was, in sectors.
    pub from_sectors: Vec<u64>,
    /// Where each timed read was, in sectors.
    pub to_sectors: Vec<u64>,
    /// Latency of each timed read in ns, in the same order.
    pub latencies_ns: Vec<u64>,
}

/// A seek figure with its uncertainty.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeekFigure {
    /// The seek time, in ns.
    pub value_ns: f64,
    /// One standard uncertainty of `value_ns`, in ns.
    pub uncertainty_ns: f64,
    /// The timed reads it was estimated from.
    pub samples: u32,
    /// Read from the fitted curve (too few direct samples) rather than measured at
    /// its distance.
    pub from_curve: bool,
    /// The uncertainty is more than a fifth of the figure.
    pub uncertain: bool,
}

impl SeekFigure {
    /// A figure; `uncertain` follows from the two numbers.
    pub fn new(value_ns: f64, uncertainty_ns: f64, samples: u32, from_curve: bool) -> Self {
        SeekFigure {
            value_ns,
            uncertainty_ns,
            samples,
            from_curve,
            uncertain: uncertainty_ns > value_ns.abs() / 5.0,
        }
    }
}

/// The seek curve fitted to every sample: `min_ns + sqrt_ns * sqrt(f)` up to the
/// knee, then a straight line, `f` the distance as a fraction of the stroke.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeekCurveFit {
    /// The curve at distance zero, in ns.
    pub min_ns: f64,
    /// The coefficient of the square root, in ns.
    pub sqrt_ns: f64,
    /// Where the square root gives way to the line, as a fraction of the stroke.
    pub knee_fraction: f64,
    /// The line's slope, in ns per whole stroke.
    pub linear_ns_per_stroke: f64,
    /// The root mean square of the residuals (the rotational wait's spread and more), in ns.
    pub rms_ns: f64,
    /// Whether the fractions are across the cylinders (the measured track map) or of
    /// the sectors (no map).
    pub radial: bool,
}

impl SeekCurveFit {
    /// The fitted seek time at `f` of the stroke, in ns.
    pub fn at(&self, f: f64) -> f64 {
        let f = f.clamp(0.0, 1.0);
        self.min_ns
            + self.sqrt_ns * f.min(self.knee_fraction).sqrt()
            + self.linear_ns_per_stroke * (f - self.knee_fraction).max(0.0)
    }
}

/// The access time's floor over hops of one range of track counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SeekFloor {
    /// The shortest hop of the class, in tracks.
    pub from_tracks: f64,
    /// Just past the longest, in tracks.
    pub to_tracks: f64,
    /// Timed reads in the class.
    pub samples: u32,
    /// The low end of the access times, corrected for the sample count, in ns.
    pub floor_ns: f64,
    /// The access time less the rotational wait, estimated from both ends of the
    /// distribution, in ns.
    pub both_ends_ns: f64,
}

/// One distance bin of the seek profile (a factor of 2 in distance).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeekBin {
    /// Shortest distance in the bin, in sectors.
    pub from_sectors: u64,
    /// Just past the longest, in sectors.
    pub to_sectors: u64,
    /// Latencies of the reads in the bin.
    pub summary: Summary,
    /// The mean access the fitted seek curve gives the bin's reads (their seeks
    /// on the curve plus half a revolution), in ns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curve_mean_ns: Option<f64>,
}

/// What the seek profile shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeekAnalysis {
    /// The bins, shortest distance first.
    pub bins: Vec<SeekBin>,
    /// One revolution, measured, in ns (None when the latencies do not look like a
    /// rotating disk's).
    pub revolution_ns: Option<f64>,
    /// Revolutions per minute from `revolution_ns`; None when that is None.
    pub measured_rpm: Option<f64>,
    /// The rotation rate the device reports, if any.
    pub reported_rpm: Option<u32>,
    /// Whether the measured and reported rates differ by more than 3%.
    pub rpm_disagrees: bool,
    /// Mean rotational latency (half a revolution), in ns.
    pub rotational_latency_ns: Option<f64>,
    /// Seek time (mean access minus the rotational latency) over the shortest bin.
    pub track_to_track_ns: Option<f64>,
    /// The same at a third of the stroke (the classic "average seek").
    pub average_ns: Option<f64>,
    /// The same over the longest distances.
    pub full_stroke_ns: Option<f64>,
    /// Track-to-track seek (to the adjacent cylinder), with its uncertainty.
    #[serde(default)]
    pub track_to_track: Option<SeekFigure>,
    /// A seek across a third of the stroke, with its uncertainty.
    #[serde(default)]
    pub average: Option<SeekFigure>,
    /// A seek across the whole stroke, with its uncertainty.
    #[serde(default)]
    pub full_stroke: Option<SeekFigure>,
    /// Switching heads within a cylinder (the floor before the seek's), if found.
    #[serde(default)]
    pub head_switch: Option<SeekFigure>,
    /// The drive's fixed cost of a read that misses its cache (the floor of reads
    /// that need neither seek nor head switch), already taken out of every figure;
    /// None when it could not be measured (the figures then still hold it).
    #[serde(default)]
    pub fixed_cost: Option<SeekFigure>,
    /// Why there is no track-to-track figure, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_to_track_missing: Option<String>,
    /// The access time's floor by hop length in tracks.
    #[serde(default)]
    pub floors: Vec<SeekFloor>,
    /// The seek curve fitted to every sample.
    #[serde(default)]
    pub curve: Option<SeekCurveFit>,
    /// The track capacity measured over the disk: (sector, sectors per track).
    #[serde(default)]
    pub track_sectors: Vec<(u64, f64)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_saves_as_its_old_field_and_two_are_refused() {
        let mut t = TestResult::new(TestKind::CommandOverhead, 1.0, Engine::Sync);
        t.payload = Payload::CommandOverhead(CommandOverhead {
            sector_bytes: 512,
            mega_ms_per_sector: 0.5,
            sector_ms_per_read: 0.25,
            overhead_ms: 0.25,
        });
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            "{\"test\":\"command_overhead\",\"settle_s\":1.0,\"engine\":\"sync\",\"phases\":[],\
             \"outcome\":\"complete\",\"command_overhead\":{\"sector_bytes\":512,\
             \"mega_ms_per_sector\":0.5,\"sector_ms_per_read\":0.25,\"overhead_ms\":0.25}}"
        );
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), t);
        let bare = TestResult::new(TestKind::Scan, 0.0, Engine::None);
        let json = serde_json::to_string(&bare).unwrap();
        assert!(!json.contains("scan\":"), "{json}");
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), bare);
        let zones = TestResult {
            payload: Payload::Zones {
                read: None,
                write: Some(ZoneCurve {
                    points: vec![],
                    max_bytes_per_s: 1.0,
                    min_bytes_per_s: 1.0,
                    mean_bytes_per_s: 1.0,
                    outer_inner_ratio: 1.0,
                    steps: vec![],
                }),
            },
            ..TestResult::new(TestKind::Zones, 0.0, Engine::Sync)
        };
        let json = serde_json::to_string(&zones).unwrap();
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), zones);
        // Two kinds' payloads in one saved result cannot be read.
        let both = json.replace("\"write_curve\"", "\"command_overhead\":{\"sector_bytes\":512,\
             \"mega_ms_per_sector\":0.5,\"sector_ms_per_read\":0.25,\"overhead_ms\":0.25},\"write_curve\"");
        let e = serde_json::from_str::<TestResult>(&both)
            .unwrap_err()
            .to_string();
        assert!(e.contains("carries command_overhead and zone_curve"), "{e}");
    }

    #[test]
    fn engines_serialise_to_their_names_and_back() {
        use QueuedEngine::*;
        for (e, s) in [
            (Engine::None, "none"),
            (Engine::Sync, "sync"),
            (Engine::Queued(Unknown), "queued"),
            (Engine::Queued(IoUring), "io_uring"),
            (Engine::Queued(Threads), "threads"),
            (Engine::Queued(Virtual), "virtual"),
            (Engine::SyncAndQueued(IoUring), "sync+io_uring"),
            (Engine::SyncAndQueued(Virtual), "sync+virtual"),
        ] {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<Engine>(&json).unwrap(), e);
        }
        assert!(serde_json::from_str::<Engine>("\"sync+warp\"").is_err());
        assert_eq!(
            Engine::Sync.with_queued(Threads),
            Engine::SyncAndQueued(Threads)
        );
        assert_eq!(
            Engine::Queued(Unknown).with_queued(Virtual),
            Engine::Queued(Virtual)
        );
    }

    #[test]
    fn warning_codes_and_failures_serialise_to_plain_strings() {
        for c in [
            WarningCode::Simulated,
            WarningCode::PageCache,
            WarningCode::LoopWithoutDirectIo,
            WarningCode::InMemory,
            WarningCode::Sparse,
            WarningCode::PartialSector,
            WarningCode::FlushUnsupported,
            WarningCode::QueuedEngine,
            WarningCode::OtherIo,
            WarningCode::FasterThanInterface,
            WarningCode::SeekFasterThanRotation,
            WarningCode::FlushNotHonoured,
            WarningCode::SignaturesBuiltinOnly,
        ] {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
        }
        let f = DiskFailure::Refused("/dev/x: refusing to write: it carries gpt; wipe".into());
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(json, "\"/dev/x: refusing to write: it carries gpt; wipe\"");
        assert_eq!(serde_json::from_str::<DiskFailure>(&json).unwrap(), f);
        let o: DiskFailure = serde_json::from_str("\"/dev/y: no such file\"").unwrap();
        assert_eq!(o, DiskFailure::Open("/dev/y: no such file".into()));
    }
}
