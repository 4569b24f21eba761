//! Analyses of the beyond-diskinfo tests, as pure functions of measured data: the
//! zone transfer curve and its steps, the seek-distance profile, and the rotation
//! rate measured from the spread of latencies.

use crate::results::device::{DeviceInfo, Rotation};
use crate::results::stats::Summary;
use crate::results::test_kind::PhaseId;
use crate::results::{Payload, PhaseResult, TestResult};

use crate::results::{
    CommandOverhead, SeekAnalysis, SeekBin, SeekFigure, SeekSamples, ZoneCurve, ZonePoint, ZoneStep,
};
pub use seek_profile::{radial_map, revolution as seek_revolution};

pub mod seek_profile;

/// The relative change between neighbouring samples that counts as a zone step.
pub const STEP_THRESHOLD: f64 = 0.015;

/// Compute the analyses of a measured test and store them beside its measurements:
/// the command overhead of -c and the zone curves of --zones, from the phases only
/// they make; the seek analysis of --seek-profile and the conclusion of
/// --smr-check, from their payload's samples.
pub fn complete(result: &mut TestResult, info: &DeviceInfo) {
    if let Some(c) = command_overhead(&result.phases, info.sector_size) {
        result.payload = Payload::CommandOverhead(c);
    }
    let read = zone_curve(&result.phases, PhaseId::Zone);
    let write = zone_curve(&result.phases, PhaseId::ZoneWrite);
    if read.is_some() || write.is_some() {
        result.payload = Payload::Zones { read, write };
    }
    match &mut result.payload {
        Payload::SeekProfile {
            samples: Some(s),
            analysis,
        } => {
            let reported = match info.rotation {
                Rotation::Rpm(r) => Some(r),
                _ => None,
            };
            let non_rotating = info.rotation == Rotation::NonRotating;
            *analysis = Some(seek_analysis(s, reported, non_rotating));
        }
        // Concluded even without samples: on flash, not applicable.
        Payload::Smr { analysis, samples } => {
            let none = Default::default();
            *analysis = Some(crate::smr::behaviour::analyse_samples(
                info,
                samples.as_ref().unwrap_or(&none),
            ));
        }
        _ => {}
    }
}

/// The zone curve of the completed phases with this id (`Zone` for reads,
/// `ZoneWrite` for writes); None when there are none.
pub fn zone_curve(phases: &[PhaseResult], id: PhaseId) -> Option<ZoneCurve> {
    let points: Vec<ZonePoint> = phases
        .iter()
        .filter(|p| p.id == id && p.complete() && p.elapsed_ns > 0)
        .map(|p| ZonePoint {
            offset_bytes: p.first_offset_bytes,
            rate_bytes_per_s: p.bytes_done() as f64 / p.elapsed_s(),
            mean_read_ns: p.elapsed_ns as f64 / p.ops_done() as f64,
        })
        .collect();
    let first = points.first()?;
    let last = points.last()?;
    let rates = points.iter().map(|p| p.rate_bytes_per_s);
    let max = rates.clone().fold(f64::MIN, f64::max);
    let min = rates.clone().fold(f64::MAX, f64::min);
    let mean = rates.sum::<f64>() / points.len() as f64;
    // Steps are looked for on the curve smoothed by a median of three, so that one
    // odd sample (a slow region, a hiccup) is not taken for two zone boundaries.
    let smooth: Vec<f64> = (0..points.len())
        .map(|i| {
            let lo = i.saturating_sub(1);
            let hi = (i + 2).min(points.len());
            let mut w: Vec<f64> = points[lo..hi].iter().map(|p| p.rate_bytes_per_s).collect();
            w.sort_by(f64::total_cmp);
            w[w.len() / 2]
        })
        .collect();
    let steps = (1..points.len())
        .filter(|&i| (smooth[i] / smooth[i - 1] - 1.0).abs() > STEP_THRESHOLD)
        .map(|i| ZoneStep {
            offset_bytes: points[i].offset_bytes,
            from_bytes_per_s: smooth[i - 1],
            to_bytes_per_s: smooth[i],
        })
        .collect();
    Some(ZoneCurve {
        outer_inner_ratio: first.rate_bytes_per_s / last.rate_bytes_per_s,
        points,
        max_bytes_per_s: max,
        min_bytes_per_s: min,
        mean_bytes_per_s: mean,
        steps,
    })
}

