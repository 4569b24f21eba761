//! What sysfs tells about a block device: identity, transport, rotation, zoning, the
//! loop device's backing file and the interface's link. Every value is optional: a
//! missing, unreadable, non-UTF-8 or garbled file means "unknown", never an error.

use crate::results::device::{DeviceInfo, InterfaceLimit, LoopInfo, Rotation, ZoneMode};
use std::fs::{File, Metadata};
use std::io::Read;
use std::path::{Component, Path, PathBuf};

/// The most bytes read from one sysfs file (VPD pages are at most a few KiB).
const MAX_ATTR_BYTES: u64 = 64 * 1024;

/// What sysfs tells about a block device (for a partition: about its parent disk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SysfsInfo {
    /// The kernel name of the device itself, e.g. "sda1".
    pub(super) name: String,
    /// For a partition, the parent disk's kernel name.
    pub(super) parent_disk: Option<String>,
    /// Model ("Disk descr.").
    pub(super) descr: Option<String>,
    /// Serial number ("Disk ident.").
    pub(super) ident: Option<String>,
    /// The World Wide Name or NVMe WWID, where the kernel shows one.
    pub(super) wwn: Option<String>,
    /// Transport or driver ("Attachment").
    pub(super) attachment: Option<String>,
    /// Whether discard works: `queue/discard_max_bytes` is above 0.
    pub(super) trim: bool,
    /// From the VPD B1 page, else NVMe (non-rotating) or `queue/rotational`, else unknown.
    pub(super) rotation: Rotation,
    /// Zoned model, when the device is zoned.
    pub(super) zone_mode: Option<ZoneMode>,
    /// Loop device details.
    pub(super) loop_device: Option<LoopInfo>,
    /// The link the data crosses, and its payload rate.
    pub(super) interface: Option<InterfaceLimit>,
}

impl SysfsInfo {
    pub(super) fn apply(self, info: &mut DeviceInfo) {
        info.parent_disk = self.parent_disk;
        info.descr = self.descr;
        info.ident = self.ident;
        info.wwn = self.wwn;
        info.attachment = self.attachment;
        info.trim = self.trim;
        info.rotation = self.rotation;
        info.zone_mode = self.zone_mode;
        info.loop_device = self.loop_device;
        info.interface = self.interface;
    }
}

/// The sysfs directory of block device `major:minor` under `sys_root` (normally
/// `/sys`), with symlinks resolved, e.g. `/sys/devices/…/block/sda/sda1`.
pub(super) fn sysfs_dir(sys_root: &Path, major: u32, minor: u32) -> Option<PathBuf> {
    let link = sys_root.join("dev/block").join(format!("{major}:{minor}"));
    let dir = std::fs::canonicalize(link).ok()?;
    dir.is_dir().then_some(dir)
}

