//! The contract every queued [`Backend`] keeps, as one suite instantiated for each
//! backend: the thread pool and io_uring on an image file, the virtual queue on a
//! simulated drive. Each test runs the one driver loop ([`drive`], [`drive_feed`])
//! on the backend wrapped in [`Watched`], which counts what the loop asked of it.
//!
//! The contract: a backend keeps every request it accepted until it reports it
//! (the loop never has more in flight than the depth, and every accepted request
//! comes back), times each one (a latency per completion), reports a failed or
//! short transfer as that request's failed completion, and, for the backends that
//! move data, brings a read's bytes into its slot's buffer. The io_uring tests are
//! ignored where the kernel refuses io_uring (build.rs's `seekprobe_no_uring`).

use super::queue::{Backend, Completion, EngineStop, Feed, QueuedParams, QueuedRun, Request};
use super::queue_loop::{drive, drive_feed};
use crate::clock::MonotonicClock;
use crate::results::QueuedEngine;
use crate::results::settings::QueueDepth;
use crate::test_plans::OpKind;
use crate::test_plans::iops::OffsetGen;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The size every subject's device believes it has.
const MEDIA: u64 = 1 << 20;
/// Bytes per request (and per slot's buffer) in every contract test: eight 512-byte sectors.
const LEN: u32 = 4096;

/// A backend under the contract, and the device it runs on.
trait Subject {
    /// The name the backend must report in its runs' results.
    const ENGINE: QueuedEngine;
    /// Run `f` with the backend for `depth` requests of [`LEN`] bytes on a device of
    /// [`MEDIA`] bytes whose reads past `readable` bytes fail; byte `o` of a file
    /// subject holds `pattern(o)`.
    fn with<R>(readable: u64, depth: QueueDepth, f: impl FnOnce(&mut dyn Backend) -> R) -> R;
}

/// What an image file holds at byte `o`: its sector number's low byte.
fn pattern(o: u64) -> u8 {
    (o / 512) as u8
}

/// An image file of `bytes` bytes of [`pattern`], open for reading.
fn image(bytes: u64) -> (tempfile::NamedTempFile, std::fs::File) {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    let data: Vec<u8> = (0..bytes).map(pattern).collect();
    f.write_all(&data).unwrap();
    f.flush().unwrap();
    let r = std::fs::File::open(f.path()).unwrap();
    (f, r)
}

/// The thread-pool backend on a real image file of [`pattern`], `readable` bytes long.
struct Pool;

impl Subject for Pool {
    const ENGINE: QueuedEngine = QueuedEngine::Threads;
    fn with<R>(readable: u64, depth: QueueDepth, f: impl FnOnce(&mut dyn Backend) -> R) -> R {
        let (_keep, file) = image(readable);
        let clock = MonotonicClock::new();
        let fd = std::os::fd::AsFd::as_fd(&file);
        let mut pool = super::threads::Threads::start(fd, &clock, LEN, depth).unwrap();
        let r = f(&mut pool);
        // The target's descriptor is still open (the pool used a duplicate).
        let mut b = [0u8; 1];
        crate::device::pio::read_exact_at(&file, &mut b, 512).unwrap();
        assert_eq!(b[0], pattern(512));
        r
    }
}

/// io_uring on an image file.
#[cfg(target_os = "linux")]
struct Ring;

#[cfg(target_os = "linux")]
impl Subject for Ring {
    const ENGINE: QueuedEngine = QueuedEngine::IoUring;
    fn with<R>(readable: u64, depth: QueueDepth, f: impl FnOnce(&mut dyn Backend) -> R) -> R {
        let (_keep, file) = image(readable);
        let clock = MonotonicClock::new();
        let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
        let mut ring = super::uring::Ring::new(fd, LEN, depth)
            .unwrap_or_else(|why| panic!("io_uring did not start: {why}"));
        let r = f(&mut ring.backend(&clock));
        drop(ring);
        let mut b = [0u8; 1];
        crate::device::pio::read_exact_at(&file, &mut b, 512).unwrap();
        assert_eq!(b[0], pattern(512));
        r
    }
}

/// The virtual queue on a simulated SSD whose sectors past `readable` are bad.
struct Virtual;

impl Subject for Virtual {
    const ENGINE: QueuedEngine = QueuedEngine::Virtual;
    fn with<R>(readable: u64, depth: QueueDepth, f: impl FnOnce(&mut dyn Backend) -> R) -> R {
        let mut spec = format!("sim:ssd?size={MEDIA}");
        if readable < MEDIA {
            spec += &format!("&bad={}-{}", readable / 512, MEDIA / 512);
        }
        let mut target = crate::device::sim::SimTarget::open(&spec).unwrap();
        let model = crate::device::Simulated::queue_model(&mut target);
        let mut q = super::virtual_queue::VirtualQueue::new(model, LEN, depth);
        f(&mut q)
    }
}

