//! Opening targets and describing them: block devices, disk character devices
//! (FreeBSD), regular files (image files) and simulated drives.
//!
//! A [`Target`] serves positioned reads and reports a [`DeviceInfo`]. Opening decides
//! how the page cache is bypassed ([`IoMode`]); describing (identity, geometry,
//! capabilities) is delegated to the platform modules.

mod aligned;
mod file;
#[cfg(target_os = "freebsd")]
pub mod freebsd;
#[cfg(target_os = "linux")]
pub mod linux;
pub mod pass_watch;
pub mod pio;
pub mod sim;
pub mod size_probe;
mod stop;
pub mod watched;

pub use aligned::{AlignedBuf, ReadBuf, WriteBuf};
pub use file::{OpenOptions, open};
pub use pass_watch::PassWatch;
pub use stop::Stop;

use crate::clock::{Clock, VirtualClock};
use crate::results::device::{DeviceInfo, IoMode, Rotation, TargetKind};
use crate::test_plans::Op;
use std::io;
use std::os::fd::BorrowedFd;

/// Whether the block device open as `fd` was removed from the system (Linux: its
/// /sys/dev/block entry is gone); None where that cannot be told (not a block
/// device, another system: FreeBSD fails a departed disk's requests with ENXIO,
/// which tells it).
pub fn removed(fd: BorrowedFd<'_>) -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        linux::removed(fd)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = fd;
        None
    }
}

impl Rotation {
    /// Decode a SCSI VPD B1 / ATA IDENTIFY word 217 "nominal media rotation rate":
    /// 0 = not reported, 1 = non-rotating, 0x401..=0xFFFE = rpm, other = invalid.
    pub fn from_code(code: u32) -> Rotation {
        match code {
            0 => Rotation::Unknown,
            1 => Rotation::NonRotating,
            0x401..=0xFFFE => Rotation::Rpm(code),
            other => Rotation::Invalid(other),
        }
    }
}

impl DeviceInfo {
    /// A description with only the name, path and kind set and neutral defaults
    /// elsewhere, for the platform modules to fill in.
    pub fn new(name: &str, path: &str, kind: TargetKind) -> Self {
        DeviceInfo {
            name: name.to_string(),
            path: path.to_string(),
            kind,
            sector_size: 512,
            physical_sector_size: 512,
            media_size_bytes: 0,
            stripe_size_bytes: 0,
            stripe_offset_bytes: 0,
            fw_heads: 0,
            fw_sectors: 0,
            descr: None,
            ident: None,
            wwn: None,
            attachment: None,
            stable_names: Vec::new(),
            physical_path: None,
            trim: false,
            rotation: Rotation::Unknown,
            zone_mode: None,
            parent_disk: None,
            loop_device: None,
            simulated: None,
            interface: None,
            allocated_bytes: None,
            in_memory: false,
            io_mode: IoMode::None,
        }
    }

    /// The number of whole logical sectors.
    pub fn sectors(&self) -> u64 {
        self.media_size_bytes / u64::from(self.sector_size.max(1))
    }

    /// Cylinders according to firmware, when heads and sectors are both known.
    pub fn fw_cylinders(&self) -> Option<u64> {
        if self.fw_heads == 0 || self.fw_sectors == 0 {
            return None;
        }
        let per_cyl =
            u64::from(self.fw_heads) * u64::from(self.fw_sectors) * u64::from(self.sector_size);
        Some(self.media_size_bytes / per_cyl)
    }
}

