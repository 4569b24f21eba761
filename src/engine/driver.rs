//! The one loop of queued I/O: [`drive_feed`] keeps a [`Feed`]'s requests in
//! flight on a [`Backend`] (with its watchdog and Ctrl-C's drain), and [`drive`]
//! runs it for a duration on an offset stream (the `Timed` feed).
//!
//! The loop, as diskinfo's `-i`: start the clock, submit `queue_depth` requests, and
//! each time one completes submit a replacement into its slot if less than the
//! duration has passed since the start (measured at that completion), nothing has
//! failed and the stop flag is down; then wait for everything submitted (drain).

use super::queue::{Backend, Completion, Fatal, Feed, QueuedParams, QueuedRun, Request, Stop};
use crate::device::PassWatch;
use crate::probe::OpKind;
use crate::probe::iops::OffsetGen;
use crate::results::settings::QueueDepth;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the loop looks at the clock while it waits for completions: the
/// watchdog's and Ctrl-C's granularity when a request does not come back.
pub const POLL: Duration = Duration::from_millis(100);

/// After Ctrl-C, how long the loop waits for the requests in flight before it
/// leaves them to the threads that carry them (whose buffers stay theirs until the
/// kernel answers): Ctrl-C prints and saves within 2 s even while a request hangs.
pub const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// The error of a request given up by the watchdog: the one type for queued and
/// one-at-a-time requests alike ([`crate::device::watched`]).
pub use crate::device::watched::NoAnswer;

/// The one loop: keep up to `depth` requests of `feed` in flight on `backend` (made
/// for at least that many slots)
/// until the feed has no more, `feed.done` says stop, or `stop` is raised (then
/// nothing more is submitted); drain what is in flight. Returns whether the stop
/// flag ended it, the backend's fatal error if any (a failed submission is
/// handed to `feed.done` as a failed completion), and how many requests it left
/// behind in flight, unanswered (the process can end only when the kernel gives
/// them back).
///
/// While waiting, the loop polls ([`POLL`]): a request unanswered for `io_timeout`
/// ends the loop with a [`NoAnswer`] error, and after Ctrl-C requests that do not
/// come back within [`DRAIN_GRACE`] are left behind, so that a hung request never
/// holds the run.
pub fn drive_feed(
    backend: &mut dyn Backend,
    feed: &mut dyn Feed,
    depth: QueueDepth,
    stop: &AtomicBool,
    io_timeout: Option<Duration>,
) -> (bool, Fatal, usize) {
    drive_feed_watched(backend, feed, depth, stop, io_timeout, None)
}

/// [`drive_feed`] with the pass's watch ([`PassWatch`], a real drive's
/// temperature): while it holds, a slot whose request completes is left idle
/// (nothing new is issued, the requests in flight complete); once every request
/// is back the loop waits, [`POLL`] by [`POLL`], for the hold to lift or Ctrl-C;
/// then the idle slots are filled again.
pub fn drive_feed_watched(
    backend: &mut dyn Backend,
    feed: &mut dyn Feed,
    depth: QueueDepth,
    stop: &AtomicBool,
    io_timeout: Option<Duration>,
    watch: Option<&dyn PassWatch>,
) -> (bool, Fatal, usize) {
    if stop.load(Ordering::Relaxed) {
        return (true, None, 0);
    }
    let depth = depth.slots();
    let mut s = Slots::new(depth, watch);
    // When the watchdog next looks at the slots ([`Slots::overdue`]).
    let mut look_at = s.start(backend, feed);
    let grace = DRAIN_GRACE.as_nanos() as u64;
    let limit_ns = io_timeout.map(|t| t.as_nanos() as u64);
    let mut done: Vec<Completion> = Vec::with_capacity(depth);
    loop {
        s.note_stop(backend, stop);
        s.refill_idle(backend, feed);
        if s.in_flight == 0 {
            if s.idle.is_empty() {
                break;
            }
            // Held with nothing in flight: wait for the drive to cool, or Ctrl-C.
            std::thread::sleep(POLL);
            continue;
        }
        if let Err(e) = backend.reap_within(&mut done, POLL) {
            return (s.interrupted, Some(e), 0);
        }
        s.note_stop(backend, stop);
        if done.is_empty()
            && s.stopped_at
                .is_some_and(|t| backend.now_ns().saturating_sub(t) >= grace)
        {
            // Ctrl-C's grace is over: what is still in flight is left behind.
            return (s.interrupted, None, s.in_flight);
        }
        s.complete(backend, feed, &mut done);
        let Some(limit) = limit_ns else { continue };
        if let Some(n) = s.overdue(backend.now_ns(), limit, &mut look_at) {
            return (s.interrupted, Some(n.error()), s.in_flight);
        }
    }
    (s.interrupted, None, 0)
}