/// A backend with what the loop asked of it counted: requests in flight (and
/// the most at once), submissions after the stop flag or after the reap of a
/// failed completion (its own reap's others may still be replaced, in order), and
/// the stop flag raised after the `raise_after`-th reap.
struct Watched<'a, 'b> {
    inner: &'a mut (dyn Backend + 'b),
    in_flight: usize,
    most: usize,
    submitted: u64,
    completed: u64,
    reaps: u64,
    raise: Option<(u64, &'a AtomicBool)>,
    /// A completion failed (the others of its reap may still be replaced).
    failed: bool,
    /// The stop flag was raised, or a reap after a failed completion began.
    over: bool,
    late: u64,
}

impl<'a, 'b> Watched<'a, 'b> {
    fn new(inner: &'a mut (dyn Backend + 'b)) -> Self {
        Watched {
            inner,
            in_flight: 0,
            most: 0,
            submitted: 0,
            completed: 0,
            reaps: 0,
            raise: None,
            failed: false,
            over: false,
            late: 0,
        }
    }

    /// Account for the completions `out` gained from `before` on.
    fn saw(&mut self, out: &[Completion], before: usize) {
        let new = &out[before..];
        self.in_flight -= new.len();
        self.completed += new.len() as u64;
        self.over |= self.failed;
        self.failed |= new.iter().any(|c| c.result.is_err());
        self.reaps += 1;
        if let Some((n, flag)) = self.raise
            && self.reaps == n
        {
            flag.store(true, Ordering::Relaxed);
            self.over = true;
        }
    }
}

impl Backend for Watched<'_, '_> {
    fn engine(&self) -> QueuedEngine {
        self.inner.engine()
    }
    fn now_ns(&self) -> u64 {
        self.inner.now_ns()
    }
    fn submit(&mut self, req: Request) -> io::Result<()> {
        self.inner.submit(req)?;
        self.submitted += 1;
        self.late += u64::from(self.over);
        self.in_flight += 1;
        self.most = self.most.max(self.in_flight);
        Ok(())
    }
    fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
        let before = out.len();
        self.inner.reap(out)?;
        self.saw(out, before);
        Ok(())
    }
    fn reap_within(&mut self, out: &mut Vec<Completion>, wait: Duration) -> io::Result<()> {
        let before = out.len();
        self.inner.reap_within(out, wait)?;
        self.saw(out, before);
        Ok(())
    }
    fn finish(&mut self, last_ns: u64) {
        self.inner.finish(last_ns)
    }
    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.inner.buffer(slot)
    }
}

fn params(depth: QueueDepth, duration: Duration) -> QueuedParams {
    QueuedParams {
        len: LEN,
        queue_depth: depth,
        duration,
        seed: 3,
        io_timeout: None,
    }
}

/// Random reads over [`MEDIA`] on `backend`, watched; the run, the watch's counts
/// and the backend's fatal error, if any.
fn random_reads(
    backend: &mut dyn Backend,
    p: &QueuedParams,
    stop: &AtomicBool,
    raise_after: Option<u64>,
) -> (QueuedRun, Counts) {
    let mut w = Watched::new(backend);
    w.raise = raise_after.map(|n| (n, stop));
    let mut stream = OffsetGen::new(
        p.seed,
        MEDIA,
        crate::results::settings::SectorSize::B512,
        p.len,
    )
    .unwrap();
    let (run, fatal) = drive(&mut w, &mut stream, p, stop);
    assert!(fatal.is_none(), "{fatal:?}");
    let counts = Counts {
        most: w.most,
        submitted: w.submitted,
        completed: w.completed,
        late: w.late,
    };
    (run, counts)
}

/// What [`Watched`] counted.
struct Counts {
    most: usize,
    submitted: u64,
    completed: u64,
    late: u64,
}

/// The backend keeps the depth until the duration, drains, and times every
/// completion.
fn keeps_the_depth_and_times_every_completion<S: Subject>() {
    let depth = QueueDepth::fixed::<8>();
    let p = params(depth, Duration::from_millis(30));
    let (run, n) = S::with(MEDIA, depth, |b| {
        random_reads(b, &p, &AtomicBool::new(false), None)
    });
    assert_eq!(run.engine, S::ENGINE);
    assert!(run.stop.is_none(), "{:?}", run.stop);
    assert_eq!(n.most, depth.slots(), "the loop kept the depth, never more");
    assert_eq!(n.submitted, n.completed, "every request came back");
    assert_eq!(run.completed, n.completed);
    assert!(run.completed >= 8, "{}", run.completed);
    assert_eq!(run.latency.count, run.completed);
    assert!(run.latency.min_ns > 0);
    assert_eq!(run.bytes, run.completed * u64::from(LEN));
    assert!(run.elapsed_ns >= 30_000_000, "{}", run.elapsed_ns);
}

