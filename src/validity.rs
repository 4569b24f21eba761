//! Validity warnings: conditions under which a figure may not mean what it seems,
//! each with what to do about it. Pure functions of the data.
//!
//! Every warning here is about how a figure was measured (the page cache, a loop
//! device, RAM, a sparse image, a partial sector, the fallback engine, other I/O, a
//! cache between seekprobe and the drive, the simulator) and never judges a drive.
//! The one that is about the drive's fitness, a lying flush, is also the judge's
//! finding ([`fast_flush`] gives its figures to `verdict`): under --qualify and
//! --burn-in it is that finding instead of a warning. A device that says it cannot
//! flush (`flush_unsupported`) stays a warning: the -S figures are unflushed, and
//! nothing measured tells whether the device has a volatile cache at all.

use crate::results::device::{DeviceInfo, IoMode, Rotation, TargetKind};
use crate::results::test_kind::{PhaseId, TestKind};
use crate::results::{TestResult, Warning, WarningCode};

fn warning(code: WarningCode, message: String, advice: &str) -> Warning {
    Warning {
        code,
        message,
        advice: advice.to_string(),
    }
}

/// Warnings that follow from what the target is and how it is read. Without a test
/// (`measuring` false) only the simulated-drive note applies.
pub fn device_warnings(info: &DeviceInfo, measuring: bool) -> Vec<Warning> {
    let mut w = Vec::new();
    if let Some(model) = &info.simulated {
        w.push(warning(
            WarningCode::Simulated,
            format!("{} is a simulated drive ({model}); its figures come from a model on a virtual clock, not from a disk", info.name),
            "name a real device (e.g. /dev/sdb) to measure hardware",
        ));
    }
    if !measuring {
        return w;
    }
    if let IoMode::Buffered(why) = &info.io_mode {
        w.push(warning(
            WarningCode::PageCache,
            format!("{}: the page cache cannot be bypassed ({why}); figures may include caching", info.path),
            "put the image on a file system that supports O_DIRECT, or attach it with losetup --direct-io=on",
        ));
    }
    if let Some(l) = &info.loop_device
        && !l.direct_io
    {
        w.push(warning(
            WarningCode::LoopWithoutDirectIo,
            format!(
                "{} is a loop device without direct I/O: reads may be served from the page cache of its backing file{}",
                info.path,
                l.backing_file.as_deref().map(|f| format!(" {f}")).unwrap_or_default()
            ),
            "re-attach it with losetup --direct-io=on, or run losetup --direct-io=on DEVICE",
        ));
    }
    if info.in_memory {
        w.push(warning(
            WarningCode::InMemory,
            format!("{}: the data is stored in RAM (tmpfs or ramfs): the figures measure memory, not a disk", info.path),
            "put the image on the disk you mean to measure",
        ));
    }
    if let Some(allocated) = info.allocated_bytes
        && allocated < info.media_size_bytes / 2
    {
        w.push(warning(
            WarningCode::Sparse,
            format!(
                "{}: {} ({} of {} bytes allocated): its holes are read without touching a disk",
                info.path,
                match info.loop_device.as_ref().and_then(|l| l.backing_file.as_deref()) {
                    Some(f) => format!("a loop device over the sparse image {f}"),
                    None => "a sparse image".into(),
                },
                allocated,
                info.media_size_bytes
            ),
            "fill the image first (e.g. dd if=/dev/zero of=IMAGE bs=1M conv=notrunc) to measure the disk under it",
        ));
    }
    let ss = u64::from(info.sector_size);
    if info.kind == TargetKind::File && !info.media_size_bytes.is_multiple_of(ss) {
        w.push(warning(
            WarningCode::PartialSector,
            format!(
                                "{}: the size, {} bytes, is not a multiple of {ss}; only the {} whole sector{} probed",
                info.path,
                info.media_size_bytes,
                info.sectors(),
                if info.sectors() == 1 { " is" } else { "s are" }
            ),
                        "nothing to do: the partial sector is simply left out",
        ));
    }
    w
}

