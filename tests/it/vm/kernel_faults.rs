//! The kernel's own faulty devices, and a drive pulled from its slot. One boot:
//! `scsi_debug` with a medium error, `null_blk` with bad blocks, `scsi_debug` as a
//! host-managed zoned drive, and a virtio-scsi disk removed through QEMU's QMP in
//! the middle of a write-verify pass.

use super::machine::{Booted, Machine};
use super::{block, line, shared};
use crate::helpers::vm_tests;
use serde_json::{Value, json};
use std::sync::OnceLock;

/// The sectors scsi_debug fails with a MEDIUM ERROR (its `medium_error_start`
/// and `medium_error_count`).
const MEDIUM_ERROR: (u64, u64) = (5000, 10);
/// The 512-byte sectors null_blk's `badblocks` fails, first and last (its
/// configfs syntax, both inclusive), on a device of 4096-byte sectors.
const BAD_BLOCKS: (u64, u64) = (20000, 20015);
/// The `--io-timeout` of the pulled drive's pass: the run must end within it.
const PULL_IO_TIMEOUT_S: u64 = 20;

/// The guest's shell lines that wait for the block device of the first SCSI
/// disk under the sysfs directories matching `glob` and put its path in
/// /tmp/NAME.dev (a step's shell ends with the step: the next reads the file).
fn find_disk(glob: &str, name: &str) -> String {
    format!(
        "for i in $(seq 600); do set -- {glob}/host*/target*/*/block/*; [ -e \"$1\" ] && break; sleep 0.1; done\n\
         dev=/dev/${{1##*/}}\n\
         wait_until test -b \"$dev\" || exit 98\n\
         echo \"$dev\" > /tmp/{name}.dev\n"
    )
}

/// A null_blk device `name` of 16 MiB of memory and 4096-byte sectors, its
/// `badblocks` set when given, powered on (configfs, Linux's
/// Documentation/block/null_blk.rst).
fn null_blk(name: &str, badblocks: Option<(u64, u64)>) -> String {
    let d = format!("/sys/kernel/config/nullb/{name}");
    let bad = badblocks.map_or(String::new(), |(a, b)| {
        format!("echo +{a}-{b} > {d}/badblocks\n")
    });
    format!(
        "mkdir {d} && echo 16 > {d}/size && echo 4096 > {d}/blocksize && echo 1 > {d}/memory_backed\n\
         {bad}echo 1 > {d}/power\n\
         wait_until test -b /dev/{name} || exit 98\n"
    )
}

fn machine() -> Machine {
    let mut m = Machine::new();
    m.device("virtio-scsi-pci,id=vscsi")
        .disk("pulled", 256 << 20, "scsi-hd,bus=vscsi.0,serial=PULLED01")
        .on_signal("pull", |qmp| {
            qmp.execute("device_del", json!({"id": "pulled"}))
                .map(|_| ())
        });
    let (start, count) = MEDIUM_ERROR;
    m.step(
        "medium_error_scan",
        &format!(
            "modprobe sd_mod && modprobe scsi_debug dev_size_mb=16 medium_error_start={start} medium_error_count={count} opts=2 || exit 99\n\
             {}\
             $SEEKPROBE --scan --json-file $OUT/medium_error_scan.json $(cat /tmp/medium.dev)\n",
            find_disk("/sys/bus/pseudo/drivers/scsi_debug/adapter*", "medium")
        ),
    )
    .step(
        "medium_error_verify",
        "$SEEKPROBE --verify -w --yes --force --no-history --json-file $OUT/medium_error_verify.json $(cat /tmp/medium.dev)\n\
         rc=$?; rmmod scsi_debug; exit $rc\n",
    )
    .step(
        "bad_blocks",
        &format!(
            "modprobe null_blk nr_devices=0 && mount -t configfs none /sys/kernel/config || exit 99\n\
             {}\
             $SEEKPROBE --verify -w --yes --no-history --json-file $OUT/bad_blocks.json /dev/nullb0\n",
            null_blk("nullb0", Some(BAD_BLOCKS))
        ),
    )
    .step(
        "zoned_identity",
        &format!(
            "modprobe scsi_debug dev_size_mb=32 zbc=host-managed zone_size_mb=4 zone_nr_conv=1 inq_vendor=SEEKPRBE inq_product=ZONED-HM || exit 99\n\
             {}\
             $SEEKPROBE -v $(cat /tmp/zoned.dev)\n",
            find_disk("/sys/bus/pseudo/drivers/scsi_debug/adapter*", "zoned")
        ),
    )
    .step(
        "zoned_write",
        "$SEEKPROBE --verify -w --yes --force --no-history $(cat /tmp/zoned.dev)\n",
    )
    .step(
        "zoned_scan",
        &format!(
            "{}$SEEKPROBE --scan --qualify --no-history --json-file $OUT/zoned.json $(cat /tmp/zoned.dev) /dev/nullb1\n",
            null_blk("nullb1", None)
        ),
    )
    .step("zoned_plan", "$SEEKPROBE plan --layout stripe --json $OUT/zoned.json\n")
    .step("pulled", &pulled_script());
    m
}

