//! The seek profile's data (`--seek-profile`): the samples, and the figures the
//! analysis derives from them (`analysis::seek_profile`).

use serde::{Deserialize, Serialize};

use super::stats::Summary;

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