/// The device said it cannot flush its write cache: the -S figures are unflushed.
pub fn flush_unsupported(info: &DeviceInfo) -> Warning {
    warning(
        WarningCode::FlushUnsupported,
        format!(
            "{}: the device says it cannot flush a write cache; the synchronous writes ran without flushes",
            info.path
        ),
        "none if the device has no volatile cache; otherwise its writes are not durable when acknowledged",
    )
}

/// The queued engine had to fall back (e.g. io_uring refused): say which and why.
pub fn engine_note(info: &DeviceInfo, note: &str) -> Warning {
    warning(
        WarningCode::QueuedEngine,
        format!("{}: {note}", info.path),
        "IOPS from the fallback engine may be lower than the device can do; io_uring needs Linux 5.6 or later and must not be disabled (kernel.io_uring_disabled)",
    )
}

/// Other programs used the device during a test: the kernel counted `device_bytes`
/// of I/O where seekprobe made `own_bytes` (more than 4 MiB or 2% more).
pub fn other_io(
    info: &DeviceInfo,
    test: TestKind,
    device_bytes: u64,
    own_bytes: u64,
) -> Option<Warning> {
    let extra = device_bytes.saturating_sub(own_bytes);
    (extra > (4 << 20).max(own_bytes / 50)).then(|| {
        warning(
            WarningCode::OtherIo,
            format!(
                "{}: other I/O on the device during the {} test: the kernel counted {} MiB more than seekprobe read or wrote; its figures may be lower than the device can do",
                info.path,
                test.name(),
                extra >> 20
            ),
            "stop what else uses the disk (iostat -x 1 shows it) and run again",
        )
    })
}

/// One revolution of a rotating device, in nanoseconds.
fn revolution_ns(info: &DeviceInfo) -> Option<f64> {
    match info.rotation {
        Rotation::Rpm(rpm) if rpm > 0 => Some(60e9 / f64::from(rpm)),
        _ => None,
    }
}

/// Transfers faster than the interface can carry (5% of slack): they came from a
/// cache between the drive's media and seekprobe.
fn faster_than_interface(info: &DeviceInfo, test: &TestResult) -> Option<Warning> {
    let limit = info.interface.as_ref()?;
    let fastest = test
        .phases
        .iter()
        .filter(|p| p.complete() && p.elapsed_ns > 0 && p.op_bytes >= 64 << 10)
        .map(|p| (p.bytes_done() as f64 / p.elapsed_s(), p.id.name()))
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    (fastest.0 > limit.bytes_per_s as f64 * 1.05).then(|| {
        warning(
            WarningCode::FasterThanInterface,
            format!(
                "{}: {} ran at {:.0} MB/s, faster than its {} link carries ({:.0} MB/s): the data came from a cache",
                info.path,
                fastest.1,
                fastest.0 / 1e6,
                limit.name,
                limit.bytes_per_s as f64 / 1e6
            ),
            "read a range larger than the caches, or look for a caching layer between seekprobe and the drive",
        )
    })
}

/// What a flushed write's speed is judged against: the medium under the cache.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FlushMedium {
    /// A rotating drive: a flush that writes the cache back waits for the platter
    /// (at least a fraction of a revolution, `rev_ns`).
    Rotating {
        /// The reported rotation rate.
        rpm: u32,
        /// One revolution, in nanoseconds.
        rev_ns: f64,
    },
    /// A drive that reports it does not rotate (SSD, NVMe).
    Flash,
    /// Nothing reports the rotation (loop devices, many USB bridges, virtual disks).
    Unknown,
}

/// The fastest rotating drives spin at 15,000 rpm: a quarter of their revolution
/// (1 ms) is the fastest a flush that reaches a platter can be, so a faster flush
/// on a drive of unknown rotation is suspect.
const FASTEST_RPM: f64 = 15_000.0;

/// A flash drive whose flushed writes take less than this (100 us) answers them
/// from a cache: drives with power-loss protection do so legitimately (12-58 us
/// measured for 16 KB synced writes on enterprise drives, ~0.9 ms on a consumer
/// drive without it: Mark Callaghan, "SSDs, power loss protection and fsync
/// latency", 2025, as summarised at
/// https://engineered.at/articles/ssds-power-loss-protection-and-fsync-latency),
/// drives without it lose what they acknowledged on power loss.
const FLASH_CACHED_FLUSH_NS: f64 = 100_000.0;

