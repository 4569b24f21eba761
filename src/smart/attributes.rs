//! ATA attributes by meaning: an attribute is identified by its number *and* by
//! the name smartctl gives it (the drive database's name for that model, in the
//! JSON's `name`), because families reuse numbers for other things (Indilinx
//! Barefoot 3 and OCZ: 198 Host_Reads_GiB, 199 Host_Writes_GiB; Phison: 197
//! Not_In_Use). Its raw value is decoded by the format smartctl printed it in
//! (`raw.string`, which applies the database's `-v ID,FORMAT`). docs/smart.md
//! lists the names and formats with their sources (smartmontools' drivedb.h).

use super::model::AtaAttribute;

/// What an attribute counts, as seekprobe judges it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meaning {
    /// Reallocated sectors or retired blocks (5).
    Reallocated,
    /// Reallocation events (196).
    ReallocationEvents,
    /// Sectors pending reallocation: unreadable now (197).
    Pending,
    /// Sectors the offline scan found uncorrectable (198).
    OfflineUncorrectable,
    /// Errors ECC could not recover (187).
    ReportedUncorrectable,
    /// Command timeouts (188).
    CommandTimeouts,
    /// Interface CRC errors (199).
    UdmaCrc,
    /// Head load/unload cycles (193, 225).
    LoadCycles,
    /// Data written by the host, the raw value in units of this many bytes (0:
    /// logical blocks, whose size the report gives).
    HostWrites(u64),
    /// Wear, as the vendor reports it.
    Wear(WearScale),
}

/// Where a vendor puts wear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WearScale {
    /// The normalised value is the life left, 100 new (Intel 233
    /// Media_Wearout_Indicator, Samsung 177 Wear_Leveling_Count, 231
    /// SSD_Life_Left, Micron 202 Percent_Lifetime_Remain).
    NormalizedLeft,
    /// The raw value is the percent of the rated life used (202
    /// Perc_Rated_Life_Used).
    RawUsed,
    /// The raw value is the percent of the life left, where drivedb decodes a
    /// family's life attribute as `raw48` ([`RAW_LIFE_LEFT`]: Phison's 231
    /// SSD_Life_Left, Silicon Motion's 169 Remaining_Lifetime_Perc).
    RawLeft,
}

/// The life attributes whose raw value is the percent of life left, by the
/// drive database family smartctl matched (`model_family`): smartmontools'
/// drivedb.h (7.3, r5319) gives each `-v ID,raw48,NAME` in that family's entry,
/// so smartctl prints the raw value as the one number the drive keeps there,
/// and the normalised value may stay at 100 while it falls.
pub const RAW_LIFE_LEFT: &[(&str, u8, &str)] = &[
    ("Phison Driven SSDs", 231, "SSD_Life_Left"),
    ("Phison Driven OEM SSDs", 231, "SSD_Life_Left"),
    ("Silicon Motion based SSDs", 169, "Remaining_Lifetime_Perc"),
    (
        "Silicon Motion based OEM SSDs",
        169,
        "Remaining_Lifetime_Perc",
    ),
];

/// The names each health counter goes by in drivedb.h (smartmontools 7.3) at its
/// number; any other name at that number is another family's attribute.
const COUNTER_NAMES: &[(u8, Meaning, &[&str])] = &[
    (
        5,
        Meaning::Reallocated,
        &[
            "Reallocated_Sector_Ct",
            "Retired_Block_Count",
            "Reallocated_Block_Count",
            "Reallocate_NAND_Blk_Cnt",
            "Runtime_Bad_Block",
            "New_Bad_Blk_Cnt",
            "Later_Bad_Block",
        ],
    ),
    (
        196,
        Meaning::ReallocationEvents,
        &["Reallocated_Event_Count"],
    ),
    (
        197,
        Meaning::Pending,
        &[
            "Current_Pending_Sector",
            "Pending_Sector_Count",
            "Current_Pending_ECC_Cnt",
            "Total_Pending_Sectors",
        ],
    ),
    (
        198,
        Meaning::OfflineUncorrectable,
        &[
            "Offline_Uncorrectable",
            "Uncorrectable_Sector_Ct",
            "Offline_Scan_UNC_SectCt",
            "Total_Offl_Uncorrectabl",
        ],
    ),
    (
        187,
        Meaning::ReportedUncorrectable,
        &[
            "Reported_Uncorrect",
            "Uncorrectable_Error_Cnt",
            "Uncorrectable_ECC_Ct",
            "Reported_UE_Counts",
        ],
    ),
    (
        188,
        Meaning::CommandTimeouts,
        &["Command_Timeout", "Command_Timeouts"],
    ),
    (
        199,
        Meaning::UdmaCrc,
        &[
            "UDMA_CRC_Error_Count",
            "CRC_Error_Count",
            "SATA_CRC_Error_Count",
            "SATA_CRC_Error",
        ],
    ),
];

