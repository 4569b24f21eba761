//! Whether an ATA host-write total can be what the drive wrote in its power-on
//! hours. A drive smartctl's database does not know has attribute 241 under its
//! default name, Total_LBAs_Written, though SSD families count it in GiB, GB or
//! 32 MiB (drivedb.h names it Host_Writes_GiB, Lifetime_Writes_GiB,
//! Host_Writes_32MiB... in some fifty SSD families, and in no hard disk's): a
//! GiB count read as LBAs is 2^21 times too small and makes a used drive look
//! new. Such a total, and one that cannot fit the hours, is shown as unknown
//! with its raw figure ([`UnknownWrites`]), never as bytes. docs/smart.md gives
//! the rules.

use super::model::{AtaAttribute, Report};
use crate::results::health::UnknownWrites;

/// SATA's fastest link, bits a second (SATA 3.x: 6.0 Gb/s), when the report
/// does not give the drive's own (`interface_speed.max`).
pub const SATA_MAX_BITS_PER_S: u64 = 6_000_000_000;

/// The bytes a SATA link carries an hour at most at `bits_per_s`: 8b/10b
/// encoding sends 10 bits a byte (SATA 3.x: 600 MB/s, 2.16 TB an hour).
fn line_bytes_per_hour(bits_per_s: u64) -> u64 {
    (bits_per_s / 10).saturating_mul(3600)
}

/// The link's top speed as the report gives it, else SATA 3's; None when the
/// report's figures overflow (then no ceiling can be told).
fn link_bits_per_s(r: &Report) -> Option<u64> {
    let given = r
        .interface_speed
        .as_ref()
        .and_then(|s| s.max.as_ref())
        .and_then(|m| Some((m.units_per_second?, m.bits_per_unit?)));
    match given {
        Some((units, bits)) => match units.checked_mul(bits) {
            Some(0) => Some(SATA_MAX_BITS_PER_S),
            product => product,
        },
        None => Some(SATA_MAX_BITS_PER_S),
    }
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
/// they are not known. Above what the link carries in the drive's power-on
/// hours (plus the one under way) it is no count of bytes whatever the unit.
/// Where the unit is in doubt ([`unit_in_doubt`]) any raw total but 0 is
/// unknown, whatever the hours: they are reset by resellers, so no count of
/// hours tells LBAs from GiB. A raw 0 is 0 in any unit.
pub(super) fn bytes_written(
    r: &Report,
    a: &AtaAttribute,
    raw: u64,
    unit: u64,
) -> Result<u64, UnknownWrites> {
    let bytes = raw.saturating_mul(unit);
    let unknown = |why: String| UnknownWrites {
        source: format!("ATA {} {}", a.id, a.name),
        raw,
        why,
    };
    let hours = r.power_on_time.as_ref().and_then(|p| p.hours);
    let per_hour = link_bits_per_s(r).map(line_bytes_per_hour);
    if let (Some(hours), Some(per_hour)) = (hours, per_hour) {
        let most = per_hour.saturating_mul(hours.saturating_add(1));
        if bytes > most {
            return Err(unknown(format!(
                "{bytes} bytes ({raw} × {unit}) is more than the link could carry in {hours} power-on hours ({most} bytes at {} MB/s)",
                per_hour / 3600 / 1_000_000
            )));
        }
    }
    if raw > 0 && unit_in_doubt(r, a) {
        return Err(unknown(format!(
            "its unit is not known: smartctl's drive database does not know this drive, and SSD families count 241 in GiB, GB or 32 MiB as well as in LBAs ({bytes} bytes as {unit}-byte LBAs, {raw} GiB as GiB)"
        )));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smart::model::{InterfaceSpeed, LinkSpeed, PowerOnTime, RawValue};

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
    fn a_total_in_a_unit_in_doubt_is_unknown_whatever_the_hours() {
        // An SSD the database does not know: 398 (GiB) in 4994 hours, and 20000
        // (20 TiB as GiB) in 5 hours after a reseller reset them, are unknown.
        for (hours, raw) in [(4994, 398), (5, 20_000), (0, 183_631_411)] {
            let e = bytes_written(&report(hours, false, 0), &lbas(raw), raw, 512).unwrap_err();
            assert_eq!(
                (e.raw, e.source.as_str()),
                (raw, "ATA 241 Total_LBAs_Written")
            );
            assert!(
                e.why
                    .starts_with("its unit is not known: smartctl's drive database"),
                "{}",
                e.why
            );
        }
        let e = bytes_written(&report(5, false, 0), &lbas(20_000), 20_000, 512).unwrap_err();
        assert!(
            e.why
                .ends_with("(10240000 bytes as 512-byte LBAs, 20000 GiB as GiB)"),
            "{}",
            e.why
        );
        // So without hours; 0 is 0 in any unit; a hard disk's and a known
        // drive's LBAs stand.
        let no_hours = Report {
            in_smartctl_database: Some(false),
            ..Default::default()
        };
        assert!(bytes_written(&no_hours, &lbas(398), 398, 512).is_err());
        assert_eq!(bytes_written(&report(5, false, 0), &lbas(0), 0, 512), Ok(0));
        assert_eq!(
            bytes_written(&report(4994, false, 7200), &lbas(398), 398, 512),
            Ok(203_776)
        );
        assert_eq!(
            bytes_written(&report(4994, true, 0), &lbas(398), 398, 512),
            Ok(203_776)
        );
        // More than 6 Gb/s carries in 10 hours (23.8 TB), whatever the unit.
        let e = bytes_written(&report(10, true, 0), &lbas(0), 50_000, 1 << 30).unwrap_err();
        assert!(e.why.contains("more than the link could carry in 10 power-on hours (23760000000000 bytes at 600 MB/s)"), "{}", e.why);
    }

    #[test]
    fn figures_that_overflow_give_no_bound_and_no_panic() {
        // u64::MAX hours: no `hours + 1` overflow; the link's bound saturates.
        let known = report(u64::MAX, true, 0);
        assert_eq!(
            bytes_written(&known, &lbas(0), 12_736, 32 << 20),
            Ok(12_736 * (32 << 20))
        );
        let doubt = report(u64::MAX, false, 0);
        assert!(bytes_written(&doubt, &lbas(398), 398, 512).is_err());
        // A link speed whose product overflows (10^11 × 10^9 bits): no ceiling.
        let mut fast = report(10, true, 0);
        fast.interface_speed = Some(InterfaceSpeed {
            max: Some(LinkSpeed {
                units_per_second: Some(100_000_000_000),
                bits_per_unit: Some(1_000_000_000),
            }),
        });
        assert_eq!(link_bits_per_s(&fast), None);
        assert_eq!(
            bytes_written(&fast, &lbas(0), 50_000, 1 << 30),
            Ok(50_000 << 30)
        );
        // Hours × link × GiB beyond u128 (3×10^17 hours): no floor is taken.
        let long = report(300_000_000_000_000_000, true, 0);
        assert_eq!(
            bytes_written(&long, &lbas(0), 12_736, 1 << 30),
            Ok(12_736 << 30)
        );
        // A product that fits but whose bytes an hour do not: saturated.
        assert_eq!(line_bytes_per_hour(u64::MAX), u64::MAX);
    }
}
