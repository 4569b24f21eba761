//! The path a block device reaches the host by, from sysfs, for the path check
//! (`--path-check`): drives behind one SAS expander, one HBA or one PCIe device
//! share it and are grouped by it.
//!
//! A disk's sysfs directory, resolved, spells its path, e.g.
//! `/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host2/port-2:0/expander-2:0/
//! port-2:0:4/end_device-2:0:4/target2:0:4/2:0:4:0/block/sdc` (an HBA at PCI
//! 0000:03:00.0, SCSI host 2, an expander) or `…/0000:01:00.0/nvme/nvme0/nvme0n1`.
//! The group is the expander when there is one, else the PCI device (the HBA, the
//! SATA controller, the NVMe device), else the SCSI host; the PCI device's
//! negotiated link (`current_link_width`, `current_link_speed`, as the kernel's
//! PCI sysfs ABI documents them) gives its bandwidth. A loop device is grouped by
//! the file system that holds its backing file. Every value is optional: what
//! cannot be read leaves the path unknown, never an error.

use super::sysfs::{file_name, read_attr, sysfs_dir};
use crate::results::path::PathGroup;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The path of the block device open as `fd`; unknown (the default) when it is
/// not a block device or sysfs does not say.
pub fn group(fd: BorrowedFd<'_>) -> PathGroup {
    use rustix::fs::{FileType, fstat, major, minor};
    let Ok(st) = fstat(fd) else {
        return PathGroup::default();
    };
    if FileType::from_raw_mode(st.st_mode) != FileType::BlockDevice {
        return PathGroup::default();
    }
    let (maj, min) = (major(st.st_rdev), minor(st.st_rdev));
    match sysfs_dir(Path::new("/sys"), maj, min) {
        Some(dir) => group_of(&dir),
        None => PathGroup::default(),
    }
}

/// The path spelled by a disk's resolved sysfs directory `dir` (a partition's is
/// its disk's).
pub(super) fn group_of(dir: &Path) -> PathGroup {
    if let Some(backing) = read_attr(&dir.join("loop/backing_file")) {
        return match std::fs::metadata(&backing) {
            Ok(m) => PathGroup {
                name: format!(
                    "file system {}:{}",
                    rustix::fs::major(m.dev()),
                    rustix::fs::minor(m.dev())
                ),
                detail: format!("holding {backing}"),
                bandwidth: None,
            },
            Err(_) => PathGroup::default(),
        };
    }
    let mut pci = None;
    let (mut host, mut expander, mut port) = (None, None, None);
    let mut at = std::path::PathBuf::new();
    for c in dir.components() {
        at.push(c);
        let Some(name) = file_name(&at) else { continue };
        if is_pci_address(&name) {
            pci = Some((name, at.clone()));
        } else if name.starts_with("host") && name[4..].bytes().all(|b| b.is_ascii_digit()) {
            host = Some(name);
        } else if let Some(e) = name.strip_prefix("expander-") {
            expander = Some(e.to_string());
        } else if name.starts_with("port-") || name.starts_with("ata") {
            port = Some(name);
        }
    }
    let link = pci.as_ref().and_then(|(_, p)| link(p));
    let mut detail: Vec<String> = Vec::new();
    if let Some(h) = &host {
        detail.push(format!("scsi {h}"));
    }
    if let Some(p) = &port {
        detail.push(p.clone());
    }
    if let Some((text, _)) = &link {
        detail.push(text.clone());
    }
    let name = match (&expander, &pci, &host) {
        (Some(e), Some((p, _)), _) => format!("expander {e} on pci {p}"),
        (Some(e), None, _) => format!("expander {e}"),
        (None, Some((p, _)), _) => format!("pci {p}"),
        (None, None, Some(h)) => format!("scsi {h}"),
        (None, None, None) => return PathGroup::default(),
    };
    PathGroup {
        name,
        detail: detail.join(", "),
        bandwidth: link.map(|(_, b)| b),
    }
}

/// A PCI device's name in sysfs: `DDDD:BB:DD.F` (hexadecimal domain, bus, device,
/// function).
fn is_pci_address(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && b.iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
}

/// The negotiated PCIe link of the device at `dir`: its words ("x8, 8.0 GT/s
/// PCIe") and its payload bandwidth in bytes/s (8b/10b coding up to 5 GT/s,
/// 128b/130b above).
fn link(dir: &Path) -> Option<(String, f64)> {
    let speed = read_attr(&dir.join("current_link_speed"))?;
    let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
    let width: f64 = read_attr(&dir.join("current_link_width"))?.parse().ok()?;
    let coding = if gts <= 5.0 { 0.8 } else { 128.0 / 130.0 };
    Some((
        format!("x{width}, {gts} GT/s PCIe"),
        gts * 1e9 * coding * width / 8.0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake sysfs tree: the directories of `rel` under a fresh temporary root,
    /// with `files` (path under the root, content).
    fn tree(rel: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(rel);
        std::fs::create_dir_all(&dir).unwrap();
        for (p, content) in files {
            std::fs::write(root.path().join(p), content).unwrap();
        }
        (root, dir)
    }

    #[test]
    fn a_disk_behind_an_expander_is_grouped_by_the_expander_and_its_hba() {
        let rel = "devices/pci0000:00/0000:00:03.0/0000:03:00.0/host2/port-2:0/expander-2:0/port-2:0:4/end_device-2:0:4/target2:0:4/2:0:4:0/block/sdc";
        let (_root, dir) = tree(
            rel,
            &[
                (
                    "devices/pci0000:00/0000:00:03.0/0000:03:00.0/current_link_speed",
                    "8.0 GT/s PCIe\n",
                ),
                (
                    "devices/pci0000:00/0000:00:03.0/0000:03:00.0/current_link_width",
                    "8\n",
                ),
            ],
        );
        let g = group_of(&dir);
        assert_eq!(g.name, "expander 2:0 on pci 0000:03:00.0");
        assert_eq!(g.detail, "scsi host2, port-2:0:4, x8, 8 GT/s PCIe");
        let b = g.bandwidth.unwrap();
        assert!((b - 8e9 * 128.0 / 130.0).abs() < 1.0, "{b}");
    }

    #[test]
    fn sata_and_nvme_disks_are_grouped_by_their_pci_device() {
        let (_r, dir) = tree(
            "devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0/block/sda",
            &[],
        );
        let g = group_of(&dir);
        assert_eq!(g.name, "pci 0000:00:1f.2");
        assert_eq!(g.detail, "scsi host2, ata3");
        assert_eq!(g.bandwidth, None);
        let (_r, dir) = tree(
            "devices/pci0000:00/0000:00:01.0/0000:01:00.0/nvme/nvme0/nvme0n1",
            &[],
        );
        assert_eq!(group_of(&dir).name, "pci 0000:01:00.0");
    }

    #[test]
    fn a_virtual_device_has_no_known_path() {
        let (_r, dir) = tree("devices/virtual/block/zram0", &[]);
        assert!(!group_of(&dir).known());
        assert!(is_pci_address("0000:03:00.0"));
        assert!(!is_pci_address("pci0000:00"));
    }
}
