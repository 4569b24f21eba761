//! Describing a FreeBSD disk: the DIOCG* ioctls and GEOM attributes diskinfo uses.
//!
//! The ioctl numbers and structure layouts mirror `<sys/disk.h>` and
//! `<sys/disk_zone.h>` (`off_t` is `int64_t` on FreeBSD, so it is `i64` here).
//! Neither rustix nor nix has these ioctls: nix's macros define them. As diskinfo does, only the media size and the sector size are
//! required; every other query that fails leaves its field unknown.
//!
//! diskinfo prints the descr, ident, attachment and physical path lines whenever the
//! ioctl succeeds, even with an empty string, so an empty answer is kept as
//! `Some("")` here; a failed query, or bytes that are not UTF-8, give `None`.

use crate::results::device::{DeviceInfo, Rotation, ZoneMode};
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

/// `DISK_IDENT_SIZE` in `<sys/disk.h>`.
const DISK_IDENT_SIZE: usize = 256;
/// `MAXPATHLEN` in `<sys/param.h>`.
const MAXPATHLEN: usize = 1024;

/// `DISK_ZONE_GET_PARAMS` in `<sys/disk_zone.h>`.
const DISK_ZONE_GET_PARAMS: u8 = 0x05;
/// Zone modes of `struct disk_zone_disk_params`.
const DISK_ZONE_MODE_NONE: u32 = 0x00;
const DISK_ZONE_MODE_HOST_AWARE: u32 = 0x01;
const DISK_ZONE_MODE_DRIVE_MANAGED: u32 = 0x02;
const DISK_ZONE_MODE_HOST_MANAGED: u32 = 0x04;

/// The ioctls and their argument structures, kept private (nix's macros generate
/// public functions).
mod ioctls {
    use super::{DISK_IDENT_SIZE, MAXPATHLEN};

