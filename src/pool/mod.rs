//! The pool plan (`seekprobe plan RUN.json... --layout L`, docs/plan.md): from the
//! drives of saved runs, the `zpool create` (or `mdadm --create`) command a
//! storage engineer would write, and why: only passing drives, each by a name
//! that survives a reboot, every vdev spread over the drives' paths, drives of
//! like speed and size together, the `ashift` from the largest physical sector,
//! drive-managed SMR kept out of raidz. Nothing is run: the plan is data made
//! from the saved facts, and text or JSON made from it.
//!
//! `args.rs` the command line and the vdev shape, `drives.rs` what each drive's
//! run says of it, `layout.rs` which drive goes where, `checks.rs` the reasons
//! and warnings, `command.rs` the command's words and the plan's text.

pub mod args;
pub mod command;
pub mod drives;
pub mod layout;
pub mod reasons;

use crate::results::Run;
use crate::results::device::ZoneMode;
use args::{PlanArgs, PoolTool, Shape, VdevKind};
use drives::PoolDrive;
use serde::Serialize;

/// A drive left out of the pool, and why.
#[derive(Debug, Clone, Serialize)]
pub struct LeftOut {
    /// Its name as given in its run.
    pub drive: String,
    /// The run file it comes from.
    pub run: String,
    /// Why it is left out.
    pub reason: String,
}

/// One vdev (or md array) of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct Vdev {
    /// Its name as zpool status shows it (`raidz2-0`), or the md array's device.
    pub name: String,
    /// Its drives' names, as in the command.
    pub drives: Vec<String>,
}

/// The plan: the command and everything said about it.
#[derive(Debug, Clone, Serialize)]
pub struct PoolPlan {
    /// The layout asked for (`raidz2:6`).
    pub layout: String,
    /// Whose command.
    #[serde(rename = "for")]
    pub target: PoolTool,
    /// The pool's (array's) name.
    pub pool: String,
    /// The runs read.
    pub runs: Vec<String>,
    /// The command as printed (shell-quoted, continued with backslashes); None
    /// when the drives make no pool.
    pub command: Option<String>,
    /// Each command's words, unquoted.
    pub argv: Vec<Vec<String>>,
    /// Why no pool can be made, when none can.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_pool: Option<String>,
    /// The `ashift` (zfs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ashift: Option<u32>,
    /// The vdevs, in the command's order.
    pub vdevs: Vec<Vdev>,
    /// The hot spares' names.
    pub spares: Vec<String>,
    /// Every drive left out, with its reason.
    pub left_out: Vec<LeftOut>,
    /// Why the plan is what it is, a line each.
    pub why: Vec<String>,
    /// What may be wrong with it, a line each.
    pub warnings: Vec<String>,
    /// Every drive of the runs, as the plan read it.
    pub drives: Vec<PoolDrive>,
}

/// Check the options against each other: `--for mdadm` takes mirror and raid6
/// (raidz2) shapes, raid6 at least 4 drives wide.
pub fn check(a: &PlanArgs) -> Result<(), String> {
    if a.target == PoolTool::Mdadm {
        match a.layout.kind {
            VdevKind::Mirror => {}
            VdevKind::Raidz(2) if a.layout.width >= 4 => {}
            VdevKind::Raidz(2) => {
                return Err(format!(
                    "--for mdadm --layout {}: mdadm's RAID 6 takes at least 4 drives",
                    a.layout.label()
                ));
            }
            _ => {
                return Err(format!(
                    "--for mdadm --layout {}: the mdadm plan takes mirror shapes (RAID 1) and raid6:N (raidz2:N)",
                    a.layout.label()
                ));
            }
        }
    }
    Ok(())
}

/// A drive as read from its run: what the plan knows, its verdict, its identity.
type Read = (
    PoolDrive,
    Option<crate::results::Verdict>,
    Option<crate::results::device::Identity>,
);

