//! The path check's findings (`--path-check`, docs/verdict.md): from every drive's
//! rates alone and together and the path each sits on, whether a loss is the
//! path's or the drive's.
//!
//! Drives are grouped by their path (`PathGroup::name`; a drive of unknown path is
//! a group of its own). A drive "holds" when its rate together is at least
//! [`HOLDS`] of its rate alone: solnet-array-test (the FreeNAS community's array
//! test, `solnet-array-test-v2.sh`) flags a drive under 92% of its own solo rate in
//! its parallel pass, and this bound is the same. Then:
//!
//! - a group of two drives or more, every one of which loses sequential rate
//!   together, whose rate together adds up to less than [`HOLDS`] of their rates
//!   alone: the path limits them (a note on each: the drives are not at fault);
//! - a drive that loses (sequential or seek stress) while most of its peers (its
//!   group-mates, or for a drive alone on its path every other drive of the check)
//!   hold: the drive or its slot (a warning naming it);
//! - a drive whose ratio lies below the lower Tukey fence of its group (Q1 − 1.5
//!   IQR, four drives or more) and at least [`OUTLIER_GAP`] under its group's
//!   median, without either finding above: an outlier (a note).
//!
//! Within a limited group each drive is still judged, against its group's shared
//! loss: its ratios over the group's median ones.
//!
//! No ratio fails a drive: a path is never the drive's fault, and a loss only
//! under load is worth a look, not a defect the check can prove. A read that
//! failed, or went unanswered for `--io-timeout`, is the drive's, as in every other
//! test (a failing finding naming the phase, the byte and the error); the others
//! are judged among the drives that completed. Ctrl-C leaves every drive's check
//! interrupted (unfinished) and no ratio at all.

use crate::results::path::PathDrive;
use crate::results::test_kind::TestKind;
use crate::results::{Code, Finding, Severity};

/// The least rate together, as a fraction of the rate alone, of a drive that holds
/// (solnet-array-test's 92%).
pub const HOLDS: f64 = 0.92;

/// The test name the findings carry: the path check's id, read from the registry
/// (the one test across the drives, `together`).
fn test_id() -> &'static str {
    let together = TestKind::ALL.into_iter().find(|t| t.row().together);
    together.expect("the registry holds the path check").id()
}

/// The least a drive's ratio lies under its group's median for it to be an
/// outlier worth a note: half the loss solnet-array-test flags (1 − [`HOLDS`]),
/// so that drives that all keep their rate within a hair of one another (a tight
/// group puts its fence there too) are never told apart by noise.
pub const OUTLIER_GAP: f64 = (1.0 - HOLDS) / 2.0;

/// The findings of the check, one list a drive in the order given (`drives`: each
/// drive's name and its part of the check).
pub fn findings(drives: &[(&str, &PathDrive)]) -> Vec<Vec<Finding>> {
    let mut out: Vec<Vec<Finding>> = drives.iter().map(|(n, d)| cut(n, d)).collect();
    // A cut phase is every drive's: no ratio is made of it.
    if drives.iter().any(|(_, d)| d.interrupted) {
        return out;
    }
    let groups = groups(drives);
    let mut limited = vec![false; drives.len()];
    for g in groups.iter().filter(|g| g.len() >= 2) {
        if let Some(f) = limits(drives, g) {
            for &i in g {
                limited[i] = true;
                out[i].push(f.clone());
            }
        }
    }
    let judged = judged_ratios(drives, &groups, &limited);
    for (gi, group) in groups.iter().enumerate() {
        for &i in group {
            let (name, d) = drives[i];
            let Some((ratio, seq_lost)) = judged[i] else {
                continue;
            };
            let peers: Vec<usize> = if group.len() >= 2 {
                group.iter().copied().filter(|&j| j != i).collect()
            } else {
                (0..drives.len()).filter(|&j| j != i).collect()
            };
            let peer_ratios: Vec<f64> = peers
                .iter()
                .filter_map(|&j| judged[j].map(|r| r.0))
                .collect();
            let holding = peer_ratios.iter().filter(|&&r| r >= HOLDS).count();
            if ratio < HOLDS && !peer_ratios.is_empty() && holding * 2 > peer_ratios.len() {
                let lost = Lost {
                    ratio,
                    seq: seq_lost,
                    limited: limited[i],
                };
                out[i].push(loses(name, d, lost, holding, peer_ratios.len()));
            } else if let Some((fence, median)) =
                spread(groups[gi].iter().filter_map(|&j| judged[j].map(|r| r.0)))
                && ratio < fence
                && median - ratio >= OUTLIER_GAP
            {
                out[i].push(Finding::new(
                    Severity::Note,
                    test_id(),
                    Code::PathOutlier,
                    format!(
                        "path: {name} keeps {:.1}% of its rate with the other drives running, {:.1} points under its group's median ({:.1}%) and below its lower Tukey fence ({:.1}%)",
                        ratio * 100.0,
                        (median - ratio) * 100.0,
                        median * 100.0,
                        fence * 100.0
                    ),
                ));
            }
        }
    }
    out
}

