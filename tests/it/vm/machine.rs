//! The boot helper: a guest machine under QEMU with the devices a scenario names,
//! the scenario's commands run in it, their results read back.
//!
//! Devices in ([`Machine::device`], [`Machine::disk`]: QEMU's own `-device`
//! properties, so a test asserts exactly what QEMU was told); commands in
//! ([`Machine::step`]: a shell script each, run in the guest in order, chrooted
//! into the host's root, which the guest mounts read-only over virtio-9p: this
//! build's seekprobe, smartctl, udev and the kernel's modules as installed here);
//! host actions on the guest's word ([`Machine::on_signal`]: the guest runs
//! `signal NAME`, the host runs a QMP command, e.g. `device_del`, and the guest
//! goes on). [`Machine::boot`] boots Debian's kernel under TCG (this machine's
//! KVM does not boot a stock kernel), waits for the guest to power off, and reads
//! back every step's output and exit status and every file the guest left in its
//! writable share (`$OUT`), all into memory: the machine's files (its disk images,
//! its initramfs, the share) are removed when it returns, and QEMU is killed if it
//! is still running then, whatever happened.

use super::initramfs;
use super::qmp::Qmp;
use crate::helpers::scratch_dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A host action run when the guest signals for it, given the QMP connection.
pub type Action = Box<dyn FnMut(&mut Qmp) -> Result<(), String> + Send>;

/// What every step's shell starts from: the environment (`$SEEKPROBE` this
/// build's binary, `$OUT` where the results go) and the helpers a step may call.
const LIB: &str = r#"export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp SYSTEMD_IGNORE_CHROOT=1 SEEKPROBE_RUNS_DIR=/tmp/runs
export SEEKPROBE=/mnt/bin/seekprobe OUT=/mnt/out
cd /tmp
# The guest's clock: seconds since it booted.
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# run_step NAME: /mnt/steps/NAME.sh in a shell of its own; its output and exit
# status in $OUT/NAME.out, .err and .rc.
run_step() {
  echo "guest: step $1 at $(uptime_s) s"
  sh -c ". /mnt/lib.sh; . /mnt/steps/$1.sh" > "$OUT/$1.out" 2> "$OUT/$1.err"
  echo $? > "$OUT/$1.rc"
}
# wait_until COMMAND...: run COMMAND every 0.1 s until it succeeds; gives up (and
# fails, saying so) after a minute.
wait_until() {
  for i in $(seq 600); do "$@" && return 0; sleep 0.1; done
  echo "gave up waiting until $*" >&2; return 1
}
# signal NAME: have the host run its action NAME, and wait until it has.
signal() {
  : > "/mnt/signal/$1"
  until [ -e "/mnt/signal/$1.done" ]; do sleep 0.1; done
}
# start_udev: udevd running and the PCI devices' events processed, as at boot:
# the controllers' drivers loaded; the disks they find come with events of their
# own, which make the /dev/disk/by-id links.
start_udev() {
  /lib/systemd/systemd-udevd --daemon &&
    udevadm trigger --action=add --subsystem-match=pci && udevadm settle
}
"#;

/// Files by name.
type Files = BTreeMap<String, Vec<u8>>;

/// A step's end in the guest.
#[derive(Debug, Clone)]
pub struct Ran {
    /// Its exit status.
    pub code: i32,
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// What a boot left: each step's end, the other files the guest wrote in `$OUT`,
/// the serial console.
#[derive(Debug)]
pub struct Booted {
    /// Each step by name.
    pub steps: BTreeMap<String, Ran>,
    /// The other files of `$OUT`, by name.
    pub files: Files,
    /// What the guest printed on its serial console (the kernel's messages, each
    /// step's start).
    pub console: String,
    /// From QEMU's start to its end.
    pub took: Duration,
}

impl Booted {
    /// Step `name`'s end; panics (with the console's last lines) when it did not
    /// run to its end.
    pub fn ran(&self, name: &str) -> &Ran {
        self.steps
            .get(name)
            .unwrap_or_else(|| panic!("step {name} did not end in the guest:\n{}", self.tail()))
    }

    /// The JSON file `name` the guest wrote in `$OUT`.
    pub fn json(&self, name: &str) -> serde_json::Value {
        let bytes = (self.files.get(name))
            .unwrap_or_else(|| panic!("the guest wrote no {name}:\n{}", self.tail()));
        serde_json::from_slice(bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
    }

    /// Write what the guest left into `dir` (made if missing): each step's
    /// `NAME.out`, `NAME.err` and `NAME.rc`, the other files, `console.log`.
    pub fn keep(&self, dir: &Path) {
        let write = |name: &str, bytes: &[u8]| {
            std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(dir.join(name), bytes))
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        };
        for (name, r) in &self.steps {
            write(&format!("{name}.out"), r.stdout.as_bytes());
            write(&format!("{name}.err"), r.stderr.as_bytes());
            write(&format!("{name}.rc"), format!("{}\n", r.code).as_bytes());
        }
        for (name, bytes) in &self.files {
            write(name, bytes);
        }
        write("console.log", self.console.as_bytes());
    }

