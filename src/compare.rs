//! Comparing disks, as data: the figures of each disk and the median of each.
//! Pure functions of results; `crate::verdict::batch` judges them and
//! report::compare renders them (this module imports neither).

use crate::results::test_kind::PhaseId;
use crate::results::{DiskResult, PhaseResult, TestResult};
use serde::Serialize;

/// One comparable figure of a disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparable {
    /// A stable key, e.g. `seek_transfer.full_stroke`.
    pub key: String,
    /// What it is, e.g. "Full stroke (ms)".
    pub label: String,
    /// The figure in the unit its label names (ms, MB/s, IOPS, ...).
    pub value: f64,
    /// Whether a larger value is better (rates), or a smaller one (times).
    pub higher_is_better: bool,
}

fn size_label(bytes: u32) -> String {
    if bytes >= 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} B")
    }
}

/// The figures diskinfo prints for a disk, as numbers: milliseconds per seek,
/// kbytes/s per zone, the command overhead, IOPS per size, microseconds per flushed
/// write. Only complete lines count.
pub fn figures(disk: &DiskResult) -> Vec<Comparable> {
    let mut out = Vec::new();
    for t in &disk.tests {
        for p in t.phases.iter().filter(|p| p.complete() && p.elapsed_ns > 0) {
            if let Some(f) = figure(t, p) {
                out.push(f);
            }
        }
        beyond_figures(t, &mut out);
    }
    out
}

/// The summary figures of --zones, --seek-profile and --scan.
fn beyond_figures(t: &TestResult, out: &mut Vec<Comparable>) {
    let test = serde_plain(t.test);
    let mut push = |k: &str, label: String, value: f64, higher: bool| {
        if value.is_finite() {
            out.push(Comparable {
                key: format!("{test}.{k}"),
                label,
                value,
                higher_is_better: higher,
            });
        }
    };
    if let Some(c) = t.zone_curve().filter(|c| !c.points.is_empty()) {
        push(
            "max",
            "Zones max (kbytes/s)".into(),
            c.max_bytes_per_s / 1024.0,
            true,
        );
        push(
            "min",
            "Zones min (kbytes/s)".into(),
            c.min_bytes_per_s / 1024.0,
            true,
        );
        push(
            "mean",
            "Zones mean (kbytes/s)".into(),
            c.mean_bytes_per_s / 1024.0,
            true,
        );
    }
    if let Some(c) = t.write_curve().filter(|c| !c.points.is_empty()) {
        let label = "Zones write mean (kbytes/s)".into();
        push("write_mean", label, c.mean_bytes_per_s / 1024.0, true);
    }
    if let Some(a) = &t.seek_analysis() {
        if let Some(r) = a.measured_rpm {
            push("measured_rpm", "Measured rotation (rpm)".into(), r, true);
        }
        for (k, label, v) in [
            ("track_to_track", "Track to track", a.track_to_track_ns),
            ("average", "Average seek", a.average_ns),
            ("full_stroke", "Full stroke seek", a.full_stroke_ns),
        ] {
            if let Some(v) = v {
                push(k, format!("{label} (ms)"), v / 1e6, false);
            }
        }
    }
    if let Some(s) = t.scan().filter(|s| s.elapsed_ns > 0) {
        let rate = s.bytes_read as f64 / 1024.0 / (s.elapsed_ns as f64 / 1e9);
        push("rate", "Scan (kbytes/s)".into(), rate, true);
    }
}

