//! Describing a Linux block device: block ioctls and sysfs.
//!
//! Geometry comes from the block ioctls (`BLKGETSIZE64`, `BLKSSZGET`, `BLKPBSZGET`,
//! `BLKALIGNOFF`, `HDIO_GETGEO`); identity and capabilities from sysfs, found through
//! the device number (`/sys/dev/block/MAJ:MIN`) so that any path to the node works,
//! including symlinks such as `/dev/disk/by-id/…`. A partition is described through
//! its parent disk. The physical path is the `/dev/disk/by-path/` link to the node.
//!
//! The sysfs parsing takes the directory to read as a parameter, so the tests run it on
//! a fake tree. Every sysfs value is optional: a missing, unreadable, non-UTF-8 or
//! garbled file means "unknown", never an error.

use super::{DeviceInfo, InterfaceLimit, LoopInfo, Rotation, ZoneMode};
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

/// The block ioctls, kept private (nix's macros generate public functions).
mod ioctls {
    /// `struct hd_geometry` from `<linux/hdreg.h>`.
    #[repr(C)]
    #[derive(Debug, Default, Clone, Copy)]
    pub struct HdGeometry {
        pub heads: libc::c_uchar,
        pub sectors: libc::c_uchar,
        pub cylinders: libc::c_ushort,
        pub start: libc::c_ulong,
    }

    /// The request type of ioctl(2) on this C library.
    type Req = libc::Ioctl;

    /// `BLKGETSIZE64`: `_IOR(0x12, 114, size_t)`, though the kernel writes a u64.
    const BLKGETSIZE64: Req =
        nix::request_code_read!(0x12, 114, std::mem::size_of::<libc::size_t>());
    /// `BLKALIGNOFF`: `_IO(0x12, 122)`, though the kernel writes an int.
    const BLKALIGNOFF: Req = nix::request_code_none!(0x12, 122);
    /// `HDIO_GETGEO` from `<linux/hdreg.h>`.
    const HDIO_GETGEO: Req = 0x0301;
    /// `BLKROGET`: `_IO(0x12, 94)`, though the kernel writes an int.
    const BLKROGET: Req = nix::request_code_none!(0x12, 94);

    // The numbers x86_64's headers give.
    #[cfg(target_arch = "x86_64")]
    const _: () = {
        assert!(BLKGETSIZE64 == 0x8008_1272);
        assert!(BLKALIGNOFF == 0x127a);
        assert!(BLKROGET == 0x125e);
    };

    nix::ioctl_read_bad!(blkgetsize64, BLKGETSIZE64, u64);
    nix::ioctl_read_bad!(blksszget, libc::BLKSSZGET, libc::c_int);
    nix::ioctl_read_bad!(blkpbszget, libc::BLKPBSZGET, libc::c_uint);
    nix::ioctl_read_bad!(blkalignoff, BLKALIGNOFF, libc::c_int);
    nix::ioctl_read_bad!(hdio_getgeo, HDIO_GETGEO, HdGeometry);
    nix::ioctl_read_bad!(blkroget, BLKROGET, libc::c_int);
}

/// Whether the kernel reports the block device open as `file` read-only
/// (`BLKROGET`: a read-only loop device, `blockdev --setro`, a write-protected disk).
pub fn read_only(file: &File) -> io::Result<bool> {
    let mut ro: libc::c_int = 0;
    // SAFETY: BLKROGET writes one int into `ro`, which outlives the call.
    unsafe { ioctls::blkroget(file.as_raw_fd(), &mut ro) }.map_err(io::Error::from)?;
    Ok(ro != 0)
}

/// Where sysfs is mounted.
const SYS_ROOT: &str = "/sys";
/// Where udev puts the by-path links ("Physical path").
const BY_PATH_DIR: &str = "/dev/disk/by-path";
/// The most bytes read from one sysfs file (VPD pages are at most a few KiB).
const MAX_ATTR_BYTES: u64 = 64 * 1024;

