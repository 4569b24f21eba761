//! Watching a drive's temperature during long work: [`TempWatched`] wraps a target
//! and, as its reads and writes pass (and between the polls of a self-test),
//! reads the drive's temperature when a sample is due (every 5 minutes on a real
//! drive, through smartctl; every 10 minutes of a simulated drive's virtual
//! clock, from its model). Above the limit the drive's writes pause, the clock
//! letting time pass (a real sleep, or virtual time), until it has cooled 5 °C
//! below, at most [`MAX_PAUSE_S`]. The samples and pauses go to a shared
//! [`Handle`] the run keeps in the drive's SMART result ([`keep`]), through the
//! [`Watch`] it holds: which also samples a real drive between the polls of its
//! self-tests ([`Watch::smart`]) and during its queued passes ([`Watch::pass`]).

use crate::clock::{Clock, VirtualClock};
use crate::device::{IoData, QueueModel, ReadBuf, Simulated, Target, WriteBuf};
use crate::results::device::DeviceInfo;
use crate::results::smart::{SelfTestKind, SmartResult};
use crate::smart::smartctl::{self, SmartRead, Smartctl, SmartctlError};
use crate::smart::source::{SelfTestPoll, SelfTestStarted, SmartSource, SmartctlSource};
use crate::smart::temperature::{self, Action, Sampler};
use crate::test_plans::Op;
use std::io;
use std::os::fd::BorrowedFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The longest a hot drive's writes are paused at once, seconds: then they
/// resume, the pause recorded as ended without the drive cooling.
pub const MAX_PAUSE_S: f64 = 3600.0;

/// The sampler a run keeps, shared with the wrapper.
pub type Handle = Arc<Mutex<Sampler>>;

/// A target whose temperature is watched.
pub struct TempWatched {
    inner: Box<dyn Target>,
    smartctl: Option<SmartctlSource>,
    sampler: Handle,
    t0_ns: u64,
    vclock: Option<VirtualClock>,
    parallelism: usize,
}

/// What the run holds of a watched drive: its samples, and what samples a real
/// drive where the wrapper's own requests cannot (a self-test's polls, a queued
/// pass).
pub struct Watch {
    /// The samples, shared with the wrapper.
    pub samples: Handle,
    /// smartctl and its limit, for a real drive (None: simulated, or no smartctl).
    smartctl: Option<Smartctl>,
    /// The drive's path, as smartctl is given it.
    device: String,
    /// The drive's clock when the watch began: samples count from it.
    t0_ns: u64,
}

/// Wrap `target` for long work: the limit is `max_temp` (`--max-temp`), else
/// the drive's own (read now), else 60 °C; a real drive's smartctl is held to
/// `smartctl_limit` (`--io-timeout`). Returns the wrapped target and the run's
/// watch of it.
pub fn wrap(
    mut target: Box<dyn Target>,
    (max_temp, smartctl_limit): (Option<i64>, Duration),
) -> (Box<dyn Target>, Watch) {
    let simulated = (target.simulated()).is_some_and(|s| s.smart_source().is_some());
    let found = (!simulated).then(|| smartctl::find().ok()).flatten();
    let smartctl_path = found.map(|path| Smartctl {
        path,
        limit: smartctl_limit,
    });
    let smartctl = (smartctl_path.clone()).map(|p| SmartctlSource::new(p, &target.info().path));
    let every = if simulated {
        temperature::EVERY_SIMULATED_S
    } else {
        real_every_s()
    };
    let (vclock, parallelism) = match crate::device::queue_model(target.as_mut()) {
        Some(q) => (Some(q.virtual_clock().clone()), q.parallelism()),
        None => (None, 1),
    };
    let t0_ns = target.clock().now_ns();
    let device = target.info().path.clone();
    // A model without SMART of its own is sampled on its virtual clock too.
    let real = smartctl_path.filter(|_| vclock.is_none());
    let mut w = TempWatched {
        inner: target,
        smartctl,
        sampler: Arc::new(Mutex::new(Sampler::new(0, "", every))),
        t0_ns,
        vclock,
        parallelism,
    };
    let drive_limit = match w.source_read() {
        Ok(SmartRead::Health { health, .. }) => health.temperature_limit_c,
        _ => None,
    };
    let (limit, source) = temperature::limit(max_temp, drive_limit);
    let handle = Arc::new(Mutex::new(Sampler::new(limit, source, every)));
    w.sampler = handle.clone();
    let watch = Watch {
        samples: handle,
        smartctl: real,
        device,
        t0_ns,
    };
    (Box::new(w), watch)
}

