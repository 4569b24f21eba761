//! faultdisk: a FUSE file system that serves one file, `disk`, from a backing file,
//! and fails the way its rules say. A loop device over `MOUNT/disk` is a real block
//! device whose errors the kernel returns to any program (docs/testing.md).
//!
//! ```text
//! faultdisk BACKING MOUNTPOINT [--size BYTES] [RULE]...
//!   read-error=A-B  write-error=A-B  drop-writes=A-B[,AFTER]  corrupt-reads=A-B
//!   misdirect=A-B,TO  wrap=N  slow-reads=A-B,MS  hang=A-B  vanish-after=N  count=A-B
//!   keeps=N  hang-after=N  hang-flushes-after=N
//! ```
//!
//! Beside `disk` the mount holds `stats` (JSON: requests and bytes served, and each
//! rule's count of the reads and writes it applied to) and `control` (write lines:
//! `add RULE`, `clear`, `release` to answer the hung requests with EIO, `vanish`).
//! It runs until unmounted (`fusermount3 -u MOUNTPOINT`, or SIGTERM/SIGINT).

mod rules;

use fuser::{
    Config, Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, INodeNo, KernelConfig,
    LockOwner, MountOption, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEmpty,
    ReplyEntry, ReplyOpen, ReplyWrite, Request, WriteFlags,
};
use rules::{Answer, Kind, Rule, SECTOR};
use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;
use std::time::{Duration, UNIX_EPOCH};

const DISK: INodeNo = INodeNo(2);
const STATS: INodeNo = INodeNo(3);
const CONTROL: INodeNo = INodeNo(4);
const NAMES: [(&str, INodeNo); 3] = [("disk", DISK), ("stats", STATS), ("control", CONTROL)];

/// The counters and rules, behind one lock.
#[derive(Default)]
struct State {
    rules: Vec<Rule>,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    failed: u64,
    flushes: u64,
    vanished: bool,
    /// Requests never answered: kept, so that their replies are not sent (a dropped
    /// reply answers EIO), until `release`.
    hung: Vec<Hung>,
    /// The addresses a `keeps=N` rule gave flash to.
    kept: rules::Kept,
}

/// A request to serve, as decided.
struct Admitted {
    /// Milliseconds to wait before answering (slow reads).
    delay_ms: u64,
    /// The rules as they were when it was decided.
    rules: Vec<Rule>,
    /// The bytes served before it.
    moved: u64,
}

enum Hung {
    Read(ReplyData),
    Write(ReplyWrite),
    Flush(ReplyEmpty),
}

struct FaultDisk {
    backing: File,
    size: u64,
    state: Mutex<State>,
    /// Each open `stats` file's content, taken when it was opened, so that a
    /// reader sees one consistent snapshot however many reads it takes.
    snapshots: Mutex<std::collections::HashMap<u64, Vec<u8>>>,
    next_fh: std::sync::atomic::AtomicU64,
}

fn attr(ino: INodeNo, size: u64) -> FileAttr {
    let dir = ino == INodeNo::ROOT;
    FileAttr {
        ino,
        size,
        blocks: size.div_ceil(512),
        atime: UNIX_EPOCH,
        mtime: UNIX_EPOCH,
        ctime: UNIX_EPOCH,
        crtime: UNIX_EPOCH,
        kind: if dir {
            FileType::Directory
        } else {
            FileType::RegularFile
        },
        perm: if dir { 0o755 } else { 0o644 },
        nlink: if dir { 2 } else { 1 },
        uid: 0,
        gid: 0,
        rdev: 0,
        flags: 0,
        blksize: 4096,
    }
}

impl FaultDisk {
    fn stats(&self) -> String {
        let s = self.state.lock().unwrap();
        let rules: Vec<_> = s
            .rules
            .iter()
            .map(|r| serde_json::json!({"rule": r.text, "reads": r.reads, "writes": r.writes}))
            .collect();
        let v = serde_json::json!({
            "reads": s.reads, "writes": s.writes, "read_bytes": s.read_bytes,
            "write_bytes": s.write_bytes, "failed": s.failed, "flushes": s.flushes,
            "hung": s.hung.len(), "vanished": s.vanished, "rules": rules,
            "kept": s.kept.spans(),
        });
        format!("{v}\n")
    }

    fn size_of(&self, ino: INodeNo) -> Option<u64> {
        match ino {
            INodeNo::ROOT | CONTROL => Some(0),
            DISK => Some(self.size),
            STATS => Some(self.stats().len() as u64),
            _ => None,
        }
    }

