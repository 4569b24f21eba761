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
//!   IQR, four drives or more) without either finding above: an outlier (a note).
//!
//! Nothing here fails a drive: a path is never the drive's fault, and a loss only
//! under load is worth a look, not a defect the check can prove.

use crate::results::path::PathDrive;
use crate::results::{Code, Finding, Severity};

/// The least rate together, as a fraction of the rate alone, of a drive that holds
/// (solnet-array-test's 92%).
pub const HOLDS: f64 = 0.92;

/// The test name the findings carry.
const TEST: &str = "path_check";

/// The findings of the check, one list a drive in the order given (`drives`: each
/// drive's name and its part of the check).
pub fn findings(drives: &[(&str, &PathDrive)]) -> Vec<Vec<Finding>> {
    let mut out: Vec<Vec<Finding>> = vec![Vec::new(); drives.len()];
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
    for (i, (name, d)) in drives.iter().enumerate() {
        if limited[i] || d.error.is_some() {
            continue;
        }
        let Some(ratio) = d.ratio() else { continue };
        let group = groups
            .iter()
            .find(|g| g.contains(&i))
            .expect("every drive has a group");
        let peers: Vec<usize> = if group.len() >= 2 {
            group.iter().copied().filter(|&j| j != i).collect()
        } else {
            (0..drives.len()).filter(|&j| j != i).collect()
        };
        let peer_ratios: Vec<f64> = peers.iter().filter_map(|&j| drives[j].1.ratio()).collect();
        let holding = peer_ratios.iter().filter(|&&r| r >= HOLDS).count();
        if ratio < HOLDS && !peer_ratios.is_empty() && holding * 2 > peer_ratios.len() {
            out[i].push(loses(name, d, ratio, holding, peer_ratios.len()));
        } else if let Some(fence) = lower_fence(group.iter().filter_map(|&j| drives[j].1.ratio()))
            && ratio < fence
        {
            out[i].push(Finding::new(
                Severity::Note,
                TEST,
                Code::PathOutlier,
                format!(
                    "path: {name} keeps {:.0}% of its rate with the other drives running, below its group's lower Tukey fence ({:.0}%)",
                    ratio * 100.0,
                    fence * 100.0
                ),
            ));
        }
    }
    out
}

/// The drives' indices grouped by path, in order of first appearance; a drive of
/// unknown path alone.
fn groups(drives: &[(&str, &PathDrive)]) -> Vec<Vec<usize>> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, (_, d)) in drives.iter().enumerate() {
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
    if members.iter().any(|d| d.error.is_some()) {
        return None;
    }
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
        TEST,
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

/// The warning of a drive that loses while most of its peers hold.
fn loses(name: &str, d: &PathDrive, ratio: f64, holding: usize, peers: usize) -> Finding {
    let what = match d.seq_ratio().is_some_and(|r| r < HOLDS) {
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
    Finding::new(
        Severity::Warning,
        TEST,
        Code::PathDriveLoses,
        format!(
            "path: {name} loses rate only with the other drives running: {what} ({:.0}%), while {holding} of its {peers} peers hold: the drive or its slot (vibration, a connector, its own link)",
            ratio * 100.0
        ),
    )
}

/// The lower Tukey fence (Q1 − 1.5 IQR) of four values or more; None for fewer.
fn lower_fence(values: impl Iterator<Item = f64>) -> Option<f64> {
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
    Some(q1 - 1.5 * (q3 - q1))
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
            findings: Vec::new(),
        }
    }

    fn run(ds: &[PathDrive]) -> Vec<Vec<Finding>> {
        let names = ["da0", "da1", "da2", "da3", "da4", "da5"];
        let v: Vec<(&str, &PathDrive)> = names.iter().copied().zip(ds.iter()).collect();
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
        assert!(f[..4].iter().all(Vec::is_empty));
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
}
