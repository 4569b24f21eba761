//! The plan's reasons and warnings about a layout: how each vdev spreads over
//! the paths (and what losing one path costs it), its drives' speeds and sizes,
//! the spares, the `ashift` and its evidence, and how each drive is named. Pure:
//! every line is made from the drives' saved facts.

use super::args::{Shape, VdevKind};
use super::drives::{Naming, PoolDrive};
use super::layout::{Layout, SLOW_SHARE, Speed, domains, rate, top};
use crate::results::verdict::binary_size;
use std::collections::BTreeMap;

/// What the checks say: reasons (why the plan is so) and warnings.
#[derive(Debug, Default)]
pub struct Said {
    /// Why the plan is what it is, a line each.
    pub why: Vec<String>,
    /// What may be wrong with it, a line each.
    pub warnings: Vec<String>,
}

/// A rate in MB/s (10^6 bytes), as the path check prints them.
fn mb(bytes_per_s: f64) -> String {
    format!("{:.1} MB/s", bytes_per_s / 1e6)
}

/// "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Each failure domain's drives in each vdev: every level of each drive's path
/// (the HBA, then the expander on it; see [`domains`]) → counts by vdev; drives
/// of unknown path are left out.
fn per_path(drives: &[PoolDrive], l: &Layout) -> BTreeMap<String, Vec<usize>> {
    let mut m: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (v, vdev) in l.vdevs.iter().enumerate() {
        for &i in vdev {
            if drives[i].path.is_some() {
                for d in domains(drives, i) {
                    m.entry(d).or_insert_with(|| vec![0; l.vdevs.len()])[v] += 1;
                }
            }
        }
    }
    m
}

/// What losing one path costs each vdev: a warning for each failure domain (an
/// HBA with every expander on it, an expander, a controller) whose loss
/// takes more drives from a vdev than it can lose (naming the path as the path
/// check does, and a whole vdev as such), a warning when the paths are too few
/// to spread the vdevs at all, and a warning for drives whose path is unknown.
pub fn paths(drives: &[PoolDrive], l: &Layout, shape: Shape, names: &[String], said: &mut Said) {
    let r = shape.redundancy();
    let counts = per_path(drives, l);
    if shape.kind == VdevKind::Stripe {
        said.warnings.push(
            "stripe: no redundancy: the failure of any drive or of its path loses the pool".into(),
        );
    } else {
        let mut over = false;
        for (path, c) in &counts {
            let hit: Vec<usize> = (0..c.len()).filter(|&v| c[v] > r).collect();
            if hit.is_empty() {
                continue;
            }
            over = true;
            let whole: Vec<String> = hit
                .iter()
                .filter(|&&v| c[v] == shape.width)
                .map(|&v| names[v].clone())
                .collect();
            let text = if !whole.is_empty() {
                format!(
                    "{path}: its failure takes a whole vdev (all {} drives of {}): the pool is lost with it",
                    shape.width,
                    and_list(&whole)
                )
            } else {
                let parts: Vec<String> = hit
                    .iter()
                    .map(|&v| format!("{} drives from {}", c[v], names[v]))
                    .collect();
                format!(
                    "{path}: its failure takes {}, more than the {r} a {} vdev can lose: the pool is lost with it",
                    and_list(&parts),
                    shape.word()
                )
            };
            said.warnings.push(text);
        }
        let needed = shape.width.div_ceil(r.max(1));
        let hbas: std::collections::BTreeSet<String> = l
            .vdevs
            .iter()
            .flatten()
            .filter(|&&i| drives[i].path.is_some())
            .map(|&i| top(drives, i))
            .collect();
        if over && hbas.len() < needed {
            said.warnings.push(format!(
                "the drives sit on {} known {}, and {}-wide {} vdevs need at least {needed} (at most {r} drives of a vdev on each) to survive the loss of one: each vdev is spread over them as evenly as it goes",
                hbas.len(),
                if hbas.len() == 1 { "path" } else { "paths" },
                shape.width,
                shape.word()
            ));
        } else if !over && !counts.is_empty() {
            said.why.push(format!(
                "paths: no vdev holds more than {r} {} of one path, so losing any one path ({}) costs no vdev more than it can lose",
                if r == 1 { "drive" } else { "drives" },
                and_list(&counts.keys().cloned().collect::<Vec<_>>())
            ));
        }
    }
    let unknown = |checked: bool| -> Vec<String> {
        l.vdevs
            .iter()
            .flatten()
            .chain(&l.spares)
            .filter(|&&i| drives[i].path.is_none() && drives[i].path_checked == checked)
            .map(|&i| drives[i].given.clone())
            .collect()
    };
    for (checked, why) in [
        (false, "no --path-check in its run"),
        (true, "the path check found none"),
    ] {
        let names = unknown(checked);
        if !names.is_empty() {
            said.warnings.push(format!(
                "the path of {} is unknown ({why}), so what losing a controller costs was not checked: {}",
                if names.len() == 1 { "1 drive".to_string() } else { format!("{} drives", names.len()) },
                names.join(", ")
            ));
        }
    }
}

