//! The batch comparison's findings: timings compared within drives of the same
//! model, against the median of those without a failing finding of their own (a
//! broken drive never drags the reference), or against a baseline; another model
//! or firmware than the rest is a warning; fewer than three comparable drives and
//! no baseline leave the timings unjudged, with a note (docs/verdict.md).

use super::earlier::{History, ModelHistory};
use crate::compare::{self, Comparable, Comparison, deviation, fmt_value, median};
use crate::results::{Code, DiskResult, Finding, Severity};

/// The fewest comparable drives whose median can tell which one is off: with
/// two, the median is their midpoint, and each is as far from it as the other.
pub const MIN_GROUP: usize = 3;

/// What the batch rules know of a drive's identity.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchIdentity {
    /// Its model (None when it could not be opened).
    pub model: Option<String>,
    /// Its firmware revision, when something reports it.
    pub firmware: Option<String>,
}

/// A drive's identity: its model is the description the device gives (SMART's
/// model when it gives none), its firmware SMART's (None without SMART).
pub fn identity(d: &DiskResult) -> BatchIdentity {
    let health = d
        .smart
        .as_ref()
        .and_then(|s| s.before.as_ref().or(s.after.as_ref()));
    BatchIdentity {
        model: d
            .info
            .as_ref()
            .and_then(|i| i.descr.clone())
            .or_else(|| health?.model.clone()),
        firmware: health.and_then(|h| h.firmware.clone()),
    }
}

/// The most common value (the first seen among equals) and how many have it.
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<(&'a str, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for v in values {
        match counts.iter_mut().find(|(x, _)| *x == v) {
            Some(c) => c.1 += 1,
            None => counts.push((v, 1)),
        }
    }
    let best = counts.iter().map(|c| c.1).max()?;
    counts.into_iter().find(|c| c.1 == best)
}

fn finding(severity: Severity, code: Code, reason: String) -> Finding {
    Finding::new(severity, "comparison", code, reason)
}

/// A figure against a reference: worse beyond the tolerance fails, better beyond
/// it is a warning (each figure knows its direction).
fn against(f: &Comparable, reference: f64, max: f64, what: &str) -> Option<Finding> {
    let d = deviation(f.value, reference);
    if d.abs() <= max {
        return None;
    }
    let worse = (d < 0.0) == f.higher_is_better;
    let (severity, code, word) = if worse {
        (Severity::Fail, Code::WorseThanReference, "worse")
    } else {
        (Severity::Warning, Code::BetterThanReference, "better")
    };
    Some(finding(
        severity,
        code,
        format!(
            "{}: {} is {:.1}% {word} than the {what} {} (tolerance {:.0}%)",
            f.label,
            fmt_value(f.value),
            d.abs() * 100.0,
            fmt_value(reference),
            max * 100.0
        ),
    ))
}

/// The batch's findings for each drive, in order. `own` holds each drive's own
/// findings (a drive with a failing one is not part of the reference).
pub fn findings(
    disks: &[&DiskResult],
    ids: &[BatchIdentity],
    own: &[Vec<Finding>],
    baseline: Option<&Comparison>,
    max: f64,
) -> Vec<Vec<Finding>> {
    findings_with(disks, ids, own, baseline, max, &History::default())
}

