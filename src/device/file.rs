//! Opening a path (block device, FreeBSD disk, or regular file) and reading it with
//! positioned, direct I/O.

use super::{AlignedBuf, ReadBuf, Target, WriteBuf};
use crate::clock::{Clock, MonotonicClock};
use crate::error::ProbeError;
use crate::results::device::{DeviceInfo, IoMode, TargetKind};
use rustix::fs::OFlags;
use rustix::io::Errno;
use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// How a target is to be opened.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Open for reading data (tests), not only for identification: use direct I/O
    /// and check that it works.
    pub io: bool,
    /// Open for writing as well (`-w`): exclusively for a block device (O_EXCL, which
    /// fails while it is mounted or held). The caller checks signatures first.
    pub write: bool,
    /// The request limit (`--io-timeout`, [`super::watched`]) a real device holds
    /// every request sent through [`Target::read_at`], [`Target::write_at`],
    /// [`Target::flush`] and [`Target::quiesce`] to, from the open's first read on:
    /// one unanswered past it fails with a [`super::watched::NoAnswer`] error.
    /// Simulated drives never hang.
    pub limit: std::time::Duration,
    /// The process's stop: a real device's watchdog keeps a clone (a request
    /// unanswered after it is raised is given up; those given up are counted).
    pub stop: super::Stop,
}

/// Open a target named as the user gave it: `sim:…`, a path, or a short device name
/// retried under /dev/ (as diskinfo does for names not starting with `/`).
pub fn open(name: &str, opts: &OpenOptions) -> Result<Box<dyn Target>, ProbeError> {
    if name.starts_with("sim:") {
        return Ok(Box::new(super::sim::SimTarget::open(name)?));
    }
    let (path, meta) = resolve(name)?;
    let kind = classify(&path, &meta)?;
    if opts.write {
        let users = crate::safety::users(Path::new(&path));
        if !users.is_empty() {
            return Err(in_use(&path, &users));
        }
    }
    if opts.write {
        refuse_read_only(&path, kind)?;
    }
    let file = open_file(&path, kind, opts)?;
    let mut info = DeviceInfo::new(name, &path, kind);
    match kind {
        TargetKind::File => describe_file(&meta, &mut info),
        _ => describe_disk(&file, &path, &mut info)?,
    }
    // A loop device over an image: the image's holes are read without touching a
    // disk, as the image's own are.
    if let Some(b) = info
        .loop_device
        .as_ref()
        .and_then(|l| l.backing_file.as_deref())
        && let Ok(m) = std::fs::metadata(b)
        && m.is_file()
    {
        info.allocated_bytes = Some(m.blocks() * 512);
    }
    info.in_memory = match (&info.loop_device, kind) {
        (_, TargetKind::File) => in_memory(Path::new(&path)),
        (Some(l), _) => l
            .backing_file
            .as_deref()
            .is_some_and(|b| in_memory(Path::new(b))),
        _ => false,
    };
    if opts.write {
        refuse_host_managed(&info)?;
    }
    if info.sectors() == 0 {
        return Err(ProbeError::Empty {
            path,
            size: info.media_size_bytes,
            sector_size: info.sector_size,
        });
    }
    let clock = MonotonicClock::new();
    let watchdog = super::watched::Watchdog::new(&file, opts.limit, opts.stop.clone(), clock)
        .map_err(|e| open_error(&path, e))?;
    let mut target = FileTarget {
        file,
        info,
        clock,
        io_bytes: 0,
        watchdog,
    };
    if opts.io {
        target.ensure_readable()?;
    }
    Ok(Box::new(target))
}

/// Find the path to open and its metadata.
fn resolve(name: &str) -> Result<(String, Metadata), ProbeError> {
    match std::fs::metadata(name) {
        Ok(m) => Ok((name.to_string(), m)),
        Err(e) if e.kind() == io::ErrorKind::NotFound && !name.starts_with('/') => {
            let dev = format!("/dev/{name}");
            match std::fs::metadata(&dev) {
                Ok(m) => Ok((dev, m)),
                Err(_) => Err(ProbeError::Open {
                    path: name.to_string(),
                    source: e,
                    hint: Some(format!(
                        "neither {name} nor {dev} exists; check the name (lsblk lists disks)"
                    )),
                }),
            }
        }
        Err(e) => Err(open_error(name, e)),
    }
}

