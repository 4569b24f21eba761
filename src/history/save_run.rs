//! Recording a run: the run (host, time, command line, seekprobe version) once,
//! and for each drive the place takes its identity with its firmware, the
//! verdict and findings, each test's comparable figures and the SMART snapshot,
//! in one transaction. A run already recorded (the same run imported again from
//! its --json-file) is skipped.

use super::HistoryDb;
use crate::compare;
use crate::results::device::Identity;
use crate::results::{Code, DiskResult, Run, verdict::Verdict};
use rusqlite::{OptionalExtension, TransactionBehavior, params};

/// Where a run comes from.
#[derive(Debug, Clone)]
pub struct Origin {
    /// The host that ran it (a saved run's file name when imported).
    pub host: String,
    /// Its command line ("" when unknown).
    pub command: String,
    /// "recorded" for a run of this host, else "imported from FILE".
    pub source: String,
}

/// A stable identity of a run: a hash of its whole saved form, so a run recorded
/// when it ran and imported later from its --json-file (or in another host's
/// database) is the same run. Each fractional figure enters at 12 significant
/// digits: reading a saved run back may change a float's last bit, never its
/// twelfth digit.
pub(super) fn run_uid(run: &Run) -> String {
    fn canonical(v: &mut serde_json::Value) {
        use serde_json::Value;
        match v {
            Value::Number(n) if n.is_f64() => {
                *v = Value::String(format!("{:.11e}", n.as_f64().unwrap_or_default()));
            }
            Value::Array(a) => a.iter_mut().for_each(canonical),
            Value::Object(o) => o.values_mut().for_each(canonical),
            _ => {}
        }
    }
    let mut value = serde_json::to_value(run).unwrap_or_default();
    canonical(&mut value);
    let json = value.to_string();
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(json.as_bytes()))
}

/// The drive's identity (an empty one when it could not be opened).
fn identity(d: &DiskResult) -> Identity {
    d.info.as_ref().map_or(
        Identity {
            serial: None,
            wwn: None,
            model: None,
            size_bytes: 0,
        },
        |i| i.identity(),
    )
}

/// The drive's key: its serial and model (a drive without a serial is its own,
/// one per run and name: it is never matched with another run).
fn drive_key(d: &DiskResult, uid: &str) -> String {
    let id = identity(d);
    match id.serial.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(s) => format!("{s}\u{1f}{}", id.model.unwrap_or_default()),
        None => format!("anonymous\u{1f}{uid}\u{1f}{}", d.name),
    }
}

/// Whether a drive's verdict judged its timings against a reference (a group of
/// at least three, a baseline or the history), so that it may serve as one.
fn timings_judged(v: &Verdict) -> bool {
    !v.findings
        .iter()
        .any(|f| f.code == Code::GroupTooSmall && f.reason.starts_with("timings not judged"))
}

impl HistoryDb {
    /// Record `run`'s drives that the place takes. Ok(the number of drives
    /// recorded): 0 when none is taken or the run is already there.
    pub fn record(&mut self, run: &Run, origin: &Origin) -> Result<usize, String> {
        let place = self.place.clone();
        let taken: Vec<&DiskResult> = run.disks.iter().filter(|d| place.records(d)).collect();
        if taken.is_empty() {
            return Ok(0);
        }
        let uid = run_uid(run);
        let started = run.started_unix_s.map_or_else(super::now, |s| s as i64);
        let shown = self.path.display().to_string();
        let fail =
            |e: rusqlite::Error| format!("history database {shown}: cannot record the run: {e}");
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(fail)?;
        let known: Option<i64> = tx
            .query_row("SELECT id FROM runs WHERE uid = ?1", [&uid], |r| r.get(0))
            .optional()
            .map_err(fail)?;
        if known.is_some() {
            return Ok(0);
        }
        tx.execute(
            "INSERT INTO runs (uid, host, started, command, version, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![uid, origin.host, started, origin.command, run.tool_version, origin.source],
        )
        .map_err(fail)?;
        let run_id = tx.last_insert_rowid();
        for d in &taken {
            record_drive(&tx, d, run_id, started, &uid).map_err(fail)?;
        }
        tx.commit().map_err(fail)?;
        Ok(taken.len())
    }
}

fn record_drive(
    tx: &rusqlite::Transaction<'_>,
    d: &DiskResult,
    run_id: i64,
    started: i64,
    uid: &str,
) -> rusqlite::Result<()> {
    let info = d.info.as_ref();
    let id = identity(d);
    let simulated = info.is_some_and(|i| {
        i.kind == crate::results::device::TargetKind::Simulated || i.simulated.is_some()
    });
    let key = drive_key(d, uid);
    tx.execute(
        "INSERT INTO drives (key, serial, wwn, model, size_bytes, simulated) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT(key) DO UPDATE SET wwn = COALESCE(excluded.wwn, wwn),
           size_bytes = MAX(size_bytes, excluded.size_bytes)",
        params![key, id.serial, id.wwn, id.model, id.size_bytes as i64, simulated],
    )?;
    let drive_id: i64 =
        tx.query_row("SELECT id FROM drives WHERE key = ?1", [&key], |r| r.get(0))?;
    let health = d
        .smart
        .as_ref()
        .and_then(|s| s.after.as_ref().or(s.before.as_ref()));
    let firmware = crate::verdict::batch::identity(d).firmware;
    let verdict = crate::verdict::of(d);
    let figures = compare::figures(d);
    // A reference: judged (--qualify), its timings against one, and passed on its
    // own figures (a drive passed by an acknowledged finding is no reference).
    let qualified = d.verdict.is_some()
        && timings_judged(&verdict)
        && verdict.passes()
        && !verdict
            .findings
            .iter()
            .any(|f| f.code == Code::Acknowledged)
        && !figures.is_empty();
    // An INCOMPLETE drive (interrupted, too small for a test) or one NOT TESTED
    // (writing refused for a signature, held, a path that does not exist) did
    // not fail.
    let word = match verdict.state {
        s @ (crate::results::State::Incomplete | crate::results::State::NotTested) => s.name(),
        _ if verdict.passes() => "pass",
        _ => "fail",
    };
    let ata = health.and_then(|h| h.ata.as_ref());
    let as_i64 = |v: Option<u64>| v.map(|v| v as i64);
    tx.execute(
        "INSERT INTO drive_runs (run_id, drive_id, name, firmware, started, verdict, qualified,
           temperature_c, reallocated, pending, media_errors, power_on_hours, smart, findings)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
        params![
            run_id,
            drive_id,
            d.name,
            firmware,
            started,
            word,
            qualified,
            health.and_then(|h| h.temperature_c),
            as_i64(ata.and_then(|a| a.reallocated)),
            as_i64(ata.and_then(|a| a.pending)),
            as_i64(
                health
                    .and_then(|h| h.nvme.as_ref())
                    .and_then(|n| n.media_errors)
            ),
            as_i64(health.and_then(|h| h.power_on_hours)),
            d.smart.as_ref().and_then(|s| serde_json::to_string(s).ok()),
            serde_json::to_string(&verdict.findings).unwrap_or_else(|_| "[]".into()),
        ],
    )?;
    let dr = tx.last_insert_rowid();
    let mut ins = tx.prepare_cached(
        "INSERT INTO figures (drive_run_id, key, label, value, higher_is_better) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for f in figures {
        ins.execute(params![dr, f.key, f.label, f.value, f.higher_is_better])?;
    }
    Ok(())
}