/// Flushed writes acknowledged faster than the medium under the cache could store
/// them: the figures, for the validity warning and the judge's finding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FastFlush {
    /// What the medium is.
    pub medium: FlushMedium,
    /// The fastest mean time of a flushed write, over the sizes measured, in ns.
    pub mean_ns: f64,
    /// The size of those writes, in bytes.
    pub op_bytes: u32,
    /// The time under which a flush cannot have reached the medium, in ns.
    pub limit_ns: f64,
}

impl FastFlush {
    /// The figures in words: how long a flushed write took against the limit.
    pub fn describe(&self) -> String {
        let us = |ns: f64| ns / 1e3;
        let took = format!(
            "flushed random writes of {} bytes took {:.1} us each",
            self.op_bytes,
            us(self.mean_ns)
        );
        match self.medium {
            FlushMedium::Rotating { rpm, rev_ns } => format!(
                "{took}, far under one revolution ({:.1} us at {rpm} rpm): the drive acknowledges flushes without writing its cache to the platters",
                us(rev_ns)
            ),
            FlushMedium::Flash => format!(
                "{took}, under the {:.0} us a flash write takes without a cache: the drive acknowledges flushes from its cache",
                us(self.limit_ns)
            ),
            FlushMedium::Unknown => format!(
                "{took}, under a quarter of the fastest disk's revolution ({:.0} us at 15000 rpm), and the rotation is not reported",
                us(self.limit_ns)
            ),
        }
    }
}

/// Whether a drive's flush timings mean anything: the simulator's drive-managed
/// SMR model appends writes to its media cache without a rotational wait
/// (docs/sim.md, "What the model does not do"), so its flushed writes are fast by a limit of the
/// simulator, never a fault of the drive.
fn simulator_times_flushes(info: &DeviceInfo) -> bool {
    !info
        .simulated
        .as_deref()
        .is_some_and(|m| m.contains("drive-managed SMR"))
}

/// Whether the -S test's flushed writes were acknowledged faster than the medium
/// allows (a quarter of a revolution on a rotating drive, see the consts for the
/// others); None when they were not, or the test timed none: also when the
/// device said it cannot flush (`warnings`, the disk's, hold
/// [`WarningCode::FlushUnsupported`]), for then no flush was timed and the
/// writes' speed says nothing of one (a limit of the path, e.g. FreeBSD's
/// `DIOCGFLUSH` refused behind a caching controller, never the drive's lie).
pub fn fast_flush(info: &DeviceInfo, test: &TestResult, warnings: &[Warning]) -> Option<FastFlush> {
    // The -S test's flushed writes, the only phases with their id.
    if !test.phases.iter().any(|p| p.id == PhaseId::SyncWrite)
        || !simulator_times_flushes(info)
        || warnings
            .iter()
            .any(|w| w.code == WarningCode::FlushUnsupported)
    {
        return None;
    }
    let (medium, limit_ns) = match (info.rotation, revolution_ns(info)) {
        (Rotation::Rpm(rpm), Some(rev_ns)) => (FlushMedium::Rotating { rpm, rev_ns }, rev_ns / 4.0),
        (Rotation::NonRotating, _) => (FlushMedium::Flash, FLASH_CACHED_FLUSH_NS),
        _ => (FlushMedium::Unknown, 60e9 / FASTEST_RPM / 4.0),
    };
    let (mean_ns, op_bytes) = test
        .phases
        .iter()
        .filter(|p| p.id == PhaseId::SyncWrite)
        .filter_map(|p| p.summary.as_ref().map(|s| (s.mean_ns, p.op_bytes)))
        .min_by(|a, b| a.0.total_cmp(&b.0))?;
    (mean_ns < limit_ns).then_some(FastFlush {
        medium,
        mean_ns,
        op_bytes,
        limit_ns,
    })
}