    /// The console's last 60 lines.
    pub fn tail(&self) -> String {
        let lines: Vec<&str> = self.console.lines().collect();
        lines[lines.len().saturating_sub(60)..].join("\n")
    }
}

/// A machine to boot: its devices, steps and host actions.
pub struct Machine {
    dir: tempfile::TempDir,
    args: Vec<String>,
    steps: Vec<(String, String)>,
    actions: Vec<(String, Action)>,
}

/// The guest's memory: room for the page cache of this build's debug binary
/// (about 50 MB, read over 9p), smartctl and udev, and for the memory scsi_debug
/// and null_blk keep their data in (under 64 MiB here).
const MEMORY_MIB: u32 = 512;

/// QEMU, killed when dropped unless it ended.
struct Qemu(Child);

impl Drop for Qemu {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl Machine {
    /// A machine with [`MEMORY_MIB`] of memory, one CPU and no devices yet; its
    /// files in a scratch directory of its own. (A second CPU took the burn-in's
    /// boot from 125 s to 117 s for 15% more CPU time, on the shared two-CPU
    /// machine: one each, so that the boots run side by side.)
    pub fn new() -> Machine {
        Machine {
            dir: scratch_dir(),
            args: Vec::new(),
            steps: Vec::new(),
            actions: Vec::new(),
        }
    }

    /// A device (a controller), as QEMU's `-device` takes it:
    /// `mptsas1068,id=sas`.
    pub fn device(&mut self, props: &str) -> &mut Machine {
        self.args.extend(["-device".into(), props.into()]);
        self
    }

    /// A disk of `bytes` (a sparse image of the machine's own) as device `props`
    /// (`ide-hd,bus=sata.0,serial=...`), given the id `id` (QMP's `device_del`
    /// takes it).
    pub fn disk(&mut self, id: &str, bytes: u64, props: &str) -> &mut Machine {
        let image = self.dir.path().join(format!("{id}.img"));
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(bytes))
            .unwrap_or_else(|e| panic!("{}: {e}", image.display()));
        let drive = format!(
            "if=none,id=file-{id},file={},format=raw,cache=writeback,aio=threads",
            option_path(&image)
        );
        self.args.extend(["-drive".into(), drive]);
        self.device(&format!("{props},drive=file-{id},id={id}"))
    }

    /// Step `name`: `script`, run by the guest's shell after the steps before it,
    /// with the helpers and environment of [`LIB`] (`$SEEKPROBE`, `$OUT`,
    /// `start_udev`, `signal NAME`).
    pub fn step(&mut self, name: &str, script: &str) -> &mut Machine {
        self.steps.push((name.into(), script.into()));
        self
    }

    /// When the guest runs `signal NAME`, run `action` on the machine's QMP
    /// connection; the guest goes on once it has run (its failure fails the boot).
    pub fn on_signal(
        &mut self,
        name: &str,
        action: impl FnMut(&mut Qmp) -> Result<(), String> + Send + 'static,
    ) -> &mut Machine {
        self.actions.push((name.into(), Box::new(action)));
        self
    }

    fn share(&self) -> PathBuf {
        self.dir.path().join("share")
    }

    /// The share the guest mounts at /mnt: its helpers, its script, its steps.
    fn write_share(&self) -> std::io::Result<()> {
        let share = self.share();
        for d in ["out", "signal", "steps", "bin"] {
            std::fs::create_dir_all(share.join(d))?;
        }
        // The guest mounts the binary's folder at /mnt/bin (a checkout under /tmp
        // would be hidden by the guest's own /tmp).
        let bin = assert_cmd::cargo::cargo_bin("seekprobe").canonicalize()?;
        let dir = bin.parent().expect("the binary is in a folder");
        std::fs::write(share.join("bin.dir"), dir.as_os_str().as_encoded_bytes())?;
        std::fs::write(share.join("lib.sh"), LIB)?;
        let mut run = String::from(". /mnt/lib.sh\n");
        for (name, script) in &self.steps {
            std::fs::write(share.join("steps").join(format!("{name}.sh")), script)?;
            run.push_str(&format!("run_step {name}\n"));
        }
        run.push_str(": > /mnt/out/.done\n");
        std::fs::write(share.join("run.sh"), run)
    }

