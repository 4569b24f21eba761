//! The path check's figures (`--path-check`): each drive's rates alone and
//! together, with its path as a label.

use super::{Exposition, Family};
use crate::results::path::PathDrive;

/// The families of this file, written after the others.
pub(super) const FAMILIES: &[Family] = &[
    Family {
        name: "seekprobe_path_read_bytes_per_second",
        kind: "gauge",
        help: "--path-check: sequential read rate (mean over the positions), the drive alone or with every drive at once.",
    },
    Family {
        name: "seekprobe_path_seek_reads_per_second",
        kind: "gauge",
        help: "--path-check: random 4 KiB reads per second with 4 in flight, the drive alone or with every drive at once.",
    },
];

/// The path check's samples of one drive, labelled with `base` and its path.
pub(super) fn render(x: &mut Exposition, base: &[(&'static str, String)], p: &PathDrive) {
    for (when, rate, seek) in [
        ("alone", p.alone(), p.seek_alone_iops),
        ("together", p.together(), p.seek_together_iops),
    ] {
        let mut l = base.to_vec();
        l.push(("path", p.group.name.clone()));
        l.push(("when", when.to_string()));
        x.add("seekprobe_path_read_bytes_per_second", "", &l, rate);
        x.add("seekprobe_path_seek_reads_per_second", "", &l, seek);
    }
}