/// A request the device fails is that request's failed completion: submission
/// stops, what is in flight drains, and the run names its offset.
fn a_failed_read_stops_submission_drains_and_names_its_offset<S: Subject>() {
    let depth = QueueDepth::fixed::<4>();
    let p = params(depth, Duration::from_secs(1));
    let (run, n) = S::with(8192, depth, |b| {
        random_reads(b, &p, &AtomicBool::new(false), None)
    });
    match &run.stop {
        Some(EngineStop::Failed {
            setup: false,
            offset,
            ..
        }) => assert!(*offset >= 8192, "{offset}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(n.late, 0, "nothing submitted after the failure");
    assert_eq!(n.submitted, n.completed, "drained");
    assert_eq!(run.latency.count, run.completed);
    assert!(
        run.completed < n.completed,
        "the failed read is not counted"
    );
}

/// The stop flag raised mid-run: nothing more is submitted, what is in flight
/// drains, and the run ends interrupted.
fn a_stop_flag_raised_mid_run_drains_and_ends_interrupted<S: Subject>() {
    let depth = QueueDepth::fixed::<8>();
    let p = params(depth, Duration::from_secs(60));
    let stop = AtomicBool::new(false);
    let (run, n) = S::with(MEDIA, depth, |b| random_reads(b, &p, &stop, Some(3)));
    assert!(
        matches!(run.stop, Some(EngineStop::Interrupted)),
        "{:?}",
        run.stop
    );
    assert_eq!(n.late, 0, "nothing submitted after the flag");
    assert_eq!(n.submitted, n.completed, "drained");
    assert_eq!(run.latency.count, run.completed);
    assert!(run.completed >= 3);
}

/// The stop flag raised before the start: nothing is submitted.
fn a_stop_flag_raised_before_the_start_submits_nothing<S: Subject>() {
    let depth = QueueDepth::fixed::<8>();
    let p = params(depth, Duration::from_secs(1));
    let (run, n) = S::with(MEDIA, depth, |b| {
        random_reads(b, &p, &AtomicBool::new(true), None)
    });
    assert!(
        matches!(run.stop, Some(EngineStop::Interrupted)),
        "{:?}",
        run.stop
    );
    assert_eq!((n.submitted, run.completed), (0, 0));
}

/// Reads of blocks 0..16 in order, each checked against [`pattern`] in its slot's
/// buffer.
struct Checked {
    next: u64,
    good: u64,
    bad: Vec<u64>,
}

impl Feed for Checked {
    fn next(&mut self, _slot: usize, _buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        (self.next < 16).then(|| {
            self.next += 1;
            ((self.next - 1) * u64::from(LEN), LEN, OpKind::Read)
        })
    }
    fn done(&mut self, req: &Request, c: Completion, buf: Option<&[u8]>) -> bool {
        c.result.unwrap();
        let buf = buf.expect("a backend that moves data lends its buffers");
        let offset = req.offset;
        let ok = (0..u64::from(req.len)).all(|i| buf[i as usize] == pattern(offset + i));
        if ok {
            self.good += 1;
        } else {
            self.bad.push(offset);
        }
        true
    }
}

/// A read's bytes are in its slot's buffer when its completion is handed on.
fn a_read_brings_its_bytes_into_its_slots_buffer<S: Subject>() {
    let depth = QueueDepth::fixed::<4>();
    let feed = S::with(MEDIA, depth, |b| {
        let mut feed = Checked {
            next: 0,
            good: 0,
            bad: Vec::new(),
        };
        let (interrupted, fatal, abandoned) =
            drive_feed(b, &mut feed, depth, &AtomicBool::new(false), None);
        assert!(!interrupted && fatal.is_none() && abandoned == 0);
        feed
    });
    assert!(feed.bad.is_empty(), "wrong bytes at {:?}", feed.bad);
    assert_eq!(feed.good, 16);
}

/// One test of the contract for `$subject`, marked by `$attr`.
macro_rules! contract_test {
    ($subject:ty, $test:ident, [$(#[$attr:meta])*]) => {
        $(#[$attr])*
        #[test]
        fn $test() {
            super::$test::<$subject>();
        }
    };
}

/// The contract's tests for `$subject` in module `$name`, with `$data`, the tests
/// of backends that move data; `$attrs` marks each (e.g. an ignore and its reason).
macro_rules! contract {
    ($name:ident, $subject:ty, [$($data:ident),*], $attrs:tt) => {
        mod $name {
            use super::*;
            contract_test!($subject, keeps_the_depth_and_times_every_completion, $attrs);
            contract_test!(
                $subject,
                a_failed_read_stops_submission_drains_and_names_its_offset,
                $attrs
            );
            contract_test!(
                $subject,
                a_stop_flag_raised_mid_run_drains_and_ends_interrupted,
                $attrs
            );
            contract_test!(
                $subject,
                a_stop_flag_raised_before_the_start_submits_nothing,
                $attrs
            );
            $(contract_test!($subject, $data, $attrs);)*
        }
    };
}

contract!(
    threads,
    Pool,
    [a_read_brings_its_bytes_into_its_slots_buffer],
    []
);

#[cfg(target_os = "linux")]
contract!(
    uring,
    Ring,
    [a_read_brings_its_bytes_into_its_slots_buffer],
    [#[cfg_attr(
        seekprobe_no_uring,
        ignore = "the kernel refuses io_uring (kernel.io_uring_disabled)"
    )]]
);

// The virtual queue moves data only with buffers (`VirtualQueue::with_buffers`,
// the verify pass's): its data is the simulated drive's, tested in device/sim.
contract!(virtual_queue, Virtual, [], []);
