//! The one loop of queued I/O: [`drive_feed`] keeps a [`Feed`]'s requests in
//! flight on a [`Backend`] (with its watchdog and Ctrl-C's drain), and [`drive`]
//! runs it for a duration on an offset stream (the `Timed` feed).
//!
//! The loop, as diskinfo's `-i`: start the clock, submit `queue_depth` requests, and
//! each time one completes submit a replacement into its slot if less than the
//! duration has passed since the start (measured at that completion), nothing has
//! failed and the stop flag is down; then wait for everything submitted (drain).

use super::queue::{
    Backend, Completion, EngineStop, Fatal, Feed, QueuedParams, QueuedRun, Request,
};
use crate::device::PassWatch;
use crate::results::settings::QueueDepth;
use crate::test_plans::OpKind;
use crate::test_plans::iops::OffsetGen;
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
/// nothing more is submitted and the run ends [`EngineStop::Interrupted`] after the drain.
/// The first failed request likewise stops submission and ends the run with
/// [`EngineStop::Failed`] naming its offset. Allocates only before the start.
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
        Some((offset, error)) => Some(EngineStop::Failed {
            setup: false,
            offset,
            error,
        }),
        None if interrupted => Some(EngineStop::Interrupted),
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
mod tests;
