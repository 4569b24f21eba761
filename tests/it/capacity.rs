//! --capacity-check: a fake simulated drive, a clean one, an image file, and a loop
//! device over a tmpfs smaller than the device (a real device that cannot store
//! what it claims).

use crate::helpers::{LoopDev, image, seekprobe};
use std::path::{Path, PathBuf};
use std::process;

fn text(out: &process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_fake_2_tib_drive_that_stores_64_gib_is_found_and_fails_qualify() {
    let spec = "sim:ssd?size=2T&fake=64G";
    let t0 = std::time::Instant::now();
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", spec])
        .output()
        .unwrap();
    let wall = t0.elapsed();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{so}{se}");
    assert!(
        so.contains(
            "Capacity check: only the first 64.0 GiB store data; writes beyond it land at \
             their address modulo 64.0 GiB"
        ),
        "{so}"
    );
    assert!(so.contains("FAKE"), "{so}");
    eprintln!("fake 2 TiB sim: {wall:?} of wall time (debug build)");
    // The JSON: exactly 64 GiB.
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", "--json", spec])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["disks"][0]["tests"][0]["capacity"]["conclusion"];
    assert_eq!(c["real"], 64u64 << 30);
    assert_eq!(c["reported"], 2u64 << 40);
    assert_eq!(c["finding"]["finding"], "wraps");
    // --qualify fails it, with the reason.
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", "--qualify", spec])
        .output()
        .unwrap();
    let (so, _) = text(&out);
    assert_ne!(out.status.code(), Some(0));
    assert!(so.contains("FAIL"), "{so}");
    assert!(
        so.contains("capacity check: stores only the first 64.0 GiB of the 2048.0 GiB it reports"),
        "{so}"
    );
}

#[test]
fn a_clean_2_tib_drive_reports_its_full_size_and_passes_qualify() {
    let out = seekprobe()
        .args([
            "--capacity-check",
            "-w",
            "--yes",
            "-q",
            "--qualify",
            "sim:ssd?size=2T",
        ])
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{so}{se}");
    assert!(
        so.contains("Capacity check: the full 2.0 TiB store data"),
        "{so}"
    );
    assert!(so.contains("PASS"), "{so}");
}

#[test]
fn writes_lost_past_a_limit_and_unwritable_blocks_are_told_apart() {
    // A wrap at a size that is no power of two: found within the probes.
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", "--json"])
        .arg("sim:nvme?size=1G&fake=384M")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let c = &v["disks"][0]["tests"][0]["capacity"]["conclusion"];
    assert_eq!(c["real"], 384u64 << 20, "{c}");
    // One unwritable probe in the middle: damaged sectors, not a smaller drive.
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q"])
        .arg("sim:nvme?size=1G&unwritable=1048576-1048584")
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{so}{se}");
    assert!(so.contains("no sign of a smaller drive"), "{so}");
    assert!(
        so.contains("FAILED: written data did not read back"),
        "{so}"
    );
    assert!(so.contains("1 writes failed"), "{so}");
}

#[test]
fn the_check_needs_w_and_goes_through_the_write_safety_rules() {
    seekprobe()
        .args(["--capacity-check", "sim:ssd?size=1G"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("-w"));
    // An image with a file-system signature is refused without --force.
    let dir = tempfile::tempdir().unwrap();
    let img = image(dir.path(), "img", 64 << 20);
    let mut buf = vec![0u8; 2048];
    buf[1080] = 0x53; // the ext2/3/4 magic 0xEF53 at 1024 + 56
    buf[1081] = 0xef;
    std::fs::write(&img, &buf).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&img)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes"])
        .arg(&img)
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_ne!(out.status.code(), Some(0), "{so}{se}");
    assert!(!so.contains("Capacity check"), "{so}");
}

#[test]
fn an_image_file_stores_its_full_size_and_preserve_restores_it() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let img = image(dir.path(), "img", 64 << 20);
    let pattern: Vec<u8> = (0..64u32 << 20).map(|i| (i % 253) as u8 | 1).collect();
    std::fs::write(&img, &pattern).unwrap();
    let out = seekprobe()
        .args([
            "--capacity-check",
            "-w",
            "--yes",
            "-q",
            "--preserve",
            "--force",
        ])
        .arg(&img)
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{so}{se}");
    assert!(
        so.contains("Capacity check: the full 64.0 MiB store data"),
        "{so}"
    );
    assert!(
        std::fs::read(&img).unwrap() == pattern,
        "--preserve restored every block"
    );
}

/// A tmpfs mounted on a fresh directory, unmounted on drop (even on panic).
struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    fn new(size: &str) -> Tmpfs {
        let dir = tempfile::tempdir().unwrap();
        let st = process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .expect("mount runs");
        assert!(st.success(), "mount -t tmpfs failed");
        Tmpfs { dir }
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = process::Command::new("umount")
            .arg(self.dir.path())
            .status();
    }
}

#[test]
#[cfg_attr(
    not(seekprobe_loop),
    ignore = "needs root, mount and /dev/loop-control"
)]
fn a_loop_device_over_a_tmpfs_smaller_than_it_is_reported_honestly() {
    // 256 MiB of device over 64 MiB of tmpfs: writes past about 64 MiB fail
    // (ENOSPC in the backing file, EIO on the device).
    let fs = Tmpfs::new("64m");
    let l = LoopDev::new(fs.path(), 256 << 20, true, None); // dropped first
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", "--json"])
        .arg(&l.dev)
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{so}{se}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cap = &v["disks"][0]["tests"][0]["capacity"];
    let c = &cap["conclusion"];
    eprintln!("tmpfs loop: {c:#}, {} failed writes", cap["failed_writes"]);
    // tmpfs allocates in write order, not by address: the probes written first
    // (the highest) take the 64 MiB and later ones fail. No size is named, but
    // the failure is reported and fails the disk.
    assert!(c["real"].as_u64().unwrap() < 64 << 20, "{c}");
    assert_ne!(c["finding"]["finding"], "full", "{c}");
    assert!(c["failed"].as_u64().unwrap() > 0, "{c}");
    assert!(cap["failed_writes"].as_u64().unwrap() > 0, "{cap}");
    let _: PathBuf = fs.path().to_path_buf();
}