    /// The value of `struct diocgattr_arg`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union AttrValue {
        pub str: [u8; DISK_IDENT_SIZE],
        pub off: i64,
        pub i: std::ffi::c_int,
        pub u16: u16,
    }

    /// `struct diocgattr_arg`: a GEOM attribute query.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiocgattrArg {
        pub name: [u8; 64],
        pub len: std::ffi::c_int,
        pub value: AttrValue,
    }

    /// `struct disk_zone_disk_params`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiskZoneDiskParams {
        pub zone_mode: u32,
        pub flags: u64,
        pub optimal_seq_zones: u64,
        pub optimal_nonseq_zones: u64,
        pub max_seq_zones: u64,
    }

    /// `struct disk_zone_rwp`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiskZoneRwp {
        pub id: u64,
        pub flags: u8,
    }

    /// `struct disk_zone_rep_header`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiskZoneRepHeader {
        pub same: u8,
        pub maximum_lba: u64,
        pub reserved: [u8; 64],
    }

    /// `struct disk_zone_report` (the entries pointer is never used here).
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiskZoneReport {
        pub starting_id: u64,
        pub rep_options: u8,
        pub header: DiskZoneRepHeader,
        pub entries_allocated: u32,
        pub entries_filled: u32,
        pub entries_available: u32,
        pub entries: *mut std::ffi::c_void,
    }

    /// `union disk_zone_params`.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub union DiskZoneParams {
        pub disk_params: DiskZoneDiskParams,
        pub rwp: DiskZoneRwp,
        pub report: DiskZoneReport,
    }

    /// `struct disk_zone_args`: a DIOCZONECMD request.
    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct DiskZoneArgs {
        pub zone_cmd: u8,
        pub zone_params: DiskZoneParams,
    }

    // The sizes the ioctl numbers encode, checked against the C layout on LP64.
    #[cfg(target_pointer_width = "64")]
    const _: () = {
        assert!(std::mem::size_of::<DiocgattrArg>() == 328);
        assert!(std::mem::size_of::<DiskZoneArgs>() == 128);
    };

    use std::ffi::c_ulong;
    use std::mem::size_of;

    /// `DIOCGSECTORSIZE`: `_IOR('d', 128, u_int)`.
    pub const DIOCGSECTORSIZE: c_ulong =
        nix::request_code_read!(b'd', 128, size_of::<std::ffi::c_uint>());
    /// `DIOCGMEDIASIZE`: `_IOR('d', 129, off_t)`.
    pub const DIOCGMEDIASIZE: c_ulong = nix::request_code_read!(b'd', 129, size_of::<i64>());
    /// `DIOCGFWSECTORS`: `_IOR('d', 130, u_int)`.
    pub const DIOCGFWSECTORS: c_ulong =
        nix::request_code_read!(b'd', 130, size_of::<std::ffi::c_uint>());
    /// `DIOCGFWHEADS`: `_IOR('d', 131, u_int)`.
    pub const DIOCGFWHEADS: c_ulong =
        nix::request_code_read!(b'd', 131, size_of::<std::ffi::c_uint>());
    /// `DIOCGIDENT`: `_IOR('d', 137, char[DISK_IDENT_SIZE])`.
    pub const DIOCGIDENT: c_ulong = nix::request_code_read!(b'd', 137, DISK_IDENT_SIZE);
    /// `DIOCGSTRIPESIZE`: `_IOR('d', 139, off_t)`.
    pub const DIOCGSTRIPESIZE: c_ulong = nix::request_code_read!(b'd', 139, size_of::<i64>());
    /// `DIOCGSTRIPEOFFSET`: `_IOR('d', 140, off_t)`.
    pub const DIOCGSTRIPEOFFSET: c_ulong = nix::request_code_read!(b'd', 140, size_of::<i64>());
    /// `DIOCGPHYSPATH`: `_IOR('d', 141, char[MAXPATHLEN])`.
    pub const DIOCGPHYSPATH: c_ulong = nix::request_code_read!(b'd', 141, MAXPATHLEN);
    /// `DIOCGATTR`: `_IOWR('d', 142, struct diocgattr_arg)`.
    pub const DIOCGATTR: c_ulong =
        nix::request_code_readwrite!(b'd', 142, size_of::<DiocgattrArg>());
    /// `DIOCZONECMD`: `_IOWR('d', 143, struct disk_zone_args)`.
    pub const DIOCZONECMD: c_ulong =
        nix::request_code_readwrite!(b'd', 143, size_of::<DiskZoneArgs>());

    // The numbers FreeBSD/amd64's headers give.
    #[cfg(target_arch = "x86_64")]
    const _: () = {
        assert!(DIOCGSECTORSIZE == 0x4004_6480);
        assert!(DIOCGMEDIASIZE == 0x4008_6481);
        assert!(DIOCGFWSECTORS == 0x4004_6482);
        assert!(DIOCGFWHEADS == 0x4004_6483);
        assert!(DIOCGIDENT == 0x4100_6489);
        assert!(DIOCGSTRIPESIZE == 0x4008_648b);
        assert!(DIOCGSTRIPEOFFSET == 0x4008_648c);
        assert!(DIOCGPHYSPATH == 0x4400_648d);
        assert!(DIOCGATTR == 0xc148_648e);
        assert!(DIOCZONECMD == 0xc080_648f);
    };

    nix::ioctl_read_bad!(diocgsectorsize, DIOCGSECTORSIZE, std::ffi::c_uint);
    nix::ioctl_read_bad!(diocgmediasize, DIOCGMEDIASIZE, i64);
    nix::ioctl_read_bad!(diocgfwsectors, DIOCGFWSECTORS, std::ffi::c_uint);
    nix::ioctl_read_bad!(diocgfwheads, DIOCGFWHEADS, std::ffi::c_uint);
    nix::ioctl_read_bad!(diocgident, DIOCGIDENT, [u8; DISK_IDENT_SIZE]);
    nix::ioctl_read_bad!(diocgstripesize, DIOCGSTRIPESIZE, i64);
    nix::ioctl_read_bad!(diocgstripeoffset, DIOCGSTRIPEOFFSET, i64);
    nix::ioctl_read_bad!(diocgphyspath, DIOCGPHYSPATH, [u8; MAXPATHLEN]);
    nix::ioctl_readwrite_bad!(diocgattr, DIOCGATTR, DiocgattrArg);
    nix::ioctl_readwrite_bad!(dioczonecmd, DIOCZONECMD, DiskZoneArgs);
}