/// How often a real drive is sampled: [`temperature::EVERY_REAL_S`], or the
/// seconds in `SEEKPROBE_TEMP_EVERY_S` (the integration tests' stand-in
/// smartctl, which cannot wait 5 minutes; docs/testing.md).
fn real_every_s() -> f64 {
    std::env::var("SEEKPROBE_TEMP_EVERY_S")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| *s > 0.0)
        .unwrap_or(temperature::EVERY_REAL_S)
}

/// For a run: wrap the target when SMART is read and the work is long
/// (`long_work`: a burn-in, --verify, --smr-check); else leave it as it is.
pub fn for_run(
    target: Box<dyn Target>,
    long_work: bool,
    smart: &crate::smart::policy::SmartSettings,
) -> (Box<dyn Target>, Option<Watch>) {
    if long_work && smart.read {
        let (t, h) = wrap(target, (smart.max_temp, smart.smartctl_limit));
        (t, Some(h))
    } else {
        (target, None)
    }
}

/// What the live line shows of the samples: the latest reading and whether the
/// drive's work is paused for heat.
pub fn now(watch: &Watch) -> super::sink::TemperatureNow {
    let h = watch.samples.clone();
    Box::new(move || {
        let s = h.lock().unwrap_or_else(|e| e.into_inner());
        let last = s.log.samples.last()?;
        Some((last.celsius, s.paused()))
    })
}

/// Put what the handle gathered into the drive's SMART result.
pub fn keep(watch: Option<&Watch>, smart: Option<&mut SmartResult>) {
    if let (Some(w), Some(r)) = (watch, smart) {
        r.temperature = Some(w.samples.lock().expect("temperature sampler").log.clone());
    }
}

/// The temperature of a reading, when it has one.
fn celsius(read: Result<SmartRead, SmartctlError>) -> Option<i64> {
    match read {
        Ok(SmartRead::Health { health, .. }) => health.temperature_c,
        _ => None,
    }
}

impl Watch {
    /// For a queued pass of a real drive (`target`, the wrapped drive): a watch
    /// kept while the pass runs, its temperature sampled from a side thread
    /// ([`super::pass_temps`]) and asked by the drive loop before each submission
    /// ([`crate::executor::Context::watch`]);
    /// dropping it ends the watch. None for a simulated drive: its queued
    /// requests are sampled as the virtual queue serves them.
    pub fn pass(&self, target: &dyn Target) -> Option<super::pass_temps::SideSampler> {
        let smartctl = self.smartctl.clone()?;
        // Without a descriptor no pass of it is queued on the pool.
        target.raw_fd()?;
        let every = real_every_s();
        Some(super::pass_temps::start(
            smartctl,
            self.device.clone(),
            self.samples.clone(),
            self.now_s(target.clock()),
            temperature::PAUSED_EVERY_S.min(every),
            MAX_PAUSE_S,
        ))
    }

    /// A real drive's SMART through smartctl, a sample due taken between the
    /// polls of a self-test (timed on `clock`, the drive's); None for a simulated
    /// drive (its own source, through the wrapper, samples it) or without smartctl.
    pub fn smart<'a>(&'a self, clock: &'a dyn Clock) -> Option<Box<dyn SmartSource + 'a>> {
        let smartctl = self.smartctl.clone()?;
        Some(Box::new(Polled {
            smartctl: SmartctlSource::new(smartctl, &self.device),
            watch: self,
            clock,
        }))
    }

    /// Whether [`Watch::smart`] gives the drive's SMART.
    pub fn smart_of_real_drive(&self) -> bool {
        self.smartctl.is_some()
    }

    fn now_s(&self, clock: &dyn Clock) -> f64 {
        clock.now_ns().saturating_sub(self.t0_ns) as f64 / 1e9
    }
}

