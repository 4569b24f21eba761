//! The latency summaries and histograms that phases keep, as plain data: their
//! arithmetic (exact summaries, recording, quantiles) is the statistics module's.

use serde::{Deserialize, Serialize};

/// Mean, spread and percentiles of a set of latencies, in nanoseconds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Number of samples.
    pub count: u64,
    /// Arithmetic mean.
    pub mean_ns: f64,
    /// Standard deviation (population).
    pub stddev_ns: f64,
    /// Smallest sample.
    pub min_ns: u64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}

/// A log-linear histogram of nanosecond latencies: exact below 64 ns, and within
/// 1/64 of the value (about 1.6%) above, in at most a few thousand buckets. The mean,
/// minimum and maximum are exact.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Counts by bucket index (see [`Histogram::bucket_low`]).
    pub counts: Vec<u64>,
    /// Number of samples.
    pub count: u64,
    /// Sum of the samples (exact mean).
    pub sum_ns: u128,
    /// Sum of the squares of the samples (exact standard deviation).
    pub sum_sq_ns: f64,
    /// Smallest sample.
    pub min_ns: u64,
    /// Largest sample.
    pub max_ns: u64,
}
