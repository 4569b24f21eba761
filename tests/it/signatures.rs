//! The write gate on real images made by the mkfs tools Debian ships: each one is
//! refused by `-S -w --yes` without --force, named, and left byte for byte as it was
//! (sha256 before and after). That --force writes is checked once per prober (ext4
//! for libblkid, the lone ZFS uberblock for the built-in list): a write run is the
//! slow part.
//!
//! A test whose tool is missing shows as ignored, naming the package to install
//! (build.rs sets `seekprobe_has_TOOL`); .ci/run installs them all.

use crate::helpers::mkfs_ext4_tests;
use crate::helpers::{LoopDev, image, scratch_dir, seekprobe, tool};
use predicates::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Run `name args...`, feeding `stdin`; panic with its output if it fails.
fn run(name: &str, args: &[&str], stdin: &[u8]) {
    let mut child = Command::new(tool(name))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{name} {args:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// sha256 of a whole file or device, by coreutils' sha256sum.
fn sha256(p: &Path) -> String {
    let out = Command::new("sha256sum").arg(p).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()[..64].to_string()
}

/// A sparse file of `mib` MiB in `dir`.
fn blank(dir: &Path, name: &str, mib: u64) -> PathBuf {
    image(dir, name, mib << 20)
}

/// The write gate's behaviour on `target`, which carries a signature libblkid names
/// `libblkid KEY=VALUE` (`named`): refused and unchanged without --force.
fn refused_unchanged(target: &Path, named: &str) {
    let before = sha256(target);
    let err = crate::writes::sync_write_refused(&[], target);
    let re = regex::Regex::new(&format!(
        r"refusing to write: libblkid [0-9.]+ found: .*\(libblkid {}[,)].* at byte [0-9]+",
        regex::escape(named)
    ))
    .unwrap();
    assert!(re.is_match(&err), "expected {named} in: {err}");
    assert_eq!(sha256(target), before, "the image must be left unchanged");
}

/// With --force, the write goes ahead on `target`.
fn forced_writes(target: &Path) {
    seekprobe()
        .args(["-S", "-w", "--yes", "--force", "--write-duration", "0"])
        .arg(target)
        .assert()
        .success()
        .stdout(predicate::str::contains("Synchronous random writes:"));
}

/// Make an image of `mib` MiB with `mkfs args... IMAGE` and check the gate on it.
fn mkfs_image(mib: u64, mkfs: &str, args: &[&str], named: &str) -> tempfile::TempDir {
    let dir = scratch_dir();
    let img = blank(dir.path(), "fs.img", mib);
    let mut all: Vec<&str> = args.to_vec();
    all.push(img.to_str().unwrap());
    run(mkfs, &all, b"");
    refused_unchanged(&img, named);
    dir
}

/// Make a read-only image of a small folder with `make(folder, image)`, grow it to
/// 32 MiB, and check the gate on it.
fn packed_image(make: impl Fn(&Path, &Path), named: &str) {
    let dir = scratch_dir();
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    std::fs::write(src.join("hello"), "hello\n").unwrap();
    let img = dir.path().join("fs.img");
    make(&src, &img);
    std::fs::OpenOptions::new()
        .write(true)
        .open(&img)
        .unwrap()
        .set_len(32 << 20)
        .unwrap();
    refused_unchanged(&img, named);
}

/// Tests of the gate on images made by Debian's tools: each `name: make(args) if
/// HAS else "why";` is the test `name`, which calls `make(args)` ([`mkfs_image`] or
/// [`packed_image`]); it is ignored, saying `why`, where build.rs did not find the
/// tool (`HAS` unset).
macro_rules! image_tests {
    ($($name:ident: $make:ident($($arg:expr),*) if $has:ident else $why:literal;)*) => {$(
        #[test]
        #[cfg_attr(not($has), ignore = $why)]
        fn $name() {
            $make($($arg),*);
        }
    )*};
}

mkfs_ext4_tests! {
    fn ext4() {
        let dir = mkfs_image(32, "mkfs.ext4", &["-q", "-F"], "TYPE=ext4");
        // --force writes past what libblkid found (once, for this prober).
        forced_writes(&dir.path().join("fs.img"));
    }
}

image_tests! {
    // xfsprogs 5.19 and later refuse file systems under 300 MiB.
    xfs: mkfs_image(300, "mkfs.xfs", &["-q", "-f"], "TYPE=xfs")
        if seekprobe_has_mkfs_xfs else "needs mkfs.xfs (apt-get install xfsprogs)";
    btrfs: mkfs_image(128, "mkfs.btrfs", &["-q", "-f"], "TYPE=btrfs")
        if seekprobe_has_mkfs_btrfs else "needs mkfs.btrfs (apt-get install btrfs-progs)";
    vfat: mkfs_image(32, "mkfs.vfat", &[], "TYPE=vfat")
        if seekprobe_has_mkfs_vfat else "needs mkfs.vfat (apt-get install dosfstools)";
    ntfs: mkfs_image(32, "mkntfs", &["-F", "-Q", "-q"], "TYPE=ntfs")
        if seekprobe_has_mkntfs else "needs mkntfs (apt-get install ntfs-3g)";
    swap: mkfs_image(32, "mkswap", &[], "TYPE=swap")
        if seekprobe_has_mkswap else "needs mkswap (apt-get install util-linux)";
    f2fs: mkfs_image(64, "mkfs.f2fs", &["-q", "-f"], "TYPE=f2fs")
        if seekprobe_has_mkfs_f2fs else "needs mkfs.f2fs (apt-get install f2fs-tools)";
    exfat: mkfs_image(32, "mkfs.exfat", &[], "TYPE=exfat")
        if seekprobe_has_mkfs_exfat else "needs mkfs.exfat (apt-get install exfatprogs)";
    // Its default segments need a little more than 128 MiB.
    nilfs2: mkfs_image(160, "mkfs.nilfs2", &["-q", "-f"], "TYPE=nilfs2")
        if seekprobe_has_mkfs_nilfs2 else "needs mkfs.nilfs2 (apt-get install nilfs-tools)";
    jfs: mkfs_image(32, "mkfs.jfs", &["-q"], "TYPE=jfs")
        if seekprobe_has_mkfs_jfs else "needs mkfs.jfs (apt-get install jfsutils)";
    reiserfs: mkfs_image(64, "mkfs.reiserfs", &["-q", "-f"], "TYPE=reiserfs")
        if seekprobe_has_mkfs_reiserfs else "needs mkfs.reiserfs (apt-get install reiserfsprogs)";
    minix: mkfs_image(32, "mkfs.minix", &[], "TYPE=minix")
        if seekprobe_has_mkfs_minix else "needs mkfs.minix (apt-get install util-linux)";
    udf: mkfs_image(32, "mkudffs", &[], "TYPE=udf")
        if seekprobe_has_mkudffs else "needs mkudffs (apt-get install udftools)";
    bfs: mkfs_image(32, "mkfs.bfs", &[], "TYPE=bfs")
        if seekprobe_has_mkfs_bfs else "needs mkfs.bfs (apt-get install util-linux)";
    gfs2: mkfs_image(64, "mkfs.gfs2", &["-O", "-p", "lock_nolock", "-J", "8"], "TYPE=gfs2")
        if seekprobe_has_mkfs_gfs2 else "needs mkfs.gfs2 (apt-get install gfs2-utils)";
    ocfs2: mkfs_image(64, "mkfs.ocfs2", &["-q", "-M", "local"], "TYPE=ocfs2")
        if seekprobe_has_mkfs_ocfs2 else "needs mkfs.ocfs2 (apt-get install ocfs2-tools)";
    bcache: mkfs_image(32, "make-bcache", &["-B"], "TYPE=bcache")
        if seekprobe_has_make_bcache else "needs make-bcache (apt-get install bcache-tools)";
    cramfs: packed_image(|src, img| run("mkfs.cramfs", &[path(src), path(img)], b""), "TYPE=cramfs")
        if seekprobe_has_mkfs_cramfs else "needs mkfs.cramfs (apt-get install util-linux)";
    squashfs: packed_image(
        |src, img| run("mksquashfs", &[path(src), path(img), "-quiet", "-noappend"], b""),
        "TYPE=squashfs"
    )
        if seekprobe_has_mksquashfs else "needs mksquashfs (apt-get install squashfs-tools)";
    erofs: packed_image(|src, img| run("mkfs.erofs", &["--quiet", path(img), path(src)], b""), "TYPE=erofs")
        if seekprobe_has_mkfs_erofs else "needs mkfs.erofs (apt-get install erofs-utils)";
    romfs: packed_image(|src, img| run("genromfs", &["-d", path(src), "-f", path(img)], b""), "TYPE=romfs")
        if seekprobe_has_genromfs else "needs genromfs (apt-get install genromfs)";
}

#[test]
#[cfg_attr(
    not(seekprobe_has_cryptsetup),
    ignore = "needs cryptsetup (apt-get install cryptsetup-bin)"
)]
fn luks2() {
    let dir = scratch_dir();
    let img = blank(dir.path(), "luks.img", 32);
    // A cheap key derivation: the header is what matters here.
    run(
        "cryptsetup",
        &[
            "luksFormat",
            "--type",
            "luks2",
            "--batch-mode",
            "--pbkdf",
            "pbkdf2",
            "--pbkdf-force-iterations",
            "1000",
            "--key-file",
            "-",
            img.to_str().unwrap(),
        ],
        b"not a secret",
    );
    refused_unchanged(&img, "TYPE=crypto_LUKS");
}