/// Read what sysfs tells about the block device whose (resolved) sysfs directory is
/// `dir`. A partition (a directory with a `partition` file) is described through its
/// parent disk, the parent directory.
pub(super) fn describe_sysfs(dir: &Path) -> SysfsInfo {
    let name = file_name(dir).unwrap_or_default();
    let (disk_dir, parent_disk) = if dir.join("partition").exists() {
        match dir.parent() {
            Some(parent) => (parent, file_name(parent)),
            None => (dir, None),
        }
    } else {
        (dir, None)
    };
    let disk_name = parent_disk.clone().unwrap_or_else(|| name.clone());
    let kind = DiskKind::of(disk_dir, &disk_name);
    let dev = disk_dir.join("device");

    // An ATA drive's model is 40 characters; the SCSI INQUIRY the kernel's
    // `model` holds has room for 16 ("ST4000NM0035-1V4107" reads
    // "ST4000NM0035-1V4"), so the whole one is taken from the ATA Information
    // page when the translation gives it.
    let descr = match kind {
        DiskKind::Mmc => read_attr(&dev.join("name")),
        _ => read_bytes(&dev.join("vpd_pg89"))
            .and_then(|b| decode_ata_model(&b))
            .or_else(|| read_attr(&dev.join("model"))),
    };
    let ident = read_attr(&dev.join("serial"))
        .or_else(|| read_bytes(&dev.join("vpd_pg80")).and_then(|b| decode_vpd_serial(&b)))
        .or_else(|| read_attr(&disk_dir.join("serial")));
    // The kernel's world-wide identifier: SCSI and ATA disks show it as
    // device/wwid ("naa.5000c500…"), NVMe namespaces as wwid beside the block
    // device (Documentation/ABI/testing/sysfs-block-device, sysfs-class-nvme).
    let wwn = read_attr(&dev.join("wwid"))
        .or_else(|| read_attr(&disk_dir.join("wwid")))
        .or_else(|| read_attr(&dev.join("wwn")));
    let trim = read_u64(&disk_dir.join("queue/discard_max_bytes")).is_some_and(|n| n > 0);
    let rotation = match read_bytes(&dev.join("vpd_pgb1")).and_then(|b| decode_vpd_b1(&b)) {
        Some(code) => Rotation::from_code(code),
        None => match kind {
            DiskKind::Nvme => Rotation::NonRotating,
            // For sd disks the kernel clears queue/rotational only when the B1 page
            // says "non-rotating" (or someone wrote it); elsewhere (loop, virtio, zram)
            // it means nothing, so it is not trusted there.
            DiskKind::ScsiDisk
                if read_attr(&disk_dir.join("queue/rotational")).as_deref() == Some("0") =>
            {
                Rotation::NonRotating
            }
            _ => Rotation::Unknown,
        },
    };
    // diskinfo prints "Zone Mode" only for zone-capable devices, which FreeBSD knows
    // from the drive itself. Linux's queue/zoned says "none" both for conventional and
    // for drive-managed SMR disks (they hide their zones) and for devices that cannot
    // be zoned at all, so "none" is reported as unknown (None), and only host-aware
    // and host-managed devices get a zone mode.
    let zone_mode = match read_attr(&disk_dir.join("queue/zoned")).as_deref() {
        Some("host-aware") => Some(ZoneMode::HostAware),
        Some("host-managed") => Some(ZoneMode::HostManaged),
        _ => None,
    };
    let loop_device = (kind == DiskKind::Loop).then(|| LoopInfo {
        backing_file: read_attr(&disk_dir.join("loop/backing_file")),
        direct_io: read_attr(&disk_dir.join("loop/dio")).as_deref() == Some("1"),
    });

    SysfsInfo {
        name,
        parent_disk,
        descr,
        ident,
        wwn,
        attachment: attachment(disk_dir, &disk_name, kind),
        trim,
        rotation,
        zone_mode,
        loop_device,
        interface: interface_limit(&dev, kind),
    }
}

