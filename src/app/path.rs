//! The path check as a phase of the run (`--path-check`): after every disk's own
//! tests, the check opens them all again read-only and runs them together
//! ([`crate::pathcheck`]); each disk gets its part, with the check's findings.

use crate::config::{Config, Mode};
use crate::pathcheck::{self, Timing};
use crate::results::Run;
use std::sync::atomic::AtomicBool;

/// Run the path check over the run's disks when it was asked for, putting each
/// disk's part in it.
pub(super) fn path_phase(cfg: &Config, run: &mut Run, stop: &AtomicBool) {
    if !cfg.path_check || cfg.mode != Mode::Describe {
        return;
    }
    let names: Vec<String> = run.disks.iter().map(|d| d.name.clone()).collect();
    let parts = pathcheck::run(&names, Timing::default(), stop);
    for (d, p) in run.disks.iter_mut().zip(parts) {
        d.path_check = Some(p);
    }
}
