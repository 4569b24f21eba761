//! The queued engine on a simulated drive: a discrete-event simulation in virtual time.
//!
//! The device has [`QueueModel::parallelism`] service slots. Submitted requests wait in
//! one FIFO queue; the head starts as soon as a slot is free, and the model gives its
//! service time ([`QueueModel::service_ns`]) from its start time. Completions are
//! handled in time order (ties in the order the requests started); each one, while
//! less than the duration has passed since the start, submits a replacement at the
//! completion time. A latency is completion time minus submission time, so it includes
//! the time spent queued. The model's virtual clock follows the completions (to the
//! last one at the end).
//!
//! With a queue depth of 1 this is exactly the synchronous loop "read, then read again
//! while less than the duration has passed", operation for operation.

use super::queue::{Backend, Completion, QueuedParams, QueuedRun, Request};
use super::queue_loop::drive;
use crate::clock::Clock;
use crate::device::AlignedBuf;
use crate::device::{IoData, QueueModel};
use crate::results::QueuedEngine;
use crate::results::settings::QueueDepth;
use crate::test_plans::iops::OffsetGen;
use crate::test_plans::{Op, OpKind};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::atomic::AtomicBool;

/// The engine's name in [`QueuedRun::engine`].
pub const NAME: QueuedEngine = QueuedEngine::Virtual;

/// A request in service: (completion time, start order, submission time, slot).
type InService = Reverse<(u64, u64, u64, usize)>;

/// The virtual queue as a [`Backend`]: its time is the completion time of the last
/// request reaped (the start time before the first).
pub struct VirtualQueue<'a> {
    model: &'a mut dyn QueueModel,
    len: u32,
    now: u64,
    free_slots: usize,
    started: u64,
    /// Submitted, not yet started.
    waiting: VecDeque<(u64, Request)>,
    /// The slots' buffers, when the run moves data ([`VirtualQueue::with_buffers`]).
    bufs: Vec<AlignedBuf>,
    in_service: BinaryHeap<InService>,
    /// Requests the model refused when they reached a service slot.
    refused: Vec<Completion>,
}

impl<'a> VirtualQueue<'a> {
    /// A queue of `depth` requests of `len` bytes on `model`, starting at its
    /// clock's time.
    pub fn new(model: &'a mut dyn QueueModel, len: u32, depth: QueueDepth) -> Self {
        let depth = depth.slots();
        let slots = model.parallelism().max(1);
        let now = model.virtual_clock().now_ns();
        VirtualQueue {
            model,
            len,
            now,
            free_slots: slots,
            started: 0,
            waiting: VecDeque::with_capacity(depth),
            bufs: Vec::new(),
            in_service: BinaryHeap::with_capacity(slots.min(depth)),
            refused: Vec::with_capacity(depth),
        }
    }

    /// Give each slot a buffer of the run's request size: a request then moves data
    /// through [`QueueModel::service_data`] when it starts (a model that stores none leaves
    /// a read's buffer as it was).
    pub fn with_buffers(mut self) -> Self {
        let (len, depth) = (self.len as usize, self.waiting.capacity());
        self.bufs = (0..depth).map(|_| AlignedBuf::new(len)).collect();
        self
    }

    /// Start waiting requests on free slots at the current time, in FIFO order.
    fn dispatch(&mut self) {
        while self.free_slots > 0 {
            let Some((submitted, req)) = self.waiting.pop_front() else {
                return;
            };
            let slot = req.slot;
            let op = Op {
                offset: req.offset,
                len: req.len.min(self.len),
                kind: req.kind,
            };
            let served = match self.bufs.get_mut(slot) {
                Some(buf) => {
                    let buf = &mut buf[..op.len as usize];
                    let data = match op.kind {
                        OpKind::Read => IoData::Read(buf),
                        OpKind::Write => IoData::Write(buf),
                    };
                    self.model.service_data(&op, self.now, data)
                }
                None => self.model.service_ns(&op, self.now),
            };
            match served {
                Ok(service) => {
                    self.free_slots -= 1;
                    let done = self.now.saturating_add(service);
                    self.in_service
                        .push(Reverse((done, self.started, submitted, slot)));
                    self.started += 1;
                }
                // The device refused it at once: it occupies no slot.
                Err(error) => self.refused.push(Completion {
                    slot,
                    start_ns: submitted,
                    done_ns: self.now,
                    result: Err(error),
                }),
            }
        }
    }
}