fn open_error(path: &str, e: io::Error) -> ProbeError {
    let hint = match e.kind() {
        io::ErrorKind::PermissionDenied if Errno::from_io_error(&e) == Some(Errno::PERM) => {
            Some("the system refuses it whoever asks (a container or security policy)".to_string())
        }
        io::ErrorKind::PermissionDenied => {
            Some("run as root, or as a member of the group that owns the device".to_string())
        }
        io::ErrorKind::NotFound => {
            Some("check the path (lsblk lists disks; sim:hdd is a simulated drive)".to_string())
        }
        _ => None,
    };
    ProbeError::Open {
        path: path.to_string(),
        source: e,
        hint,
    }
}

/// Decide from the file type whether the path can be a disk, before opening it (so a
/// FIFO is never opened and cannot block).
fn classify(path: &str, meta: &Metadata) -> Result<TargetKind, ProbeError> {
    let ft = meta.file_type();
    let not_a_disk = |what: &str| ProbeError::NotADisk {
        path: path.to_string(),
        what: what.to_string(),
    };
    if ft.is_file() {
        Ok(TargetKind::File)
    } else if ft.is_block_device() {
        Ok(TargetKind::Disk)
    } else if ft.is_char_device() {
        if cfg!(target_os = "freebsd") {
            Ok(TargetKind::Disk) // FreeBSD disks are character devices; checked by ioctl.
        } else {
            Err(not_a_disk("a character device, not a disk"))
        }
    } else if ft.is_dir() {
        Err(not_a_disk("a directory"))
    } else if ft.is_fifo() {
        Err(not_a_disk("a FIFO (named pipe)"))
    } else if ft.is_socket() {
        Err(not_a_disk("a socket"))
    } else {
        Err(not_a_disk("not a regular file or a disk device"))
    }
}

/// The refusal for a target in use, naming its users.
fn in_use(path: &str, users: &[String]) -> ProbeError {
    ProbeError::Refused {
        path: path.to_string(),
        why: format!("in use ({})", users.join(", ")),
        hint: "seekprobe never writes to a device in use, even with --force; unmount or release it first".into(),
        untested: true,
    }
}

/// The refusal for a target that cannot be written: `why` says who says so;
/// `untested` when it is this user's permission, not the device, that refuses
/// (the drive is then NOT TESTED, [`ProbeError::not_tested`]).
fn read_only(path: &str, why: &str, hint: &str, untested: bool) -> ProbeError {
    ProbeError::Refused {
        path: path.to_string(),
        why: format!("read-only: {why}"),
        hint: hint.to_string(),
        untested,
    }
}

/// Before a block device is opened for writing: refuse it if the kernel reports it
/// read-only (a read-only loop device, `blockdev --setro`, a write-protected disk).
fn refuse_read_only(path: &str, kind: TargetKind) -> Result<(), ProbeError> {
    #[cfg(target_os = "linux")]
    if kind == TargetKind::Disk {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(
                (rustix::fs::OFlags::CLOEXEC | rustix::fs::OFlags::NONBLOCK).bits() as i32,
            )
            .open(path)
            .map_err(|e| open_error(path, e))?;
        if super::linux::read_only(&file).unwrap_or(false) {
            return Err(read_only(
                path,
                "the kernel reports the block device read-only (BLKROGET)",
                "make it writable first (blockdev --setrw, or a loop device attached without -r), or leave out -w",
                false,
            ));
        }
    }
    let _ = (path, kind);
    Ok(())
}

/// Before a device is written: refuse a host-managed zoned one. Its
/// sequential-write-required zones take a write only at the zone's write pointer,
/// in order, and a full zone only after a zone reset (T10 ZBC, T13 ZAC); the
/// kernel fails any other write with EREMOTEIO. seekprobe's write tests write out
/// of that order (samples across the drive, probes past the front, writes done
/// again), so each would fail for the zones' rules and name the drive faulty or
/// fake: tested on the kernel's `scsi_debug zbc=host-managed`, the capacity check
/// called it "a fake drive" storing only its first zone.
fn refuse_host_managed(info: &DeviceInfo) -> Result<(), ProbeError> {
    use crate::results::device::ZoneMode;
    if info.zone_mode != Some(ZoneMode::HostManaged) {
        return Ok(());
    }
    Err(ProbeError::Refused {
        path: info.path.clone(),
        why: "a host-managed zoned device (Zone Mode: Host_Managed): its zones take writes \
              only in order at each zone's write pointer, and the write tests write out of \
              that order"
            .into(),
        hint: "leave out -w: the read tests (-t, --scan, --zones) run on it".into(),
        // seekprobe's tests cannot write it; the drive is not at fault.
        untested: true,
    })
}

