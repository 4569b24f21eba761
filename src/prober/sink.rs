//! What probing a disk tells the outside as it happens: the executor's calls
//! ([`Observer`]) and the run's own (the disk opened, its warnings, the write
//! confirmation, a test or a burn-in step done, the results to save, SMART).

use crate::executor::Observer;
use crate::results::burnin::StepRecord;
use crate::results::device::DeviceInfo;
use crate::results::smart::SmartResult;
use crate::results::{DiskResult, TestResult, Warning};
use crate::safety::Found;
use crate::smart::source::SelfTestProgress;
use std::io;

/// The latest temperature reading of a watched drive (°C) and whether its work is
/// paused for heat; None before the first reading.
pub type TemperatureNow = Box<dyn Fn() -> Option<(i64, bool)> + Send>;

/// Receives a disk's results as they are produced, e.g. to print them live.
/// An error from a sink (a closed standard output) stops the run.
pub trait Sink: Observer {
    /// The target is open and described; `warnings` concern its validity.
    fn opened(&mut self, info: &DeviceInfo, warnings: &[Warning]) -> io::Result<()>;
    /// A validity warning found after a test.
    fn warning(&mut self, warning: &Warning) -> io::Result<()>;
    /// Ask whether `info` may be written to (`found`: signatures overridden by
    /// --force). False refuses.
    fn confirm_write(&mut self, info: &DeviceInfo, found: &[Found]) -> io::Result<bool>;
    /// `test` ended (see its outcome).
    fn test_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// A step of `--burn-in` ended (`record` says how): show it, and save the
    /// drive's results so far (`disk`, which holds the record last).
    fn step_done(
        &mut self,
        info: &DeviceInfo,
        record: &StepRecord,
        disk: &DiskResult,
    ) -> io::Result<()>;
    /// A step of `--burn-in` starts.
    fn step_started(&mut self, _info: &DeviceInfo, _step: crate::results::burnin::Step) {}
    /// A line about the disk's run worth saying as it happens (where a resumed
    /// pass went on from).
    fn note(&mut self, _info: &DeviceInfo, _line: &str) {}
    /// The disk's results so far, after each test or step: time to save them.
    fn checkpoint(&mut self, _disk: &DiskResult) -> io::Result<()> {
        Ok(())
    }
    /// The drive's temperature is watched for the run (`prober::smart_watch`):
    /// `now` gives its latest reading in °C and whether its work is paused for
    /// heat, whenever asked (the live line's).
    fn temperature_watched(&mut self, _now: TemperatureNow) {}
    /// The drive's clock (virtual for a simulated drive): the live view's rates
    /// are on it, as the results' are.
    fn drive_clock(&mut self, _clock: std::sync::Arc<dyn crate::clock::Clock>) {}
    /// A SMART self-test's progress (--smart-test), at each poll of the drive.
    fn self_test_progress(&mut self, _progress: &SelfTestProgress) {}
    /// SMART's part of the disk is complete (--smart, --smart-test): printed after
    /// the tests' text.
    fn smart_done(&mut self, _info: &DeviceInfo, _smart: &SmartResult) -> io::Result<()> {
        Ok(())
    }
}