/// The failing finding of a drive whose check did not complete: a read that
/// failed (its phase, byte and error), a request unanswered (the drive stopped
/// answering), or Ctrl-C (unfinished).
fn cut(name: &str, d: &PathDrive) -> Vec<Finding> {
    let (code, reason) = match &d.error {
        Some(e) if d.unanswered => (
            Code::StoppedAnswering,
            format!("path check: {name} stopped answering: {e}; it was given up"),
        ),
        Some(e) => (
            Code::TestFailed,
            format!("path check: {name}: stopped by an error: {e}"),
        ),
        None if d.interrupted => (
            Code::TestInterrupted,
            format!(
                "path check: {name}: interrupted before its end, so no ratio is made and the drive is not qualified by it"
            ),
        ),
        None => return Vec::new(),
    };
    vec![Finding::new(Severity::Fail, test_id(), code, reason)]
}

/// Each complete drive's ratio as judged, and whether its sequential rate is the
/// one lost: its worse ratio, or in a group the path limits, its ratios over the
/// group's median ones (what the drive loses beyond the group's shared loss).
fn judged_ratios(
    drives: &[(&str, &PathDrive)],
    groups: &[Vec<usize>],
    limited: &[bool],
) -> Vec<Option<(f64, bool)>> {
    let mut judged = vec![None; drives.len()];
    for g in groups {
        let shared = |f: fn(&PathDrive) -> Option<f64>| {
            median(g.iter().filter_map(|&j| f(drives[j].1))).filter(|&m| m > 0.0)
        };
        let (seq_shared, seek_shared) =
            (shared(PathDrive::seq_ratio), shared(PathDrive::seek_ratio));
        for &i in g {
            let d = drives[i].1;
            let (seq, seek) = match limited[i] {
                false => (d.seq_ratio(), d.seek_ratio()),
                true => (
                    d.seq_ratio().zip(seq_shared).map(|(r, m)| r / m),
                    d.seek_ratio().zip(seek_shared).map(|(r, m)| r / m),
                ),
            };
            let seq_lost = seq.is_some_and(|r| r < HOLDS);
            judged[i] = match (seq, seek) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
            .map(|r| (r, seq_lost));
        }
    }
    judged
}

/// The median of `values`; None when there are none.
fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The complete drives' indices grouped by path, in order of first appearance; a
/// drive of unknown path alone. A drive whose check did not complete is in none.
fn groups(drives: &[(&str, &PathDrive)]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, (_, d)) in drives.iter().enumerate() {
        if !d.complete() {
            continue;
        }
        let name = &d.group.name;
        match groups
            .iter_mut()
            .find(|(n, _)| d.group.known() && n == name)
        {
            Some((_, members)) => members.push(i),
            None => groups.push((name.clone(), vec![i])),
        }
    }
    groups.into_iter().map(|(_, m)| m).collect()
}

/// The note of a group whose every drive loses sequential rate together and whose
/// sum together is under [`HOLDS`] of its sum alone; None otherwise.
fn limits(drives: &[(&str, &PathDrive)], group: &[usize]) -> Option<Finding> {
    let members: Vec<&PathDrive> = group.iter().map(|&i| drives[i].1).collect();
    let all_lose = members
        .iter()
        .all(|d| d.seq_ratio().is_some_and(|r| r < HOLDS));
    let alone: f64 = members.iter().map(|d| d.alone()).sum();
    let together: f64 = members.iter().map(|d| d.together()).sum();
    if !all_lose || alone <= 0.0 || together >= HOLDS * alone {
        return None;
    }
    let path = &members[0].group;
    let link = match path.bandwidth {
        Some(b) => format!(" (its link carries {:.0} MB/s)", b / 1e6),
        None => String::new(),
    };
    let detail = match path.detail.is_empty() {
        true => String::new(),
        false => format!(", {}", path.detail),
    };
    Some(Finding::new(
        Severity::Note,
        test_id(),
        Code::PathLimits,
        format!(
            "path: {}{detail} limits its {} drives: {:.0} MB/s together against {:.0} MB/s alone{link}",
            path.name,
            members.len(),
            together / 1e6,
            alone / 1e6,
        ),
    ))
}

