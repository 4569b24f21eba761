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
pub mod pio;
pub mod sim;

pub use aligned::AlignedBuf;
pub use file::{OpenOptions, open};

use crate::clock::{Clock, VirtualClock};
use crate::probe::Op;
use serde::{Deserialize, Serialize};
use std::io;
use std::os::fd::BorrowedFd;

/// What kind of object a target is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetKind {
    /// A block device (Linux) or a disk character device (FreeBSD).
    Disk,
    /// A regular file, treated as a disk of 512-byte sectors (as diskinfo does).
    File,
    /// A simulated drive on a virtual clock.
    Simulated,
}

/// The rotation rate as the device reports it (FreeBSD's GEOM::rotation_rate codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rotation {
    /// Nothing reports it (loop devices, virtual disks, image files, most USB bridges).
    Unknown,
    /// The medium reports that it does not rotate (SSD, NVMe).
    NonRotating,
    /// The nominal rotation rate in revolutions per minute.
    Rpm(u32),
    /// A reported code outside the valid range.
    Invalid(u32),
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

/// Zoned block device model (diskinfo's "Zone Mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneMode {
    /// A conventional device.
    NotZoned,
    /// Host-aware shingled (SMR) device.
    HostAware,
    /// Drive-managed shingled (SMR) device.
    DriveManaged,
    /// Host-managed shingled (SMR) device.
    HostManaged,
    /// A mode the kernel reports that none of the above names (diskinfo prints
    /// `Unknown_zone_mode_N`).
    Unknown(u32),
}

/// How reads reach the medium.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IoMode {
    /// Not opened for I/O (identification only).
    None,
    /// The page cache is bypassed (O_DIRECT, or a FreeBSD disk device).
    Direct,
    /// Buffered reads; the cached range is dropped before each timed phase, but
    /// caching may still be included. The string says why direct I/O was not used.
    Buffered(String),
    /// A simulated drive: no real I/O.
    Simulated,
}

/// An interface's negotiated link and the most data it can carry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceLimit {
    /// E.g. "SATA 6.0 Gbps", "PCIe 8 GT/s x4".
    pub name: String,
    /// Payload bytes per second (after line coding).
    pub bytes_per_s: u64,
}

/// A loop device's backing store (Linux).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopInfo {
    /// The backing file, when the kernel names it.
    pub backing_file: Option<String>,
    /// Whether the loop device itself uses direct I/O on its backing file; without it
    /// reads may be served from the backing file's page cache.
    pub direct_io: bool,
}

/// Identity, geometry and capabilities of a target: everything diskinfo prints
/// before its tests, plus what seekprobe needs to judge its measurements.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeviceInfo {
    /// The name as the user gave it (printed first, as diskinfo does).
    pub name: String,
    /// The path actually opened (after the /dev/ retry), or the simulation spec.
    pub path: String,
    /// What kind of object this is.
    pub kind: TargetKind,
    /// Logical sector size in bytes (512 for regular files).
    #[serde(rename = "sector_size_bytes")]
    pub sector_size: u32,
    /// Physical sector size in bytes, when known (else equal to `sector_size`).
    #[serde(rename = "physical_sector_size_bytes")]
    pub physical_sector_size: u32,
    /// Media size in bytes (for a regular file, its size, whole sectors or not).
    pub media_size_bytes: u64,
    /// diskinfo's stripesize: the physical block size when larger than the logical one.
    pub stripe_size_bytes: u64,
    /// diskinfo's stripeoffset: the alignment offset.
    pub stripe_offset_bytes: u64,
    /// Heads according to firmware (0 when unknown).
    pub fw_heads: u32,
    /// Sectors per track according to firmware (0 when unknown).
    pub fw_sectors: u32,
    /// Model or description ("Disk descr.").
    pub descr: Option<String>,
    /// Serial number ("Disk ident.").
    pub ident: Option<String>,
    /// Controller, transport or driver ("Attachment").
    pub attachment: Option<String>,
    /// A stable physical path ("Physical path"), e.g. /dev/disk/by-path/….
    pub physical_path: Option<String>,
    /// Whether TRIM/UNMAP (discard) is supported.
    pub trim: bool,
    /// The rotation rate as reported.
    pub rotation: Rotation,
    /// The zoned model, for devices that report one.
    pub zone_mode: Option<ZoneMode>,
    /// The parent disk of a partition, which describes it.
    pub parent_disk: Option<String>,
    /// Loop device details (Linux).
    pub loop_device: Option<LoopInfo>,
    /// For a simulated drive: the model it simulates.
    pub simulated: Option<String>,
    /// The interface the data crosses and its payload rate, where the system tells
    /// it (SATA link speed, NVMe PCIe link); a faster transfer came from a cache.
    #[serde(default)]
    pub interface: Option<InterfaceLimit>,
    /// For a regular file: the bytes the file system has allocated to it (a sparse
    /// image has fewer than its size, and its holes are read without any disk I/O).
    #[serde(default)]
    pub allocated_bytes: Option<u64>,
    /// The data lives in RAM (an image file on tmpfs or ramfs, or a loop device over
    /// one): figures measure memory, not a disk.
    #[serde(default)]
    pub in_memory: bool,
    /// How reads reach the medium.
    pub io_mode: IoMode,
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
            attachment: None,
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
    /// Read exactly `buf.len()` bytes at byte `offset`. `buf` is page-aligned; its
    /// length and `offset` are multiples of the logical sector size.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()>;
    /// Prepare for a timed phase: write back dirty data (as diskinfo's sync()) and,
    /// where the page cache cannot be bypassed, drop what it holds of the target.
    fn quiesce(&mut self) -> io::Result<()>;
    /// Write exactly `buf` at byte `offset` (aligned as for [`Target::read_at`]).
    /// Only targets opened for writing accept it.
    fn write_at(&mut self, _buf: &[u8], _offset: u64) -> io::Result<()> {
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
    /// The open descriptor, for engines that submit I/O themselves (io_uring, a
    /// thread pool), borrowed from the target so that it cannot outlive it. None for
    /// simulated drives.
    fn raw_fd(&self) -> Option<BorrowedFd<'_>> {
        None
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
    /// For simulated drives: the model that serves queued requests in virtual time.
    fn queue_model(&mut self) -> Option<&mut dyn QueueModel> {
        None
    }
    /// The target's own SMART, when it answers it itself (simulated drives, from
    /// their model); None for a real device, which is asked through smartctl
    /// ([`crate::smart::source_for`] picks).
    fn smart_source(&mut self) -> Option<&mut dyn crate::smart::SmartSource> {
        None
    }
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