impl Backend for VirtualQueue<'_> {
    fn engine(&self) -> QueuedEngine {
        NAME
    }

    fn now_ns(&self) -> u64 {
        self.now
    }

    fn submit(&mut self, req: Request) -> std::io::Result<()> {
        self.waiting.push_back((self.now, req));
        Ok(())
    }

    fn buffer(&mut self, slot: usize) -> Option<&mut [u8]> {
        self.bufs.get_mut(slot).map(|b| &mut b[..])
    }

    fn reap(&mut self, out: &mut Vec<Completion>) -> std::io::Result<()> {
        self.dispatch();
        if !self.refused.is_empty() {
            out.append(&mut self.refused);
            return Ok(());
        }
        // Completions one at a time, in time order: each may submit a replacement
        // at its own completion time.
        let Some(Reverse((done, _, submitted, slot))) = self.in_service.pop() else {
            return Err(std::io::Error::other("the virtual queue is empty"));
        };
        self.free_slots += 1;
        self.now = done;
        // The drive's clock follows each completion, as a real drive's does the
        // wall's: the live view's rate and time left are read on it mid-pass.
        self.model.virtual_clock().advance_to(done);
        out.push(Completion {
            slot,
            start_ns: submitted,
            done_ns: done,
            result: Ok(()),
        });
        Ok(())
    }

    fn finish(&mut self, last_ns: u64) {
        self.model.virtual_clock().advance_to(last_ns);
    }
}

