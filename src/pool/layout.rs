//! Which passing drive goes where: how many vdevs the drives make, which become
//! spares or are left over (a drive far slower than the rest first, then the
//! drives of the path that holds the most, so the rest spread evenly), and each
//! vdev's drives: each HBA's, then each path's (expander's), drives dealt over
//! the vdevs as evenly as they go (at most its share in each), drives of like size and speed together (the
//! largest and fastest in the first vdev). Pure.

use super::args::Shape;
use super::drives::{PoolDrive, RateSource};
use std::collections::BTreeMap;

/// A drive is far slower than its group below this share of the group's median
/// rate (1 − `--qualify`'s default tolerance of 15%).
pub const SLOW_SHARE: f64 = 0.85;

/// Where each drive of the pool goes (indexes into the drives).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    /// Each vdev's drives, in order.
    pub vdevs: Vec<Vec<usize>>,
    /// The hot spares.
    pub spares: Vec<usize>,
    /// Passing drives the layout does not need.
    pub leftover: Vec<usize>,
}

/// The speed the drives are compared by: the best source every drive of the
/// pool measured, its median, and the drives far slower than it.
#[derive(Debug, Clone, PartialEq)]
pub struct Speed {
    /// Where the rates come from.
    pub source: RateSource,
    /// The median rate of the pool's drives, bytes/s.
    pub median: f64,
    /// Drives below [`SLOW_SHARE`] of it.
    pub slow: Vec<usize>,
}

/// The rate of drive `i` from `source`, when it measured one there.
pub fn rate(drives: &[PoolDrive], i: usize, source: RateSource) -> Option<f64> {
    drives[i].rates.iter().find(|r| r.1 == source).map(|r| r.0)
}

/// The common speed of the drives `pool`: by the best source every one of them
/// measured; None when they share none (a drive without a rate cannot be
/// compared).
pub fn speed(drives: &[PoolDrive], pool: &[usize]) -> Option<Speed> {
    let sources = [
        RateSource::ZoneCurve,
        RateSource::Transfer,
        RateSource::PathCheck,
    ];
    let source = sources
        .into_iter()
        .find(|&s| pool.iter().all(|&i| rate(drives, i, s).is_some()))?;
    let rates: Vec<(usize, f64)> = pool
        .iter()
        .filter_map(|&i| rate(drives, i, source).map(|r| (i, r)))
        .collect();
    let median = median(rates.iter().map(|r| r.1).collect());
    let slow = rates
        .iter()
        .filter(|r| r.1 < SLOW_SHARE * median)
        .map(|r| r.0)
        .collect();
    Some(Speed {
        source,
        median,
        slow,
    })
}

/// The median of `v` (the mean of the middle two of an even count), 0 when empty.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The group a drive's path puts it in: its path's name (with its host when the
/// runs come from several), or a group of its own when the path is unknown.
pub fn group(drives: &[PoolDrive], i: usize) -> String {
    domains(drives, i).pop().unwrap_or_default()
}

/// The failure domains of drive `i`, widest first, each named as the path check
/// names it (with its host when the runs come from several): for a drive behind
/// an expander (`expander 2:0 on pci 0000:03:00.0`) the HBA it hangs on
/// (`pci 0000:03:00.0`), whose loss takes every expander on it, then the
/// expander; else its path alone (`controller hba0`, `pci …`); a domain of its
/// own (`#i`) when the path is unknown.
pub fn domains(drives: &[PoolDrive], i: usize) -> Vec<String> {
    let Some(path) = &drives[i].path else {
        return vec![format!("#{i}")];
    };
    let hosts: std::collections::BTreeSet<_> = drives.iter().map(|d| &d.host).collect();
    let on_host = |p: &str| match hosts.len() > 1 {
        false => p.to_string(),
        true => format!("{p} on {}", drives[i].host.as_deref().unwrap_or("?")),
    };
    let hba = path
        .strip_prefix("expander ")
        .and_then(|e| e.split_once(" on "))
        .map(|(_, hba)| hba);
    match hba {
        Some(hba) => vec![on_host(hba), on_host(path)],
        None => vec![on_host(path)],
    }
}

/// The widest failure domain of drive `i` (its HBA): see [`domains`].
pub fn top(drives: &[PoolDrive], i: usize) -> String {
    domains(drives, i).swap_remove(0)
}

