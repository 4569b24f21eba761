//! Which saved drive a resumed burn-in goes on from, for each drive of the new run
//! (issue 27, "Twin identities"), and how the drive list changed. Pure: the
//! identities are read by the caller.
//!
//! A drive's identity is its serial, WWN (where both runs have one), model and
//! size ([`Identity`]). A saved drive's steps are kept only for the one drive of
//! the new run whose identity is its own; the name a drive was given tells apart
//! only drives sharing all of these (simulated drives of one seed, USB bridges
//! that report one serial, clones), so a drive renamed after a reboot is still
//! found by its serial. A drive whose identity is shared, on either side, is
//! never given the steps of a saved disk of another name; nor is a drive given a
//! name that the saved run listed but never reached (that drive's identity was
//! never read: it may have been a twin). Drives without a serial (loop devices,
//! images) are found by their name, their model and size unchanged.

use crate::results::DiskResult;
use crate::results::device::Identity;

/// A drive of the new run as the resume sees it.
#[derive(Debug, Clone)]
pub struct NewDrive {
    /// The name given on the command line.
    pub name: String,
    /// Its identity, None when it could not be opened.
    pub identity: Option<Identity>,
}

/// A difference between the saved run's drive list and the new one's, by the
/// names given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A drive of the new run that the saved run did not hold.
    Added(String),
    /// A drive of the saved run that the new run does not name.
    Removed(String),
    /// The same name now reaches another drive (`why`: what differs).
    Replaced {
        /// The name, in both runs.
        name: String,
        /// What differs, e.g. "serial Z1E5ABCD, now Z1E5XXXX".
        why: String,
    },
}

impl Change {
    /// The change in words, for the refusal and the note of a confirmed resume.
    pub fn line(&self) -> String {
        match self {
            Change::Added(n) => format!("{n} was added (the saved run did not burn it in)"),
            Change::Removed(n) => format!("{n} was removed (the saved run burnt it in)"),
            Change::Replaced { name, why } => {
                format!("{name} is another drive than the saved run's ({why})")
            }
        }
    }
}

/// How the new run's drives meet the saved run's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    /// For each drive of the new run, in order: the index in the saved disks of the
    /// drive it goes on from, if any.
    pub kept: Vec<Option<usize>>,
    /// How the drive list changed (empty when it is the same list of drives).
    pub changes: Vec<Change>,
}

/// Whether two identities name the same drive: serial, model and size equal, and
/// the WWN too where both runs read one (a run saved before WWNs were read has none).
pub fn same_drive(a: &Identity, b: &Identity) -> bool {
    a.serial == b.serial
        && a.model == b.model
        && a.size_bytes == b.size_bytes
        && (a.wwn.is_none() || b.wwn.is_none() || a.wwn == b.wwn)
}

/// Match the new run's drives (`new`) to the saved run's disks (`saved`), whose
/// names were `saved_names` (the saved run's list, reached or not).
pub fn match_drives(new: &[NewDrive], saved: &[DiskResult], saved_names: &[String]) -> Matching {
    let was: Vec<Option<Identity>> = saved
        .iter()
        .map(|d| d.info.as_ref().map(|i| i.identity()))
        .collect();
    let mut used = vec![false; saved.len()];
    let mut kept = vec![None; new.len()];
    // Drives with a serial: by identity; among twins (on either side), by name too.
    for (i, d) in new.iter().enumerate() {
        let Some(id) = d.identity.as_ref().filter(|id| id.is_known()) else {
            continue;
        };
        let found: Vec<usize> = (0..saved.len())
            .filter(|&j| !used[j] && was[j].as_ref().is_some_and(|w| same_drive(w, id)))
            .collect();
        let pick = match found.as_slice() {
            [j] if !shared(d, id, new, &was, saved, saved_names) => Some(*j),
            _ => found.iter().copied().find(|&j| saved[j].name == d.name),
        };
        if let Some(j) = pick {
            used[j] = true;
            kept[i] = Some(j);
        }
    }
    // Drives without a serial, or not opened: by name, the same identity if read.
    for (i, d) in new.iter().enumerate() {
        if kept[i].is_some() || d.identity.as_ref().is_some_and(|id| id.is_known()) {
            continue;
        }
        let pick = (0..saved.len()).find(|&j| {
            !used[j]
                && saved[j].name == d.name
                && match (&d.identity, &was[j]) {
                    (Some(now), Some(w)) => same_drive(now, w),
                    _ => true,
                }
        });
        if let Some(j) = pick {
            used[j] = true;
            kept[i] = Some(j);
        }
    }
    let changes = changes(new, saved, saved_names, &kept, &used);
    Matching { kept, changes }
}

