//! The VM tier: seekprobe on real kernels and real drivers. Debian's kernel boots
//! under QEMU (TCG) with the controllers and devices a scenario needs (AHCI, an
//! LSI SAS1068, NVMe, virtio-scsi; the kernel's own `scsi_debug` and `null_blk`),
//! and this build's seekprobe runs in the guest over the host's read-only root, so
//! that what the loop devices and the fabricated sysfs trees cannot show is tested
//! against the drivers themselves: a drive's identity as the ATA, SCSI and NVMe
//! drivers present it, SMART through SCSI-to-ATA translation, udev's by-id names, a
//! medium error as the SCSI layer reports it, a zoned device, a drive pulled from
//! its slot (docs/testing.md, "The VM tier").
//!
//! `machine.rs` is the boot helper (devices in, steps run in the guest, results
//! back), `initramfs.rs` the guest's kernel and initramfs, `qmp.rs` QEMU's control
//! socket, `disks.rs` the SATA and SAS disks as QEMU is told of them. Each
//! scenario is a test; the scenarios of a file share one boot (a boot costs
//! seconds of CPU under TCG), booted by the first of its tests to run, and the
//! three boots run side by side: `controllers.rs` (SATA, SAS and NVMe: identity,
//! SMART), `burn_in.rs` (four flash drives on two controllers, then the pool
//! plan), `kernel_faults.rs` (a medium error, bad blocks, a zoned drive, a drive
//! pulled mid-pass).

mod burn_in;
mod controllers;
mod disks;
mod initramfs;
mod kernel_faults;
mod machine;
mod qmp;

use machine::{Booted, Machine};
use std::sync::OnceLock;

/// The boot shared by a file's scenarios: booted by the first test that asks, its
/// result kept for the others (a boot that failed fails each of them with why).
/// With `SEEKPROBE_VM_KEEP=DIR`, what the guest wrote is kept in `DIR/name` (the
/// file's name): a folder per boot, since the boots run side by side and their
/// steps and files share names (`udev.out`, `console.log`).
fn shared(
    boot: &'static OnceLock<Result<Booted, String>>,
    name: &str,
    make: fn() -> Machine,
) -> &'static Booted {
    let booted = boot.get_or_init(|| {
        let b = make().boot();
        if let Ok(b) = &b {
            eprintln!(
                "the guest booted, ran its steps and powered off in {:?}",
                b.took
            );
            if let Some(dir) = std::env::var_os("SEEKPROBE_VM_KEEP") {
                b.keep(&std::path::Path::new(&dir).join(name));
            }
        }
        b
    });
    booted.as_ref().unwrap_or_else(|e| panic!("the guest: {e}"))
}

/// The block of `-v` text that seekprobe printed for `name` (from its name's line
/// to the blank line that ends it).
fn block<'a>(text: &'a str, name: &str) -> &'a str {
    let start = text
        .find(&format!("{name}\n"))
        .unwrap_or_else(|| panic!("no block for {name} in:\n{text}"));
    let rest = &text[start..];
    &rest[..rest.find("\n\n").map_or(rest.len(), |e| e + 1)]
}

/// diskinfo's `-v` line for `value` and `what` (`\tVALUE   \t# what`).
fn line(value: impl std::fmt::Display, what: &str) -> String {
    format!("\t{:<12}\t# {what}\n", value.to_string())
}

/// A saved run's drive `i`.
fn disk(run: &serde_json::Value, i: usize) -> &serde_json::Value {
    &run["disks"][i]
}
