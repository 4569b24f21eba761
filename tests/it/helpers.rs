//! Small helpers: running the binary, temporary image files, loop devices that are
//! detached even when a test fails.

use assert_cmd::Command;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process;

/// The seekprobe binary, ready to run.
pub fn seekprobe() -> Command {
    let mut cmd = Command::cargo_bin("seekprobe").expect("the seekprobe binary is built");
    cmd.env("SEEKPROBE_RUNS_DIR", runs_dir());
    cmd
}

/// The seekprobe binary as a plain [`process::Command`], for a test that starts it
/// itself (in the background, with pipes): [`runs_dir`] set as [`seekprobe`] does.
pub fn seekprobe_command() -> process::Command {
    let mut cmd = process::Command::new(assert_cmd::cargo::cargo_bin("seekprobe"));
    cmd.env("SEEKPROBE_RUNS_DIR", runs_dir());
    cmd
}

/// Where a burn-in these tests run without `--json-file` saves its run: a folder
/// of this test process's own in the temp dir, never the machine's
/// /var/lib/seekprobe/runs. Every way the tests start seekprobe sets it as
/// SEEKPROBE_RUNS_DIR ([`seekprobe`], [`seekprobe_command`], terminal.rs's tmux,
/// live.rs's script(1)); a test that gives its own sets it after. Removed when
/// this test process exits ([`remove_runs_dir`]).
pub fn runs_dir() -> PathBuf {
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: atexit only records the function's address; the function is a
        // plain `extern "C" fn` that neither unwinds nor needs this stack frame.
        let r = unsafe { libc::atexit(remove_runs_dir) };
        assert_eq!(r, 0, "atexit refused the runs dir's removal");
    });
    runs_path()
}

/// [`runs_dir`]'s path: the temp dir's `seekprobe-it-runs-PID`.
fn runs_path() -> PathBuf {
    std::env::temp_dir().join(format!("seekprobe-it-runs-{}", process::id()))
}

/// Remove [`runs_dir`] and what the runs left in it, at this test process's exit
/// (the test harness's end, passed or failed): each run of the suite would else
/// leave a folder in the temp dir. Ignores every error: nothing may unwind here.
extern "C" fn remove_runs_dir() {
    let _ = std::fs::remove_dir_all(runs_path());
}

/// Run seekprobe with `args` to its end: its exit status (-1 when a signal ended
/// it), standard output and standard error. The integration tests' one run helper.
pub fn run<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    seekprobe().args(args).outcome()
}

/// Run seekprobe with `args` to its end, asserting that it refuses them: exit
/// status 1, and standard error saying `says`.
pub fn refused<S: AsRef<OsStr>>(args: &[S], says: &str) {
    let (code, out, err) = run(args);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains(says), "expected {says:?} in: {err}");
}

/// A command run to its end, seekprobe's ([`seekprobe`]) or another program's.
pub trait Finish {
    /// Its output; panics when the program cannot be started.
    fn output_of(&mut self) -> process::Output;

    /// Its exit status (-1 when a signal ended it), standard output and standard
    /// error (lossily decoded).
    fn outcome(&mut self) -> (i32, String, String) {
        let out = self.output_of();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Its standard output, which must be UTF-8, after asserting that it exited
    /// 0 (the panic carries its standard error).
    fn stdout_of_success(&mut self) -> String {
        let out = self.output_of();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("its standard output is UTF-8")
    }
}

impl Finish for Command {
    fn output_of(&mut self) -> process::Output {
        self.output().expect("the program runs")
    }
}

impl Finish for process::Command {
    fn output_of(&mut self) -> process::Output {
        self.output().expect("the program runs")
    }
}

/// Run seekprobe with `args`, then `--json-file` (a file in a fresh directory),
/// then `disks`, to its end: its exit status, standard output and error, and the
/// run it saved (the test fails when it saved none).
pub fn run_saved(args: &[&str], disks: &[&str]) -> (i32, String, String, serde_json::Value) {
    let dir = temp_dir();
    let json = dir.path().join("run.json");
    let (code, out, err) = seekprobe()
        .args(args)
        .arg("--json-file")
        .arg(&json)
        .args(disks)
        .outcome();
    let saved = std::fs::read(&json).unwrap_or_else(|e| panic!("no saved run ({e}): {out}{err}"));
    let v = serde_json::from_slice(&saved).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, out, err, v)
}

