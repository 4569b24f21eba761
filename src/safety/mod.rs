//! Write safety: what must be true before seekprobe writes a single byte.
//!
//! - a target that is mounted, used as swap, or held by another driver (LVM,
//!   device-mapper, md RAID) is refused, even with `--force`;
//! - a target that carries a signature libblkid recognises (a file system, a
//!   partition table, RAID, LVM, swap, LUKS, ...) or one of the built-in set is
//!   refused unless `--force`, naming what was found, where, and which prober spoke;
//! - writes never leave the target (the plans guarantee it; see tests).
//!
//! On Linux libblkid (util-linux's library, the one blkid, wipefs and mkfs use) is
//! loaded at run time, so building needs no system package; the built-in check
//! ([`builtin`]) is the floor everywhere. See docs/safety.md.

#[cfg(target_os = "linux")]
mod blkid;
#[cfg(target_os = "linux")]
pub use blkid::{CHILD_ENV, child_main};
pub mod builtin;

pub use builtin::{HEAD_BYTES, TAIL_BYTES};
use std::path::Path;

/// A recognised on-disk signature: what it is, where, and which prober found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// What the signature means, e.g. "ext4 file system (libblkid TYPE=ext4)".
    pub what: String,
    /// The byte offset of the signature (its magic) on the target.
    pub offset: u64,
    /// Who recognised it.
    pub by: Prober,
}

/// Who recognised a signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prober {
    /// libblkid, loaded at run time; its version, e.g. "2.38.1".
    Libblkid(String),
    /// seekprobe's own list of magic numbers ([`builtin`]).
    Builtin,
}

impl std::fmt::Display for Prober {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Prober::Libblkid(v) => write!(f, "libblkid {v}"),
            Prober::Builtin => f.write_str("the built-in signature check"),
        }
    }
}

/// What the signature check found, and why libblkid did not take part when it
/// did not (the built-in list alone was then checked: the caller must say so).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detection {
    /// Every signature found, by either prober; empty when the target looks blank.
    pub found: Vec<Found>,
    /// Why libblkid was not used (absent, failed, turned off), or None.
    pub libblkid_unavailable: Option<String>,
    /// libblkid needed bytes of the drive outside the areas read for it: what it
    /// says cannot be trusted, and the drive is refused unless --force.
    pub libblkid_outside: Option<String>,
}

/// How much of the start of a drive is read for libblkid, which probes a copy
/// of it: its probers read up to byte 4 MiB + 512 of a blank drive (util-linux
/// 2.38: the last, a superblock at 4 MiB).
pub const COPY_HEAD: usize = 8 << 20;
/// How much of the end of a drive is read for libblkid: its probers read from
/// 1.5 MiB before the end of a blank drive (GPT's backup, md 0.90 and 1.0, ZFS's
/// labels 2 and 3, UDF's anchors, ...).
pub const COPY_TAIL: usize = 4 << 20;

/// Every signature on the target at `path` (`size` bytes), given its first bytes
/// `head` (up to [`HEAD_BYTES`]) and last bytes `tail` (up to [`TAIL_BYTES`]).
///
/// libblkid's findings come first (Linux, when the library loads and can probe the
/// path; `SEEKPROBE_NO_LIBBLKID=1` turns it off), then each built-in finding that
/// libblkid did not report in the same 512-byte sector.
///
/// libblkid reads a copy of `head` and `tail` (longer ones: [`COPY_HEAD`],
/// [`COPY_TAIL`]), never the drive, and its findings are refused
/// ([`Detection::libblkid_outside`]) when it needed anything else.
pub fn detect(path: &Path, head: &[u8], tail: &[u8], size: u64) -> Detection {
    let (mut found, libblkid_unavailable, libblkid_outside) = match libblkid(path, head, tail, size)
    {
        Ok(found) => (found, None, None),
        Err(Refusal::Unavailable(why)) => (Vec::new(), Some(why), None),
        Err(Refusal::Outside(why)) => (Vec::new(), None, Some(why)),
    };
    let head = &head[..head.len().min(HEAD_BYTES)];
    let tail = &tail[tail.len() - tail.len().min(TAIL_BYTES)..];
    let sector = |off: u64| off / 512;
    let by_blkid: Vec<u64> = found.iter().map(|f| sector(f.offset)).collect();
    for hit in builtin::detect(head, tail, size) {
        if !by_blkid.contains(&sector(hit.offset)) {
            found.push(Found {
                what: hit.what.to_string(),
                offset: hit.offset,
                by: Prober::Builtin,
            });
        }
    }
    Detection {
        found,
        libblkid_unavailable,
        libblkid_outside,
    }
}