/// Arrange the passing drives `pool` in vdevs of `shape`, with up to `spares`
/// spares; Err(why) when they are too few for one vdev.
pub fn arrange(
    drives: &[PoolDrive],
    pool: &[usize],
    shape: Shape,
    spares: usize,
    speed: Option<&Speed>,
) -> Result<Layout, String> {
    let n = pool.len();
    if n < shape.width {
        return Err(format!(
            "{} takes {} drives a vdev, and {} {} can join the pool",
            shape.label(),
            shape.width,
            n,
            if n == 1 { "drive" } else { "drives" }
        ));
    }
    let vdevs = (n.saturating_sub(spares) / shape.width).max(1);
    let used = vdevs * shape.width;
    let spare_count = spares.min(n - used);
    let mut kept: Vec<usize> = pool.to_vec();
    let mut removed = Vec::new();
    while kept.len() > used {
        let k = removal(drives, &kept, speed);
        removed.push(kept.remove(k));
    }
    let leftover = removed.split_off(spare_count);
    Ok(Layout {
        vdevs: deal(drives, &kept, shape, vdevs, speed),
        spares: removed,
        leftover,
    })
}

/// Which of `kept` to set aside next (its position): a drive far slower than the
/// pool first; then one of another size than most; then one of the HBA, then
/// of the path, holding the most drives; among those the smallest, then the slowest, then the last.
fn removal(drives: &[PoolDrive], kept: &[usize], speed: Option<&Speed>) -> usize {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let mut sizes: BTreeMap<u64, usize> = BTreeMap::new();
    for &i in kept {
        for d in domains(drives, i) {
            *count.entry(d).or_default() += 1;
        }
        *sizes.entry(drives[i].size_bytes).or_default() += 1;
    }
    let most = sizes
        .iter()
        .max_by_key(|(s, n)| (**n, **s))
        .map_or(0, |(s, _)| *s);
    let odd = |i: usize| drives[i].size_bytes != most;
    let rate = |i: usize| speed.and_then(|s| rate(drives, i, s.source)).unwrap_or(0.0);
    let slow = |i: usize| speed.is_some_and(|s| s.slow.contains(&i));
    (0..kept.len())
        .max_by(|&a, &b| {
            let (x, y) = (kept[a], kept[b]);
            slow(x)
                .cmp(&slow(y))
                .then(odd(x).cmp(&odd(y)))
                .then(count[&top(drives, x)].cmp(&count[&top(drives, y)]))
                .then(count[&group(drives, x)].cmp(&count[&group(drives, y)]))
                .then(drives[y].size_bytes.cmp(&drives[x].size_bytes))
                .then(rate(y).total_cmp(&rate(x)))
                .then(a.cmp(&b))
        })
        .unwrap_or(0)
}