/// The failed ranges of pass `pass` of the first drive's first test's verify, in
/// a saved run: (kind, start sector, sectors).
pub fn verify_ranges(v: &serde_json::Value, pass: usize) -> Vec<(String, u64, u64)> {
    v["disks"][0]["tests"][0]["verify"]["passes"][pass]["failures"]["ranges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["kind"].as_str().unwrap().to_string(),
                r["start_lba"].as_u64().unwrap(),
                r["sectors"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The folder of the target directory this test binary was built into
/// (target/debug/deps/it-HASH -> target/debug): where cargo put the seekprobe
/// binary and the examples.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// The cargo profile that builds into [`profile_dir`], for a test's own `cargo
/// build` of an example. `cargo test` builds into target/debug with the `test`
/// profile and builds the examples with it too, so cargo finds them fresh; the
/// `dev` profile of a plain `cargo build` differs from Cargo.toml's
/// `[profile.test]` (full debug info) and would build every dependency and the
/// seekprobe library again while the tests run (on a fresh clone `it` took 343 s
/// with that second build, 227 and 209 s without: docs/testing.md). `cargo test
/// --release` builds into target/release; any other profile's folder is its name.
pub fn cargo_profile() -> String {
    match profile_dir().file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "test".to_string(),
        Some(name) => name.to_string(),
    }
}

/// A fresh temporary directory and the path of the file `name` in it (not made):
/// where a test has seekprobe save its run.
pub fn run_file(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir();
    let path = dir.path().join(name);
    (dir, path)
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
        temp_dir()
    }
}

/// A fresh directory in the system's temp dir (`std::env::temp_dir()`, a disk's
/// file system on most machines), removed on drop: for what must not sit in RAM
/// (a loop device over tmpfs is data in memory), and for the files of a run.
/// With [`scratch_dir`], the tests' only makers of temporary directories.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

/// An attached loop device and its backing file, detached and removed on drop,
/// even when the test panics.
pub struct LoopDev {
    /// The device node, e.g. /dev/loop3.
    pub dev: String,
    backing: PathBuf,
    /// The scratch directory of [`LoopDev::scratch`], removed after the backing file.
    _dir: Option<tempfile::TempDir>,
}

impl LoopDev {
    /// Attach a new loop device over a fresh `len`-byte file in `dir`.
    pub fn new(dir: &Path, len: u64, direct_io: bool, sector_size: Option<u32>) -> LoopDev {
        let mut flags = Vec::new();
        if direct_io {
            flags.push("--direct-io=on".to_string());
        }
        if let Some(ss) = sector_size {
            flags.push(format!("--sector-size={ss}"));
        }
        LoopDev::attach(dir, len, &flags)
    }

    /// [`LoopDev::scratch`], attached read-only (`losetup -r`): the kernel reports
    /// it read-only (BLKROGET) until it is detached, and no later loop device of
    /// its number inherits that (as `blockdev --setro` would leave it).
    pub fn scratch_read_only(len: u64) -> LoopDev {
        let dir = scratch_dir();
        let mut l = LoopDev::attach(dir.path(), len, &["-r".to_string()]);
        l._dir = Some(dir);
        l
    }

    /// Attach a loop device with `flags` over a fresh `len`-byte file in `dir`.
    fn attach(dir: &Path, len: u64, flags: &[String]) -> LoopDev {
        let backing = dir.join(format!("loop-backing-{}-{len}", process::id()));
        let f = std::fs::File::create(&backing).unwrap();
        f.set_len(len).unwrap();
        drop(f);
        let mut cmd = process::Command::new("losetup");
        cmd.args(["-f", "--show"]).args(flags);
        let out = cmd.arg(&backing).output().expect("losetup runs");
        assert!(
            out.status.success(),
            "losetup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let dev = String::from_utf8(out.stdout).unwrap().trim().to_string();
        LoopDev {
            dev,
            backing,
            _dir: None,
        }
    }

    /// [`LoopDev::new`] in a [`scratch_dir`] of its own, removed with it.
    pub fn scratch(len: u64, direct_io: bool, sector_size: Option<u32>) -> LoopDev {
        let dir = scratch_dir();
        let mut l = LoopDev::new(dir.path(), len, direct_io, sector_size);
        l._dir = Some(dir);
        l
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

/// The longest a test waits for a program it started that is still working: a
/// ceiling against a hang, far above any run of the suite even on a loaded machine.
/// A wait ends earlier as soon as what it waits for happens, or the program ends.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(600);

/// Poll `ready` (every `every`) until it gives a value. It gives up, panicking with
/// `what` it waited for and what `seen` says now, when `ended` says the awaited work
/// can no longer happen (e.g. the program exited; its words are in the panic), or
/// after [`PATIENCE`].
pub fn wait_for<T>(
    what: &str,
    every: std::time::Duration,
    mut ready: impl FnMut() -> Option<T>,
    mut ended: impl FnMut() -> Option<String>,
    seen: impl Fn() -> String,
) -> T {
    let t0 = std::time::Instant::now();
    loop {
        if let Some(v) = ready() {
            return v;
        }
        if let Some(why) = ended() {
            // One last look: the state may have come with the end.
            if let Some(v) = ready() {
                return v;
            }
            panic!(
                "gave up waiting for {what} after {:?}: {why}; saw: {}",
                t0.elapsed(),
                seen()
            );
        }
        assert!(
            t0.elapsed() < PATIENCE,
            "gave up waiting for {what} after {:?}; saw: {}",
            t0.elapsed(),
            seen()
        );
        std::thread::sleep(every);
    }
}

/// A seekprobe started in the background, its standard output and error going to
/// files of its own (read while it runs), a `--json-file` path beside them.
pub struct Spawned {
    /// The running program.
    pub child: process::Child,
    /// Where it saves its run when `--json-file` [`Spawned::json_file`] is given.
    pub json_file: PathBuf,
    args: String,
    out: PathBuf,
    err: PathBuf,
    _dir: tempfile::TempDir,
}

impl Spawned {
    /// Start seekprobe with `args` and `env` (in the test's working directory).
    pub fn start<S: AsRef<OsStr>>(args: &[S], env: &[(&str, &OsStr)]) -> Spawned {
        Spawned::launch(args, None::<&[&str]>, env)
    }

    /// Start seekprobe with `args`, then `--json-file` [`Spawned::json_file`], then
    /// `disks`, and `env`.
    pub fn saving<S: AsRef<OsStr>>(args: &[S], disks: &[&str], env: &[(&str, &OsStr)]) -> Spawned {
        Spawned::launch(args, Some(disks), env)
    }

    fn launch<S: AsRef<OsStr>>(
        args: &[S],
        disks: Option<&[&str]>,
        env: &[(&str, &OsStr)],
    ) -> Spawned {
        let dir = scratch_dir();
        let (out, err) = (dir.path().join("stdout"), dir.path().join("stderr"));
        let json_file = dir.path().join("run.json");
        let mut all: Vec<std::ffi::OsString> = args.iter().map(|a| a.as_ref().to_owned()).collect();
        if let Some(disks) = disks {
            all.push("--json-file".into());
            all.push(json_file.clone().into());
            all.extend(disks.iter().map(std::ffi::OsString::from));
        }
        let child = seekprobe_command()
            .args(&all)
            .envs(env.iter().copied())
            .stdin(process::Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .expect("seekprobe starts");
        let args = all
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        Spawned {
            child,
            json_file,
            args,
            out,
            err,
            _dir: dir,
        }
    }

    /// Its standard output so far.
    pub fn stdout(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    /// Its standard error so far.
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.err).unwrap_or_default()
    }

    /// Its saved run ([`Spawned::json_file`]) when it is there and whole.
    pub fn json(&self) -> Option<serde_json::Value> {
        let bytes = std::fs::read(&self.json_file).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Wait until `ready` gives a value (polled every 10 ms) while the program runs;
    /// it panics with what the program printed if the program ends first.
    pub fn wait_until<T>(&mut self, what: &str, mut ready: impl FnMut(&Spawned) -> Option<T>) -> T {
        let status = |s: &mut Spawned| s.child.try_wait().unwrap();
        let me = std::cell::RefCell::new(self);
        wait_for(
            what,
            std::time::Duration::from_millis(10),
            || ready(&me.borrow()),
            || {
                let st = status(&mut me.borrow_mut())?;
                Some(format!("seekprobe {} ended ({st})", me.borrow().args))
            },
            || {
                let s = me.borrow();
                format!("stdout: {}\nstderr: {}", s.stdout(), s.stderr())
            },
        )
    }

    /// Send `sig` to it.
    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.child.id() as i32), sig).unwrap();
    }

    /// Wait for its end: its exit status (None when a signal ended it), standard
    /// output and standard error.
    pub fn finish(&mut self) -> (Option<i32>, String, String) {
        let status = self.child.wait().unwrap();
        (status.code(), self.stdout(), self.stderr())
    }
}

impl Drop for Spawned {
    fn drop(&mut self) {
        // A test that failed leaves no run behind (a run held in the kernel by a
        // hung request ends when the device frees it; it is not waited for).
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.try_wait();
        }
    }
}

/// Test functions that run only where the build found what they need (build.rs's
/// `seekprobe_*` cfgs): each `fn` given becomes a `#[test]`, ignored with `$why`
/// when `$unless` holds. One gate per missing tool, each written once below, so a
/// reason reads the same in every test that needs that tool (.ci/run lists the
/// tests allowed to be ignored).
macro_rules! gated_tests {
    ($unless:meta, $why:literal, $($(#[$meta:meta])* fn $name:ident() $body:block)*) => {$(
        $(#[$meta])*
        #[test]
        #[cfg_attr($unless, ignore = $why)]
        fn $name() $body
    )*};
}

/// Tests of tests/it/faultdisk.rs's faulty device: root, /dev/loop-control,
/// /dev/fuse and fusermount3.
macro_rules! fuse_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            not(all(seekprobe_loop, seekprobe_has_fusermount3)),
            "needs root, /dev/loop-control, /dev/fuse and fusermount3 (fuse3)",
            $($t)*
        }
    };
}