/// Host-write attributes by name, with the bytes of one raw unit (0: logical
/// blocks). "GB" names are taken as 10^9 bytes.
const HOST_WRITES: &[(&str, u64)] = &[
    ("Total_LBAs_Written", 0),
    ("Host_Writes_32MiB", 32 << 20),
    ("Host_Writes_GiB", 1 << 30),
    ("Lifetime_Writes_GiB", 1 << 30),
    ("Total_Writes_GiB", 1 << 30),
    ("Host_Writes_MiB", 1 << 20),
    ("Lifetime_Wts_Frm_Hst_GB", 1_000_000_000),
    ("Total_Writes_GB", 1_000_000_000),
];

/// Life and wear attributes by name, as smartmontools' drive database
/// (drivedb.h, `-v ID,FORMAT,NAME`) names them, with where the vendor puts
/// wear: a "life left" or "remaining" attribute counts down in its normalised
/// value (drivedb.h on Micron's 202 Percent_Lifetime_Remain: "norm =
/// max(100-raw,0); raw = percent_lifetime_used"), a "life used" one counts up
/// in its raw value (Perc_Rated_Life_Used, Percent_Lifetime_Used,
/// Percent_Life_Used, Drive_Life_Used%, DriveLife_Used%). Samsung's 177 and
/// Micron's 173 Wear_Leveling_Count count erase cycles in the raw value and
/// life left in the normalised one.
const WEAR: &[(&str, WearScale)] = &[
    ("Wear_Leveling_Count", WearScale::NormalizedLeft),
    ("Media_Wearout_Indicator", WearScale::NormalizedLeft),
    ("SSD_Life_Left", WearScale::NormalizedLeft),
    ("SSD_Life_Left_Perc", WearScale::NormalizedLeft),
    ("Percent_Lifetime_Remain", WearScale::NormalizedLeft),
    ("Remaining_Lifetime_Perc", WearScale::NormalizedLeft),
    ("Percent_Life_Remaining", WearScale::NormalizedLeft),
    ("Perc_Rated_Life_Remain", WearScale::NormalizedLeft),
    ("PCT_Life_Remaining", WearScale::NormalizedLeft),
    ("Lifetime_Left", WearScale::NormalizedLeft),
    ("Lifetime_Remaining", WearScale::NormalizedLeft),
    ("Remaining_Life", WearScale::NormalizedLeft),
    ("Drive_Life_Remaining", WearScale::NormalizedLeft),
    ("Lifetime_Remaining%", WearScale::NormalizedLeft),
    ("Life_Remaining_Percent", WearScale::NormalizedLeft),
    ("SSD_Remaining_Life_Perc", WearScale::NormalizedLeft),
    ("Sys_Percent_Life_Remain", WearScale::NormalizedLeft),
    ("Perc_Rated_Life_Used", WearScale::RawUsed),
    ("Percent_Lifetime_Used", WearScale::RawUsed),
    ("Percent_Life_Used", WearScale::RawUsed),
    ("Drive_Life_Used%", WearScale::RawUsed),
    ("DriveLife_Used%", WearScale::RawUsed),
];

/// ATA attribute IDs of the health counters (reallocated, pending, uncorrectable, ...).
pub use super::structure::COUNTER_IDS;

/// What an attribute means, from its number and its name. A health counter's
/// number under another name (a family that reuses it) means nothing here.
pub fn identify(a: &AtaAttribute) -> Option<Meaning> {
    if let Some((_, m, names)) = COUNTER_NAMES.iter().find(|(id, _, _)| *id == a.id) {
        return names.contains(&a.name.as_str()).then_some(*m);
    }
    if a.name == "Load_Cycle_Count" {
        return Some(Meaning::LoadCycles);
    }
    if let Some((_, unit)) = HOST_WRITES.iter().find(|(n, _)| *n == a.name) {
        return Some(Meaning::HostWrites(*unit));
    }
    WEAR.iter()
        .find(|(n, _)| *n == a.name)
        .map(|(_, s)| Meaning::Wear(*s))
}

/// What an attribute means on a drive of the drive database family `family`
/// (`model_family`): a family's life attribute drivedb decodes as a raw
/// percentage ([`RAW_LIFE_LEFT`]) is read from its raw value; any other as
/// [`identify`] reads it.
pub fn identify_in(a: &AtaAttribute, family: Option<&str>) -> Option<Meaning> {
    let raw_left = RAW_LIFE_LEFT
        .iter()
        .any(|(f, id, name)| family == Some(*f) && a.id == *id && a.name == *name);
    if raw_left {
        return Some(Meaning::Wear(WearScale::RawLeft));
    }
    identify(a)
}