/// Fill `info` with the geometry and identity of the disk open as `file`.
///
/// Fails with the ioctl's error (ENOTTY for an object that is not a disk) only when
/// the media size or the sector size cannot be read, as diskinfo does.
pub fn describe(file: &File, path: &Path, info: &mut DeviceInfo) -> io::Result<()> {
    let fd = file.as_raw_fd();
    let mut mediasize: i64 = 0;
    let mut sectorsize: std::ffi::c_uint = 0;
    // SAFETY: fd is an open descriptor and each out-parameter has the type the ioctl
    // writes.
    unsafe {
        ioctls::diocgmediasize(fd, &mut mediasize).map_err(io::Error::from)?;
        ioctls::diocgsectorsize(fd, &mut sectorsize).map_err(io::Error::from)?;
    }

    let mut fwsectors: std::ffi::c_uint = 0;
    let mut fwheads: std::ffi::c_uint = 0;
    let mut stripesize: i64 = 0;
    let mut stripeoffset: i64 = 0;
    // SAFETY: as above. A failed query leaves its value unknown (0).
    unsafe {
        if ioctls::diocgfwsectors(fd, &mut fwsectors).is_err() {
            fwsectors = 0;
        }
        if ioctls::diocgfwheads(fd, &mut fwheads).is_err() {
            fwheads = 0;
        }
        if ioctls::diocgstripesize(fd, &mut stripesize).is_err() {
            stripesize = 0;
        }
        if ioctls::diocgstripeoffset(fd, &mut stripeoffset).is_err() {
            stripeoffset = 0;
        }
    }
    let stripesize = u64::try_from(stripesize).unwrap_or(0);
    let ss = u64::from(sectorsize);

    info.media_size_bytes = u64::try_from(mediasize).unwrap_or(0);
    info.sector_size = sectorsize;
    info.physical_sector_size = if ss > 0 && stripesize > ss && stripesize % ss == 0 {
        u32::try_from(stripesize).unwrap_or(sectorsize)
    } else {
        sectorsize
    };
    info.stripe_size_bytes = stripesize;
    info.stripe_offset_bytes = u64::try_from(stripeoffset).unwrap_or(0);
    info.fw_sectors = fwsectors;
    info.fw_heads = fwheads;

    let mut ident = [0u8; DISK_IDENT_SIZE];
    // SAFETY: DIOCGIDENT writes at most DISK_IDENT_SIZE bytes into the buffer.
    info.ident = match unsafe { ioctls::diocgident(fd, &mut ident) } {
        Ok(_) => c_string(&ident),
        Err(_) => None,
    };
    let mut physpath = [0u8; MAXPATHLEN];
    // SAFETY: DIOCGPHYSPATH writes at most MAXPATHLEN bytes into the buffer.
    info.physical_path = match unsafe { ioctls::diocgphyspath(fd, &mut physpath) } {
        Ok(_) => c_string(&physpath),
        Err(_) => None,
    };
    info.descr = attr_str(fd, "GEOM::descr");
    info.attachment = attr_str(fd, "GEOM::attachment");
    info.trim = attr_int(fd, "GEOM::candelete").is_some_and(|v| v != 0);
    info.rotation = match attr_u16(fd, "GEOM::rotation_rate") {
        Some(code) => Rotation::from_code(u32::from(code)),
        None => Rotation::Unknown,
    };
    info.zone_mode = zone_mode(fd);
    info.stable_names = stable_names(path);
    Ok(())
}

