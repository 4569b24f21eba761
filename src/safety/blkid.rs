//! Signatures as libblkid sees them (Linux).
//!
//! libblkid.so.1 is loaded at run time with `libloading` (dlopen), so building
//! seekprobe needs neither its headers nor the library; without it the built-in check
//! stands alone. The probe is the one wipefs makes: superblocks (with their type,
//! usage, label and magic offset, bad checksums included) and partition tables
//! (with their magic offset), every result of `blkid_do_probe` collected, not only
//! the first, so an image carrying two signatures names both.

use super::{Found, Prober};
use libloading::Library;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::OnceLock;

type BlkidProbe = *mut c_void;

// Flags from libblkid's blkid.h (a stable ABI since util-linux 2.15).
const SUBLKS_LABEL: c_int = 1 << 1;
const SUBLKS_TYPE: c_int = 1 << 5;
const SUBLKS_USAGE: c_int = 1 << 7;
const SUBLKS_MAGIC: c_int = 1 << 9;
const SUBLKS_BADCSUM: c_int = 1 << 10;
const PARTS_MAGIC: c_int = 1 << 3;
/// Look for a GPT even behind a valid protective MBR, as wipefs does.
const PARTS_FORCE_GPT: c_int = 1 << 1;

/// The libblkid functions seekprobe calls, resolved once.
struct Api {
    /// Keeps the library loaded (for the life of the process) while the function
    /// pointers below are used.
    _lib: Library,
    version: String,
    new_probe_from_filename: unsafe extern "C" fn(*const c_char) -> BlkidProbe,
    free_probe: unsafe extern "C" fn(BlkidProbe),
    enable_superblocks: unsafe extern "C" fn(BlkidProbe, c_int) -> c_int,
    set_superblocks_flags: unsafe extern "C" fn(BlkidProbe, c_int) -> c_int,
    enable_partitions: unsafe extern "C" fn(BlkidProbe, c_int) -> c_int,
    set_partitions_flags: unsafe extern "C" fn(BlkidProbe, c_int) -> c_int,
    do_probe: unsafe extern "C" fn(BlkidProbe) -> c_int,
    lookup_value:
        unsafe extern "C" fn(BlkidProbe, *const c_char, *mut *const c_char, *mut usize) -> c_int,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

fn load() -> Result<Api, String> {
    // SAFETY: libblkid.so.1 is util-linux's library; loading it runs only its own
    // initialisers, which have no requirements on the caller.
    let lib = unsafe { Library::new("libblkid.so.1") }.map_err(|e| e.to_string())?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the type given at each use is the function's prototype in
            // libblkid's blkid.h; the pointer is used only while `lib` is loaded
            // (it is kept in `Api` beside it, in a static).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| e.to_string())?
        };
    }
    let get_version: unsafe extern "C" fn(*mut *const c_char, *mut *const c_char) -> c_int =
        sym!("blkid_get_library_version");
    let (mut ver, mut date): (*const c_char, *const c_char) = (std::ptr::null(), std::ptr::null());
    // SAFETY: both pointers are valid places for the library to store pointers to its
    // own static strings.
    unsafe { get_version(&mut ver, &mut date) };
    let version = if ver.is_null() {
        "(unknown version)".to_string()
    } else {
        // SAFETY: a non-null result points to a NUL-terminated static string.
        unsafe { CStr::from_ptr(ver) }
            .to_string_lossy()
            .into_owned()
    };
    Ok(Api {
        new_probe_from_filename: sym!("blkid_new_probe_from_filename"),
        free_probe: sym!("blkid_free_probe"),
        enable_superblocks: sym!("blkid_probe_enable_superblocks"),
        set_superblocks_flags: sym!("blkid_probe_set_superblocks_flags"),
        enable_partitions: sym!("blkid_probe_enable_partitions"),
        set_partitions_flags: sym!("blkid_probe_set_partitions_flags"),
        do_probe: sym!("blkid_do_probe"),
        lookup_value: sym!("blkid_probe_lookup_value"),
        version,
        _lib: lib,
    })
}

/// Frees a probe when dropped.
struct ProbeGuard<'a> {
    api: &'a Api,
    pr: BlkidProbe,
}

impl Drop for ProbeGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: `pr` came from blkid_new_probe_from_filename and is freed once.
        unsafe { (self.api.free_probe)(self.pr) };
    }
}