/// Whether drive `d` (identity `id`) may share its identity with another drive,
/// so that only its name tells which saved disk is its own: another drive of the
/// new run, or more than one saved disk, has its identity; or the saved run listed
/// its name without reading that drive's identity (it never reached it), so the
/// drive once under this name may be its twin (the README's demo pair resumed
/// naming only the second drive must not take the first one's steps).
fn shared(
    d: &NewDrive,
    id: &Identity,
    new: &[NewDrive],
    was: &[Option<Identity>],
    saved: &[DiskResult],
    saved_names: &[String],
) -> bool {
    let is_twin = |o: &Option<Identity>| o.as_ref().is_some_and(|o| same_drive(o, id));
    let new_twins = new.iter().filter(|o| is_twin(&o.identity)).count();
    let saved_twins = was.iter().filter(|w| is_twin(w)).count();
    let unread = saved_names.contains(&d.name)
        && !(saved.iter().zip(was)).any(|(s, w)| s.name == d.name && w.is_some());
    new_twins > 1 || saved_twins > 1 || unread
}

/// The changes of the drive list, given the matches.
fn changes(
    new: &[NewDrive],
    saved: &[DiskResult],
    saved_names: &[String],
    kept: &[Option<usize>],
    used: &[bool],
) -> Vec<Change> {
    let reached = |name: &str| saved.iter().position(|d| d.name == name);
    let mut changes = Vec::new();
    for (i, d) in new.iter().enumerate() {
        if kept[i].is_some() {
            continue;
        }
        match reached(&d.name) {
            // The saved drive of this name is another one, or went elsewhere.
            Some(j) if !used[j] => changes.push(Change::Replaced {
                name: d.name.clone(),
                why: differs(saved[j].info.as_ref().map(|i| i.identity()), &d.identity),
            }),
            Some(_) => changes.push(Change::Added(d.name.clone())),
            // Listed but not reached: nothing was kept for it either way.
            None if saved_names.contains(&d.name) => {}
            None => changes.push(Change::Added(d.name.clone())),
        }
    }
    for name in saved_names {
        let here = new.iter().any(|d| &d.name == name);
        let found_elsewhere = reached(name).is_some_and(|j| used[j]);
        if !here && !found_elsewhere {
            changes.push(Change::Removed(name.clone()));
        }
    }
    changes
}

