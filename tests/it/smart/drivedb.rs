//! Issue 42's rows: SMART decoded as smartmontools' drivedb means it (wear,
//! written totals, CRC counts, values of another type).

use super::blind_spots::BlindSpot;
use super::blind_spots::SAYS_HEALTHY;
use super::blind_spots::SAYS_UNJUDGED;
use super::blind_spots::check;
use super::blind_spots::row;
use super::*;

/// Issue 42's rows: wear where drivedb keeps it, written totals that cannot fit
/// the hours, huge CRC counts, `-i -H` reports, raw values that are not counts
/// and power-on hours of another type (synthetic/README.md names each report's
/// origin and change).
fn drivedb_rows() -> Vec<BlindSpot> {
    const PHISON: &str = "synthetic/KINGSTON_SA400M8120G-231-life-left-";
    const SM: &str = "synthetic/ADATA_SU650-169-life-left-";
    let at = |base: &str, left: &str| format!("{base}{left}.json");
    vec![
        row(
            "Phison 231 raw 30: 70% used",
            &at(PHISON, "30"),
            &[],
            0,
            &[
                "\t70%         \t# of rated life used (ATA 231 SSD_Life_Left (raw value))\n",
                SAYS_HEALTHY,
            ],
            &["warning: 70%", "\t0%  "],
        ),
        row(
            "Phison 231 raw 5: a used drive is warned of",
            &at(PHISON, "5"),
            &[],
            0,
            &[
                "warning: 95% of the rated life used (ATA 231 SSD_Life_Left (raw value)): 80% or more used, plan its replacement\n",
            ],
            &[],
        ),
        row(
            "Phison 231 raw 5 fails --new on its wear",
            &at(PHISON, "5"),
            &["--new"],
            3,
            &[
                "FAIL: 95% of the rated life used (ATA 231 SSD_Life_Left (raw value)) on a drive given as new\n",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "the real Phison report: raw 98, 2% used",
            "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
            &[],
            0,
            &["\t2%          \t# of rated life used (ATA 231 SSD_Life_Left (raw value))\n"],
            &[],
        ),
        row(
            "Silicon Motion 169 raw 30: 70% used",
            &at(SM, "30"),
            &[],
            0,
            &[
                "\t70%         \t# of rated life used (ATA 169 Remaining_Lifetime_Perc (raw value))\n",
            ],
            &["warning: 70%"],
        ),
        row(
            "Silicon Motion 169 raw 5 fails --new and warns a used drive",
            &at(SM, "5"),
            &["--new"],
            3,
            &[
                "FAIL: 95% of the rated life used (ATA 169 Remaining_Lifetime_Perc (raw value)) on a drive given as new\n",
            ],
            &[],
        ),
        row(
            "Silicon Motion 169 raw 5 warns a used drive",
            &at(SM, "5"),
            &[],
            0,
            &["warning: 95% of the rated life used (ATA 169 Remaining_Lifetime_Perc (raw value))"],
            &[],
        ),
    ]
}

/// Issue 42's rows on written totals, CRC counts and `-i -H` reports.
fn writes_crc_and_counter_rows() -> Vec<BlindSpot> {
    vec![
        row(
            "241 Total_LBAs_Written of a drive drivedb does not know: unknown",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241.json",
            &[],
            0,
            &[
                "\tunknown     \t# GiB written by the host (ATA 241 Total_LBAs_Written: raw 398, unit not known or too large for the hours)\n",
                "note: host writes unknown: ATA 241 Total_LBAs_Written has a raw written total of 398, and its unit is not known: smartctl's drive database does not know this drive",
            ],
            &["# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
        ),
        row(
            "an unknown written total cannot show a drive new",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241.json",
            &["--new"],
            3,
            &[
                "FAIL: --new cannot judge whether the drive is new: its host writes are unknown (ATA 241 Total_LBAs_Written raw 398",
            ],
            &[],
        ),
        row(
            "20000 in 241 after 5 hours (a reseller's reset): unknown, not 0 GiB",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241-20000-in-5-hours.json",
            &[],
            0,
            &[
                "\tunknown     \t# GiB written by the host (ATA 241 Total_LBAs_Written: raw 20000, unit not known or too large for the hours)\n",
                "has a raw written total of 20000, and its unit is not known",
                "(10240000 bytes as 512-byte LBAs, 20000 GiB as GiB)",
            ],
            &["# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
        ),
        row(
            "20000 in 241 after 5 hours cannot show a drive new",
            "synthetic/WDC_WDS400T1R0A-not-in-database-241-20000-in-5-hours.json",
            &["--new"],
            1,
            &[
                "FAIL: --new cannot judge whether the drive is new: its host writes are unknown (ATA 241 Total_LBAs_Written raw 20000: 20000 LBAs or 20000 GiB, 64 GiB allowed)",
            ],
            &[SAYS_HEALTHY],
        ),
        row(
            "2^64 - 1 power-on hours: no overflow, the 32 MiB count stands",
            "synthetic/ADATA_SU650-hours-2e64-1.json",
            &[],
            0,
            &["# GiB written by the host (ATA 241 Host_Writes_32MiB)\n"],
            &["unknown", "panicked"],
        ),
        row(
            "a link speed beyond 64 bits: no ceiling, the count stands",
            "synthetic/ADATA_SU650-link-speed-overflow.json",
            &[],
            0,
            &["# GiB written by the host (ATA 241 Host_Writes_32MiB)\n"],
            &["unknown", "panicked"],
        ),
        row(
            "a hard disk drivedb does not know keeps its LBA count",
            "sat-null-ST18000NM000J-2TV103-sda.json",
            &[],
            0,
            &["\t87          \t# GiB written by the host (ATA 241 Total_LBAs_Written)\n"],
            &["unknown"],
        ),
        row(
            "two million CRC errors are named",
            "synthetic/Micron_5300-199-crc-2000000.json",
            &[],
            0,
            &[
                "warning: 2000000 UDMA CRC errors (ATA 199): the cable, backplane or controller was bad for a long time, and a count this size takes heavy traffic: the drive may have been used hard",
            ],
            &[],
        ),
        row(
            "-i -H: no counters were read",
            "synthetic/KINGSTON_SA400M8120G-info-health-only.json",
            &[],
            0,
            &[
                "no counters were read, the verdict rests on the self-assessment alone",
                SAYS_HEALTHY,
            ],
            &[],
        ),
        row(
            "-i -H under --new: the hours cannot be judged",
            "synthetic/KINGSTON_SA400M8120G-info-health-only.json",
            &["--new"],
            1,
            &[
                "FAIL: --new cannot judge whether the drive is new: the report holds no power-on hours (power_on_time.hours, the NVMe log's power_on_hours, or Seagate FARM's poh): no counters were read",
                SAYS_UNJUDGED,
            ],
            &[SAYS_HEALTHY],
        ),
    ]
}

/// Issue 42's rows on values of another type.
fn odd_value_rows() -> Vec<BlindSpot> {
    const UNREAD: &str = "note: ATA attribute 197 Current_Pending_Sector: raw value ";
    vec![
        row(
            "a raw value that is a string",
            "synthetic/ST3500418AS_11-pending-raw-string.json",
            &[],
            1,
            &[
                "note: ATA attribute 197 Current_Pending_Sector: raw value the string \"8\" (smartctl's text \"8\") is not a count",
                "the report cannot be judged: ata_smart_attributes.table[16].raw.value (attribute 197) is the string \"8\", not a count",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "a raw value beyond 64 bits (2^70)",
            "synthetic/ST3500418AS_11-pending-raw-2e70.json",
            &[],
            1,
            &[
                UNREAD,
                "raw value the number 1.1805916207174113e+21, beyond 64 bits (smartctl's text \"1180591620717411303424\")",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "a raw value that is a fraction",
            "synthetic/ST3500418AS_11-pending-raw-fraction.json",
            &[],
            1,
            &[
                UNREAD,
                "raw value the number 2.5, a fraction (smartctl's text \"2.5\")",
                SAYS_UNJUDGED,
            ],
            &["missing or null"],
        ),
        row(
            "power-on hours given as a string: a note",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-string.json",
            &[],
            0,
            &[
                "note: smartctl's field power_on_time.hours (the string \"47657\") has an unexpected type: left out, the rest of the report read\n",
                SAYS_HEALTHY,
            ],
            &["# power-on hours"],
        ),
        row(
            "power-on hours given as a string, under --new",
            "synthetic/WDC_WD20EFRX-68EUZN0_17-hours-string.json",
            &["--new"],
            3,
            &[
                "FAIL: --new cannot judge whether the drive is new: the report holds no power-on hours",
            ],
            &[],
        ),
    ]
}

#[test]
fn smart_is_decoded_as_drivedb_means_it() {
    check(&drivedb_rows());
    check(&writes_crc_and_counter_rows());
    check(&odd_value_rows());
    // The figures behind the text.
    let u = health("synthetic/KINGSTON_SA400M8120G-231-life-left-30.json").usage;
    assert_eq!(
        (
            u.wear.len(),
            u.wear[0].used_percent,
            u.wear[0].source.as_str()
        ),
        (1, 70, "ATA 231 SSD_Life_Left (raw value)")
    );
    let u = health("synthetic/WDC_WDS400T1R0A-not-in-database-241.json").usage;
    assert_eq!(u.host_written_bytes, None);
    let w = u.host_writes_unknown.unwrap();
    assert_eq!(
        (w.raw, w.source.as_str()),
        (398, "ATA 241 Total_LBAs_Written")
    );
    // Health saved before these fields existed still loads.
    let old: Health = serde_json::from_str(
        r#"{"unreadable": [{"id": 197, "name": "Current_Pending_Sector", "raw": ""}], "usage": {"wear": []}}"#,
    )
    .unwrap();
    assert_eq!(
        (
            old.unreadable[0].held.as_deref(),
            old.usage.host_writes_unknown
        ),
        (None, None)
    );
}
