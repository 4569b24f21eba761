//! The faulty block device for tests: examples/faultdisk mounted over a backing file
//! in /dev/shm, a loop device attached over its `disk`, its counters read from its
//! `stats`. Everything is undone on drop, even when the test panics: the loop device
//! detached, hung requests freed by aborting the FUSE connection, the mount undone
//! with `fusermount3 -u`, the process ended.

use crate::helpers::scratch_dir;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The `--io-timeout`, in seconds, of the tests whose faulty device hangs. A
/// healthy request must be answered well within it on a busy machine too: the
/// loop device serves faultdisk's requests one at a time, so a request waits for
/// all those handed out before it. Beside a busy CPU (issue 40's first done-when),
/// a scan's read of 1 MiB handed out at its start, sixth in that line, once went
/// unanswered for 2 s, the limit then, 15 MiB before the hanging area.
pub const HUNG_IO_TIMEOUT_S: u64 = 5;

/// Whether a watchdog's "no answer for `waited` s" is the wait of
/// [`HUNG_IO_TIMEOUT_S`]: at least that, by up to a second (the watchdog polls).
pub fn waited_the_hung_limit(waited: f64) -> bool {
    let limit = HUNG_IO_TIMEOUT_S as f64;
    (limit..limit + 1.0).contains(&waited)
}

/// The faultdisk binary, built once per test run when `cargo test --test it` did
/// not build the examples, with the profile of this test binary (see
/// [`crate::helpers::cargo_profile`]).
fn binary() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let bin = crate::helpers::profile_dir()
            .join("examples")
            .join("faultdisk");
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "--example", "faultdisk", "--profile"])
            .arg(crate::helpers::cargo_profile())
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building examples/faultdisk failed");
        bin
    })
}

/// A mounted faultdisk and a loop device over it.
pub struct FaultDisk {
    /// The loop device, e.g. /dev/loop3.
    pub dev: String,
    mount: PathBuf,
    child: Option<Child>,
    _dir: tempfile::TempDir,
}

/// The counters faultdisk keeps, from its `stats` file.
#[derive(Debug)]
pub struct Stats {
    /// The whole JSON object.
    pub json: serde_json::Value,
}

