//! Describing a Linux block device: block ioctls and sysfs.
//!
//! Geometry comes from the block ioctls (`BLKGETSIZE64`, `BLKSSZGET`, `BLKPBSZGET`,
//! `BLKALIGNOFF`, `HDIO_GETGEO`); identity and capabilities from sysfs, found through
//! the device number (`/sys/dev/block/MAJ:MIN`) so that any path to the node works,
//! including symlinks such as `/dev/disk/by-id/…`. A partition is described through
//! its parent disk. The physical path is the `/dev/disk/by-path/` link to the node;
//! the names that survive a reboot, its `/dev/disk/by-id/` links (`stable.rs`).
//!
//! The sysfs parsing takes the directory to read as a parameter, so the tests run it on
//! a fake tree. Every sysfs value is optional: a missing, unreadable, non-UTF-8 or
//! garbled file means "unknown", never an error.

pub mod path;
mod stable;
mod sysfs;
#[cfg(test)]
mod tests;

use crate::results::device::DeviceInfo;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;
use sysfs::{describe_sysfs, find_link, sysfs_dir};

/// The block ioctls that rustix does not offer (it has `BLKSSZGET` and `BLKPBSZGET`),
/// defined with nix's macros and kept private (the macros generate public functions).
mod ioctls {
    use std::ffi::{c_int, c_uchar, c_ulong, c_ushort};

    /// `struct hd_geometry` from `<linux/hdreg.h>`.
    #[repr(C)]
    #[derive(Debug, Default, Clone, Copy)]
    pub struct HdGeometry {
        pub heads: c_uchar,
        pub sectors: c_uchar,
        pub cylinders: c_ushort,
        pub start: c_ulong,
    }

    /// The request type of ioctl(2) on this C library.
    type Req = nix::sys::ioctl::ioctl_num_type;

    /// `BLKGETSIZE64`: `_IOR(0x12, 114, size_t)`, though the kernel writes a u64.
    const BLKGETSIZE64: Req = nix::request_code_read!(0x12, 114, std::mem::size_of::<usize>());
    /// `BLKALIGNOFF`: `_IO(0x12, 122)`, though the kernel writes an int.
    const BLKALIGNOFF: Req = nix::request_code_none!(0x12, 122);
    /// `HDIO_GETGEO` from `<linux/hdreg.h>`.
    const HDIO_GETGEO: Req = 0x0301;
    /// `BLKROGET`: `_IO(0x12, 94)`, though the kernel writes an int.
    const BLKROGET: Req = nix::request_code_none!(0x12, 94);
    /// `BLKDISCARD`: `_IO(0x12, 119)`, though the kernel reads a `u64[2]` (start,
    /// length in bytes).
    const BLKDISCARD: Req = nix::request_code_none!(0x12, 119);

    // The numbers x86_64's headers give.
    #[cfg(target_arch = "x86_64")]
    const _: () = {
        assert!(BLKGETSIZE64 == 0x8008_1272);
        assert!(BLKALIGNOFF == 0x127a);
        assert!(BLKROGET == 0x125e);
        assert!(BLKDISCARD == 0x1277);
    };

    nix::ioctl_read_bad!(blkgetsize64, BLKGETSIZE64, u64);
    nix::ioctl_read_bad!(blkalignoff, BLKALIGNOFF, c_int);
    nix::ioctl_read_bad!(hdio_getgeo, HDIO_GETGEO, HdGeometry);
    nix::ioctl_read_bad!(blkroget, BLKROGET, c_int);
    nix::ioctl_write_ptr_bad!(blkdiscard, BLKDISCARD, [u64; 2]);
}

/// Discard `len` bytes from byte 0 of the block device open as `file`
/// (`BLKDISCARD`, as blkdiscard(8) does): the drive may forget what they held.
pub fn discard(file: &File, len: u64) -> io::Result<()> {
    let range = [0u64, len];
    // SAFETY: BLKDISCARD reads two u64 from `range`, which outlives the call.
    unsafe { ioctls::blkdiscard(file.as_raw_fd(), &range) }
        .map(|_| ())
        .map_err(io::Error::from)
}

