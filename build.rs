//! Tells the integration tests what this machine can do, so that a test that cannot
//! run here shows as `ignored` in `cargo test`, never as passed:
//!
//! - `seekprobe_loop`: the build runs as root and /dev/loop-control exists (the
//!   loop-device tests attach loop devices; CI runs as root);
//! - `seekprobe_has_TOOL` (e.g. `seekprobe_has_mkfs_f2fs`): the tool is installed,
//!   for the tests that make real file-system images (tests/it/signatures.rs) and
//!   the Debian package's (tests/it/package.rs: cargo-deb, lintian, tmux);
//! - `seekprobe_no_uring`: the kernel refuses io_uring (`kernel.io_uring_disabled`),
//!   for the ring's own unit tests;
//! - `seekprobe_no_promtool`, `seekprobe_no_ansible`, `seekprobe_no_smartctl`,
//!   `seekprobe_no_chromium`: `promtool` (Debian's prometheus package),
//!   `ansible-playbook` (ansible-core, which .ci/run installs in
//!   /opt/seekprobe-ansible), `smartctl` (smartmontools) or `chromium` (Debian's
//!   chromium, for the HTML report) is missing;
//! - `seekprobe_no_openssh`: OpenSSH's `ssh-keygen`, `ssh-agent` or `ssh-add`
//!   (Debian's openssh-client) is missing, for the record's signature tests
//!   (tests/it/record_sig.rs), which check seekprobe against OpenSSH itself;
//! - `seekprobe_vm`: the VM tier (tests/it/vm) can boot a guest: QEMU
//!   (`qemu-system-x86_64`, qemu-system-x86), a Debian kernel in /boot with its
//!   modules (linux-image-amd64), a static busybox (busybox-static) and udev.
//!
//! It also embeds the git commit seekprobe is built from (`SEEKPROBE_COMMIT`, the
//! record's `tool_commit`): the one given in `SEEKPROBE_GIT_COMMIT` at build time,
//! else `git rev-parse HEAD` of this checkout, else the commit `cargo package` wrote
//! in the crate's .cargo_vcs_info.json (a crate built from its tarball has no git);
//! nothing when none is known. `SEEKPROBE_VERSION` is what `--version` prints after
//! the name: the version and that commit, or that the commit is unknown.
//!
//! Tests carry `#[cfg_attr(not(CFG), ignore = "why")]` (or `cfg_attr(CFG, ...)` for
//! the `no` ones). The script runs again when the user (USER, SUDO_USER), PATH,
//! /usr/bin, /usr/sbin, cargo's bin folder or the ansible venv's ansible-playbook
//! change. Only tests (integration tests, and unit tests of the library) read these cfgs.

use std::path::{Path, PathBuf};

/// Tools the signature tests run, each with its cfg name.
const TOOLS: &[&str] = &[
    "mkfs.ext4",
    "mkfs.xfs",
    "mkfs.btrfs",
    "mkfs.vfat",
    "mkntfs",
    "mkswap",
    "cryptsetup",
    "pvcreate",
    "mkfs.f2fs",
    "mkfs.exfat",
    "mkfs.nilfs2",
    "mkfs.jfs",
    "mkfs.reiserfs",
    "mkfs.minix",
    "mkudffs",
    "mkfs.bfs",
    "mkfs.gfs2",
    "mkfs.ocfs2",
    "make-bcache",
    "mkfs.cramfs",
    "mksquashfs",
    "mkfs.erofs",
    "genromfs",
    "sfdisk",
    // tests/it/badblocks.rs: a --bad-blocks list read by mke2fs -l and e2fsck -l.
    "mke2fs",
    "e2fsck",
    "dumpe2fs",
    // tests/it/faulty.rs: the faulty block device (examples/faultdisk) mounts with it.
    "fusermount3",
    // tests/it/package.rs: the Debian package built, checked and completed in tmux.
    "cargo-deb",
    "lintian",
    "tmux",
];

/// Folders searched for tools besides PATH (root's tools live in sbin).
const SBIN: &[&str] = &["/usr/sbin", "/sbin", "/usr/bin"];

/// The folders watched for installed tools (flat folders, cheap to scan).
const WATCHED: &[&str] = &["/usr/bin", "/usr/sbin"];

/// The venv .ci/run installs ansible-core into.
const ANSIBLE_VENV: &str = "/opt/seekprobe-ansible/bin";