    /// QEMU started with the kernel, the initramfs, the two shares, the QMP socket
    /// and the devices.
    fn start(&self, kernel: &initramfs::Kernel, initrd: &Path) -> Result<Qemu, String> {
        let dir = self.dir.path();
        let log = std::fs::File::create(dir.join("qemu.log")).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(crate::helpers::tool("qemu-system-x86_64"));
        cmd.args([
            "-nodefaults",
            "-no-user-config",
            "-accel",
            "tcg",
            "-smp",
            "1",
        ])
        .args(["-m", &MEMORY_MIB.to_string(), "-display", "none"])
        .args(["-no-reboot", "-serial"])
        .arg(format!("file:{}", option_path(&dir.join("console.log"))))
        .arg("-kernel")
        .arg(&kernel.image)
        .arg("-initrd")
        .arg(initrd)
        .args(["-append", "console=ttyS0 panic=-1 quiet"])
        .args([
            "-virtfs",
            "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
        ])
        .arg("-virtfs")
        .arg(format!(
            "local,path={},mount_tag=share,security_model=none",
            option_path(&self.share())
        ))
        .arg("-qmp")
        .arg(format!(
            "unix:{},server=on,wait=off",
            option_path(&self.qmp_socket())
        ))
        .args(&self.args)
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log);
        cmd.spawn()
            .map(Qemu)
            .map_err(|e| format!("qemu-system-x86_64: {e}"))
    }

    fn qmp_socket(&self) -> PathBuf {
        self.dir.path().join("qmp.sock")
    }

    /// Wait for QEMU's end, running each host action the guest signals for; QEMU
    /// is killed after [`crate::helpers::PATIENCE`] (a ceiling against a hang).
    fn wait(&mut self, qemu: &mut Qemu) -> Result<ExitStatus, String> {
        let t0 = Instant::now();
        let (signals, socket) = (self.share().join("signal"), self.qmp_socket());
        let mut qmp: Option<Qmp> = None;
        let mut failed: Option<String> = None;
        loop {
            if let Some(status) = qemu.0.try_wait().map_err(|e| e.to_string())? {
                return failed.map_or(Ok(status), Err);
            }
            for (name, action) in &mut self.actions {
                let (asked, done) = (signals.join(&*name), signals.join(format!("{name}.done")));
                if !asked.exists() || done.exists() {
                    continue;
                }
                let q = match &mut qmp {
                    Some(q) => q,
                    None => qmp.insert(Qmp::connect(&socket)?),
                };
                if let Err(e) = action(q) {
                    failed.get_or_insert(format!("the host action {name} failed: {e}"));
                }
                std::fs::write(&done, b"").map_err(|e| e.to_string())?;
            }
            if t0.elapsed() > crate::helpers::PATIENCE {
                return Err(format!(
                    "the guest did not power off within {:?}",
                    t0.elapsed()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Boot the machine and run its steps: what the guest left, or why it could
    /// not boot or did not end (with the console's last lines).
    pub fn boot(mut self) -> Result<Booted, String> {
        let kernel = initramfs::kernel()?;
        let initrd = self.dir.path().join("initramfs.cpio");
        initramfs::build(&kernel, self.dir.path(), &initrd)?;
        self.write_share()
            .map_err(|e| format!("the guest's share: {e}"))?;
        let t0 = Instant::now();
        let mut qemu = self.start(&kernel, &initrd)?;
        let ended = self.wait(&mut qemu);
        drop(qemu);
        let took = t0.elapsed();
        let read = |name: &str| std::fs::read(self.dir.path().join(name)).unwrap_or_default();
        let console = String::from_utf8_lossy(&read("console.log")).into_owned();
        let qemu_log = String::from_utf8_lossy(&read("qemu.log")).into_owned();
        let (steps, files) = self.results()?;
        let booted = Booted {
            steps,
            files,
            console,
            took,
        };
        let why = match ended {
            Err(e) => e,
            Ok(_) if booted.files.contains_key(".done") => return Ok(booted),
            Ok(status) => format!("the guest powered off before its last step ({status})"),
        };
        Err(format!(
            "{why}\nQEMU said: {qemu_log}\nconsole:\n{}",
            booted.tail()
        ))
    }

    /// The steps' ends and the other files of the share's `out`.
    fn results(&self) -> Result<(BTreeMap<String, Ran>, Files), String> {
        let out = self.share().join("out");
        let mut files = BTreeMap::new();
        for e in std::fs::read_dir(&out).map_err(|e| format!("{}: {e}", out.display()))? {
            let p = e.map_err(|e| e.to_string())?.path();
            if p.is_file() {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                files.insert(name, std::fs::read(&p).map_err(|e| e.to_string())?);
            }
        }
        let mut steps = BTreeMap::new();
        for (name, _) in &self.steps {
            let mut take = |ext: &str| files.remove(&format!("{name}.{ext}"));
            let (Some(rc), out, err) = (take("rc"), take("out"), take("err")) else {
                continue;
            };
            let text =
                |b: Option<Vec<u8>>| String::from_utf8_lossy(&b.unwrap_or_default()).into_owned();
            let code = text(Some(rc)).trim().parse().unwrap_or(-1);
            steps.insert(
                name.clone(),
                Ran {
                    code,
                    stdout: text(out),
                    stderr: text(err),
                },
            );
        }
        Ok((steps, files))
    }
}

/// `path` as a QEMU option value (a comma would end it).
fn option_path(path: &Path) -> String {
    let s = path.to_string_lossy();
    assert!(!s.contains(','), "a comma in {s}");
    s.into_owned()
}