/// The disk's names that survive a reboot, as GEOM's labels give them: its
/// /dev/diskid/ name (the disk_ident label, `DISK-` and its ident), from GEOM's
/// configuration (`kern.geom.conftxt`); its partitions' /dev/gpt/ labels are not
/// the disk's names and are left out; empty when GEOM names none (a label withers once its
/// disk is opened by another name).
fn stable_names(path: &Path) -> Vec<String> {
    let Some(disk) = path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let name = c"kern.geom.conftxt";
    let mut len: libc::size_t = 0;
    // SAFETY: a size query: no buffer, the length written to `len`.
    let sized = unsafe {
        libc::sysctlbyname(
            name.as_ptr(),
            std::ptr::null_mut(),
            &mut len,
            std::ptr::null(),
            0,
        )
    };
    if sized != 0 || len == 0 {
        return Vec::new();
    }
    let mut buf = vec![0u8; len];
    // SAFETY: `buf` holds `len` bytes, which the kernel fills at most.
    let read = unsafe {
        libc::sysctlbyname(
            name.as_ptr(),
            buf.as_mut_ptr().cast(),
            &mut len,
            std::ptr::null(),
            0,
        )
    };
    if read != 0 {
        return Vec::new();
    }
    buf.truncate(len);
    labels_of(&String::from_utf8_lossy(&buf), disk)
}