/// A revolution measured from latencies at one fixed distance: the seek and the
/// overheads are (nearly) constant there and the rotational wait is uniform over a
/// revolution, so the range between the 1st and 99th percentiles is 98% of one. A
/// spread outside 2 to 60 ms (1000 to 30000 rpm) is not a rotating disk's.
pub fn revolution_from_spread(latencies_ns: &[u64]) -> Option<f64> {
    let s = Summary::of(latencies_ns)?;
    if s.count < 50 {
        return None;
    }
    let mut v = latencies_ns.to_vec();
    v.sort_unstable();
    let q = |p: f64| v[((p * (v.len() - 1) as f64).round() as usize).min(v.len() - 1)] as f64;
    let (lo, hi) = (q(0.01), q(0.99));
    let rev = (hi - lo) / 0.98;
    // A uniform wait puts the quartiles a quarter of the way in from each end and
    // the median in the middle; a tail of slow requests (an SSD's) does not.
    let at = |p: f64| (q(p) - lo) / (hi - lo).max(1.0);
    let uniform = (0.15..0.35).contains(&at(0.25))
        && (0.4..0.6).contains(&at(0.5))
        && (0.65..0.85).contains(&at(0.75));
    (uniform && (2e6..60e6).contains(&rev)).then_some(rev)
}

/// Analyse the seek samples of a device that reports `reported_rpm`; a device that
/// reports it does not rotate gets no rotation estimate.
pub fn seek_analysis(
    s: &SeekSamples,
    reported_rpm: Option<u32>,
    non_rotating: bool,
) -> SeekAnalysis {
    let mut bins: Vec<SeekBin> = Vec::new();
    if let Some(&dmin) = s.distances_sectors.iter().min() {
        let mut lo = dmin.max(1);
        let dmax = s.distances_sectors.iter().copied().max().unwrap_or(lo);
        while lo <= dmax {
            let hi = lo.saturating_mul(2);
            let lat: Vec<u64> = s
                .distances_sectors
                .iter()
                .zip(&s.latencies_ns)
                .filter(|&(&d, _)| d >= lo && d < hi)
                .map(|(_, &l)| l)
                .collect();
            if let Some(summary) = Summary::of(&lat) {
                bins.push(SeekBin {
                    from_sectors: lo,
                    to_sectors: hi,
                    summary,
                    curve_mean_ns: None,
                });
            }
            lo = hi;
        }
    }
    let revolution_ns = if non_rotating {
        None
    } else {
        seek_profile::revolution(s)
    };
    let measured_rpm = revolution_ns.map(|r| 60e9 / r);
    let rpm_disagrees = match (measured_rpm, reported_rpm) {
        (Some(m), Some(r)) if r > 0 => (m / f64::from(r) - 1.0).abs() > 0.03,
        _ => false,
    };
    let half = revolution_ns.map(|r| r / 2.0);
    let f = revolution_ns
        .map(|rev| seek_profile::figures(s, rev))
        .unwrap_or_default();
    // Beside each bin, the mean the fitted curve gives its samples.
    if let (Some(c), Some(rev)) = (&f.curve, revolution_ns) {
        for b in &mut bins {
            let inside = s.distances_sectors.iter().zip(&f.profile_fractions);
            let at: Vec<f64> = inside
                .filter(|&(&d, _)| d >= b.from_sectors && d < b.to_sectors)
                .map(|(_, &x)| c.at(x) + rev / 2.0)
                .collect();
            b.curve_mean_ns = (!at.is_empty()).then(|| at.iter().sum::<f64>() / at.len() as f64);
        }
    }
    let value = |f: &Option<SeekFigure>| f.as_ref().map(|f| f.value_ns);
    SeekAnalysis {
        track_to_track_ns: value(&f.track_to_track),
        full_stroke_ns: value(&f.full_stroke),
        average_ns: value(&f.average),
        bins,
        revolution_ns,
        measured_rpm,
        reported_rpm,
        rpm_disagrees,
        rotational_latency_ns: half,
        track_to_track: f.track_to_track,
        average: f.average,
        full_stroke: f.full_stroke,
        head_switch: f.head_switch,
        fixed_cost: f.fixed_cost,
        track_to_track_missing: match revolution_ns {
            Some(_) => f.track_to_track_missing,
            None => Some("no rotation was measured".into()),
        },
        floors: f.floors,
        curve: f.curve,
        track_sectors: f.track_sectors,
    }
}