fn on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(tool))
        .find(|p| p.is_file())
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    version(git_commit().or_else(packaged_commit));
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_promtool)");
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_ansible)");
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_smartctl)");
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_chromium)");
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_openssh)");
    // Cargo scans a watched directory recursively: watch the venv's one file (when
    // it is there) rather than /opt; promtool and smartctl land in /usr/bin or
    // /usr/sbin, watched below.
    let playbook = Path::new(ANSIBLE_VENV).join("ansible-playbook");
    if playbook.is_file() {
        println!("cargo::rerun-if-changed={}", playbook.display());
    }
    if on_path("promtool").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_promtool");
    }
    // tests/it/report.rs opens the HTML report in Debian's headless chromium.
    if on_path("chromium").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_chromium");
    }
    // tests/it/record_sig.rs signs and verifies with OpenSSH's own tools.
    if ["ssh-keygen", "ssh-agent", "ssh-add"]
        .iter()
        .any(|t| on_path(t).is_none())
    {
        println!("cargo::rustc-cfg=seekprobe_no_openssh");
    }
    if on_path("smartctl").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_smartctl");
    }
    let venv = Path::new(ANSIBLE_VENV).join("ansible-playbook");
    if !venv.is_file() && on_path("ansible-playbook").is_none() {
        println!("cargo::rustc-cfg=seekprobe_no_ansible");
    }
    for var in ["USER", "SUDO_USER", "PATH"] {
        println!("cargo::rerun-if-env-changed={var}");
    }
    println!("cargo::rustc-check-cfg=cfg(seekprobe_no_uring)");
    if io_uring_disabled() {
        println!("cargo::rustc-cfg=seekprobe_no_uring");
    }
    println!("cargo::rustc-check-cfg=cfg(seekprobe_vm)");
    if vm_tools() {
        println!("cargo::rustc-cfg=seekprobe_vm");
    }
    println!("cargo::rustc-check-cfg=cfg(seekprobe_loop)");
    if effective_uid() == Some(0) && Path::new("/dev/loop-control").exists() {
        println!("cargo::rustc-cfg=seekprobe_loop");
    }
    let path = std::env::var("PATH").unwrap_or_default();
    let dirs: Vec<&str> = path
        .split(':')
        .filter(|d| !d.is_empty())
        .chain(SBIN.iter().copied())
        .collect();
    for dir in WATCHED {
        if Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
    // `cargo install cargo-deb` puts it in cargo's own bin folder.
    if let Some(bin) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .map(|c| c.join("bin"))
        .filter(|b| b.is_dir())
    {
        println!("cargo::rerun-if-changed={}", bin.display());
    }
    for tool in TOOLS {
        let cfg = format!("seekprobe_has_{}", tool.replace(['.', '-'], "_"));
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if dirs.iter().any(|d| Path::new(d).join(tool).is_file()) {
            println!("cargo::rustc-cfg={cfg}");
        }
    }
}

/// `git` with `args` in the crate's folder: its trimmed output, None when git is
/// missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The commit built from: `SEEKPROBE_GIT_COMMIT` given at build time wins; else
/// this checkout's HEAD, only when the crate's folder is the top of the checkout
/// (never the commit of another repository the sources happen to lie in). Runs
/// again when HEAD moves: HEAD itself, the branch it names, and packed-refs.
fn git_commit() -> Option<String> {
    println!("cargo::rerun-if-env-changed=SEEKPROBE_GIT_COMMIT");
    if let Some(given) = std::env::var_os("SEEKPROBE_GIT_COMMIT") {
        return Some(given.to_string_lossy().into_owned());
    }
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let top = git(&["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    match (&manifest, &top) {
        (Some(m), Some(t)) if same(m, t) => {}
        _ => return None,
    }
    let (Some(dir), Some(common)) = (
        git(&["rev-parse", "--absolute-git-dir"]),
        git(&["rev-parse", "--git-common-dir"]),
    ) else {
        return None;
    };
    let common = match Path::new(&common) {
        c if c.is_absolute() => c.to_path_buf(),
        c => manifest.unwrap_or_default().join(c),
    };
    let mut watched = vec![Path::new(&dir).join("HEAD"), common.join("packed-refs")];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(Path::new(&dir).join(&branch));
        watched.push(common.join(&branch));
    }
    // A path that does not exist would run the script at every build.
    for p in watched.iter().filter(|p| p.is_file()) {
        println!("cargo::rerun-if-changed={}", p.display());
    }
    git(&["rev-parse", "HEAD"]).filter(|c| c.len() >= 40)
}