/// Each vdev's line: its drives by path, their speeds and sizes; a warning for
/// a drive far slower than its vdev (a vdev runs at its slowest drive) and for
/// drives of unlike sizes (each is used to the smallest's size).
pub fn vdevs(
    drives: &[PoolDrive],
    l: &Layout,
    speed: Option<&Speed>,
    names: &[String],
    said: &mut Said,
) {
    for (v, vdev) in l.vdevs.iter().enumerate() {
        let mut by_path: BTreeMap<String, usize> = BTreeMap::new();
        for &i in vdev {
            let p = drives[i]
                .path
                .clone()
                .unwrap_or_else(|| "an unknown path".into());
            *by_path.entry(p).or_default() += 1;
        }
        let spread: Vec<String> = match vdev.len() {
            1 => by_path.keys().map(|p| format!("on {p}")).collect(),
            _ => by_path.iter().map(|(p, n)| format!("{n} on {p}")).collect(),
        };
        let each = if vdev.len() == 1 { "" } else { " each" };
        let mut line = format!("{}: {}", names[v], and_list(&spread));
        if let Some(s) = speed {
            let rates: Vec<(usize, f64)> = vdev
                .iter()
                .filter_map(|&i| rate(drives, i, s.source).map(|r| (i, r)))
                .collect();
            let m = s.median;
            let (lo, hi) = rates
                .iter()
                .fold((f64::MAX, 0.0f64), |(lo, hi), r| (lo.min(r.1), hi.max(r.1)));
            if mb(lo) == mb(hi) {
                line.push_str(&format!("; {}{each}", mb(lo)));
            } else {
                line.push_str(&format!("; {} to {}", mb(lo), mb(hi)));
            }
            for (i, r) in rates.iter().filter(|r| r.1 < SLOW_SHARE * m) {
                said.warnings.push(format!(
                    "{}: {} reads {}, {:.0}% under the drives' median {}, and {} runs at its slowest drive",
                    names[v],
                    drives[*i].given,
                    mb(*r),
                    (1.0 - r / m) * 100.0,
                    mb(m),
                    names[v]
                ));
            }
        }
        let min = vdev
            .iter()
            .map(|&i| drives[i].size_bytes)
            .min()
            .unwrap_or(0);
        let max = vdev
            .iter()
            .map(|&i| drives[i].size_bytes)
            .max()
            .unwrap_or(0);
        if min == max {
            line.push_str(&format!("; {}{each}", binary_size(min)));
        } else {
            let smallest = vdev.iter().find(|&&i| drives[i].size_bytes == min).unwrap();
            let lost: u64 = vdev.iter().map(|&i| drives[i].size_bytes - min).sum();
            line.push_str(&format!("; {} to {}", binary_size(min), binary_size(max)));
            said.warnings.push(format!(
                "{}: drives of {} to {}: each is used to the smallest's {} ({}), {} lost on the larger",
                names[v],
                binary_size(min),
                binary_size(max),
                binary_size(min),
                drives[*smallest].given,
                binary_size(lost)
            ));
        }
        said.why.push(line);
    }
}

