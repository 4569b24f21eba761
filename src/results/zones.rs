//! The zone transfer curve of `--zones`, computed from its phases and stored beside them.

use serde::{Deserialize, Serialize};

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
