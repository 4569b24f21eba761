//! The guest's kernel and initramfs: Debian's installed kernel (/boot/vmlinuz-VERSION,
//! the newest whose modules are in /lib/modules/VERSION: the host's own running kernel
//! may have none), and an initramfs made for it at each boot: busybox-static, the
//! modules that mount the host's root over virtio-9p (found with `modprobe -S VERSION
//! --show-depends`, in the order they load), and an `/init` that mounts it, runs the
//! scenario's script chrooted into it and powers off. Packed with busybox's own
//! `cpio -o -H newc`, the format the kernel unpacks.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The kernel modules the guest loads before it can mount its shares.
const MODULES: [&str; 3] = ["virtio_pci", "9pnet_virtio", "9p"];

/// Where busybox-static installs its binary (build.rs's `seekprobe_vm` checks that
/// it is static: busybox's dynamic one lives there too, and an initramfs has no C
/// library; the kernel would panic, unable to run `/init`).
pub const BUSYBOX: &str = "/bin/busybox";

/// The guest's `/init`: mounts what the chroot needs (its own /proc, /sys, /dev,
/// /run and /tmp over the host's), the host's root read-only (`host`), the
/// scenario's share writable at /mnt (`share`) and this build's binaries at
/// /mnt/bin (the folder /mnt/bin.dir names), runs /mnt/run.sh chrooted into the
/// host's root, and powers off (QEMU, run with -no-reboot, then exits).
const INIT: &str = r#"#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t devtmpfs dev /dev
exec </dev/console >/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in $(cat /modules/order); do insmod /modules/$m || echo "guest: insmod $m failed"; done
opts=trans=virtio,version=9p2000.L,msize=512000
if mount -t 9p -o $opts,ro,cache=loose host /host && mount -t 9p -o $opts share /host/mnt; then
  # This build's binaries at /mnt/bin wherever the checkout is: the tmpfs below
  # hides the host's /tmp.
  mount --bind "/host$(cat /host/mnt/bin.dir)" /host/mnt/bin
  for d in proc sys dev; do mount --bind /$d /host/$d; done
  mount -t tmpfs run /host/run
  mount -t tmpfs tmp /host/tmp
  echo "guest: up at $(cut -d' ' -f1 /proc/uptime) s"
  chroot /host /bin/sh /mnt/run.sh
  echo "guest: the script ended ($?) at $(cut -d' ' -f1 /proc/uptime) s"
else
  echo "guest: the shares could not be mounted"
fi
sync
poweroff -f
"#;

/// A kernel to boot and the version its modules are installed under.
#[derive(Debug, Clone)]
pub struct Kernel {
    /// /boot/vmlinuz-VERSION.
    pub image: PathBuf,
    /// VERSION, e.g. 6.1.0-57-amd64.
    pub version: String,
}

/// The newest /boot/vmlinuz-VERSION whose modules are installed (with 9p among
/// them), or why there is none.
pub fn kernel() -> Result<Kernel, String> {
    let mut found: Vec<Kernel> = std::fs::read_dir("/boot")
        .map_err(|e| format!("/boot: {e}"))?
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let version = name.strip_prefix("vmlinuz-")?.to_string();
            let modules = Path::new("/lib/modules").join(&version);
            modules.join("kernel/fs/9p").is_dir().then(|| Kernel {
                image: Path::new("/boot").join(&name),
                version,
            })
        })
        .collect();
    found.sort_by_key(|k| natural(&k.version));
    found.pop().ok_or_else(|| {
        "no /boot/vmlinuz-VERSION with its modules (and 9p among them) in /lib/modules/VERSION: install linux-image-amd64".to_string()
    })
}

/// A version string as numbers and words in turn, so that 6.1.0-57 sorts after
/// 6.1.0-9.
fn natural(v: &str) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    let mut rest = v;
    while !rest.is_empty() {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (num, tail) = rest.split_at(digits);
        let word_len = tail.len() - tail.trim_start_matches(|c: char| !c.is_ascii_digit()).len();
        let (word, tail) = tail.split_at(word_len);
        out.push((num.parse().unwrap_or(0), word.to_string()));
        rest = tail;
    }
    out
}

/// The modules `module` needs and itself, in load order, as `modprobe -S VERSION
/// --show-depends` lists them (`insmod PATH`); built-in ones are left out.
fn depends(version: &str, module: &str) -> Result<Vec<PathBuf>, String> {
    let out = Command::new(crate::helpers::tool("modprobe"))
        .args(["-S", version, "--show-depends", module])
        .output()
        .map_err(|e| format!("modprobe: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "modprobe -S {version} --show-depends {module}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix("insmod "))
        .filter_map(|l| l.split_whitespace().next())
        .map(PathBuf::from)
        .collect())
}

/// Make the initramfs for `kernel` at `dest`, staged in `work` (a directory of the
/// boot's own).
pub fn build(kernel: &Kernel, work: &Path, dest: &Path) -> Result<(), String> {
    let stage = work.join("initramfs");
    let io = |e: std::io::Error| format!("{}: {e}", stage.display());
    for d in ["bin", "modules", "proc", "sys", "dev", "host"] {
        std::fs::create_dir_all(stage.join(d)).map_err(io)?;
    }
    std::fs::copy(BUSYBOX, stage.join("bin/busybox")).map_err(io)?;
    std::fs::write(stage.join("init"), INIT).map_err(io)?;
    std::fs::set_permissions(
        stage.join("init"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .map_err(io)?;
    let mut order: Vec<String> = Vec::new();
    for m in MODULES {
        for path in depends(&kernel.version, m)? {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".ko") {
                return Err(format!(
                    "{}: compressed modules are not unpacked here",
                    path.display()
                ));
            }
            if !order.contains(&name) {
                std::fs::copy(&path, stage.join("modules").join(&name)).map_err(io)?;
                order.push(name);
            }
        }
    }
    std::fs::write(stage.join("modules/order"), order.join("\n")).map_err(io)?;
    let mut list: Vec<String> = ["bin", "bin/busybox", "modules", "modules/order", "init"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    list.extend(order.iter().map(|m| format!("modules/{m}")));
    list.extend(["proc", "sys", "dev", "host"].map(String::from));
    cpio(&stage, &list, dest)
}

/// Pack `list` (paths relative to `stage`, each directory before what it holds)
/// into `dest` with `busybox cpio -o -H newc`.
fn cpio(stage: &Path, list: &[String], dest: &Path) -> Result<(), String> {
    use std::io::Write;
    let out = std::fs::File::create(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
    let mut child = Command::new(BUSYBOX)
        .args(["cpio", "-o", "-H", "newc"])
        .current_dir(stage)
        .stdin(Stdio::piped())
        .stdout(out)
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("busybox cpio: {e}"))?;
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(format!("{}\n", list.join("\n")).as_bytes())
        .map_err(|e| format!("busybox cpio: {e}"))?;
    drop(stdin);
    match child.wait() {
        Ok(s) if s.success() => Ok(()),
        other => Err(format!("busybox cpio -o -H newc ended {other:?}")),
    }
}

#[test]
fn versions_sort_by_their_numbers() {
    let mut v = ["6.1.0-9-amd64", "6.1.0-57-amd64", "5.10.0-30-amd64"];
    v.sort_by_key(|s| natural(s));
    assert_eq!(v, ["5.10.0-30-amd64", "6.1.0-9-amd64", "6.1.0-57-amd64"]);
}
