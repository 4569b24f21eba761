//! Unit tests of the queued drive loop on scripted backends: depth, duration,
//! draining, stopping, the watchdog and the pass's watch.

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
        Some(EngineStop::Failed {
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
    assert!(matches!(run.stop, Some(EngineStop::Interrupted)));
    assert!(b.submitted.is_empty());
}
