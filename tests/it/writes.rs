//! -S and the write-safety rules: nothing written without -w, confirmation,
//! signatures, devices in use, --preserve, files that never grow.

use crate::helpers::scratch_dir;
use crate::helpers::temp_dir;
use crate::helpers::{Finish, LoopDev, image, seekprobe};
use crate::helpers::{loop_tests, mkfs_ext4_tests};
use predicates::prelude::*;
use regex::Regex;
use std::path::Path;
use std::process::Command;

/// A checksum of a whole file or device.
fn checksum(p: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let data = std::fs::read(p).unwrap();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    h.finish()
}

/// Fill with a pattern that carries no signature.
fn fill(p: &Path) {
    let len = std::fs::metadata(p).unwrap().len() as usize;
    let data: Vec<u8> = (0..len).map(|i| ((i * 7 + i / 4093) % 251) as u8).collect();
    std::fs::write(p, data).unwrap();
}

/// Check diskinfo's -S block: every size from the sector size to 8 MiB (or the
/// device), each line printed again with diskinfo's formats.
pub fn assert_sync_write_block(text: &str, sector_size: u32, largest: u32) {
    let start = text
        .find("Synchronous random writes:\n")
        .expect("the -S block");
    let block = &text[start..];
    let re = Regex::new(r"^\t(.{4,}) kbytes: (.{8,}) usec/IO = (.{8,}) Mbytes/s$").unwrap();
    let lines: Vec<&str> = block.lines().skip(1).collect();
    let mut size = sector_size;
    for line in &lines {
        let c = re.captures(line).unwrap_or_else(|| panic!("{line:?}"));
        let kb = f64::from(size) / 1024.0;
        assert_eq!(c[1].trim().parse::<f64>().unwrap(), kb, "{line}");
        let usec: f64 = c[2].trim().parse().unwrap();
        let mbs: f64 = c[3].trim().parse().unwrap();
        assert_eq!(
            *line,
            format!(
                "\t{} kbytes: {usec:8.1} usec/IO = {mbs:8.1} Mbytes/s",
                seekprobe::report::diskinfo::printf_g(kb, 4, 4)
            )
        );
        assert!(usec > 0.0 && mbs >= 0.0, "{line}");
        size *= 2;
    }
    assert_eq!(size / 2, largest, "{block}");
    assert!(
        block.ends_with("Mbytes/s\n"),
        "no blank line after -S: {block:?}"
    );
}

/// Run `-S -w --yes --write-duration 0` with `extra` on `target`, asserting that
/// the write gate refuses it: exit 1 and nothing of -S printed. Its standard error.
pub fn sync_write_refused(extra: &[&str], target: impl AsRef<std::ffi::OsStr>) -> String {
    let (code, out, err) = seekprobe()
        .args(["-S", "-w", "--yes", "--write-duration", "0"])
        .args(extra)
        .arg(target)
        .outcome();
    assert_eq!(code, 1, "{err}");
    assert_eq!(out, "", "nothing of -S printed");
    err
}

#[test]
fn sync_writes_on_a_file_print_diskinfo_s_block_and_never_grow_it() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", (16 << 20) + 100);
    let text = seekprobe()
        .args(["-Sw", "--yes", "--write-duration", "0"])
        .arg(&img)
        .stdout_of_success();
    assert_sync_write_block(&text, 512, 8 << 20);
    assert_eq!(std::fs::metadata(&img).unwrap().len(), (16 << 20) + 100);
}

#[test]
fn writing_needs_confirmation_and_nothing_is_written_without_it() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 4 << 20);
    fill(&img);
    let before = checksum(&img);
    seekprobe()
        .args(["-Sw", "--write-duration", "0"])
        .arg(&img)
        .write_stdin("")
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("refusing to write: not confirmed")
                .and(predicate::str::contains("--yes")),
        );
    assert_eq!(checksum(&img), before);
}

mkfs_ext4_tests! {
    fn a_file_system_image_is_refused_without_force_and_left_unchanged() {
        let dir = temp_dir();
        let img = image(dir.path(), "fs.img", 16 << 20);
        let ok = Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .arg(&img)
            .status();
        assert!(ok.is_ok_and(|s| s.success()), "mkfs.ext4 failed");
        let before = checksum(&img);
        seekprobe()
            .args(["-Sw", "--yes", "--write-duration", "0"])
            .arg(&img)
            .assert()
            .code(1)
            .stdout("")
            .stderr(
                predicate::str::is_match(
                    r"refusing to write: libblkid [0-9.]+ found: ext4 file system \(libblkid TYPE=ext4\) at byte 1080",
                )
                .unwrap(),
            );
        assert_eq!(checksum(&img), before);
    }
}