#[test]
#[cfg_attr(
    not(all(seekprobe_loop, seekprobe_has_pvcreate)),
    ignore = "needs root, /dev/loop-control and pvcreate (apt-get install lvm2)"
)]
fn lvm2_physical_volume_on_a_loop_device() {
    // pvcreate wants a block device: the one case made through a loop device.
    let l = LoopDev::scratch(32 << 20, true, None);
    run("pvcreate", &["-q", "-y", "-ff", &l.dev], b"");
    refused_unchanged(Path::new(&l.dev), "TYPE=LVM2_member");
}

#[test]
#[cfg_attr(
    not(seekprobe_has_sfdisk),
    ignore = "needs sfdisk (apt-get install fdisk)"
)]
fn gpt_and_dos_partition_tables() {
    for (label, named) in [("gpt", "PTTYPE=gpt"), ("dos", "PTTYPE=dos")] {
        let dir = scratch_dir();
        let img = blank(dir.path(), "disk.img", 32);
        let script = format!("label: {label}\n,10M\n");
        run("sfdisk", &["-q", path(&img)], script.as_bytes());
        refused_unchanged(&img, named);
    }
}

mkfs_ext4_tests! {
    fn without_libblkid_the_built_in_check_speaks() {
        let dir = scratch_dir();
        let img = blank(dir.path(), "fs.img", 32);
        run("mkfs.ext4", &["-q", "-F", path(&img)], b"");
        let before = sha256(&img);
        seekprobe()
            .env("SEEKPROBE_NO_LIBBLKID", "1")
            .args(["-S", "-w", "--yes", "--write-duration", "0"])
            .arg(&img)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(
                "refusing to write: the built-in signature check found: an ext2/3/4 file system at byte 1080;",
            ));
        assert_eq!(sha256(&img), before);
    }
}