impl Stats {
    /// A top-level counter (reads, writes, read_bytes, write_bytes, failed, flushes, hung).
    pub fn get(&self, key: &str) -> u64 {
        self.json[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {}", self.json))
    }

    /// The reads and writes counted by the rule written as `rule`.
    pub fn rule(&self, rule: &str) -> (u64, u64) {
        let r = self.json["rules"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["rule"] == rule)
            .unwrap_or_else(|| panic!("no rule {rule} in {}", self.json));
        (r["reads"].as_u64().unwrap(), r["writes"].as_u64().unwrap())
    }
}

impl FaultDisk {
    /// Mount a `len`-byte faulty disk with `rules` (faultdisk's syntax, e.g.
    /// `read-error=2048s-2056s`) and attach a loop device (direct I/O) over it.
    pub fn new(len: u64, rules: &[&str]) -> FaultDisk {
        let dir = scratch_dir();
        let backing = dir.path().join("backing");
        std::fs::File::create(&backing)
            .unwrap()
            .set_len(len)
            .unwrap();
        let mount = dir.path().join("mnt");
        std::fs::create_dir(&mount).unwrap();
        let child = Command::new(binary())
            .arg(&backing)
            .arg(&mount)
            .args(rules)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("faultdisk starts");
        let mut fd = FaultDisk {
            dev: String::new(),
            mount,
            child: Some(child),
            _dir: dir,
        };
        let until = Instant::now() + Duration::from_secs(10);
        while !fd.disk().is_file() {
            assert!(Instant::now() < until, "faultdisk did not mount");
            if let Some(status) = fd.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("faultdisk ended: {status}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = Command::new(crate::helpers::tool("losetup"))
            .args(["-f", "--show", "--direct-io=on"])
            .arg(fd.disk())
            .output()
            .expect("losetup runs");
        assert!(
            out.status.success(),
            "losetup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        fd.dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        fd
    }

    /// The served file.
    fn disk(&self) -> PathBuf {
        self.mount.join("disk")
    }

    /// The counters now.
    pub fn stats(&self) -> Stats {
        let text = std::fs::read_to_string(self.mount.join("stats")).unwrap();
        Stats {
            json: serde_json::from_str(&text).unwrap(),
        }
    }

    /// The counters once the loop device has no request in flight (its
    /// `/sys/block/loopN/inflight` reads 0 0): every request made so far, even by a
    /// program already ended, has reached the device. No quiet period is guessed:
    /// a loop device's queue drains late on a busy machine.
    pub fn settled(&self) -> Stats {
        let inflight = Path::new("/sys/block")
            .join(self.dev.trim_start_matches("/dev/"))
            .join("inflight");
        let read = || std::fs::read_to_string(&inflight).unwrap_or_default();
        crate::helpers::wait_for(
            "no request in flight on the loop device",
            Duration::from_millis(10),
            || read().split_whitespace().all(|n| n == "0").then_some(()),
            || None,
            || format!("{}: {}; {:?}", inflight.display(), read(), self.stats()),
        );
        self.stats()
    }

    /// Wait, while `run` runs, until the counter `key` is at least `at_least`.
    pub fn wait_counter(&self, run: &mut crate::helpers::Spawned, key: &str, at_least: u64) {
        let what = format!("the device's {key} to reach {at_least}");
        run.wait_until(&what, |_| (self.stats().get(key) >= at_least).then_some(()));
    }

    /// Send control lines (`add RULE`, `clear`, `vanish`, `release`).
    pub fn control(&self, line: &str) {
        std::fs::write(self.mount.join("control"), format!("{line}\n")).unwrap();
    }

    /// The backing file's bytes `[off, off + len)` (what the disk stored).
    pub fn stored(&self, off: u64, len: usize) -> Vec<u8> {
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::open(self.mount.parent().unwrap().join("backing")).unwrap();
        let mut buf = vec![0; len];
        f.read_exact_at(&mut buf, off).unwrap();
        buf
    }

    /// Abort the FUSE connection: every request still pending, and every later one,
    /// fails with ENOTCONN (the kernel gives hung requests back).
    pub fn abort(&self) {
        let Ok(meta) = std::fs::metadata(&self.mount) else {
            return;
        };
        // A FUSE mount's st_dev is an anonymous device (major 0): its connection's
        // folder is named by the device number.
        let dev = meta.dev();
        let conns = Path::new("/sys/fs/fuse/connections");
        if std::fs::read_dir(conns)
            .map(|mut d| d.next().is_none())
            .unwrap_or(true)
        {
            let _ = Command::new("mount")
                .args(["-t", "fusectl", "none"])
                .arg(conns)
                .status();
        }
        let minor = libc::minor(dev);
        let _ = std::fs::write(conns.join(minor.to_string()).join("abort"), "1");
    }
}

impl Drop for FaultDisk {
    fn drop(&mut self) {
        // Free what hangs first, so that losetup -d and the unmount do not wait.
        let hung = std::fs::read_to_string(self.mount.join("stats"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|v| v["hung"].as_u64());
        if hung != Some(0) {
            self.abort();
        }
        if !self.dev.is_empty() {
            // A test may have made it read-only (blockdev --setro): the flag outlives
            // the attachment, so the next user of this loop device would find it so.
            let _ = Command::new(crate::helpers::tool("blockdev"))
                .args(["--setrw", &self.dev])
                .status();
            let _ = Command::new(crate::helpers::tool("losetup"))
                .args(["-d", &self.dev])
                .status();
        }
        let unmounted = Command::new("fusermount3")
            .arg("-u")
            .arg(&self.mount)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !unmounted {
            self.abort();
            let _ = Command::new("fusermount3")
                .arg("-uz")
                .arg(&self.mount)
                .stderr(Stdio::null())
                .status();
        }
        if let Some(mut child) = self.child.take() {
            let until = Instant::now() + Duration::from_secs(5);
            while child.try_wait().ok().flatten().is_none() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