/// What a drive loses, as judged: its ratio, whether its sequential rate is the
/// one lost, and whether it is judged against its limited group's shared loss.
struct Lost {
    ratio: f64,
    seq: bool,
    limited: bool,
}

/// The warning of a drive that loses while most of its peers hold.
fn loses(name: &str, d: &PathDrive, lost: Lost, holding: usize, peers: usize) -> Finding {
    let what = match lost.seq {
        true => format!(
            "{:.0} MB/s together against {:.0} MB/s alone",
            d.together() / 1e6,
            d.alone() / 1e6
        ),
        false => format!(
            "{:.0} random reads/s together against {:.0} alone",
            d.seek_together_iops, d.seek_alone_iops
        ),
    };
    let beyond = match lost.limited {
        true => " beyond its group's shared loss",
        false => "",
    };
    Finding::new(
        Severity::Warning,
        test_id(),
        Code::PathDriveLoses,
        format!(
            "path: {name} loses rate only with the other drives running{beyond}: {what} ({:.0}%), while {holding} of its {peers} peers hold: the drive or its slot (vibration, a connector, its own link)",
            lost.ratio * 100.0
        ),
    )
}

/// The lower Tukey fence (Q1 − 1.5 IQR) and the median of four values or more;
/// None for fewer.
fn spread(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let mut v: Vec<f64> = values.collect();
    if v.len() < 4 {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let q = |p: f64| {
        // Linear interpolation between the closest ranks.
        let x = p * (v.len() - 1) as f64;
        let (lo, hi) = (x.floor() as usize, x.ceil() as usize);
        v[lo] + (v[hi] - v[lo]) * (x - lo as f64)
    };
    let (q1, q3) = (q(0.25), q(0.75));
    Some((q1 - 1.5 * (q3 - q1), q(0.5)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::path::{PathGroup, PositionRate};

    fn drive(group: &str, alone: f64, together: f64, seek: (f64, f64)) -> PathDrive {
        PathDrive {
            group: PathGroup {
                name: group.to_string(),
                ..PathGroup::default()
            },
            drives_together: 4,
            positions: vec![PositionRate {
                offset_bytes: 0,
                alone,
                together,
            }],
            seek_alone_iops: seek.0,
            seek_together_iops: seek.1,
            error: None,
            unanswered: false,
            interrupted: false,
            findings: Vec::new(),
        }
    }

    fn run(ds: &[PathDrive]) -> Vec<Vec<Finding>> {
        let names: Vec<String> = (0..ds.len()).map(|i| format!("da{i}")).collect();
        let v: Vec<(&str, &PathDrive)> = names.iter().map(String::as_str).zip(ds.iter()).collect();
        findings(&v)
    }

    #[test]
    fn a_group_losing_together_is_the_path() {
        let ds: Vec<PathDrive> = (0..4)
            .map(|_| drive("controller hba0", 205e6, 75e6, (100.0, 100.0)))
            .collect();
        let f = run(&ds);
        for d in &f {
            assert_eq!(d.len(), 1, "{f:?}");
            assert_eq!(d[0].code, Code::PathLimits);
            assert_eq!(d[0].severity, Severity::Note);
            assert_eq!(
                d[0].reason,
                "path: controller hba0 limits its 4 drives: 300 MB/s together against 820 MB/s alone"
            );
        }
    }

    #[test]
    fn drives_that_hold_have_no_finding() {
        let ds: Vec<PathDrive> = (0..4)
            .map(|i| drive(&format!("controller c{i}"), 205e6, 204e6, (100.0, 99.0)))
            .collect();
        assert!(run(&ds).iter().all(Vec::is_empty));
    }

    #[test]
    fn one_drive_losing_while_the_others_hold_is_named() {
        let mut ds: Vec<PathDrive> = (0..4)
            .map(|_| drive("controller hba0", 205e6, 204e6, (100.0, 100.0)))
            .collect();
        ds[2] = drive("controller hba0", 205e6, 123e6, (100.0, 60.0));
        let f = run(&ds);
        assert!(
            f[0].is_empty() && f[1].is_empty() && f[3].is_empty(),
            "{f:?}"
        );
        assert_eq!(f[2][0].code, Code::PathDriveLoses);
        assert_eq!(f[2][0].severity, Severity::Warning);
        assert!(
            f[2][0].reason.starts_with("path: da2 loses rate"),
            "{}",
            f[2][0].reason
        );
        // Alone on its path, it is judged against every other drive.
        ds[2].group.name = "controller hba1".to_string();
        assert_eq!(run(&ds)[2][0].code, Code::PathDriveLoses);
    }

    #[test]
    fn an_outlier_within_holding_drives_is_a_note() {
        let mut ds: Vec<PathDrive> = (0..5)
            .map(|_| drive("pci 0000:03:00.0", 200e6, 199e6, (100.0, 99.0)))
            .collect();
        ds[4] = drive("pci 0000:03:00.0", 200e6, 186e6, (100.0, 99.0));
        let f = run(&ds);
        assert_eq!(f[4].len(), 1);
        assert_eq!(f[4][0].code, Code::PathOutlier);
        // Its figures tell it from its group.
        assert_eq!(
            f[4][0].reason,
            "path: da4 keeps 93.0% of its rate with the other drives running, 6.0 points under its group's median (99.0%) and below its lower Tukey fence (99.0%)"
        );
        assert!(f[..4].iter().all(Vec::is_empty));
    }

    #[test]
    fn drives_that_all_keep_their_rate_are_no_outliers() {
        // Fourteen healthy drives, one 0.4 points under the others: below a tight
        // group's fence, but it loses nothing worth a look.
        let mut ds: Vec<PathDrive> = (0..14)
            .map(|_| drive("pci 0000:03:00.0", 200e6, 199.9e6, (100.0, 100.0)))
            .collect();
        ds[8] = drive("pci 0000:03:00.0", 200e6, 199.1e6, (100.0, 100.0));
        assert!(run(&ds).iter().all(Vec::is_empty), "{:?}", run(&ds));
    }

    #[test]
    fn nothing_is_ever_a_failure_and_a_lone_drive_is_not_judged() {
        let ds = [drive("", 200e6, 20e6, (100.0, 10.0))];
        assert!(run(&ds)[0].is_empty());
        let ds: Vec<PathDrive> = (0..3)
            .map(|_| drive("", 200e6, 20e6, (100.0, 10.0)))
            .collect();
        assert!(
            run(&ds)
                .iter()
                .flatten()
                .all(|f| f.severity != Severity::Fail)
        );
    }

    #[test]
    fn a_drive_that_did_not_complete_fails_and_the_rest_are_judged_without_it() {
        let mut ds: Vec<PathDrive> = (0..4)
            .map(|_| drive("controller hba0", 205e6, 75e6, (100.0, 100.0)))
            .collect();
        ds[3].error = Some("sequential reads alone from byte 0: a read failed".into());
        let f = run(&ds);
        assert_eq!(f[3].len(), 1, "{f:?}");
        assert_eq!(f[3][0].code, Code::TestFailed);
        assert_eq!(f[3][0].severity, Severity::Fail);
        assert!(f[3][0].reason.contains("from byte 0"), "{}", f[3][0].reason);
        assert!(f[0][0].reason.contains("limits its 3 drives"), "{f:?}");
        ds[3].unanswered = true;
        assert_eq!(run(&ds)[3][0].code, Code::StoppedAnswering);
        // Ctrl-C: every drive unfinished, no ratio at all.
        for d in &mut ds {
            d.error = None;
            d.interrupted = true;
        }
        for d in run(&ds) {
            assert_eq!(d.len(), 1);
            assert_eq!(d[0].code, Code::TestInterrupted);
        }
    }

    #[test]
    fn a_drive_in_a_limited_group_is_judged_against_the_groups_shared_loss() {
        let mut ds: Vec<PathDrive> = (0..4)
            .map(|_| drive("controller hba0", 205e6, 75e6, (100.0, 100.0)))
            .collect();
        ds[1] = drive("controller hba0", 205e6, 74e6, (100.0, 50.0));
        let f = run(&ds);
        assert_eq!(f[1].len(), 2, "{f:?}");
        assert_eq!(f[1][1].code, Code::PathDriveLoses);
        assert!(
            f[1][1]
                .reason
                .contains("beyond its group's shared loss: 50 random reads/s"),
            "{}",
            f[1][1].reason
        );
        assert!(
            f[0].len() == 1 && f[2].len() == 1 && f[3].len() == 1,
            "{f:?}"
        );
    }
}
