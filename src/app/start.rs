//! What a probing run starts from once its baseline and output paths are checked:
//! the run's header, the saved burn-in of --resume and the file that saves the run,
//! smartctl for --smart, the note that --smr-check will write, and the one
//! question before the run writes (app::prompt).

use super::inputs::load_resumable;
use super::live::Saver;
use super::prompt::Confirmed;
use super::status::Ending;
use crate::config::{Config, Mode};
use crate::results::{DiskResult, Run, SCHEMA_VERSION};
use std::io::{self, Write};

/// What the disks of a run start from.
pub(super) struct Start {
    /// The run's header; its disks are added as they are probed.
    pub(super) run: Run,
    /// For each disk named, the saved disk of the burn-in --resume continues on it.
    pub(super) saved: Vec<Option<DiskResult>>,
    /// Where the run is saved as it goes on (--json-file).
    pub(super) saver: Option<Saver>,
    /// The drives confirmed at the question (none asked: --yes, or nothing to
    /// confirm).
    pub(super) confirmed: Confirmed,
}

/// Gather what the disks start from and check it, in this order: the saved
/// burn-in, the run file, smartctl, then the question before writing. The
/// ending (after saying why on `err`) when the run cannot start.
pub(super) fn start(
    cfg: &Config,
    stop: &crate::device::Stop,
    err: &mut dyn Write,
) -> io::Result<Result<Start, Ending<'static>>> {
    let refused = Ok(Err(Ending::Unusable));
    let mut run = header(cfg);
    // --resume: the saved burn-in, checked to be the same burn-in; each drive
    // named goes on from the saved drive of its identity (burnin::resume).
    let slots: Vec<Option<DiskResult>> = match &cfg.resume {
        None => vec![None; cfg.disks.len()],
        Some(path) => match load_resumable(path, cfg) {
            Ok(r) => {
                run.started_unix_s = r.started_unix_s.or(run.started_unix_s);
                match resumed(cfg, stop, &r, err)? {
                    Some(slots) => slots,
                    None => return refused,
                }
            }
            Err(msg) => {
                writeln!(err, "seekprobe: --resume {}: {msg}", path.display())?;
                return refused;
            }
        },
    };
    // After the saved run is checked: a --resume that cannot be used is said first.
    let Some(unfinished) = unfinished_kept(cfg, err)? else {
        return refused;
    };
    let saved = slots.clone();
    let saver = cfg.json_file.as_ref().map(|path| Saver {
        path: path.clone(),
        run: std::sync::Mutex::new((run.clone(), slots)),
    });
    if let Err(e) = crate::prober::smart_session::preflight(&cfg.disks, &cfg.smart) {
        writeln!(
            err,
            "seekprobe: --smart and --smart-test read the drives through smartctl: {e}"
        )?;
        return refused;
    }
    // The budget of the test that --smr-budget tunes is said before it writes.
    if cfg.mode == Mode::Describe
        && (cfg.tests.iter()).any(|&t| crate::config::tuning(t).contains(&"smr_budget"))
    {
        let b = &cfg.options;
        writeln!(
            err,
            "seekprobe: {}",
            smr_budget_note(&b.smr_budget, b.smr_idle)
        )?;
    }
    // The question last: what it is asked for will run once it is answered.
    let confirmed = match super::prompt::confirm(cfg, stop, &saved, err)? {
        Ok(c) => c,
        Err(ending) => return Ok(Err(ending)),
    };
    if let Some((path, names)) = unfinished
        && !keep_aside(path, &names, err)?
    {
        return refused;
    }
    Ok(Ok(Start {
        run,
        saved,
        saver,
        confirmed,
    }))
}

/// The --json-file that holds a burn-in --new-run keeps aside, and the drives
/// its burn-in names; None when there is none.
type Unfinished<'c> = Option<(&'c std::path::Path, Vec<String>)>;

/// --json-file over a saved burn-in, finished or not, is never replaced
/// silently: refused (None, after saying why) unless --new-run, which keeps the
/// old file beside it as FILE.old-N (its checkpoints too: [`keep_aside`], once
/// the run is sure to start). A run that is not a burn-in cannot take --new-run:
/// it is told to give another file. Other runs' files, empty or foreign files,
/// and the file --resume continues are written over as before.
fn unfinished_kept<'c>(cfg: &'c Config, err: &mut dyn Write) -> io::Result<Option<Unfinished<'c>>> {
    let Some(path) = &cfg.json_file else {
        return Ok(Some(None));
    };
    if cfg.resume.as_ref() == Some(path) {
        return Ok(Some(None));
    }
    let Ok(old) = super::inputs::load_run(path) else {
        return Ok(Some(None));
    };
    let Some(b) = &old.burn_in else {
        return Ok(Some(None));
    };
    let names = b.disks.clone();
    if !cfg.new_run {
        let (holds, go_on) = match super::inputs::unfinished(&old) {
            true => (
                "an unfinished burn-in",
                format!(
                    "continue it with --resume {} (seekprobe printed the whole command when it stopped), or ",
                    path.display()
                ),
            ),
            false => ("a finished burn-in (its verdicts)", String::new()),
        };
        let new = match cfg.burn_in {
            Some(_) => {
                "give --new-run to start a new one (the old file is then kept beside it), or another --json-file"
            }
            None => "give another --json-file",
        };
        writeln!(
            err,
            "seekprobe: --json-file {}: it holds {holds} of {}; nothing was written over: {go_on}{new}",
            path.display(),
            names.join(", ")
        )?;
        return Ok(None);
    }
    Ok(Some(Some((path, names))))
}