/// Warnings that follow from a test's figures (`warnings`: those the disk has
/// already, which [`fast_flush`] reads).
pub fn test_warnings(info: &DeviceInfo, test: &TestResult, warnings: &[Warning]) -> Vec<Warning> {
    let mut w: Vec<Warning> = faster_than_interface(info, test).into_iter().collect();
    let Some(rev) = revolution_ns(info) else {
        return w;
    };
    let mean = |p: &crate::results::PhaseResult| p.summary.as_ref().map(|s| s.mean_ns);
    // -t's strokes, the only phases with their ids.
    let strokes = [
        PhaseId::FullStroke,
        PhaseId::HalfStroke,
        PhaseId::QuarterStroke,
    ];
    let fast: Vec<&str> = test
        .phases
        .iter()
        .filter(|p| strokes.contains(&p.id) && p.complete())
        .filter(|p| mean(p).is_some_and(|m| m < rev / 8.0))
        .map(|p| p.id.name())
        .collect();
    if !fast.is_empty() {
        w.push(warning(
            WarningCode::SeekFasterThanRotation,
            format!(
                "{}: {} took less than an eighth of a revolution ({:.3} ms) per read, faster than a rotating disk can move: the reads were served from a cache",
                info.path,
                fast.join(", "),
                rev / 8e6
            ),
            "look for a caching RAID controller or a virtual disk between seekprobe and the drive",
        ));
    }
    // -S's flushed writes (fast_flush reads only their phases).
    if let Some(f) = fast_flush(info, test, warnings)
        && let FlushMedium::Rotating { .. } = f.medium
    {
        w.push(warning(
            WarningCode::FlushNotHonoured,
            format!("{}: {}", info.path, f.describe()),
            "do not use this drive as a ZFS log (SLOG) device or wherever writes must be durable; check its write-cache setting",
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::device::LoopInfo;

    #[test]
    fn a_transfer_faster_than_the_link_is_flagged() {
        use crate::results::PhaseResult;
        use crate::results::device::InterfaceLimit;
        use crate::results::test_kind::PhaseId;
        let mut i = DeviceInfo::new("sda", "/dev/sda", TargetKind::Disk);
        i.interface = Some(InterfaceLimit {
            name: "SATA 3 Gbps".into(),
            bytes_per_s: 300_000_000,
        });
        let phase = |secs: f64| PhaseResult {
            id: PhaseId::Outside,
            ops_planned: 100,
            op_bytes: 1 << 20,
            first_offset_bytes: 0,
            elapsed_ns: (secs * 1e9) as u64,
            latencies_ns: vec![(secs * 1e7) as u64; 100],
            histogram: None,
            queue_depth: None,
            seed: None,
            summary: None,
            stopped_early: false,
        };
        let mut t = TestResult::new(TestKind::SeekTransfer, 0.0, crate::results::Engine::Sync);
        t.phases.push(phase(0.5)); // 210 MB/s: fine
        assert!(test_warnings(&i, &t, &[]).is_empty());
        t.phases.push(phase(0.2)); // 524 MB/s over a 300 MB/s link
        let w = test_warnings(&i, &t, &[]);
        assert_eq!(w[0].code, WarningCode::FasterThanInterface);
        assert!(w[0].message.contains("SATA 3 Gbps"), "{}", w[0].message);
    }

    #[test]
    fn a_plain_direct_disk_has_no_warnings() {
        let mut i = DeviceInfo::new("sda", "/dev/sda", TargetKind::Disk);
        i.media_size_bytes = 1 << 30;
        i.io_mode = IoMode::Direct;
        assert!(device_warnings(&i, true).is_empty());
    }

    #[test]
    fn loop_without_dio_buffered_files_and_partial_sectors_are_flagged() {
        let mut i = DeviceInfo::new("loop0", "/dev/loop0", TargetKind::Disk);
        i.loop_device = Some(LoopInfo {
            backing_file: Some("/tmp/x".into()),
            direct_io: false,
        });
        assert_eq!(
            device_warnings(&i, true)[0].code,
            WarningCode::LoopWithoutDirectIo
        );
        let mut f = DeviceInfo::new("img", "img", TargetKind::File);
        f.media_size_bytes = 1000;
        f.io_mode = IoMode::Buffered("tmpfs".into());
        let codes: Vec<_> = device_warnings(&f, true)
            .into_iter()
            .map(|w| w.code)
            .collect();
        assert_eq!(codes, [WarningCode::PageCache, WarningCode::PartialSector]);
    }
}