/// The commit `cargo package` recorded in the crate's .cargo_vcs_info.json
/// (`"sha1": "..."`); None outside a packaged crate, or when it was packaged from
/// a checkout with uncommitted changes (`"dirty": true`: the sources are not that
/// commit's).
fn packaged_commit() -> Option<String> {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let info = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    if info.contains("\"dirty\": true") {
        return None;
    }
    let start = info.find("\"sha1\": \"")? + "\"sha1\": \"".len();
    let commit: String = info[start..]
        .chars()
        .take_while(|c| c.is_ascii_hexdigit())
        .collect();
    (commit.len() == 40).then_some(commit)
}

/// Embed the commit as `SEEKPROBE_COMMIT` (read with `option_env!`), and
/// `SEEKPROBE_VERSION`, what `seekprobe --version` prints after the name: the
/// crate's version and the commit it was built from, or that none is known. Not
/// named SEEKPROBE_GIT_COMMIT, the variable read above: cargo also sets these in
/// the environment of the binaries `cargo test` runs, where a test's own cargo
/// build would see that input changed and build seekprobe again.
fn version(commit: Option<String>) {
    if let Some(c) = &commit {
        println!("cargo::rustc-env=SEEKPROBE_COMMIT={c}");
    }
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = commit.unwrap_or_else(|| "unknown: not built in its git checkout".to_string());
    println!("cargo::rustc-env=SEEKPROBE_VERSION={version} (commit {commit})");
}

/// Whether the kernel refuses io_uring (`kernel.io_uring_disabled`, Linux 6.6 and
/// later: 2 for everyone, 1 for users outside `io_uring_group`; root is refused only
/// at 2), or this is not Linux.
fn io_uring_disabled() -> bool {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return true;
    }
    println!("cargo::rerun-if-changed=/proc/sys/kernel/io_uring_disabled");
    match std::fs::read_to_string("/proc/sys/kernel/io_uring_disabled") {
        Ok(v) => match v.trim() {
            "0" => false,
            "1" => effective_uid() != Some(0),
            _ => true,
        },
        Err(_) => false,
    }
}

/// The effective user id of this build (Linux's /proc; `None` elsewhere, where the
/// loop-device tests do not apply).
fn effective_uid() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

/// Whether the VM tier can boot a guest here: QEMU, a kernel in /boot whose
/// modules (9p among them) are installed, a static busybox for the initramfs
/// (busybox's dynamic one cannot run there) and udev (`udevadm` and the daemon).
/// Watches /boot (flat) for a kernel installed later; the rest lands in /usr/bin
/// or /usr/sbin, watched already.
fn vm_tools() -> bool {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return false;
    }
    println!("cargo::rerun-if-changed=/boot");
    let kernel = std::fs::read_dir("/boot").ok().is_some_and(|d| {
        d.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("vmlinuz-").is_some_and(|v| {
                Path::new("/lib/modules")
                    .join(v)
                    .join("kernel/fs/9p")
                    .is_dir()
            })
        })
    });
    let udevd = [
        "/lib/systemd/systemd-udevd",
        "/usr/lib/systemd/systemd-udevd",
    ];
    on_path("qemu-system-x86_64").is_some()
        && kernel
        && static_elf(Path::new("/bin/busybox"))
        && (on_path("udevadm").is_some() || Path::new("/usr/bin/udevadm").is_file())
        && udevd.iter().any(|p| Path::new(p).is_file())
}

/// Whether `path` is a statically linked 64-bit ELF file: no PT_INTERP (3)
/// among its program headers.
fn static_elf(path: &Path) -> bool {
    let Ok(b) = std::fs::read(path) else {
        return false;
    };
    let u16_at = |o: usize| b.get(o..o + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
    let u64_at = |o: usize| {
        b.get(o..o + 8)
            .map(|s| u64::from_le_bytes(s.try_into().unwrap()))
    };
    let (Some(phoff), Some(size), Some(count)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38)) else {
        return false;
    };
    b.starts_with(b"\x7fELF\x02")
        && (0..usize::from(count)).all(|i| {
            let at = phoff as usize + i * usize::from(size);
            b.get(at..at + 4) != Some(&3u32.to_le_bytes()[..])
        })
}
