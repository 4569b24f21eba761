//! The hidden-SMR check's data (`--smr-check`: its budget, samples and analysis)
//! and the signs of shingled recording in a device's description: plain data,
//! computed by `smr::behaviour` and `smr::signs`.

use serde::{Deserialize, Serialize};

/// How much the test may write: it stops at whichever comes first.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// The most bytes to write.
    pub bytes: u64,
    /// The most seconds of writing.
    pub seconds: f64,
}

/// One timed write completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteSample {
    /// Completion time, ns since the first write was issued.
    pub end_ns: u64,
    /// Bytes this write moved.
    pub bytes: u32,
    /// Issue to completion, ns.
    pub latency_ns: u64,
}

/// The raw measurements of the behaviour test, as the executor records them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SmrSamples {
    /// The timed write completions, in order.
    pub writes: Vec<WriteSample>,
    /// The bytes and seconds the writes were allowed (whichever ran out first stopped them).
    pub budget: Budget,
    /// The latencies of the read probes before the writes, ns.
    pub baseline_ns: Vec<u64>,
    /// The latencies of the read probes after the idle period, ns.
    pub post_idle_ns: Vec<u64>,
    /// The idle period before those probes, seconds.
    pub idle_s: f64,
}

/// The write rate over one window of `smr::behaviour::WINDOW_S`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RateWindow {
    /// Start of the window, seconds since the first write.
    pub start_s: f64,
    /// Bytes completed in the window.
    pub bytes: u64,
    /// bytes / window length.
    pub rate_bytes_per_s: f64,
}

/// A write that took at least `smr::behaviour::STALL_S`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stall {
    /// When it completed, seconds since the first write.
    pub at_s: f64,
    /// Bytes written before it.
    pub after_bytes: u64,
    /// How long it took, seconds.
    pub seconds: f64,
}

/// What the sustained-write test concluded about shingled recording.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmrConclusion {
    /// The write rate collapsed as a drive-managed SMR media cache does.
    HiddenSmr,
    /// The rate stayed level over more than any published media cache.
    Conventional,
    /// Neither within the budget (or the device cannot be judged).
    CannotTell,
    /// Flash or memory: shingled recording does not apply.
    NotApplicable,
}

/// Everything the test concluded, as plain data for the reporters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SmrAnalysis {
    /// Hidden SMR, conventional, cannot tell, or not applicable; `text` says why.
    pub verdict: SmrConclusion,
    /// The verdict with its evidence, one line for people.
    pub text: String,
    /// Bytes the test wrote in all, over `write_seconds`.
    pub bytes_written: u64,
    /// Seconds from the first write's issue to the last completion.
    pub write_seconds: f64,
    /// The write rate over time (full windows; the last, partial one left out).
    pub windows: Vec<RateWindow>,
    /// Writes that took `smr::behaviour::STALL_S` or more.
    pub stalls: Vec<Stall>,
    /// The best window rate before the collapse (or over the whole test), bytes/s.
    pub level_bytes_per_s: f64,
    /// The median rate of the windows from the collapse on, bytes/s.
    pub collapsed_bytes_per_s: Option<f64>,
    /// Bytes written before the first collapsed window.
    pub bytes_before_collapse: Option<u64>,
    /// Median latency of the read probes before the writes, ms.
    pub baseline_read_ms: Option<f64>,
    /// Median latency of the read probes after the idle period, ms.
    pub post_idle_read_ms: Option<f64>,
    /// The idle period before the post-idle probes, seconds.
    #[serde(default = "default_idle_s")]
    pub idle_s: f64,
}

/// The idle period of runs saved before `idle_s` was recorded: the plan's
/// `test_plans::smr::IDLE_S` of then, which stays this value if the plan's changes.
pub const IDLE_S_OF_OLD_RUNS: f64 = 5.0;

fn default_idle_s() -> f64 {
    IDLE_S_OF_OLD_RUNS
}

/// What a sign of shingled recording rests on: the zone model, TRIM on a disk, a model list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmrSignKind {
    /// The kernel or the drive reports a shingled zone model (host-aware,
    /// host-managed or drive-managed).
    ZoneModel,
    /// A rotating drive that advertises TRIM/UNMAP, as drive-managed SMR disks do
    /// to reclaim their bands.
    TrimOnRotating,
    /// The model string is on a vendor's published list of DM-SMR models.
    ModelList,
}

/// How much a sign says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SmrSignStrength {
    /// The device itself reports shingled recording.
    Reported,
    /// A hint, not a proof: only the behaviour test (or the vendor) can tell.
    Hint,
}

/// One sign, with its explanation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmrSign {
    /// What the sign rests on (zone model, TRIM on a rotating disk, model list).
    pub kind: SmrSignKind,
    /// Whether it is reported by the device or only a hint.
    pub strength: SmrSignStrength,
    /// One line for people, saying what the sign is and what it is not.
    pub text: String,
    /// Where the fact behind the sign comes from (the vendor's list for
    /// [`SmrSignKind::ModelList`]).
    pub source: Option<String>,
}
