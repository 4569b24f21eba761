//! The file a burn-in is saved in when no `--json-file` names one, and the saved
//! run a bare `--resume` goes on with: every burn-in can be resumed.
//!
//! The place: `$SEEKPROBE_RUNS_DIR` when set (tests, or a fleet's own place);
//! else /var/lib/seekprobe/runs as root, or `$XDG_STATE_HOME/seekprobe/runs`
//! (`~/.local/state/seekprobe/runs`) for others. A new burn-in takes a fresh
//! `burnin-YYYYMMDDTHHMMSSZ.json` there, named on standard error before any drive
//! is touched; `--resume` without a file takes the file `--json-file` names, else
//! the newest unfinished burn-in there of the drives and options given.

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
/// `--resume`, the file `--json-file` names, else the newest unfinished burn-in
/// in [`runs_dir`] of the drives named with the options given ([`matching`]),
/// said by name. None (after saying why) when there is none, or the folder cannot
/// be made.
pub(super) fn choose(cfg: &mut Config, err: &mut dyn Write) -> io::Result<Chosen> {
    if cfg.burn_in.is_none() {
        return Ok(Some(None));
    }
    let latest = cfg.resume.as_deref() == Some(Path::new(LATEST));
    let named = cfg.json_file.clone().filter(|j| j != Path::new(LATEST));
    match (latest, named) {
        // The file the operator named is the one resumed, never another run.
        (true, Some(file)) => {
            writeln!(
                err,
                "seekprobe: --resume: going on with the burn-in in {} (--json-file)",
                file.display()
            )?;
            cfg.resume = Some(file);
            return Ok(Some(None));
        }
        (false, Some(_)) => return Ok(Some(None)),
        _ => {}
    }
    let Some(dir) = runs_dir() else {
        writeln!(
            err,
            "seekprobe: no folder to save the burn-in in (neither ${RUNS_DIR_ENV}, $XDG_STATE_HOME nor $HOME is set): give --json-file FILE.json"
        )?;
        return Ok(None);
    };
    if latest {
        let found = match matching(&dir, cfg) {
            Ok(found) => found,
            Err(why) => {
                writeln!(err, "seekprobe: --resume: {why}; give --resume FILE.json")?;
                return Ok(None);
            }
        };
        writeln!(
            err,
            "seekprobe: --resume: going on with the newest unfinished burn-in of these drives, {}",
            found.display()
        )?;
        cfg.json_file = Some(found.clone());
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

/// The command line `raw` as clap is to read it: a `--resume` whose next word
/// names a drive (a `sim:` spec, a device, a name under /dev/, an image that holds
/// no JSON) is a bare `--resume` (`--resume=-`) before that drive, never a run
/// file of that name; `--resume FILE.json` (a file that does not exist yet reads
/// as one too) and `--resume=VALUE` are as given. Words after `--` are drives.
pub(super) fn resume_before_a_drive(raw: &[std::ffi::OsString]) -> Vec<std::ffi::OsString> {
    let mut out = raw.to_vec();
    let Some(at) = raw
        .iter()
        .take_while(|a| *a != "--")
        .position(|a| a == "--resume")
    else {
        return out;
    };
    if raw
        .get(at + 1)
        .and_then(|v| v.to_str())
        .is_some_and(names_a_drive)
    {
        out[at] = format!("--resume={LATEST}").into();
    }
    out
}

/// Whether the word `v` after `--resume` names a drive rather than a run file.
fn names_a_drive(v: &str) -> bool {
    if v.starts_with("sim:") {
        return true;
    }
    let meta = std::fs::metadata(v).or_else(|e| match v.starts_with('/') {
        true => Err(e),
        false => std::fs::metadata(format!("/dev/{v}")),
    });
    match meta {
        Ok(m) if m.is_file() => !holds_json(Path::new(v)),
        Ok(m) => !m.is_dir(),
        Err(_) => false,
    }
}

/// Whether the file at `path` starts (after white space) with `{`, as a saved run
/// does.
fn holds_json(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 512];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head[..n]
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{')
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

/// The newest (by modification time) unfinished burn-in in `dir` that a bare
/// `--resume` of `cfg` goes on with: of the same drives (by the names given, in
/// any order; any with `--resume-changed`) and run with the options `cfg`
/// measures with (`config::measures`). Err says why none is: there is no
/// unfinished burn-in, or the newest ones are of other drives or options (named,
/// with why, the three newest).
fn matching(dir: &Path, cfg: &Config) -> Result<PathBuf, String> {
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    files.sort();
    let mut others = Vec::new();
    for (_, p) in files.into_iter().rev() {
        let Ok(run) = super::inputs::load_run(&p) else {
            continue;
        };
        let Some(b) = run
            .burn_in
            .as_ref()
            .filter(|_| super::inputs::unfinished(&run))
        else {
            continue;
        };
        let sorted = |names: &[String]| {
            let mut n = names.to_vec();
            n.sort();
            n
        };
        let why = if !cfg.resume_changed && sorted(&b.disks) != sorted(&cfg.disks) {
            format!("of {}", b.disks.join(", "))
        } else {
            match crate::config::measures::differing(&b.command, &cfg.command) {
                Ok(d) if d.is_empty() => return Ok(p),
                Ok(d) => format!("run with other options: {}", d.join(", ")),
                Err(e) => format!("its options cannot be read: {e}"),
            }
        };
        others.push(format!("{} ({why})", p.display()));
    }
    if others.is_empty() {
        return Err(format!(
            "no unfinished burn-in in {} (where burn-ins without --json-file are saved)",
            dir.display()
        ));
    }
    others.truncate(3);
    Err(format!(
        "no unfinished burn-in in {} of {} with these options; the newest: {}",
        dir.display(),
        cfg.disks.join(", "),
        others.join("; ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drive_after_resume_is_a_drive_and_a_run_file_a_run_file() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("run.json");
        std::fs::write(&run, " {\"schema_version\": 1}").unwrap();
        let image = dir.path().join("disk.img");
        std::fs::write(&image, [0u8; 4096]).unwrap();
        let parsed = |args: &[&str]| -> Vec<String> {
            let raw: Vec<std::ffi::OsString> = args.iter().map(Into::into).collect();
            resume_before_a_drive(&raw)
                .into_iter()
                .map(|a| a.into_string().unwrap())
                .collect()
        };
        let (r, i) = (run.to_str().unwrap(), image.to_str().unwrap());
        assert_eq!(
            parsed(&["sp", "--burn-in", "--resume", "sim:hdd?size=2G"]),
            ["sp", "--burn-in", "--resume=-", "sim:hdd?size=2G"]
        );
        assert_eq!(parsed(&["sp", "--resume", i]), ["sp", "--resume=-", i]);
        assert_eq!(parsed(&["sp", "--resume", r, i]), ["sp", "--resume", r, i]);
        // A file not written yet, and what follows --, are as given.
        assert_eq!(
            parsed(&["sp", "--resume", "new.json", "sim:hdd"]),
            ["sp", "--resume", "new.json", "sim:hdd"]
        );
        assert_eq!(
            parsed(&["sp", "--", "--resume", "sim:hdd"]),
            ["sp", "--", "--resume", "sim:hdd"]
        );
    }

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
