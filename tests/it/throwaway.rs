//! A throwaway root for the tests that install the Debian package: an overlay
//! over the host's / (its upper layer a tmpfs) with /dev, /dev/pts, /proc and a
//! scratch /tmp, chroot'ed into. Its mounts live in a mount namespace of their
//! own, held by a `sleep` that dies with the test's thread (PR_SET_PDEATHSIG):
//! the host's mount table never sees them, and what apt-get changes lands in the
//! upper layer, gone with the namespace. On drop every process in the namespace is
//! killed, so nothing keeps it alive, even when the test fails.

use crate::helpers::Finish;
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
        let dir = crate::helpers::scratch_dir();
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

    /// The tmpfs, the overlay over / and what the root needs of the host.
    fn mount(&self, layers: &Path) {
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

impl Drop for ThrowawayRoot {
    /// Kill every process of the namespace (a tmux server, a hung apt-get), then
    /// its holder: the namespace, and with it every mount and the upper layer, ends.
    fn drop(&mut self) {
        let ns = |pid: &str| std::fs::read_link(format!("/proc/{pid}/ns/mnt")).ok();
        let ours = ns(&self.holder.id().to_string());
        if ours.is_some() && ours != ns("self") {
            for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                let pid = e.file_name().to_string_lossy().to_string();
                if pid.parse::<i32>().is_ok() && ns(&pid) == ours {
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