/// What differs between the saved identity and the new one, in words.
fn differs(was: Option<Identity>, now: &Option<Identity>) -> String {
    let (Some(was), Some(now)) = (was, now) else {
        return "it could not be opened".into();
    };
    let show = |s: &Option<String>| s.clone().unwrap_or_else(|| "none".into());
    if was.serial != now.serial {
        format!(
            "serial number {}, now {}",
            show(&was.serial),
            show(&now.serial)
        )
    } else if was.size_bytes != now.size_bytes {
        format!("{} bytes, now {}", was.size_bytes, now.size_bytes)
    } else if was.model != now.model {
        format!("model {}, now {}", show(&was.model), show(&now.model))
    } else {
        format!("WWN {}, now {}", show(&was.wwn), show(&now.wwn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::device::DeviceInfo;

    fn id(serial: Option<&str>, size: u64) -> Identity {
        Identity {
            serial: serial.map(String::from),
            wwn: None,
            model: Some("M".into()),
            size_bytes: size,
        }
    }

    fn drive(name: &str, identity: Option<Identity>) -> NewDrive {
        NewDrive {
            name: name.into(),
            identity,
        }
    }

    fn saved(name: &str, identity: &Identity) -> DiskResult {
        let mut d = DiskResult::new(name);
        let mut info = DeviceInfo::new(name, name, crate::results::device::TargetKind::Disk);
        info.ident = identity.serial.clone();
        info.descr = identity.model.clone();
        info.media_size_bytes = identity.size_bytes;
        d.info = Some(info);
        d
    }

    fn names(d: &[DiskResult]) -> Vec<String> {
        d.iter().map(|d| d.name.clone()).collect()
    }

    #[test]
    fn twins_are_told_apart_by_their_names() {
        // The README's demo pair: one serial, model and size, two names.
        let x = id(Some("SIM"), 100);
        let s = vec![saved("a", &x), saved("b", &x)];
        let m = match_drives(
            &[drive("a", Some(x.clone())), drive("b", Some(x.clone()))],
            &s,
            &names(&s),
        );
        assert_eq!(m.kept, vec![Some(0), Some(1)]);
        assert!(m.changes.is_empty());
        // Only the first twin reached: the second is not given its steps.
        let s1 = vec![saved("a", &x)];
        let m = match_drives(
            &[drive("b", Some(x.clone())), drive("a", Some(x.clone()))],
            &s1,
            &["a".into(), "b".into()],
        );
        assert_eq!(m.kept, vec![None, Some(0)]);
        assert!(m.changes.is_empty(), "{:?}", m.changes);
    }

    #[test]
    fn a_twin_never_takes_the_steps_of_a_saved_disk_of_another_name() {
        // The saved run named the demo pair a and b but reached only a; a resume
        // naming only b must not give b a's steps (nor keep silent about a).
        let x = id(Some("SIM"), 100);
        let s = vec![saved("a", &x)];
        let m = match_drives(
            &[drive("b", Some(x.clone()))],
            &s,
            &["a".into(), "b".into()],
        );
        assert_eq!(m.kept, vec![None]);
        assert_eq!(m.changes, vec![Change::Removed("a".into())]);
        // Both twins reached and saved, only b named: b gets its own steps.
        let s2 = vec![saved("a", &x), saved("b", &x)];
        let m = match_drives(&[drive("b", Some(x.clone()))], &s2, &names(&s2));
        assert_eq!(m.kept, vec![Some(1)]);
        // Both saved, only a's twin named under a third name: neither is its own.
        let m = match_drives(&[drive("c", Some(x.clone()))], &s2, &names(&s2));
        assert_eq!(m.kept, vec![None]);
    }

    #[test]
    fn a_renamed_drive_is_found_by_its_serial() {
        let (x, y) = (id(Some("X"), 100), id(Some("Y"), 100));
        let s = vec![saved("/dev/sdb", &x), saved("/dev/sdc", &y)];
        let m = match_drives(
            &[
                drive("/dev/sdc", Some(x.clone())),
                drive("/dev/sdd", Some(y.clone())),
            ],
            &s,
            &names(&s),
        );
        assert_eq!(m.kept, vec![Some(0), Some(1)]);
        assert!(m.changes.is_empty(), "{:?}", m.changes);
    }

    #[test]
    fn a_replaced_added_or_removed_drive_is_named() {
        let (x, y, z) = (id(Some("X"), 100), id(Some("Y"), 100), id(Some("Z"), 1));
        let s = vec![saved("a", &x), saved("b", &y)];
        let m = match_drives(
            &[drive("a", Some(z.clone())), drive("c", Some(id(None, 5)))],
            &s,
            &names(&s),
        );
        assert_eq!(m.kept, vec![None, None]);
        assert_eq!(
            m.changes,
            vec![
                Change::Replaced {
                    name: "a".into(),
                    why: "serial number X, now Z".into()
                },
                Change::Added("c".into()),
                Change::Removed("b".into()),
            ]
        );
    }

    #[test]
    fn drives_without_a_serial_are_matched_by_name_and_size() {
        let (l, l2) = (id(None, 100), id(None, 200));
        let s = vec![saved("/dev/loop0", &l)];
        let m = match_drives(&[drive("/dev/loop0", Some(l.clone()))], &s, &names(&s));
        assert_eq!(m.kept, vec![Some(0)]);
        let m = match_drives(&[drive("/dev/loop0", Some(l2))], &s, &names(&s));
        assert_eq!(m.kept, vec![None]);
        assert_eq!(m.changes.len(), 1, "{:?}", m.changes);
        // Another name over a serial-less drive is not it.
        let m = match_drives(&[drive("/dev/loop1", Some(l))], &s, &names(&s));
        assert_eq!(m.kept, vec![None]);
    }

    #[test]
    fn the_wwn_counts_where_both_runs_read_one() {
        let mut a = id(Some("X"), 100);
        let mut b = a.clone();
        assert!(same_drive(&a, &b));
        a.wwn = Some("naa.1".into());
        assert!(same_drive(&a, &b), "a run saved without WWNs");
        b.wwn = Some("naa.2".into());
        assert!(!same_drive(&a, &b));
    }
}