impl ProbeGuard<'_> {
    /// The value `name` of the current result, if libblkid set it.
    fn value(&self, name: &CStr) -> Option<String> {
        let mut data: *const c_char = std::ptr::null();
        let mut len = 0usize;
        // SAFETY: `pr` is a live probe, `name` a NUL-terminated string, and the out
        // pointers are valid for writes.
        let rc = unsafe { (self.api.lookup_value)(self.pr, name.as_ptr(), &mut data, &mut len) };
        if rc != 0 || data.is_null() {
            return None;
        }
        // SAFETY: libblkid's values are `len` bytes (the NUL included) owned by the
        // probe, which outlives this borrow; we copy them out at once.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) };
        let bytes = bytes.split(|&b| b == 0).next().unwrap_or_default();
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// Probe `path` with libblkid. `Err` says why it could not (library absent, the path
/// could not be opened, probing failed); the caller then relies on the built-in check.
pub fn probe(path: &Path) -> Result<Vec<Found>, String> {
    let api = API.get_or_init(load).as_ref().map_err(Clone::clone)?;
    let cpath = CString::new(path.as_os_str().as_bytes()).map_err(|e| e.to_string())?;
    // SAFETY: `cpath` is NUL-terminated; the library opens the path read-only.
    let pr = unsafe { (api.new_probe_from_filename)(cpath.as_ptr()) };
    if pr.is_null() {
        return Err(format!(
            "libblkid could not open it: {}",
            std::io::Error::last_os_error()
        ));
    }
    let probe = ProbeGuard { api, pr };
    // SAFETY: `pr` is a live probe; these only set its options. Each returns 0,
    // or a negative number when it could not (then the probe is not trusted).
    let setup = unsafe {
        [
            (
                "blkid_probe_enable_superblocks",
                (api.enable_superblocks)(pr, 1),
            ),
            (
                "blkid_probe_set_superblocks_flags",
                (api.set_superblocks_flags)(
                    pr,
                    SUBLKS_TYPE | SUBLKS_USAGE | SUBLKS_LABEL | SUBLKS_MAGIC | SUBLKS_BADCSUM,
                ),
            ),
            (
                "blkid_probe_enable_partitions",
                (api.enable_partitions)(pr, 1),
            ),
            (
                "blkid_probe_set_partitions_flags",
                (api.set_partitions_flags)(pr, PARTS_MAGIC | PARTS_FORCE_GPT),
            ),
        ]
    };
    if let Some((call, rc)) = setup.iter().find(|(_, rc)| *rc != 0) {
        return Err(format!("{call} failed ({rc})"));
    }
    let by = Prober::Libblkid(api.version.clone());
    let mut found: Vec<Found> = Vec::new();
    // Each call yields the next result (0), or says it is done (1) or failed (< 0).
    // The bound only guards against a library that never says done.
    for _ in 0..256 {
        // SAFETY: `pr` is a live probe.
        match unsafe { (api.do_probe)(pr) } {
            0 => {}
            1 => return Ok(found),
            rc => return Err(format!("blkid_do_probe failed ({rc})")),
        }
        let offset = |key: &CStr| probe.value(key).and_then(|v| v.trim().parse::<u64>().ok());
        let item = if let Some(ty) = probe.value(c"TYPE") {
            let label = probe
                .value(c"LABEL")
                .filter(|l| !l.is_empty())
                .map(|l| format!(", LABEL={l:?}"))
                .unwrap_or_default();
            let noun = noun(&ty, probe.value(c"USAGE").as_deref());
            Some((
                format!("{ty} {noun} (libblkid TYPE={ty}{label})"),
                offset(c"SBMAGIC_OFFSET"),
            ))
        } else {
            probe.value(c"PTTYPE").map(|pt| {
                (
                    format!("{pt} partition table (libblkid PTTYPE={pt})"),
                    offset(c"PTMAGIC_OFFSET"),
                )
            })
        };
        if let Some((what, offset)) = item {
            let f = Found {
                what,
                offset: offset.unwrap_or(0),
                by: by.clone(),
            };
            if !found.contains(&f) {
                found.push(f);
            }
        }
    }
    Ok(found)
}

/// What a signature is, from libblkid's USAGE value.
fn noun(ty: &str, usage: Option<&str>) -> &'static str {
    match (ty, usage) {
        ("swap", _) => "area",
        (_, Some("filesystem")) => "file system",
        (_, Some("raid")) => "RAID or volume manager member",
        (_, Some("crypto")) => "encrypted volume",
        _ => "signature",
    }
}

/// Why libblkid's findings are not given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// libblkid could not take part (absent, failed, or what it read cannot be told).
    Unavailable(String),
    /// libblkid read bytes of the drive outside what was copied from it (fail closed).
    Outside(String),
}

/// The variable that makes seekprobe's process the libblkid child ([`child_main`]).
pub const CHILD_ENV: &str = "SEEKPROBE_BLKID_CHILD";