/// Whether the attribute holds a health counter's number under another
/// family's name (e.g. 198 Host_Reads_GiB): it is not judged.
pub fn reused(a: &AtaAttribute) -> bool {
    COUNTER_IDS.contains(&a.id) && identify(a).is_none()
}

/// How a raw value was printed (smartctl's `ata_format_attr_raw_value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawFormat {
    /// One number (raw48, raw56, raw64: the default).
    Plain(u64),
    /// `N (a b)`: raw16(raw16) and friends: N the count, details in brackets.
    WithDetail(u64),
    /// `a b c`: raw16, three 16-bit words, the high word first.
    Words([u64; 3]),
    /// `a/b`: raw24/raw32 (and raw24/raw24, raw16/raw16): a the error count in
    /// the high bits, b a total (e.g. SandForce's 198 "0/12345678").
    Ratio(u64, u64),
}

/// Read smartctl's text for a raw value; None when it is none of the formats.
pub fn raw_format(s: &str) -> Option<RawFormat> {
    let s = s.trim();
    let num = |w: &str| w.parse::<u64>().ok();
    if let Some((a, b)) = s.split_once('/')
        && !a.contains(' ')
        && !b.contains(' ')
    {
        return Some(RawFormat::Ratio(num(a)?, num(b)?));
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    match words.as_slice() {
        [one] => num(one).map(RawFormat::Plain),
        [first, rest @ ..] if rest.first().is_some_and(|r| r.starts_with('(')) => {
            num(first).map(RawFormat::WithDetail)
        }
        [a, b, c] => Some(RawFormat::Words([num(a)?, num(b)?, num(c)?])),
        _ => None,
    }
}

/// The count an attribute's raw value stands for, by its printed format: a
/// plain number; the N of `N (a b)`; the low word of `a b c`; the error count
/// (first number) of `a/b`. Otherwise the 48-bit raw value; None when the raw
/// value is missing, null or negative (never taken as 0).
pub fn count(a: &AtaAttribute) -> Option<u64> {
    // A missing, null or negative raw value: the attribute is left out, whatever
    // its text says.
    a.raw.value?;
    match raw_format(&a.raw.string) {
        Some(RawFormat::Plain(n) | RawFormat::WithDetail(n)) => Some(n),
        Some(RawFormat::Words([_, _, low])) => Some(low),
        Some(RawFormat::Ratio(errors, _)) => Some(errors),
        None if a.raw.string.trim().starts_with('-') => None,
        None => a.raw.value,
    }
}

/// The percent of rated life used, from a wear attribute: 100 less the
/// normalised value where the vendor puts life left there (a value above 100 is
/// not a percentage and says nothing); the raw value where it counts the
/// percent used; where the raw value is the percent left, the larger wear of
/// 100 less it and 100 less the normalised value (a raw value above 100 is no
/// percentage: the normalised value alone is read then).
pub fn wear_used(a: &AtaAttribute, scale: WearScale) -> Option<u64> {
    match scale {
        WearScale::NormalizedLeft => normalised_used(a),
        WearScale::RawUsed => count(a),
        WearScale::RawLeft => raw_left_used(a).max(normalised_used(a)),
    }
}

/// 100 less the normalised value, where it is a percentage.
fn normalised_used(a: &AtaAttribute) -> Option<u64> {
    a.value.filter(|v| *v <= 100).map(|v| 100 - u64::from(v))
}

/// 100 less the raw value, where it is a percentage.
fn raw_left_used(a: &AtaAttribute) -> Option<u64> {
    count(a).filter(|left| *left <= 100).map(|left| 100 - left)
}

/// Where [`wear_used`] read the figure, for its source's name: for a raw
/// percent left, the raw value unless the normalised value shows more wear.
pub fn wear_place(a: &AtaAttribute, scale: WearScale) -> &'static str {
    match scale {
        WearScale::RawUsed => "raw value",
        WearScale::RawLeft
            if raw_left_used(a).is_some() && raw_left_used(a) >= normalised_used(a) =>
        {
            "raw value"
        }
        WearScale::RawLeft if raw_left_used(a).is_some() => {
            "normalised value, more worn than the raw value"
        }
        _ => "normalised value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smart::model::RawValue;

    fn attr(id: u8, name: &str, value: u64, string: &str) -> AtaAttribute {
        AtaAttribute {
            id,
            name: name.into(),
            raw: RawValue {
                value: Some(value),
                string: string.into(),
                held: None,
            },
            ..Default::default()
        }
    }

    #[test]
    fn numbers_are_read_with_their_names() {
        let pending = attr(197, "Current_Pending_Sector", 8, "8");
        assert_eq!(identify(&pending), Some(Meaning::Pending));
        // Phison 197 Not_In_Use; Indilinx/OCZ 198 Host_Reads_GiB, 199 Host_Writes_GiB.
        for a in [
            attr(197, "Not_In_Use", 8, "8"),
            attr(198, "Host_Reads_GiB", 900, "900"),
            attr(199, "Host_Writes_GiB", 800, "800"),
        ] {
            assert_eq!(identify(&a), None, "{}", a.name);
            assert!(reused(&a));
        }
        assert_eq!(
            identify(&attr(241, "Host_Writes_32MiB", 1, "1")),
            Some(Meaning::HostWrites(32 << 20))
        );
        assert_eq!(
            identify(&attr(233, "Media_Wearout_Indicator", 0, "0")),
            Some(Meaning::Wear(WearScale::NormalizedLeft))
        );
    }

    #[test]
    fn every_raw_format_is_decoded() {
        // raw48
        assert_eq!(count(&attr(5, "", 1, "1")), Some(1));
        // raw16(raw16): "N (a b)"
        assert_eq!(count(&attr(5, "", 0x0002_0000_0003, "3 (2 0)")), Some(3));
        // raw16: "a b c", the low word last
        assert_eq!(count(&attr(197, "", 0x0001_0001_0005, "1 1 5")), Some(5));
        // raw24/raw32: SandForce 198 "0/12345678" is no error of 12345678.
        assert_eq!(count(&attr(198, "", 12_345_678, "0/12345678")), Some(0));
        assert_eq!(count(&attr(198, "", 0, "3/12345678")), Some(3));
        // Anything else: the raw value; negative: unreadable, never 0.
        assert_eq!(count(&attr(199, "", 7, "0x000000000007")), Some(7));
        assert_eq!(count(&attr(199, "", 7, "")), Some(7));
        let mut a = attr(197, "", 0, "-3");
        a.raw.value = None;
        assert_eq!(count(&a), None);
    }

    #[test]
    fn wear_is_read_where_the_vendor_puts_it() {
        let mut intel = attr(233, "Media_Wearout_Indicator", 0, "0");
        intel.value = Some(15);
        assert_eq!(wear_used(&intel, WearScale::NormalizedLeft), Some(85));
        intel.value = Some(200);
        assert_eq!(wear_used(&intel, WearScale::NormalizedLeft), None);
        let used = attr(202, "Perc_Rated_Life_Used", 3, "3");
        assert_eq!(wear_used(&used, WearScale::RawUsed), Some(3));
        // Phison's 231 and Silicon Motion's 169: the raw value is the life
        // left, unless the normalised value shows more wear.
        let mut phison = attr(231, "SSD_Life_Left", 30, "30");
        phison.value = Some(100);
        let family = Some("Phison Driven SSDs");
        assert_eq!(
            identify_in(&phison, family),
            Some(Meaning::Wear(WearScale::RawLeft))
        );
        assert_eq!(wear_used(&phison, WearScale::RawLeft), Some(70));
        assert_eq!(wear_place(&phison, WearScale::RawLeft), "raw value");
        // Elsewhere (SandForce's 231 is raw48 too) the normalised value.
        assert_eq!(
            identify_in(&phison, Some("SandForce Driven SSDs")),
            Some(Meaning::Wear(WearScale::NormalizedLeft))
        );
        let sm = attr(169, "Remaining_Lifetime_Perc", 5, "5");
        assert_eq!(
            identify_in(&sm, Some("Silicon Motion based SSDs")),
            Some(Meaning::Wear(WearScale::RawLeft))
        );
        // A raw value above 100 is no percentage: the normalised value.
        let odd = attr(231, "SSD_Life_Left", 4000, "4000");
        assert_eq!(wear_used(&odd, WearScale::RawLeft), None);
        phison.raw.value = Some(4000);
        phison.raw.string = "4000".into();
        phison.value = Some(90);
        assert_eq!(wear_used(&phison, WearScale::RawLeft), Some(10));
        assert_eq!(wear_place(&phison, WearScale::RawLeft), "normalised value");
        // Raw 100 left but normalised 5: the more worn reading, 95% used.
        phison.raw.value = Some(100);
        phison.raw.string = "100".into();
        phison.value = Some(5);
        assert_eq!(wear_used(&phison, WearScale::RawLeft), Some(95));
        assert_eq!(
            wear_place(&phison, WearScale::RawLeft),
            "normalised value, more worn than the raw value"
        );
        // Raw 30 left, normalised 90: the raw value's 70%.
        phison.raw.value = Some(30);
        phison.raw.string = "30".into();
        phison.value = Some(90);
        assert_eq!(wear_used(&phison, WearScale::RawLeft), Some(70));
        assert_eq!(wear_place(&phison, WearScale::RawLeft), "raw value");
    }
}