/// A real drive's smartctl, sampled between a self-test's polls ([`Watch::smart`]).
struct Polled<'a> {
    smartctl: SmartctlSource,
    watch: &'a Watch,
    clock: &'a dyn Clock,
}

impl SmartSource for Polled<'_> {
    fn device(&self) -> String {
        self.watch.device.clone()
    }
    fn read(&mut self) -> Result<SmartRead, SmartctlError> {
        self.smartctl.read()
    }
    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError> {
        self.smartctl.supports(kind)
    }
    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError> {
        self.smartctl.start_self_test(kind)
    }
    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError> {
        self.smartctl.poll_self_test()
    }
    fn abort_self_test(&mut self) -> Result<(), SmartctlError> {
        self.smartctl.abort_self_test()
    }
    fn now(&self) -> Duration {
        Duration::from_nanos(self.clock.now_ns())
    }
    fn pause(&mut self, d: Duration, interrupted: &dyn Fn() -> bool) {
        self.smartctl.pause(d, interrupted);
        let samples = &self.watch.samples;
        let due = (samples.lock().expect("temperature sampler")).due(self.watch.now_s(self.clock));
        if due {
            let now = self.watch.now_s(self.clock);
            let c = celsius(self.smartctl.read());
            samples.lock().expect("temperature sampler").record(now, c);
        }
    }
}

impl TempWatched {
    fn now_s(&self) -> f64 {
        self.inner.clock().now_ns().saturating_sub(self.t0_ns) as f64 / 1e9
    }

    fn source_read(&mut self) -> Result<SmartRead, SmartctlError> {
        let own = self.inner.simulated().and_then(|s| s.smart_source());
        match (own, self.smartctl.as_mut()) {
            (Some(s), _) => s.read(),
            (None, Some(s)) => s.read(),
            (None, None) => Err(SmartctlError::NotInstalled),
        }
    }

    fn read_celsius(&mut self) -> Option<i64> {
        celsius(self.source_read())
    }

    fn sample(&mut self) -> Action {
        let now = self.now_s();
        let c = self.read_celsius();
        self.sampler
            .lock()
            .expect("temperature sampler")
            .record(now, c)
    }

    fn sample_if_due(&mut self) {
        let due = self
            .sampler
            .lock()
            .expect("temperature sampler")
            .due(self.now_s());
        if due {
            self.sample();
        }
    }

    /// Before a write: sample when due, and while the drive is too hot let time
    /// pass (reading it every minute) until it has cooled or [`MAX_PAUSE_S`].
    fn before_write(&mut self) {
        self.sample_if_due();
        let start = self.now_s();
        while self.sampler.lock().expect("temperature sampler").paused() {
            if self.now_s() - start >= MAX_PAUSE_S {
                let now = self.now_s() as u64;
                let mut s = self.sampler.lock().expect("temperature sampler");
                if let Some(p) = s.log.pauses.last_mut() {
                    p.to_s = Some(now);
                    p.cooled = false;
                }
                break;
            }
            self.inner
                .clock()
                .sleep(Duration::from_secs_f64(temperature::PAUSED_EVERY_S));
            self.sample();
        }
    }
}

impl Target for TempWatched {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }
    fn clock(&self) -> &dyn Clock {
        self.inner.clock()
    }
    fn read_at(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
        self.sample_if_due();
        self.inner.read_at(buf, offset)
    }
    fn quiesce(&mut self) -> io::Result<()> {
        self.inner.quiesce()
    }
    fn write_at(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<()> {
        self.before_write();
        self.inner.write_at(buf, offset)
    }
    fn flush(&mut self) -> io::Result<bool> {
        self.inner.flush()
    }
    // The timed requests go to the inner target's own timing: a temperature
    // sample (or a pause for --max-temp) before one is no part of its latency.
    fn read_timed(&mut self, buf: ReadBuf<'_>, offset: u64) -> io::Result<u64> {
        self.sample_if_due();
        self.inner.read_timed(buf, offset)
    }
    fn write_timed(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<u64> {
        self.before_write();
        self.inner.write_timed(buf, offset)
    }
    fn write_pieces_timed(
        &mut self,
        buf: WriteBuf<'_>,
        offset: u64,
        piece: u32,
    ) -> io::Result<u64> {
        self.before_write();
        self.inner.write_pieces_timed(buf, offset, piece)
    }
    fn flush_timed(&mut self) -> io::Result<(bool, u64)> {
        self.inner.flush_timed()
    }

    fn discard(&mut self) -> io::Result<bool> {
        self.inner.discard()
    }
    fn raw_fd(&self) -> Option<BorrowedFd<'_>> {
        self.inner.raw_fd()
    }
    fn device_io_bytes(&self) -> Option<(u64, u64)> {
        self.inner.device_io_bytes()
    }
    fn own_io_bytes(&self) -> u64 {
        self.inner.own_io_bytes()
    }
    /// A simulated drive's queue model and SMART come through the wrapper, which
    /// samples as they are asked (a real drive's SMART: [`Watch::smart`]).
    fn simulated(&mut self) -> Option<&mut dyn Simulated> {
        if self.vclock.is_some() {
            Some(self)
        } else {
            None
        }
    }
}

