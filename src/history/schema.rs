//! The database's schema, versioned with SQLite's `PRAGMA user_version`: each
//! migration takes the file one version up, in one transaction; a newer seekprobe
//! upgrades an older file, an older one refuses a newer file, naming both
//! versions. Opening also sets the busy timeout and WAL (several writers at once).

use rusqlite::{Connection, TransactionBehavior};

/// The migrations, in order: `MIGRATIONS[i]` takes a file from version i to i+1.
const MIGRATIONS: &[&str] = &[
    // 1: drives, runs, each drive's run with its verdict, figures and SMART,
    // acknowledgements.
    "CREATE TABLE drives (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        serial TEXT,
        wwn TEXT,
        model TEXT,
        size_bytes INTEGER NOT NULL,
        simulated INTEGER NOT NULL
    );
    CREATE INDEX drives_serial ON drives(serial);
    CREATE INDEX drives_model ON drives(model);
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        uid TEXT NOT NULL UNIQUE,
        host TEXT NOT NULL,
        started INTEGER NOT NULL,
        command TEXT NOT NULL,
        version TEXT NOT NULL,
        source TEXT NOT NULL
    );
    CREATE TABLE drive_runs (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id),
        drive_id INTEGER NOT NULL REFERENCES drives(id),
        name TEXT NOT NULL,
        firmware TEXT,
        started INTEGER NOT NULL,
        verdict TEXT,
        qualified INTEGER NOT NULL,
        temperature_c INTEGER,
        reallocated INTEGER,
        pending INTEGER,
        media_errors INTEGER,
        power_on_hours INTEGER,
        smart TEXT,
        findings TEXT NOT NULL
    );
    CREATE INDEX drive_runs_drive ON drive_runs(drive_id, started);
    CREATE TABLE figures (
        drive_run_id INTEGER NOT NULL REFERENCES drive_runs(id),
        key TEXT NOT NULL,
        label TEXT NOT NULL,
        value REAL NOT NULL,
        higher_is_better INTEGER NOT NULL
    );
    CREATE INDEX figures_drive_run ON figures(drive_run_id);
    CREATE TABLE acks (
        id INTEGER PRIMARY KEY,
        serial TEXT NOT NULL,
        code TEXT NOT NULL,
        reason TEXT NOT NULL,
        who TEXT NOT NULL,
        at INTEGER NOT NULL,
        undone_by TEXT,
        undone_at INTEGER
    );
    CREATE INDEX acks_serial ON acks(serial);",
    // 2: acknowledgements keyed by serial and model (two drives of other models
    // may share a serial); an older one takes its serial's model when the
    // database knows exactly one (else none: it applies to no drive with a model).
    "ALTER TABLE acks ADD COLUMN model TEXT;
    UPDATE acks SET model = (SELECT MIN(d.model) FROM drives d WHERE d.serial = acks.serial)
     WHERE (SELECT COUNT(DISTINCT d.model) FROM drives d WHERE d.serial = acks.serial) = 1
       AND NOT EXISTS (SELECT 1 FROM drives d WHERE d.serial = acks.serial AND d.model IS NULL);
    DROP INDEX acks_serial;
    CREATE INDEX acks_drive ON acks(serial, model);",
];

/// The schema version this seekprobe writes.
pub const SCHEMA: i64 = MIGRATIONS.len() as i64;

/// Set the busy timeout and WAL, then bring the schema up to [`SCHEMA`]. Err: why
/// the file cannot be used (not a database, read-only, a newer schema).
pub(super) fn prepare(conn: &mut Connection) -> Result<(), String> {
    conn.busy_timeout(super::BUSY_TIMEOUT)
        .map_err(|e| format!("cannot set its busy timeout: {e}"))?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("cannot read it: {e}"))?;
    if version > SCHEMA {
        return Err(format!(
            "written by a newer seekprobe (schema version {version}; this seekprobe {} knows up to version {SCHEMA}): upgrade seekprobe, or name another file with --history FILE",
            env!("CARGO_PKG_VERSION")
        ));
    }
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(|e| format!("cannot use it: {e}"))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(format!(
            "cannot use write-ahead logging (journal mode {mode})"
        ));
    }
    conn.execute_batch("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON")
        .map_err(|e| format!("cannot use it: {e}"))?;
    if version == SCHEMA {
        return Ok(());
    }
    // One writer migrates; another process that migrated first leaves nothing to do.
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| format!("cannot write it: {e}"))?;
    let now: i64 = tx
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| format!("cannot read it: {e}"))?;
    for (v, sql) in MIGRATIONS.iter().enumerate().skip(now.max(0) as usize) {
        tx.execute_batch(sql)
            .map_err(|e| format!("cannot upgrade it to schema version {}: {e}", v + 1))?;
    }
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA}"))
        .map_err(|e| format!("cannot write it: {e}"))?;
    tx.commit().map_err(|e| format!("cannot write it: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_gets_the_schema_and_a_newer_one_is_refused_naming_both_versions() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("h.db");
        let mut c = Connection::open(&p).unwrap();
        prepare(&mut c).unwrap();
        let v: i64 = c
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA);
        prepare(&mut c).unwrap();
        c.execute_batch(&format!("PRAGMA user_version = {}", SCHEMA + 1))
            .unwrap();
        drop(c);
        let mut c = Connection::open(&p).unwrap();
        let e = prepare(&mut c).unwrap_err();
        assert!(
            e.contains(&format!("schema version {}", SCHEMA + 1))
                && e.contains(&format!("up to version {SCHEMA}")),
            "{e}"
        );
    }

    #[test]
    fn a_version_1_file_opens_and_its_acknowledgements_take_their_drives_model() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("h.db");
        let c = Connection::open(&p).unwrap();
        c.execute_batch(MIGRATIONS[0]).unwrap();
        c.execute_batch(
            "INSERT INTO drives (key, serial, model, size_bytes, simulated)
             VALUES ('A\u{1f}M', 'A', 'M', 1, 0), ('B\u{1f}M1', 'B', 'M1', 1, 0), ('B\u{1f}M2', 'B', 'M2', 1, 0);
             INSERT INTO acks (serial, code, reason, who, at) VALUES ('A', 'smart', 'r', 'w', 1), ('B', 'smart', 'r', 'w', 1);
             PRAGMA user_version = 1;",
        )
        .unwrap();
        drop(c);
        let mut c = Connection::open(&p).unwrap();
        prepare(&mut c).unwrap();
        let models: Vec<(String, Option<String>)> = c
            .prepare("SELECT serial, model FROM acks ORDER BY serial")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(
            models,
            vec![("A".into(), Some("M".into())), ("B".into(), None)]
        );
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("h.db");
        std::fs::write(&p, vec![b'x'; 8192]).unwrap();
        let mut c = Connection::open(&p).unwrap();
        let e = prepare(&mut c).unwrap_err();
        assert!(e.contains("not a database"), "{e}");
    }
}