/// Run the queued random reads on `model` in virtual time.
pub fn run(
    model: &mut dyn QueueModel,
    mut stream: OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> QueuedRun {
    let mut queue = VirtualQueue::new(model, stream.request_len(), params.queue_depth);
    let (mut run, fatal) = drive(&mut queue, &mut stream, params, stop);
    if let Some(error) = fatal
        && run.stop.is_none()
    {
        run.stop = Some(super::queue::EngineStop::Failed {
            setup: false,
            offset: 0,
            error,
        });
    }
    run
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::VirtualClock;
    use crate::device::{ReadBuf, Simulated, Target};
    use crate::engine::queue::EngineStop;
    use crate::engine::queued::run_random_reads;
    use crate::results::device::{DeviceInfo, TargetKind};
    use crate::results::stats::Histogram;
    use std::io;
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    const MEDIA: u64 = 1 << 30;

    /// A drive with `slots` service slots. Each service takes `base` ns plus, when
    /// `seek` is set, a "seek" cost from the previous operation's offset and a
    /// dependence on the start time, so that the order and the times of the model's
    /// calls both matter. Its `read_at` advances the clock by the same service time.
    struct Drive {
        info: DeviceInfo,
        clock: VirtualClock,
        slots: usize,
        base: u64,
        seek: bool,
        head: u64,
        bad: Option<u64>,
        raise_after: Option<(u64, Arc<AtomicBool>)>,
        calls: u64,
        log: Vec<(u64, u64)>,
    }

    impl Drive {
        fn new(slots: usize, base: u64, seek: bool) -> Self {
            let mut info = DeviceInfo::new("d", "d", TargetKind::Simulated);
            info.media_size_bytes = MEDIA;
            Drive {
                info,
                clock: VirtualClock::new(),
                slots,
                base,
                seek,
                head: 0,
                bad: None,
                raise_after: None,
                calls: 0,
                log: Vec::new(),
            }
        }

        fn service(&mut self, offset: u64, start: u64) -> io::Result<u64> {
            self.calls += 1;
            if let Some((n, flag)) = &self.raise_after
                && self.calls == *n
            {
                flag.store(true, Ordering::Relaxed);
            }
            self.log.push((offset, start));
            if Some(offset) == self.bad {
                return Err(io::Error::from(rustix::io::Errno::IO));
            }
            let mut t = self.base;
            if self.seek {
                t += self.head.abs_diff(offset) >> 16;
                t += start % 977;
            }
            self.head = offset;
            Ok(t)
        }
    }

    impl QueueModel for Drive {
        fn parallelism(&self) -> usize {
            self.slots
        }
        fn service_ns(&mut self, op: &Op, start_ns: u64) -> io::Result<u64> {
            self.service(op.offset, start_ns)
        }
        fn virtual_clock(&self) -> &VirtualClock {
            &self.clock
        }
    }

    impl Target for Drive {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, _buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
            let now = self.clock.now_ns();
            let t = self.service(offset, now)?;
            self.clock.advance(t);
            Ok(())
        }
        fn quiesce(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn simulated(&mut self) -> Option<&mut dyn Simulated> {
            Some(self)
        }
    }

    impl Simulated for Drive {
        fn queue_model(&mut self) -> &mut dyn QueueModel {
            self
        }
    }

    fn params(len: u32, queue_depth: u32, ms: u64, seed: u64) -> QueuedParams {
        QueuedParams {
            len,
            queue_depth: QueueDepth::of(queue_depth),
            duration: Duration::from_millis(ms),
            seed,
            io_timeout: None,
        }
    }

    fn go(d: &mut Drive, p: &QueuedParams) -> QueuedRun {
        run_random_reads(
            d,
            MEDIA,
            crate::results::settings::SectorSize::B512,
            p,
            &AtomicBool::new(false),
        )
    }

    #[test]
    fn one_slot_at_depth_128_completes_3000_plus_127_in_3127_ms() {
        // Completions at 1, 2, 3, … ms; those before 3000 ms (1..=2999) each submit a
        // replacement: 128 + 2999 = 3127 requests, the last completing at 3127 ms.
        let mut d = Drive::new(1, 1_000_000, false);
        d.clock.advance(5_000);
        let r = go(&mut d, &params(4096, 128, 3000, 1));
        assert_eq!(r.engine, QueuedEngine::Virtual);
        assert!(r.stop.is_none());
        assert_eq!(r.completed, 3127);
        assert_eq!(r.latency.count, 3127);
        assert_eq!(r.elapsed_ns, 3_127_000_000);
        assert_eq!(d.clock.now_ns(), 5_000 + 3_127_000_000);
        // The first request waits for nothing; in steady state each waits for 127
        // others and its own service.
        assert_eq!(r.latency.min_ns, 1_000_000);
        assert_eq!(r.latency.max_ns, 128_000_000);
    }

    #[test]
    fn four_slots_serve_four_times_the_iops() {
        // 4 complete every ms; replacements for completions at 1..=2999 ms:
        // 128 + 4 * 2999 = 12124 requests, served in 12124 / 4 = 3031 ms.
        let mut d = Drive::new(4, 1_000_000, false);
        let four = go(&mut d, &params(4096, 128, 3000, 1));
        assert_eq!(four.completed, 12_124);
        assert_eq!(four.elapsed_ns, 3_031_000_000);
        let one = go(
            &mut Drive::new(1, 1_000_000, false),
            &params(4096, 128, 3000, 1),
        );
        let iops = |r: &QueuedRun| r.completed as f64 * 1e9 / r.elapsed_ns as f64;
        assert_eq!(iops(&one), 1000.0);
        assert_eq!(iops(&four), 4000.0);
    }

    #[test]
    fn more_slots_than_requests_serve_them_all_at_once() {
        // 8 requests on 32 slots: each completes 1 ms after its submission.
        let r = go(
            &mut Drive::new(32, 1_000_000, false),
            &params(512, 8, 10, 1),
        );
        assert_eq!(r.completed, 8 * 10);
        assert_eq!(r.elapsed_ns, 10_000_000);
        assert_eq!((r.latency.min_ns, r.latency.max_ns), (1_000_000, 1_000_000));
    }

    #[test]
    fn depth_one_is_the_synchronous_loop_op_for_op() {
        let p = params(4096, 1, 50, 99);
        let mut queued = Drive::new(1, 20_000, true);
        let q = go(&mut queued, &p);

        // The synchronous reference: read_at one by one while less than the
        // duration has passed, on an identical drive.
        let mut sync = Drive::new(1, 20_000, true);
        let mut stream = OffsetGen::new(
            p.seed,
            MEDIA,
            crate::results::settings::SectorSize::B512,
            p.len,
        )
        .unwrap();
        let mut buf = AlignedBuf::new(p.len as usize);
        let mut hist = Histogram::new();
        let start = sync.clock.now_ns();
        let mut last = start;
        while last - start < 50_000_000 {
            sync.read_at(buf.for_read(..), stream.next_offset())
                .unwrap();
            let now = sync.clock.now_ns();
            hist.record(now - last);
            last = now;
        }
        assert!(q.completed > 1000, "{}", q.completed);
        assert_eq!(queued.log, sync.log, "the same offsets at the same times");
        assert_eq!(q.completed, hist.count);
        assert_eq!(q.latency, hist);
        assert_eq!(q.elapsed_ns, last - start);
        assert_eq!(queued.clock.now_ns(), sync.clock.now_ns());
    }

    #[test]
    fn the_same_seed_gives_the_same_run() {
        let p = params(32768, 16, 40, 1234);
        let (mut a, mut b) = (Drive::new(3, 50_000, true), Drive::new(3, 50_000, true));
        let (ra, rb) = (go(&mut a, &p), go(&mut b, &p));
        assert_eq!(a.log, b.log);
        assert_eq!(
            (ra.completed, ra.elapsed_ns, &ra.latency),
            (rb.completed, rb.elapsed_ns, &rb.latency)
        );
        let mut c = Drive::new(3, 50_000, true);
        go(&mut c, &params(32768, 16, 40, 1235));
        assert_ne!(a.log, c.log);
    }

    #[test]
    fn a_device_error_stops_submitting_drains_and_names_the_offset() {
        let p = params(4096, 8, 1000, 5);
        let stream = OffsetGen::new(
            p.seed,
            MEDIA,
            crate::results::settings::SectorSize::B512,
            p.len,
        )
        .unwrap();
        let bad = stream.offset(20);
        let mut d = Drive::new(2, 1_000_000, false);
        d.bad = Some(bad);
        let r = go(&mut d, &p);
        match &r.stop {
            Some(EngineStop::Failed {
                setup: false,
                offset,
                error,
            }) => {
                assert_eq!(*offset, bad);
                assert_eq!(
                    error.raw_os_error(),
                    Some(rustix::io::Errno::IO.raw_os_error())
                );
            }
            other => panic!("{other:?}"),
        }
        // Request 20 failed when it reached a slot; the requests queued behind it
        // (at most the queue depth) were still served, and nothing was submitted
        // after the failure. Everything served but the failed one completed.
        let served = d.log.len() as u64;
        assert_eq!(r.completed, served - 1);
        assert_eq!(r.latency.count, r.completed);
        assert!((21..=21 + 8).contains(&served), "{served}");
        assert_eq!(d.clock.now_ns(), r.elapsed_ns);
    }

    #[test]
    fn a_raised_stop_flag_submits_nothing_more_and_drains() {
        let flag = Arc::new(AtomicBool::new(false));
        let mut d = Drive::new(1, 1_000_000, false);
        // Raised during the 200th service, i.e. before the 200th completion.
        d.raise_after = Some((200, flag.clone()));
        let r = run_random_reads(
            &mut d,
            MEDIA,
            crate::results::settings::SectorSize::B512,
            &params(4096, 16, 3000, 1),
            &flag,
        );
        assert!(
            matches!(r.stop, Some(EngineStop::Interrupted)),
            "{:?}",
            r.stop
        );
        // The 199 completions before it each submitted a replacement: 16 + 199.
        assert_eq!(r.completed, 16 + 199);
        assert_eq!(d.log.len() as u64, r.completed);
        assert_eq!(r.elapsed_ns, 215_000_000);
    }
}
