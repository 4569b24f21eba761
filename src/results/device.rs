//! A target's description as plain data: its identity, geometry and capabilities
//! as a run saves them (opening and describing targets is the device module's).

use serde::{Deserialize, Serialize};

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

/// Zoned block device model (diskinfo's "Zone Mode").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneMode {
    /// Not zoned: any sector may be written in any order.
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

impl ZoneMode {
    /// A zoned model in words ("host-managed"); None for a device that is not
    /// zoned, or a mode without a name.
    pub fn zoned_words(self) -> Option<&'static str> {
        match self {
            ZoneMode::HostAware => Some("host-aware"),
            ZoneMode::HostManaged => Some("host-managed"),
            ZoneMode::DriveManaged => Some("drive-managed"),
            ZoneMode::NotZoned | ZoneMode::Unknown(_) => None,
        }
    }
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

/// What names one physical drive across runs, reboots and renames: its serial, its WWN
/// where reported, its model and its size (issue 27). Two drives with equal identities
/// are told apart only by the name they were given (simulated drives of one seed, USB
/// bridges that report one serial, clones).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Identity {
    /// The serial number, `None` where the device reports none (loop devices, images).
    pub serial: Option<String>,
    /// The World Wide Name, where reported.
    pub wwn: Option<String>,
    /// The model ("Disk descr.").
    pub model: Option<String>,
    /// The media size in bytes.
    pub size_bytes: u64,
}

impl Identity {
    /// Whether this identity can name a drive without its given name: it has a serial.
    pub fn is_known(&self) -> bool {
        self.serial.is_some()
    }
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
    /// The World Wide Name, where the drive reports one (sysfs `wwid`, smartctl's
    /// `wwn`): unique per drive where serials are not (USB bridges, clones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wwn: Option<String>,
    /// Controller, transport or driver ("Attachment").
    pub attachment: Option<String>,
    /// The drive's names that survive a reboot, best first, as the system had them
    /// when it was probed: on Linux its /dev/disk/by-id links (the `wwn-` one
    /// first, then the bus-model-serial one, as `ata-MODEL_SERIAL`), on FreeBSD its
    /// /dev/diskid/ name and its partitions' /dev/gpt/ labels. Empty when it has
    /// none (loop devices, images, simulated drives) and in runs saved before they
    /// were recorded; `seekprobe plan` names the drive by the first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stable_names: Vec<String>,
    /// A stable physical path ("Physical path"), e.g. /dev/disk/by-path/….
    pub physical_path: Option<String>,
    /// Whether TRIM/UNMAP (discard) is supported.
    pub trim: bool,
    /// What the device reports about rotation (unknown, none, rpm); never measured here.
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
    /// The drive's identity (serial, WWN, model, size), as issue 27 defines it.
    pub fn identity(&self) -> Identity {
        Identity {
            serial: self.ident.clone(),
            wwn: self.wwn.clone(),
            model: self.descr.clone(),
            size_bytes: self.media_size_bytes,
        }
    }
}
