//! Every real report in tests/data/smartctl/ parses to the values it holds.

use super::*;

/// What a report holds. ATA counters in the order 5, 196, 197, 198, 187, 188
/// (decoded total), 199; SCSI: grown defects and uncorrected read, write, verify;
/// NVMe: critical warning, media errors, error log entries, percentage used,
/// spare, spare threshold.
pub(super) struct Expect {
    pub(super) file: &'static str,
    protocol: Protocol,
    pub(super) passed: bool,
    exit: u32,
    temp: i64,
    hours: Option<u64>,
    ata: Option<[Option<u64>; 7]>,
    scsi: Option<[Option<u64>; 4]>,
    nvme: Option<(u8, u64, u64, u32, u32, u32)>,
}

const N: Option<u64> = None;

fn ata(file: &'static str, exit: u32, temp: i64, hours: u64, c: [Option<u64>; 7]) -> Expect {
    Expect {
        file,
        protocol: Protocol::Ata,
        passed: true,
        exit,
        temp,
        hours: Some(hours),
        ata: Some(c),
        scsi: None,
        nvme: None,
    }
}

fn scsi(file: &'static str, temp: i64, hours: Option<u64>, c: [Option<u64>; 4]) -> Expect {
    Expect {
        file,
        protocol: Protocol::Scsi,
        passed: true,
        exit: 0,
        temp,
        hours,
        ata: None,
        scsi: Some(c),
        nvme: None,
    }
}

fn nvme(
    file: &'static str,
    passed: bool,
    exit: u32,
    temp: i64,
    hours: u64,
    n: (u8, u64, u64, u32, u32, u32),
) -> Expect {
    Expect {
        file,
        protocol: Protocol::Nvme,
        passed,
        exit,
        temp,
        hours: Some(hours),
        ata: None,
        scsi: None,
        nvme: Some(n),
    }
}