/// Tests of loop devices ([`LoopDev`]): root and /dev/loop-control.
macro_rules! loop_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            not(seekprobe_loop),
            "needs root and /dev/loop-control",
            $($t)*
        }
    };
}

/// Tests that run the real smartctl on a loop device.
macro_rules! smartctl_loop_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            any(seekprobe_no_smartctl, not(seekprobe_loop)),
            "needs smartctl (apt-get install smartmontools; .ci/run does) and root with /dev/loop-control",
            $($t)*
        }
    };
}

/// Tests of tests/it/vm's guest.
macro_rules! vm_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            not(seekprobe_vm),
            "needs qemu-system-x86, linux-image-amd64, busybox-static and udev (.ci/run installs them)",
            $($t)*
        }
    };
}

/// Tests of tests/it/vm's guest that read SMART through smartctl.
macro_rules! vm_smartctl_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            any(not(seekprobe_vm), seekprobe_no_smartctl),
            "needs qemu-system-x86, linux-image-amd64, busybox-static, udev and smartmontools (.ci/run installs them)",
            $($t)*
        }
    };
}

/// Tests that render a report in chromium.
macro_rules! chromium_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            seekprobe_no_chromium,
            "chromium is not installed (Debian's chromium; .ci/run installs it)",
            $($t)*
        }
    };
}

/// Tests that sign or check records with OpenSSH's tools.
macro_rules! openssh_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            seekprobe_no_openssh,
            "ssh-keygen, ssh-agent or ssh-add is missing (Debian's openssh-client; .ci/run installs it)",
            $($t)*
        }
    };
}

/// Tests that make an ext4 file system.
macro_rules! mkfs_ext4_tests {
    ($($t:tt)*) => {
        crate::helpers::gated_tests! {
            not(seekprobe_has_mkfs_ext4),
            "needs mkfs.ext4 (apt-get install e2fsprogs)",
            $($t)*
        }
    };
}

pub(crate) use {
    chromium_tests, fuse_tests, gated_tests, loop_tests, mkfs_ext4_tests, openssh_tests,
    smartctl_loop_tests, vm_smartctl_tests, vm_tests,
};

/// A stand-in `smartctl` (a shell script running `body`) in `dir`: the PATH that
/// finds it first.
pub fn stand_in_smartctl(dir: &std::path::Path, body: &str) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let p = dir.join("smartctl");
    std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut path = dir.as_os_str().to_owned();
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    path
}