/// The diskid labels of `disk` (the whole disk's names) in the text of
/// `kern.geom.conftxt`: a line a GEOM provider, its depth first (`0 DISK ada0 …`,
/// `1 LABEL diskid/DISK-… …`, `1 PART ada0p1 …`, `2 LABEL gpt/data0 …`); the
/// lines after a disk's depth-0 line, up to the next one, are its own. A GPT
/// label names a partition, not the disk (`zpool create` on it would build on
/// the partition), so none is kept.
fn labels_of(conftxt: &str, disk: &str) -> Vec<String> {
    let (mut mine, mut diskid) = (false, Vec::new());
    for line in conftxt.lines() {
        let mut words = line.split_whitespace();
        let (Some(depth), Some(class), Some(name)) = (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if depth == "0" {
            mine = class == "DISK" && name == disk;
        } else if mine && class == "LABEL" && name.starts_with("diskid/") {
            diskid.push(format!("/dev/{name}"));
        }
    }
    diskid
}

/// Ask for GEOM attribute `name`, announcing a value of `len` bytes.
fn getattr(fd: std::ffi::c_int, name: &str, len: usize) -> Option<ioctls::DiocgattrArg> {
    let mut arg = ioctls::DiocgattrArg {
        name: [0; 64],
        len: std::ffi::c_int::try_from(len).ok()?,
        value: ioctls::AttrValue {
            str: [0; DISK_IDENT_SIZE],
        },
    };
    let bytes = name.as_bytes();
    // Keep a terminating NUL.
    if bytes.len() >= arg.name.len() {
        return None;
    }
    arg.name[..bytes.len()].copy_from_slice(bytes);
    // SAFETY: arg is a properly laid out struct diocgattr_arg that the kernel reads
    // and writes in place.
    unsafe { ioctls::diocgattr(fd, &mut arg) }.ok()?;
    Some(arg)
}

/// A string GEOM attribute.
fn attr_str(fd: std::ffi::c_int, name: &str) -> Option<String> {
    let arg = getattr(fd, name, DISK_IDENT_SIZE)?;
    // SAFETY: every bit pattern is a valid byte array, and the value was zeroed as
    // `str` before the call.
    c_string(unsafe { &arg.value.str })
}

/// An int GEOM attribute.
fn attr_int(fd: std::ffi::c_int, name: &str) -> Option<std::ffi::c_int> {
    let arg = getattr(fd, name, std::mem::size_of::<std::ffi::c_int>())?;
    // SAFETY: the value was zero-initialised and any bit pattern is a valid int.
    Some(unsafe { arg.value.i })
}

/// A uint16_t GEOM attribute.
fn attr_u16(fd: std::ffi::c_int, name: &str) -> Option<u16> {
    let arg = getattr(fd, name, std::mem::size_of::<u16>())?;
    // SAFETY: the value was zero-initialised and any bit pattern is a valid u16.
    Some(unsafe { arg.value.u16 })
}

/// The zone mode, as diskinfo's DIOCZONECMD / DISK_ZONE_GET_PARAMS query: None when
/// the device does not answer it (not zone-capable); a mode without a name is
/// [`ZoneMode::Unknown`] (diskinfo prints `Unknown_zone_mode_N`).
fn zone_mode(fd: std::ffi::c_int) -> Option<ZoneMode> {
    let mut args = ioctls::DiskZoneArgs {
        zone_cmd: DISK_ZONE_GET_PARAMS,
        zone_params: ioctls::DiskZoneParams {
            report: ioctls::DiskZoneReport {
                starting_id: 0,
                rep_options: 0,
                header: ioctls::DiskZoneRepHeader {
                    same: 0,
                    maximum_lba: 0,
                    reserved: [0; 64],
                },
                entries_allocated: 0,
                entries_filled: 0,
                entries_available: 0,
                entries: std::ptr::null_mut(),
            },
        },
    };
    // SAFETY: args is a zeroed struct disk_zone_args (the largest union member was
    // initialised) asking only for the disk parameters, which the kernel writes in
    // place.
    unsafe { ioctls::dioczonecmd(fd, &mut args) }.ok()?;
    // SAFETY: after GET_PARAMS the kernel filled disk_params; any bit pattern is a
    // valid u32 in any case.
    match unsafe { args.zone_params.disk_params.zone_mode } {
        DISK_ZONE_MODE_NONE => Some(ZoneMode::NotZoned),
        DISK_ZONE_MODE_HOST_AWARE => Some(ZoneMode::HostAware),
        DISK_ZONE_MODE_DRIVE_MANAGED => Some(ZoneMode::DriveManaged),
        DISK_ZONE_MODE_HOST_MANAGED => Some(ZoneMode::HostManaged),
        other => Some(ZoneMode::Unknown(other)),
    }
}

/// The NUL-terminated string at the start of `buf` (all of it when there is no NUL);
/// None when it is not UTF-8.
fn c_string(buf: &[u8]) -> Option<String> {
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    std::str::from_utf8(&buf[..end]).ok().map(str::to_string)
}

nix::ioctl_none!(
    /// `DIOCGFLUSH`: `_IO('d', 135)`, flush the disk's write cache.
    diocgflush,
    b'd',
    135
);

nix::ioctl_write_ptr!(
    /// `DIOCGDELETE`: `_IOW('d', 136, off_t[2])`, delete (TRIM/UNMAP) a byte range.
    diocgdelete,
    b'd',
    136,
    [i64; 2]
);

/// Discard `len` bytes from byte 0 of the disk open as `file` (DIOCGDELETE, as
/// `trim(8)` does).
pub fn discard(file: &File, len: u64) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let range = [0i64, i64::try_from(len).map_err(io::Error::other)?];
    // SAFETY: the descriptor is open; DIOCGDELETE reads two off_t from `range`.
    unsafe { diocgdelete(file.as_raw_fd(), &range) }
        .map(|_| ())
        .map_err(io::Error::from)
}

/// Flush the disk's write cache (DIOCGFLUSH); ENOTSUP when it has none to flush.
pub fn flush_cache(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open; DIOCGFLUSH takes no argument.
    unsafe { diocgflush(file.as_raw_fd()) }
        .map(|_| ())
        .map_err(io::Error::from)
}