fn open_file(path: &str, kind: TargetKind, o: &OpenOptions) -> Result<File, ProbeError> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true).write(o.write);
    // O_NONBLOCK guards against a path swapped for a FIFO after classify().
    let mut flags = OFlags::CLOEXEC | OFlags::NONBLOCK;
    if o.io && kind == TargetKind::Disk && cfg!(target_os = "linux") {
        flags |= OFlags::DIRECT;
    }
    if o.write && kind == TargetKind::Disk && cfg!(target_os = "linux") {
        flags |= OFlags::EXCL; // fails with EBUSY while mounted or held
    }
    opts.custom_flags(flags.bits() as std::ffi::c_int);
    let file = opts
        .open(path)
        .map_err(|e| match Errno::from_io_error(&e) {
            // FreeBSD's GEOM refuses a write open of a mounted or held disk with EPERM.
            Some(Errno::PERM)
                if o.write && kind == TargetKind::Disk && cfg!(target_os = "freebsd") =>
            {
                in_use(
                    path,
                    &["GEOM refuses to open it for writing: mounted or held".to_string()],
                )
            }
            Some(Errno::ROFS) if o.write => read_only(
                path,
                "it is on a read-only file system or device (EROFS when opened for writing)",
                "remount it read-write or copy the image elsewhere, or leave out -w",
                false,
            ),
            Some(Errno::ACCESS)
                if o.write && nix::unistd::access(path, nix::unistd::AccessFlags::R_OK).is_ok() =>
            {
                read_only(
                    path,
                    "it may be read but not written by this user (EACCES when opened for writing)",
                    "run as root or as a user allowed to write it, or leave out -w",
                    true,
                )
            }
            Some(Errno::BUSY) => {
                let users = crate::safety::users(Path::new(path));
                let users = if users.is_empty() {
                    vec!["opened exclusively by another program".to_string()]
                } else {
                    users
                };
                in_use(path, &users)
            }
            _ => open_error(path, e),
        })?;
    clear_nonblock(&file).map_err(|e| open_error(path, e))?;
    if o.write && kind == TargetKind::File {
        // Another writer of the same image (another seekprobe, or this one given the
        // file twice) would undo --preserve's restores: one writer at a time.
        // The lock lives as long as the file.
        if rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_err() {
            return Err(in_use(
                path,
                &["locked for writing by another program".to_string()],
            ));
        }
    }
    if o.io && kind == TargetKind::File {
        // Files: try to bypass the page cache; tmpfs and some others refuse.
        let _ = set_direct(&file, true);
    }
    Ok(file)
}

fn clear_nonblock(file: &File) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(file)?;
    rustix::fs::fcntl_setfl(file, flags - OFlags::NONBLOCK)?;
    Ok(())
}

/// Turn O_DIRECT on or off on an open file.
fn set_direct(file: &File, on: bool) -> io::Result<()> {
    let flags = rustix::fs::fcntl_getfl(file)?;
    let new = if on {
        flags | OFlags::DIRECT
    } else {
        flags - OFlags::DIRECT
    };
    rustix::fs::fcntl_setfl(file, new)?;
    Ok(())
}

fn is_direct(file: &File) -> bool {
    rustix::fs::fcntl_getfl(file).is_ok_and(|f| f.contains(OFlags::DIRECT))
}

/// A regular file as diskinfo sees it: 512-byte sectors, stripe size = the file
/// system's preferred block size, no firmware geometry.
fn describe_file(meta: &Metadata, info: &mut DeviceInfo) {
    info.sector_size = 512;
    info.physical_sector_size = 512;
    info.media_size_bytes = meta.len();
    info.stripe_size_bytes = meta.blksize();
    info.stripe_offset_bytes = 0;
    info.allocated_bytes = Some(meta.blocks() * 512);
}