/// The sector-correct command overhead of -c's two phases, when both completed.
pub fn command_overhead(phases: &[PhaseResult], sector_size: u32) -> Option<CommandOverhead> {
    let done = |id| phases.iter().find(|p| p.id == id && p.complete());
    let mega = done(PhaseId::OverheadMega)?;
    let sector = done(PhaseId::OverheadSector)?;
    let mega_sectors = mega.bytes_done() as f64 / f64::from(sector_size.max(1));
    let reads = sector.ops_done() as f64;
    if mega_sectors <= 0.0 || reads <= 0.0 {
        return None;
    }
    let mega_ms_per_sector = mega.elapsed_s() * 1000.0 / mega_sectors;
    let sector_ms_per_read = sector.elapsed_s() * 1000.0 / reads;
    Some(CommandOverhead {
        sector_bytes: sector_size,
        mega_ms_per_sector,
        sector_ms_per_read,
        overhead_ms: sector_ms_per_read - mega_ms_per_sector,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(offset: u64, rate: f64) -> PhaseResult {
        PhaseResult {
            id: PhaseId::Zone,
            ops_planned: 1,
            op_bytes: 1 << 20,
            first_offset_bytes: offset,
            elapsed_ns: ((1u64 << 20) as f64 / rate * 1e9) as u64,
            latencies_ns: vec![1],
            histogram: None,
            queue_depth: None,
            seed: None,
            summary: None,
            stopped_early: false,
        }
    }

    #[test]
    fn a_staircase_has_steps_and_one_odd_sample_is_not_one() {
        let rates = [
            200.0, 200.0, 200.0, 180.0, 180.0, 180.0, 100.0, 180.0, 160.0, 160.0,
        ];
        let phases: Vec<PhaseResult> = rates
            .iter()
            .enumerate()
            .map(|(i, &r)| zone(i as u64, r * 1e6))
            .collect();
        let c = zone_curve(&phases, PhaseId::Zone).unwrap();
        let at: Vec<u64> = c.steps.iter().map(|s| s.offset_bytes).collect();
        // The dip is no step; the step to 160 is found (one sample early beside the dip).
        assert_eq!(at, [3, 7], "{:?}", c.steps);
        assert!((c.outer_inner_ratio - 1.25).abs() < 1e-3);
    }

    #[test]
    fn a_uniform_rotational_wait_gives_the_revolution() {
        // 8.333 ms revolution, a constant 3 ms of seek and overhead.
        let rev = 8_333_333.0;
        let lat: Vec<u64> = (0..1000)
            .map(|i| 3_000_000 + (rev * (i as f64 + 0.5) / 1000.0) as u64)
            .collect();
        let r = revolution_from_spread(&lat).unwrap();
        assert!((r / rev - 1.0).abs() < 0.01, "{r}");
        // Flat latencies (an SSD) are not a rotating disk.
        assert_eq!(revolution_from_spread(&vec![80_000; 1000]), None);
    }

    #[test]
    fn the_analysis_bins_by_powers_of_two_and_flags_a_disagreeing_rpm() {
        let s = SeekSamples {
            distances_sectors: vec![2048, 3000, 5000, 9000, 1 << 30],
            positions_sectors: vec![],
            latencies_ns: vec![5_000_000, 5_200_000, 6_000_000, 7_000_000, 22_000_000],
            rotation_distance_sectors: 4096,
            rotation_latencies_ns: (0..1000).map(|i| 2_000_000 + i * 11_111).collect(),
            sectors: 1 << 31,
            seed: None,
            from_sectors: vec![],
            tracks: Default::default(),
            full_stroke: Default::default(),
            third: Default::default(),
            adjacent: Default::default(),
            zero: Default::default(),
        };
        let a = seek_analysis(&s, Some(7200), false);
        assert_eq!(a.bins.len(), 4);
        assert_eq!(a.bins[0].summary.count, 2);
        let rpm = a.measured_rpm.unwrap();
        assert!((5300.0..5500.0).contains(&rpm), "{rpm}");
        assert!(a.rpm_disagrees);
        // Too few samples for any figure: none is made up.
        assert_eq!(a.full_stroke_ns, None);
    }
}