/// What each real report holds, in file order: the first half, then
/// [`expectations_from_nvme`].
pub(super) fn expectations() -> Vec<Expect> {
    let s = Some;
    let mut v = vec![
        ata(
            "HGST_HUS724020ALE640_28.json",
            64,
            26,
            83425,
            [s(0), s(0), s(0), s(0), N, N, s(12)],
        ),
        scsi(
            "HITACHI_H109060SESUN600G_9.json",
            27,
            Some(982),
            [s(0), s(0), s(0), s(0)],
        ),
        scsi(
            "HP_73.4G_MAS3735NC_25.json",
            28,
            None,
            [s(0), s(0), s(0), N],
        ),
        ata(
            "Hitachi_HUA722020ALA330_29.json",
            0,
            28,
            78405,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
        nvme(
            "INTEL_SSDPE2KX080T8_1.json",
            true,
            0,
            29,
            12164,
            (0, 0, 0, 0, 100, 10),
        ),
        ata(
            "SAMSUNG_MZ7WD240HAFV-00003_21.json",
            0,
            27,
            84619,
            [s(0), N, N, N, s(0), N, s(0)],
        ),
        scsi(
            "SEAGATE_ST373453LC_27.json",
            34,
            Some(91691),
            [s(0), s(0), s(0), s(0)],
        ),
        ata(
            "ST3500418AS_11.json",
            0,
            32,
            44670,
            [s(1), N, s(0), s(0), s(0), s(1), s(0)],
        ),
        ata(
            "WDC_WD20EFRX-68EUZN0_17.json",
            0,
            34,
            47657,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
    ];
    v.extend(expectations_from_nvme());
    v
}

/// The second half of [`expectations`].
fn expectations_from_nvme() -> Vec<Expect> {
    let s = Some;
    vec![
        nvme(
            "nvme-null-INTEL_SSDPE2KX020T7-nvme6.json",
            true,
            0,
            19,
            49441,
            (0, 0, 0, 75, 99, 10),
        ),
        nvme(
            "nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json",
            false,
            8,
            40,
            18376,
            (16, 0, 0, 0, 100, 10),
        ),
        nvme(
            "nvme-null-Samsung_SSD_970_EVO_Plus_250GB-nvme0.json",
            true,
            0,
            35,
            3149,
            (0, 0, 22, 0, 100, 10),
        ),
        ata(
            "sat-Intel_S3520_Series_SSDs-INTEL_SSDSC2BB016T7-sdc.json",
            0,
            26,
            43494,
            [s(1), N, s(0), N, s(0), N, s(0)],
        ),
        ata(
            "sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json",
            0,
            24,
            4175,
            [s(0), s(0), s(0), s(0), s(0), s(29), s(24)],
        ),
        ata(
            "sat-Phison_Driven_SSDs-KINGSTON_SA400M8120G-sda.json",
            4,
            38,
            4994,
            [N, s(0), N, N, s(0), N, s(0)],
        ),
        ata(
            "sat-Toshiba_X300-TOSHIBA_HDWE160-sdb.json",
            0,
            25,
            47234,
            [s(0), s(0), s(0), s(0), N, N, s(0)],
        ),
        ata(
            "sat-null-ST18000NM000J-2TV103-sda.json",
            0,
            24,
            1136,
            [s(0), N, s(0), s(0), s(0), s(0), s(0)],
        ),
    ]
}

#[test]
fn every_report_parses_to_the_values_it_holds() {
    let table = expectations();
    let mut files: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json") && n != "seagate-farm-log-only.json")
        .collect();
    files.sort();
    let mut listed: Vec<String> = table.iter().map(|e| e.file.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "every report in the folder has a row, and only those"
    );
    for e in &table {
        let h = health(e.file);
        let f = e.file;
        let json = serde_json::to_string(&h).unwrap();
        assert_eq!(
            serde_json::from_str::<Health>(&json).unwrap(),
            h,
            "{f}: the health is plain data that survives JSON"
        );
        assert_eq!(h.protocol, Some(e.protocol), "{f}");
        assert_eq!(h.passed, Some(e.passed), "{f}");
        assert_eq!(h.exit_status.map(|x| x.0), Some(e.exit), "{f}");
        assert_eq!(h.temperature_c, Some(e.temp), "{f}");
        assert_eq!(h.power_on_hours, e.hours, "{f}");
        assert_eq!(
            h.temperature_max_c, None,
            "{f}: no SCT status in these reports"
        );
        assert_eq!(
            h.last_self_test, None,
            "{f}: no self-test log in these reports"
        );
        match (&h.ata, e.ata) {
            (Some(a), Some(c)) => assert_eq!(
                [
                    a.reallocated,
                    a.reallocation_events,
                    a.pending,
                    a.offline_uncorrectable,
                    a.reported_uncorrectable,
                    a.command_timeouts.map(|t| t.total),
                    a.udma_crc_errors
                ],
                c,
                "{f}"
            ),
            (None, None) => {}
            (a, c) => panic!("{f}: ATA counters {a:?}, expected {c:?}"),
        }
        match (&h.scsi, e.scsi) {
            (Some(s), Some(c)) => assert_eq!(
                [
                    s.grown_defects,
                    s.read_uncorrected,
                    s.write_uncorrected,
                    s.verify_uncorrected
                ],
                c,
                "{f}"
            ),
            (None, None) => {}
            (s, c) => panic!("{f}: SCSI counters {s:?}, expected {c:?}"),
        }
        match (&h.nvme, e.nvme) {
            (Some(n), Some((cw, media, entries, used, spare, thresh))) => {
                assert_eq!(n.critical_warning, Some(cw), "{f}");
                assert_eq!(n.media_errors, Some(media), "{f}");
                assert_eq!(n.error_log_entries, Some(entries), "{f}");
                assert_eq!(n.percentage_used, Some(used), "{f}");
                assert_eq!(n.available_spare, Some(spare), "{f}");
                assert_eq!(n.available_spare_threshold, Some(thresh), "{f}");
            }
            (None, None) => {}
            (n, c) => panic!("{f}: NVMe health {n:?}, expected {c:?}"),
        }
    }
}

#[test]
fn packed_and_named_values_decode() {
    // Seagate 188: raw 1 is three 16-bit words 0 0 1 (smartctl -v 188,raw16).
    let st = health("ST3500418AS_11.json");
    let t = st.ata.unwrap().command_timeouts.unwrap();
    assert_eq!((t.total, t.over_5s, t.over_7_5s), (1, 0, 0));
    assert_eq!(st.model.as_deref(), Some("ST3500418AS"));
    let micron =
        health("sat-Micron_5100_Pro___52x0___5300_SSDs-Micron_5300_MTFDDAK1T9TDS-sda.json");
    let t = micron.ata.unwrap().command_timeouts.unwrap();
    assert_eq!((t.total, t.over_5s, t.over_7_5s), (29, 0, 0));
    let samsung = health("nvme-null-SAMSUNG_MZWLL3T2HAJQ-00005-nvme0.json");
    assert_eq!(
        samsung.nvme.unwrap().warnings,
        [NvmeWarning::VolatileBackupFailed]
    );
    let hgst = health("HGST_HUS724020ALE640_28.json");
    assert_eq!(hgst.ata_error_log_count, Some(12));
    assert!(health("SEAGATE_ST373453LC_27.json").smart_disabled);
    assert_eq!(
        health("HP_73.4G_MAS3735NC_25.json").model.as_deref(),
        Some("HP 73.4G MAS3735NC")
    );
}