    /// Decide a request; `Err` when it was failed or kept hanging (counted).
    fn admit(&self, off: u64, len: u64, write: bool) -> Result<Admitted, Answer> {
        let mut s = self.state.lock().unwrap();
        let moved = s.read_bytes + s.write_bytes;
        let (mut answer, delay) = rules::decide(&mut s.rules, off, len, write, moved);
        if s.vanished {
            answer = Answer::Fail;
        }
        if s.rules
            .iter()
            .any(|r| matches!(r.kind, Kind::VanishAfter(n) if moved >= n))
        {
            s.vanished = true;
        }
        if write {
            s.writes += 1;
        } else {
            s.reads += 1;
        }
        match answer {
            Answer::Serve => {
                if write {
                    s.write_bytes += len;
                } else {
                    s.read_bytes += len;
                }
                Ok(Admitted {
                    delay_ms: delay,
                    rules: s.rules.clone(),
                    moved,
                })
            }
            Answer::Fail => {
                s.failed += 1;
                Err(Answer::Fail)
            }
            Answer::Hang => Err(Answer::Hang),
        }
    }

    /// The logical sector runs of `[off, off + len)`, each no longer than a sector
    /// and not crossing a sector boundary.
    fn pieces(off: u64, len: u64) -> impl Iterator<Item = (u64, u64)> {
        let end = off + len;
        std::iter::successors(Some(off), move |&a| {
            let next = (a / SECTOR + 1) * SECTOR;
            (next < end).then_some(next)
        })
        .map(move |a| (a, ((a / SECTOR + 1) * SECTOR).min(end) - a))
    }

    fn read_disk(&self, off: u64, len: u64, reply: ReplyData) {
        let len = len.min(self.size.saturating_sub(off));
        let Admitted {
            delay_ms: delay,
            rules,
            moved,
        } = match self.admit(off, len, false) {
            Ok(v) => v,
            Err(Answer::Hang) => {
                self.state.lock().unwrap().hung.push(Hung::Read(reply));
                return;
            }
            Err(_) => return reply.error(Errno::EIO),
        };
        let mut buf = vec![0u8; len as usize];
        // Read runs of sectors whose stored places follow one another in one call.
        let mut run: Option<(u64, u64, u64)> = None; // (logical, physical, len)
        let flush = |run: (u64, u64, u64), buf: &mut [u8]| -> std::io::Result<()> {
            let (l, p, n) = run;
            let dst = &mut buf[(l - off) as usize..(l - off + n) as usize];
            let avail = self.size.saturating_sub(p).min(n) as usize;
            self.backing.read_exact_at(&mut dst[..avail], p)
        };
        for (a, n) in Self::pieces(off, len) {
            let p = rules::place(&rules, a, false, moved).expect("reads are always placed");
            run = match run {
                Some((l, q, m)) if q + m == p => Some((l, q, m + n)),
                Some(r) => {
                    if flush(r, &mut buf).is_err() {
                        return reply.error(Errno::EIO);
                    }
                    Some((a, p, n))
                }
                None => Some((a, p, n)),
            };
        }
        if let Some(r) = run
            && flush(r, &mut buf).is_err()
        {
            return reply.error(Errno::EIO);
        }
        if rules::keeps(&rules).is_some() {
            self.zero_unkept(off, &mut buf);
        }
        for s in rules.iter().filter_map(|r| match r.kind {
            Kind::CorruptReads(s) => Some(s),
            _ => None,
        }) {
            let a = s.start.clamp(off, off + len) - off;
            let b = s.end.clamp(off, off + len) - off;
            buf[a as usize..b as usize]
                .iter_mut()
                .for_each(|b| *b = !*b);
        }
        if delay == 0 {
            reply.data(&buf);
        } else {
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(delay));
                reply.data(&buf);
            });
        }
    }

    fn write_disk(&self, off: u64, data: &[u8], reply: ReplyWrite) {
        let len = (data.len() as u64).min(self.size.saturating_sub(off));
        let (rules, moved) = match self.admit(off, len, true) {
            Ok(a) => (a.rules, a.moved),
            Err(Answer::Hang) => {
                self.state.lock().unwrap().hung.push(Hung::Write(reply));
                return;
            }
            Err(_) => return reply.error(Errno::EIO),
        };
        let kept = rules::keeps(&rules).map(|limit| {
            let mut s = self.state.lock().unwrap();
            s.kept.write(limit, off, off + len)
        });
        let dropped = |a: u64| {
            kept.as_ref()
                .is_some_and(|k| !k.iter().any(|&(x, y)| x <= a && a < y))
        };
        let mut run: Option<(u64, u64, u64)> = None;
        let flush = |(l, p, n): (u64, u64, u64)| {
            let src = &data[(l - off) as usize..(l - off + n) as usize];
            let n = self.size.saturating_sub(p).min(n) as usize;
            self.backing.write_all_at(&src[..n], p)
        };
        for (a, n) in Self::pieces(off, len) {
            let Some(p) = rules::place(&rules, a, true, moved).filter(|_| !dropped(a)) else {
                if let Some(r) = run.take()
                    && flush(r).is_err()
                {
                    return reply.error(Errno::EIO);
                }
                continue;
            };
            run = match run {
                Some((l, q, m)) if q + m == p => Some((l, q, m + n)),
                Some(r) => {
                    if flush(r).is_err() {
                        return reply.error(Errno::EIO);
                    }
                    Some((a, p, n))
                }
                None => Some((a, p, n)),
            };
        }
        if let Some(r) = run
            && flush(r).is_err()
        {
            return reply.error(Errno::EIO);
        }
        reply.written(len as u32);
    }

    /// Zero the parts of `buf`, read at `off`, that a `keeps=N` rule never kept.
    fn zero_unkept(&self, off: u64, buf: &mut [u8]) {
        let end = off + buf.len() as u64;
        let mapped = self.state.lock().unwrap().kept.mapped(off, end);
        let mut at = off;
        for (a, b) in mapped.into_iter().chain([(end, end)]) {
            buf[(at - off) as usize..(a - off) as usize].fill(0);
            at = b;
        }
    }

    fn control(&self, text: &str) -> Result<(), String> {
        for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let mut s = self.state.lock().unwrap();
            match line.split_once(' ') {
                Some(("add", rule)) => s.rules.push(Rule::parse(rule).map_err(|e| e.to_string())?),
                None if line == "clear" => s.rules.clear(),
                None if line == "vanish" => s.vanished = true,
                None if line == "release" => {
                    for h in s.hung.drain(..) {
                        match h {
                            Hung::Read(r) => r.error(Errno::EIO),
                            Hung::Write(r) => r.error(Errno::EIO),
                            Hung::Flush(r) => r.error(Errno::EIO),
                        }
                    }
                }
                _ => return Err(format!("unknown control line {line:?}")),
            }
        }
        Ok(())
    }
}

