//! SATA on AHCI, SAS behind an LSI SAS1068 and NVMe, with udev running: a drive's
//! identity as each driver presents it, and SMART through the kernel. One boot.

use super::disks::{FLASH, Sas, Sata, by_wwn};
use super::machine::{Booted, Machine};
use super::{block, disk, line, shared};
use crate::helpers::{vm_smartctl_tests, vm_tests};
use serde_json::json;
use std::sync::OnceLock;

/// The rotating disks whose identity is checked.
const SATA_HDD: [Sata; 2] = [
    Sata {
        port: 0,
        serial: "ZC1A0001",
        model: "ST4000NM0035-1V4107",
        wwn: 0x5000_c500_a1b2_c301,
        rpm: 7200,
    },
    Sata {
        port: 1,
        serial: "ZC1A0002",
        model: "ST4000NM0035-1V4107",
        wwn: 0x5000_c500_a1b2_c302,
        rpm: 7200,
    },
];
const SAS_HDD: [Sas; 2] = [
    Sas {
        vendor: "SEAGATE",
        product: "ST600MM0006",
        serial: "S0M0A001",
        wwn: 0x5000_c500_b1b2_c303,
        rpm: 10000,
    },
    Sas {
        vendor: "SEAGATE",
        product: "ST600MM0006",
        serial: "S0M0A002",
        wwn: 0x5000_c500_b1b2_c304,
        rpm: 10000,
    },
];
/// The NVMe controller's serial (QEMU names its model `QEMU NVMe Ctrl`; Linux
/// ignores the namespace ids QEMU's controller gives, NVME_QUIRK_BOGUS_NID).
const NVME_SERIAL: &str = "NVME0001";

/// The disks' size (sparse: nothing but their first and last MiB is read).
const DISK_BYTES: u64 = 64 << 20;

/// The by-id name udev makes for the NVMe namespace (model and serial).
fn nvme() -> String {
    format!("/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_{NVME_SERIAL}")
}

fn machine() -> Machine {
    let mut m = Machine::new();
    m.device("ahci,id=sata").device("mptsas1068,id=sas");
    for (i, d) in SATA_HDD.iter().enumerate() {
        m.disk(&format!("sata{i}"), DISK_BYTES, &d.props());
    }
    for (i, d) in SAS_HDD.iter().enumerate() {
        m.disk(&format!("sas{i}"), DISK_BYTES, &d.props());
    }
    m.device(&format!("nvme,serial={NVME_SERIAL},id=nvme0"));
    m.disk(
        "ns1",
        DISK_BYTES,
        "nvme-ns,bus=nvme0,logical_block_size=4096,physical_block_size=4096",
    );
    let names: Vec<String> = (SATA_HDD.iter().map(|d| by_wwn(d.wwn)))
        .chain(SAS_HDD.iter().map(|d| by_wwn(d.wwn)))
        .chain([nvme()])
        .collect();
    m.step("udev", "start_udev && ls -l /dev/disk/by-id")
        .step(
            "identity",
            &format!(
                "$SEEKPROBE -v --json-file $OUT/identity.json {}",
                names.join(" ")
            ),
        )
        .step(
            "smart",
            &format!(
                "$SEEKPROBE --smart --scan --qualify --no-history --json-file $OUT/smart.json {} {} {}",
                by_wwn(SATA_HDD[0].wwn),
                nvme(),
                by_wwn(SAS_HDD[0].wwn)
            ),
        );
    m
}

fn booted() -> &'static Booted {
    static BOOT: OnceLock<Result<Booted, String>> = OnceLock::new();
    shared(&BOOT, "controllers", machine)
}

/// The lines of `-v` a disk's block must hold: its sizes, model, serial,
/// attachment, TRIM and rotation.
fn identity_lines(
    sectors: (u32, u32),
    model: &str,
    serial: &str,
    attachment: &str,
    rpm: u16,
) -> Vec<String> {
    let (logical, physical) = sectors;
    vec![
        line(logical, "sectorsize"),
        line(if physical > logical { physical } else { 0 }, "stripesize"),
        line(model, "Disk descr."),
        line(serial, "Disk ident."),
        line(attachment, "Attachment"),
        line(
            if attachment == "nvme" { "Yes" } else { "No" },
            "TRIM/UNMAP support",
        ),
        line(if rpm == FLASH { 0 } else { rpm }, "Rotation rate in RPM"),
    ]
}