/// Why libblkid gave no findings.
#[cfg(not(target_os = "linux"))]
enum Refusal {
    Unavailable(String),
    #[allow(dead_code)]
    Outside(String),
}
#[cfg(target_os = "linux")]
use blkid::Refusal;

/// libblkid's findings on a copy of `head` and `tail`, or why it could not give
/// them (turned off, absent, the probe failed, or it needed more of the drive).
fn libblkid(path: &Path, head: &[u8], tail: &[u8], size: u64) -> Result<Vec<Found>, Refusal> {
    if std::env::var_os("SEEKPROBE_NO_LIBBLKID").is_some_and(|v| v == "1") {
        return Err(Refusal::Unavailable(
            "SEEKPROBE_NO_LIBBLKID=1 is set".into(),
        ));
    }
    #[cfg(target_os = "linux")]
    {
        blkid::probe_copy(path, head, tail, size)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (path, head, tail, size);
        Err(Refusal::Unavailable(
            "libblkid is used on Linux only".into(),
        ))
    }
}

/// The findings as one sentence per prober, e.g. "libblkid 2.38.1 found: ext4 file
/// system (libblkid TYPE=ext4) at byte 1080".
pub fn describe(found: &[Found]) -> String {
    let mut probers: Vec<&Prober> = Vec::new();
    for f in found {
        if !probers.contains(&&f.by) {
            probers.push(&f.by);
        }
    }
    let parts: Vec<String> = probers
        .iter()
        .map(|p| {
            let items: Vec<String> = found
                .iter()
                .filter(|f| &f.by == *p)
                .map(|f| format!("{} at byte {}", f.what, f.offset))
                .collect();
            format!("{p} found: {}", items.join(", "))
        })
        .collect();
    parts.join("; ")
}

/// What keeps a device busy: mount points, active swap, and holders (LVM,
/// device-mapper, md), for the device and its partitions. Linux only; empty
/// elsewhere (FreeBSD's GEOM refuses to open a mounted disk for writing itself).
pub fn users(dev_path: &Path) -> Vec<String> {
    #[cfg(target_os = "linux")]
    {
        linux_users(dev_path)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dev_path;
        Vec::new()
    }
}