/// The state of [`drive_feed_watched`]'s loop: each slot's request in flight and
/// when it was handed over, the slots left idle by the pass's watch, and whether
/// the feed goes on and Ctrl-C came.
struct Slots<'w> {
    reqs: Vec<Option<Request>>,
    /// When each slot's request was handed over, on the backend's clock (the
    /// target's: a simulated drive's virtual clock in tests).
    since: Vec<Option<u64>>,
    /// Slots left empty while the watch held the pass, to be filled when it lifts.
    idle: Vec<usize>,
    in_flight: usize,
    go_on: bool,
    interrupted: bool,
    /// When the loop saw the stop flag raised, on the backend's clock.
    stopped_at: Option<u64>,
    watch: Option<&'w dyn PassWatch>,
}

impl<'w> Slots<'w> {
    fn new(depth: usize, watch: Option<&'w dyn PassWatch>) -> Self {
        Slots {
            reqs: vec![None; depth],
            since: vec![None; depth],
            idle: Vec::with_capacity(depth),
            in_flight: 0,
            go_on: true,
            interrupted: false,
            stopped_at: None,
            watch,
        }
    }

    /// Whether the pass's watch holds it now.
    fn held(&self) -> bool {
        self.watch.is_some_and(|w| w.held())
    }

    /// Fill every slot (those the watch holds are left idle) until the feed has no
    /// more; returns the time they were handed over, on the backend's clock.
    fn start(&mut self, backend: &mut dyn Backend, feed: &mut dyn Feed) -> u64 {
        for slot in 0..self.reqs.len() {
            if self.held() {
                self.idle.push(slot);
                continue;
            }
            let (sent, more) = submit(slot, backend, feed, &mut self.reqs);
            self.in_flight += usize::from(sent);
            if !more {
                self.go_on = false;
                break;
            }
        }
        let now = backend.now_ns();
        for (s, r) in self.since.iter_mut().zip(&self.reqs) {
            *s = r.map(|_| now);
        }
        now
    }

    /// Note the stop flag's raising (once), on the backend's clock.
    fn note_stop(&mut self, backend: &dyn Backend, stop: &AtomicBool) {
        if !self.interrupted && stop.load(Ordering::Relaxed) {
            self.interrupted = true;
            self.stopped_at = Some(backend.now_ns());
        }
    }

    /// The hold lifted (or the pass ended meanwhile): fill the idle slots.
    fn refill_idle(&mut self, backend: &mut dyn Backend, feed: &mut dyn Feed) {
        while !self.idle.is_empty() && (self.interrupted || !self.go_on || !self.held()) {
            let Some(slot) = self.idle.pop().filter(|_| self.go_on && !self.interrupted) else {
                self.idle.clear();
                break;
            };
            let (sent, more) = submit(slot, backend, feed, &mut self.reqs);
            self.in_flight += usize::from(sent);
            self.since[slot] = sent.then(|| backend.now_ns());
            self.go_on &= more;
        }
    }

    /// Hand each completion of `done` to the feed and submit its slot's next
    /// request (none after Ctrl-C or the feed's end; none while the watch holds:
    /// the slot is left idle).
    fn complete(
        &mut self,
        backend: &mut dyn Backend,
        feed: &mut dyn Feed,
        done: &mut Vec<Completion>,
    ) {
        for c in done.drain(..) {
            self.in_flight -= 1;
            self.since[c.slot] = None;
            let Some(req) = self.reqs[c.slot].take() else {
                continue;
            };
            let slot = c.slot;
            let more = feed.done(&req, c, backend.buffer(slot).map(|b| &*b));
            self.go_on &= more;
            if self.interrupted || !self.go_on {
                continue;
            }
            if self.held() {
                self.idle.push(slot);
                continue;
            }
            let (sent, more) = submit(slot, backend, feed, &mut self.reqs);
            self.in_flight += usize::from(sent);
            if sent {
                self.since[slot] = Some(backend.now_ns());
            }
            self.go_on &= more;
        }
    }