loop_tests! {
    fn an_ext4_loop_device_is_refused_and_a_mounted_one_even_with_force() {
        let l = LoopDev::scratch(32 << 20, true, None);
        assert!(
            Command::new("mkfs.ext4")
                .args(["-q", "-F", &l.dev])
                .status()
                .unwrap()
                .success()
        );
        let dev = Path::new(&l.dev);
        let before = checksum(dev);
        seekprobe()
            .args(["-Sw", "--yes", "--write-duration", "0"])
            .arg(&l.dev)
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("ext4 file system").and(predicate::str::contains("--force")),
            );
        assert_eq!(checksum(dev), before);

        let mnt = temp_dir();
        // Root with loop devices (this test's cfg) mounts ext4: a failure is the
        // test's, never a silent pass.
        let mounted = Command::new("mount").arg(&l.dev).arg(mnt.path()).status();
        assert!(
            mounted.as_ref().is_ok_and(|s| s.success()),
            "mount {} failed: {mounted:?}",
            l.dev
        );
        struct Unmount<'a>(&'a Path);
        impl Drop for Unmount<'_> {
            fn drop(&mut self) {
                let _ = Command::new("umount").arg(self.0).status();
            }
        }
        let _guard = Unmount(mnt.path());
        seekprobe()
            .args(["-Sw", "--yes", "--force", "--write-duration", "0"])
            .arg(&l.dev)
            .assert()
            .code(1)
            .stderr(
                predicate::str::contains("in use (mounted on")
                    .and(predicate::str::contains("even with --force")),
            );
    }

    fn preserve_restores_every_block_of_a_loop_device() {
        let l = LoopDev::scratch(16 << 20, true, None);
        fill(Path::new(&l.dev));
        let before = checksum(Path::new(&l.dev));
        let text = seekprobe()
            .args(["-Sw", "--yes", "--preserve", "--write-duration", "0.05"])
            .arg(&l.dev)
            .stdout_of_success();
        assert_sync_write_block(&text, 512, 8 << 20);
        assert_eq!(
            checksum(Path::new(&l.dev)),
            before,
            "--preserve must leave the device as it was"
        );
    }

    fn an_image_file_backing_a_loop_device_is_refused() {
        let l = LoopDev::scratch(8 << 20, false, None);
        let backing =
            std::fs::read_to_string(format!("/sys/block/{}/loop/backing_file", l.short_name()))
                .unwrap();
        seekprobe()
            .args(["-Sw", "--yes", "--force", "--write-duration", "0"])
            .arg(backing.trim())
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "in use (backing {})",
                l.dev
            )));
    }

    fn a_block_device_backing_a_loop_device_is_refused() {
        let lower = LoopDev::scratch(8 << 20, true, None);
        let out = Command::new("losetup")
            .args(["-f", "--show", &lower.dev])
            .output()
            .unwrap();
        assert!(out.status.success());
        let upper = String::from_utf8(out.stdout).unwrap().trim().to_string();
        struct Detach(String);
        impl Drop for Detach {
            fn drop(&mut self) {
                let _ = Command::new("losetup").args(["-d", &self.0]).status();
            }
        }
        let _guard = Detach(upper.clone());
        fill(Path::new(&lower.dev));
        let before = checksum(Path::new(&lower.dev));
        seekprobe()
            .args(["-Sw", "--yes", "--force", "--write-duration", "0"])
            .arg(&lower.dev)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "in use (backing {upper})"
            )));
        assert_eq!(checksum(Path::new(&lower.dev)), before);
    }

    fn a_read_only_loop_device_is_refused_before_anything_is_opened_for_writing() {
        let dir = scratch_dir();
        let backing = image(dir.path(), "ro.img", 8 << 20);
        fill(&backing);
        let dev = Command::new("losetup")
            .args(["-f", "--show", "-r"])
            .arg(&backing)
            .stdout_of_success()
            .trim()
            .to_string();
        struct Detach(String);
        impl Drop for Detach {
            fn drop(&mut self) {
                let _ = Command::new("losetup").args(["-d", &self.0]).status();
            }
        }
        let _guard = Detach(dev.clone());
        let before = checksum(&backing);
        let err = sync_write_refused(&["--force"], &dev);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.contains(&format!(
                "{dev}: refusing to write: read-only: the kernel reports the block device read-only (BLKROGET)"
            )),
            "{err}"
        );
        assert_eq!(checksum(&backing), before);
    }
}
