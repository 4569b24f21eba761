//! `seekprobe history`: the drives known, a drive's timeline, import, ack and
//! unack, as a table (comfy-table) or JSON.

use super::query::{DriveRow, RunRow};
use super::{HistoryDb, Place};
use crate::cli::{HistoryAction, HistoryArgs, HistoryFormat};
use comfy_table::{Table, presets};
use std::io::{self, Write};
use std::path::Path;

/// Run `seekprobe history` with its arguments. Ok(Err(message)): the command
/// could not be done (the message says why); the io::Error is the output's.
/// Only `import` creates the database (the listing, a timeline, `ack` and
/// `unack` read an existing one), and an import that fails leaves no new file.
pub fn command(a: &HistoryArgs, out: &mut dyn Write) -> io::Result<Result<(), String>> {
    if let (Some(action), Some(serial)) = (&a.action, &a.serial) {
        return Ok(Err(format!(
            "history {serial} {}: give a SERIAL (its runs) or an action (import, ack, unack), not both",
            action.name()
        )));
    }
    if let (Some(action), Some(_)) = (&a.action, a.format) {
        return Ok(Err(format!(
            "history {}: --format applies to the listing and a drive's runs (`seekprobe history [SERIAL] --format json`); {} prints a line each: drop --format",
            action.name(),
            action.name()
        )));
    }
    let place = Place::choose(a.file.history.as_deref(), a.file.no_history);
    let Some(path) = place.path().map(Path::to_path_buf) else {
        return Ok(Err(
            "history: no database: --no-history was given (or there is no home directory); name one with --history FILE".into(),
        ));
    };
    if let Some(HistoryAction::Import { files }) = &a.action {
        return import_all(&place, &path, files, out);
    }
    let mut db = match HistoryDb::open_existing(&place) {
        Ok(Some(l)) => l,
        Ok(None) if a.action.is_none() && a.serial.is_none() => {
            let format = a.format.unwrap_or(HistoryFormat::Table);
            return out.write_all(drives(&[], format).as_bytes()).map(Ok);
        }
        Ok(None) => {
            return Ok(Err(format!(
                "history database {}: no such file: nothing is recorded there yet (a run of a real drive, or one with --history FILE, records its drives; `seekprobe history import` takes saved runs)",
                path.display()
            )));
        }
        Err(e) => return Ok(Err(e)),
    };
    let format = a.format.unwrap_or(HistoryFormat::Table);
    match &a.action {
        None => match &a.serial {
            None => match db.drives() {
                Ok(rows) => out.write_all(drives(&rows, format).as_bytes()).map(Ok),
                Err(e) => Ok(Err(e)),
            },
            Some(s) => match db.timeline(s) {
                Ok(rows) if rows.is_empty() => Ok(Err(format!(
                    "no drive with serial {s} in {}; `seekprobe history` lists the drives",
                    db.path().display()
                ))),
                Ok(rows) => out.write_all(timeline(s, &rows, format).as_bytes()).map(Ok),
                Err(e) => Ok(Err(e)),
            },
        },
        Some(HistoryAction::Import { .. }) => unreachable!("imported above"),
        Some(HistoryAction::Ack { serial, code }) => match db.ack(serial, code, &super::who()) {
            Ok(reasons) => {
                for r in reasons {
                    writeln!(out, "acknowledged for {serial}: {r}")?;
                }
                Ok(Ok(()))
            }
            Err(e) => Ok(Err(e)),
        },
        Some(HistoryAction::Unack { serial, code }) => {
            match db.unack(serial, code, &super::who()) {
                Ok(0) => Ok(Err(format!("{serial} has no acknowledged {code} finding"))),
                Ok(n) => {
                    writeln!(out, "{n} acknowledgement(s) of {code} undone for {serial}").map(Ok)
                }
                Err(e) => Ok(Err(e)),
            }
        }
    }
}