/// Probe a copy of the drive with libblkid, never the drive itself: a sparse
/// memory file of the drive's `size` holding its first bytes `head` and last bytes
/// `tail` (read with direct I/O under the watchdog), probed by a child process of
/// seekprobe with libblkid's buffer debugging on, which names every area libblkid
/// read. An area outside the copy is [`Refusal::Outside`]: the probe cannot be
/// trusted, and the drive is refused (fail closed).
///
/// Outside seekprobe's own binary (the library's tests), `path` is probed as before.
pub fn probe_copy(path: &Path, head: &[u8], tail: &[u8], size: u64) -> Result<Vec<Found>, Refusal> {
    let exe = std::env::current_exe().map_err(|e| Refusal::Unavailable(e.to_string()))?;
    if exe.file_name().is_none_or(|n| n != "seekprobe") {
        return probe(path).map_err(Refusal::Unavailable);
    }
    let unavailable =
        |what: &str, e: &dyn std::fmt::Display| Refusal::Unavailable(format!("{what}: {e}"));
    let copy = memory_copy(head, tail, size)
        .map_err(|e| unavailable("a copy of the signature areas", &e))?;
    let child = std::process::Command::new(exe)
        .env(CHILD_ENV, "1")
        .env("LIBBLKID_DEBUG", "buffer")
        .stdin(std::process::Stdio::from(copy))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| unavailable("cannot run libblkid's probe", &e))?;
    let out = child
        .wait_with_output()
        .map_err(|e| unavailable("libblkid's probe", &e))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !stderr.contains("libblkid:") {
        return Err(Refusal::Unavailable(
            "libblkid does not say what it reads (no debug output): it cannot be kept off the drive".into(),
        ));
    }
    let tail_from = size - tail.len() as u64;
    for (off, len) in stderr.lines().filter_map(read_area) {
        let end = off.saturating_add(len);
        if !(end <= head.len() as u64 || off >= tail_from) {
            return Err(Refusal::Outside(format!(
                "libblkid needed bytes {off}-{end}, outside the {} bytes at the start and {} at the end read for it",
                head.len(),
                tail.len()
            )));
        }
    }
    parse_child(&stdout)
}

/// A sparse memory file of `size` bytes holding `head` at its start and `tail` at
/// its end.
fn memory_copy(head: &[u8], tail: &[u8], size: u64) -> std::io::Result<std::os::fd::OwnedFd> {
    use rustix::fs::{MemfdFlags, memfd_create};
    use std::os::unix::fs::FileExt;
    let fd = memfd_create("seekprobe-signatures", MemfdFlags::CLOEXEC)?;
    let file = std::fs::File::from(fd);
    file.set_len(size)?;
    file.write_all_at(head, 0)?;
    file.write_all_at(tail, size - tail.len() as u64)?;
    Ok(file.into())
}

/// The area of a libblkid buffer debug line ("off=N len=M", "[off=N, len=M]").
fn read_area(line: &str) -> Option<(u64, u64)> {
    let num = |key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    Some((num("off=")?, num("len=")?))
}

/// The child's answer: "version V", then "found OFFSET\tWHAT" lines, or "error WHY".
fn parse_child(out: &str) -> Result<Vec<Found>, Refusal> {
    let mut by = None;
    let mut found = Vec::new();
    for line in out.lines() {
        if let Some(v) = line.strip_prefix("version ") {
            by = Some(Prober::Libblkid(v.to_string()));
        } else if let Some(why) = line.strip_prefix("error ") {
            return Err(Refusal::Unavailable(why.to_string()));
        } else if let Some((off, what)) =
            line.strip_prefix("found ").and_then(|l| l.split_once('\t'))
        {
            let by = by
                .clone()
                .ok_or_else(|| Refusal::Unavailable("libblkid's probe gave no version".into()))?;
            found.push(Found {
                what: what.to_string(),
                offset: off.parse().unwrap_or(0),
                by,
            });
        }
    }
    match by {
        Some(_) => Ok(found),
        None => Err(Refusal::Unavailable(format!(
            "libblkid's probe did not answer: {}",
            out.trim()
        ))),
    }
}

/// The libblkid child's work ([`CHILD_ENV`]): probe the copy on standard input and
/// print what was found; its exit status.
pub fn child_main() -> i32 {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let version = match API.get_or_init(load) {
        Ok(api) => api.version.clone(),
        Err(e) => {
            let _ = writeln!(out, "error {e}");
            return 0;
        }
    };
    let _ = writeln!(out, "version {version}");
    match probe(Path::new("/proc/self/fd/0")) {
        Ok(found) => {
            for f in found {
                let _ = writeln!(
                    out,
                    "found {}\t{}",
                    f.offset,
                    f.what.replace(['\n', '\t'], " ")
                );
            }
        }
        Err(e) => {
            let _ = writeln!(out, "error {e}");
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_debug_lines_name_the_areas_read_and_the_child_its_findings() {
        let l = "123: libblkid:   BUFFER:  remove buffer: [off=65536, len=512]";
        assert_eq!(read_area(l), Some((65536, 512)));
        let l = "123: libblkid:   BUFFER: \treuse: off=0 len=1024 (for off=0 len=6)";
        assert_eq!(read_area(l), Some((0, 1024)));
        assert_eq!(
            read_area("123: libblkid:     INIT: library debug mask: 0x2000"),
            None
        );
        let found =
            parse_child("version 2.38.1\nfound 1080\text4 file system (libblkid TYPE=ext4)\n")
                .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].offset, 1080);
        assert_eq!(found[0].by, Prober::Libblkid("2.38.1".into()));
        assert!(matches!(
            parse_child("error no library\n"),
            Err(Refusal::Unavailable(_))
        ));
        assert!(matches!(parse_child(""), Err(Refusal::Unavailable(_))));
    }
}