#[cfg(target_os = "linux")]
fn linux_users(dev_path: &Path) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(dev_path) else {
        return Vec::new();
    };
    if meta.is_file() {
        return loop_users(dev_path);
    }
    let rdev = meta.rdev();
    let (maj, min) = (rustix::fs::major(rdev), rustix::fs::minor(rdev));
    // The device and its partitions, as "maj:min" with their sysfs names.
    let mut devs = vec![(format!("{maj}:{min}"), String::new())];
    let sys = std::path::PathBuf::from(format!("/sys/dev/block/{maj}:{min}"));
    let mut holders_dirs = vec![sys.join("holders")];
    if let Ok(entries) = std::fs::read_dir(&sys) {
        for e in entries.flatten() {
            let p = e.path();
            if p.join("partition").exists()
                && let Ok(d) = std::fs::read_to_string(p.join("dev"))
            {
                devs.push((d.trim().to_string(), e.file_name().to_string_lossy().into()));
                holders_dirs.push(p.join("holders"));
            }
        }
    }
    let mut users = Vec::new();
    // Loop devices backed by the device or one of its partitions (the loop driver
    // neither claims nor holds its backing device).
    if let Ok(entries) = std::fs::read_dir("/sys/block") {
        for e in entries.flatten() {
            let Ok(b) = std::fs::read_to_string(e.path().join("loop/backing_file")) else {
                continue;
            };
            if let Ok(m) = std::fs::metadata(b.trim())
                && std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type())
                && devs.iter().any(|(d, _)| {
                    *d == format!(
                        "{}:{}",
                        rustix::fs::major(m.rdev()),
                        rustix::fs::minor(m.rdev())
                    )
                })
            {
                users.push(format!("backing /dev/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    if let Ok(mi) = std::fs::read_to_string("/proc/self/mountinfo") {
        for line in mi.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            if f.len() > 4 && devs.iter().any(|(d, _)| d == f[2]) {
                let part = devs
                    .iter()
                    .find(|(d, _)| d == f[2])
                    .map(|(_, n)| n.as_str());
                let what = match part {
                    Some(p) if !p.is_empty() => format!("{p} mounted on {}", f[4]),
                    _ => format!("mounted on {}", f[4]),
                };
                users.push(what);
            }
        }
    }
    if let Ok(swaps) = std::fs::read_to_string("/proc/swaps") {
        for line in swaps.lines().skip(1) {
            let Some(dev) = line.split_whitespace().next() else {
                continue;
            };
            if let Ok(m) = std::fs::metadata(dev)
                && std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type())
                && devs.iter().any(|(d, _)| {
                    *d == format!(
                        "{}:{}",
                        rustix::fs::major(m.rdev()),
                        rustix::fs::minor(m.rdev())
                    )
                })
            {
                users.push(format!("active swap ({dev})"));
            }
        }
    }
    for dir in holders_dirs {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                users.push(format!("held by {}", e.file_name().to_string_lossy()));
            }
        }
    }
    users
}

/// The loop devices whose backing file is `file`.
#[cfg(target_os = "linux")]
fn loop_users(file: &Path) -> Vec<String> {
    let Ok(want) = std::fs::canonicalize(file) else {
        return Vec::new();
    };
    let mut users = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/sys/block") {
        for e in entries.flatten() {
            let backing = e.path().join("loop/backing_file");
            if let Ok(b) = std::fs::read_to_string(&backing)
                && Path::new(b.trim()) == want
            {
                users.push(format!("backing /dev/{}", e.file_name().to_string_lossy()));
            }
        }
    }
    users
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describe_names_each_prober_once() {
        let f = |what: &str, offset, by: Prober| Found {
            what: what.into(),
            offset,
            by,
        };
        let v = Prober::Libblkid("2.38.1".into());
        let found = [
            f("ext4 file system (libblkid TYPE=ext4)", 1080, v.clone()),
            f("a ZFS pool member (vdev label 0)", 131072, Prober::Builtin),
            f("dos partition table (libblkid PTTYPE=dos)", 510, v),
        ];
        assert_eq!(
            describe(&found),
            "libblkid 2.38.1 found: ext4 file system (libblkid TYPE=ext4) at byte 1080, \
             dos partition table (libblkid PTTYPE=dos) at byte 510; \
             the built-in signature check found: a ZFS pool member (vdev label 0) at byte 131072"
        );
    }

    #[test]
    fn a_blank_file_has_no_signature() {
        let dir = std::env::temp_dir().join(format!("seekprobe-safety-{}", std::process::id()));
        std::fs::write(&dir, vec![0u8; 1 << 20]).unwrap();
        let head = vec![0u8; HEAD_BYTES];
        let tail = vec![0u8; TAIL_BYTES];
        let d = detect(&dir, &head, &tail, 1 << 20);
        let _ = std::fs::remove_file(&dir);
        assert!(d.found.is_empty(), "{d:?}");
    }
}
