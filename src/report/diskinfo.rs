//! FreeBSD diskinfo's text, byte for byte.
//!
//! The text is built from pieces — the header, each test's opening, one line per
//! phase, each test's end — so that a live run can print each piece as soon as its
//! data exists, and [`render_disk`] of the finished results prints the same bytes.

use super::humanize::humanize;
use crate::device::{DeviceInfo, Rotation, ZoneMode};
use crate::probe::{PhaseId, TestKind, overhead};
use crate::results::{DiskResult, Outcome, PhaseResult, TestResult};
use std::fmt::Write;

/// C's `%-12s`: pad on the right to 12 bytes, never cut.
fn left12(s: &str) -> String {
    format!("{s}{}", " ".repeat(12usize.saturating_sub(s.len())))
}

/// The one-line form (no -v): name, sector size, media size in bytes and sectors,
/// stripe size and offset, and the firmware geometry when known.
pub fn one_line(info: &DeviceInfo) -> String {
    let mut s = format!(
        "{}\t{}\t{}\t{}\t{}\t{}",
        info.name,
        info.sector_size,
        info.media_size_bytes,
        info.sectors(),
        info.stripe_size_bytes,
        info.stripe_offset_bytes
    );
    if let Some(cyl) = info.fw_cylinders() {
        let _ = write!(s, "\t{cyl}\t{}\t{}", info.fw_heads, info.fw_sectors);
    }
    s.push('\n');
    s
}

/// The -v block: one field per line with a comment, ending with a blank line.
pub fn verbose_header(info: &DeviceInfo) -> String {
    let mut s = format!("{}\n", info.name);
    let mut field = |value: &str, comment: &str| {
        let _ = writeln!(s, "\t{}\t# {comment}", left12(value));
    };
    field(&info.sector_size.to_string(), "sectorsize");
    field(
        &info.media_size_bytes.to_string(),
        &format!("mediasize in bytes ({})", humanize(info.media_size_bytes)),
    );
    field(&info.sectors().to_string(), "mediasize in sectors");
    field(&info.stripe_size_bytes.to_string(), "stripesize");
    field(&info.stripe_offset_bytes.to_string(), "stripeoffset");
    if let Some(cyl) = info.fw_cylinders() {
        field(&cyl.to_string(), "Cylinders according to firmware.");
        field(&info.fw_heads.to_string(), "Heads according to firmware.");
        field(
            &info.fw_sectors.to_string(),
            "Sectors according to firmware.",
        );
    }
    let optional = [
        (&info.descr, "Disk descr."),
        (&info.ident, "Disk ident."),
        (&info.attachment, "Attachment"),
        (&info.physical_path, "Physical path"),
    ];
    for (value, comment) in optional {
        if let Some(v) = value {
            field(v, comment);
        }
    }
    field(if info.trim { "Yes" } else { "No" }, "TRIM/UNMAP support");
    field(&rotation_text(info.rotation), "Rotation rate in RPM");
    if let Some(z) = info.zone_mode {
        field(zone_text(z), "Zone Mode");
    }
    s.push('\n');
    s
}

fn rotation_text(r: Rotation) -> String {
    match r {
        Rotation::Unknown => "Unknown".into(),
        Rotation::NonRotating => "0".into(),
        Rotation::Rpm(rpm) => rpm.to_string(),
        Rotation::Invalid(_) => "Invalid".into(),
    }
}

fn zone_text(z: ZoneMode) -> &'static str {
    match z {
        ZoneMode::NotZoned => "Not_Zoned",
        ZoneMode::HostAware => "Host_Aware",
        ZoneMode::DriveManaged => "Drive_Managed",
        ZoneMode::HostManaged => "Host_Managed",
    }
}

/// What a test prints before its first phase.
pub fn test_start(test: TestKind) -> &'static str {
    match test {
        TestKind::CommandOverhead => "I/O command overhead:\n",
        TestKind::SeekTransfer => "Seek times:\n",
    }
}

/// What a test prints after its last phase (only when it completed).
pub fn test_end(_test: TestKind) -> &'static str {
    "\n"
}

