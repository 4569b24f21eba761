//! Comparing disks, as data: the figures of each disk, the group median of each,
//! and qualification verdicts against the group or a baseline. Pure functions of
//! results; report::compare renders them (this module imports no reporter).

use crate::probe::PhaseId;
use crate::results::{DiskResult, PhaseResult, TestResult};
use serde::Serialize;

pub use crate::results::Verdict;

/// One comparable figure of a disk.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// A stable key, e.g. `seek_transfer.full_stroke`.
    pub key: String,
    /// What it is, e.g. "Full stroke (ms)".
    pub label: String,
    /// The value.
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
pub fn figures(disk: &DiskResult) -> Vec<Figure> {
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
fn beyond_figures(t: &TestResult, out: &mut Vec<Figure>) {
    let test = serde_plain(t.test);
    let mut push = |k: &str, label: String, value: f64, higher: bool| {
        if value.is_finite() {
            out.push(Figure {
                key: format!("{test}.{k}"),
                label,
                value,
                higher_is_better: higher,
            });
        }
    };
    if let Some(c) = t.zone_curve.as_ref().filter(|c| !c.points.is_empty()) {
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
    if let Some(c) = t.write_curve.as_ref().filter(|c| !c.points.is_empty()) {
        let label = "Zones write mean (kbytes/s)".into();
        push("write_mean", label, c.mean_bytes_per_s / 1024.0, true);
    }
    if let Some(a) = &t.seek_analysis {
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
    if let Some(s) = t.scan.as_ref().filter(|s| s.elapsed_ns > 0) {
        let rate = s.bytes_read as f64 / 1024.0 / (s.elapsed_ns as f64 / 1e9);
        push("rate", "Scan (kbytes/s)".into(), rate, true);
    }
}

fn figure(t: &TestResult, p: &PhaseResult) -> Option<Figure> {
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
    Some(Figure {
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
pub struct Row {
    /// The figure's key.
    pub key: String,
    /// The figure's label.
    pub label: String,
    /// Whether larger is better.
    pub higher_is_better: bool,
    /// The value for each disk, in order (None where a disk lacks it).
    pub values: Vec<Option<f64>>,
    /// The median of the values present.
    pub median: f64,
}

/// Disks side by side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// The disks' names, in order.
    pub disks: Vec<String>,
    /// A row per figure, in the order the figures first appear.
    pub rows: Vec<Row>,
}

/// Put the figures of several disks side by side.
pub fn compare(disks: &[&DiskResult]) -> Comparison {
    let mut rows: Vec<Row> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (i, d) in disks.iter().enumerate() {
        for f in figures(d) {
            let row = match index.get(&f.key) {
                Some(&r) => &mut rows[r],
                None => {
                    index.insert(f.key.clone(), rows.len());
                    rows.push(Row {
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

fn judge(
    label: &str,
    value: f64,
    reference: f64,
    higher: bool,
    max: f64,
    against: &str,
) -> Option<String> {
    let d = deviation(value, reference);
    if d.abs() <= max {
        return None;
    }
    let worse = (d < 0.0) == higher;
    Some(format!(
        "{label}: {} is {:.1}% {} than the {against} {} (tolerance {:.0}%)",
        fmt_value(value),
        d.abs() * 100.0,
        if worse { "worse" } else { "better" },
        fmt_value(reference),
        max * 100.0
    ))
}

/// Why a capacity check's conclusion fails a drive: it stores less than it
/// reports, or probe blocks did not read back as written (None when all did).
pub fn fake_reason(c: &crate::probe::capacity::Capacity) -> Option<String> {
    use crate::probe::capacity::Finding;
    if c.failed == 0 {
        return None;
    }
    if !c.is_fake() {
        return Some(format!(
            "capacity check: {} of {} probe blocks did not read back as written",
            c.failed, c.probes
        ));
    }
    let gib = |b: u64| b as f64 / f64::from(1u32 << 30);
    let how = match c.finding {
        Finding::Wraps { .. } => "writes beyond it land at other addresses",
        Finding::WritesLost => "writes beyond it are lost",
        _ => "reads beyond it fail",
    };
    Some(format!(
        "capacity check: stores only the first {:.1} GiB of the {:.1} GiB it reports; {how} (a fake drive)",
        gib(c.real),
        gib(c.reported)
    ))
}

/// Judge each disk: a figure further than `max_deviation` (0.15 = 15%) from the
/// group median fails it, and so does one further from the baseline's figure when
/// a baseline is given. A disk that failed to be probed fails, and so does one whose
/// capacity check found it stores less than it reports.
pub fn qualify(
    cmp: &Comparison,
    disks: &[&DiskResult],
    baseline: Option<&Comparison>,
    max_deviation: f64,
) -> Vec<Verdict> {
    cmp.disks
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let mut reasons = Vec::new();
            let mut warnings = Vec::new();
            if let Some(e) = disks.get(i).and_then(|d| d.error.as_ref()) {
                reasons.push(format!("not probed: {e}"));
            }
            let smart = disks.get(i).and_then(|d| d.smart.as_ref());
            smart_reasons(smart, &mut reasons, &mut warnings);
            let disk = disks.get(i).copied();
            let (smr_reasons, hints, smr_judged) = disk.map_or_else(Default::default, smr_verdict);
            reasons.extend(smr_reasons);
            warnings.extend(hints);
            let capacity = disks
                .get(i)
                .and_then(|d| d.tests.iter().find_map(|t| t.capacity.as_ref()));
            if let Some(why) = capacity.and_then(|c| fake_reason(&c.conclusion)) {
                reasons.push(why);
            }
            // A verdict needs figures (or SMART health, a capacity check or an SMR
            // verdict): none at all, or none shared with the baseline, is a failure.
            if cmp.rows.is_empty()
                && capacity.is_none()
                && !smart.is_some_and(|s| s.judged())
                && !smr_judged
            {
                reasons
                    .push("nothing to judge: no figure was measured (run a test, e.g. -t)".into());
            }
            if let Some(b) = baseline
                && !cmp.rows.is_empty()
                && !cmp
                    .rows
                    .iter()
                    .any(|r| b.rows.iter().any(|x| x.key == r.key))
            {
                reasons.push("no figure in common with the baseline: run the tests it ran".into());
            }
            for r in &cmp.rows {
                let Some(v) = r.values[i] else {
                    reasons.push(format!("{}: not measured", r.label));
                    continue;
                };
                if cmp.disks.len() > 1
                    && let Some(why) = judge(
                        &r.label,
                        v,
                        r.median,
                        r.higher_is_better,
                        max_deviation,
                        "group median",
                    )
                {
                    reasons.push(why);
                }
                if let Some(b) = baseline
                    && let Some(br) = b.rows.iter().find(|x| x.key == r.key)
                    && let Some(why) = judge(
                        &r.label,
                        v,
                        br.median,
                        r.higher_is_better,
                        max_deviation,
                        "baseline",
                    )
                {
                    reasons.push(why);
                }
            }
            Verdict {
                disk: name.clone(),
                pass: reasons.is_empty(),
                reasons,
                warnings,
            }
        })
        .collect()
}

/// SMART's part of a verdict (--smart, --smart-test): each failing finding of the
/// health rules is a reason, each warning (interface CRC errors rising: a cable or
/// controller fault, not the drive's) a warning; SMART that could not be read is
/// a reason. A device without SMART adds nothing.
pub fn smart_reasons(
    smart: Option<&crate::smart::record::SmartResult>,
    reasons: &mut Vec<String>,
    warnings: &mut Vec<String>,
) {
    let Some(s) = smart else { return };
    if let Some(e) = &s.error {
        reasons.push(format!("SMART: {e}"));
    }
    reasons.extend(s.failures().map(|f| format!("SMART: {}", f.reason)));
    warnings.extend(s.warnings().map(|f| format!("SMART: {}", f.reason)));
}

/// What the hidden-SMR check and signs say about a disk for its verdict: the
/// reasons it fails (a hidden-SMR verdict, with its evidence), the hints shown
/// beside the verdict without failing it (the no-write signs, a check that could
/// not tell), and whether the check judged the disk at all (hidden SMR or
/// conventional).
fn smr_verdict(disk: &DiskResult) -> (Vec<String>, Vec<String>, bool) {
    use crate::smr::analysis::SmrVerdict;
    use crate::smr::signs::SmrSignStrength;
    let (mut reasons, mut hints, mut judged) = (Vec::new(), Vec::new(), false);
    for a in disk.tests.iter().filter_map(|t| t.smr.as_ref()) {
        match a.verdict {
            SmrVerdict::HiddenSmr => {
                reasons.push(format!("SMR check: {}", a.text));
                judged = true;
            }
            SmrVerdict::Conventional => judged = true,
            SmrVerdict::CannotTell => hints.push(format!("SMR check: {}", a.text)),
            SmrVerdict::NotApplicable => {}
        }
    }
    for sign in &disk.smr_signs {
        let what = match sign.strength {
            SmrSignStrength::Reported => "reported",
            SmrSignStrength::Hint => "hint",
        };
        hints.push(format!("SMR sign ({what}): {}", sign.text));
    }
    (reasons, hints, judged)
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
    use crate::probe::TestKind;

    fn disk(name: &str, full_ms: f64, outside_kbs: f64) -> DiskResult {
        let phase = |id, ops: u64, bytes: u32, secs: f64| PhaseResult {
            id,
            ops_planned: ops,
            op_bytes: bytes,
            first_offset_bytes: 0,
            elapsed_ns: (secs * 1e9) as u64,
            latencies_ns: vec![(secs * 1e9 / ops as f64) as u64; ops as usize],
            histogram: None,
            queue_depth: None,
            seed: None,
            summary: None,
            stopped_early: false,
        };
        DiskResult {
            name: name.into(),
            info: None,
            tests: vec![TestResult {
                phases: vec![
                    phase(PhaseId::FullStroke, 250, 512, full_ms * 250.0 / 1000.0),
                    phase(PhaseId::Outside, 100, 1 << 20, 102400.0 / outside_kbs),
                ],
                ..TestResult::new(TestKind::SeekTransfer, 0.0, crate::results::Engine::Sync)
            }],
            warnings: vec![],
            error: None,
            smr_signs: Vec::new(),
            burn_in: Vec::new(),
            smart: None,
        }
    }

    #[test]
    fn one_slow_drive_among_three_fails_and_only_it() {
        let (a, b, c) = (
            disk("a", 22.0, 180_000.0),
            disk("b", 22.5, 178_000.0),
            disk("c", 30.0, 120_000.0),
        );
        let all = [&a, &b, &c];
        let cmp = compare(&all);
        assert_eq!(cmp.rows.len(), 2);
        assert!((cmp.rows[0].median - 22.5).abs() < 1e-6);
        let v = qualify(&cmp, &all, None, 0.15);
        assert_eq!(
            v.iter().map(|v| v.pass).collect::<Vec<_>>(),
            [true, true, false]
        );
        assert!(
            v[2].reasons[0].contains("Full stroke (ms): 30 is 33.3% worse"),
            "{:?}",
            v[2].reasons
        );
    }

    #[test]
    fn a_baseline_judges_even_a_single_drive() {
        let good = disk("ref", 22.0, 180_000.0);
        let base = compare(&[&good]);
        let slow = disk("new", 22.0, 140_000.0);
        let cmp = compare(&[&slow]);
        let v = qualify(&cmp, &[&slow], Some(&base), 0.15);
        assert!(!v[0].pass);
        assert!(v[0].reasons[0].contains("baseline"), "{:?}", v[0].reasons);
        let v = qualify(&cmp, &[&slow], Some(&base), 0.30);
        assert!(v[0].pass);
    }

    #[test]
    fn nothing_measured_or_nothing_shared_with_the_baseline_is_no_pass() {
        let empty = DiskResult::new("x");
        let v = qualify(&compare(&[&empty]), &[&empty], None, 0.15);
        assert!(!v[0].pass, "{v:?}");
        let a = disk("a", 22.0, 180_000.0);
        let mut other = DiskResult::new("base");
        other.tests.push(TestResult::new(
            TestKind::CommandOverhead,
            0.0,
            crate::results::Engine::Sync,
        ));
        let base = compare(&[&other]);
        let v = qualify(&compare(&[&a]), &[&a], Some(&base), 0.15);
        assert!(v[0].reasons[0].contains("no figure in common"), "{v:?}");
    }

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
