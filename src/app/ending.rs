//! How a probing run ends after its last disk: the files that hold the run written
//! again with the verdicts, the run printed in its format with the text that follows
//! it, and after Ctrl-C, what was kept and how to go on.

use super::live::Saver;
use super::output::{save_html, save_prometheus};
use crate::config::{Config, Mode};
use crate::report::{self, Format};
use crate::results::Run;
use crate::sshsig::signer::Signer;
use std::io::{self, Write};

/// Write the run's files again, now with the verdicts (`compared`: the disks were
/// compared or judged, as the metrics show; or the path check ran after them); a
/// failure to write one was said after the disk. With `--sign-key` (`signing`:
/// its key, and whether a signal stopped the run) the run file, now final, is
/// signed before the page is written, which shows it; false when it could not be
/// signed (said here).
pub(super) fn save_again(
    cfg: &Config,
    run: &Run,
    saver: Option<&Saver>,
    compared: bool,
    signing: (Option<&Signer>, bool),
    err: &mut dyn Write,
) -> io::Result<bool> {
    let path_checked = run.disks.iter().any(|d| d.path_check.is_some());
    if (compared || path_checked)
        && let Some(path) = &cfg.prometheus
    {
        let _ = save_prometheus(path, run);
    }
    let saved = saver.map(|s| s.finish(&run.disks, run.record.ended_unix_s).is_ok());
    let (signer, interrupted) = signing;
    let mut seal = None;
    if let (Some(signer), Some(file)) = (signer, &cfg.json_file) {
        if interrupted || saved != Some(true) {
            let why = if interrupted {
                "the run was interrupted"
            } else {
                "its last save failed"
            };
            writeln!(
                err,
                "seekprobe: {}: not signed: {why}; the run that completes it signs it (or `seekprobe sign {} --key KEY`)",
                file.display(),
                file.display()
            )?;
        } else {
            seal = super::signing::sign_saved(file, signer, err)?;
            if seal.is_some() && !cfg.quiet {
                super::signing::say_signed(file, signer, err)?;
            }
        }
    }
    if let Some(path) = &cfg.html {
        let _ = save_html(path, run, seal.as_ref());
    }
    Ok(signer.is_none() || interrupted || seal.is_some())
}

/// Print the run in its format (diskinfo's text was printed live), then `after`
/// (the comparison, the burn-in's block), which JSON leaves out.
pub(super) fn print_run(
    cfg: &Config,
    run: &Run,
    after: &str,
    out: &mut dyn Write,
) -> io::Result<()> {
    if cfg.mode == Mode::Describe && cfg.format != Format::Diskinfo {
        out.write_all(report::render(run, cfg.format).as_bytes())?;
    }
    if cfg.format != Format::Json {
        out.write_all(after.as_bytes())?;
    }
    Ok(())
}

/// After Ctrl-C: the figures printed were measured before it; a burn-in says how
/// to go on where it stopped (--resume), or why it cannot.
pub(super) fn say_interrupted(cfg: &Config, err: &mut dyn Write) -> io::Result<()> {
    writeln!(
        err,
        "seekprobe: interrupted; the figures printed above were measured before it"
    )?;
    if cfg.burn_in.is_some() {
        match &cfg.json_file {
            Some(path) => {
                let cmd = crate::burnin::resume_command(&cfg.command, &path.to_string_lossy());
                writeln!(
                    err,
                    "seekprobe: the burn-in's completed steps are saved in {}; to go on where it stopped:\n  {}",
                    path.display(),
                    crate::burnin::shell_line(&cmd)
                )?;
            }
            None => writeln!(
                err,
                "seekprobe: no --json-file was given, so the burn-in cannot be resumed; give --json-file FILE.json next time"
            )?,
        }
    }
    Ok(())
}
