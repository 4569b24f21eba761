//! FreeBSD diskinfo's text, byte for byte.
//!
//! The text is built from pieces — the header, each test's opening, one line per
//! phase, each test's end — so that a live run can print each piece as soon as its
//! data exists, and [`render_disk`] of the finished results prints the same bytes.

use super::beyond;
use super::humanize::humanize;
use crate::results::device::{DeviceInfo, Rotation, ZoneMode};
use crate::results::test_kind::{PhaseId, TestKind};
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
        field(&zone_text(z), "Zone Mode");
    }
    s.push('\n');
    s.push_str(&beyond::smr_signs(info));
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

fn zone_text(z: ZoneMode) -> String {
    match z {
        ZoneMode::NotZoned => "Not_Zoned".into(),
        ZoneMode::HostAware => "Host_Aware".into(),
        ZoneMode::DriveManaged => "Drive_Managed".into(),
        ZoneMode::HostManaged => "Host_Managed".into(),
        ZoneMode::Unknown(n) => format!("Unknown_zone_mode_{n}"),
    }
}

/// What a test prints before its first phase.
pub fn test_start(test: TestKind) -> &'static str {
    test.row().header
}

/// Whether a test's end is printed: when it completed, and for an interrupted scan,
/// whose partial map says where to resume.
pub fn end_printed(test: &TestResult) -> bool {
    test.outcome == Outcome::Complete
        || (test.test.row().pass && test.outcome == Outcome::Interrupted)
}

/// What a test prints after its last phase (see [`end_printed`]): diskinfo ends
/// every block with a blank line but the -S one; seekprobe's own tests print their
/// whole block here. Every kind has its arm: a new test says what ends its text.
pub fn test_end(test: &TestResult, info: &DeviceInfo) -> String {
    match test.test {
        TestKind::SyncWrite => String::new(),
        TestKind::Zones => beyond::zones(test, info.media_size_bytes),
        TestKind::SeekProfile => beyond::seek_profile(test, info.sector_size),
        TestKind::Scan => beyond::scan(test),
        TestKind::BlockSweep => beyond::sweep(test),
        TestKind::Verify => super::verify::block(test),
        TestKind::CapacityCheck => super::capacity::block(test),
        TestKind::SmrCheck => beyond::smr_check(test),
        TestKind::CommandOverhead | TestKind::SeekTransfer | TestKind::RandomReads => "\n".into(),
        // Across the drives: no drive's result holds it, so no drive's text ends it.
        TestKind::PathCheck => "\n".into(),
    }
}

/// The label of an -i line: "sectorsize:  " for the sector size, else the size in
/// kbytes, padded as diskinfo pads its fixed labels.
fn iops_label(len: u32, sector_size: u32) -> String {
    if len == sector_size {
        return "sectorsize:  ".into();
    }
    let s = format!("{} kbytes:", len / 1024);
    format!("{s}{}", " ".repeat(13usize.saturating_sub(s.len()).max(1)))
}

/// C's `%W.Pg`: `precision` significant digits, trailing zeros removed, scientific
/// notation when the exponent is below -4 or at least the precision; right-aligned
/// in `width`.
pub fn printf_g(x: f64, width: usize, precision: usize) -> String {
    let p = precision.max(1);
    let body = if x == 0.0 {
        "0".to_string()
    } else {
        let sci = format!("{:.*e}", p - 1, x);
        let (mant, exp) = sci.split_once('e').expect("exponent form");
        let exp: i32 = exp.parse().expect("exponent");
        let strip = |s: &str| {
            if s.contains('.') {
                s.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                s.to_string()
            }
        };
        if exp < -4 || exp >= p as i32 {
            let sign = if exp < 0 { '-' } else { '+' };
            format!("{}e{sign}{:02}", strip(mant), exp.abs())
        } else {
            strip(&format!("{:.*}", (p as i32 - 1 - exp) as usize, x))
        }
    };
    format!("{body:>width$}")
}

