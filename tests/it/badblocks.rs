//! `--bad-blocks` lists as mke2fs and e2fsck read them: a list made from recorded
//! failures is accepted by `mke2fs -l` and `e2fsck -l` on a test image, and the
//! file system's bad-block inode then holds exactly those blocks (`dumpe2fs -b`).

use crate::helpers::{Finish, run_file, tool};
use seekprobe::results::failures::{FailureKind, Failures, ReadBack};
use seekprobe::stamps::badblocks;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The tool's path: PATH first, then the sbin folders (root's tools), as build.rs
/// looks for it.
fn list_file(dir: &Path, name: &str, f: &Failures, sector_size: u32) -> PathBuf {
    let p = dir.join(name);
    let mut out = std::fs::File::create(&p).unwrap();
    badblocks::write(&mut out, f.covered(), sector_size, 4096).unwrap();
    p
}

/// The bad-block inode's blocks, as `dumpe2fs -b` prints them.
fn bad_block_inode(image: &Path) -> BTreeSet<u64> {
    Command::new(tool("dumpe2fs"))
        .arg("-b")
        .arg(image)
        .stdout_of_success()
        .lines()
        .map(|l| l.trim().parse().expect("one block number a line"))
        .collect()
}

#[test]
#[cfg_attr(
    not(all(seekprobe_has_mke2fs, seekprobe_has_e2fsck, seekprobe_has_dumpe2fs)),
    ignore = "needs mke2fs, e2fsck and dumpe2fs (apt-get install e2fsprogs)"
)]
fn mke2fs_and_e2fsck_accept_the_list() {
    let (dir, image) = run_file("fs.img");
    std::fs::File::create(&image)
        .unwrap()
        .set_len(64 << 20)
        .unwrap();

    // A pass over 512-byte sectors found: one corrupt sector in block 2500, 16
    // unreadable sectors over blocks 5000 to 5002, a misdirected run of three.
    let mut f = Failures::new();
    f.record(20_003, ReadBack::Corrupt);
    f.record_span(40_004, 16, FailureKind::Unreadable);
    for i in 0..3 {
        f.record(
            60_000 + i,
            ReadBack::Misdirected {
                found_lba: 7 + i,
                found_pass: 0,
            },
        );
    }
    let list = list_file(dir.path(), "bad1.txt", &f, 512);
    assert_eq!(
        std::fs::read_to_string(&list).unwrap(),
        "2500\n5000\n5001\n5002\n7500\n"
    );
    let out = Command::new(tool("mke2fs"))
        .args(["-q", "-F", "-t", "ext4", "-b", "4096", "-l"])
        .arg(&list)
        .arg(&image)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mke2fs -l refused the list: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        bad_block_inode(&image),
        BTreeSet::from([2500, 5000, 5001, 5002, 7500])
    );

    // A later pass found more: e2fsck -l adds them to the bad-block inode.
    let mut g = Failures::new();
    g.record_span(100_000, 8, FailureKind::Unwritable);
    let list2 = list_file(dir.path(), "bad2.txt", &g, 512);
    assert_eq!(std::fs::read_to_string(&list2).unwrap(), "12500\n");
    let out = Command::new(tool("e2fsck"))
        .args(["-f", "-y", "-l"])
        .arg(&list2)
        .arg(&image)
        .output()
        .unwrap();
    // 0: no errors; 1: errors corrected (the bad-block inode was updated).
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "e2fsck -l failed ({:?}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        bad_block_inode(&image),
        BTreeSet::from([2500, 5000, 5001, 5002, 7500, 12500])
    );
    let out = Command::new(tool("e2fsck"))
        .args(["-f", "-n"])
        .arg(&image)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
