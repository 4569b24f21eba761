//! One way to ask a target for SMART, whatever it is: [`SmartSource`] reads the
//! health now, starts a self-test, polls its progress, aborts it and reads its
//! outcome. A real drive answers through smartctl ([`SmartctlSource`]); a
//! simulated drive answers from its model (`crate::device::sim`, through
//! `Simulated::smart_source`, reached through `Target::simulated`). [`source_for`] picks the one a target has and
//! [`run_self_test`] follows a self-test to its end, polling on the source's own
//! clock (real time sleeps; a simulated drive's virtual clock just moves on).

use super::selftest;
use super::smartctl::{self, SmartRead, Smartctl, SmartctlError};
use crate::results::health::SelfTestResult;
use crate::results::smart::SelfTestKind;
use std::time::{Duration, Instant};

/// A self-test that was started: what the drive says of its duration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfTestStarted {
    /// Which self-test was started (short, conveyance or long).
    pub kind: SelfTestKind,
    /// The drive's recommended polling time for it, in minutes (ATA
    /// `polling_minutes`; None when the drive does not say).
    pub polling_minutes: Option<u32>,
}

/// What one poll of a self-test found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfTestPoll {
    /// Still running; percent done when the drive says (ATA in 10% steps).
    Running {
        /// Percent done, 0 to 100; None when the drive does not say.
        done_percent: Option<u32>,
    },
    /// Ended: the drive's log entry for it (passed, failed with the first error
    /// LBA, or aborted).
    Finished(SelfTestResult),
}

/// A drive that answers SMART questions.
pub trait SmartSource {
    /// The device, as notes name it.
    fn device(&self) -> String;
    /// The health now: [`SmartRead::Health`], or [`SmartRead::NoSmart`] with a
    /// one-line note for a device without SMART (never a failure by itself).
    fn read(&mut self) -> Result<SmartRead, SmartctlError>;
    /// Whether the drive offers a self-test kind (conveyance: ATA disks only).
    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError>;
    /// Start a self-test in the background.
    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError>;
    /// How the running self-test stands.
    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError>;
    /// Abort the running self-test (Ctrl-C): the drive logs it as aborted by the
    /// host.
    fn abort_self_test(&mut self) -> Result<(), SmartctlError>;
    /// This source's time since an arbitrary origin (real: monotonic; simulated:
    /// the drive's virtual clock).
    fn now(&self) -> Duration;
    /// Let `d` pass between polls: a real drive sleeps (in slices, returning early
    /// once `interrupted` says so); a simulated drive advances its virtual clock.
    fn pause(&mut self, d: Duration, interrupted: &dyn Fn() -> bool);
}

impl<S: SmartSource + ?Sized> SmartSource for &mut S {
    fn device(&self) -> String {
        (**self).device()
    }
    fn read(&mut self) -> Result<SmartRead, SmartctlError> {
        (**self).read()
    }
    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError> {
        (**self).supports(kind)
    }
    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError> {
        (**self).start_self_test(kind)
    }
    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError> {
        (**self).poll_self_test()
    }
    fn abort_self_test(&mut self) -> Result<(), SmartctlError> {
        (**self).abort_self_test()
    }
    fn now(&self) -> Duration {
        (**self).now()
    }
    fn pause(&mut self, d: Duration, interrupted: &dyn Fn() -> bool) {
        (**self).pause(d, interrupted)
    }
}

/// The source for a target: its own model when it has one (`own`, from
/// `Simulated::smart_source`, reached through `Target::simulated`, i.e. a simulated drive), else smartctl on `device`
/// (the target's path), each run of it held to `limit` (`--io-timeout`). Without
/// smartctl on the PATH a real device gives [`SmartctlError::NotInstalled`],
/// which names the package; a simulated drive needs no smartctl.
pub fn source_for<'a>(
    own: Option<&'a mut dyn SmartSource>,
    device: &str,
    limit: Duration,
) -> Result<Box<dyn SmartSource + 'a>, SmartctlError> {
    match own {
        Some(s) => Ok(Box::new(s)),
        None => {
            let path = smartctl::find()?;
            let smartctl = Smartctl { path, limit };
            Ok(Box::new(SmartctlSource::new(smartctl, device)))
        }
    }
}

/// A real drive, asked through smartctl.
#[derive(Debug)]
pub struct SmartctlSource {
    smartctl: Smartctl,
    device: String,
    origin: Instant,
    /// The running test: its kind, when it started, the log's last entry before
    /// it and whether a poll has seen it running.
    running: Option<RunningTest>,
}

#[derive(Debug)]
struct RunningTest {
    started: Duration,
    polling_minutes: Option<u32>,
    before: Option<SelfTestResult>,
    seen_running: bool,
}

/// How long a real pause sleeps at most before asking whether to stop.
const PAUSE_SLICE: Duration = Duration::from_millis(200);

impl SmartctlSource {
    /// `smartctl` (its binary and the limit of a run) on `device`.
    pub fn new(smartctl: Smartctl, device: &str) -> SmartctlSource {
        SmartctlSource {
            smartctl,
            device: device.to_string(),
            origin: Instant::now(),
            running: None,
        }
    }

    fn poll_report(&self) -> Result<super::Report, SmartctlError> {
        (self.smartctl).run_json(&selftest::poll_args(&self.device), &self.device)
    }