/// Deal the drives `kept` into `vdevs` vdevs of `shape.width`: largest and
/// fastest first, each into the first vdev with room where its HBA and its path
/// (its expander) each hold fewer than their share (their drives over the vdevs,
/// rounded up), else where its HBA does, else into the vdev with room where its
/// HBA, then its path, holds the fewest.
fn deal(
    drives: &[PoolDrive],
    kept: &[usize],
    shape: Shape,
    vdevs: usize,
    speed: Option<&Speed>,
) -> Vec<Vec<usize>> {
    let rate = |i: usize| speed.and_then(|s| rate(drives, i, s.source)).unwrap_or(0.0);
    let mut order = kept.to_vec();
    order.sort_by(|&a, &b| {
        drives[b]
            .size_bytes
            .cmp(&drives[a].size_bytes)
            .then(rate(b).total_cmp(&rate(a)))
            .then(a.cmp(&b))
    });
    let mut total: BTreeMap<String, usize> = BTreeMap::new();
    for &i in kept {
        for d in domains(drives, i) {
            *total.entry(d).or_default() += 1;
        }
    }
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); vdevs];
    for i in order {
        let (t, g) = (top(drives, i), group(drives, i));
        let share = |d: &String| total[d].div_ceil(vdevs);
        let held = |v: usize, d: &String| {
            let on = |j: &usize| domains(drives, *j).contains(d);
            out[v].iter().filter(|j| on(j)).count()
        };
        let room: Vec<usize> = (0..vdevs).filter(|&v| out[v].len() < shape.width).collect();
        let to = room
            .iter()
            .copied()
            .find(|&v| held(v, &t) < share(&t) && held(v, &g) < share(&g))
            .or_else(|| room.iter().copied().find(|&v| held(v, &t) < share(&t)))
            .or_else(|| {
                room.iter()
                    .copied()
                    .min_by_key(|&v| (held(v, &t), held(v, &g), v))
            })
            .unwrap_or(0);
        out[to].push(i);
    }
    // Each vdev's drives by path, then as the runs listed them: easier to read.
    for v in &mut out {
        v.sort_by_key(|&i| (drives[i].path.clone(), i));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(path: &str, rate: f64) -> PoolDrive {
        let mut d = crate::pool::drives::test_drive(path);
        d.rates = vec![(rate, RateSource::Transfer)];
        d
    }

    fn paths(drives: &[PoolDrive], v: &[usize]) -> Vec<String> {
        let mut p: Vec<String> = v.iter().map(|&i| drives[i].path.clone().unwrap()).collect();
        p.sort();
        p
    }

    #[test]
    fn thirteen_drives_on_two_paths_make_two_vdevs_of_three_and_three_and_a_spare() {
        let mut d: Vec<PoolDrive> = (0..6).map(|_| drive("a", 100.0)).collect();
        d.extend((0..7).map(|_| drive("b", 100.0)));
        let pool: Vec<usize> = (0..13).collect();
        let shape = Shape::parse("raidz2:6").unwrap();
        let s = speed(&d, &pool);
        let l = arrange(&d, &pool, shape, 1, s.as_ref()).unwrap();
        assert_eq!(l.vdevs.len(), 2);
        for v in &l.vdevs {
            assert_eq!(paths(&d, v), ["a", "a", "a", "b", "b", "b"]);
        }
        assert_eq!(l.spares.len(), 1);
        assert_eq!(d[l.spares[0]].path.as_deref(), Some("b"));
        assert!(l.leftover.is_empty());
    }

    #[test]
    fn the_slow_drive_becomes_the_spare_and_like_speeds_share_a_vdev() {
        let mut d: Vec<PoolDrive> = (0..4).map(|i| drive(["a", "b"][i % 2], 200.0)).collect();
        d.extend((0..4).map(|i| drive(["a", "b"][i % 2], 150.0)));
        d.push(drive("a", 60.0));
        let pool: Vec<usize> = (0..9).collect();
        let s = speed(&d, &pool).unwrap();
        assert_eq!(s.slow, [8]);
        let l = arrange(&d, &pool, Shape::parse("mirror:2").unwrap(), 1, Some(&s)).unwrap();
        assert_eq!(l.spares, [8]);
        for v in &l.vdevs {
            assert_eq!(paths(&d, v), ["a", "b"]);
            assert_eq!(d[v[0]].rates, d[v[1]].rates, "{v:?}");
        }
    }

    #[test]
    fn drives_behind_two_expanders_of_one_hba_are_spread_by_the_hba_first() {
        let (e0, e1) = (
            "expander 2:0 on pci 0000:03:00.0",
            "expander 2:1 on pci 0000:03:00.0",
        );
        let mut d = vec![drive(e0, 1.0), drive(e0, 1.0), drive(e1, 1.0)];
        d.extend((0..3).map(|_| drive("pci 0000:04:00.0", 1.0)));
        assert_eq!(domains(&d, 0), ["pci 0000:03:00.0", e0]);
        assert_eq!(domains(&d, 3), ["pci 0000:04:00.0"]);
        let pool: Vec<usize> = (0..6).collect();
        let l = arrange(&d, &pool, Shape::parse("mirror:2").unwrap(), 0, None).unwrap();
        for v in &l.vdevs {
            let hbas: Vec<String> = v.iter().map(|&i| top(&d, i)).collect();
            assert_eq!(hbas, ["pci 0000:03:00.0", "pci 0000:04:00.0"], "{l:?}");
        }
    }

    #[test]
    fn too_few_drives_say_so() {
        let d: Vec<PoolDrive> = (0..3).map(|_| drive("a", 1.0)).collect();
        let e = arrange(&d, &[0, 1, 2], Shape::parse("raidz2:6").unwrap(), 0, None);
        assert_eq!(
            e.unwrap_err(),
            "raidz2:6 takes 6 drives a vdev, and 3 drives can join the pool"
        );
    }
}
