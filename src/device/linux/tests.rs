//! Tests of the Linux description: sysfs parsing on fake trees, and real loop devices.

use super::sysfs::*;
use super::*;
use crate::results::device::{LoopInfo, Rotation, ZoneMode};
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use tempfile::TempDir;

/// A fake sysfs tree under a temporary directory, removed on drop.
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

/// An "ATA Information" VPD page (0x89) as libata makes it: IDENTIFY DEVICE's data
/// from byte 60, the model in words 27-46, each word's characters swapped.
fn vpd_pg89(model: &str) -> Vec<u8> {
    let mut v = vec![0u8; 60 + 512];
    v[1] = 0x89;
    v[2..4].copy_from_slice(&0x0238u16.to_be_bytes());
    v[56] = 0xEC;
    let padded = format!("{model:<40}");
    for (i, pair) in padded.as_bytes().chunks(2).enumerate() {
        v[60 + 54 + 2 * i] = pair[1];
        v[60 + 54 + 2 * i + 1] = pair[0];
    }
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
    // The kernel's INQUIRY model holds 16 characters; the ATA Information page
    // the whole model.
    sys.file(&format!("{SATA_DEV}/model"), b"ST2000DM001-1CH1\n");
    sys.file(
        &format!("{SATA_DEV}/vpd_pg89"),
        &vpd_pg89("ST2000DM001-1CH164"),
    );
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
    assert_eq!(s.wwn, None, "no wwid file: none");
    sys.file(&format!("{SATA_DEV}/wwid"), b"naa.5000c5006b6a3c1f\n");
    assert_eq!(
        sys.describe("8:0").wwn.as_deref(),
        Some("naa.5000c5006b6a3c1f")
    );
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
fn the_ata_model_comes_whole_from_the_ata_information_page() {
    assert_eq!(
        decode_ata_model(&vpd_pg89("ST4000NM0035-1V4107")).as_deref(),
        Some("ST4000NM0035-1V4107")
    );
    let forty = "WDC WD40EFRX-68N32N0 AND MORE TO FILL 40";
    assert_eq!(decode_ata_model(&vpd_pg89(forty)).as_deref(), Some(forty));
    // Another page, a packet device's IDENTIFY, a short page: not read.
    let mut other = vpd_pg89("X");
    other[1] = 0x80;
    assert_eq!(decode_ata_model(&other), None);
    let mut packet = vpd_pg89("X");
    packet[56] = 0xA1;
    assert_eq!(decode_ata_model(&packet), None);
    assert_eq!(decode_ata_model(&vpd_pg89("X")[..100]), None);
    // Without the page, the kernel's (INQUIRY) model.
    let sys = FakeSys::new();
    sata_disk(&sys, None, "1\n");
    std::fs::remove_file(sys.root().join(format!("{SATA_DEV}/vpd_pg89"))).unwrap();
    assert_eq!(
        sys.describe("8:0").descr.as_deref(),
        Some("ST2000DM001-1CH1")
    );
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
    let entries = std::fs::read_dir("/sys/dev/block").expect("Linux has /sys/dev/block");
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
    let dev = std::env::var("SEEKPROBE_TEST_DEVICE")
        .expect("SEEKPROBE_TEST_DEVICE names the block device to describe");
    let f = File::open(&dev).expect("open the device");
    let mut info = DeviceInfo::new(&dev, &dev, crate::results::device::TargetKind::Disk);
    describe(&f, Path::new(&dev), &mut info).expect("describe");
    println!("{info:#?}");
}

#[test]
#[cfg_attr(not(seekprobe_loop), ignore = "needs root and /dev/loop-control")]
fn real_loop_device() {
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
    assert!(
        out.status.success(),
        "losetup failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
    guard.dev = Some(dev.clone());
    assert!(dev.starts_with("/dev/loop"), "losetup printed {dev:?}");

    let disk = File::open(&dev).expect("open loop device");
    let mut info = DeviceInfo::new(&dev, &dev, crate::results::device::TargetKind::Disk);
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
    let dio =
        std::fs::read_to_string(format!("/sys/class/block/{name}/loop/dio")).unwrap_or_default();
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
            let mut pinfo = DeviceInfo::new(&part, &part, crate::results::device::TargetKind::Disk);
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
    assert_eq!(
        err.raw_os_error(),
        Some(rustix::io::Errno::NOTTY.raw_os_error())
    );
}

#[test]
fn a_rotating_sata_disk_with_discard_shows_the_smr_hint_in_verbose() {
    let sys = FakeSys::new();
    sata_disk(&sys, Some(vpd_pgb1(5400)), "1\n");
    let disk = format!("{SATA_DEV}/block/sda");
    sys.file(
        &format!("{SATA_DEV}/vpd_pg89"),
        &vpd_pg89("WDC WD40EFAX-68JH4N0"),
    );
    sys.file(&format!("{disk}/queue/discard_max_bytes"), b"2147450880\n");
    let mut info = crate::results::device::DeviceInfo::new(
        "/dev/sda",
        "/dev/sda",
        crate::results::device::TargetKind::Disk,
    );
    sys.describe("8:0").apply(&mut info);
    assert!(info.trim);
    let text = crate::report::diskinfo::verbose_header(&info);
    assert!(text.contains("SMR signs"), "{text}");
    assert!(
        text.contains("\thint: a rotating drive that advertises TRIM/UNMAP"),
        "{text}"
    );
    assert!(text.contains("WD Red 4 TB (EFAX)"), "{text}");
    // The same disk without discard and with a CMR model shows no block.
    sys.file(&format!("{disk}/queue/discard_max_bytes"), b"0\n");
    sys.file(
        &format!("{SATA_DEV}/vpd_pg89"),
        &vpd_pg89("WDC WD40EFRX-68N32N0"),
    );
    let mut info2 = crate::results::device::DeviceInfo::new(
        "/dev/sda",
        "/dev/sda",
        crate::results::device::TargetKind::Disk,
    );
    sys.describe("8:0").apply(&mut info2);
    assert!(!crate::report::diskinfo::verbose_header(&info2).contains("SMR"));
}