/// `history import FILE...`: every file read and checked first, then imported;
/// a database (and its directory) this import created is removed when it fails.
fn import_all(
    place: &Place,
    path: &Path,
    files: &[std::path::PathBuf],
    out: &mut dyn Write,
) -> io::Result<Result<(), String>> {
    let mut sources = Vec::new();
    for f in files {
        match super::read(f) {
            Ok(s) => sources.push(s),
            Err(e) => return Ok(Err(format!("{e}; nothing imported"))),
        }
    }
    let new_dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf);
    let new_file = !path.exists();
    let mut lines = Vec::new();
    let result = HistoryDb::open(place).and_then(|mut db| {
        for (f, source) in files.iter().zip(sources) {
            let n = super::import(&mut db, f, source)?;
            lines.push(format!(
                "{}: {} run(s) imported, {} already there\n",
                f.display(),
                n.runs,
                n.known
            ));
        }
        Ok(())
    });
    match result {
        Ok(()) => out.write_all(lines.concat().as_bytes()).map(Ok),
        Err(e) if !new_file => {
            out.write_all(lines.concat().as_bytes())?;
            Ok(Err(e))
        }
        Err(e) => {
            if new_file {
                for end in ["", "-wal", "-shm", "-journal"] {
                    let mut p = path.as_os_str().to_owned();
                    p.push(end);
                    let _ = std::fs::remove_file(p);
                }
            }
            if let Some(dir) = new_dir {
                let _ = std::fs::remove_dir(dir);
            }
            Ok(Err(e))
        }
    }
}

fn table() -> Table {
    let mut t = Table::new();
    t.load_style(presets::ASCII_MARKDOWN);
    t
}

fn opt<T: ToString>(v: &Option<T>) -> String {
    v.as_ref().map_or_else(|| "-".into(), T::to_string)
}

/// The drives known: serial, model, runs, last verdict, last seen.
pub fn drives(rows: &[DriveRow], format: HistoryFormat) -> String {
    if format == HistoryFormat::Json {
        return serde_json::to_string_pretty(rows).unwrap_or_default() + "\n";
    }
    let mut t = table();
    t.set_header(vec![
        "serial",
        "model",
        "size",
        "runs",
        "last verdict",
        "last seen",
    ]);
    for r in rows {
        t.add_row(vec![
            r.serial.clone().unwrap_or_else(|| "(none)".into()),
            opt(&r.model),
            crate::results::verdict::binary_size(r.size_bytes),
            r.runs.to_string(),
            opt(&r.last_verdict).to_uppercase().replace('_', " "),
            super::utc(r.last_seen_unix_s),
        ]);
    }
    format!("{t}\n{} drive(s)\n", rows.len())
}

/// A drive's timeline: each run's verdict, key figures, SMART counters and
/// temperature, oldest first, then the findings of each run that had any.
pub fn timeline(serial: &str, rows: &[RunRow], format: HistoryFormat) -> String {
    if format == HistoryFormat::Json {
        return serde_json::to_string_pretty(rows).unwrap_or_default() + "\n";
    }
    let mut t = table();
    t.set_header(vec![
        "when", "host", "name", "verdict", "figures", "°C", "realloc", "pending", "hours",
        "firmware",
    ]);
    for r in rows {
        let figs: Vec<String> = r
            .figures
            .iter()
            .take(4)
            .map(|(l, v)| format!("{l} {}", crate::compare::fmt_value(*v)))
            .collect();
        let verdict = opt(&r.verdict).to_uppercase().replace('_', " ")
            + if r.qualified { " (qualified)" } else { "" };
        t.add_row(vec![
            super::utc(r.started_unix_s),
            r.host.clone(),
            r.name.clone(),
            verdict,
            figs.join("; "),
            opt(&r.temperature_c),
            opt(&r.reallocated),
            opt(&r.pending),
            opt(&r.power_on_hours),
            opt(&r.firmware),
        ]);
    }
    let mut s = format!("Drive {serial}: {} run(s)\n{t}\n", rows.len());
    for r in rows.iter().filter(|r| !r.findings.is_empty()) {
        s.push_str(&format!("{}:\n", super::utc(r.started_unix_s)));
        for f in &r.findings {
            s.push_str(&format!("  {f}\n"));
        }
    }
    s
}
