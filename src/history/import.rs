//! `seekprobe history import FILE...`: saved runs (--json-file) and other hosts'
//! databases into this one, each run once (a run already there, by its
//! identity, is skipped).

use super::save_run::Origin;
use super::{HistoryDb, Place};
use rusqlite::{Connection, OpenFlags, params};
use std::path::Path;

/// What an import added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Imported {
    /// Runs added.
    pub runs: usize,
    /// Runs skipped: already there.
    pub known: usize,
}

/// A file to import, read and checked before the database is opened (so that a
/// file that cannot be imported leaves no new database behind).
pub enum ImportSource {
    /// A saved run (--json-file).
    Run(Box<crate::results::Run>),
    /// Another seekprobe history database of this schema.
    Database,
}

/// Read and check a file to import: a saved run, or another seekprobe history
/// database of this seekprobe's schema. Err: why it cannot be imported, naming it.
pub fn read(path: &Path) -> Result<ImportSource, String> {
    let shown = path.display();
    let head = std::fs::read(path)
        .map(|b| b.starts_with(b"SQLite format 3\0"))
        .map_err(|e| format!("{shown}: {}", crate::error::describe_io(&e)))?;
    if head {
        open_other(path)?;
        return Ok(ImportSource::Database);
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{shown}: {}", crate::error::describe_io(&e)))?;
    let run = crate::report::json::from_json(&text).map_err(|e| format!("{shown}: {e}"))?;
    Ok(ImportSource::Run(Box::new(run)))
}

/// Import one file, read by [`read`], into `db`. Err: why the file cannot be
/// imported, naming it.
pub fn import(db: &mut HistoryDb, path: &Path, source: ImportSource) -> Result<Imported, String> {
    let run = match source {
        ImportSource::Database => return db.import_database(path),
        ImportSource::Run(run) => run,
    };
    // The file's name is the host (docs/history.md); the command, the run's own.
    let host = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let origin = Origin {
        host,
        command: run.record.command.join(" "),
        source: format!("imported from {}", path.display()),
    };
    let n = db.record(&run, &origin)?;
    let taken = run.disks.iter().any(|d| db.place.records(d));
    Ok(if n > 0 {
        Imported { runs: 1, known: 0 }
    } else {
        Imported {
            runs: 0,
            known: usize::from(taken),
        }
    })
}

/// Open another history database to read, checking its schema version.
fn open_other(path: &Path) -> Result<Connection, String> {
    let shown = path.display();
    let other = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| format!("{shown}: cannot open it: {e}"))?;
    other
        .busy_timeout(super::BUSY_TIMEOUT)
        .map_err(|e| format!("{shown}: {e}"))?;
    let version: i64 = other
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("{shown}: cannot read it: {e}"))?;
    if version != super::SCHEMA {
        return Err(format!(
            "{shown}: schema version {version}, this seekprobe's is {}: open it once with the same seekprobe (`seekprobe history --history {shown}`) to upgrade it",
            super::SCHEMA
        ));
    }
    Ok(other)
}

impl HistoryDb {
    fn import_database(&mut self, path: &Path) -> Result<Imported, String> {
        let shown = path.display();
        let other = open_other(path)?;
        let real_only = !matches!(self.place, Place::Named(_));
        let fail = |e: rusqlite::Error| format!("{shown}: cannot import it: {e}");
        let mut runs = other
            .prepare("SELECT id, uid, host, started, command, version FROM runs ORDER BY id")
            .map_err(fail)?;
        type RunCols = (i64, String, String, i64, String, String);
        let all: Vec<RunCols> = runs
            .query_map([], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ))
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(fail)?;
        let mut done = Imported::default();
        for (id, uid, host, started, command, version) in all {
            let known: bool = tx
                .query_row(
                    "SELECT EXISTS(SELECT 1 FROM runs WHERE uid = ?1)",
                    [&uid],
                    |r| r.get(0),
                )
                .map_err(fail)?;
            if known {
                done.known += 1;
                continue;
            }
            tx.execute(
                "INSERT INTO runs (uid, host, started, command, version, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![uid, host, started, command, version, format!("imported from {shown}")],
            )
            .map_err(fail)?;
            let run_id = tx.last_insert_rowid();
            copy_drive_runs(&other, &tx, id, run_id, real_only).map_err(fail)?;
            done.runs += 1;
        }
        copy_acks(&other, &tx).map_err(fail)?;
        tx.commit().map_err(fail)?;
        Ok(done)
    }
}

