//! Small helpers: running the binary, temporary image files, loop devices that are
//! detached even when a test fails.

use assert_cmd::Command;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process;

/// The seekprobe binary, ready to run.
pub fn seekprobe() -> Command {
    let mut cmd = Command::cargo_bin("seekprobe").expect("the seekprobe binary is built");
    // A burn-in without --json-file saves its run in a folder of the tests' own.
    cmd.env(
        "SEEKPROBE_RUNS_DIR",
        std::env::temp_dir().join(format!("seekprobe-it-runs-{}", std::process::id())),
    );
    cmd
}

/// Run seekprobe with `args` to its end: its exit status (-1 when a signal ended
/// it), standard output and standard error. The integration tests' one run helper.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = seekprobe().args(args).output().expect("seekprobe runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A file of `len` bytes (sparse) in a temporary directory under `dir`.
pub fn image(dir: &Path, name: &str, len: u64) -> PathBuf {
    let p = dir.join(name);
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(len).unwrap();
    p
}

/// The tool's path: PATH first, then the sbin folders (root's tools).
pub fn tool(name: &str) -> PathBuf {
    let path = std::env::var("PATH").unwrap_or_default();
    path.split(':')
        .filter(|d| !d.is_empty())
        .chain(["/usr/sbin", "/sbin", "/usr/bin"])
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from(name))
}

/// A temporary directory on /dev/shm when it exists (images there cost no disk
/// I/O), else in the temp dir.
pub fn scratch_dir() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm).unwrap()
    } else {
        tempfile::tempdir().unwrap()
    }
}

/// An attached loop device and its backing file, detached and removed on drop,
/// even when the test panics.
pub struct LoopDev {
    /// The device node, e.g. /dev/loop3.
    pub dev: String,
    backing: PathBuf,
}

impl LoopDev {
    /// Attach a new loop device over a fresh `len`-byte file in `dir`.
    pub fn new(dir: &Path, len: u64, direct_io: bool, sector_size: Option<u32>) -> LoopDev {
        let backing = dir.join(format!("loop-backing-{}-{len}", process::id()));
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(len).unwrap();
        drop(f);
        let mut cmd = process::Command::new("losetup");
        cmd.args(["-f", "--show"]);
        if direct_io {
            cmd.arg("--direct-io=on");
        }
        if let Some(ss) = sector_size {
            cmd.arg(format!("--sector-size={ss}"));
        }
        let out = cmd.arg(&backing).output().expect("losetup runs");
        assert!(
            out.status.success(),
            "losetup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        LoopDev { dev, backing }
    }

    /// The short name, e.g. loop3.
    pub fn short_name(&self) -> &str {
        self.dev.trim_start_matches("/dev/")
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
        let _ = std::fs::remove_file(&self.backing);
    }
}
