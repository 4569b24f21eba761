//! Files a run or a subcommand reads: saved runs (a baseline, a burn-in to resume)
//! and smartctl reports, from a path or standard input.

use crate::compare::{self};
use crate::config::{Config, Qualify};
use crate::report::json;
use crate::results::Run;
use std::io::{self, Write};
use std::path::Path;

/// Load the baseline of `qualify`, if any, before anything is probed: Err (after
/// saying why) when it cannot be read.
pub(super) fn load_baseline(
    qualify: Option<&Qualify>,
    err: &mut dyn Write,
) -> io::Result<Result<Option<compare::Comparison>, ()>> {
    let Some(path) = qualify.and_then(|q| q.baseline.as_ref()) else {
        return Ok(Ok(None));
    };
    match load_run(path) {
        Ok(b) => Ok(Ok(Some(compare::compare(
            &b.disks.iter().collect::<Vec<_>>(),
        )))),
        Err(msg) => {
            writeln!(err, "seekprobe: {}: {msg}", path.display())?;
            Ok(Err(()))
        }
    }
}

/// Read a saved run: `-` is standard input; otherwise only a regular file is opened
/// (a FIFO without a writer would block).
pub(super) fn load_run(path: &Path) -> Result<Run, String> {
    json::from_json(&read_input(path, "a run saved with --json-file")?)
}

/// The text of `path`, or of standard input for `-`. Only a regular file is opened
/// (a FIFO without a writer would block); otherwise the error says to give `what`.
pub(super) fn read_input(path: &Path, what: &str) -> Result<String, String> {
    if path == Path::new("-") {
        let mut text = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut text)
            .map_err(|e| crate::error::describe_io(&e))?;
        return Ok(text);
    }
    let meta = std::fs::metadata(path).map_err(|e| crate::error::describe_io(&e))?;
    if !meta.is_file() {
        return Err(format!("not a regular file; give {what}"));
    }
    std::fs::read_to_string(path).map_err(|e| crate::error::describe_io(&e))
}

/// Read a saved smartctl report: `-` is standard input; otherwise only a regular
/// file is opened.
pub(super) fn load_smart_report(path: &Path) -> Result<crate::smart::Report, String> {
    use crate::smart::model::{MAX_REPORT_BYTES, read_limited};
    let what = "a report saved with smartctl --json -x DEVICE";
    let text = if path == Path::new("-") {
        read_limited(io::stdin())?
    } else {
        let meta = std::fs::metadata(path).map_err(|e| crate::error::describe_io(&e))?;
        if meta.is_file() && meta.len() > MAX_REPORT_BYTES {
            return Err(format!(
                "{} bytes: {}",
                meta.len(),
                crate::smart::model::too_big()
            ));
        }
        read_input(path, what)?
    };
    crate::smart::Report::from_json(&text)
        .map_err(|e| format!("{e}; give a report saved with smartctl --json -x DEVICE"))
}

/// The saved burn-in that `--resume` continues: a run saved by --burn-in, with the
/// same SMR setting and as many drives as this command names. Err says why not.
pub(super) fn load_resumable(path: &Path, cfg: &Config) -> Result<Run, String> {
    let run = load_run(path)?;
    let Some(b) = &run.burn_in else {
        return Err("not a burn-in: give the --json-file of a --burn-in run".into());
    };
    let settings = cfg.burn_in.unwrap_or_default();
    if b.smr_check != settings.smr_check {
        return Err(format!(
            "that burn-in was run {} --smr-check; resume it with the same options",
            if b.smr_check { "with" } else { "without" }
        ));
    }
    Ok(run)
}

/// The file identity of a disk argument (device and inode, following the /dev/
/// retry), or None for a simulated drive or a path that does not exist.
pub(super) fn identity(name: &str) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    if name.starts_with("sim:") {
        return None;
    }
    let m = std::fs::metadata(name)
        .or_else(|_| std::fs::metadata(format!("/dev/{name}")))
        .ok()?;
    // A device node is the device it names, whatever path reaches it.
    Some(if m.rdev() != 0 {
        (u64::MAX, m.rdev())
    } else {
        (m.dev(), m.ino())
    })
}