/// [`findings`], where a model with too few comparable drives in the batch is
/// judged against its earlier drives that `history` holds (docs/history.md).
pub fn findings_with(
    disks: &[&DiskResult],
    ids: &[BatchIdentity],
    own: &[Vec<Finding>],
    baseline: Option<&Comparison>,
    max: f64,
    history: &History,
) -> Vec<Vec<Finding>> {
    let n = disks.len();
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); n];
    let figs: Vec<Vec<Comparable>> = disks.iter().map(|d| compare::figures(d)).collect();
    let broken: Vec<Standing> = own
        .iter()
        .zip(disks)
        .map(|(f, d)| Standing {
            broken: f.iter().any(|x| x.severity == Severity::Fail),
            tests: d.tests.iter().map(|t| super::test_id(t.test)).collect(),
        })
        .collect();
    let model = |i: usize| ids[i].model.as_deref();
    // Another model than the batch's: a mix-up worth knowing, not a defect. The
    // batch has a model when more than half of the drives whose model is known
    // share it; two models two drives each (or three of three) have none, and no
    // drive is told it is the odd one out.
    let known = (0..n).filter_map(model).count();
    if let Some((usual, count)) = most_common((0..n).filter_map(model))
        && count < known
        && count * 2 > known
    {
        for i in (0..n).filter(|&i| model(i).is_some_and(|m| m != usual)) {
            out[i].push(finding(
                Severity::Warning,
                Code::OtherModel,
                format!(
                    "another model than the batch: {} (the batch's other drives are mostly {usual}, {count} of them); its timings are compared only with its own model's",
                    model(i).unwrap_or_default()
                ),
            ));
        }
    }
    // The groups: drives of one model (a drive without a model is alone).
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        match groups
            .iter_mut()
            .find(|g| model(i).is_some() && model(g[0]) == model(i))
        {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in &groups {
        firmware(g, ids, &mut out);
        let earlier = history.reference(model(g[0]), MIN_GROUP);
        timings(
            g,
            &figs,
            &broken,
            (baseline, earlier),
            max,
            &mut out,
            model(g[0]),
        );
    }
    out
}

/// Within a model's group, another firmware than the others' is a warning.
fn firmware(group: &[usize], ids: &[BatchIdentity], out: &mut [Vec<Finding>]) {
    let fw = |i: usize| ids[i].firmware.as_deref();
    let known = group.iter().filter_map(|&i| fw(i)).count();
    let Some((usual, count)) = most_common(group.iter().filter_map(|&i| fw(i))) else {
        return;
    };
    if count == known {
        return;
    }
    for &i in group.iter().filter(|&&i| fw(i).is_some_and(|f| f != usual)) {
        out[i].push(finding(
            Severity::Warning,
            Code::OtherFirmware,
            format!(
                "another firmware than the other drives of its model: {} ({count} of them have {usual})",
                fw(i).unwrap_or_default()
            ),
        ));
    }
}

/// What the timings need of a drive besides its figures.
struct Standing {
    /// It has a failing finding of its own: not part of the reference.
    broken: bool,
    /// The tests it was asked to run (their JSON names, which begin the keys of
    /// their figures): a figure of another test is not missing, only not asked for.
    tests: Vec<String>,
}

impl Standing {
    /// Whether the drive ran the test a figure (by its key) comes from.
    fn ran(&self, key: &str) -> bool {
        let test = key.split('.').next().unwrap_or(key);
        self.tests.iter().any(|t| t == test)
    }
}

