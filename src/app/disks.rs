//! Probing a run's disks, one after the other or all at once (--parallel), each
//! with its live output, and what follows each disk: its -p or -s line, and the
//! files rewritten with it (--json-file, --html, --prometheus).

use super::live::{LiveText, Saver};
use super::output::{cannot_write, save_html, save_prometheus};
use super::prompt::Confirmed;
use super::verdicts::judged;
use crate::config::{Config, Mode};
use crate::device::Stop;
use crate::prober::{Flow, probe_disk_resuming};
use crate::progress::{Board, Progress};
use crate::report::Format;
use crate::results::device::{DeviceInfo, TargetKind};
use crate::results::{DiskFailure, DiskResult, Run};
use std::io::{self, Write};

/// How the disks of a run went.
pub(super) struct Probed {
    /// A disk failed the run (status 1): without a verdict, a failing finding;
    /// a -p or -s line it has no value for; a file that could not be written.
    pub(super) failed: bool,
    /// Ctrl-C stopped the run.
    pub(super) interrupted: bool,
    /// Per disk of the run, in order: whether Ctrl-C stopped it before its end
    /// (a disk that had finished is judged on what it did).
    pub(super) stopped: Vec<bool>,
}

/// Probe every disk of `cfg`, each going on from its saved disk in `saved`
/// (--resume) and saving with `saver`, writing the drives `confirmed` before the
/// run, and add each to `run` in the order named.
pub(super) fn probe_disks(
    cfg: &Config,
    (stop, confirmed): (&Stop, &Confirmed),
    (run, saved, saver): (&mut Run, &[Option<DiskResult>], Option<&Saver>),
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<Probed> {
    let mut probed = Probed {
        failed: false,
        interrupted: false,
        stopped: Vec::new(),
    };
    let board = board(cfg);
    // The paths there as the drives start: one gone when its drive is opened
    // vanished ([`vanished`]).
    let there: Vec<bool> = (cfg.disks.iter())
        .map(|d| super::inputs::identity(d).is_some())
        .collect();
    if cfg.parallel && cfg.disks.len() > 1 {
        // Each disk prints into its own buffers; they are written out in order.
        let outcomes = std::thread::scope(|s| {
            let handles: Vec<_> = cfg
                .disks
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let (board, was_there) = (&board, there[i]);
                    s.spawn(move || {
                        let (mut o, mut e) = (Vec::new(), Vec::new());
                        let this = saver.map(|s| (s, i));
                        let progress = Progress::on(board, name);
                        let mut sink = live(cfg, confirmed, this, progress, (&mut o, &mut e));
                        let kept = saved.get(i).map_or(&[][..], Option::as_slice);
                        let mut r = probe_disk_resuming(name, cfg, stop, &mut sink, kept);
                        if let Ok((disk, flow)) = &mut r {
                            vanished(disk, was_there);
                            sink.finished(disk, *flow == Flow::Interrupted);
                        }
                        (r, o, e)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a probing thread panicked"))
                .collect::<Vec<_>>()
        });
        for (r, o, e) in outcomes {
            err.write_all(&e)?;
            out.write_all(&o)?;
            let (disk, flow) = r?;
            probed.interrupted |= flow == Flow::Interrupted;
            probed.stopped.push(flow == Flow::Interrupted);
            probed.failed |= finish_disk(cfg, run, disk, saver, out, err)?;
        }
    } else {
        for (i, name) in cfg.disks.iter().enumerate() {
            let (progress, this) = (Progress::on(&board, name), saver.map(|s| (s, i)));
            let mut sink = live(cfg, confirmed, this, progress, (&mut *out, &mut *err));
            let kept = saved.get(i).map_or(&[][..], Option::as_slice);
            let (mut disk, flow) = probe_disk_resuming(name, cfg, stop, &mut sink, kept)?;
            vanished(&mut disk, there[i]);
            sink.finished(&disk, flow == Flow::Interrupted);
            probed.failed |= finish_disk(cfg, run, disk, saver, out, err)?;
            probed.stopped.push(flow == Flow::Interrupted);
            if flow == Flow::Interrupted {
                probed.interrupted = true;
                break;
            }
        }
    }
    Ok(probed)
}

/// A drive whose path was there as the drives started (`was_there`) and is gone
/// when it was opened vanished: what the drive did (not probed, a FAIL), not a
/// name the operator got wrong (NOT TESTED).
fn vanished(disk: &mut DiskResult, was_there: bool) {
    if let Some(DiskFailure::NotTested(m)) = &disk.error
        && was_there
        && super::inputs::identity(&disk.name).is_none()
    {
        disk.error = Some(DiskFailure::Open(format!(
            "{m}; it was there when the run started: the drive vanished"
        )));
    }
}

/// The live view of the run's drives: on a terminal a line per drive (not with
/// --quiet); off one, the step and status lines of a burn-in, or of a --verify or
/// --scan run of several drives (with --quiet too: they are the run's log).
fn board(cfg: &Config) -> std::sync::Arc<Board> {
    let long =
        cfg.burn_in.is_some() || (cfg.disks.len() > 1 && cfg.tests.iter().any(|t| t.row().pass));
    let describe = cfg.mode == Mode::Describe;
    let board = Board::new(
        describe && !cfg.quiet,
        describe && long,
        cfg.status_interval,
    );
    // A long run's drives keep their lines to its end, under the batch's line.
    if long {
        board.batch(cfg.disks.len());
    }
    board
}

/// The live output of a disk, printing to `out` and `err` (diskinfo's text only
/// when that is the format) and saving with `saver` (the disk's place in the run).
fn live<'a>(
    cfg: &Config,
    confirmed: &'a Confirmed,
    saver: Option<(&'a Saver, usize)>,
    progress: Progress,
    (out, err): (&'a mut dyn Write, &'a mut dyn Write),
) -> LiveText<'a> {
    LiveText {
        out,
        err,
        verbose: cfg.verbose,
        text: cfg.mode == Mode::Describe && cfg.format == Format::Diskinfo,
        burn_in: cfg.burn_in.is_some(),
        judged: judged(cfg),
        burn_in_plan: cfg.burn_in,
        logs: progress.logs(),
        testing: None,
        yes: cfg.yes,
        confirmed,
        progress,
        saver,
    }
}

/// After a disk: its -p or -s line, then add it to `run` and rewrite the files
/// that hold the run. Whether it fails the run (status 1).
fn finish_disk(
    cfg: &Config,
    run: &mut Run,
    disk: DiskResult,
    saver: Option<&Saver>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<bool> {
    let mut failed = false;
    // Judged runs (--qualify, --burn-in) end with the verdicts' status; the
    // others fail (status 1) with a disk whose own findings fail it.
    if !judged(cfg) {
        failed |= !crate::verdict::of(&disk).passes();
    }
    if let (Some(info), Mode::PhysicalPath | Mode::Ident) = (&disk.info, cfg.mode)
        && let Err(msg) = print_id(info, cfg, out)?
    {
        writeln!(err, "seekprobe: {}: {msg}", info.path)?;
        failed = true;
    }
    let i = run.disks.len();
    run.disks.push(disk);
    if let Some(saver) = saver
        && let Err(e) = saver.put(i, run.disks[i].clone())
    {
        cannot_write(err, &saver.path, "save the results", &e)?;
        failed = true;
    }
    if let Some(path) = &cfg.html
        && let Err(e) = save_html(path, run, None)
    {
        cannot_write(err, path, "write the report", &e)?;
        failed = true;
    }
    if let Some(path) = &cfg.prometheus
        && let Err(e) = save_prometheus(path, run)
    {
        cannot_write(err, path, "write the metrics", &e)?;
        failed = true;
    }
    Ok(failed)
}

/// -p / -s: print the physical path or the ident alone on a line.
fn print_id(
    info: &DeviceInfo,
    cfg: &Config,
    out: &mut dyn Write,
) -> io::Result<Result<(), String>> {
    if info.kind == TargetKind::File {
        return Ok(Err("-p or -s cannot be used on a regular file".into()));
    }
    let (value, what) = match cfg.mode {
        Mode::PhysicalPath => (&info.physical_path, "physical path"),
        _ => (&info.ident, "ident (serial number)"),
    };
    let Some(v) = value else {
        return Ok(Err(format!("the device reports no {what}")));
    };
    if cfg.with_name {
        writeln!(out, "{}\t{v}", info.name)?;
    } else {
        writeln!(out, "{v}")?;
    }
    out.flush()?;
    Ok(Ok(()))
}

/// The run's warnings about drives that share a serial number (simulated drives
/// of one seed, a USB bridge reporting its own, clones): the run tells them apart
/// only by the names given, so a --resume must name them the same way. A warning
/// of the run, not a finding of either drive; drives without a serial get none.
pub(super) fn twin_serials(run: &Run) -> Vec<String> {
    let mut seen: Vec<(&str, Vec<&str>)> = Vec::new();
    for d in &run.disks {
        let Some(serial) = d.info.as_ref().and_then(|i| i.ident.as_deref()) else {
            continue;
        };
        match seen.iter_mut().find(|(s, _)| *s == serial) {
            Some((_, names)) => names.push(&d.name),
            None => seen.push((serial, vec![&d.name])),
        }
    }
    seen.into_iter()
        .filter(|(_, names)| names.len() > 1)
        .map(|(serial, names)| {
            format!(
                "{} report the same serial number {serial}: their results are told apart only by the names given (a --resume must name each the same way)",
                names.join(" and ")
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_gone_since_the_run_started_is_a_vanished_drive_not_a_wrong_name() {
        let dir = tempfile::tempdir().unwrap();
        let img = dir.path().join("a.img");
        let name = img.to_string_lossy().into_owned();
        let not_found = |disk: &mut DiskResult, was_there| {
            disk.error = Some(DiskFailure::NotTested(format!(
                "{name}: no such file or directory (errno 2)"
            )));
            vanished(disk, was_there);
            disk.error.clone().unwrap()
        };
        let mut disk = DiskResult::new(&name);
        // Never there: the operator's name, NOT TESTED.
        assert!(matches!(
            not_found(&mut disk, false),
            DiskFailure::NotTested(_)
        ));
        // There when the run started, gone since: the drive's doing.
        match not_found(&mut disk, true) {
            DiskFailure::Open(m) => assert!(m.ends_with("the drive vanished"), "{m}"),
            e => panic!("{e:?}"),
        }
        // There still (held, refused): as it was.
        std::fs::write(&img, b"").unwrap();
        assert!(matches!(
            not_found(&mut disk, true),
            DiskFailure::NotTested(_)
        ));
    }
}