/// --new-run: keep the burn-in in `path` (of the drives `names`) as FILE.old-N,
/// with its signature (FILE.old-N.sig) and checkpoints; false (after saying why)
/// when it cannot be.
fn keep_aside(path: &std::path::Path, names: &[String], err: &mut dyn Write) -> io::Result<bool> {
    let kept = (1..)
        .map(|n| {
            let mut p = path.as_os_str().to_owned();
            p.push(format!(".old-{n}"));
            std::path::PathBuf::from(p)
        })
        .find(|p| !p.exists())
        .expect("a free name");
    if let Err(e) = std::fs::rename(path, &kept) {
        super::output::cannot_write(err, &kept, "keep the saved burn-in", &e)?;
        return Ok(false);
    }
    // Its signature signed the bytes kept: it goes with them, and still holds.
    let (sig, kept_sig) = (crate::sshsig::beside(path), crate::sshsig::beside(&kept));
    if sig.is_file()
        && let Err(e) = std::fs::rename(&sig, &kept_sig)
    {
        super::output::cannot_write(err, &kept_sig, "keep the saved burn-in's signature", &e)?;
        return Ok(false);
    }
    for name in names {
        let cp = crate::prober::checkpoint_file::path(path, name);
        if cp.exists() {
            let _ = std::fs::rename(&cp, crate::prober::checkpoint_file::path(&kept, name));
        }
    }
    writeln!(
        err,
        "seekprobe: --new-run: the burn-in that was in {} is kept as {} (--resume {} continues it if it is unfinished)",
        path.display(),
        kept.display(),
        kept.display()
    )?;
    Ok(true)
}

/// The saved disk each drive named goes on from, after saying on `err` what is
/// kept for each; None (after saying why) when the drive list changed and
/// --resume-changed was not given. The drives are opened to be identified
/// alone, with the run's limit and `stop`, as the run will open them.
fn resumed(
    cfg: &Config,
    stop: &crate::device::Stop,
    saved: &Run,
    err: &mut dyn Write,
) -> io::Result<Option<Vec<Option<DiskResult>>>> {
    use crate::burnin::resume::{NewDrive, match_drives};
    let opts = crate::device::OpenOptions {
        io: false,
        write: false,
        limit: cfg.beyond.io_timeout,
        stop: stop.clone(),
    };
    let new: Vec<NewDrive> = cfg
        .disks
        .iter()
        .map(|name| NewDrive {
            name: name.clone(),
            identity: crate::device::open(name, &opts)
                .ok()
                .map(|t| t.info().identity()),
        })
        .collect();
    let names = saved
        .burn_in
        .as_ref()
        .map(|b| b.disks.clone())
        .unwrap_or_default();
    let m = match_drives(&new, &saved.disks, &names);
    let path = cfg.resume.as_deref().unwrap_or(std::path::Path::new(""));
    if !m.changes.is_empty() {
        let lines: Vec<String> = m
            .changes
            .iter()
            .map(|c| format!("  {}", c.line()))
            .collect();
        if !cfg.resume_changed {
            writeln!(
                err,
                "seekprobe: --resume {}: the drive list is not the saved burn-in's:\n{}\nseekprobe: name the saved run's drives ({}), or give --resume-changed to go on: the changed drives start afresh",
                path.display(),
                lines.join("\n"),
                names.join(", ")
            )?;
            return Ok(None);
        }
        writeln!(
            err,
            "seekprobe: --resume {}: the drive list changed (--resume-changed given); the changed drives start afresh:\n{}",
            path.display(),
            lines.join("\n")
        )?;
    }
    let slots: Vec<Option<DiskResult>> = m
        .kept
        .iter()
        .map(|k| k.map(|j| saved.disks[j].clone()))
        .collect();
    for (name, slot) in cfg.disks.iter().zip(&slots) {
        writeln!(err, "seekprobe: {name}: {}", kept_line(name, slot.as_ref()))?;
    }
    Ok(Some(slots))
}

/// What a resumed drive keeps of the saved run, in words.
fn kept_line(name: &str, saved: Option<&DiskResult>) -> String {
    let Some(d) = saved else {
        return "the saved burn-in had not reached this drive: it starts from its first step"
            .into();
    };
    let done: Vec<&str> = d
        .burn_in
        .iter()
        .filter(|r| r.status.done())
        // A step across the drives (the path check) runs again: it measures the
        // drives as they sit now.
        .filter(|r| !matches!(r.step, crate::results::burnin::Step::Test(k) if k.row().together))
        .map(|r| r.step.name())
        .collect();
    let serial = d
        .info
        .as_ref()
        .and_then(|i| i.ident.as_deref())
        .map(|s| format!(", serial number {s}"))
        .unwrap_or_default();
    let was = if d.name == name {
        String::new()
    } else {
        format!(" (saved as {}{serial})", d.name)
    };
    match done.as_slice() {
        [] => format!("resumed{was}: no step was complete; all run"),
        _ => format!("resumed{was}: kept {}; the rest run", done.join(", ")),
    }
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
        burn_in: cfg.burn_in.map(|b| crate::results::burnin::RunInfo {
            command: cfg.command.clone(),
            disks: cfg.disks.clone(),
            smr_check: b.smr_check,
        }),
        record: crate::results::record::RunRecord {
            host: Some(crate::history::host()).filter(|h| !h.is_empty()),
            command: cfg.command.clone(),
            tool_commit: option_env!("SEEKPROBE_COMMIT").map(str::to_string),
            ended_unix_s: None,
            operator: cfg.operator.clone(),
            ticket: cfg.ticket.clone(),
        },
    }
}

/// What --smr-check will do, with its budget, said on standard error before
/// anything is written.
fn smr_budget_note(b: &crate::results::smr::Budget, idle: std::time::Duration) -> String {
    use crate::test_plans::smr::{PROBE_SPACING_S, PROBES};
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