    /// The watchdog, on every turn: other slots completing must not hide a hung
    /// one. No request in flight can reach `limit` before the oldest one seen at
    /// the last look does, so the slots are looked at only from `look_at` on (moved
    /// to that oldest one's limit). The oldest request unanswered for `limit` at
    /// `now`, if one is.
    fn overdue(&self, now: u64, limit: u64, look_at: &mut u64) -> Option<NoAnswer> {
        if self.in_flight == 0 || now < *look_at {
            return None;
        }
        let oldest = (0..self.reqs.len())
            .filter_map(|s| Some((self.since[s]?, self.reqs[s]?)))
            .min_by_key(|(t, _)| *t);
        match oldest {
            Some((t, req)) if now.saturating_sub(t) >= limit => Some(NoAnswer {
                offset: req.offset,
                waited: Duration::from_nanos(now - t),
            }),
            Some((t, _)) => {
                *look_at = t.saturating_add(limit);
                None
            }
            None => {
                *look_at = now.saturating_add(limit);
                None
            }
        }
    }
}

/// Run `params.queue_depth` requests of `stream` in flight on `backend` for
/// `params.duration`, then drain. `stop` is checked after every reap: once raised,
/// nothing more is submitted and the run ends [`Stop::Interrupted`] after the drain.
/// The first failed request likewise stops submission and ends the run with
/// [`Stop::Failed`] naming its offset. Allocates only before the start.
pub fn drive(
    backend: &mut dyn Backend,
    stream: &mut OffsetGen,
    params: &QueuedParams,
    stop: &AtomicBool,
) -> (QueuedRun, Fatal) {
    let mut run = QueuedRun::new(backend.engine());
    let start = backend.now_ns();
    let mut feed = Timed {
        stream,
        len: 0,
        duration: u64::try_from(params.duration.as_nanos()).unwrap_or(u64::MAX),
        start,
        now: start,
        last: start,
        run: &mut run,
        failure: None,
    };
    feed.len = feed.stream.request_len();
    let (interrupted, fatal, abandoned) = drive_feed(
        backend,
        &mut feed,
        params.queue_depth,
        stop,
        params.io_timeout,
    );
    let (last, failure, len) = (feed.last, feed.failure.take(), feed.len);
    backend.finish(last);
    run.elapsed_ns = last - start;
    run.bytes = run.completed * u64::from(len);
    run.abandoned = abandoned;
    run.stop = match failure {
        Some((offset, error)) => Some(Stop::Failed {
            setup: false,
            offset,
            error,
        }),
        None if interrupted => Some(Stop::Interrupted),
        None => None,
    };
    (run, fatal)
}

/// Submit the next request of `slot`: whether one was sent, and whether the feed
/// wants more (a failed submission is handed to the feed as a failed completion).
fn submit(
    slot: usize,
    backend: &mut dyn Backend,
    feed: &mut dyn Feed,
    reqs: &mut [Option<Request>],
) -> (bool, bool) {
    let Some((offset, len, kind)) = feed.next(slot, backend.buffer(slot)) else {
        return (false, true);
    };
    let req = Request {
        slot,
        offset,
        len,
        kind,
    };
    match backend.submit(req) {
        Ok(()) => {
            reqs[slot] = Some(req);
            (true, true)
        }
        Err(e) => {
            let now = backend.now_ns();
            let c = Completion {
                slot,
                start_ns: now,
                done_ns: now,
                result: Err(e),
            };
            (false, feed.done(&req, c, None))
        }
    }
}

/// The [`Feed`] of [`drive`]: the stream's offsets while less than the duration
/// has passed (at the completion that frees the slot), until the first failure.
struct Timed<'a> {
    stream: &'a mut OffsetGen,
    len: u32,
    duration: u64,
    start: u64,
    /// The time of the completion being handled (the start before any).
    now: u64,
    /// Time of the latest successful completion so far (the start before any), ns.
    last: u64,
    run: &'a mut QueuedRun,
    failure: Option<(u64, io::Error)>,
}