/// The inner simulated drive's own, with the wrapper sampling between.
impl Simulated for TempWatched {
    fn queue_model(&mut self) -> &mut dyn QueueModel {
        self
    }
    fn smart_source(&mut self) -> Option<&mut dyn SmartSource> {
        Some(self)
    }
    fn controller(&mut self) -> Option<(&str, u64)> {
        self.inner.simulated()?.controller()
    }
    fn set_together(&mut self, together: crate::device::Together) {
        if let Some(s) = self.inner.simulated() {
            s.set_together(together);
        }
    }
}

impl TempWatched {
    /// A queued request of a simulated drive starts at `start_ns`: the virtual
    /// queue moves the drive's clock only when its run ends, so bring the clock up
    /// to the request first (never back: `advance_to`), so that a sample due
    /// during a long queued pass (the write-verify halves) is taken at its time
    /// and reads the drive's temperature then.
    fn queued_at(&mut self, start_ns: u64) {
        if let Some(c) = &self.vclock {
            c.advance_to(start_ns);
        }
        self.sample_if_due();
    }

    /// The inner drive's queue model (the wrapper is asked for it only when the
    /// inner drive is simulated).
    fn inner_model(&mut self) -> &mut dyn QueueModel {
        crate::device::queue_model(self.inner.as_mut()).expect("a queue model")
    }
}

/// Queued requests of a simulated drive are sampled as they are served (writes
/// are not paused here, only the synchronous path pauses them).
impl QueueModel for TempWatched {
    fn parallelism(&self) -> usize {
        self.parallelism
    }
    fn service_ns(&mut self, op: &Op, start_ns: u64) -> io::Result<u64> {
        self.queued_at(start_ns);
        self.inner_model().service_ns(op, start_ns)
    }
    fn virtual_clock(&self) -> &VirtualClock {
        self.vclock.as_ref().expect("a queue model")
    }
    fn service_data(&mut self, op: &Op, start_ns: u64, data: IoData<'_>) -> io::Result<u64> {
        self.queued_at(start_ns);
        self.inner_model().service_data(op, start_ns, data)
    }
}

/// The drive's SMART through the wrapper: its own source (simulated) or
/// smartctl, with a temperature sample due taken between the polls of a
/// self-test.
impl SmartSource for TempWatched {
    fn device(&self) -> String {
        self.inner.info().path.clone()
    }
    fn read(&mut self) -> Result<SmartRead, SmartctlError> {
        self.source_read()
    }
    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError> {
        self.with(|s| s.supports(kind))
    }
    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError> {
        self.with(|s| s.start_self_test(kind))
    }
    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError> {
        self.with(|s| s.poll_self_test())
    }
    fn abort_self_test(&mut self) -> Result<(), SmartctlError> {
        self.with(|s| s.abort_self_test())
    }
    fn now(&self) -> Duration {
        Duration::from_nanos(self.inner.clock().now_ns())
    }
    fn pause(&mut self, d: Duration, interrupted: &dyn Fn() -> bool) {
        let _ = self.with(|s| {
            s.pause(d, interrupted);
            Ok(())
        });
        self.sample_if_due();
    }
}