#[test]
fn a_built_in_finding_libblkid_misses_still_counts() {
    // One ZFS uberblock in vdev label 0's ring and nothing else: too little for
    // libblkid's zfs_member (it wants several), enough for the built-in check.
    let dir = scratch_dir();
    let img = blank(dir.path(), "zfs.img", 32);
    let mut f = std::fs::OpenOptions::new().write(true).open(&img).unwrap();
    use std::os::unix::fs::FileExt;
    f.write_all_at(&0x00ba_b10cu64.to_le_bytes(), (128 << 10) + 3 * 1024)
        .unwrap();
    f.flush().unwrap();
    let before = sha256(&img);
    let err = crate::writes::sync_write_refused(&[], &img);
    assert!(
        err.contains(
            "the built-in signature check found: a ZFS pool member (vdev label 0) at byte 131072"
        ),
        "{err}"
    );
    assert_eq!(sha256(&img), before);
    // --force writes past what the built-in list found (once, for this prober).
    forced_writes(&img);
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn without_libblkid_the_run_says_only_the_built_in_list_was_checked() {
    let dir = scratch_dir();
    let img = blank(dir.path(), "blank.img", 4);
    let json = dir.path().join("run.json");
    seekprobe()
        .env("SEEKPROBE_NO_LIBBLKID", "1")
        .args(["-q", "-S", "-w", "--yes", "--write-duration", "0", "--json-file"])
        .arg(&json)
        .arg(&img)
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "seekprobe: warning: libblkid unavailable (SEEKPROBE_NO_LIBBLKID=1 is set): only the built-in list was checked;",
        ));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let codes: Vec<&str> = v["disks"][0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"signatures_builtin_only"), "{codes:?}");
}

#[test]
fn libblkid_needing_more_of_the_drive_than_was_read_for_it_refuses_the_drive() {
    // A DOS partition table whose extended partition starts at 50 MiB: libblkid
    // reads its EBR there, outside the 8 MiB at the start and 4 MiB at the end
    // copied for it. It never reads the drive itself: the drive is refused.
    let dir = scratch_dir();
    let img = blank(dir.path(), "ebr.img", 128);
    let f = std::fs::OpenOptions::new().write(true).open(&img).unwrap();
    use std::os::unix::fs::FileExt;
    let entry = |kind: u8, lba: u32, sectors: u32| {
        let mut e = [0u8; 16];
        e[4] = kind;
        e[8..12].copy_from_slice(&lba.to_le_bytes());
        e[12..16].copy_from_slice(&sectors.to_le_bytes());
        e
    };
    f.write_all_at(&entry(0x05, 102_400, 20_480), 446).unwrap();
    f.write_all_at(&[0x55, 0xAA], 510).unwrap();
    f.write_all_at(&entry(0x83, 2048, 4096), 102_400 * 512 + 446)
        .unwrap();
    f.write_all_at(&[0x55, 0xAA], 102_400 * 512 + 510).unwrap();
    let before = sha256(&img);
    let err = crate::writes::sync_write_refused(&[], &img);
    assert!(
        err.contains("refusing to write: libblkid needed bytes 52428800-52429312, outside the 8388608 bytes at the start and 4194304 at the end read for it"),
        "{err}"
    );
    assert_eq!(sha256(&img), before);
}