/// A target that serves positioned reads, timed by its own clock.
pub trait Target: Send {
    /// What the target is.
    fn info(&self) -> &DeviceInfo;
    /// The clock that times this target's operations (virtual for simulations).
    fn clock(&self) -> &dyn Clock;
    /// Read exactly `buf.len()` bytes at byte `offset`. `buf` is part of an
    /// [`AlignedBuf`] (so page-aligned), lent with its memory ([`ReadBuf`]: a
    /// request a real device gives up keeps that memory until the kernel answers);
    /// its length and `offset` are multiples of the logical sector size.
    fn read_at(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<()>;
    /// Prepare for a timed phase: write back dirty data (as diskinfo's sync()) and,
    /// where the page cache cannot be bypassed, drop what it holds of the target.
    fn quiesce(&mut self) -> io::Result<()>;
    /// Write exactly `buf` at byte `offset` (aligned as for [`Target::read_at`]).
    /// Only targets opened for writing accept it.
    fn write_at(&mut self, _buf: WriteBuf<'_>, _offset: u64) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "the target is not open for writing",
        ))
    }
    /// Flush the device's volatile write cache to stable media. `Ok(false)` when the
    /// device says it does not support flushing (then nothing was flushed).
    fn flush(&mut self) -> io::Result<bool> {
        Ok(false)
    }
    /// [`Target::read_at`], and the read's latency in ns on [`Target::clock`]: the
    /// clock read right before and after the read where it is carried out (a real
    /// device's I/O thread, [`watched`]), so that the tool's own work around it
    /// (the hand-over to that thread) is no part of the figure. The default times
    /// the call (a simulated drive's virtual clock moves by the read alone).
    fn read_timed(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<u64> {
        let t0 = self.clock().now_ns();
        self.read_at(buf, offset)?;
        Ok(self.clock().now_ns().saturating_sub(t0))
    }
    /// [`Target::write_at`], and the write's latency in ns, timed as
    /// [`Target::read_timed`] times a read.
    fn write_timed(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<u64> {
        let t0 = self.clock().now_ns();
        self.write_at(buf, offset)?;
        Ok(self.clock().now_ns().saturating_sub(t0))
    }
    /// [`Target::write_timed`] in pieces of `piece` bytes (the last the rest): all
    /// but the last issued at once, then all awaited (diskinfo's `parwrite`), timed
    /// from the first piece to the last answer where they are carried out. The
    /// default writes the whole buffer as one request (a simulated drive).
    fn write_pieces_timed(
        &mut self,
        buf: WriteBuf<'_>,
        offset: u64,
        _piece: u32,
    ) -> io::Result<u64> {
        self.write_timed(buf, offset)
    }
    /// [`Target::flush`], and the flush's latency in ns, timed as
    /// [`Target::read_timed`] times a read.
    fn flush_timed(&mut self) -> io::Result<(bool, u64)> {
        let t0 = self.clock().now_ns();
        let r = self.flush()?;
        Ok((r, self.clock().now_ns().saturating_sub(t0)))
    }
    /// Discard the whole device (TRIM/UNMAP: BLKDISCARD on Linux, DIOCGDELETE on
    /// FreeBSD) so that flash starts clean. `Ok(false)` when it does not offer it
    /// (a rotating drive, an image file, a simulated drive: nothing discarded).
    fn discard(&mut self) -> io::Result<bool> {
        Ok(false)
    }
    /// The open descriptor, for engines that submit I/O themselves (io_uring, a
    /// thread pool), borrowed from the target so that it cannot outlive it. None for
    /// simulated drives.
    fn raw_fd(&self) -> Option<BorrowedFd<'_>> {
        None
    }
    /// What reads the target's size again while a test runs (`size_probe.rs`):
    /// through a duplicate of [`Target::raw_fd`] by default; a simulated drive's
    /// own with `shrink=`; None when it cannot tell.
    fn size_probe(&self) -> Option<size_probe::SizeProbe> {
        let i = self.info();
        size_probe::SizeProbe::new(self.raw_fd(), i.kind, i.media_size_bytes)
    }
    /// The bytes the kernel has read from and written to this device since boot,
    /// all programs together (Linux block devices); None where it does not say.
    fn device_io_bytes(&self) -> Option<(u64, u64)> {
        None
    }
    /// The bytes this target has read and written through [`Target::read_at`] and
    /// [`Target::write_at`] (engines that submit I/O themselves count their own).
    fn own_io_bytes(&self) -> u64 {
        0
    }
    /// What only a simulated drive offers beside this I/O contract ([`Simulated`]:
    /// its queue model, its own SMART, its controller); None for a real device.
    fn simulated(&mut self) -> Option<&mut dyn Simulated> {
        None
    }
}

/// What only a simulated drive does, reached through [`Target::simulated`]: the
/// engines, the SMART steps and the path check ask it instead of the system.
pub trait Simulated {
    /// The model that serves queued requests in virtual time.
    fn queue_model(&mut self) -> &mut dyn QueueModel;
    /// The drive's own SMART, answered from its model (a real device is asked
    /// through smartctl: [`crate::smart::source_for`] picks); None for a model
    /// without SMART (the engines' test drives).
    fn smart_source(&mut self) -> Option<&mut dyn crate::smart::SmartSource> {
        None
    }
    /// The simulated controller the drive sits on (`controller=NAME:RATE`), its
    /// name and bandwidth in bytes/s; None without one (a real device's path is
    /// read from the system: `--path-check`).
    fn controller(&mut self) -> Option<(&str, u64)> {
        None
    }
    /// Hear how many drives run at once (the path check's together phases). Real
    /// drives feel it physically; a simulated drive, on its own virtual clock,
    /// models its shared controller and vibration from it (docs/sim.md).
    fn set_together(&mut self, _together: Together) {}
}

/// The queue model of `target`, when it is a simulated drive.
pub fn queue_model(target: &mut dyn Target) -> Option<&mut dyn QueueModel> {
    target.simulated().map(|s| s.queue_model())
}

/// How many drives run at once, as the path check tells each target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Together {
    /// Every drive reading at once (0 or 1: the drive runs alone).
    pub drives: usize,
    /// Those of them on this drive's controller, itself included.
    pub on_controller: usize,
}

/// A device model that serves queued requests in virtual time (simulated drives).
/// The queued engine keeps the queue; the model says how long each request takes.
pub trait QueueModel {
    /// How many requests the device serves at once (1 for a disk arm; the number
    /// of channels or dies for flash).
    fn parallelism(&self) -> usize;
    /// Serve `op`, which starts being served at virtual time `start_ns` on a free
    /// service slot; returns its service time in nanoseconds, or the error the
    /// device reports (e.g. EIO in an injected bad range). Must not advance the
    /// clock: the engine does.
    fn service_ns(&mut self, op: &Op, start_ns: u64) -> io::Result<u64>;
    /// The virtual clock the engine advances.
    fn virtual_clock(&self) -> &VirtualClock;
    /// Serve `op` as [`QueueModel::service_ns`] does, and move its data: a read
    /// fills `data`'s buffer with what the device holds there, a write stores the
    /// buffer (both `op.len` bytes). [`QueueModel::service_ns`] moves none (a write
    /// through it leaves the stored content as it was). The default keeps no data.
    fn service_data(&mut self, op: &Op, start_ns: u64, data: IoData<'_>) -> io::Result<u64> {
        let _ = data;
        self.service_ns(op, start_ns)
    }
}

/// The data of one operation served by a [`QueueModel`].
#[derive(Debug)]
pub enum IoData<'a> {
    /// No data moves (only the time is served).
    None,
    /// A read: the buffer to fill.
    Read(&'a mut [u8]),
    /// A write: the content to store.
    Write(&'a [u8]),
}
