//! The watchdog's tests: timing on the target's clock, requests given up once,
//! the hold a given-up request keeps on its buffer, the grace after a stop.

use super::*;
use crate::clock::{MonotonicClock, VirtualClock};
use crate::device::AlignedBuf;
use std::sync::{Arc, Condvar, Mutex};

#[test]
fn the_worker_times_the_request_alone_on_the_targets_clock() {
    let f = tempfile::tempfile().unwrap();
    f.set_len(1 << 16).unwrap();
    let clock = VirtualClock::new();
    let mut w = Watchdog::new(&f, Duration::from_secs(5), Stop::default(), clock.clone()).unwrap();
    // A call that takes 7 µs on the clock: 7 µs, to the ns, however long the
    // hand-over to the worker and back took in real time.
    let c = clock.clone();
    let slow = move |_: &File| {
        std::thread::sleep(Duration::from_millis(20));
        c.advance(7_000);
        Ok(true)
    };
    assert_eq!(w.call_timed(0, slow).unwrap(), (true, 7_000));
    // The clock moving between requests (the caller's time) is in neither.
    clock.advance(1_000_000);
    let mut b = AlignedBuf::new(4096);
    assert_eq!(w.read(b.for_read(..), 0).unwrap(), 0);
    assert_eq!(w.write(b.for_write(..), 4096).unwrap(), 0);
}

/// A clock whose first reading waits until [`Gate::open`]: the worker reads it
/// right before each request, so a request on it hangs there, as on a drive
/// the kernel holds.
#[derive(Clone, Default)]
struct Gate(Arc<(Mutex<bool>, Condvar)>);

impl Gate {
    fn open(&self) {
        *self.0.0.lock().unwrap() = true;
        self.0.1.notify_all();
    }
}

impl Clock for Gate {
    fn now_ns(&self) -> u64 {
        let (open, cv) = &*self.0;
        drop(cv.wait_while(open.lock().unwrap(), |o| !*o).unwrap());
        0
    }
    fn sleep(&self, d: Duration) {
        std::thread::sleep(d);
    }
    fn shared(&self) -> Arc<dyn Clock> {
        Arc::new(self.clone())
    }
}

