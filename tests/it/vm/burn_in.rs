//! A burn-in of four flash drives on two controllers (two SATA on AHCI, two SAS
//! behind an LSI SAS1068), with udev running, then the pool plan from its saved
//! run. One boot.

use super::disks::{FLASH, Sas, Sata, by_wwn};
use super::machine::{Booted, Machine};
use super::{disk, shared};
use crate::helpers::vm_smartctl_tests;
use serde_json::{Value, json};
use std::sync::OnceLock;

/// The flash drives of the burn-in: two models, two drives each, one model a
/// controller (QEMU acknowledges flushes at the host's page-cache speed: a
/// rotating disk would rightly fail the flush check).
const SATA_SSD: [Sata; 2] = [
    Sata {
        port: 0,
        serial: "SSDA0001",
        model: "SEEKPROBE-SATA-SSD",
        wwn: 0x5001_2345_0000_0a01,
        rpm: FLASH,
    },
    Sata {
        port: 1,
        serial: "SSDA0002",
        model: "SEEKPROBE-SATA-SSD",
        wwn: 0x5001_2345_0000_0a02,
        rpm: FLASH,
    },
];
const SAS_SSD: [Sas; 2] = [
    Sas {
        vendor: "SEEKPRBE",
        product: "SAS-SSD",
        serial: "SSDB0001",
        wwn: 0x5001_2345_0000_0b01,
        rpm: FLASH,
    },
    Sas {
        vendor: "SEEKPRBE",
        product: "SAS-SSD",
        serial: "SSDB0002",
        wwn: 0x5001_2345_0000_0b02,
        rpm: FLASH,
    },
];
/// Each drive's size: small, for TCG runs the guest's every instruction in
/// software, and a burn-in writes and reads its drives whole.
const DISK_BYTES: u64 = 16 << 20;

fn machine() -> Machine {
    let mut m = Machine::new();
    m.device("ahci,id=sata").device("mptsas1068,id=sas");
    for (i, d) in SATA_SSD.iter().enumerate() {
        m.disk(&format!("sata{i}"), DISK_BYTES, &d.props());
    }
    for (i, d) in SAS_SSD.iter().enumerate() {
        m.disk(&format!("sas{i}"), DISK_BYTES, &d.props());
    }
    let names: Vec<String> = (SATA_SSD.iter().map(|d| d.wwn))
        .chain(SAS_SSD.iter().map(|d| d.wwn))
        .map(by_wwn)
        .collect();
    m.step("udev", "start_udev && ls -l /dev/disk/by-id")
        .step(
            "burn_in",
            &format!(
                "$SEEKPROBE --burn-in -w --yes --qualify --parallel --path-check --no-history --json-file $OUT/burn_in.json {}",
                names.join(" ")
            ),
        )
        .step(
            "plan",
            "$SEEKPROBE plan --layout mirror --with-warnings --json $OUT/burn_in.json",
        );
    m
}

fn booted() -> &'static Booted {
    static BOOT: OnceLock<Result<Booted, String>> = OnceLock::new();
    shared(&BOOT, "burn_in", machine)
}

vm_smartctl_tests! {
    fn four_flash_drives_on_two_controllers_pass_and_each_mirror_spans_both() {
        let b = booted();
        let ran = b.ran("burn_in");
        assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
        let run = b.json("burn_in.json");
        for i in 0..4 {
            let d = disk(&run, i);
            assert_eq!(d["verdict"]["pass"], true, "{}", d["verdict"]);
            // Two models two drives each: neither is the batch's. No "other I/O":
            // the slow blocks a pass does again are seekprobe's own, and udev reads
            // a drive only once the run closes it. The only warnings are the path
            // check's: under TCG one host CPU runs every drive, so a drive can lose
            // rate with the others running.
            let warned: Vec<&Value> = (d["verdict"]["findings"].as_array().unwrap().iter())
                .filter(|f| f["severity"] == "warning")
                .collect();
            assert!(
                warned.iter().all(|f| f["code"] == "path_drive_loses"),
                "{warned:?}"
            );
            let codes: Vec<&Value> = d["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| &w["code"])
                .collect();
            assert!(!codes.contains(&&json!("other_io")), "{}", d["warnings"]);
        }
        let plan = b.ran("plan");
        assert_eq!(plan.code, 0, "{}{}", plan.stdout, plan.stderr);
        let p: Value = serde_json::from_str(&plan.stdout).unwrap();
        assert_eq!(p["ashift"], 12, "{p}");
        assert_eq!(p["left_out"], json!([]), "{p}");
        let sata: Vec<String> = SATA_SSD.iter().map(|d| by_wwn(d.wwn)).collect();
        let sas: Vec<String> = SAS_SSD.iter().map(|d| by_wwn(d.wwn)).collect();
        let mut paired: Vec<(String, String)> = (p["vdevs"].as_array().unwrap().iter())
            .map(|v| {
                let drives: Vec<String> = (v["drives"].as_array().unwrap().iter())
                    .map(|d| d.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(drives.len(), 2, "{v}");
                let (a, s) = if sata.contains(&drives[0]) {
                    (0, 1)
                } else {
                    (1, 0)
                };
                assert!(sata.contains(&drives[a]) && sas.contains(&drives[s]), "{v}");
                (drives[a].clone(), drives[s].clone())
            })
            .collect();
        paired.sort();
        assert_eq!(paired.len(), 2, "{p}");
        assert_ne!(paired[0].0, paired[1].0);
        assert_ne!(paired[0].1, paired[1].1);
    }
}
