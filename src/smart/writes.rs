//! Whether an ATA host-write total can be what the drive wrote in its power-on
//! hours. A drive smartctl's database does not know has attribute 241 under its
//! default name, Total_LBAs_Written, though SSD families count it in GiB, GB or
//! 32 MiB (drivedb.h names it Host_Writes_GiB, Lifetime_Writes_GiB,
//! Host_Writes_32MiB... in some fifty SSD families, and in no hard disk's): a
//! GiB count read as LBAs is 2^21 times too small and makes a used drive look
//! new. A total that cannot fit the hours is shown as unknown with its raw
//! figure ([`UnknownWrites`]), never as bytes. docs/smart.md gives the bounds.

use super::model::{AtaAttribute, Report};
use crate::results::health::UnknownWrites;

/// SATA's fastest link, bits a second (SATA 3.x: 6.0 Gb/s), when the report
/// does not give the drive's own (`interface_speed.max`).
pub const SATA_MAX_BITS_PER_S: u64 = 6_000_000_000;

/// The bytes a SATA link carries an hour at most at `bits_per_s`: 8b/10b
/// encoding sends 10 bits a byte (SATA 3.x: 600 MB/s, 2.16 TB an hour).
fn line_bytes_per_hour(bits_per_s: u64) -> u64 {
    bits_per_s / 10 * 3600
}

/// The link's top speed as the report gives it, else SATA 3's.
fn link_bits_per_s(r: &Report) -> u64 {
    r.interface_speed
        .as_ref()
        .and_then(|s| s.max.as_ref())
        .and_then(|m| Some(m.units_per_second? * m.bits_per_unit?))
        .filter(|b| *b > 0)
        .unwrap_or(SATA_MAX_BITS_PER_S)
}

/// Whether the attribute's unit is in doubt: 241 under its default name on a
/// drive the database does not know (`in_smartctl_database` false, or no
/// family matched) that is not a hard disk (`rotation_rate` 0 or not given).
fn unit_in_doubt(r: &Report, a: &AtaAttribute) -> bool {
    let known = r.in_smartctl_database == Some(true) || r.model_family.is_some();
    let hdd = r.rotation_rate.is_some_and(|rpm| rpm > 0);
    a.name == "Total_LBAs_Written" && !known && !hdd
}

/// `raw` units of `unit` bytes from attribute `a`: the bytes written, or why
/// they cannot fit the drive's power-on hours. Above what the link carries in
/// those hours (plus the one under way) it is no count of bytes whatever the
/// unit; where the unit is in doubt ([`unit_in_doubt`]), below the most a GiB
/// count read as LBAs could show in them (the link's bytes an hour × the
/// block size / 1 GiB: 1.03 MB an hour at 6 Gb/s and 512-byte blocks) it may be
/// either. A raw 0 is 0 in any unit.
pub(super) fn bytes_written(
    r: &Report,
    a: &AtaAttribute,
    raw: u64,
    unit: u64,
) -> Result<u64, UnknownWrites> {
    let bytes = raw.saturating_mul(unit);
    let Some(hours) = r.power_on_time.as_ref().and_then(|p| p.hours) else {
        return Ok(bytes);
    };
    let per_hour = line_bytes_per_hour(link_bits_per_s(r));
    let unknown = |why: String| UnknownWrites {
        source: format!("ATA {} {}", a.id, a.name),
        raw,
        why,
    };
    let most = per_hour.saturating_mul(hours + 1);
    if bytes > most {
        return Err(unknown(format!(
            "{bytes} bytes ({raw} × {unit}) is more than the link could carry in {hours} power-on hours ({most} bytes at {} MB/s)",
            per_hour / 3600 / 1_000_000
        )));
    }
    let floor = u128::from(per_hour) * u128::from(unit) * u128::from(hours) / (1 << 30);
    if raw > 0 && unit_in_doubt(r, a) && u128::from(bytes) < floor {
        return Err(unknown(format!(
            "as {unit}-byte LBAs it is {bytes} bytes in {hours} power-on hours, less than a count of GiB read as LBAs could show ({floor} bytes); smartctl's drive database does not know this drive, and SSD families count 241 in GiB or 32 MiB as well: the unit is unknown"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smart::model::{PowerOnTime, RawValue};

    fn report(hours: u64, known: bool, rpm: u64) -> Report {
        Report {
            power_on_time: Some(PowerOnTime { hours: Some(hours) }),
            in_smartctl_database: Some(known),
            rotation_rate: Some(rpm),
            ..Default::default()
        }
    }

    fn lbas(raw: u64) -> AtaAttribute {
        AtaAttribute {
            id: 241,
            name: "Total_LBAs_Written".into(),
            raw: RawValue {
                value: Some(raw),
                string: raw.to_string(),
                held: None,
            },
            ..Default::default()
        }
    }

    #[test]
    fn a_total_that_cannot_fit_the_hours_is_unknown() {
        // An SSD the database does not know: 398 counted in GiB, read as LBAs,
        // is 203776 bytes in 4994 hours (the floor: 5.1 GB).
        let ssd = report(4994, false, 0);
        let e = bytes_written(&ssd, &lbas(398), 398, 512).unwrap_err();
        assert_eq!(
            (e.raw, e.source.as_str()),
            (398, "ATA 241 Total_LBAs_Written")
        );
        assert!(
            e.why
                .starts_with("as 512-byte LBAs it is 203776 bytes in 4994 power-on hours"),
            "{}",
            e.why
        );
        // A real LBA count (Seagate's 183631411 in 1136 h: 94 GB) stands; so
        // does the same 398 on a hard disk, on a drive the database knows, and 0.
        assert_eq!(bytes_written(&ssd, &lbas(1), 0, 512), Ok(0));
        assert!(bytes_written(&report(1136, false, 0), &lbas(0), 183_631_411, 512).is_ok());
        assert!(bytes_written(&report(4994, false, 7200), &lbas(0), 398, 512).is_ok());
        assert!(bytes_written(&report(4994, true, 0), &lbas(0), 398, 512).is_ok());
        // More than 6 Gb/s carries in 10 hours (23.8 TB), whatever the unit.
        let e = bytes_written(&report(10, true, 0), &lbas(0), 50_000, 1 << 30).unwrap_err();
        assert!(e.why.contains("more than the link could carry in 10 power-on hours (23760000000000 bytes at 600 MB/s)"), "{}", e.why);
    }
}
