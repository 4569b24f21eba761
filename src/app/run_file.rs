//! The file a burn-in is saved in when no `--json-file` names one, and the saved
//! run a bare `--resume` goes on with: every burn-in can be resumed.
//!
//! The place: `$SEEKPROBE_RUNS_DIR` when set (tests, or a fleet's own place);
//! else /var/lib/seekprobe/runs as root, or `$XDG_STATE_HOME/seekprobe/runs`
//! (`~/.local/state/seekprobe/runs`) for others. A new burn-in takes a fresh
//! `burnin-YYYYMMDDTHHMMSSZ.json` there, named on standard error before any drive
//! is touched; `--resume` without a file takes the newest unfinished burn-in there.

use crate::config::Config;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The environment variable that puts the run files elsewhere.
pub const RUNS_DIR_ENV: &str = "SEEKPROBE_RUNS_DIR";

/// What `--resume` is given when no file follows it (clap's missing value).
pub const LATEST: &str = "-";

/// The folder the burn-ins without `--json-file` are saved in.
pub fn runs_dir() -> Option<PathBuf> {
    let abs = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    if let Some(dir) = abs(std::env::var_os(RUNS_DIR_ENV)) {
        return Some(dir);
    }
    if nix::unistd::geteuid().is_root() {
        return Some(PathBuf::from("/var/lib/seekprobe/runs"));
    }
    let state = abs(std::env::var_os("XDG_STATE_HOME"))
        .or_else(|| abs(std::env::var_os("HOME")).map(|h| h.join(".local/state")))?;
    Some(state.join("seekprobe/runs"))
}

/// What [`choose`] decided: `None` when the run cannot start (said why);
/// `Some(Some(file))` for a new file of the burn-in's own in [`runs_dir`] (removed
/// at the end when no drive was tested, [`drop_untested`]); `Some(None)` else.
pub(super) type Chosen = Option<Option<PathBuf>>;

/// Choose the files a burn-in is saved in and goes on from, before anything runs:
/// without `--json-file`, a new file of its own (said on `err`); a bare
/// `--resume`, the newest unfinished burn-in in [`runs_dir`]. None (after saying
/// why) when there is none, or the folder cannot be made.
pub(super) fn choose(cfg: &mut Config, err: &mut dyn Write) -> io::Result<Chosen> {
    if cfg.burn_in.is_none() {
        return Ok(Some(None));
    }
    let latest = cfg.resume.as_deref() == Some(Path::new(LATEST));
    if !latest && cfg.json_file.is_some() {
        return Ok(Some(None));
    }
    let Some(dir) = runs_dir() else {
        writeln!(
            err,
            "seekprobe: no folder to save the burn-in in (neither ${RUNS_DIR_ENV}, $XDG_STATE_HOME nor $HOME is set): give --json-file FILE.json"
        )?;
        return Ok(None);
    };
    if latest {
        let Some(found) = latest_unfinished(&dir) else {
            writeln!(
                err,
                "seekprobe: --resume: no unfinished burn-in in {} (where burn-ins without --json-file are saved); give --resume FILE.json",
                dir.display()
            )?;
            return Ok(None);
        };
        writeln!(
            err,
            "seekprobe: --resume: going on with the newest unfinished burn-in, {}",
            found.display()
        )?;
        if cfg
            .json_file
            .as_deref()
            .is_none_or(|j| j == Path::new(LATEST))
        {
            cfg.json_file = Some(found.clone());
        }
        cfg.resume = Some(found);
        return Ok(Some(None));
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        super::output::cannot_write(err, &dir, "make the folder the burn-in is saved in", &e)?;
        writeln!(err, "seekprobe: give --json-file FILE.json")?;
        return Ok(None);
    }
    let file = fresh_name(&dir, std::time::SystemTime::now());
    writeln!(
        err,
        "seekprobe: no --json-file given: the burn-in is saved in {} (--resume alone goes on with it if it is stopped)",
        file.display()
    )?;
    cfg.json_file = Some(file.clone());
    Ok(Some(Some(file)))
}

/// After a burn-in saved in a file of its own (`fresh`, [`choose`]) in which no
/// drive was tested (each NOT TESTED: writing refused for a signature, held, a
/// path that does not exist): the file goes, said on `err`, so that a refused
/// attempt leaves no run behind for a bare `--resume` to find.
pub(super) fn drop_untested(
    fresh: &Path,
    run: &crate::results::Run,
    err: &mut dyn Write,
) -> io::Result<()> {
    let untested = |d: &crate::results::DiskResult| {
        matches!(d.error, Some(crate::results::DiskFailure::NotTested(_)))
    };
    if run.disks.is_empty() || !run.disks.iter().all(untested) {
        return Ok(());
    }
    // And its signature (--sign-key), which signs nothing now.
    let _ = std::fs::remove_file(crate::sshsig::beside(fresh));
    if std::fs::remove_file(fresh).is_ok() {
        writeln!(
            err,
            "seekprobe: no drive was tested, so no run is kept ({} removed)",
            fresh.display()
        )?;
    }
    Ok(())
}

/// A file name in `dir` for a burn-in started at `now`, taken by no other file.
fn fresh_name(dir: &Path, now: std::time::SystemTime) -> PathBuf {
    let secs = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stamp = chrono_like(secs);
    (1..)
        .map(|n| match n {
            1 => dir.join(format!("burnin-{stamp}.json")),
            n => dir.join(format!("burnin-{stamp}-{n}.json")),
        })
        .find(|p| !p.exists())
        .expect("a free name")
}

/// `secs` since the epoch as YYYYMMDDTHHMMSSZ (UTC).
fn chrono_like(secs: u64) -> String {
    let (y, m, d, h, mi, s) = crate::clock::civil_utc(secs as i64);
    format!("{y:04}{m:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// The newest (by modification time) saved burn-in in `dir` that is unfinished.
fn latest_unfinished(dir: &Path) -> Option<PathBuf> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort();
    files
        .into_iter()
        .rev()
        .map(|(_, p)| p)
        .find(|p| super::inputs::load_run(p).is_ok_and(|r| super::start::unfinished(&r)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_file_is_named_by_its_start_in_utc() {
        assert_eq!(chrono_like(0), "19700101T000000Z");
        assert_eq!(chrono_like(1_796_220_000), "20261202T140000Z");
        let dir = tempfile::tempdir().unwrap();
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_796_220_000);
        let first = fresh_name(dir.path(), t);
        assert_eq!(first, dir.path().join("burnin-20261202T140000Z.json"));
        std::fs::write(&first, "{}").unwrap();
        assert_eq!(
            fresh_name(dir.path(), t),
            dir.path().join("burnin-20261202T140000Z-2.json")
        );
    }
}