    /// The report's first message, or smartctl's exit status in words.
    fn refusal(&self, r: &super::Report, what: &str) -> SmartctlError {
        let msg = r
            .smartctl
            .as_ref()
            .and_then(|s| s.messages.first())
            .map(|m| m.string.clone())
            .unwrap_or_else(|| {
                crate::results::health::ExitStatus(r.exit_status().unwrap_or(0))
                    .meanings()
                    .join("; ")
            });
        SmartctlError::Refused {
            device: self.device.clone(),
            what: what.to_string(),
            msg,
        }
    }
}

/// Whether smartctl's exit status says the command did not reach the drive or
/// the drive refused it (bits 0–2).
fn command_failed(r: &super::Report) -> bool {
    r.exit_status().unwrap_or(0) & 0b111 != 0
}

impl SmartSource for SmartctlSource {
    fn device(&self) -> String {
        self.device.clone()
    }

    fn read(&mut self) -> Result<SmartRead, SmartctlError> {
        self.smartctl.read(&self.device)
    }

    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError> {
        let r = self.poll_report()?;
        Ok(!command_failed(&r) && selftest::supports(&r, kind))
    }

    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError> {
        let before = self.poll_report()?;
        if command_failed(&before) {
            return Err(self.refusal(&before, "read the self-test status"));
        }
        let args = selftest::start_args(kind, &self.device);
        let r = self.smartctl.run_json(&args, &self.device)?;
        if command_failed(&r) {
            return Err(self.refusal(&r, &format!("start a {} self-test", kind.arg())));
        }
        let polling_minutes = selftest::polling_minutes(&before, kind);
        self.running = Some(RunningTest {
            started: self.now(),
            polling_minutes,
            before: selftest::last_result(&before),
            seen_running: false,
        });
        Ok(SelfTestStarted {
            kind,
            polling_minutes,
        })
    }

    /// Running while the drive says so. A test that is not running has ended
    /// once a poll saw it running, its log entry differs from the one before it
    /// started, or its polling time has passed; until then it is taken as not yet
    /// started (a drive may take a moment to show it).
    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError> {
        let r = self.poll_report()?;
        if command_failed(&r) {
            return Err(self.refusal(&r, "read the self-test status"));
        }
        let now = self.now();
        if let Some(p) = selftest::progress(&r) {
            if let Some(t) = &mut self.running {
                t.seen_running = true;
            }
            return Ok(SelfTestPoll::Running {
                done_percent: p.done_percent,
            });
        }
        let last = selftest::last_result(&r);
        let ended = match &self.running {
            None => true,
            Some(t) => {
                let polling = Duration::from_secs(u64::from(t.polling_minutes.unwrap_or(2)) * 60);
                t.seen_running || last != t.before || now.saturating_sub(t.started) >= polling
            }
        };
        match last {
            Some(l) if ended => {
                self.running = None;
                Ok(SelfTestPoll::Finished(l))
            }
            _ => Ok(SelfTestPoll::Running {
                done_percent: Some(0),
            }),
        }
    }

    fn abort_self_test(&mut self) -> Result<(), SmartctlError> {
        let r = (self.smartctl).run_json(&selftest::abort_args(&self.device), &self.device)?;
        self.running = None;
        if command_failed(&r) {
            return Err(self.refusal(&r, "abort the self-test"));
        }
        Ok(())
    }

    fn now(&self) -> Duration {
        self.origin.elapsed()
    }

    fn pause(&mut self, d: Duration, interrupted: &dyn Fn() -> bool) {
        let end = Instant::now() + d;
        while !interrupted() {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            std::thread::sleep(left.min(PAUSE_SLICE));
        }
    }
}

/// One progress report of a followed self-test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfTestProgress {
    /// Which self-test is being followed, as started.
    pub kind: SelfTestKind,
    /// Percent done, when the drive says.
    pub done_percent: Option<u32>,
    /// Time since it started (the source's clock).
    pub elapsed: Duration,
    /// Time left ([`selftest::eta`] from the drive's polling time).
    pub eta: Option<Duration>,
}

/// How a followed self-test ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfTestEnd {
    /// The drive finished it: its log entry (passed, or failed with the first
    /// error's LBA, or aborted by something else).
    Finished(SelfTestResult),
    /// `interrupted` said stop: the test was aborted on the drive.
    Interrupted,
}

/// Start a self-test and follow it to its end: poll every `poll_every` (on the
/// source's clock), report progress with an ETA from the drive's polling time,
/// and abort it on the drive as soon as `interrupted` says so (Ctrl-C).
pub fn run_self_test(
    src: &mut dyn SmartSource,
    kind: SelfTestKind,
    poll_every: Duration,
    interrupted: &dyn Fn() -> bool,
    on_progress: &mut dyn FnMut(&SelfTestProgress),
) -> Result<SelfTestEnd, SmartctlError> {
    let started = src.start_self_test(kind)?;
    let t0 = src.now();
    loop {
        if interrupted() {
            src.abort_self_test()?;
            return Ok(SelfTestEnd::Interrupted);
        }
        match src.poll_self_test()? {
            SelfTestPoll::Finished(r) => return Ok(SelfTestEnd::Finished(r)),
            SelfTestPoll::Running { done_percent } => {
                let elapsed = src.now().saturating_sub(t0);
                on_progress(&SelfTestProgress {
                    kind,
                    done_percent,
                    elapsed,
                    eta: selftest::eta(started.polling_minutes, done_percent, elapsed),
                });
            }
        }
        src.pause(poll_every, interrupted);
    }
}