impl TempWatched {
    fn with<T>(
        &mut self,
        f: impl FnOnce(&mut dyn SmartSource) -> Result<T, SmartctlError>,
    ) -> Result<T, SmartctlError> {
        let own = self.inner.simulated().and_then(|s| s.smart_source());
        match (own, self.smartctl.as_mut()) {
            (Some(s), _) => f(s),
            (None, Some(s)) => f(s),
            (None, None) => Err(SmartctlError::NotInstalled),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::smart_session as session;
    use super::*;
    use crate::device::sim::SimTarget;
    use crate::results::smart::TemperatureLog;

    fn sim(spec: &str, max_temp: Option<i64>) -> (Box<dyn Target>, Handle) {
        let (t, w) = wrap(
            Box::new(SimTarget::open(spec).unwrap()),
            (max_temp, Duration::from_secs(120)),
        );
        (t, w.samples)
    }

    /// A real drive's stand-in that records the piece size of each split write.
    struct Splits {
        info: DeviceInfo,
        clock: crate::clock::VirtualClock,
        seen: Arc<Mutex<Vec<u32>>>,
    }

    impl Target for Splits {
        fn info(&self) -> &DeviceInfo {
            &self.info
        }
        fn clock(&self) -> &dyn Clock {
            &self.clock
        }
        fn read_at(&mut self, _: ReadBuf<'_>, _: u64) -> io::Result<()> {
            Ok(())
        }
        fn quiesce(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn write_pieces_timed(&mut self, _: WriteBuf<'_>, _: u64, piece: u32) -> io::Result<u64> {
            self.seen.lock().unwrap().push(piece);
            Ok(0)
        }
    }

    #[test]
    fn a_split_write_reaches_the_drive_split() {
        // -S's writes in diskinfo's pieces, through the temperature watch of a
        // burn-in: the inner target is asked for the pieces, not a whole write.
        let seen = Arc::new(Mutex::new(Vec::new()));
        let inner = Splits {
            info: DeviceInfo::new("d", "/dev/d", crate::results::device::TargetKind::Disk),
            clock: crate::clock::VirtualClock::new(),
            seen: seen.clone(),
        };
        let mut w = TempWatched {
            inner: Box::new(inner),
            smartctl: None,
            sampler: Arc::new(Mutex::new(Sampler::new(0, "", 300.0))),
            t0_ns: 0,
            vclock: None,
            parallelism: 1,
        };
        let buf = crate::device::AlignedBuf::new(1 << 20);
        w.write_pieces_timed(buf.for_write(..), 0, 128 << 10)
            .unwrap();
        assert_eq!(*seen.lock().unwrap(), [128 << 10]);
    }

    fn log(h: &Handle) -> TemperatureLog {
        h.lock().unwrap().log.clone()
    }

    /// Reads of 1 MiB from LBA 0 onwards until `secs` of virtual time passed.
    fn stream(t: &mut dyn Target, secs: u64) {
        let mut buf = crate::device::AlignedBuf::new(1 << 20);
        let size = t.info().media_size_bytes;
        let end = t.clock().now_ns() + secs * 1_000_000_000;
        let mut at = 0;
        while t.clock().now_ns() < end {
            t.read_at(buf.for_read(..), at).unwrap();
            at = (at + (1 << 20)) % size;
        }
    }

    /// Writes of 64 KiB, each a third of the drive away from the last, until
    /// `done` holds for the log or `secs` of virtual time passed. The seeks keep
    /// the drive busy (it warms as under any sustained work) with a twentieth of
    /// the bytes, and the requests, of a sequential stream: the simulated store
    /// costs CPU per byte written.
    fn scattered_writes(
        t: &mut dyn Target,
        h: &Handle,
        secs: u64,
        done: impl Fn(&TemperatureLog) -> bool,
    ) {
        const LEN: u64 = 64 << 10;
        let buf = crate::device::AlignedBuf::new(LEN as usize);
        let size = t.info().media_size_bytes;
        let end = t.clock().now_ns() + secs * 1_000_000_000;
        let mut at = 0;
        while t.clock().now_ns() < end && !done(&h.lock().unwrap().log) {
            t.write_at(buf.for_write(..), at).unwrap();
            at = (at + size / 3 + (7 << 20)) % size / LEN * LEN;
        }
    }

    #[test]
    fn sustained_work_warms_the_drive_and_every_10_virtual_minutes_is_sampled() {
        let (mut t, h) = sim("sim:hdd?size=64G", None);
        stream(t.as_mut(), 3 * 3600);
        let l = log(&h);
        assert_eq!(
            (l.limit_c, l.limit_source.as_str()),
            (60, "seekprobe's default")
        );
        // 3 virtual hours: a sample at 0 and every 600 s.
        assert!(l.samples.len() >= 18, "{}", l.samples.len());
        for w in l.samples.windows(2) {
            assert!(w[1].at_s - w[0].at_s <= 601, "{w:?}");
        }
        // Idle 35 °C; busy it heads for 47 °C with τ = 20 min.
        assert_eq!(l.min_c(), Some(35));
        assert!(l.max_c().unwrap() >= 46, "{:?}", l.max_c());
        assert!(l.pauses.is_empty());
    }

    #[test]
    fn above_the_limit_writes_pause_until_5_degrees_below() {
        let (mut t, h) = sim("sim:hdd?size=64G", Some(40));
        // Written until the first pause has ended (about 75 virtual minutes: 20 of
        // writes warm the drive past 40 °C, then it cools to 35 °C), 2 hours at most.
        scattered_writes(t.as_mut(), &h, 2 * 3600, |l| {
            l.pauses.first().is_some_and(|p| p.to_s.is_some())
        });
        let l = log(&h);
        assert_eq!(l.limit_source, "--max-temp");
        assert!(!l.pauses.is_empty());
        assert!(l.pauses[0].to_s.is_some(), "{:?}", l.pauses);
        for p in l.pauses.iter().filter(|p| p.to_s.is_some()) {
            assert!(p.cooled && p.celsius > 40, "{p:?}");
            // Resumed at the first reading at or below 35 °C.
            let resumed = l.samples.iter().find(|s| Some(s.at_s) == p.to_s).unwrap();
            assert!(resumed.celsius <= 35, "{resumed:?}");
        }
        // While paused nothing is written: the readings fall one by one.
        let p = l.pauses[0];
        let during: Vec<i64> = l
            .samples
            .iter()
            .filter(|s| s.at_s > p.from_s && Some(s.at_s) <= p.to_s)
            .map(|s| s.celsius)
            .collect();
        assert!(during.len() > 10, "{during:?}");
        assert!(during.windows(2).all(|w| w[1] <= w[0]), "{during:?}");
    }

    #[test]
    fn queued_requests_are_sampled_at_their_own_start_time() {
        // The virtual queue moves the drive's clock only when its run ends: the
        // samples of a long queued pass come from the requests' start times.
        let (mut t, h) = sim("sim:hdd?size=64G", None);
        let q =
            crate::device::queue_model(t.as_mut()).expect("a simulated drive has a queue model");
        let op = Op {
            offset: 0,
            len: 1 << 20,
            kind: crate::test_plans::OpKind::Write,
        };
        for k in 0..=36u64 {
            q.service_ns(&op, k * 300_000_000_000).unwrap();
        }
        let at: Vec<u64> = log(&h).samples.iter().map(|s| s.at_s).collect();
        assert_eq!(at, (0..=18).map(|k| k * 600).collect::<Vec<_>>());
    }

    #[test]
    fn a_long_self_test_is_sampled_between_its_polls() {
        // The whole default drive: its long self-test takes hours of virtual time.
        let (mut t, h) = sim("sim:hdd", None);
        let settings = crate::smart::policy::SmartSettings::default();
        let mut r = session::smart_before(t.as_mut(), None, &settings);
        assert!(session::smart_self_tests(
            t.as_mut(),
            None,
            &mut r,
            &[SelfTestKind::Long],
            &settings,
            &|| false,
            &mut |_| {}
        ));
        let hours = r.self_tests[0].elapsed_s / 3600.0;
        assert!(hours > 2.0, "{hours}");
        let l = log(&h);
        assert!(
            l.samples.len() as f64 >= hours,
            "{} < {hours}",
            l.samples.len()
        );
        for w in l.samples.windows(2) {
            assert!(w[1].at_s - w[0].at_s <= 660, "{w:?}");
        }
        assert!(l.max_c().unwrap() > 35, "the self-test's reads warm it");
    }
}