/// The plan for the drives of `runs` (each with its file's name).
pub fn plan(runs: &[(String, Run)], a: &PlanArgs) -> PoolPlan {
    let mut all: Vec<Read> = Vec::new();
    for (file, run) in runs {
        for d in &run.disks {
            let (drive, verdict) = drives::of(run, d, file);
            let id = d.info.as_ref().map(|i| i.identity());
            all.push((drive, verdict, id));
        }
    }
    let mut said = reasons::Said::default();
    let (pool, mut left_out) = select(&all, a, &mut said);
    let drives: Vec<PoolDrive> = all.into_iter().map(|(d, _, _)| d).collect();
    let speed = layout::speed(&drives, &pool);
    let arranged = if pool.is_empty() {
        Err(format!(
            "none of the {} can join the pool",
            count(drives.len(), "drive")
        ))
    } else {
        layout::arrange(&drives, &pool, a.layout, a.spares, speed.as_ref())
    };
    let mut plan = PoolPlan {
        layout: a.layout.label(),
        target: a.target,
        pool: a.name.clone(),
        runs: runs.iter().map(|(f, _)| f.clone()).collect(),
        command: None,
        argv: Vec::new(),
        no_pool: None,
        ashift: None,
        vdevs: Vec::new(),
        spares: Vec::new(),
        left_out: Vec::new(),
        why: Vec::new(),
        warnings: Vec::new(),
        drives: Vec::new(),
    };
    match arranged {
        Err(why) => plan.no_pool = Some(why),
        Ok(l) => {
            for &i in &l.leftover {
                left_out.push((i, not_needed(&drives, i, &l, pool.len(), speed.as_ref(), a)));
            }
            fill(&mut plan, &drives, &l, speed.as_ref(), a, &mut said);
            if a.spares > l.spares.len() {
                said.warnings.push(format!(
                    "{} asked for, {} left once the vdevs have their drives",
                    count(a.spares, "spare"),
                    l.spares.len()
                ));
            }
        }
    }
    left_out.sort_by_key(|(i, _)| *i);
    plan.left_out = left_out
        .into_iter()
        .map(|(i, reason)| LeftOut {
            drive: drives[i].given.clone(),
            run: drives[i].run.clone(),
            reason,
        })
        .collect();
    plan.why.extend(said.why);
    plan.warnings.extend(said.warnings);
    plan.drives = drives;
    plan
}

/// Which drives may join the pool (their indexes), and each other drive with
/// why it may not: its verdict, the same drive already taken or left out in
/// another run (a drive in several runs joins once, and only when every run
/// passes it; the same drive: the same serial, or two drives not simulated with
/// the same stable name, or without one the same path), drive-managed SMR in raidz. A DM-SMR drive that joins a mirror or
/// stripe gets a warning.
fn select(
    all: &[Read],
    a: &PlanArgs,
    said: &mut reasons::Said,
) -> (Vec<usize>, Vec<(usize, String)>) {
    let same = |i: usize, j: usize| {
        let ((d, _, id), (e, _, eid)) = (&all[i], &all[j]);
        let real = |x: &PoolDrive| x.naming != drives::Naming::Simulated;
        let by_serial = eid == id
            && id.as_ref().is_some_and(|x| x.is_known())
            && (e.given == d.given || real(e));
        // Without a serial: the same stable name, or (without one) the same path.
        let by_name = real(d) && real(e) && d.name == e.name;
        i != j && (by_serial || by_name)
    };
    let bars: Vec<Option<String>> = all
        .iter()
        .map(|(_, v, _)| drives::verdict_bars(v.as_ref(), a.with_warnings))
        .collect();
    let (mut pool, mut left_out) = (Vec::new(), Vec::new());
    for (i, (d, _, _)) in all.iter().enumerate() {
        let failed_elsewhere = (0..all.len()).find(|&j| same(i, j) && bars[j].is_some());
        let earlier = (0..i).find(|&j| same(i, j));
        // A host-managed drive joins no pool whatever its verdict: its zone model
        // is the reason.
        let reason = zoned_bar(d)
            .or_else(|| bars[i].clone())
            .or_else(|| {
                failed_elsewhere.map(|j| {
                    format!(
                        "the same drive as {} in {}, which left it out",
                        all[j].0.given, all[j].0.run
                    )
                })
            })
            .or_else(|| {
                earlier.map(|j| format!("the same drive as {} in {}", all[j].0.given, all[j].0.run))
            })
            .or_else(|| smr_bar(d, a.layout));
        match reason {
            Some(reason) => left_out.push((i, reason)),
            None => pool.push(i),
        }
        if let Some(why) = &d.smr
            && !matches!(a.layout.kind, VdevKind::Raidz(_))
            && pool.last() == Some(&i)
        {
            said.warnings.push(format!(
                "{} is drive-managed SMR ({why}): a resilver onto it runs at its shingled rewrite rate",
                d.given
            ));
        }
    }
    (pool, left_out)
}