#[test]
fn a_read_given_up_holds_its_buffer_until_the_worker_is_done_with_it() {
    let f = tempfile::tempfile().unwrap();
    f.set_len(1 << 16).unwrap();
    let gate = Gate::default();
    let limit = Duration::from_millis(100);
    let mut w = Watchdog::new(&f, limit, Stop::default(), gate.clone()).unwrap();
    let mut b = AlignedBuf::new(4096);
    let e = w.read(b.for_read(..), 0).unwrap_err();
    assert!(NoAnswer::of(&e).is_some(), "{e}");
    // Given up, the request still holds the memory it would read into: the
    // buffer dropped now would leave its memory to the request.
    assert_eq!(b.holders(), 2, "the hung request holds the buffer");
    gate.open();
    // Once the read is done, the worker lets go (waited for that, not a time).
    let t = Instant::now();
    while b.holders() > 1 {
        assert!(
            t.elapsed() < Duration::from_secs(60),
            "still held after the read"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn requests_pass_through_and_a_hung_one_is_given_up_once() {
    let f = tempfile::tempfile().unwrap();
    f.set_len(1 << 16).unwrap();
    let mut w = Watchdog::new(
        &f,
        Duration::from_millis(200),
        Stop::default(),
        MonotonicClock::new(),
    )
    .unwrap();
    let mut b = AlignedBuf::new(4096);
    b.fill(7);
    w.write(b.for_write(..), 4096).unwrap();
    let mut r = AlignedBuf::new(4096);
    w.read(r.for_read(..), 4096).unwrap();
    assert!(r.iter().all(|&x| x == 7));
    // A call that does not answer within the limit: given up, named.
    let e = w
        .call(12345, |_| {
            std::thread::sleep(Duration::from_millis(600));
            Ok(true)
        })
        .unwrap_err();
    let n = NoAnswer::of(&e).unwrap();
    assert_eq!(n.offset, 12345);
    assert!(n.waited >= Duration::from_millis(200), "{n}");
    assert!(e.to_string().starts_with("no answer for 0.2"), "{e}");
    // Every later request is refused at once, naming the first.
    let t = Instant::now();
    let e = w.read(r.for_read(..), 0).unwrap_err();
    assert_eq!(NoAnswer::of(&e), Some(n));
    assert!(t.elapsed() < Duration::from_millis(100));
}

#[test]
fn a_write_in_pieces_lands_whole_and_its_threads_are_reused() {
    use std::os::unix::fs::FileExt;
    let f = tempfile::tempfile().unwrap();
    f.set_len(1 << 20).unwrap();
    let clock = VirtualClock::new();
    let mut w = Watchdog::new(&f, Duration::from_secs(5), Stop::default(), clock.clone()).unwrap();
    // 300 KiB in 128 KiB pieces: two from the piece threads, the last 44 KiB
    // from the worker; twice, so the threads are reused.
    for (at, seed) in [(4096u64, 3u8), (65536, 11)] {
        let mut b = AlignedBuf::new(300 << 10);
        for (i, x) in b.iter_mut().enumerate() {
            *x = (i % 253) as u8 ^ seed;
        }
        assert_eq!(w.write_pieces(b.for_write(..), at, 128 << 10).unwrap(), 0);
        let mut back = vec![0u8; b.len()];
        f.read_exact_at(&mut back, at).unwrap();
        assert!(back == b[..], "the pieces landed whole at {at}");
    }
    // One piece (a piece size at least the write): the worker writes it alone.
    let b = AlignedBuf::new(4096);
    assert_eq!(w.write_pieces(b.for_write(..), 0, 1 << 20).unwrap(), 0);
}

#[test]
fn after_the_stop_a_hung_request_is_given_up_within_the_grace_and_counted() {
    let f = tempfile::tempfile().unwrap();
    let stop = Stop::default();
    let mut w = Watchdog::new(
        &f,
        Duration::from_secs(60),
        stop.clone(),
        MonotonicClock::new(),
    )
    .unwrap();
    stop.flag()
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let t = Instant::now();
    let hang = |_: &File| {
        std::thread::sleep(Duration::from_secs(3));
        Ok(true)
    };
    let e = w.call(7, hang).unwrap_err();
    assert!(interrupted(&e), "{e}");
    assert!(t.elapsed() >= GRACE && t.elapsed() < Duration::from_secs(2));
    assert_eq!(stop.left_behind(), 1);
}

#[test]
fn a_discard_is_held_to_its_own_limit_and_refused_once_given_up() {
    let s = Duration::from_secs;
    assert_eq!(discard_limit(s(120), 0), s(120));
    assert_eq!(discard_limit(s(30), 1), s(31));
    assert_eq!(discard_limit(s(120), 4_000_000_000_000), s(4120));
    let f = tempfile::tempfile().unwrap();
    let ms = Duration::from_millis;
    let mut w = Watchdog::new(&f, ms(100), Stop::default(), MonotonicClock::new()).unwrap();
    // Longer than the request limit, within its own: answered.
    let slow = |t: u64| {
        move |_: &File| {
            std::thread::sleep(ms(t));
            Ok(true)
        }
    };
    assert!(w.call_within(0, s(5), slow(300)).unwrap());
    assert_eq!(w.limit(), ms(100));
    // Past its own: given up, and the request limit is back.
    let e = w.call_within(0, ms(200), slow(800)).unwrap_err();
    let n = NoAnswer::of(&e).unwrap();
    assert!(n.waited >= ms(200), "{n}");
    assert_eq!(w.limit(), ms(100));
    // A drive given up: the next discard is refused at once.
    let t = Instant::now();
    let e = w.call_within(0, s(10), |_| Ok(true)).unwrap_err();
    assert_eq!(NoAnswer::of(&e), Some(n));
    assert!(t.elapsed() < ms(100));
}