/// The drive runs of run `from` of `other` into run `to`, with their drives and
/// figures (only real drives with a serial when `real_only`).
fn copy_drive_runs(
    other: &Connection,
    tx: &rusqlite::Transaction<'_>,
    from: i64,
    to: i64,
    real_only: bool,
) -> rusqlite::Result<()> {
    let mut st = other.prepare(
        "SELECT dr.id, d.key, d.serial, d.wwn, d.model, d.size_bytes, d.simulated,
           dr.name, dr.firmware, dr.started, dr.verdict, dr.qualified, dr.temperature_c,
           dr.reallocated, dr.pending, dr.media_errors, dr.power_on_hours, dr.smart, dr.findings
         FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id
         WHERE dr.run_id = ?1 AND (NOT ?2 OR (d.simulated = 0 AND d.serial IS NOT NULL AND d.model IS NOT NULL))",
    )?;
    let mut rows = st.query(params![from, real_only])?;
    while let Some(r) = rows.next()? {
        let key: String = r.get(1)?;
        tx.execute(
            "INSERT INTO drives (key, serial, wwn, model, size_bytes, simulated) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT(key) DO NOTHING",
            params![key, r.get::<_, Option<String>>(2)?, r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?, r.get::<_, i64>(5)?, r.get::<_, bool>(6)?],
        )?;
        let drive: i64 =
            tx.query_row("SELECT id FROM drives WHERE key = ?1", [&key], |x| x.get(0))?;
        let mut values: Vec<rusqlite::types::Value> = vec![to.into(), drive.into()];
        for i in 7..19 {
            values.push(r.get(i)?);
        }
        tx.execute(
            "INSERT INTO drive_runs (run_id, drive_id, name, firmware, started, verdict, qualified,
               temperature_c, reallocated, pending, media_errors, power_on_hours, smart, findings)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            rusqlite::params_from_iter(values),
        )?;
        let new = tx.last_insert_rowid();
        let old: i64 = r.get(0)?;
        let mut figs = other.prepare_cached(
            "SELECT key, label, value, higher_is_better FROM figures WHERE drive_run_id = ?1 ORDER BY rowid",
        )?;
        let mut f = figs.query([old])?;
        while let Some(f) = f.next()? {
            tx.execute(
                "INSERT INTO figures (drive_run_id, key, label, value, higher_is_better) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![new, f.get::<_, String>(0)?, f.get::<_, String>(1)?, f.get::<_, f64>(2)?, f.get::<_, bool>(3)?],
            )?;
        }
    }
    Ok(())
}

/// The other database's acknowledgements not already here (same drive, code,
/// reason, who and time). One of a finding that cannot be acknowledged is
/// copied as it is and never applied (`verdict::earlier::acknowledge`).
fn copy_acks(other: &Connection, tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let mut st = other
        .prepare("SELECT serial, model, code, reason, who, at, undone_by, undone_at FROM acks")?;
    let mut rows = st.query([])?;
    while let Some(r) = rows.next()? {
        let v: Vec<rusqlite::types::Value> = (0..8).map(|i| r.get(i)).collect::<Result<_, _>>()?;
        let exists: bool = tx.query_row(
            "SELECT EXISTS(SELECT 1 FROM acks WHERE serial = ?1 AND model IS ?2 AND code = ?3 AND reason = ?4 AND who = ?5 AND at = ?6)",
            rusqlite::params_from_iter(v[..6].iter()),
            |x| x.get(0),
        )?;
        if !exists {
            tx.execute(
                "INSERT INTO acks (serial, model, code, reason, who, at, undone_by, undone_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                rusqlite::params_from_iter(v),
            )?;
        }
    }
    Ok(())
}
