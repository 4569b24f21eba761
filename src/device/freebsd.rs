//! Describing a FreeBSD disk: the DIOCG* ioctls and GEOM attributes diskinfo uses.

use super::DeviceInfo;
use std::fs::File;
use std::io;
use std::path::Path;

/// Fill `info` with the geometry and identity of the disk open as `file`.
pub fn describe(_file: &File, _path: &Path, _info: &mut DeviceInfo) -> io::Result<()> {
    Err(io::Error::other("not yet implemented"))
}