/// The interface's negotiated link, where sysfs tells it: the SATA link speed of an
/// ATA disk (8b/10b coding: 6.0 Gbps carries 600 MB/s), or the PCIe link of an NVMe
/// controller (speed x width, 8b/10b up to 5 GT/s, 128b/130b above).
pub(super) fn interface_limit(dev: &Path, kind: DiskKind) -> Option<InterfaceLimit> {
    match kind {
        DiskKind::Nvme => {
            let pci = dev.join("device");
            let speed = read_attr(&pci.join("current_link_speed"))?;
            let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
            let width: f64 = read_attr(&pci.join("current_link_width"))?.parse().ok()?;
            let coding = if gts <= 5.0 { 0.8 } else { 128.0 / 130.0 };
            Some(InterfaceLimit {
                name: format!("PCIe {gts} GT/s x{width}"),
                bytes_per_s: (gts * 1e9 * coding * width / 8.0) as u64,
            })
        }
        DiskKind::ScsiDisk => {
            // The ATA port is an ancestor of the SCSI device: .../ataN/hostM/...
            let real = std::fs::canonicalize(dev).ok()?;
            let port = real.ancestors().find(|a| {
                file_name(a).is_some_and(|n| {
                    n.strip_prefix("ata")
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
            })?;
            let speed = std::fs::read_dir(port)
                .ok()?
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("link"))
                .find_map(|e| {
                    let name = e.file_name();
                    read_attr(&e.path().join("ata_link").join(&name).join("sata_spd"))
                })?;
            let gbps: f64 = speed.split_whitespace().next()?.parse().ok()?;
            Some(InterfaceLimit {
                name: format!("SATA {gbps} Gbps"),
                bytes_per_s: (gbps * 1e9 * 0.8 / 8.0) as u64,
            })
        }
        _ => None,
    }
}

/// The families of disks that are described differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DiskKind {
    /// A loop device (loopN).
    Loop,
    /// An NVMe namespace (nvmeXnY).
    Nvme,
    /// An SD/MMC card or eMMC (mmcblkN).
    Mmc,
    /// A SCSI disk (the `sd` driver: SATA through libata, SAS, USB, iSCSI, …).
    ScsiDisk,
    /// Anything else (virtio, xen, zram, md, dm, nbd, …).
    Other,
}

impl DiskKind {
    pub(super) fn of(disk_dir: &Path, name: &str) -> DiskKind {
        let driver = driver_name(disk_dir);
        if starts_with_then_digit(name, "loop") {
            DiskKind::Loop
        } else if starts_with_then_digit(name, "nvme") {
            DiskKind::Nvme
        } else if starts_with_then_digit(name, "mmcblk") {
            DiskKind::Mmc
        } else if driver.as_deref() == Some("sd") || (driver.is_none() && name.starts_with("sd")) {
            DiskKind::ScsiDisk
        } else {
            DiskKind::Other
        }
    }
}

/// Whether `name` is `prefix` followed by a digit (so "loop0" but not "loopback").
pub(super) fn starts_with_then_digit(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The name of the driver bound to the disk's device (the basename of the
/// `device/driver` symlink), e.g. "sd", "virtio_blk".
pub(super) fn driver_name(disk_dir: &Path) -> Option<String> {
    let target = std::fs::read_link(disk_dir.join("device/driver")).ok()?;
    file_name(&target)
}

/// A short transport or driver name, as diskinfo's one-token "Attachment".
pub(super) fn attachment(disk_dir: &Path, name: &str, kind: DiskKind) -> Option<String> {
    let dev = disk_dir.join("device");
    match kind {
        DiskKind::Loop => Some("loop".to_string()),
        DiskKind::Mmc => Some("mmc".to_string()),
        DiskKind::Nvme => match read_attr(&dev.join("transport")).as_deref() {
            None | Some("pcie") => Some("nvme".to_string()),
            Some(t) => Some(format!("nvme-{t}")),
        },
        DiskKind::ScsiDisk => Some(scsi_transport(disk_dir).to_string()),
        DiskKind::Other => driver_name(disk_dir)
            .or_else(|| {
                let subsystem = std::fs::read_link(dev.join("subsystem")).ok()?;
                file_name(&subsystem)
            })
            .or_else(|| {
                // Virtual devices without a parent device: the name without its number
                // ("zram0" → "zram", "dm-3" → "dm", "md127" → "md").
                let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
                let base = base.trim_end_matches('-');
                (!base.is_empty()).then(|| base.to_string())
            }),
    }
}

/// The transport of a SCSI disk, from the path of its sysfs directory: the kernel
/// puts the device under the host adapter that reaches it.
pub(super) fn scsi_transport(disk_dir: &Path) -> &'static str {
    let comps: Vec<String> = disk_dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    // Only what lies under …/devices/ names the hardware.
    let start = comps
        .iter()
        .rposition(|c| c == "devices")
        .map_or(0, |i| i + 1);
    let comps = &comps[start..];
    let has = |pred: &dyn Fn(&str) -> bool| comps.iter().any(|c| pred(c));
    if has(&|c| starts_with_then_digit(c, "usb")) {
        "usb"
    } else if has(&|c| starts_with_then_digit(c, "ata")) {
        "ata"
    } else if has(&|c| c.starts_with("end_device-")) {
        "sas"
    } else if has(&|c| starts_with_then_digit(c, "session")) {
        "iscsi"
    } else if has(&|c| starts_with_then_digit(c, "virtio")) {
        "virtio_scsi"
    } else {
        "scsi"
    }
}

