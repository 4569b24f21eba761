//! The path check as a phase of the run (`--path-check`): after every disk's own
//! tests, the check opens them all again read-only and runs them together
//! ([`crate::pathcheck`]); each disk gets its part, with the check's findings.

use crate::config::{Config, Mode};
use crate::pathcheck::{self, Timing};
use crate::results::{Code, DiskResult, Run};
use std::sync::atomic::AtomicBool;

/// Run the path check over the run's disks when it was asked for (or under
/// `--burn-in --parallel` of two drives or more, where it is the burn-in's last
/// step over all its drives), putting each disk's part in it. How it ended: a
/// drive's read failed or went unanswered, or Ctrl-C stopped it.
pub(super) fn path_phase(cfg: &Config, run: &mut Run, stop: &AtomicBool) -> PathEnd {
    let burn_in_step = cfg.burn_in.is_some() && cfg.parallel && run.disks.len() > 1;
    if !(cfg.path_check || burn_in_step) || cfg.mode != Mode::Describe {
        return PathEnd::default();
    }
    // A drive the run could not open or gave up (it stopped answering) is left out.
    let usable = |d: &DiskResult| {
        d.info.is_some()
            && !crate::verdict::disk_findings(d)
                .iter()
                .any(|f| matches!(f.code, Code::NotProbed | Code::StoppedAnswering))
    };
    let checked: Vec<usize> = (0..run.disks.len())
        .filter(|&i| usable(&run.disks[i]))
        .collect();
    let names: Vec<String> = checked.iter().map(|&i| run.disks[i].name.clone()).collect();
    let timing = Timing {
        io_timeout: Some(cfg.beyond.io_timeout),
        ..Timing::default()
    };
    let parts = pathcheck::run(&names, timing, stop);
    let end = PathEnd {
        // As any test's I/O error: status 1, or in a judged run the verdicts' status.
        failed: !super::verdicts::judged(cfg) && parts.iter().any(|p| p.error.is_some()),
        interrupted: parts.iter().any(|p| p.interrupted),
    };
    for (i, p) in checked.into_iter().zip(parts) {
        run.disks[i].path_check = Some(p);
    }
    end
}

/// How the path check ended, for the run's exit status.
#[derive(Debug, Default)]
pub(super) struct PathEnd {
    /// A drive's read failed or went unanswered (the drive's fault, as in any
    /// test), in a run that is not judged.
    pub(super) failed: bool,
    /// Ctrl-C stopped it.
    pub(super) interrupted: bool,
}
