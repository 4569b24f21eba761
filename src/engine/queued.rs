//! The queued engine behind diskinfo's `-i` test: random reads of one size with a
//! fixed number of requests in flight, for a fixed time.
//!
//! As diskinfo does: start the clock, submit `queue_depth` requests at random offsets,
//! and each time one completes submit a replacement if less than the duration has
//! passed since the start; then wait for everything submitted to complete (drain). The
//! offsets come from [`OffsetGen`], so a seed repeats a run.
//!
//! Three engines share these semantics and return the same [`QueuedRun`]: each is a
//! [`super::queue::Backend`] run by the one driver loop, [`super::queue_loop::drive`]:
//! - `"virtual"`: simulated drives ([`crate::device::Simulated`]), a discrete-event
//!   simulation in virtual time (`virtual_queue.rs`);
//! - `"io_uring"` (Linux): one ring, registered buffers and file, batched submission
//!   and reaping (`uring.rs`);
//! - `"threads"`: one thread per request in flight doing blocking positioned I/O,
//!   on FreeBSD and wherever io_uring is unavailable or refused, and for every
//!   [`Feed`] of reads and writes (see [`run_feed`]) (`threads.rs`).

use super::queue::Backend;
pub use super::queue::{EngineStop, Feed, QueuedParams, QueuedRun};
use super::queue_loop::drive_feed;
use super::threads;
#[cfg(target_os = "linux")]
use super::uring;
use super::virtual_queue;
use crate::device::{PassWatch, Target};
use crate::results::QueuedEngine;
use crate::results::settings::{QueueDepth, SectorSize};
use crate::test_plans::iops::OffsetGen;
use std::io;
use std::sync::atomic::AtomicBool;

/// The thread pool's name: the engine of every platform without io_uring, and of feeds.
const THREADS: QueuedEngine = threads::NAME;

