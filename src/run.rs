//! Probing one disk: open it, plan each test, run the plans with the engine, and
//! report progress to a [`Sink`]. Nothing here prints.

use crate::config::{Config, Mode};
use crate::device::{self, DeviceInfo, OpenOptions, Target};
use crate::engine::sync::{Stop, SyncEngine};
use crate::error::ProbeError;
use crate::probe::{self, MIB, TestKind};
use crate::results::{DiskResult, Outcome, TestResult, Warning};
use crate::validity;
use std::io;
use std::sync::atomic::AtomicBool;

/// Receives a disk's results as they are produced, e.g. to print them live.
/// An error from a sink (a closed standard output) stops the run.
pub trait Sink {
    /// The target is open and described; `warnings` concern its validity.
    fn opened(&mut self, info: &DeviceInfo, warnings: &[Warning]) -> io::Result<()>;
    /// `test` gained a completed phase (the last one in `test.phases`).
    fn phase_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// `test` ended (see its outcome).
    fn test_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()>;
    /// The disk failed: it could not be opened, or a test failed.
    fn failed(&mut self, name: &str, error: &ProbeError) -> io::Result<()>;
}

/// How the run should go on after a disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with the next disk.
    Continue,
    /// Ctrl-C: stop.
    Interrupted,
}

/// Probe one disk as configured. Returns its results and whether to go on; an `Err`
/// means the sink failed (standard output closed).
pub fn probe_disk(
    name: &str,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<(DiskResult, Flow)> {
    let mut disk = DiskResult {
        name: name.to_string(),
        info: None,
        tests: Vec::new(),
        warnings: Vec::new(),
        error: None,
    };
    let opts = OpenOptions {
        io: cfg.mode == Mode::Describe && !cfg.tests.is_empty(),
    };
    let mut target = match device::open(name, &opts) {
        Ok(t) => t,
        Err(e) => {
            sink.failed(name, &e)?;
            disk.error = Some(e.to_string());
            return Ok((disk, Flow::Continue));
        }
    };
    let info = target.info().clone();
    disk.warnings = validity::device_warnings(&info);
    disk.info = Some(info.clone());
    sink.opened(&info, &disk.warnings)?;
    if cfg.mode != Mode::Describe {
        return Ok((disk, Flow::Continue));
    }
    let mut engine = SyncEngine::new(MIB as usize);
    for (i, &test) in cfg.tests.iter().enumerate() {
        let result = run_test(&mut engine, target.as_mut(), test, cfg, stop, sink)?;
        let outcome = result.outcome.clone();
        sink.test_done(&info, &result)?;
        disk.tests.push(result);
        match outcome {
            Outcome::Complete => {}
            Outcome::Interrupted => return Ok((disk, Flow::Interrupted)),
            Outcome::Failed(_) | Outcome::Skipped(_) => {
                // diskinfo would stop here; the remaining tests are skipped, not lost.
                for &rest in &cfg.tests[i + 1..] {
                    disk.tests.push(TestResult {
                        test: rest,
                        settle_s: cfg.settle.as_secs_f64(),
                        engine: "sync".into(),
                        phases: Vec::new(),
                        outcome: Outcome::Skipped(format!(
                            "the {} test did not complete",
                            test.name()
                        )),
                    });
                }
                break;
            }
        }
    }
    Ok((disk, Flow::Continue))
}

fn run_test(
    engine: &mut SyncEngine,
    target: &mut dyn Target,
    test: TestKind,
    cfg: &Config,
    stop: &AtomicBool,
    sink: &mut dyn Sink,
) -> io::Result<TestResult> {
    let info = target.info().clone();
    let mut result = TestResult {
        test,
        settle_s: cfg.settle.as_secs_f64(),
        engine: "sync".into(),
        phases: Vec::new(),
        outcome: Outcome::Complete,
    };
    let plan = match probe::plan(test, info.media_size_bytes, info.sector_size) {
        Ok(p) => p,
        Err(why) => {
            let e = ProbeError::TooSmall {
                path: info.path.clone(),
                test: test.name().to_string(),
                why: why.0,
            };
            sink.failed(&info.name, &e)?;
            result.outcome = Outcome::Skipped(e.to_string());
            return Ok(result);
        }
    };
    for phase in &plan.phases {
        let run = engine.run_phase(target, phase, cfg.settle, stop);
        result.phases.push(run.result);
        match run.stop {
            None => sink.phase_done(&info, &result)?,
            Some(Stop::Interrupted) => {
                result.outcome = Outcome::Interrupted;
                break;
            }
            Some(Stop::Failed {
                setup,
                offset,
                error,
            }) => {
                let what = if setup {
                    "positioning read before "
                } else {
                    ""
                };
                let e = ProbeError::Io {
                    path: info.path.clone(),
                    test: format!("{what}{}", phase.id.name()),
                    offset,
                    source: error,
                };
                sink.failed(&info.name, &e)?;
                result.outcome = Outcome::Failed(e.to_string());
                break;
            }
        }
    }
    Ok(result)
}
