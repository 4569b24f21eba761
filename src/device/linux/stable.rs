//! A Linux drive's names that survive a reboot: the /dev/disk/by-id links udev
//! makes to it (`wwn-0x5000c500a1b2c3d4`, `ata-ST4000NM0035-1V4107_ZC1ABCDE`,
//! `nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456`), found by the device number, best
//! first: the WWN's, then the bus-model-serial one, then the rest (udev's
//! `scsi-3…`, `nvme-eui.…` forms), each in name order. `seekprobe plan` names the
//! drive by the first (docs/plan.md).

use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// Where udev puts the by-id links.
pub(super) const BY_ID_DIR: &str = "/dev/disk/by-id";

/// The full paths of the links in `dir` that point at the block device `rdev`,
/// best first ([`rank`]).
pub(super) fn by_id(dir: &Path, rdev: u64) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == rdev)
        })
        .filter_map(|p| p.to_str().map(str::to_string))
        .collect();
    names.sort_by_key(|n| (rank(n), n.clone()));
    names
}

/// How good a by-id name is, lower first: 0 the WWN's (`wwn-`), 1 a
/// bus-model-serial name (`ata-`, `usb-`, `nvme-MODEL_SERIAL`, `scsi-S…`:
/// `scsi-SATA_…`, `scsi-SSEAGATE_…`), 2 anything else (`scsi-3…` and `nvme-eui.…`
/// are WWN-like ids without the `wwn-` prefix; `dm-`, `md-`, `lvm-` names are
/// not drives).
fn rank(path: &str) -> u8 {
    let name = path.rsplit('/').next().unwrap_or(path);
    let bus_model_serial = ["ata-", "usb-", "mmc-", "ieee1394-"]
        .iter()
        .any(|p| name.starts_with(p))
        || (name.starts_with("nvme-")
            && !name.starts_with("nvme-eui.")
            && !name.starts_with("nvme-nvme."))
        || name.starts_with("scsi-S");
    match () {
        _ if name.starts_with("wwn-") => 0,
        _ if bus_model_serial => 1,
        _ => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wwn_comes_first_then_the_bus_model_serial_name() {
        let mut names = [
            "/dev/disk/by-id/scsi-35000c500a1b2c3d4".to_string(),
            "/dev/disk/by-id/ata-ST4000NM0035-1V4107_ZC1ABCDE".to_string(),
            "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4".to_string(),
            "/dev/disk/by-id/nvme-eui.0025385b71b0f1a2".to_string(),
            "/dev/disk/by-id/nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456".to_string(),
        ];
        names.sort_by_key(|n| (rank(n), n.clone()));
        let short: Vec<&str> = names
            .iter()
            .map(|n| n.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(
            short,
            [
                "wwn-0x5000c500a1b2c3d4",
                "ata-ST4000NM0035-1V4107_ZC1ABCDE",
                "nvme-Samsung_SSD_980_PRO_1TB_S5GXNF0R123456",
                "nvme-eui.0025385b71b0f1a2",
                "scsi-35000c500a1b2c3d4",
            ]
        );
    }

    #[test]
    fn the_links_to_the_device_are_found_by_its_number_best_first() {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        // Any two block device nodes will do (loop devices need not be attached).
        let mut nodes: Vec<(String, u64)> = std::fs::read_dir("/dev")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let m = std::fs::metadata(e.path()).ok()?;
                m.file_type()
                    .is_block_device()
                    .then(|| (e.path().to_string_lossy().into_owned(), m.rdev()))
            })
            .collect();
        nodes.sort_by_key(|n| (n.1, n.0.clone()));
        nodes.dedup_by_key(|n| n.1);
        if nodes.len() < 2 {
            eprintln!("skipped: fewer than two block device nodes in /dev");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let link =
            |name: &str, to: &str| std::os::unix::fs::symlink(to, dir.path().join(name)).unwrap();
        link("ata-MODEL_SERIAL", &nodes[0].0);
        link("wwn-0x5000c500a1b2c3d4", &nodes[0].0);
        link("ata-OTHER_DRIVE", &nodes[1].0);
        std::fs::write(dir.path().join("not-a-link"), b"").unwrap();
        let found = by_id(dir.path(), nodes[0].1);
        let names: Vec<&str> = found
            .iter()
            .map(|n| n.rsplit('/').next().unwrap())
            .collect();
        assert_eq!(names, ["wwn-0x5000c500a1b2c3d4", "ata-MODEL_SERIAL"]);
        assert!(found[0].starts_with(&*dir.path().to_string_lossy()));
    }

    #[test]
    fn a_directory_that_is_missing_gives_no_name() {
        assert!(by_id(Path::new("/nonexistent/by-id"), 0).is_empty());
    }
}