/// The size in bytes of the block device open as `fd` (`BLKGETSIZE64`), read
/// again: a loop device resized, a bridge re-enumerated.
pub fn media_size(fd: std::os::fd::BorrowedFd<'_>) -> io::Result<u64> {
    let mut size: u64 = 0;
    // SAFETY: fd is an open descriptor; BLKGETSIZE64 writes one u64 into `size`.
    unsafe { ioctls::blkgetsize64(fd.as_raw_fd(), &mut size) }.map_err(io::Error::from)?;
    Ok(size)
}

/// Whether the kernel reports the block device open as `file` read-only
/// (`BLKROGET`: a read-only loop device, `blockdev --setro`, a write-protected disk).
/// rustix offers no BLKROGET, hence nix's ioctl macro.
pub fn read_only(file: &File) -> io::Result<bool> {
    let mut ro: std::ffi::c_int = 0;
    // SAFETY: BLKROGET writes one int into `ro`, which outlives the call.
    unsafe { ioctls::blkroget(file.as_raw_fd(), &mut ro) }.map_err(io::Error::from)?;
    Ok(ro != 0)
}

/// Where sysfs is mounted.
const SYS_ROOT: &str = "/sys";
/// Where udev puts the by-path links ("Physical path").
const BY_PATH_DIR: &str = "/dev/disk/by-path";

/// Fill `info` with the geometry and identity of the block device open as `file`.
///
/// Fails with the ioctl's error (ENOTTY for an object that is not a block device)
/// only when the media size or the logical sector size cannot be read; everything
/// else is optional and left at its default when unknown. The device is found in
/// sysfs by its number, not by the name it was opened as.
pub fn describe(file: &File, _path: &Path, info: &mut DeviceInfo) -> io::Result<()> {
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    // SAFETY: fd is an open descriptor and the out-parameter has the type the ioctl
    // writes.
    unsafe { ioctls::blkgetsize64(fd, &mut size) }.map_err(io::Error::from)?;
    // A nonsensical sector size is left for the caller to reject.
    let ss = rustix::fs::ioctl_blksszget(file)?;
    let pbs = match rustix::fs::ioctl_blkpbszget(file) {
        Ok(pbs) if pbs > 0 => pbs,
        _ => ss,
    };
    let mut align: std::ffi::c_int = 0;
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

    let rdev = rustix::fs::fstat(file)?.st_rdev;
    if let Some(dir) = sysfs_dir(
        Path::new(SYS_ROOT),
        rustix::fs::major(rdev),
        rustix::fs::minor(rdev),
    ) {
        describe_sysfs(&dir).apply(info);
    }
    info.physical_path = find_link(Path::new(BY_PATH_DIR), |_, m| {
        m.file_type().is_block_device() && m.rdev() == rdev
    })
    .map(|p| p.to_string_lossy().into_owned());
    info.stable_names = stable::by_id(Path::new(stable::BY_ID_DIR), rdev);
    Ok(())
}

/// Whether the block device open as `fd` is no longer in the system: its entry
/// /sys/dev/block/MAJ:MIN is gone, as the kernel removes it when a disk is
/// unplugged or drops off its bus (`del_gendisk`); an open descriptor then reads
/// nothing and fails every write. None when `fd` is not a block device.
pub fn removed(fd: std::os::fd::BorrowedFd<'_>) -> Option<bool> {
    use rustix::fs::{FileType, major, minor};
    let st = rustix::fs::fstat(fd).ok()?;
    if FileType::from_raw_mode(st.st_mode) != FileType::BlockDevice {
        return None;
    }
    let entry = format!(
        "{SYS_ROOT}/dev/block/{}:{}",
        major(st.st_rdev),
        minor(st.st_rdev)
    );
    Some(!Path::new(&entry).exists())
}

/// The bytes the kernel has read from and written to the block device open as
/// `file` since boot, from /sys/dev/block/MAJ:MIN/stat (sectors of 512 bytes,
/// fields 3 and 7). None when it is not a block device or the file is unreadable.
pub fn io_bytes(file: &File) -> Option<(u64, u64)> {
    use rustix::fs::{FileType, major, minor};
    let st = rustix::fs::fstat(file).ok()?;
    if FileType::from_raw_mode(st.st_mode) != FileType::BlockDevice {
        return None;
    }
    let rdev = st.st_rdev;
    let stat = std::fs::read_to_string(format!(
        "/sys/dev/block/{}:{}/stat",
        major(rdev),
        minor(rdev)
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