/// One group's timings: against the median of its comparable drives when there
/// are at least [`MIN_GROUP`], against the baseline when there is one, else a
/// note with the differences.
fn timings(
    group: &[usize],
    figs: &[Vec<Comparable>],
    broken: &[Standing],
    (baseline, earlier): (Option<&Comparison>, Option<&ModelHistory>),
    max: f64,
    out: &mut [Vec<Finding>],
    model: Option<&str>,
) {
    let comparable: Vec<usize> = (group.iter().copied())
        .filter(|&i| !broken[i].broken)
        .collect();
    let value = |i: usize, key: &str| figs[i].iter().find(|f| f.key == key).map(|f| f.value);
    // The figures of the group, in the order they first appear.
    let mut keys: Vec<&Comparable> = Vec::new();
    for &i in group {
        for f in &figs[i] {
            if !keys.iter().any(|k| k.key == f.key) {
                keys.push(f);
            }
        }
    }
    if comparable.len() >= MIN_GROUP {
        for k in &keys {
            let refs: Vec<f64> = comparable
                .iter()
                .filter_map(|&i| value(i, &k.key))
                .collect();
            // A figure that too few of the drives measured has no median to tell
            // which of them is off, as a group of too few drives has none.
            // (With a baseline, it is judged against the baseline below.)
            if refs.len() < MIN_GROUP {
                let measured = group.iter().filter(|&&i| value(i, &k.key).is_some());
                for &i in measured.filter(|_| baseline.is_none()) {
                    out[i].push(finding(
                        Severity::Note,
                        Code::GroupTooSmall,
                        format!(
                            "{}: not judged: measured by {} of the {} comparable drives, fewer than {MIN_GROUP}",
                            k.label,
                            refs.len(),
                            comparable.len()
                        ),
                    ));
                }
                continue;
            }
            let Some(reference) = median(&refs) else {
                continue;
            };
            for &i in group {
                match figs[i].iter().find(|f| f.key == k.key) {
                    Some(f) => out[i].extend(against(f, reference, max, "group median")),
                    // A drive is never failed for a test it was not asked to run.
                    None if !broken[i].broken && broken[i].ran(&k.key) => out[i].push(finding(
                        Severity::Fail,
                        Code::NotMeasured,
                        format!(
                            "{}: not measured (the other drives of its model measured it)",
                            k.label
                        ),
                    )),
                    None => {}
                }
            }
        }
    } else if let Some(e) = earlier.filter(|_| baseline.is_none()) {
        against_earlier(group, figs, e, max, out);
    } else if baseline.is_none() && !keys.is_empty() {
        for &i in group.iter().filter(|&&i| !figs[i].is_empty()) {
            out[i].push(too_small(i, group, &comparable, figs, max, model));
        }
    }
    let Some(b) = baseline else { return };
    for &i in group.iter().filter(|&&i| !figs[i].is_empty()) {
        let mut common = 0;
        for f in &figs[i] {
            if let Some(r) = b.rows.iter().find(|r| r.key == f.key) {
                common += 1;
                out[i].extend(against(f, r.median, max, "baseline"));
            }
        }
        if common == 0 {
            out[i].push(finding(
                Severity::Fail,
                Code::NoCommonFigure,
                "no figure in common with the baseline: run the tests it ran".into(),
            ));
        }
    }
}

/// A group too small to judge its timings, judged against the earlier drives of
/// its model instead: each figure against their median (a figure that fewer than
/// [`MIN_GROUP`] of them measured is not judged), and a note naming them.
fn against_earlier(
    group: &[usize],
    figs: &[Vec<Comparable>],
    reference: &ModelHistory,
    max: f64,
    out: &mut [Vec<Finding>],
) {
    let n = reference.drives.len();
    let what = "earlier drives' median";
    for &i in group.iter().filter(|&&i| !figs[i].is_empty()) {
        let mut judged = 0;
        for f in &figs[i] {
            let refs: Vec<f64> = reference
                .drives
                .iter()
                .filter_map(|d| d.figures.iter().find(|(k, _)| *k == f.key).map(|x| x.1))
                .collect();
            if refs.len() < MIN_GROUP {
                continue;
            }
            let Some(m) = median(&refs) else { continue };
            judged += 1;
            out[i].extend(against(f, m, max, what));
        }
        let serials: Vec<&str> = reference.drives.iter().map(|d| d.serial.as_str()).collect();
        out[i].push(Finding::new(
            Severity::Note,
            "comparison",
            Code::EarlierDrives,
            format!(
                "judged against {n} earlier drives of this model ({}): {judged} figures in common (docs/history.md)",
                serials.join(", ")
            ),
        ));
    }
}