/// The pulled drive's step: a write-verify pass of the virtio-scsi disk in the
/// background; once 32 MiB are written, the host removes the disk (`signal
/// pull`); the step's exit status is seekprobe's, and $OUT/pulled.times holds the
/// guest's clock when the disk was removed and when seekprobe ended.
fn pulled_script() -> String {
    format!(
        "modprobe sd_mod && modprobe virtio_scsi || exit 99\n\
         {}\
         dev=$(cat /tmp/pulled.dev)\n\
         $SEEKPROBE --verify -w --yes --qualify --io-timeout {PULL_IO_TIMEOUT_S} --no-history --json-file $OUT/pulled.json $dev &\n\
         pid=$!\n\
         written() {{ awk '{{print $7}}' /sys/block/${{dev#/dev/}}/stat; }}\n\
         while kill -0 $pid 2>/dev/null && [ \"$(written)\" -lt 65536 ]; do sleep 0.05; done\n\
         signal pull\n\
         pulled=$(uptime_s)\n\
         wait $pid; rc=$?\n\
         echo \"$pulled $(uptime_s)\" > $OUT/pulled.times\n\
         exit $rc\n",
        find_disk("/sys/bus/virtio/drivers/virtio_scsi/virtio*", "pulled")
    )
}

fn booted() -> &'static Booted {
    static BOOT: OnceLock<Result<Booted, String>> = OnceLock::new();
    shared(&BOOT, "kernel_faults", machine)
}

/// A saved run's first drive's first test's unreadable (scan) or failed (verify)
/// sector ranges: (kind, first sector, sectors).
fn ranges(run: &Value) -> Vec<(String, u64, u64)> {
    let test = &run["disks"][0]["tests"][0];
    if let Some(scan) = test.get("scan") {
        return (scan["unreadable"].as_array().unwrap().iter())
            .map(|r| {
                let n = |k: &str| r[k].as_u64().unwrap();
                ("unreadable".to_string(), n("first_sector"), n("sectors"))
            })
            .collect();
    }
    crate::helpers::verify_ranges(run, 0)
}

