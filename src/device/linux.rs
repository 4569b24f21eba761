//! Describing a Linux block device: block ioctls and sysfs.

use super::DeviceInfo;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::path::Path;

nix::ioctl_read!(blkgetsize64, 0x12, 114, u64);
nix::ioctl_read_bad!(blksszget, libc::BLKSSZGET, libc::c_int);

/// Fill `info` with the geometry and identity of the block device open as `file`.
pub fn describe(file: &File, _path: &Path, info: &mut DeviceInfo) -> io::Result<()> {
    let fd = file.as_raw_fd();
    let mut size: u64 = 0;
    let mut ss: libc::c_int = 0;
    // SAFETY: fd is open and the out-parameters have the types the ioctls write.
    unsafe {
        blkgetsize64(fd, &mut size).map_err(io::Error::from)?;
        blksszget(fd, &mut ss).map_err(io::Error::from)?;
    }
    info.media_size_bytes = size;
    info.sector_size = ss as u32;
    info.physical_sector_size = ss as u32;
    Ok(())
}
