//! A throwaway root for the tests that install the Debian package: an overlay
//! over the host's / (its upper layer a tmpfs) with /dev, /dev/pts, /proc and a
//! scratch /tmp, chroot'ed into. Its mounts live in a mount namespace of their
//! own, held by a `sleep` that dies with the test's thread (PR_SET_PDEATHSIG):
//! the host's mount table never sees them, and what apt-get changes lands in the
//! upper layer, gone with the namespace. On drop every process in the namespace is
//! killed, so nothing keeps it alive, even when the test fails.
//!
//! Why the host's / is never written, whatever fails and wherever: overlayfs
//! never writes to its lower layer; the `sleep` is spawned only once its namespace
//! is its own and every mount in it private (else the spawn fails), and the
//! mounts are made only after checking it is another namespace than the test's;
//! the mount script stops at its first failure; every command runs through
//! `chroot` into the overlay's mount point, which exists only inside the
//! namespace (on the host it is a path in an empty folder, so `chroot` fails and
//! nothing runs), and `nsenter` names the holder by its pid, which cannot be
//! reused while the test holds it unreaped. What the root shares with the host:
//! /dev, /dev/pts and /proc (nothing installed there by a package without
//! maintainer scripts, like seekprobe's), and its /tmp, a scratch folder.
//! A test killed outright (SIGKILL) leaves at worst a process of the root (a tmux
//! server) holding the namespace and its tmpfs; the host's / is still untouched.

use crate::helpers::Finish;
use crate::helpers::scratch_dir;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The environment commands get in the root: nothing of the test's own.
const ENV: [&str; 5] = [
    "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
    "HOME=/root",
    "LANG=C.UTF-8",
    "TERM=xterm",
    "DEBIAN_FRONTEND=noninteractive",
];

/// A root to install packages into, and throw away.
pub struct ThrowawayRoot {
    /// The `sleep` holding the mount namespace.
    holder: Child,
    /// Where the overlay is mounted, in the namespace.
    root: PathBuf,
    /// The root's /tmp, seen from the host.
    tmp: PathBuf,
    /// The folder holding both (the layers' tmpfs is mounted in it, in the
    /// namespace only).
    _dir: tempfile::TempDir,
}

impl ThrowawayRoot {
    /// Mount a fresh root. Needs root (CAP_SYS_ADMIN) and overlayfs.
    pub fn new() -> ThrowawayRoot {
        let dir = scratch_dir();
        let (layers, tmp) = (dir.path().join("layers"), dir.path().join("tmp"));
        std::fs::create_dir(&layers).unwrap();
        std::fs::create_dir(&tmp).unwrap();
        let mut sleep = Command::new("sleep");
        sleep.arg("infinity").stdin(Stdio::null());
        // SAFETY: between fork and exec the closure makes three system calls
        // through libc and allocates nothing: a mount namespace of its own, its
        // mounts made private (none of them reaches the host's), and SIGKILL when
        // the thread that spawned it (the test's) ends.
        unsafe {
            sleep.pre_exec(|| {
                let check = |r: libc::c_int| match r {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                };
                check(libc::unshare(libc::CLONE_NEWNS))?;
                check(libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ))?;
                check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))
            });
        }
        let holder = sleep.spawn().expect("a mount namespace (needs root)");
        let r = ThrowawayRoot {
            holder,
            root: layers.join("root"),
            tmp,
            _dir: dir,
        };
        r.mount(&layers);
        r
    }

    /// The tmpfs, the overlay over / and what the root needs of the host, once
    /// the holder's mount namespace is known to be another than the test's.
    fn mount(&self, layers: &Path) {
        let ours = mount_ns(&self.holder.id().to_string());
        assert!(
            ours.is_some() && ours != mount_ns("self"),
            "the throwaway root's holder is not in a mount namespace of its own"
        );
        let l = layers.display();
        let root = self.root.display();
        let tmp = self.tmp.display();
        self.in_namespace(&format!(
            "set -e
             mount -t tmpfs seekprobe-throwaway {l}
             mkdir {l}/upper {l}/work {l}/root
             mount -t overlay overlay -o lowerdir=/,upperdir={l}/upper,workdir={l}/work {root}
             mount --bind /dev {root}/dev
             mount --bind /dev/pts {root}/dev/pts
             mount -t proc proc {root}/proc
             mount --bind {tmp} {root}/tmp"
        ));
    }

    /// Run a shell script in the namespace (not chroot'ed), asserting it succeeds.
    fn in_namespace(&self, script: &str) {
        Command::new("nsenter")
            .arg(format!("--mount=/proc/{}/ns/mnt", self.holder.id()))
            .args(["--", "sh", "-c", script])
            .stdout_of_success();
    }

    /// The root's /tmp as the host sees it: files put there are in the root's /tmp.
    pub fn tmp(&self) -> &Path {
        &self.tmp
    }

    /// `program` run in the root, with [`ENV`] only.
    pub fn command(&self, program: &str) -> Command {
        let mut c = Command::new("nsenter");
        c.arg(format!("--mount=/proc/{}/ns/mnt", self.holder.id()))
            .arg("--")
            .arg("chroot")
            .arg(&self.root)
            .arg("env")
            .arg("-i")
            .args(ENV)
            .arg(program)
            .stdin(Stdio::null());
        c
    }

    /// A shell script run in the root: its exit status and its output (stdout
    /// then stderr).
    pub fn sh(&self, script: &str) -> (i32, String) {
        let (code, out, err) = self.command("sh").args(["-c", script]).outcome();
        (code, out + &err)
    }
}

/// The mount namespace of a process (`self` or a pid), as /proc names it.
fn mount_ns(pid: &str) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/{pid}/ns/mnt")).ok()
}

impl Drop for ThrowawayRoot {
    /// Kill every process of the namespace (a tmux server, a hung apt-get), then
    /// its holder: the namespace, and with it every mount and the upper layer, ends.
    fn drop(&mut self) {
        let ours = mount_ns(&self.holder.id().to_string());
        if ours.is_some() && ours != mount_ns("self") {
            for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                let pid = e.file_name().to_string_lossy().to_string();
                if pid.parse::<i32>().is_ok() && mount_ns(&pid) == ours {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(pid.parse().unwrap()),
                        nix::sys::signal::SIGKILL,
                    );
                }
            }
        }
        let _ = self.holder.kill();
        let _ = self.holder.wait();
    }
}