vm_tests! {
    fn a_medium_error_names_exactly_its_sectors_in_the_scan_and_the_verify() {
        let b = booted();
        let (start, count) = MEDIUM_ERROR;
        let scan = b.ran("medium_error_scan");
        assert_eq!(scan.code, 1, "{}{}", scan.stdout, scan.stderr);
        let want = vec![("unreadable".to_string(), start, count)];
        assert_eq!(ranges(&b.json("medium_error_scan.json")), want);
        assert!(
            scan.stdout.contains(&format!(
                "unreadable: sectors {start}-{} ({count})",
                start + count - 1
            )),
            "{}",
            scan.stdout
        );
        let verify = b.ran("medium_error_verify");
        assert_eq!(verify.code, 1, "{}{}", verify.stdout, verify.stderr);
        // The writes stored; the reads back fail on the medium error's sectors only.
        assert_eq!(ranges(&b.json("medium_error_verify.json")), want);
        // The SCSI layer's MEDIUM ERROR reaches user space as ENODATA, not EIO: the
        // signature check (in the first 8 MiB) says so, and --force goes on.
        assert!(
            verify.stderr.contains(&format!(
                "could not read byte {} (No data available (os error 61))",
                start * 512
            )),
            "{}",
            verify.stderr
        );
    }

    fn bad_blocks_that_fail_writes_are_named_exactly_as_unwritable() {
        let b = booted();
        let ran = b.ran("bad_blocks");
        assert_eq!(ran.code, 1, "{}{}", ran.stdout, ran.stderr);
        // 512-byte sectors 20000-20015 are the 4096-byte sectors 2500 and 2501.
        let (first, last) = BAD_BLOCKS;
        let want = vec![("unwritable".to_string(), first / 8, (last + 1 - first) / 8)];
        assert_eq!(ranges(&b.json("bad_blocks.json")), want, "{}", ran.stdout);
    }

    fn a_host_managed_zoned_drive_is_named_refused_for_writes_and_kept_out_of_a_pool() {
        let b = booted();
        let v = b.ran("zoned_identity");
        assert_eq!(v.code, 0, "{}", v.stderr);
        let dev = v.stdout.lines().next().unwrap_or_default();
        assert!(
            block(&v.stdout, dev).contains(&line("Host_Managed", "Zone Mode")),
            "{}",
            v.stdout
        );
        let w = b.ran("zoned_write");
        assert_ne!(w.code, 0, "{}", w.stdout);
        assert!(
            w.stderr.contains(&format!(
                "{dev}: refusing to write: a host-managed zoned device"
            )),
            "{}",
            w.stderr
        );
        let scan = b.ran("zoned_scan");
        assert_eq!(scan.code, 0, "{}{}", scan.stdout, scan.stderr);
        let plan = b.ran("zoned_plan");
        assert_eq!(plan.code, 0, "{}{}", plan.stdout, plan.stderr);
        let p: Value = serde_json::from_str(&plan.stdout).unwrap();
        assert_eq!(p["vdevs"][0]["drives"], json!(["/dev/nullb1"]), "{p}");
        let out = &p["left_out"][0];
        assert_eq!(out["drive"], json!(dev), "{p}");
        assert!(
            out["reason"]
                .as_str()
                .unwrap()
                .starts_with("host-managed zoned"),
            "{p}"
        );
    }

    fn a_drive_pulled_mid_pass_is_named_removed_and_failed_within_its_io_timeout() {
        let b = booted();
        let ran = b.ran("pulled");
        assert_eq!(ran.code, 3, "{}{}", ran.stdout, ran.stderr);
        let times = String::from_utf8_lossy(&b.files["pulled.times"]).into_owned();
        let t: Vec<f64> = times
            .split_whitespace()
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(t[1] - t[0] < PULL_IO_TIMEOUT_S as f64, "{times}");
        // The run file is kept, with the verdict and its one reason: the drive
        // removed past the 32 MiB written before the pull, inside its 256 MiB.
        let run = b.json("pulled.json");
        let u = &run["disks"][0]["tests"][0]["verify"]["unanswered"];
        assert_eq!(u["removed"], true, "{u}");
        let at = u["at_bytes"].as_u64().unwrap();
        assert!((32 << 20..256 << 20).contains(&at), "{u}");
        let verdict = &run["disks"][0]["verdict"];
        assert_eq!(verdict["state"], "fail", "{verdict}");
        let fails: Vec<&Value> = (verdict["findings"].as_array().unwrap().iter())
            .filter(|f| f["severity"] == "fail")
            .collect();
        assert_eq!(fails.len(), 1, "{verdict}");
        assert_eq!(fails[0]["code"], "removed_from_system", "{verdict}");
        assert!(
            (fails[0]["reason"].as_str().unwrap()).starts_with(
                "write and verify (--verify): the drive was removed from the system at byte "
            ),
            "{verdict}"
        );
    }
}