/// diskinfo's "msec/sector": `dt * 100 / 2048`, whatever the sector size (it is
/// per sector only for 512-byte sectors; the JSON and the table carry the
/// sector-correct figures, see docs/methods.md).
fn diskinfo_msec(dt: f64) -> f64 {
    dt * 100.0 / 2048.0
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
            dt * 1000.0 / p.ops_done() as f64
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
        PhaseId::Zone
        | PhaseId::ZoneWrite
        | PhaseId::SweepSync
        | PhaseId::SweepQueued
        | PhaseId::SweepWrite => String::new(),
        PhaseId::RandomRead => {
            let n = p.ops_done() as f64;
            format!(
                "\t{}{n:8.0} ops in  {dt:10.6} sec = {:8.0} IOPS\n",
                iops_label(p.op_bytes, sector_size),
                n / dt
            )
        }
        PhaseId::SyncWrite => {
            let n = p.ops_done() as f64;
            format!(
                "\t{} kbytes: {:8.1} usec/IO = {:8.1} Mbytes/s\n",
                printf_g(f64::from(p.op_bytes) / 1024.0, 4, 4),
                dt * 1_000_000.0 / n,
                f64::from(p.op_bytes) * n / dt / (1024.0 * 1024.0)
            )
        }
        PhaseId::OverheadMega => format!(
            "\ttime to read 10MB block    {dt:10.6} sec\t= {:8.3} msec/sector\n",
            diskinfo_msec(dt)
        ),
        PhaseId::OverheadSector => {
            let mut s = format!(
                "\ttime to read 20480 sectors {dt:10.6} sec\t= {:8.3} msec/sector\n",
                diskinfo_msec(dt)
            );
            if let Some(mega) = test.phase(PhaseId::OverheadMega) {
                let overhead = diskinfo_msec(dt - mega.elapsed_s());
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
pub fn render_test(test: &TestResult, info: &DeviceInfo) -> String {
    let sector_size = info.sector_size;
    let mut s = String::new();
    if !test.test.row().own_block && !test.phases.iter().any(PhaseResult::complete) {
        return s;
    }
    s.push_str(test_start(test.test));
    for (i, p) in test.phases.iter().enumerate() {
        if p.complete() {
            s.push_str(&phase_line(test, i, sector_size));
        }
    }
    if end_printed(test) {
        s.push_str(&test_end(test, info));
    }
    s
}

/// The whole text of one disk, as the live run printed it to standard output.
pub fn render_disk(disk: &DiskResult, verbose: bool) -> String {
    let Some(info) = &disk.info else {
        return String::new();
    };
    let mut s = if verbose {
        let mut s = verbose_header(info);
        for t in &disk.tests {
            s.push_str(&render_test(t, info));
        }
        s
    } else {
        one_line(info)
    };
    if let Some(smart) = &disk.smart {
        s.push_str(&super::smart::render_result(smart, &info.path));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printf_g_matches_c() {
        for (x, s) in [
            (0.5, " 0.5"),
            (1.0, "   1"),
            (4.0, "   4"),
            (1024.0, "1024"),
            (8192.0, "8192"),
            (0.0, "   0"),
            (12346.0, "1.235e+04"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (99999.0, "1e+05"),
        ] {
            assert_eq!(printf_g(x, 4, 4), s, "{x}");
        }
    }

    #[test]
    fn iops_labels_match_diskinfo() {
        assert_eq!(iops_label(512, 512), "sectorsize:  ");
        assert_eq!(iops_label(4096, 512), "4 kbytes:    ");
        assert_eq!(iops_label(32 << 10, 512), "32 kbytes:   ");
        assert_eq!(iops_label(128 << 10, 512), "128 kbytes:  ");
        assert_eq!(iops_label(1024 << 10, 512), "1024 kbytes: ");
    }

    #[test]
    fn zone_modes_read_as_diskinfo_prints_them() {
        assert_eq!(zone_text(ZoneMode::NotZoned), "Not_Zoned");
        assert_eq!(zone_text(ZoneMode::HostManaged), "Host_Managed");
        assert_eq!(zone_text(ZoneMode::Unknown(7)), "Unknown_zone_mode_7");
        let mut info = DeviceInfo::new("da0", "/dev/da0", crate::results::device::TargetKind::Disk);
        info.zone_mode = Some(ZoneMode::Unknown(9));
        assert!(
            verbose_header(&info).contains("\tUnknown_zone_mode_9\t# Zone Mode\n"),
            "{}",
            verbose_header(&info)
        );
    }

    #[test]
    fn left12_pads_and_never_cuts() {
        assert_eq!(left12("512"), "512         ");
        assert_eq!(left12("2000398934016"), "2000398934016");
    }
}
