//! What shapes the plans besides the device: the checked settings of a run, built
//! once by config and read by [`super::plan`] and the steps it makes.

use crate::results::settings::{BlockSize, Passes, QueueDepth, ScanSpan};
use std::time::Duration;

/// The options that shape plans, built by config from the command line
/// (`Config::options`), every value checked there. Each default is stated once,
/// in its option's declaration (cli/probe.rs): `Options::default()` (config.rs)
/// is a command line that gives none.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// The pause before each timed line (`--settle`).
    pub settle: Duration,
    /// The seed of every random stream (`--seed`).
    pub seed: u64,
    /// Whether the write halves of --zones and --block-sweep run (`-w`).
    pub write: bool,
    /// Requests kept in flight by queued reads (`--queue-depth`).
    pub queue_depth: QueueDepth,
    /// Seconds per size of -i (`--duration`).
    pub duration: Duration,
    /// Seconds of flushed writes per size of -S (`--write-duration`).
    pub write_duration: Duration,
    /// -S reads each block first and writes it back afterwards (`--preserve`).
    pub preserve: bool,
    /// Samples of --zones.
    pub zones: std::num::NonZeroU32,
    /// Bytes read per sample of --zones (`--zone-size`).
    pub zone_size: u64,
    /// Timed reads at random distances of --seek-profile (`--seek-samples`).
    pub seek_samples: u32,
    /// Where --scan and --verify start and end (`--start`, `--end`), checked.
    pub scan_span: ScanSpan,
    /// Bytes per read of --scan and per request of --verify (`--block-size`).
    pub block_size: BlockSize,
    /// Blocks at least this slow are listed by --scan (`--slow-ms`).
    pub slow_ms: f64,
    /// Seconds of queued reads per size of --block-sweep (`--sweep-duration`).
    pub sweep_duration: Duration,
    /// The budget of --smr-check's writes (`--smr-budget`).
    pub smr_budget: crate::results::smr::Budget,
    /// The idle period of --smr-check before its read probes (`--smr-idle`).
    pub smr_idle: Duration,
    /// Passes of --verify (`--passes`).
    pub verify_passes: Passes,
    /// The nonce of --verify's stamps, drawn once per run.
    pub verify_nonce: u64,
}