impl Feed for Timed<'_> {
    fn next(&mut self, _slot: usize, _buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
        if self.now.saturating_sub(self.start) >= self.duration {
            return None;
        }
        Some((self.stream.next_offset(), self.len, OpKind::Read))
    }

    fn done(&mut self, req: &Request, c: Completion, _buf: Option<&[u8]>) -> bool {
        self.now = c.done_ns;
        match c.result {
            Ok(()) => {
                self.run.completed += 1;
                self.run
                    .latency
                    .record(c.done_ns.saturating_sub(c.start_ns));
                self.last = self.last.max(c.done_ns);
            }
            Err(e) => {
                if self.failure.is_none() {
                    self.failure = Some((req.offset, e));
                }
            }
        }
        self.failure.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::QueuedEngine;
    use std::collections::VecDeque;

    /// Every reap finishes all requests queued so far, 10 ns after the previous
    /// reap; the request at `bad` fails.
    struct Batch {
        now: u64,
        queued: VecDeque<Request>,
        bad: Option<u64>,
        submitted: Vec<u64>,
    }

    impl Backend for Batch {
        fn engine(&self) -> QueuedEngine {
            QueuedEngine::Unknown
        }
        fn now_ns(&self) -> u64 {
            self.now
        }
        fn submit(&mut self, req: Request) -> io::Result<()> {
            self.submitted.push(req.offset);
            self.queued.push_back(req);
            Ok(())
        }
        fn reap(&mut self, out: &mut Vec<Completion>) -> io::Result<()> {
            let start_ns = self.now;
            self.now += 10;
            for r in self.queued.drain(..) {
                let result = if Some(r.offset) == self.bad {
                    Err(io::Error::from_raw_os_error(5))
                } else {
                    Ok(())
                };
                out.push(Completion {
                    slot: r.slot,
                    start_ns,
                    done_ns: self.now,
                    result,
                });
            }
            Ok(())
        }
    }

    /// Every request finishes 1 ms after its submission, on a virtual clock, except
    /// the one at `hang`, which never does; a wait with nothing finished moves the
    /// clock by the wait.
    struct Stuck {
        now: u64,
        hang: u64,
        queued: VecDeque<(Request, u64)>,
    }

    impl Backend for Stuck {
        fn engine(&self) -> QueuedEngine {
            QueuedEngine::Unknown
        }
        fn now_ns(&self) -> u64 {
            self.now
        }
        fn submit(&mut self, req: Request) -> io::Result<()> {
            self.queued.push_back((req, self.now + 1_000_000));
            Ok(())
        }
        fn reap(&mut self, _out: &mut Vec<Completion>) -> io::Result<()> {
            unreachable!("the loop polls")
        }
        fn reap_within(&mut self, out: &mut Vec<Completion>, wait: Duration) -> io::Result<()> {
            let due = self
                .queued
                .iter()
                .filter(|(r, _)| r.offset != self.hang)
                .map(|&(_, t)| t)
                .min();
            match due {
                Some(t) if t <= self.now + wait.as_nanos() as u64 => {
                    self.now = self.now.max(t);
                    let now = self.now;
                    self.queued.retain(|&(r, t)| {
                        let done = r.offset != self.hang && t <= now;
                        if done {
                            out.push(Completion {
                                slot: r.slot,
                                start_ns: t - 1_000_000,
                                done_ns: t,
                                result: Ok(()),
                            });
                        }
                        !done
                    });
                }
                _ => self.now += wait.as_nanos() as u64,
            }
            Ok(())
        }
    }

    /// Reads of 4 KiB at 0, 4096, ... (n of them).
    struct Reads(u64, u64);

    impl Feed for Reads {
        fn next(&mut self, _slot: usize, _buf: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
            (self.0 < self.1).then(|| {
                self.0 += 1;
                ((self.0 - 1) * 4096, 4096, OpKind::Read)
            })
        }
        fn done(&mut self, _req: &Request, _c: Completion, _buf: Option<&[u8]>) -> bool {
            true
        }
    }

    #[test]
    fn the_watchdog_gives_a_request_up_after_io_timeout_on_the_backends_clock() {
        let mut b = Stuck {
            now: 0,
            hang: 3 * 4096,
            queued: VecDeque::new(),
        };
        let (interrupted, fatal, abandoned) = drive_feed(
            &mut b,
            &mut Reads(0, 8),
            TWO,
            &AtomicBool::new(false),
            Some(Duration::from_secs(5)),
        );
        assert!(!interrupted);
        let n = NoAnswer::of(&fatal.unwrap()).unwrap();
        assert_eq!(n.offset, 3 * 4096);
        // Submitted at 1 ms (as the reads at 0 and 4096 completed); given up at the
        // first poll at least 5 s later, and the error says how long it really waited.
        assert!((5_001_000_000..5_001_000_000 + POLL.as_nanos() as u64).contains(&b.now));
        assert_eq!(n.waited, Duration::from_nanos(b.now - 1_000_000));
        assert!(n.waited > Duration::from_secs(5));
        assert_eq!(
            n.to_string(),
            format!("no answer for {} s at byte 12288", n.waited.as_secs_f64())
        );
        // The hung read alone was in flight.
        assert_eq!(abandoned, 1);
    }

    #[test]
    fn the_watchdog_sees_a_hung_request_while_the_other_slots_keep_completing() {
        // The read at 0 hangs; the other slot completes a read every 1 ms, so no
        // poll ever comes back empty before the million reads are done (1000 s).
        let mut b = Stuck {
            now: 0,
            hang: 0,
            queued: VecDeque::new(),
        };
        let (interrupted, fatal, abandoned) = drive_feed(
            &mut b,
            &mut Reads(0, 1_000_000),
            TWO,
            &AtomicBool::new(false),
            Some(Duration::from_secs(5)),
        );
        assert!(!interrupted);
        let n = NoAnswer::of(&fatal.unwrap()).unwrap();
        assert_eq!(n.offset, 0);
        // Submitted at 0, given up at the completion that reaches 5 s.
        assert_eq!(b.now, 5_000_000_000);
        assert_eq!(n.to_string(), "no answer for 5 s at byte 0");
        // The hung read and the other slot's replacement.
        assert_eq!(abandoned, 2);
    }

    #[test]
    fn after_ctrl_c_a_hung_request_is_left_behind_within_the_grace() {
        let mut b = Stuck {
            now: 0,
            hang: 0,
            queued: VecDeque::new(),
        };
        let (interrupted, fatal, abandoned) =
            drive_feed(&mut b, &mut Reads(0, 4), TWO, &AtomicBool::new(true), None);
        // Raised before the start: nothing is submitted.
        assert!(interrupted && fatal.is_none() && abandoned == 0);
        assert_eq!(b.now, 0);
        let stop = AtomicBool::new(false);
        struct StopAt<'a>(Reads, &'a AtomicBool);
        impl Feed for StopAt<'_> {
            fn next(&mut self, s: usize, b: Option<&mut [u8]>) -> Option<(u64, u32, OpKind)> {
                self.0.next(s, b)
            }
            fn done(&mut self, _r: &Request, _c: Completion, _b: Option<&[u8]>) -> bool {
                self.1.store(true, Ordering::Relaxed);
                true
            }
        }
        // The read at 0 hangs; Ctrl-C as the one at 4096 completes (at 1 ms). The
        // loop sees the flag after its next reap (the replacement at 8192, done at
        // 2 ms) and leaves the hung read DRAIN_GRACE later.
        let (interrupted, fatal, abandoned) =
            drive_feed(&mut b, &mut StopAt(Reads(0, 4), &stop), TWO, &stop, None);
        assert!(interrupted && fatal.is_none());
        assert_eq!(abandoned, 1, "the hung read");
        assert_eq!(b.now, 2_000_000 + DRAIN_GRACE.as_nanos() as u64);
    }

    fn batch(bad: Option<u64>) -> Batch {
        Batch {
            now: 1000,
            queued: VecDeque::new(),
            bad,
            submitted: Vec::new(),
        }
    }

    const TWO: QueueDepth = QueueDepth::fixed::<2>();

    /// Holds the pass while its counter of questions is in `from..to`, and counts
    /// the submissions it saw while held (there must be none).
    struct HeldFor {
        asked: std::sync::atomic::AtomicU32,
        from: u32,
        to: u32,
        stop_after: Option<(u32, &'static AtomicBool)>,
    }

    impl PassWatch for HeldFor {
        fn held(&self) -> bool {
            let n = self.asked.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some((k, stop)) = self.stop_after
                && n >= k
            {
                stop.store(true, Ordering::Relaxed);
            }
            (self.from..self.to).contains(&n)
        }
    }

    #[test]
    fn a_held_pass_issues_nothing_new_lets_the_requests_in_flight_complete_and_resumes() {
        let mut b = batch(None);
        let w = HeldFor {
            asked: 0.into(),
            from: 3,
            to: 9,
            stop_after: None,
        };
        let (interrupted, fatal, abandoned) = drive_feed_watched(
            &mut b,
            &mut Reads(0, 8),
            TWO,
            &AtomicBool::new(false),
            None,
            Some(&w),
        );
        assert!(!interrupted && fatal.is_none() && abandoned == 0);
        // Every read submitted once, in order, after the hold lifted.
        assert_eq!(b.submitted, (0..8).map(|k| k * 4096).collect::<Vec<_>>());
        // Asked 2 times at the start, then at each completion and at each turn
        // with idle slots: the hold (questions 3 to 8) was seen and waited out.
        let asked = w.asked.load(Ordering::Relaxed);
        assert!(asked >= 9, "{asked}");
    }

    #[test]
    fn ctrl_c_ends_a_held_pass_with_nothing_in_flight() {
        static STOP: AtomicBool = AtomicBool::new(false);
        let mut b = batch(None);
        let w = HeldFor {
            asked: 0.into(),
            from: 1,
            to: u32::MAX,
            stop_after: Some((4, &STOP)),
        };
        let (interrupted, fatal, abandoned) =
            drive_feed_watched(&mut b, &mut Reads(0, 8), TWO, &STOP, None, Some(&w));
        assert!(interrupted && fatal.is_none() && abandoned == 0);
        assert!(b.submitted.is_empty(), "{:?}", b.submitted);
    }

    fn params(ns: u64) -> QueuedParams {
        QueuedParams {
            len: 4096,
            queue_depth: QueueDepth::fixed::<4>(),
            duration: Duration::from_nanos(ns),
            seed: 7,
            io_timeout: None,
        }
    }

    fn stream() -> OffsetGen {
        OffsetGen::new(7, 1 << 30, crate::results::settings::SectorSize::B512, 4096).unwrap()
    }

    #[test]
    fn the_driver_keeps_the_depth_until_the_duration_then_drains() {
        // Reaps at 1010, 1020, …: each completes 4; replacements while less than
        // 50 ns have passed, i.e. after the reaps at 10..=40 ns: 4 + 4 * 4 requests.
        let mut b = batch(None);
        let (run, fatal) = drive(&mut b, &mut stream(), &params(50), &AtomicBool::new(false));
        assert!(fatal.is_none() && run.stop.is_none());
        assert_eq!(run.engine, QueuedEngine::Unknown);
        assert_eq!(run.completed, 20);
        assert_eq!(run.bytes, 20 * 4096);
        assert_eq!(run.elapsed_ns, 50);
        assert_eq!(run.latency.count, 20);
        assert_eq!((run.latency.min_ns, run.latency.max_ns), (10, 10));
        let mut s = stream();
        let expected: Vec<u64> = (0..20).map(|_| s.next_offset()).collect();
        assert_eq!(b.submitted, expected, "the stream's offsets, in order");
    }

    #[test]
    fn a_failure_stops_submission_and_names_its_offset() {
        let bad = stream().offset(5);
        let mut b = batch(Some(bad));
        let (run, _) = drive(
            &mut b,
            &mut stream(),
            &params(1_000_000),
            &AtomicBool::new(false),
        );
        match run.stop {
            Some(Stop::Failed {
                setup: false,
                offset,
                ..
            }) => assert_eq!(offset, bad),
            other => panic!("{other:?}"),
        }
        // The second reap finishes requests 4..8 in order: 4 still submits its
        // replacement (8), 5 fails, 6 and 7 submit nothing; 8 is drained.
        assert_eq!(b.submitted.len(), 9);
        assert_eq!(run.completed, 8);
    }

    #[test]
    fn a_raised_stop_flag_submits_nothing() {
        let mut b = batch(None);
        let (run, _) = drive(
            &mut b,
            &mut stream(),
            &params(1_000_000),
            &AtomicBool::new(true),
        );
        assert!(matches!(run.stop, Some(Stop::Interrupted)));
        assert!(b.submitted.is_empty());
    }
}