vm_tests! {
    fn each_driver_shows_the_identity_qemu_was_told() {
        let b = booted();
        let ran = b.ran("identity");
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        let run = b.json("identity.json");
        let hdds = SATA_HDD
            .iter()
            .map(|d| (by_wwn(d.wwn), d.model, d.serial, "ata", d.rpm, d.wwn));
        let sas = SAS_HDD
            .iter()
            .map(|d| (by_wwn(d.wwn), d.product, d.serial, "sas", d.rpm, d.wwn));
        for (i, (name, model, serial, attachment, rpm, wwn)) in hdds.chain(sas).enumerate() {
            let text = block(&ran.stdout, &name);
            for l in identity_lines((512, 4096), model, serial, attachment, rpm) {
                assert!(text.contains(&l), "{l:?} in:\n{text}");
            }
            let info = &disk(&run, i)["info"];
            assert_eq!(info["wwn"], format!("naa.{wwn:016x}"), "{info}");
            assert_eq!(info["physical_sector_size_bytes"], 4096, "{info}");
            // udev's by-id name, the WWN's first.
            assert_eq!(info["stable_names"][0], name, "{info}");
        }
        let text = block(&ran.stdout, &nvme());
        for l in identity_lines((4096, 4096), "QEMU NVMe Ctrl", NVME_SERIAL, "nvme", FLASH) {
            assert!(text.contains(&l), "{l:?} in:\n{text}");
        }
    }
}

vm_smartctl_tests! {
    fn smart_is_read_through_the_kernel_and_a_drive_without_it_is_not_failed() {
        let b = booted();
        let ran = b.ran("smart");
        assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
        let run = b.json("smart.json");
        // QEMU's ATA SMART data (hw/ide/core.c: attribute 190 at 31 °C, one
        // power-on hour, nothing reallocated), read through libata's SCSI-to-ATA
        // translation, and judged.
        let ata = &disk(&run, 0)["smart"]["before"];
        assert_eq!(
            (
                &ata["protocol"],
                &ata["model"],
                &ata["serial"],
                &ata["passed"]
            ),
            (
                &json!("ata"),
                &json!(SATA_HDD[0].model),
                &json!(SATA_HDD[0].serial),
                &json!(true)
            ),
            "{ata}"
        );
        assert_eq!(
            (
                &ata["temperature_c"],
                &ata["power_on_hours"],
                &ata["ata"]["reallocated"]
            ),
            (&json!(31), &json!(1), &json!(0)),
            "{ata}"
        );
        // The NVMe SMART/Health log (QEMU reports 323 K, 50 °C).
        let nvme = &disk(&run, 1)["smart"]["before"];
        assert_eq!(nvme["protocol"], "nvme", "{nvme}");
        assert_eq!(nvme["temperature_c"], 50, "{nvme}");
        assert_eq!(
            nvme["nvme"],
            json!({"critical_warning": 0, "warnings": [], "media_errors": 0, "error_log_entries": 0,
                   "percentage_used": 0, "available_spare": 0, "available_spare_threshold": 0}),
        );
        // The SAS disk has none: said so, and judged on its scan alone.
        let sas = &disk(&run, 2);
        assert_eq!(
            sas["smart"]["note"], "the device reports no SMART support",
            "{sas}"
        );
        assert!(
            ran.stdout.contains(&format!(
                "{}: no SMART: the device reports no SMART support",
                by_wwn(SAS_HDD[0].wwn)
            )),
            "{}",
            ran.stdout
        );
        for i in 0..3 {
            assert_eq!(
                disk(&run, i)["verdict"]["state"],
                "pass",
                "{}",
                disk(&run, i)["verdict"]
            );
        }
    }
}