/// The spares' line (where each comes from and why), and a warning for a spare
/// smaller than a drive it may have to replace.
pub fn spares(drives: &[PoolDrive], l: &Layout, speed: Option<&Speed>, said: &mut Said) {
    let largest = l
        .vdevs
        .iter()
        .flatten()
        .max_by_key(|&&i| drives[i].size_bytes);
    for &i in &l.spares {
        let d = &drives[i];
        let why = match speed {
            Some(s) if s.slow.contains(&i) => format!(
                "the slowest: {} against the median {} ({})",
                mb(rate(drives, i, s.source).unwrap_or(0.0)),
                mb(s.median),
                s.source.words()
            ),
            _ => match &d.path {
                Some(p) => {
                    let on = |v: &[usize]| v.iter().filter(|&&j| drives[j].path == d.path).count();
                    let in_vdevs: usize = l.vdevs.iter().map(|v| on(v)).sum();
                    format!(
                        "from {p}, the path with the most passing drives ({}, {in_vdevs} left for the vdevs)",
                        in_vdevs + on(&l.spares)
                    )
                }
                None => "its path unknown".into(),
            },
        };
        said.why.push(format!("spare: {}: {why}", d.given));
        if let Some(&big) = largest
            && drives[big].size_bytes > d.size_bytes
        {
            said.warnings.push(format!(
                "spare {} ({}) is smaller than {} ({}) and cannot replace it",
                d.given,
                binary_size(d.size_bytes),
                drives[big].given,
                binary_size(drives[big].size_bytes)
            ));
        }
    }
}

/// The largest `ashift` OpenZFS accepts (`ASHIFT_MAX`, 64 KiB): zpool refuses
/// more.
pub const ASHIFT_MAX: u32 = 16;

/// The pool's `ashift`: log2 of the largest physical sector of its drives, at
/// least 12 (4 KiB), so that a 4 KiB drive can replace one later, and at most
/// [`ASHIFT_MAX`] (a RAID controller's stripe reported as the physical sector,
/// FreeBSD's stripesize, gives more), with a warning naming each drive that
/// reports more; with the evidence in words.
pub fn ashift(drives: &[PoolDrive], used: &[usize], said: &mut Said) -> u32 {
    let largest = used
        .iter()
        .map(|&i| drives[i].physical_sector_bytes.max(512))
        .max()
        .unwrap_or(512);
    let wanted = largest.next_power_of_two().trailing_zeros();
    let shift = wanted.clamp(12, ASHIFT_MAX);
    let mut kinds: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for &i in used {
        let d = &drives[i];
        *kinds
            .entry((d.logical_sector_bytes, d.physical_sector_bytes))
            .or_default() += 1;
    }
    let of: Vec<String> = kinds
        .iter()
        .rev()
        .map(|((log, phys), n)| {
            format!(
                "{n} {} {log}-byte logical and {phys}-byte physical sectors",
                if *n == 1 { "drive has" } else { "drives have" }
            )
        })
        .collect();
    let why = if wanted > ASHIFT_MAX {
        for &i in used {
            let d = &drives[i];
            if d.physical_sector_bytes.next_power_of_two().trailing_zeros() > ASHIFT_MAX {
                said.warnings.push(format!(
                    "ashift: {} reports a physical sector of {} bytes, more than the {} bytes of OpenZFS's largest ashift ({ASHIFT_MAX}), which zpool refuses: likely a RAID controller's stripe, not the drive's sector; ashift={ASHIFT_MAX} is set instead",
                    d.given,
                    d.physical_sector_bytes,
                    1u64 << ASHIFT_MAX
                ));
            }
        }
        format!(
            "ashift={shift}: the largest physical sector in the pool is {largest} bytes ({}), beyond OpenZFS's largest ashift, so {ASHIFT_MAX} ({} bytes)",
            and_list(&of),
            1u64 << ASHIFT_MAX
        )
    } else if largest >= 4096 {
        format!(
            "ashift={shift}: 2^{shift} = {} bytes, the largest physical sector in the pool ({})",
            1u64 << shift,
            and_list(&of)
        )
    } else {
        format!(
            "ashift={shift}: the largest physical sector in the pool is {largest} bytes ({}), but a vdev's ashift is fixed for its life and a 4 KiB drive cannot replace one of ashift 9 well, so 12",
            and_list(&of)
        )
    };
    said.why.push(why);
    shift
}