fn figure(t: &TestResult, p: &PhaseResult) -> Option<Comparable> {
    let s = p.elapsed_s();
    let n = p.ops_done() as f64;
    let key = |suffix: String| format!("{}.{suffix}", serde_plain(t.test));
    let (k, label, value, higher) = match p.id {
        PhaseId::Outside | PhaseId::Middle | PhaseId::Inside => {
            let zone = match p.id {
                PhaseId::Outside => "outside",
                PhaseId::Middle => "middle",
                _ => "inside",
            };
            (
                zone.to_string(),
                format!("Transfer {zone} (kbytes/s)"),
                p.bytes_done() as f64 / 1024.0 / s,
                true,
            )
        }
        PhaseId::OverheadMega | PhaseId::Zone | PhaseId::ZoneWrite => return None,
        PhaseId::SweepSync | PhaseId::SweepQueued | PhaseId::SweepWrite => (
            format!("{}_{}", serde_plain(p.id), p.op_bytes),
            format!("{} {} (kbytes/s)", p.id.name(), size_label(p.op_bytes)),
            p.bytes_done() as f64 / 1024.0 / s,
            true,
        ),
        PhaseId::OverheadSector => (
            "overhead_sector".into(),
            "20480 sector reads (ms/sector)".into(),
            s * 1000.0 / n,
            false,
        ),
        PhaseId::RandomRead => (
            format!("random_read_{}", p.op_bytes),
            format!("Random reads {} (IOPS)", size_label(p.op_bytes)),
            n / s,
            true,
        ),
        PhaseId::SyncWrite => (
            format!("sync_write_{}", p.op_bytes),
            format!("Sync writes {} (usec/IO)", size_label(p.op_bytes)),
            s * 1e6 / n,
            false,
        ),
        id => (
            serde_plain(id),
            format!("{} (ms)", id.name()),
            s * 1000.0 / n,
            false,
        ),
    };
    Some(Comparable {
        key: key(k),
        label,
        value,
        higher_is_better: higher,
    })
}

/// The snake_case name serde gives a unit enum variant.
fn serde_plain(v: impl Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// The median of some values (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// One row of a comparison: a figure for every disk, and the group median.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonRow {
    /// The figure's stable key, as in [`Comparable::key`], e.g. `seek_transfer.full_stroke`.
    pub key: String,
    /// The figure's label with its unit, as in [`Comparable::label`], e.g. "Full stroke (ms)".
    pub label: String,
    /// Whether larger is better.
    pub higher_is_better: bool,
    /// The value for each disk, in order (None where a disk lacks it).
    pub values: Vec<Option<f64>>,
    /// The median of the disks that have the figure (0 when none has).
    pub median: f64,
}

/// Disks side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The disks' names, in order.
    pub disks: Vec<String>,
    /// A row per figure, in the order the figures first appear.
    pub rows: Vec<ComparisonRow>,
}

/// Put the figures of several disks side by side.
pub fn compare(disks: &[&DiskResult]) -> Comparison {
    let mut rows: Vec<ComparisonRow> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, d) in disks.iter().enumerate() {
        for f in figures(d) {
            let row = match index.get(&f.key) {
                Some(&r) => &mut rows[r],
                None => {
                    index.insert(f.key.clone(), rows.len());
                    rows.push(ComparisonRow {
                        key: f.key.clone(),
                        label: f.label.clone(),
                        higher_is_better: f.higher_is_better,
                        values: vec![None; disks.len()],
                        median: 0.0,
                    });
                    rows.last_mut().expect("just pushed")
                }
            };
            row.values[i] = Some(f.value);
        }
    }
    for r in &mut rows {
        let present: Vec<f64> = r.values.iter().flatten().copied().collect();
        r.median = median(&present).unwrap_or(0.0);
    }
    Comparison {
        disks: disks.iter().map(|d| d.name.clone()).collect(),
        rows,
    }
}

/// The relative deviation of `value` from `reference` (0.1 = 10% above).
pub fn deviation(value: f64, reference: f64) -> f64 {
    if reference == 0.0 {
        0.0
    } else {
        (value - reference) / reference
    }
}

/// A figure as the verdicts and tables show it: whole numbers from 1000 up, four
/// significant digits below (trailing zeros dropped).
pub fn fmt_value(v: f64) -> String {
    if v.abs() >= 1000.0 || v == 0.0 || !v.is_finite() {
        return format!("{v:.0}");
    }
    let digits = (3 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{v:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_keep_four_significant_digits() {
        assert_eq!(fmt_value(22.5), "22.5");
        assert_eq!(fmt_value(9.8581), "9.858");
        assert_eq!(fmt_value(0.071234), "0.07123");
        assert_eq!(fmt_value(173872.4), "173872");
        assert_eq!(fmt_value(0.0), "0");
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