/// Fill `info` with the geometry and identity of the block device open as `file`.
///
/// Fails with the ioctl's error (ENOTTY for an object that is not a block device)
/// only when the media size or the logical sector size cannot be read; everything
/// else is optional and left at its default when unknown. The device is found in
/// sysfs by its number, not by the name it was opened as.
pub fn describe(file: &File, _path: &Path, info: &mut DeviceInfo) -> io::Result<()> {
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    let mut ss: libc::c_int = 0;
    // SAFETY: fd is an open descriptor and each out-parameter has the type the
    // ioctl writes.
    unsafe {
        ioctls::blkgetsize64(fd, &mut size).map_err(io::Error::from)?;
        ioctls::blksszget(fd, &mut ss).map_err(io::Error::from)?;
    }
    // A nonsensical sector size is left for the caller to reject.
    let ss = u32::try_from(ss).unwrap_or(0);

    let mut pbs: libc::c_uint = 0;
    // SAFETY: as above; BLKPBSZGET writes an unsigned int.
    let pbs = match unsafe { ioctls::blkpbszget(fd, &mut pbs) } {
        Ok(_) if pbs > 0 => pbs,
        _ => ss,
    };
    let mut align: libc::c_int = 0;
    // SAFETY: as above; BLKALIGNOFF writes an int (-1 when misaligned).
    let align = match unsafe { ioctls::blkalignoff(fd, &mut align) } {
        Ok(_) => u64::try_from(align).unwrap_or(0),
        Err(_) => 0,
    };
    let mut geo = ioctls::HdGeometry::default();
    // SAFETY: as above; HDIO_GETGEO writes a struct hd_geometry.
    let (heads, sectors) = match unsafe { ioctls::hdio_getgeo(fd, &mut geo) } {
        Ok(_) => (u32::from(geo.heads), u32::from(geo.sectors)),
        Err(_) => (0, 0),
    };

    info.media_size_bytes = size;
    info.sector_size = ss;
    info.physical_sector_size = pbs;
    info.stripe_size_bytes = if pbs > ss { u64::from(pbs) } else { 0 };
    info.stripe_offset_bytes = align;
    info.fw_heads = heads;
    info.fw_sectors = sectors;

    let meta = file.metadata()?;
    let rdev = meta.rdev();
    if let Some(dir) = sysfs_dir(Path::new(SYS_ROOT), libc::major(rdev), libc::minor(rdev)) {
        describe_sysfs(&dir).apply(info);
    }
    info.physical_path = find_link(Path::new(BY_PATH_DIR), |_, m| {
        m.file_type().is_block_device() && m.rdev() == rdev
    })
    .map(|p| p.to_string_lossy().into_owned());
    Ok(())
}

/// What sysfs tells about a block device (for a partition: about its parent disk).
#[derive(Debug, Clone, PartialEq, Eq)]
struct SysfsInfo {
    /// The kernel name of the device itself, e.g. "sda1".
    name: String,
    /// For a partition, the parent disk's kernel name.
    parent_disk: Option<String>,
    /// Model ("Disk descr.").
    descr: Option<String>,
    /// Serial number ("Disk ident.").
    ident: Option<String>,
    /// Transport or driver ("Attachment").
    attachment: Option<String>,
    /// Discard supported.
    trim: bool,
    /// Rotation rate.
    rotation: Rotation,
    /// Zoned model, when the device is zoned.
    zone_mode: Option<ZoneMode>,
    /// Loop device details.
    loop_device: Option<LoopInfo>,
    /// The link the data crosses, and its payload rate.
    interface: Option<InterfaceLimit>,
}

