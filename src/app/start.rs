//! What a probing run starts from once its baseline and output paths are checked:
//! the run's header, the saved burn-in of --resume and the file that saves the run,
//! smartctl for --smart, and the note that --smr-check will write.

use super::inputs::load_resumable;
use super::live::Saver;
use crate::config::{Config, Mode};
use crate::probe::TestKind;
use crate::results::{DiskResult, Run, SCHEMA_VERSION};
use std::io::{self, Write};

/// What the disks of a run start from.
pub(super) struct Start {
    /// The run's header; its disks are added as they are probed.
    pub(super) run: Run,
    /// The disks of the saved burn-in that --resume continues.
    pub(super) saved: Vec<DiskResult>,
    /// Where the run is saved as it goes on (--json-file).
    pub(super) saver: Option<Saver>,
}

/// Gather what the disks start from and check it, in this order: the saved
/// burn-in, smartctl. None (after saying why on `err`) when the run cannot start.
pub(super) fn start(cfg: &Config, err: &mut dyn Write) -> io::Result<Option<Start>> {
    let mut run = header(cfg);
    // --resume: the saved burn-in, checked to be the same burn-in of as many drives.
    // Slot i starts as the saved disk that was named i-th.
    let mut slots: Vec<Option<DiskResult>> = vec![None; cfg.disks.len()];
    let saved: Vec<DiskResult> = match &cfg.resume {
        None => Vec::new(),
        Some(path) => match load_resumable(path, cfg) {
            Ok(r) => {
                run.started_unix_s = r.started_unix_s.or(run.started_unix_s);
                let named = r
                    .burn_in
                    .as_ref()
                    .map(|b| b.disks.clone())
                    .unwrap_or_default();
                for (slot, name) in slots.iter_mut().zip(&named) {
                    *slot = r.disks.iter().find(|d| &d.name == name).cloned();
                }
                r.disks
            }
            Err(msg) => {
                writeln!(err, "seekprobe: --resume {}: {msg}", path.display())?;
                return Ok(None);
            }
        },
    };
    let saver = cfg.json_file.as_ref().map(|path| Saver {
        path: path.clone(),
        run: std::sync::Mutex::new((run.clone(), slots)),
    });
    if let Err(e) = crate::run::smart_session::preflight(&cfg.disks, &cfg.smart) {
        writeln!(
            err,
            "seekprobe: --smart and --smart-test read the drives through smartctl: {e}"
        )?;
        return Ok(None);
    }
    if cfg.mode == Mode::Describe && cfg.tests.contains(&TestKind::SmrCheck) {
        let b = &cfg.options;
        writeln!(
            err,
            "seekprobe: {}",
            smr_budget_note(&b.smr_budget, b.smr_idle)
        )?;
    }
    Ok(Some(Start { run, saved, saver }))
}

/// The run's header, with no disk yet: the tool, the tests, when it started.
fn header(cfg: &Config) -> Run {
    Run {
        schema_version: SCHEMA_VERSION,
        tool: "seekprobe".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        tests: cfg.tests.clone(),
        verbose: cfg.verbose,
        settle_s: cfg.options.settle.as_secs_f64(),
        disks: Vec::new(),
        started_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
        burn_in: cfg.burn_in.map(|b| crate::burnin::RunInfo {
            command: cfg.command.clone(),
            disks: cfg.disks.clone(),
            smr_check: b.smr_check,
        }),
    }
}

/// What --smr-check will do, with its budget, said on standard error before
/// anything is written.
fn smr_budget_note(b: &crate::probe::smr::Budget, idle: std::time::Duration) -> String {
    use crate::probe::smr::{PROBE_SPACING_S, PROBES};
    let idle = idle.as_secs_f64();
    let spacing = PROBE_SPACING_S.min(idle);
    let time = if b.seconds >= 60.0 && b.seconds % 60.0 == 0.0 {
        format!("{:.0} min", b.seconds / 60.0)
    } else {
        format!("{} s", b.seconds)
    };
    format!(
        "--smr-check writes random 128 KiB to 1 MiB requests over each rotating disk, one \
         at a time, until the write rate collapses or the budget runs out: {:.1} GiB or {time}, \
         whichever comes first (--smr-budget SIZE,TIME changes it); then {idle} s idle \
         and {PROBES} reads {spacing} s apart (--smr-idle). Flash is not written",
        b.bytes as f64 / f64::from(1u32 << 30)
    )
}