/// The note of a drive whose group is too small to judge timings: how many
/// comparable drives there are, and its figures beyond the tolerance from the
/// median of the group's other drives.
fn too_small(
    i: usize,
    group: &[usize],
    comparable: &[usize],
    figs: &[Vec<Comparable>],
    max: f64,
    model: Option<&str>,
) -> Finding {
    let others: Vec<usize> = group.iter().copied().filter(|&j| j != i).collect();
    let of = model
        .map(|m| format!(" of its model ({m})"))
        .unwrap_or_default();
    let mut reason = if others.is_empty() {
        format!(
            "timings not judged: the only drive{of} here; compare {MIN_GROUP} or more, or give --baseline FILE"
        )
    } else {
        format!(
            "timings not judged: of the {} drives{of}, {} {} no failing finding, fewer than {MIN_GROUP}: too few to tell which drive is off (--baseline FILE judges against a known-good drive)",
            group.len(),
            comparable.len(),
            if comparable.len() == 1 { "has" } else { "have" },
        )
    };
    if !others.is_empty() {
        let what = if others.len() == 1 {
            "the other drive"
        } else {
            "the others' median"
        };
        let diffs: Vec<String> = figs[i]
            .iter()
            .filter_map(|f| {
                let vals: Vec<f64> = others
                    .iter()
                    .filter_map(|&j| figs[j].iter().find(|g| g.key == f.key).map(|g| g.value))
                    .collect();
                let m = median(&vals)?;
                let d = deviation(f.value, m);
                (d.abs() > max).then(|| {
                    format!(
                        "{} {} against {} ({:+.1}%)",
                        f.label,
                        fmt_value(f.value),
                        fmt_value(m),
                        d * 100.0
                    )
                })
            })
            .collect();
        if diffs.is_empty() {
            reason.push_str(&format!(
                "; no figure differs from {what} by more than {:.0}%",
                max * 100.0
            ));
        } else {
            reason.push_str(&format!("; differences from {what}: {}", diffs.join(", ")));
        }
    }
    finding(Severity::Note, Code::GroupTooSmall, reason)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::device::{DeviceInfo, TargetKind};
    use crate::results::test_kind::{PhaseId, TestKind};
    use crate::results::{PhaseResult, TestResult};
    use crate::verdict::{Judging, qualify};

    fn disk(name: &str, model: &str, full_ms: f64, outside_kbs: f64) -> DiskResult {
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
        let mut info = DeviceInfo::new(name, name, TargetKind::File);
        info.descr = Some(model.into());
        let mut d = DiskResult::new(name);
        d.info = Some(info);
        d.tests.push(TestResult {
            phases: vec![
                phase(PhaseId::FullStroke, 250, 512, full_ms * 250.0 / 1000.0),
                phase(PhaseId::Outside, 100, 1 << 20, 102400.0 / outside_kbs),
            ],
            ..TestResult::new(TestKind::SeekTransfer, 0.0, crate::results::Engine::Sync)
        });
        d
    }

    fn judged(disks: &[DiskResult], baseline: Option<&Comparison>) -> Vec<crate::results::Verdict> {
        let refs: Vec<&DiskResult> = disks.iter().collect();
        let how = Judging {
            timings: true,
            baseline,
            max_deviation: crate::results::settings::Deviation::DEFAULT,
        };
        qualify(&refs, &how)
    }

    fn codes(v: &crate::results::Verdict) -> Vec<Code> {
        v.findings.iter().map(|f| f.code).collect()
    }

    #[test]
    fn one_slow_drive_among_three_fails_and_only_it() {
        let d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 178_000.0),
            disk("c", "M", 30.0, 120_000.0),
        ];
        let v = judged(&d, None);
        assert_eq!(
            v.iter().map(|v| v.passes()).collect::<Vec<_>>(),
            [true, true, false]
        );
        assert!(
            v[2].reasons()[0]
                .contains("Full stroke (ms): 30 is 33.3% worse than the group median 22.5"),
            "{:?}",
            v[2]
        );
    }

    #[test]
    fn a_figure_that_two_of_three_drives_measured_is_not_judged() {
        // c measured no outside transfer rate: a's and b's (differing by 40%)
        // have no median to tell which is off, and c is not failed for it.
        let mut d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 108_000.0),
            disk("c", "M", 22.2, 180_000.0),
        ];
        d[2].tests[0].phases.pop();
        let v = judged(&d, None);
        assert_eq!(v.iter().map(|v| v.passes()).collect::<Vec<_>>(), [true; 3]);
        for v in &v[..2] {
            assert_eq!(codes(v), [Code::GroupTooSmall], "{v:?}");
            assert!(
                v.findings[0].reason.starts_with("Transfer outside")
                    && v.findings[0]
                        .reason
                        .contains("not judged: measured by 2 of the 3 comparable drives"),
                "{v:?}"
            );
        }
        assert_eq!(codes(&v[2]), []);
    }

    #[test]
    fn a_faster_drive_gets_a_warning_not_a_fail() {
        let d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 178_000.0),
            disk("c", "M", 22.2, 179_000.0),
            disk("d", "M", 15.0, 179_000.0),
        ];
        let v = judged(&d, None);
        assert!(v[3].passes(), "{:?}", v[3]);
        assert_eq!(codes(&v[3]), [Code::BetterThanReference]);
        assert!(
            v[3].findings[0]
                .reason
                .contains("better than the group median")
        );
    }

    #[test]
    fn a_pair_is_not_judged_on_timings_and_a_lone_drive_neither() {
        let d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 30.0, 120_000.0),
        ];
        let v = judged(&d, None);
        assert!(v[0].passes() && v[1].passes(), "{v:?}");
        assert_eq!(codes(&v[1]), [Code::GroupTooSmall]);
        let note = &v[1].findings[0].reason;
        assert!(
            note.contains("of the 2 drives of its model (M), 2 have no failing finding"),
            "{note}"
        );
        assert!(
            note.contains("Full stroke (ms) 30 against 22 (+36.4%)"),
            "{note}"
        );
        let v = judged(&d[..1], None);
        assert!(v[0].passes());
        assert!(
            v[0].findings[0]
                .reason
                .contains("the only drive of its model"),
            "{v:?}"
        );
    }

    #[test]
    fn a_broken_drive_is_left_out_of_the_reference() {
        // Three drives, one that could not finish its test: two comparable, too few.
        let mut d = vec![
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 178_000.0),
            disk("c", "M", 40.0, 90_000.0),
        ];
        d[2].tests[0].outcome = crate::results::Outcome::Failed("read error at byte 0".into());
        let v = judged(&d, None);
        assert!(v[0].passes() && v[1].passes(), "{v:?}");
        assert!(!v[2].passes());
        assert_eq!(codes(&v[0]), [Code::GroupTooSmall]);
        // With a fourth healthy drive the reference is the healthy three's median,
        // and the broken one is judged against it too.
        d.push(disk("d", "M", 22.2, 179_000.0));
        let v = judged(&d, None);
        assert!(v[0].passes() && v[1].passes() && v[3].passes(), "{v:?}");
        assert!(
            v[2].reasons()
                .iter()
                .any(|r| r.contains("worse than the group median 22.2")),
            "{:?}",
            v[2]
        );
    }

    #[test]
    fn another_model_is_a_warning_and_forms_its_own_group() {
        let d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 178_000.0),
            disk("c", "M", 22.2, 179_000.0),
            disk("d", "N", 15.0, 240_000.0),
        ];
        let v = judged(&d, None);
        assert!(v.iter().all(|v| v.passes()), "{v:?}");
        assert_eq!(codes(&v[3]), [Code::OtherModel, Code::GroupTooSmall]);
        assert!(
            v[3].findings[0]
                .reason
                .contains("N (the batch's other drives are mostly M, 3 of them)")
        );
        assert!(v[0].findings.is_empty(), "{:?}", v[0]);
    }

    #[test]
    fn a_batch_without_a_majority_model_has_no_odd_one_out() {
        let d = |models: &[&str]| -> Vec<DiskResult> {
            (models.iter().enumerate())
                .map(|(i, m)| disk(&format!("d{i}"), m, 22.0, 180_000.0))
                .collect()
        };
        let other =
            |v: &crate::results::Verdict| v.findings.iter().any(|f| f.code == Code::OtherModel);
        // Two and two, or one of each: neither model is the batch's.
        for models in [
            &["M", "M", "N", "N"][..],
            &["M", "N", "O"],
            &["M", "M", "N", "N", "O"],
        ] {
            let v = judged(&d(models), None);
            assert!(!v.iter().any(other), "{models:?}: {v:?}");
        }
        // Three of five: the batch's model; the two others are told.
        let v = judged(&d(&["M", "N", "M", "O", "M"]), None);
        let told: Vec<bool> = v.iter().map(other).collect();
        assert_eq!(told, [false, true, false, true, false]);
    }

    #[test]
    fn another_firmware_is_a_warning() {
        let d = [
            disk("a", "M", 22.0, 180_000.0),
            disk("b", "M", 22.5, 178_000.0),
            disk("c", "M", 22.2, 179_000.0),
        ];
        let refs: Vec<&DiskResult> = d.iter().collect();
        let mut ids: Vec<BatchIdentity> = refs.iter().map(|d| identity(d)).collect();
        for (i, fw) in ["SC60", "SC60", "SC61"].iter().enumerate() {
            ids[i].firmware = Some(fw.to_string());
        }
        let own = vec![Vec::new(); 3];
        let f = findings(&refs, &ids, &own, None, 0.15);
        assert!(f[0].is_empty() && f[1].is_empty());
        assert_eq!(f[2][0].code, Code::OtherFirmware);
        assert!(
            f[2][0].reason.contains("SC61 (2 of them have SC60)"),
            "{:?}",
            f[2]
        );
    }

    #[test]
    fn the_firmware_is_smart_s() {
        let mut d = disk("a", "M", 22.0, 180_000.0);
        assert_eq!(identity(&d).firmware, None);
        let health = crate::results::health::Health {
            firmware: Some("SC61".into()),
            ..Default::default()
        };
        d.smart = Some(crate::results::smart::SmartResult {
            before: Some(health),
            ..Default::default()
        });
        assert_eq!(identity(&d).firmware.as_deref(), Some("SC61"));
    }

    #[test]
    fn a_baseline_judges_even_a_single_drive() {
        let good = disk("ref", "M", 22.0, 180_000.0);
        let base = compare::compare(&[&good]);
        let d = [disk("new", "M", 22.0, 140_000.0)];
        let v = judged(&d, Some(&base));
        assert!(!v[0].passes());
        assert!(
            v[0].reasons()[0].contains("worse than the baseline"),
            "{v:?}"
        );
        assert!(!codes(&v[0]).contains(&Code::GroupTooSmall));
        let mut other = DiskResult::new("base");
        other.tests.push(TestResult::new(
            TestKind::CommandOverhead,
            0.0,
            crate::results::Engine::Sync,
        ));
        let mut p = good.tests[0].phases[0].clone();
        p.id = PhaseId::OverheadSector;
        other.tests[0].phases.push(p);
        let base = compare::compare(&[&other]);
        let v = judged(&d, Some(&base));
        assert!(v[0].reasons()[0].contains("no figure in common"), "{v:?}");
    }

    #[test]
    fn nothing_measured_is_no_pass() {
        let d = [DiskResult::new("x")];
        let mut d0 = d[0].clone();
        d0.info = Some(DeviceInfo::new("x", "x", TargetKind::File));
        let v = judged(&[d0], None);
        assert!(!v[0].passes(), "{v:?}");
        assert_eq!(codes(&v[0]), [Code::NothingToJudge]);
    }
}