/// Whether the file at `path` lives on a RAM file system (tmpfs, ramfs).
fn in_memory(path: &Path) -> bool {
    #[cfg(target_os = "linux")]
    {
        nix::sys::statfs::statfs(path).is_ok_and(|s| {
            let t = s.filesystem_type();
            t == nix::sys::statfs::TMPFS_MAGIC || t == nix::sys::statfs::FsType(0x8584_58f6) // ramfs
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = path;
        false
    }
}

fn describe_disk(file: &File, path: &str, info: &mut DeviceInfo) -> Result<(), ProbeError> {
    #[cfg(target_os = "linux")]
    let r = super::linux::describe(file, Path::new(path), info);
    #[cfg(target_os = "freebsd")]
    let r = super::freebsd::describe(file, Path::new(path), info);
    #[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
    let r: io::Result<()> = Err(io::Error::other(
        "disk devices are not supported on this system",
    ));
    r.map_err(|e| match Errno::from_io_error(&e) {
        Some(Errno::NOTTY) | Some(Errno::INVAL) => ProbeError::NotADisk {
            path: path.to_string(),
            what: "a device that does not answer disk ioctls".to_string(),
        },
        _ => ProbeError::Describe {
            path: path.to_string(),
            msg: crate::error::describe_io(&e),
        },
    })?;
    let _ = (file, path);
    let ss = info.sector_size;
    if !(512..=65536).contains(&ss) || !ss.is_power_of_two() {
        return Err(ProbeError::Describe {
            path: path.to_string(),
            msg: format!(
                "unsupported logical sector size {ss} (need a power of two, 512 to 65536)"
            ),
        });
    }
    Ok(())
}

/// A block device, FreeBSD disk or regular file read with positioned reads.
struct FileTarget {
    file: File,
    info: DeviceInfo,
    clock: MonotonicClock,
    /// Bytes read and written through read_at and write_at.
    io_bytes: u64,
    /// Every request goes through it (`--io-timeout`).
    watchdog: super::watched::Watchdog,
}

impl FileTarget {
    /// Settle the I/O mode with one aligned read of the first sector: direct if the
    /// system accepts it, else buffered with the reason recorded.
    fn ensure_readable(&mut self) -> Result<(), ProbeError> {
        let mut buf = AlignedBuf::new(self.info.sector_size as usize);
        let first = self.watchdog.read(buf.for_read(..), 0).map(|_| ());
        let direct = is_direct(&self.file);
        self.info.io_mode = match (first, direct) {
            (Ok(()), true) => IoMode::Direct,
            (Ok(()), false) if cfg!(target_os = "freebsd") && self.info.kind == TargetKind::Disk => {
                IoMode::Direct // FreeBSD disk devices have no page cache.
            }
            (Ok(()), false) => IoMode::Buffered(
                "the file system refused O_DIRECT (tmpfs does); the page cache is dropped before each test".into(),
            ),
            (Err(e), true) if Errno::from_io_error(&e) == Some(Errno::INVAL) && self.info.kind == TargetKind::File => {
                set_direct(&self.file, false).map_err(|e| self.read_error("open", 0, e))?;
                self.watchdog
                    .read(buf.for_read(..), 0)
                    .map_err(|e| self.read_error("open", 0, e))?;
                IoMode::Buffered(format!(
                    "the file system refused {}-byte direct reads; the page cache is dropped before each test",
                    self.info.sector_size
                ))
            }
            // No answer within --io-timeout: the drive is given up (every later
            // request is refused at once with the same words), and the first check
            // or test that asks it something says so, naming the byte and the wait.
            (Err(e), _) if super::watched::NoAnswer::of(&e).is_some() => IoMode::Direct,
            (Err(e), _) => return Err(self.read_error("first read", 0, e)),
        };
        Ok(())
    }

    fn read_error(&self, test: &str, offset: u64, source: io::Error) -> ProbeError {
        ProbeError::Io {
            path: self.info.path.clone(),
            test: test.to_string(),
            offset,
            source,
        }
    }
}

impl Target for FileTarget {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn clock(&self) -> &dyn Clock {
        &self.clock
    }

    fn read_at(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
        self.read_timed(buf, offset).map(|_| ())
    }

    /// Timed by the I/O thread around the read alone (the hand-over excluded).
    fn read_timed(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<u64> {
        self.io_bytes += buf.len() as u64;
        self.watchdog.read(buf, offset)
    }

    fn device_io_bytes(&self) -> Option<(u64, u64)> {
        #[cfg(target_os = "linux")]
        {
            super::linux::io_bytes(&self.file)
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }

    fn own_io_bytes(&self) -> u64 {
        self.io_bytes
    }

    fn write_at(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<()> {
        self.write_timed(buf, offset).map(|_| ())
    }

    /// Timed by the I/O thread around the write alone (the hand-over excluded).
    fn write_timed(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<u64> {
        self.write_pieces_timed(buf, offset, u32::MAX)
    }

    /// The pieces but the last from the I/O thread's piece threads, timed by the I/O
    /// thread from the first piece to the last answer, under the request limit.
    fn write_pieces_timed(
        &mut self,
        buf: WriteBuf<'_>,
        offset: u64,
        piece: u32,
    ) -> io::Result<u64> {
        // Never past the last whole sector, and never extending a file.
        let limit = self.info.sectors() * u64::from(self.info.sector_size);
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|end| end > limit)
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a write at {offset} of {} bytes would pass the end ({limit})",
                    buf.len()
                ),
            ));
        }
        self.io_bytes += buf.len() as u64;
        self.watchdog.write_pieces(buf, offset, piece as usize)
    }

    fn flush(&mut self) -> io::Result<bool> {
        self.flush_timed().map(|(r, _)| r)
    }

    /// Timed by the I/O thread around the flush alone (the hand-over excluded).
    fn flush_timed(&mut self) -> io::Result<(bool, u64)> {
        let kind = self.info.kind;
        self.watchdog.call_timed(0, move |f| flush_file(f, kind))
    }

    fn discard(&mut self) -> io::Result<bool> {
        // An image file is not discarded: its holes would only make it sparse.
        if self.info.kind == TargetKind::File || !self.info.trim {
            return Ok(false);
        }
        // Through the watchdog as every request: a drive that hangs on TRIM is given
        // up (and Ctrl-C ends the wait); one already given up is refused at once.
        let len = self.info.media_size_bytes;
        let limit = super::watched::discard_limit(self.watchdog.limit(), len);
        self.watchdog
            .call_within(0, limit, move |f| discard_file(f, len))
    }

    fn raw_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd;
        Some(self.file.as_fd())
    }

    fn quiesce(&mut self) -> io::Result<()> {
        let buffered = matches!(self.info.io_mode, IoMode::Buffered(_));
        self.watchdog
            .call(0, move |f| {
                rustix::fs::sync();
                if buffered {
                    drop_cache(f)?;
                }
                Ok(true)
            })
            .map(|_| ())
    }
}