/// diskinfo's per-sector milliseconds: `dt * 100 / 2048` for 20480 sectors, and in
/// general `dt * 1000 / sectors` (written so that 512-byte sectors give diskinfo's
/// exact floating-point result).
fn msec_per_sector(dt: f64, sectors: f64) -> f64 {
    dt * 100.0 / (sectors / 10.0)
}

/// The line(s) for the completed phase `test.phases[index]`; earlier phases may be consulted (the -c
/// overhead line needs both of its phases). `sector_size` is the device's.
pub fn phase_line(test: &TestResult, index: usize, sector_size: u32) -> String {
    let p = &test.phases[index];
    let dt = p.elapsed_s();
    let seek = |label: &str| {
        format!(
            "\t{label}:\t{:5} iter in {dt:10.6} sec = {:8.3} msec\n",
            p.ops_done(),
            dt * 1000.0 / f64::from(p.ops_done())
        )
    };
    let rate = |prefix: &str, label: &str| {
        let kb = p.bytes_done() as f64 / 1024.0;
        format!(
            "{prefix}\t{label}{kb:8.0} kbytes in {dt:10.6} sec = {:8.0} kbytes/sec\n",
            kb / dt
        )
    };
    match p.id {
        PhaseId::FullStroke => seek("Full stroke"),
        PhaseId::HalfStroke => seek("Half stroke"),
        PhaseId::QuarterStroke => seek("Quarter stroke"),
        PhaseId::ShortForward => seek("Short forward"),
        PhaseId::ShortBackward => seek("Short backward"),
        PhaseId::SeqOuter => seek("Seq outer"),
        PhaseId::SeqInner => seek("Seq inner"),
        PhaseId::Outside => rate("\nTransfer rates:\n", "outside:     "),
        PhaseId::Middle => rate("", "middle:      "),
        PhaseId::Inside => rate("", "inside:      "),
        PhaseId::OverheadMega => {
            let sectors = p.bytes_done() as f64 / f64::from(sector_size);
            format!(
                "\ttime to read 10MB block    {dt:10.6} sec\t= {:8.3} msec/sector\n",
                msec_per_sector(dt, sectors)
            )
        }
        PhaseId::OverheadSector => {
            let per_sector = msec_per_sector(dt, f64::from(p.ops_done()));
            let mut s = format!(
                "\ttime to read 20480 sectors {dt:10.6} sec\t= {per_sector:8.3} msec/sector\n"
            );
            if let Some(mega) = test.phase(PhaseId::OverheadMega) {
                let mega_sectors = mega.bytes_done() as f64 / f64::from(sector_size);
                let dm = mega.elapsed_s();
                let overhead = if mega_sectors == f64::from(p.ops_done())
                    && p.ops_done() == overhead::SECTOR_READS
                {
                    msec_per_sector(dt - dm, mega_sectors) // diskinfo's own formula
                } else {
                    per_sector - msec_per_sector(dm, mega_sectors)
                };
                let _ = writeln!(
                    s,
                    "\tcalculated command overhead\t\t\t= {overhead:8.3} msec/sector"
                );
            }
            s
        }
    }
}

/// The whole text of one test: its opening, every measured phase, and its end when
/// it completed.
pub fn render_test(test: &TestResult, sector_size: u32) -> String {
    let mut s = String::new();
    if !test.phases.iter().any(PhaseResult::complete) {
        return s;
    }
    s.push_str(test_start(test.test));
    for (i, p) in test.phases.iter().enumerate() {
        if p.complete() {
            s.push_str(&phase_line(test, i, sector_size));
        }
    }
    if test.outcome == Outcome::Complete {
        s.push_str(test_end(test.test));
    }
    s
}

/// The whole text of one disk, as the live run printed it to standard output.
pub fn render_disk(disk: &DiskResult, verbose: bool) -> String {
    let Some(info) = &disk.info else {
        return String::new();
    };
    if !verbose {
        return one_line(info);
    }
    let mut s = verbose_header(info);
    for t in &disk.tests {
        s.push_str(&render_test(t, info.sector_size));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left12_pads_and_never_cuts() {
        assert_eq!(left12("512"), "512         ");
        assert_eq!(left12("2000398934016"), "2000398934016");
    }
}
