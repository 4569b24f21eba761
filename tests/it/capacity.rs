//! --capacity-check: a fake simulated drive, a clean one, an image file, and a loop
//! device over a tmpfs smaller than the device (a real device that cannot store
//! what it claims).

use crate::helpers::loop_tests;
use crate::helpers::scratch_dir;
use crate::helpers::temp_dir;
use crate::helpers::{LoopDev, image, run_file, seekprobe};
use std::path::{Path, PathBuf};
use std::process;
use std::sync::OnceLock;

fn text(out: &process::Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fake 2 TiB drive that stores 64 GiB.
pub const FAKE: &str = "sim:ssd?size=2T&fake=64G";
/// Two honest drives beside it.
pub const HONEST: [&str; 2] = ["sim:ssd?size=2T", "sim:ssd?size=2T&seed=2"];

/// The capacity check of [`FAKE`] among [`HONEST`] with --qualify and the run
/// saved: its exit status, text and JSON.
pub struct Batch {
    pub code: i32,
    pub text: String,
    pub json: serde_json::Value,
}

/// [`Batch`], run once for the tests that read it (here and in verdict.rs), the
/// drives in parallel: a capacity check stamps and reads back 157 blocks of 1 MiB
/// whatever the size, seconds of CPU per drive in a debug build.
pub fn fake_among_honest() -> &'static Batch {
    static RUN: OnceLock<Batch> = OnceLock::new();
    RUN.get_or_init(|| {
        let (_dir, json) = run_file("run.json");
        let out = seekprobe()
            .args(["--capacity-check", "-w", "--yes", "-q", "--qualify"])
            // The drives at the same time: the text is printed in order all the same.
            .arg("--parallel")
            .arg("--json-file")
            .arg(&json)
            .arg(FAKE)
            .args(HONEST)
            .output()
            .unwrap();
        let (text, err) = text(&out);
        Batch {
            code: out.status.code().unwrap_or_else(|| panic!("{text}{err}")),
            json: serde_json::from_slice(&std::fs::read(&json).unwrap())
                .unwrap_or_else(|e| panic!("{e}: {text}{err}")),
            text,
        }
    })
}

/// The block of `disk` in a text of several disks: from its header line to the
/// next disk's.
fn block<'a>(text: &'a str, disk: &str, next: &str) -> &'a str {
    let from = text
        .find(&format!("{disk}\n\t"))
        .unwrap_or_else(|| panic!("{text}"));
    let to = text[from..]
        .find(&format!("\n{next}\n\t"))
        .map_or(text.len(), |i| from + i);
    &text[from..to]
}

#[test]
fn a_fake_2_tib_drive_that_stores_64_gib_is_found_and_fails_qualify() {
    let b = fake_among_honest();
    let mine = block(&b.text, FAKE, HONEST[0]);
    assert!(
        mine.contains(
            "Capacity check: only the first 64.0 GiB store data; writes beyond it land at \
             their address modulo 64.0 GiB"
        ),
        "{mine}"
    );
    assert!(mine.contains("FAKE"), "{mine}");
    // The JSON: exactly 64 GiB.
    let c = &b.json["disks"][0]["tests"][0]["capacity"]["conclusion"];
    assert_eq!(b.json["disks"][0]["name"], FAKE);
    assert_eq!(c["real"], 64u64 << 30);
    assert_eq!(c["reported"], 2u64 << 40);
    assert_eq!(c["finding"]["finding"], "wraps");
    // --qualify fails it, with the reason.
    assert_eq!(b.code, 3, "{}", b.text);
    let q = &b.text[b.text.find("\nQualification:\n").unwrap()..];
    assert!(q.contains(&format!("\t{FAKE}: FAIL\n")), "{q}");
    assert!(
        q.contains("capacity check: stores only the first 64.0 GiB of the 2048.0 GiB it reports"),
        "{q}"
    );
}

#[test]
fn a_clean_2_tib_drive_reports_its_full_size_and_passes_qualify() {
    // Beside the fake drive, which fails the run (status 3).
    let b = fake_among_honest();
    for (i, d) in HONEST.iter().enumerate() {
        let next = HONEST.get(i + 1).copied().unwrap_or("\nComparison");
        let mine = block(&b.text, d, next);
        assert!(
            mine.contains("probe blocks over the 2.0 TiB reported read back as written"),
            "{mine}"
        );
        assert!(!mine.contains("FAKE"), "{mine}");
        assert!(b.text.contains(&format!("\t{d}: PASS\n")), "{}", b.text);
        let c = &b.json["disks"][i + 1]["tests"][0]["capacity"]["conclusion"];
        assert_eq!(c["real"], 2u64 << 40, "{c}");
    }
    // Alone, a clean drive passes with status 0: a 1 GiB one (the check costs the
    // same CPU at any size; the size is what the text names).
    let out = seekprobe()
        .args([
            "--capacity-check",
            "-w",
            "--yes",
            "-q",
            "--qualify",
            "sim:nvme?size=1G",
        ])
        .output()
        .unwrap();
    let (so, se) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{so}{se}");
    // It says what the probes ruled out, and what they cannot (issue 27): never
    // that the full size stores data.
    assert!(
        so.contains("probe blocks over the 1.0 GiB reported read back as written: no write wrapped to another address and none was lost at a probed address"),
        "{so}"
    );
    assert!(
        so.contains("cannot rule out a drive that remaps what it is written")
            && so.contains("--verify, writing and reading back every block, does"),
        "{so}"
    );
    assert!(!so.contains("the full 1.0 GiB store data"), "{so}");
    assert!(so.contains("\tsim:nvme?size=1G: PASS\n"), "{so}");
}

#[test]
fn writes_lost_past_a_limit_and_unwritable_blocks_are_told_apart() {
    // A wrap at a size that is no power of two: found within the probes.
    let out = seekprobe()
        .args(["--capacity-check", "-w", "--yes", "-q", "--json"])
        .arg("sim:nvme?size=1G&fake=384M")
        .output()
        .unwrap();
    // A fake drive: exit status 1 without --qualify.
    assert_eq!(out.status.code(), Some(1));
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
    let dir = temp_dir();
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
    let dir = scratch_dir();
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
        so.contains("probe blocks over the 64.0 MiB reported read back as written"),
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
        let dir = temp_dir();
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

loop_tests! {
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
}