/// Discard `len` bytes from byte 0 of the device open as `file`: true when done,
/// false when the device does not offer it (ENOTSUP, EOPNOTSUPP).
fn discard_file(file: &File, len: u64) -> io::Result<bool> {
    #[cfg(target_os = "freebsd")]
    let r = super::freebsd::discard(file, len);
    #[cfg(target_os = "linux")]
    let r = super::linux::discard(file, len);
    #[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
    let r: io::Result<()> = {
        let _ = (file, len);
        return Ok(false);
    };
    done_unless_unsupported(r)
}

/// `Ok(true)` for a call that was done, `Ok(false)` for one the device does not
/// offer (ENOTSUP, EOPNOTSUPP), the error otherwise.
fn done_unless_unsupported(r: io::Result<()>) -> io::Result<bool> {
    match r {
        Ok(()) => Ok(true),
        Err(e)
            if Errno::from_io_error(&e)
                .is_some_and(|e| [Errno::NOTSUP, Errno::OPNOTSUPP].contains(&e)) =>
        {
            Ok(false)
        }
        Err(e) => Err(e),
    }
}

#[cfg(any(target_os = "linux", target_os = "freebsd"))]
fn drop_cache(file: &File) -> io::Result<()> {
    // The whole file (no length).
    rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::DontNeed).map_err(io::Error::from)
}

#[cfg(not(any(target_os = "linux", target_os = "freebsd")))]
fn drop_cache(_file: &File) -> io::Result<()> {
    Ok(())
}

/// Flush a file's or a device's write cache to stable media: fsync for a regular file
/// (as diskinfo), fdatasync for a Linux block device (the kernel sends a cache flush),
/// DIOCGFLUSH for a FreeBSD disk. `Ok(false)` when the device says it cannot flush.
fn flush_file(file: &File, kind: TargetKind) -> io::Result<bool> {
    let r = if kind == TargetKind::File {
        rustix::fs::fsync(file).map_err(io::Error::from)
    } else {
        #[cfg(target_os = "freebsd")]
        {
            super::freebsd::flush_cache(file)
        }
        #[cfg(not(target_os = "freebsd"))]
        {
            rustix::fs::fdatasync(file).map_err(io::Error::from)
        }
    };
    done_unless_unsupported(r)
}