/// How the drives are named: a note for simulated drives, a warning for each
/// drive without a name that survives a reboot.
pub fn names(drives: &[PoolDrive], used: &[usize], said: &mut Said) {
    let sims = used
        .iter()
        .filter(|&&i| drives[i].naming == Naming::Simulated)
        .count();
    if sims > 0 {
        said.why.push(format!(
            "names: {sims} simulated {} named by the whole sim: name {} given (a simulated drive has no /dev/disk/by-id name): the command shows the plan, it is not one to run",
            if sims == 1 { "drive is" } else { "drives are" },
            if sims == 1 { "it was" } else { "each was" }
        ));
    }
    let stable = used
        .iter()
        .filter(|&&i| drives[i].naming == Naming::Stable)
        .count();
    if stable > 0 {
        said.why.push(format!(
            "names: {stable} {} by a name that survives a reboot (Linux: /dev/disk/by-id, the WWN's first; FreeBSD: /dev/diskid)",
            if stable == 1 { "drive is named" } else { "drives are named" }
        ));
    }
    for &i in used
        .iter()
        .filter(|&&i| drives[i].naming == Naming::Unstable)
    {
        said.warnings.push(format!(
            "{} has no name that survives a reboot in its run (no /dev/disk/by-id link or /dev/diskid name recorded): named by {}, which may name another drive after a reboot",
            drives[i].given, drives[i].name
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::drives::test_drive;

    #[test]
    fn losing_an_hba_counts_the_drives_of_every_expander_on_it() {
        let d = vec![
            test_drive("expander 2:0 on pci 0000:03:00.0"),
            test_drive("expander 2:1 on pci 0000:03:00.0"),
            test_drive("pci 0000:03:00.0"),
            test_drive("pci 0000:04:00.0"),
        ];
        let l = Layout {
            vdevs: vec![vec![0, 1, 2], vec![3]],
            ..Layout::default()
        };
        let names = ["raidz1-0".to_string(), "raidz1-1".to_string()];
        let mut said = Said::default();
        paths(&d, &l, Shape::parse("raidz1:3").unwrap(), &names, &mut said);
        assert!(
            said.warnings.iter().any(|w| w.starts_with(
                "pci 0000:03:00.0: its failure takes a whole vdev (all 3 drives of raidz1-0)"
            )),
            "{said:?}"
        );
        assert!(
            !said.why.iter().any(|w| w.starts_with("paths: ")),
            "{said:?}"
        );
        assert!(
            !said.warnings.iter().any(|w| w.starts_with("expander")),
            "{said:?}"
        );
    }

    #[test]
    fn two_expanders_over_a_mirror_are_two_drives_of_one_hba() {
        let d = vec![
            test_drive("expander 2:0 on pci 0000:03:00.0"),
            test_drive("expander 2:1 on pci 0000:03:00.0"),
        ];
        let l = Layout {
            vdevs: vec![vec![0, 1]],
            ..Layout::default()
        };
        let mut said = Said::default();
        paths(
            &d,
            &l,
            Shape::parse("mirror").unwrap(),
            &["mirror-0".into()],
            &mut said,
        );
        assert_eq!(
            said.warnings[0],
            "pci 0000:03:00.0: its failure takes a whole vdev (all 2 drives of mirror-0): the pool is lost with it",
        );
        assert!(
            said.warnings[1].starts_with("the drives sit on 1 known path"),
            "{said:?}"
        );
    }

    fn sectors(phys: &[u32]) -> Vec<PoolDrive> {
        phys.iter()
            .enumerate()
            .map(|(i, &p)| {
                let mut d = test_drive("hba0");
                d.given = format!("d{i}");
                d.physical_sector_bytes = p;
                d
            })
            .collect()
    }

    #[test]
    fn ashift_is_at_least_12_and_at_most_16_with_a_warning_naming_the_drive() {
        let mut said = Said::default();
        assert_eq!(ashift(&sectors(&[512, 512]), &[0, 1], &mut said), 12);
        assert_eq!(ashift(&sectors(&[4096, 8192]), &[0, 1], &mut said), 13);
        assert_eq!(ashift(&sectors(&[65536]), &[0], &mut said), 16);
        assert!(said.warnings.is_empty(), "{said:?}");
        assert_eq!(ashift(&sectors(&[4096, 1 << 20]), &[0, 1], &mut said), 16);
        assert_eq!(said.warnings.len(), 1, "{said:?}");
        assert!(
            said.warnings[0].starts_with("ashift: d1 reports a physical sector of 1048576 bytes"),
            "{said:?}"
        );
        assert!(
            said.why.last().unwrap().starts_with("ashift=16: "),
            "{said:?}"
        );
    }
}