impl SysfsInfo {
    fn apply(self, info: &mut DeviceInfo) {
        info.parent_disk = self.parent_disk;
        info.descr = self.descr;
        info.ident = self.ident;
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
fn sysfs_dir(sys_root: &Path, major: u32, minor: u32) -> Option<PathBuf> {
    let link = sys_root.join("dev/block").join(format!("{major}:{minor}"));
    let dir = std::fs::canonicalize(link).ok()?;
    dir.is_dir().then_some(dir)
}

/// Read what sysfs tells about the block device whose (resolved) sysfs directory is
/// `dir`. A partition (a directory with a `partition` file) is described through its
/// parent disk, the parent directory.
fn describe_sysfs(dir: &Path) -> SysfsInfo {
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

    let descr = match kind {
        DiskKind::Mmc => read_attr(&dev.join("name")),
        _ => read_attr(&dev.join("model")),
    };
    let ident = read_attr(&dev.join("serial"))
        .or_else(|| read_bytes(&dev.join("vpd_pg80")).and_then(|b| decode_vpd_serial(&b)))
        .or_else(|| read_attr(&disk_dir.join("serial")));
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
fn interface_limit(dev: &Path, kind: DiskKind) -> Option<InterfaceLimit> {
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
enum DiskKind {
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
    fn of(disk_dir: &Path, name: &str) -> DiskKind {
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
fn starts_with_then_digit(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
}

/// The name of the driver bound to the disk's device (the basename of the
/// `device/driver` symlink), e.g. "sd", "virtio_blk".
fn driver_name(disk_dir: &Path) -> Option<String> {
    let target = std::fs::read_link(disk_dir.join("device/driver")).ok()?;
    file_name(&target)
}

/// A short transport or driver name, as diskinfo's one-token "Attachment".
fn attachment(disk_dir: &Path, name: &str, kind: DiskKind) -> Option<String> {
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
fn scsi_transport(disk_dir: &Path) -> &'static str {
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
fn decode_vpd_serial(page: &[u8]) -> Option<String> {
    if page.len() < 4 || page[1] != 0x80 {
        return None;
    }
    let len = usize::from(u16::from_be_bytes([page[2], page[3]]));
    let end = (4 + len).min(page.len());
    clean_text(&page[4..end])
}

/// The "medium rotation rate" code in a SCSI "Block Device Characteristics" VPD page
/// (0xB1): bytes 4..6, big-endian. None when the page is short or not a B1 page.
fn decode_vpd_b1(page: &[u8]) -> Option<u32> {
    if page.len() < 6 || page[1] != 0xB1 {
        return None;
    }
    Some(u32::from(u16::from_be_bytes([page[4], page[5]])))
}

/// The first entry (in name order) of `dir` whose target satisfies `matches`, given
/// the entry's path and the metadata of what it points to.
fn find_link(dir: &Path, matches: impl Fn(&Path, &Metadata) -> bool) -> Option<PathBuf> {
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
fn file_name(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_string)
}

/// The bytes of a sysfs file, at most [`MAX_ATTR_BYTES`]; None when unreadable.
fn read_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    File::open(path)
        .ok()?
        .take(MAX_ATTR_BYTES)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf)
}

/// A sysfs text attribute, trimmed; None when missing, empty or not clean text.
fn read_attr(path: &Path) -> Option<String> {
    clean_text(&read_bytes(path)?)
}

/// A sysfs decimal attribute.
fn read_u64(path: &Path) -> Option<u64> {
    read_attr(path)?.parse().ok()
}

/// `bytes` as text without surrounding whitespace or NULs; None when empty, not
/// UTF-8, or containing control characters.
fn clean_text(bytes: &[u8]) -> Option<String> {
    let s = std::str::from_utf8(bytes).ok()?;
    let s = s.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    if s.is_empty() || s.chars().any(char::is_control) {
        return None;
    }
    Some(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use tempfile::TempDir;

    /// A fake sysfs tree.
    struct FakeSys {
        tmp: TempDir,
    }

    impl FakeSys {
        fn new() -> Self {
            FakeSys {
                tmp: TempDir::new().expect("temp dir"),
            }
        }

        fn root(&self) -> PathBuf {
            self.tmp.path().join("sys")
        }

        /// Write a file (creating its directories) under the root.
        fn file(&self, rel: &str, contents: &[u8]) {
            let p = self.root().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, contents).expect("write");
        }

        fn dir(&self, rel: &str) {
            std::fs::create_dir_all(self.root().join(rel)).expect("mkdir");
        }

        /// A symlink at `rel` (under the root) pointing to `target` (relative text).
        fn link(&self, rel: &str, target: &str) {
            let p = self.root().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            symlink(target, p).expect("symlink");
        }

        /// Register `/sys/dev/block/MAJ:MIN` pointing to `devices/…` path `rel`.
        fn dev(&self, majmin: &str, rel: &str) {
            self.link(&format!("dev/block/{majmin}"), &format!("../../{rel}"));
        }

        fn describe(&self, majmin: &str) -> SysfsInfo {
            let (maj, min) = majmin.split_once(':').expect("maj:min");
            let dir = sysfs_dir(
                &self.root(),
                maj.parse().expect("major"),
                min.parse().expect("minor"),
            )
            .expect("sysfs dir resolves");
            describe_sysfs(&dir)
        }
    }

    fn vpd_pg80(serial: &str) -> Vec<u8> {
        let mut v = vec![0, 0x80, 0, serial.len() as u8];
        v.extend_from_slice(serial.as_bytes());
        v
    }

    fn vpd_pgb1(rate: u16) -> Vec<u8> {
        let mut v = vec![0u8; 64];
        v[1] = 0xB1;
        v[3] = 0x3C;
        v[4..6].copy_from_slice(&rate.to_be_bytes());
        v
    }

    const SATA_DEV: &str = "devices/pci0000:00/0000:00:17.0/ata1/host0/target0:0:0/0:0:0:0";

    /// A SATA disk behind libata, as sda (8:0) with a partition sda1 (8:1).
    fn sata_disk(sys: &FakeSys, pgb1: Option<Vec<u8>>, rotational: &str) {
        let disk = format!("{SATA_DEV}/block/sda");
        sys.file(&format!("{SATA_DEV}/model"), b"ST2000DM001-1CH164\n");
        sys.file(&format!("{SATA_DEV}/vendor"), b"ATA     \n");
        sys.file(
            &format!("{SATA_DEV}/vpd_pg80"),
            &vpd_pg80("            Z1E5ABCD"),
        );
        if let Some(p) = pgb1 {
            sys.file(&format!("{SATA_DEV}/vpd_pgb1"), &p);
        }
        sys.dir("bus/scsi/drivers/sd");
        sys.link(
            &format!("{SATA_DEV}/driver"),
            "../../../../../../../bus/scsi/drivers/sd",
        );
        sys.link(&format!("{disk}/device"), "../../../0:0:0:0");
        sys.file(&format!("{disk}/queue/rotational"), rotational.as_bytes());
        sys.file(&format!("{disk}/queue/discard_max_bytes"), b"0\n");
        sys.file(&format!("{disk}/queue/zoned"), b"none\n");
        sys.file(&format!("{disk}/sda1/partition"), b"1\n");
        sys.dev("8:0", &disk);
        sys.dev("8:1", &format!("{disk}/sda1"));
    }

    #[test]
    fn sata_disk_with_b1_page_reports_7200_rpm() {
        let sys = FakeSys::new();
        sata_disk(&sys, Some(vpd_pgb1(7200)), "1\n");
        let s = sys.describe("8:0");
        assert_eq!(s.name, "sda");
        assert_eq!(s.parent_disk, None);
        assert_eq!(s.descr.as_deref(), Some("ST2000DM001-1CH164"));
        assert_eq!(s.ident.as_deref(), Some("Z1E5ABCD"));
        assert_eq!(s.attachment.as_deref(), Some("ata"));
        assert!(!s.trim);
        assert_eq!(s.rotation, Rotation::Rpm(7200));
        assert_eq!(s.zone_mode, None);
        assert_eq!(s.loop_device, None);
        assert_eq!(s.interface, None, "no link directory: unknown");
        sys.file(
            "devices/pci0000:00/0000:00:17.0/ata1/link1/ata_link/link1/sata_spd",
            b"6.0 Gbps\n",
        );
        let i = sys.describe("8:0").interface.unwrap();
        assert_eq!(
            (i.name.as_str(), i.bytes_per_s),
            ("SATA 6 Gbps", 600_000_000)
        );
    }

    #[test]
    fn sata_ssd_without_b1_page_trusts_rotational() {
        let sys = FakeSys::new();
        sata_disk(&sys, None, "0\n");
        assert_eq!(sys.describe("8:0").rotation, Rotation::NonRotating);
        let sys = FakeSys::new();
        sata_disk(&sys, None, "1\n");
        assert_eq!(sys.describe("8:0").rotation, Rotation::Unknown);
    }

    #[test]
    fn partition_is_described_through_its_parent() {
        let sys = FakeSys::new();
        sata_disk(&sys, Some(vpd_pgb1(5400)), "1\n");
        let s = sys.describe("8:1");
        assert_eq!(s.name, "sda1");
        assert_eq!(s.parent_disk.as_deref(), Some("sda"));
        assert_eq!(s.descr.as_deref(), Some("ST2000DM001-1CH164"));
        assert_eq!(s.ident.as_deref(), Some("Z1E5ABCD"));
        assert_eq!(s.attachment.as_deref(), Some("ata"));
        assert_eq!(s.rotation, Rotation::Rpm(5400));
    }

    #[test]
    fn nvme_disk() {
        let sys = FakeSys::new();
        let ctrl = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0";
        let ns = format!("{ctrl}/nvme0n1");
        sys.file(
            &format!("{ctrl}/model"),
            b"Samsung SSD 980 PRO 1TB                 \n",
        );
        sys.file(&format!("{ctrl}/serial"), b"S5GXNF0R123456      \n");
        sys.file(&format!("{ctrl}/transport"), b"pcie\n");
        sys.link(&format!("{ns}/device"), "../../nvme0");
        sys.file(&format!("{ns}/queue/rotational"), b"0\n");
        sys.file(&format!("{ns}/queue/discard_max_bytes"), b"2199023255040\n");
        sys.file(&format!("{ns}/queue/zoned"), b"none\n");
        sys.dev("259:0", &ns);
        let s = sys.describe("259:0");
        assert_eq!(s.name, "nvme0n1");
        assert_eq!(s.descr.as_deref(), Some("Samsung SSD 980 PRO 1TB"));
        assert_eq!(s.ident.as_deref(), Some("S5GXNF0R123456"));
        assert_eq!(s.attachment.as_deref(), Some("nvme"));
        assert!(s.trim);
        assert_eq!(s.rotation, Rotation::NonRotating);
        assert_eq!(s.zone_mode, None);
        assert_eq!(s.loop_device, None);
        let pci = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
        sys.link(&format!("{ctrl}/device"), "../..");
        sys.file(&format!("{pci}/current_link_speed"), b"8.0 GT/s PCIe\n");
        sys.file(&format!("{pci}/current_link_width"), b"4\n");
        let i = sys.describe("259:0").interface.unwrap();
        assert_eq!(
            (i.name.as_str(), i.bytes_per_s),
            ("PCIe 8 GT/s x4", 3_938_461_538)
        );
    }

    #[test]
    fn nvme_over_tcp_and_zoned() {
        let sys = FakeSys::new();
        let ctrl = "devices/virtual/nvme-fabrics/ctl/nvme1";
        let ns = format!("{ctrl}/nvme1n1");
        sys.file(&format!("{ctrl}/transport"), b"tcp\n");
        sys.link(&format!("{ns}/device"), "../../nvme1");
        sys.file(&format!("{ns}/queue/zoned"), b"host-managed\n");
        sys.dev("259:3", &ns);
        let s = sys.describe("259:3");
        assert_eq!(s.attachment.as_deref(), Some("nvme-tcp"));
        assert_eq!(s.zone_mode, Some(ZoneMode::HostManaged));
    }

    #[test]
    fn loop_device_with_backing_file_and_dio() {
        let sys = FakeSys::new();
        let dir = "devices/virtual/block/loop3";
        sys.file(&format!("{dir}/loop/backing_file"), b"/dev/shm/disk.img\n");
        sys.file(&format!("{dir}/loop/dio"), b"1\n");
        // The kernel may say "0" here: it must not make the device non-rotating.
        sys.file(&format!("{dir}/queue/rotational"), b"0\n");
        sys.file(&format!("{dir}/queue/discard_max_bytes"), b"4294966784\n");
        sys.file(&format!("{dir}/queue/zoned"), b"none\n");
        sys.dev("7:3", dir);
        let s = sys.describe("7:3");
        assert_eq!(s.name, "loop3");
        assert_eq!(s.attachment.as_deref(), Some("loop"));
        assert_eq!(s.rotation, Rotation::Unknown);
        assert!(s.trim);
        assert_eq!(
            s.loop_device,
            Some(LoopInfo {
                backing_file: Some("/dev/shm/disk.img".to_string()),
                direct_io: true,
            })
        );
        assert_eq!((s.descr, s.ident, s.zone_mode), (None, None, None));
    }

    #[test]
    fn virtio_disk() {
        let sys = FakeSys::new();
        let vdev = "devices/pci0000:00/0000:00:02.0/virtio1";
        let disk = format!("{vdev}/block/vda");
        sys.dir("bus/virtio/drivers/virtio_blk");
        sys.link(
            &format!("{vdev}/driver"),
            "../../../../bus/virtio/drivers/virtio_blk",
        );
        sys.link(&format!("{disk}/device"), "../../../virtio1");
        sys.file(&format!("{disk}/serial"), b"vol-0123\n");
        sys.file(&format!("{disk}/queue/rotational"), b"0\n");
        sys.dev("254:0", &disk);
        let s = sys.describe("254:0");
        assert_eq!(s.attachment.as_deref(), Some("virtio_blk"));
        assert_eq!(s.ident.as_deref(), Some("vol-0123"));
        assert_eq!(s.descr, None);
        assert_eq!(s.rotation, Rotation::Unknown);
    }

    #[test]
    fn missing_and_garbage_files_mean_unknown() {
        let sys = FakeSys::new();
        let dir = "devices/virtual/block/zram0";
        sys.dir(dir);
        sys.dev("253:0", dir);
        let s = sys.describe("253:0");
        assert_eq!(s.attachment.as_deref(), Some("zram"));
        assert_eq!(
            (
                s.descr,
                s.ident,
                s.trim,
                s.rotation,
                s.zone_mode,
                s.loop_device
            ),
            (None, None, false, Rotation::Unknown, None, None)
        );

        // An sd disk whose files hold garbage.
        let sys = FakeSys::new();
        let dev = "devices/platform/host9/target9:0:0/9:0:0:0";
        let disk = format!("{dev}/block/sdz");
        sys.file(&format!("{dev}/model"), &[0xff, 0xfe, b'x', 0x80]);
        sys.file(&format!("{dev}/vpd_pg80"), &[0, 0x80]);
        sys.file(&format!("{dev}/vpd_pgb1"), &[0, 0xB1, 0]);
        sys.link(&format!("{disk}/device"), "../../../9:0:0:0");
        sys.file(&format!("{disk}/queue/discard_max_bytes"), b"lots\n");
        sys.file(&format!("{disk}/queue/zoned"), b"\x01\x02");
        sys.file(&format!("{disk}/queue/rotational"), b"1\n");
        sys.dev("65:144", &disk);
        let s = sys.describe("65:144");
        assert_eq!(s.attachment.as_deref(), Some("scsi"));
        assert_eq!(
            (s.descr, s.ident, s.trim, s.rotation, s.zone_mode),
            (None, None, false, Rotation::Unknown, None)
        );

        // No sysfs entry at all.
        assert_eq!(sysfs_dir(&sys.root(), 1, 2), None);
    }

    #[test]
    fn scsi_transports() {
        let t = |p: &str| scsi_transport(Path::new(p));
        assert_eq!(
            t(
                "/sys/devices/pci0000:00/0000:00:14.0/usb2/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0/block/sdb"
            ),
            "usb"
        );
        assert_eq!(
            t(
                "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sda"
            ),
            "sas"
        );
        assert_eq!(
            t("/sys/devices/platform/host3/session1/target3:0:0/3:0:0:0/block/sdc"),
            "iscsi"
        );
        assert_eq!(
            t("/sys/devices/pci0000:00/0000:00:04.0/virtio0/host0/target0:0:0/0:0:0:1/block/sda"),
            "virtio_scsi"
        );
        // Only the part under devices/ counts.
        assert_eq!(
            t("/tmp/ata1/sys/devices/platform/host2/target2:0:0/2:0:0:0/block/sdd"),
            "scsi"
        );
    }

    #[test]
    fn vpd_b1_decode() {
        assert_eq!(decode_vpd_b1(&vpd_pgb1(7200)), Some(7200));
        assert_eq!(decode_vpd_b1(&vpd_pgb1(1)), Some(1));
        assert_eq!(decode_vpd_b1(&vpd_pgb1(0)), Some(0));
        assert_eq!(decode_vpd_b1(&vpd_pgb1(0xFFFF)), Some(0xFFFF));
        assert_eq!(decode_vpd_b1(&[0, 0xB1, 0, 0x3C, 0x1C]), None); // short
        assert_eq!(decode_vpd_b1(&[0, 0xB0, 0, 0x3C, 0x1C, 0x20]), None); // other page
        assert_eq!(decode_vpd_b1(&[]), None);
        let rot = |b: &[u8]| decode_vpd_b1(b).map(Rotation::from_code);
        assert_eq!(rot(&vpd_pgb1(7200)), Some(Rotation::Rpm(7200)));
        assert_eq!(rot(&vpd_pgb1(15000)), Some(Rotation::Rpm(15000)));
        assert_eq!(rot(&vpd_pgb1(1)), Some(Rotation::NonRotating));
        assert_eq!(rot(&vpd_pgb1(0)), Some(Rotation::Unknown));
        assert_eq!(rot(&vpd_pgb1(0x0200)), Some(Rotation::Invalid(0x200)));
    }

    #[test]
    fn vpd_serial_decode() {
        assert_eq!(
            decode_vpd_serial(&vpd_pg80("  WD-WCC4E1234567")).as_deref(),
            Some("WD-WCC4E1234567")
        );
        // The length field is honoured, and a lying one is clamped.
        assert_eq!(
            decode_vpd_serial(&[0, 0x80, 0, 3, b'A', b'B', b'C', b'D']).as_deref(),
            Some("ABC")
        );
        assert_eq!(
            decode_vpd_serial(&[0, 0x80, 0, 200, b'A', b'B']).as_deref(),
            Some("AB")
        );
        assert_eq!(decode_vpd_serial(&vpd_pg80("    ")), None);
        assert_eq!(decode_vpd_serial(&[0, 0x83, 0, 2, b'A', b'B']), None);
    }

    #[test]
    fn by_path_link_is_found_by_target() {
        let tmp = TempDir::new().expect("temp dir");
        let nodes = tmp.path().join("nodes");
        let by_path = tmp.path().join("by-path");
        std::fs::create_dir_all(&nodes).expect("mkdir");
        std::fs::create_dir_all(&by_path).expect("mkdir");
        for n in ["sda", "sda1", "sdb"] {
            std::fs::write(nodes.join(n), n).expect("write");
        }
        symlink(nodes.join("sda"), by_path.join("pci-0000:00:17.0-ata-1")).expect("ln");
        symlink(
            nodes.join("sda1"),
            by_path.join("pci-0000:00:17.0-ata-1-part1"),
        )
        .expect("ln");
        symlink(nodes.join("sda"), by_path.join("pci-0000:00:17.0-ata-1.0")).expect("ln");
        symlink(nodes.join("gone"), by_path.join("dangling")).expect("ln");
        let ino = |n: &str| std::fs::metadata(nodes.join(n)).expect("stat").ino();
        let find = |n: &str| {
            let want = ino(n);
            find_link(&by_path, |_, m| m.ino() == want).map(|p| file_name(&p).expect("utf-8 name"))
        };
        assert_eq!(find("sda").as_deref(), Some("pci-0000:00:17.0-ata-1"));
        assert_eq!(
            find("sda1").as_deref(),
            Some("pci-0000:00:17.0-ata-1-part1")
        );
        assert_eq!(find("sdb"), None);
        assert_eq!(find_link(&tmp.path().join("missing"), |_, _| true), None);
    }

    /// Detaches the loop device and removes the backing file, even on panic.
    struct LoopGuard {
        file: PathBuf,
        dev: Option<String>,
    }

    impl Drop for LoopGuard {
        fn drop(&mut self) {
            if let Some(dev) = &self.dev {
                let _ = std::process::Command::new("losetup")
                    .args(["-d", dev])
                    .status();
            }
            let _ = std::fs::remove_file(&self.file);
        }
    }

    /// Every block device of the running system parses without panicking.
    #[test]
    fn real_sysfs_entries_parse() {
        let Ok(entries) = std::fs::read_dir("/sys/dev/block") else {
            println!("skipped: no /sys/dev/block");
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Some((maj, min)) = name.split_once(':') else {
                continue;
            };
            let (Ok(maj), Ok(min)) = (maj.parse(), min.parse()) else {
                continue;
            };
            if let Some(dir) = sysfs_dir(Path::new(SYS_ROOT), maj, min) {
                let s = describe_sysfs(&dir);
                println!("{name}: {s:?}");
            }
        }
    }

    /// Wait up to `ms` milliseconds for `path` to exist.
    fn wait_for(path: &str, ms: u64) -> bool {
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(ms);
        while !Path::new(path).exists() {
            if std::time::Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        true
    }

    /// Write an MBR with one Linux partition of `len` sectors from sector `start`.
    fn write_mbr(f: &File, start: u32, len: u32) {
        use std::os::unix::fs::FileExt;
        let mut entry = [0u8; 16];
        entry[4] = 0x83; // Linux
        entry[8..12].copy_from_slice(&start.to_le_bytes());
        entry[12..16].copy_from_slice(&len.to_le_bytes());
        f.write_all_at(&entry, 446).expect("write partition entry");
        f.write_all_at(&[0x55, 0xAA], 510)
            .expect("write MBR signature");
    }

    /// Describe a real device named by SEEKPROBE_TEST_DEVICE (e.g. /dev/sda1) and
    /// print what was found: `SEEKPROBE_TEST_DEVICE=/dev/vda cargo test --lib
    /// describe_named_device -- --ignored --nocapture`.
    #[test]
    #[ignore = "needs SEEKPROBE_TEST_DEVICE naming a block device"]
    fn describe_named_device() {
        let Ok(dev) = std::env::var("SEEKPROBE_TEST_DEVICE") else {
            println!("skipped: SEEKPROBE_TEST_DEVICE is not set");
            return;
        };
        let f = File::open(&dev).expect("open the device");
        let mut info = DeviceInfo::new(&dev, &dev, crate::device::TargetKind::Disk);
        describe(&f, Path::new(&dev), &mut info).expect("describe");
        println!("{info:#?}");
    }

    #[test]
    fn real_loop_device() {
        // SAFETY: geteuid() takes no arguments and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        if !root || !Path::new("/dev/loop-control").exists() {
            println!("skipped: needs root and loop devices");
            return;
        }
        let file = PathBuf::from(format!(
            "/dev/shm/seekprobe-linux-test-{}.img",
            std::process::id()
        ));
        let mut guard = LoopGuard {
            file: file.clone(),
            dev: None,
        };
        let f = File::create(&file).expect("create backing file");
        f.set_len(16 << 20).expect("size backing file");
        write_mbr(&f, 2048, 16384);
        drop(f);
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show", "--direct-io=on", "--partscan"])
            .arg(&file)
            .output()
            .expect("run losetup");
        if !out.status.success() {
            println!(
                "skipped: losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            return;
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        guard.dev = Some(dev.clone());
        assert!(dev.starts_with("/dev/loop"), "losetup printed {dev:?}");

        let disk = File::open(&dev).expect("open loop device");
        let mut info = DeviceInfo::new(&dev, &dev, crate::device::TargetKind::Disk);
        describe(&disk, Path::new(&dev), &mut info).expect("describe");
        println!("{info:#?}");
        assert_eq!(info.media_size_bytes, 16 << 20);
        assert_eq!(info.sector_size, 512);
        assert!(info.physical_sector_size >= 512);
        assert_eq!(info.sectors(), 32768);
        assert_eq!(info.attachment.as_deref(), Some("loop"));
        assert_eq!(info.rotation, Rotation::Unknown);
        assert_eq!(info.parent_disk, None);
        let name = dev.trim_start_matches("/dev/");
        let dio = std::fs::read_to_string(format!("/sys/class/block/{name}/loop/dio"))
            .unwrap_or_default();
        let lo = info.loop_device.clone().expect("loop info");
        assert_eq!(lo.backing_file.as_deref(), file.to_str());
        // losetup only warns when the backing file system refuses direct I/O.
        assert_eq!(lo.direct_io, dio.trim() == "1");
        if !lo.direct_io {
            println!("note: the kernel refused direct I/O on {}", file.display());
        }

        // The partition (8 MiB from sector 2048) is described through its parent.
        // Kernels without an MBR parser do not create it: then add it by hand.
        let part = format!("{dev}p1");
        if !wait_for(&part, 1000) {
            let _ = std::process::Command::new("addpart")
                .args([dev.as_str(), "1", "2048", "16384"])
                .status();
            wait_for(&part, 2000);
        }
        match File::open(&part) {
            Ok(p) => {
                let mut pinfo = DeviceInfo::new(&part, &part, crate::device::TargetKind::Disk);
                describe(&p, Path::new(&part), &mut pinfo).expect("describe partition");
                println!("{pinfo:#?}");
                assert_eq!(pinfo.media_size_bytes, 8 << 20);
                assert_eq!(pinfo.sector_size, 512);
                assert_eq!(pinfo.parent_disk.as_deref(), Some(name));
                assert_eq!(pinfo.attachment.as_deref(), Some("loop"));
                assert_eq!(pinfo.loop_device, info.loop_device);
            }
            Err(e) => println!("note: partition {part} not checked: {e}"),
        }

        // A regular file answers no block ioctl: ENOTTY, which the caller maps to
        // "not a disk".
        let plain = File::open(&file).expect("open backing file");
        let err = describe(&plain, &file, &mut info).expect_err("not a block device");
        assert_eq!(err.raw_os_error(), Some(libc::ENOTTY));
    }
}

/// The bytes the kernel has read from and written to the block device open as
/// `file` since boot, from /sys/dev/block/MAJ:MIN/stat (sectors of 512 bytes,
/// fields 3 and 7). None when it is not a block device or the file is unreadable.
pub fn io_bytes(file: &File) -> Option<(u64, u64)> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let meta = file.metadata().ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    let stat = std::fs::read_to_string(format!(
        "/sys/dev/block/{}:{}/stat",
        libc::major(rdev),
        libc::minor(rdev)
    ))
    .ok()?;
    parse_stat(&stat)
}

/// Read and written bytes from the text of a block device's `stat` file.
fn parse_stat(text: &str) -> Option<(u64, u64)> {
    let f: Vec<u64> = text
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    Some((f.get(2)? * 512, f.get(6)? * 512))
}

#[cfg(test)]
mod stat_tests {
    #[test]
    fn the_stat_file_gives_bytes_read_and_written() {
        let line = "    1234        5     4096      100      200       10     8192      300        0      400      400\n";
        assert_eq!(super::parse_stat(line), Some((4096 * 512, 8192 * 512)));
        assert_eq!(super::parse_stat("1 2"), None);
        assert_eq!(super::parse_stat("garbage"), None);
    }
}
