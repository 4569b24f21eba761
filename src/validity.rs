//! Validity warnings: conditions under which a figure may not mean what it seems,
//! each with what to do about it. Pure functions of the data.

use crate::device::{DeviceInfo, IoMode, TargetKind};
use crate::results::Warning;

fn warning(code: &str, message: String, advice: &str) -> Warning {
    Warning {
        code: code.to_string(),
        message,
        advice: advice.to_string(),
    }
}

/// Warnings that follow from what the target is and how it is read.
pub fn device_warnings(info: &DeviceInfo) -> Vec<Warning> {
    let mut w = Vec::new();
    if let Some(model) = &info.simulated {
        w.push(warning(
            "simulated",
            format!("{} is a simulated drive ({model}); its figures come from a model on a virtual clock, not from a disk", info.name),
            "name a real device (e.g. /dev/sdb) to measure hardware",
        ));
    }
    if let IoMode::Buffered(why) = &info.io_mode {
        w.push(warning(
            "page_cache",
            format!("{}: the page cache cannot be bypassed ({why}); figures may include caching", info.path),
            "put the image on a file system that supports O_DIRECT, or attach it with losetup --direct-io=on",
        ));
    }
    if let Some(l) = &info.loop_device
        && !l.direct_io
    {
        w.push(warning(
            "loop_without_direct_io",
            format!(
                "{} is a loop device without direct I/O: reads may be served from the page cache of its backing file{}",
                info.path,
                l.backing_file.as_deref().map(|f| format!(" {f}")).unwrap_or_default()
            ),
            "re-attach it with losetup --direct-io=on, or run losetup --direct-io=on DEVICE",
        ));
    }
    let ss = u64::from(info.sector_size);
    if info.kind == TargetKind::File && !info.media_size_bytes.is_multiple_of(ss) {
        w.push(warning(
            "partial_sector",
            format!(
                "{}: the size, {} bytes, is not a multiple of {ss}; only the {} whole sectors are probed",
                info.path,
                info.media_size_bytes,
                info.sectors()
            ),
            "none needed; the last partial sector is never read",
        ));
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::LoopInfo;

    #[test]
    fn a_plain_direct_disk_has_no_warnings() {
        let mut i = DeviceInfo::new("sda", "/dev/sda", TargetKind::Disk);
        i.media_size_bytes = 1 << 30;
        i.io_mode = IoMode::Direct;
        assert!(device_warnings(&i).is_empty());
    }

    #[test]
    fn loop_without_dio_buffered_files_and_partial_sectors_are_flagged() {
        let mut i = DeviceInfo::new("loop0", "/dev/loop0", TargetKind::Disk);
        i.loop_device = Some(LoopInfo {
            backing_file: Some("/tmp/x".into()),
            direct_io: false,
        });
        assert_eq!(device_warnings(&i)[0].code, "loop_without_direct_io");
        let mut f = DeviceInfo::new("img", "img", TargetKind::File);
        f.media_size_bytes = 1000;
        f.io_mode = IoMode::Buffered("tmpfs".into());
        let codes: Vec<_> = device_warnings(&f).into_iter().map(|w| w.code).collect();
        assert_eq!(codes, ["page_cache", "partial_sector"]);
    }
}