/// The serial number in a SCSI "Unit Serial Number" VPD page (0x80): a 4-byte header
/// (page code at byte 1, length at bytes 2..4) then the serial, padded with spaces.
pub(super) fn decode_vpd_serial(page: &[u8]) -> Option<String> {
    if page.len() < 4 || page[1] != 0x80 {
        return None;
    }
    let len = usize::from(u16::from_be_bytes([page[2], page[3]]));
    let end = (4 + len).min(page.len());
    clean_text(&page[4..end])
}

/// The model number of an ATA drive behind SCSI-to-ATA translation (libata, a SAS
/// HBA's SATL), from its "ATA Information" VPD page (0x89, T10 SAT-4): a 60-byte
/// header, then at byte 56 the IDENTIFY command the data answers (0xEC, IDENTIFY
/// DEVICE), and from byte 60 the 512 bytes of IDENTIFY data, whose words 27 to 46
/// hold the model, 40 ASCII characters, the two of each word in swapped order
/// (T13 ACS-3, 7.12.7). None when the page is short, another page, or answers
/// another command (a packet device's IDENTIFY PACKET DEVICE).
pub(super) fn decode_ata_model(page: &[u8]) -> Option<String> {
    const IDENTIFY: usize = 60;
    if page.len() < IDENTIFY + 47 * 2 || page[1] != 0x89 || page[56] != 0xEC {
        return None;
    }
    let words = &page[IDENTIFY + 27 * 2..IDENTIFY + 47 * 2];
    let model: Vec<u8> = words.chunks_exact(2).flat_map(|w| [w[1], w[0]]).collect();
    clean_text(&model)
}

/// The "medium rotation rate" code in a SCSI "Block Device Characteristics" VPD page
/// (0xB1): bytes 4..6, big-endian. None when the page is short or not a B1 page.
pub(super) fn decode_vpd_b1(page: &[u8]) -> Option<u32> {
    if page.len() < 6 || page[1] != 0xB1 {
        return None;
    }
    Some(u32::from(u16::from_be_bytes([page[4], page[5]])))
}

/// The first entry (in name order) of `dir` whose target satisfies `matches`, given
/// the entry's path and the metadata of what it points to.
pub(super) fn find_link(dir: &Path, matches: impl Fn(&Path, &Metadata) -> bool) -> Option<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .find(|p| std::fs::metadata(p).is_ok_and(|m| matches(p, &m)))
}

/// The last component of `path` as a string, if it is UTF-8.
pub(super) fn file_name(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_string)
}

/// The bytes of a sysfs file, at most [`MAX_ATTR_BYTES`]; None when unreadable.
pub(super) fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    File::open(path)
        .ok()?
        .take(MAX_ATTR_BYTES)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf)
}

/// A sysfs text attribute, trimmed; None when missing, empty or not clean text.
pub(super) fn read_attr(path: &Path) -> Option<String> {
    clean_text(&read_bytes(path)?)
}

/// A sysfs attribute read as a decimal number; None if unreadable or not a number.
pub(super) fn read_u64(path: &Path) -> Option<u64> {
    read_attr(path)?.parse().ok()
}

/// `bytes` as text without surrounding whitespace or NULs; None when empty, not
/// UTF-8, or containing control characters.
pub(super) fn clean_text(bytes: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(bytes).ok()?;
    let s = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if s.is_empty() || s.chars().any(char::is_control) {
        return None;
    }
    Some(s.to_string())
}