/// Run random reads of `params.len` bytes on `target` (`media_size` bytes of
/// `sector_size`-byte sectors) with `params.queue_depth` requests in flight for
/// `params.duration`, as diskinfo's `-i` does for one size.
///
/// The engine is the virtual-time simulation when the target has a queue model, else
/// io_uring on Linux, else (or when io_uring is unavailable or refused, which `note`
/// then says) a thread pool. `stop` (Ctrl-C) is checked between completions: once it
/// is raised nothing more is submitted, what is in flight is drained, and the run
/// ends with [`EngineStop::Interrupted`]. A failed or short read likewise stops submission
/// and ends with [`EngineStop::Failed`] for the first failed request after the drain. Never
/// panics on I/O errors and never prints.
pub fn run_random_reads(
    target: &mut dyn Target,
    media_size: u64,
    sector_size: SectorSize,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> QueuedRun {
    let stream = match OffsetGen::new(params.seed, media_size, sector_size, params.len) {
        Ok(g) => g,
        Err(e) => return QueuedRun::refused(engine_name(target), io::ErrorKind::InvalidInput, e.0),
    };
    run_stream(target, stream, params, stop)
}

/// The engine that will serve `target`: the simulation's model, else io_uring on
/// Linux (which may still fall back to threads), else the thread pool.
fn engine_name(target: &mut dyn Target) -> QueuedEngine {
    if target.simulated().is_some() {
        virtual_queue::NAME
    } else if cfg!(target_os = "linux") {
        QueuedEngine::IoUring
    } else {
        THREADS
    }
}

/// Like [`run_random_reads`], with the offsets of `stream` (random or sequential);
/// `params.len` and `params.seed` are the stream's.
pub fn run_stream(
    target: &mut dyn Target,
    stream: OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> QueuedRun {
    let engine = engine_name(target);
    if let Some(model) = crate::device::queue_model(target) {
        return virtual_queue::run(model, stream, params, stop);
    }
    let Some(fd) = target
        .raw_fd()
        .map(|fd| std::os::fd::AsRawFd::as_raw_fd(&fd))
    else {
        return QueuedRun::refused(
            engine,
            io::ErrorKind::Unsupported,
            "the target offers no descriptor for queued reads".to_string(),
        );
    };
    let clock = target.clock();
    #[cfg(target_os = "linux")]
    let note = match uring::run(fd, clock, stream.clone(), params, stop) {
        Ok(run) => return run,
        Err(why) => Some(format!(
            "io_uring is unavailable ({why}): queued reads use a pool of {} threads instead",
            threads::thread_count(params.queue_depth)
        )),
    };
    #[cfg(not(target_os = "linux"))]
    let note = None;
    let mut run = threads::run(fd, clock, stream, params, stop);
    run.note = note;
    run
}

/// How a [`run_feed`] went.
#[derive(Debug)]
pub struct FeedRun {
    /// The engine that moved the requests: the simulation's model, else the thread pool.
    pub engine: QueuedEngine,
    /// Ctrl-C ended it.
    pub interrupted: bool,
    /// The engine failed as a whole (or could not start).
    pub fatal: Option<io::Error>,
    /// Requests it left behind in flight, unanswered (the watchdog or Ctrl-C).
    pub abandoned: usize,
}

/// Run the requests of `feed` (reads and writes of at most `len` bytes, the
/// slots' buffers lent to it) `depth` deep on `target`: the virtual queue (with
/// buffers) for a simulated drive, else the thread pool, on every system, held
/// while the pass's `watch` says so (a real drive's temperature). The one loop is
/// [`super::queue_loop::drive_feed`].
///
/// Not io_uring, because a feed works on its buffers between completions (the
/// verify pass stamps and checks 1 MiB there, about 0.1 ms) on the thread that
/// waits for the ring: a request that completes meanwhile is seen, and
/// timestamped, only at the next wait, so the feed's work would count as the
/// device's time. The pool's threads time each request themselves, just around
/// its system call, while the feed works on another thread. (On a RAM-backed loop
/// device a verify pass runs as fast either way: docs/performance.md.)
pub fn run_feed(
    target: &mut dyn Target,
    (len, depth): (u32, QueueDepth),
    feed: &mut dyn Feed,
    stop: &AtomicBool,
    (io_timeout, watch): (Option<std::time::Duration>, Option<&dyn PassWatch>),
) -> FeedRun {
    let mut out = FeedRun {
        engine: if target.simulated().is_some() {
            virtual_queue::NAME
        } else {
            THREADS
        },
        interrupted: false,
        fatal: None,
        abandoned: 0,
    };
    if let Some(model) = crate::device::queue_model(target) {
        let mut q = virtual_queue::VirtualQueue::new(model, len, depth).with_buffers();
        (out.interrupted, out.fatal, out.abandoned) = drive_feed(&mut q, feed, depth, stop, None);
        let now = q.now_ns();
        q.finish(now);
        return out;
    }
    let Some(fd) = target
        .raw_fd()
        .map(|fd| std::os::fd::AsRawFd::as_raw_fd(&fd))
    else {
        out.fatal = Some(io::Error::new(
            io::ErrorKind::Unsupported,
            "the target offers no descriptor for queued I/O",
        ));
        return out;
    };
    (out.interrupted, out.fatal, out.abandoned) = threads::drive_pool(
        fd,
        target.clock(),
        (len, depth),
        feed,
        stop,
        (io_timeout, watch),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{Clock, VirtualClock};
    use crate::device::ReadBuf;
    use crate::results::device::{DeviceInfo, TargetKind};
    use std::time::Duration;

    /// A target with neither a descriptor nor a queue model.
    struct Opaque {
        info: DeviceInfo,
        clock: VirtualClock,
    }

    impl Target for Opaque {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, _buf: ReadBuf<'_>, _offset: u64) -> io::Result<()> {
            Ok(())
        }
        fn quiesce(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn opaque() -> Opaque {
        Opaque {
            info: DeviceInfo::new("o", "o", TargetKind::File),
            clock: VirtualClock::new(),
        }
    }

    fn params(len: u32, queue_depth: u32) -> QueuedParams {
        QueuedParams {
            len,
            queue_depth: QueueDepth::of(queue_depth),
            duration: Duration::from_millis(10),
            seed: 1,
            io_timeout: None,
        }
    }

    fn setup_error(r: &QueuedRun) -> &io::Error {
        match &r.stop {
            Some(EngineStop::Failed {
                setup: true, error, ..
            }) => error,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_parameters_are_refused_before_any_io() {
        let stop = AtomicBool::new(false);
        let mut t = opaque();
        for (p, media, ss) in [
            (params(1000, 8), 1 << 30, SectorSize::B512),
            (params(512, 8), 1 << 30, SectorSize::B4096),
            (params(8192, 8), 8191, SectorSize::B512),
        ] {
            let r = run_random_reads(&mut t, media, ss, &p, &stop);
            assert_eq!(setup_error(&r).kind(), io::ErrorKind::InvalidInput, "{p:?}");
            assert_eq!(r.completed, 0);
        }
    }

    #[test]
    fn a_target_without_descriptor_or_model_is_refused() {
        let r = run_random_reads(
            &mut opaque(),
            1 << 30,
            SectorSize::B512,
            &params(4096, 8),
            &AtomicBool::new(false),
        );
        assert_eq!(setup_error(&r).kind(), io::ErrorKind::Unsupported);
    }

    #[test]
    fn iops_is_completions_per_second() {
        let mut r = QueuedRun::new(QueuedEngine::Virtual);
        assert_eq!(r.iops(), 0.0);
        r.completed = 3127;
        r.elapsed_ns = 3_127_000_000;
        assert_eq!(r.iops(), 1000.0);
    }

    /// A RAM-backed loop device with direct I/O, detached when dropped (also when
    /// the test panics).
    #[cfg(target_os = "linux")]
    struct LoopDevice {
        path: String,
        _backing: tempfile::NamedTempFile,
    }

    #[cfg(target_os = "linux")]
    impl LoopDevice {
        /// A loop device with direct I/O over a file in /dev/shm; the test that
        /// calls it is ignored without root and loop devices (`seekprobe_loop`), so
        /// a failure here is the test's.
        fn attach(bytes: u64) -> LoopDevice {
            use std::process::Command;
            let backing = tempfile::Builder::new()
                .prefix("seekprobe-queued-")
                .tempfile_in("/dev/shm")
                .expect("a backing file in /dev/shm");
            backing
                .as_file()
                .set_len(bytes)
                .expect("size the backing file");
            let out = Command::new("losetup")
                .args(["-f", "--show", "--direct-io=on"])
                .arg(backing.path())
                .output()
                .expect("run losetup");
            let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
            assert!(
                out.status.success() && !path.is_empty(),
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            LoopDevice {
                path,
                _backing: backing,
            }
        }
    }

    #[cfg(target_os = "linux")]
    impl Drop for LoopDevice {
        fn drop(&mut self) {
            let _ = std::process::Command::new("losetup")
                .args(["-d", &self.path])
                .status();
            // A device still open somewhere is detached when its last user goes:
            // wait for that (a few seconds at most).
            let name = self.path.trim_start_matches("/dev/");
            let bound = format!("/sys/block/{name}/loop");
            for _ in 0..50 {
                if !std::path::Path::new(&bound).exists() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }

    /// A block device opened with O_DIRECT, offering its descriptor.
    #[cfg(target_os = "linux")]
    struct Direct {
        file: std::fs::File,
        info: DeviceInfo,
        clock: crate::clock::MonotonicClock,
    }

    #[cfg(target_os = "linux")]
    impl Target for Direct {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, mut buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
            std::os::unix::fs::FileExt::read_exact_at(&self.file, &mut buf, offset)
        }
        fn quiesce(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn raw_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
            Some(std::os::fd::AsFd::as_fd(&self.file))
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    #[cfg_attr(not(seekprobe_loop), ignore = "needs root and /dev/loop-control")]
    fn both_engines_read_a_loop_device() {
        use std::os::unix::fs::OpenOptionsExt;
        const MEDIA: u64 = 64 << 20;
        let dev = LoopDevice::attach(MEDIA);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::DIRECT.bits() as i32)
            .open(&dev.path)
            .unwrap();
        let mut t = Direct {
            file,
            info: DeviceInfo::new(&dev.path, &dev.path, TargetKind::Disk),
            clock: crate::clock::MonotonicClock::new(),
        };
        let p = QueuedParams {
            len: 4096,
            queue_depth: QueueDepth::DISKINFO,
            duration: Duration::from_millis(200),
            seed: 77,
            io_timeout: None,
        };
        let stop = AtomicBool::new(false);
        let check = |r: &QueuedRun| {
            assert!(r.stop.is_none(), "{:?}: {:?}", r.engine, r.stop);
            assert!(r.completed > 0, "{:?}", r.engine);
            assert_eq!(r.latency.count, r.completed, "{:?}", r.engine);
            assert!(r.latency.min_ns > 0, "{:?}", r.engine);
            assert!(r.elapsed_ns >= 200_000_000, "{:?}", r.engine);
        };
        // The dispatch picks io_uring where the kernel allows it (build.rs's
        // `seekprobe_no_uring`), or says why not.
        let r = run_random_reads(&mut t, MEDIA, SectorSize::B512, &p, &stop);
        check(&r);
        if cfg!(seekprobe_no_uring) {
            assert!(r.note.is_some(), "{:?} without a note", r.engine);
        } else {
            assert_eq!(r.engine, QueuedEngine::IoUring, "{:?}", r.note);
        }
        let fd = std::os::fd::AsRawFd::as_raw_fd(&t.raw_fd().unwrap());
        let stream = OffsetGen::new(p.seed, MEDIA, SectorSize::B512, p.len).unwrap();
        match uring::run(fd, &t.clock, stream.clone(), &p, &stop) {
            Ok(r) => check(&r),
            Err(why) if !cfg!(seekprobe_no_uring) => panic!("io_uring did not start: {why}"),
            Err(_) => {}
        }
        let r = threads::run(fd, &t.clock, stream, &p, &stop);
        assert_eq!(r.engine, QueuedEngine::Threads);
        check(&r);
        // 1 MiB requests, the largest size, on both engines.
        let big = QueuedParams {
            len: 1 << 20,
            queue_depth: QueueDepth::fixed::<16>(),
            ..p
        };
        let stream = OffsetGen::new(p.seed, MEDIA, SectorSize::B512, big.len).unwrap();
        match uring::run(fd, &t.clock, stream.clone(), &big, &stop) {
            Ok(r) => check(&r),
            Err(why) if !cfg!(seekprobe_no_uring) => panic!("io_uring did not start: {why}"),
            Err(_) => {}
        }
        check(&threads::run(fd, &t.clock, stream, &big, &stop));
        drop(t);
        drop(dev);
    }
}