impl Filesystem for FaultDisk {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Large requests pass whole where the kernel allows it.
        let _ = config.set_max_write(1 << 20);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        match NAMES
            .iter()
            .find(|(n, _)| parent == INodeNo::ROOT && OsStr::new(n) == name)
        {
            Some(&(_, ino)) => {
                let size = self.size_of(ino).unwrap_or(0);
                reply.entry(&Duration::ZERO, &attr(ino, size), fuser::Generation(0));
            }
            None => reply.error(Errno::ENOENT),
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        match self.size_of(ino) {
            Some(size) => reply.attr(&Duration::ZERO, &attr(ino, size)),
            None => reply.error(Errno::ENOENT),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn setattr(
        &self,
        _req: &Request,
        ino: INodeNo,
        _mode: Option<u32>,
        _uid: Option<u32>,
        _gid: Option<u32>,
        _size: Option<u64>,
        _atime: Option<fuser::TimeOrNow>,
        _mtime: Option<fuser::TimeOrNow>,
        _ctime: Option<std::time::SystemTime>,
        _fh: Option<FileHandle>,
        _crtime: Option<std::time::SystemTime>,
        _chgtime: Option<std::time::SystemTime>,
        _bkuptime: Option<std::time::SystemTime>,
        _flags: Option<fuser::BsdFileFlags>,
        reply: ReplyAttr,
    ) {
        // The sizes are fixed (opening `control` with O_TRUNC lands here).
        self.getattr(_req, ino, None, reply);
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        // Every request reaches the rules: no page cache of this file system.
        let fh = self
            .next_fh
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if ino == STATS {
            let snap = self.stats().into_bytes();
            self.snapshots.lock().unwrap().insert(fh, snap);
        }
        reply.opened(FileHandle(fh), FopenFlags::FOPEN_DIRECT_IO);
    }

    #[allow(clippy::too_many_arguments)]
    fn release(
        &self,
        _req: &Request,
        _ino: INodeNo,
        fh: FileHandle,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        _flush: bool,
        reply: ReplyEmpty,
    ) {
        self.snapshots.lock().unwrap().remove(&fh.0);
        reply.ok();
    }

    #[allow(clippy::too_many_arguments)]
    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyData,
    ) {
        match ino {
            DISK => self.read_disk(offset, u64::from(size), reply),
            STATS => {
                let snaps = self.snapshots.lock().unwrap();
                let s = snaps.get(&fh.0).cloned().unwrap_or_default();
                drop(snaps);
                let a = (offset as usize).min(s.len());
                let b = (a + size as usize).min(s.len());
                reply.data(&s[a..b]);
            }
            CONTROL => reply.data(&[]),
            _ => reply.error(Errno::ENOENT),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        data: &[u8],
        _write_flags: WriteFlags,
        _flags: OpenFlags,
        _lock: Option<LockOwner>,
        reply: ReplyWrite,
    ) {
        match ino {
            DISK => self.write_disk(offset, data, reply),
            CONTROL => match self.control(&String::from_utf8_lossy(data)) {
                Ok(()) => reply.written(data.len() as u32),
                Err(e) => {
                    eprintln!("faultdisk: {e}");
                    reply.error(Errno::EINVAL)
                }
            },
            _ => reply.error(Errno::EACCES),
        }
    }

    fn flush(&self, _req: &Request, _ino: INodeNo, _fh: FileHandle, _l: LockOwner, r: ReplyEmpty) {
        r.ok();
    }

    fn fsync(&self, _req: &Request, ino: INodeNo, _fh: FileHandle, _d: bool, reply: ReplyEmpty) {
        let mut s = self.state.lock().unwrap();
        if ino == DISK && s.vanished {
            return reply.error(Errno::EIO);
        }
        let answered = s.flushes;
        if ino == DISK
            && s.rules
                .iter()
                .any(|r| matches!(r.kind, Kind::HangFlushesAfter(n) if answered >= n))
        {
            s.hung.push(Hung::Flush(reply));
            return;
        }
        s.flushes += 1;
        drop(s);
        match self.backing.sync_data() {
            Ok(()) => reply.ok(),
            Err(_) => reply.error(Errno::EIO),
        }
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [(".", INodeNo::ROOT), ("..", INodeNo::ROOT)]
            .into_iter()
            .chain(NAMES);
        for (i, (name, ino)) in entries.enumerate().skip(offset as usize) {
            let kind = if ino == INodeNo::ROOT {
                FileType::Directory
            } else {
                FileType::RegularFile
            };
            if reply.add(ino, (i + 1) as u64, kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: faultdisk BACKING MOUNTPOINT [--size BYTES] [RULE]...\n\
         rules: read-error=A-B write-error=A-B drop-writes=A-B[,AFTER] corrupt-reads=A-B\n\
         misdirect=A-B,TO wrap=N slow-reads=A-B,MS hang=A-B vanish-after=N count=A-B keeps=N\n\
         hang-after=N hang-flushes-after=N\n\
         (bytes, or with a K, M, G, T or s (sectors) suffix)"
    );
    std::process::exit(2)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut positional = Vec::new();
    let mut size = None;
    let mut rules = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--size" {
            let v = it.next().unwrap_or_else(|| usage());
            size = Some(rules::bytes(v).unwrap_or_else(|e| {
                eprintln!("faultdisk: {e}");
                usage()
            }));
        } else if a.contains('=') {
            rules.push(Rule::parse(a).unwrap_or_else(|e| {
                eprintln!("faultdisk: {e}");
                usage()
            }));
        } else if a.starts_with('-') {
            usage();
        } else {
            positional.push(a.clone());
        }
    }
    let [backing, mountpoint] = positional.as_slice() else {
        usage()
    };
    let backing = File::options()
        .read(true)
        .write(true)
        .open(backing)
        .unwrap_or_else(|e| {
            eprintln!("faultdisk: {backing}: {e}");
            std::process::exit(1)
        });
    let size = size.unwrap_or_else(|| backing.metadata().map(|m| m.len()).unwrap_or(0));
    let fs = FaultDisk {
        backing,
        size,
        state: Mutex::new(State {
            rules,
            ..State::default()
        }),
        snapshots: Mutex::new(Default::default()),
        next_fh: std::sync::atomic::AtomicU64::new(1),
    };
    let mut config = Config::default();
    config.mount_options = vec![MountOption::FSName("faultdisk".into()), MountOption::RW];
    let mut session = fuser::Session::new(fs, mountpoint, &config).unwrap_or_else(|e| {
        eprintln!("faultdisk: mounting {mountpoint}: {e}");
        std::process::exit(1)
    });
    let mut unmounter = session.unmount_callable();
    let mut signals = signal_hook::iterator::Signals::new([libc::SIGTERM, libc::SIGINT])
        .expect("signal handlers");
    std::thread::spawn(move || {
        if signals.forever().next().is_some() {
            let _ = unmounter.unmount();
        }
    });
    if let Err(e) = session.run() {
        eprintln!("faultdisk: {e}");
        std::process::exit(1);
    }
}