/// Why a passing drive the layout does not need is left out, and that it is far
/// slower than the rest when it is.
fn not_needed(
    drives: &[PoolDrive],
    i: usize,
    l: &layout::Layout,
    passing: usize,
    speed: Option<&layout::Speed>,
    a: &PlanArgs,
) -> String {
    let slow = speed.filter(|s| s.slow.contains(&i)).map(|s| {
        format!(
            "; far slower than the rest: {:.1} MB/s against their median {:.1} MB/s ({})",
            layout::rate(drives, i, s.source).unwrap_or(0.0) / 1e6,
            s.median / 1e6,
            s.source.words()
        )
    });
    format!(
        "not needed: {} of {} and {} take {} of the {passing} passing drives{}",
        count(l.vdevs.len(), "vdev"),
        a.layout.width,
        count(l.spares.len(), "spare"),
        l.vdevs.len() * a.layout.width + l.spares.len(),
        slow.as_deref().unwrap_or("")
    )
}

/// The layout's part of the plan: the vdevs, spares, ashift, reasons, warnings
/// and the command.
fn fill(
    plan: &mut PoolPlan,
    drives: &[PoolDrive],
    l: &layout::Layout,
    speed: Option<&layout::Speed>,
    a: &PlanArgs,
    said: &mut reasons::Said,
) {
    let names = command::vdev_names(a, l.vdevs.len());
    let used: Vec<usize> = l.vdevs.iter().flatten().chain(&l.spares).copied().collect();
    let hosts: std::collections::BTreeSet<&str> = used
        .iter()
        .filter_map(|&i| drives[i].host.as_deref())
        .collect();
    if hosts.len() > 1 {
        said.warnings.push(format!(
            "the drives come from runs on {} hosts ({}): a pool is built on one host, with its drives there",
            hosts.len(),
            hosts.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    if a.target == PoolTool::Zfs {
        plan.ashift = Some(reasons::ashift(drives, &used, said));
    } else {
        let largest = used
            .iter()
            .map(|&i| drives[i].physical_sector_bytes)
            .max()
            .unwrap_or(512);
        said.why.push(format!(
            "sectors: md passes its drives' largest physical sector ({largest} bytes) up to the file system made on it, so nothing is set here"
        ));
    }
    reasons::vdevs(drives, l, speed, &names, said);
    reasons::spares(drives, l, speed, said);
    reasons::paths(drives, l, a.layout, &names, said);
    if let Some(s) = speed {
        said.why.push(format!(
            "speed: by {}, median {:.1} MB/s; a drive under {:.0}% of it is far slower, set aside as a spare first",
            s.source.words(),
            s.median / 1e6,
            layout::SLOW_SHARE * 100.0
        ));
    } else {
        said.warnings.push("speed: the drives share no measured rate (-t, --zones or --path-check), so like speeds were not grouped".into());
    }
    if let VdevKind::Raidz(_) = a.layout.kind
        && !(3..=9).contains(&a.layout.width)
    {
        said.why.push(format!(
            "width: {} drives a vdev, outside the 3 to 9 the OpenZFS RAIDZ documentation recommends for performance",
            a.layout.width
        ));
    }
    reasons::names(drives, &used, said);
    plan.vdevs = l
        .vdevs
        .iter()
        .zip(&names)
        .map(|(v, n)| Vdev {
            name: n.clone(),
            drives: v.iter().map(|&i| drives[i].name.clone()).collect(),
        })
        .collect();
    plan.spares = l.spares.iter().map(|&i| drives[i].name.clone()).collect();
    plan.argv = command::argv(plan, a);
    plan.command = Some(command::text(&plan.argv, a));
}

/// Why a host-managed zoned drive is left out of any pool: its zones take writes
/// only in order at each zone's write pointer, and neither ZFS nor md writes so.
/// The file systems that do are few and named (zonedstorage.io, "Supported File
/// Systems": f2fs, btrfs, zonefs); others need the dm-zoned device mapper between.
fn zoned_bar(d: &PoolDrive) -> Option<String> {
    (d.zone_mode == Some(ZoneMode::HostManaged)).then(|| {
        "host-managed zoned (the device reports the zone model host-managed): its zones take writes only in order at each zone's write pointer, which neither ZFS nor md does; a pool cannot use it".to_string()
    })
}

/// Why an SMR drive is left out: drive-managed SMR in a raidz vdev.
fn smr_bar(d: &PoolDrive, shape: Shape) -> Option<String> {
    let why = d.smr.as_ref()?;
    matches!(shape.kind, VdevKind::Raidz(_)).then(|| {
        format!(
            "drive-managed SMR ({why}): refused in raidz, whose resilver rewrites the whole vdev at the shingled drive's rewrite rate"
        )
    })
}

/// "1 drive", "3 drives".
pub(crate) fn count(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{State, Verdict};

    fn args(layout: &str) -> PlanArgs {
        PlanArgs {
            files: Vec::new(),
            layout: Shape::parse(layout).unwrap(),
            spares: 0,
            with_warnings: false,
            target: PoolTool::Zfs,
            name: "tank".into(),
            json: false,
        }
    }

    fn verdict(state: State) -> Option<Verdict> {
        Some(Verdict {
            state,
            findings: Vec::new(),
        })
    }

    /// A real drive named `name` (stable when it starts with /dev/disk/), no serial.
    fn real(name: &str, run: &str, state: State) -> Read {
        let mut d = drives::test_drive("hba0");
        d.given = name.into();
        d.name = name.into();
        d.run = run.into();
        d.naming = if name.starts_with("/dev/disk/") {
            drives::Naming::Stable
        } else {
            drives::Naming::Unstable
        };
        (d, verdict(state), None)
    }

    #[test]
    fn a_drive_without_a_serial_in_two_runs_joins_once_by_its_stable_name_or_path() {
        let mut all = Vec::new();
        for run in ["a.json", "b.json"] {
            for n in ["/dev/disk/by-id/wwn-0x5000", "/dev/disk/by-id/wwn-0x5001"] {
                all.push(real(n, run, State::Pass));
            }
            all.push(real("/dev/loop0", run, State::Pass));
        }
        let mut said = reasons::Said::default();
        let (pool, out) = select(&all, &args("raidz1:3"), &mut said);
        assert_eq!(pool, [0, 1, 2]);
        assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), [3, 4, 5]);
        assert!(out[0].1.contains("the same drive as"), "{out:?}");
    }

    #[test]
    fn a_drive_without_a_serial_failed_in_one_run_joins_from_none() {
        let all = vec![
            real("/dev/disk/by-id/wwn-0x5000", "a.json", State::Pass),
            real("/dev/disk/by-id/wwn-0x5000", "b.json", State::Fail),
            real("/dev/disk/by-id/wwn-0x5001", "a.json", State::Pass),
        ];
        let mut said = reasons::Said::default();
        let (pool, out) = select(&all, &args("mirror"), &mut said);
        assert_eq!(pool, [2]);
        assert!(out[0].1.contains("which left it out"), "{out:?}");
    }

    #[test]
    fn a_host_managed_zoned_drive_joins_no_pool() {
        let mut all = Vec::new();
        for (i, zone) in [None, Some(ZoneMode::HostManaged), Some(ZoneMode::HostAware)]
            .into_iter()
            .enumerate()
        {
            let mut r = real(
                &format!("/dev/disk/by-id/wwn-0x500{i}"),
                "a.json",
                State::Pass,
            );
            r.0.zone_mode = zone;
            all.push(r);
        }
        for layout in ["stripe", "mirror"] {
            let mut said = reasons::Said::default();
            let (pool, out) = select(&all, &args(layout), &mut said);
            // Host-aware takes writes anywhere (drive-managed SMR's rules apply).
            assert_eq!(pool, [0, 2], "{layout}");
            assert_eq!(out.len(), 1);
            assert!(out[0].1.starts_with("host-managed zoned"), "{out:?}");
        }
    }

    #[test]
    fn simulated_drives_without_a_serial_of_other_names_are_other_drives() {
        let mut all = Vec::new();
        for i in 0..2 {
            let mut d = drives::test_drive("hba0");
            d.given = format!("sim:hdd?seed={i}");
            d.name = "same".into();
            all.push((d, verdict(State::Pass), None));
        }
        let mut said = reasons::Said::default();
        let (pool, _) = select(&all, &args("mirror"), &mut said);
        assert_eq!(pool, [0, 1]);
    }
}
