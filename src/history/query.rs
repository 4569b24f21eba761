//! What the database answers: the drives known, a drive's timeline, and what the
//! judge needs of a run's drives (the earlier drives of their models, their own
//! first qualification, their acknowledged findings); acknowledging a finding.

use super::{HistoryDb, Place};
use crate::results::{DiskResult, Finding, Severity};
use crate::verdict::earlier::{
    Acknowledgement, DriveHistory, EarlierDrive, History, ModelHistory, Qualification, code_name,
    code_named,
};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

/// A drive the database knows.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DriveRow {
    /// Its serial (None: a drive without one, in a file named with --history).
    pub serial: Option<String>,
    /// Its model.
    pub model: Option<String>,
    /// Its size in bytes (0 when only a SMART report was recorded).
    pub size_bytes: u64,
    /// Runs recorded.
    pub runs: u64,
    /// The last run's verdict: "pass", "fail", "not_tested" or "incomplete".
    pub last_verdict: Option<String>,
    /// The last run's time, seconds since the Unix epoch.
    pub last_seen_unix_s: i64,
}

/// One run of a drive, as its timeline shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRow {
    /// When it ran, seconds since the Unix epoch.
    pub started_unix_s: i64,
    /// The host that ran it.
    pub host: String,
    /// The name the drive was given (/dev/sdb).
    pub name: String,
    /// Its firmware then (SMART's), when read.
    pub firmware: Option<String>,
    /// "pass", "fail", "not_tested" or "incomplete".
    pub verdict: Option<String>,
    /// Whether the run judged its timings against a reference and it passed
    /// (it then serves as a reference).
    pub qualified: bool,
    /// SMART's temperature, °C.
    pub temperature_c: Option<i64>,
    /// Reallocated sectors (ATA 5).
    pub reallocated: Option<i64>,
    /// Pending sectors (ATA 197).
    pub pending: Option<i64>,
    /// NVMe media errors.
    pub media_errors: Option<i64>,
    /// Power-on hours.
    pub power_on_hours: Option<i64>,
    /// The comparable figures: label and value.
    pub figures: Vec<(String, f64)>,
    /// The failing findings and warnings, in words.
    pub findings: Vec<String>,
    /// seekprobe's version.
    pub version: String,
}

impl HistoryDb {
    /// Every drive known, by model then serial.
    pub fn drives(&self) -> Result<Vec<DriveRow>, String> {
        let fail = |e| self.fail("read the drives", e);
        let mut st = self
            .conn
            .prepare(
                // One max() aggregate: SQLite takes the bare column (verdict) from
                // the row with the latest start (sqlite.org/lang_select.html,
                // "bare columns in an aggregate query").
                "SELECT d.serial, d.model, d.size_bytes, COUNT(*), MAX(dr.started), dr.verdict
                 FROM drives d JOIN drive_runs dr ON dr.drive_id = d.id
                 GROUP BY d.id ORDER BY d.model, d.serial, d.id",
            )
            .map_err(fail)?;
        let rows = st
            .query_map([], |r| {
                Ok(DriveRow {
                    serial: r.get(0)?,
                    model: r.get(1)?,
                    size_bytes: r.get::<_, i64>(2)? as u64,
                    runs: r.get::<_, i64>(3)? as u64,
                    last_seen_unix_s: r.get(4)?,
                    last_verdict: r.get(5)?,
                })
            })
            .map_err(fail)?;
        rows.collect::<Result<_, _>>().map_err(fail)
    }

    /// The runs of the drive with this serial, oldest first.
    pub fn timeline(&self, serial: &str) -> Result<Vec<RunRow>, String> {
        let fail = |e| self.fail("read the drive's runs", e);
        let mut st = self
            .conn
            .prepare(
                "SELECT dr.id, dr.started, r.host, dr.name, dr.firmware, dr.verdict, dr.qualified,
                   dr.temperature_c, dr.reallocated, dr.pending, dr.media_errors,
                   dr.power_on_hours, dr.findings, r.version
                 FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id JOIN runs r ON r.id = dr.run_id
                 WHERE d.serial = ?1 ORDER BY dr.started, dr.id",
            )
            .map_err(fail)?;
        let mut fig = self
            .conn
            .prepare("SELECT label, value FROM figures WHERE drive_run_id = ?1 ORDER BY rowid")
            .map_err(fail)?;
        let rows: Vec<(i64, RunRow)> = st
            .query_map([serial], |r| {
                let findings: String = r.get(12)?;
                let findings: Vec<Finding> = serde_json::from_str(&findings).unwrap_or_default();
                Ok((
                    r.get(0)?,
                    RunRow {
                        started_unix_s: r.get(1)?,
                        host: r.get(2)?,
                        name: r.get(3)?,
                        firmware: r.get(4)?,
                        verdict: r.get(5)?,
                        qualified: r.get(6)?,
                        temperature_c: r.get(7)?,
                        reallocated: r.get(8)?,
                        pending: r.get(9)?,
                        media_errors: r.get(10)?,
                        power_on_hours: r.get(11)?,
                        figures: Vec::new(),
                        findings: findings
                            .into_iter()
                            .filter(|f| f.severity != Severity::Note)
                            .map(|f| f.reason)
                            .collect(),
                        version: r.get(13)?,
                    },
                ))
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, mut row) in rows {
            row.figures = fig
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(fail)?
                .collect::<Result<_, _>>()
                .map_err(fail)?;
            out.push(row);
        }
        Ok(out)
    }

    /// What the judge needs to know of `disks` (a run's, in order): the earlier
    /// passing drives of their models (none of the run's), each drive's own first
    /// qualification and its acknowledged findings. Drives the place does not
    /// take get nothing.
    pub fn history(&self, disks: &[&DiskResult]) -> Result<History, String> {
        let serial = |d: &DiskResult| -> Option<String> {
            d.info
                .as_ref()?
                .ident
                .clone()
                .filter(|s| !s.trim().is_empty())
        };
        let batch: Vec<String> = disks.iter().filter_map(|d| serial(d)).collect();
        let mut out = History::default();
        for d in disks {
            let mut h = DriveHistory::default();
            if self.place.takes(d)
                && let Some(s) = serial(d)
            {
                let model = crate::verdict::batch::identity(d).model;
                if let Some(m) = &model
                    && !out.models.iter().any(|x| &x.model == m)
                {
                    out.models.push(self.model_history(m, &batch)?);
                }
                h.first_qualification = self.first_qualification(&s, model.as_deref())?;
                let own = d.info.as_ref().and_then(|i| i.identity().model);
                h.acknowledged = self.acknowledged(&s, own.as_deref())?;
            }
            out.drives.push(h);
        }
        Ok(out)
    }

    fn figures(&self, drive_run: i64) -> Result<Vec<(String, f64)>, String> {
        let fail = |e| self.fail("read figures", e);
        let mut st = self
            .conn
            .prepare_cached("SELECT key, value FROM figures WHERE drive_run_id = ?1")
            .map_err(fail)?;
        st.query_map([drive_run], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)
    }

    /// The latest passing qualification of each earlier drive of `model`, but
    /// those of `batch`; simulated drives only in a file named with --history.
    fn model_history(&self, model: &str, batch: &[String]) -> Result<ModelHistory, String> {
        let fail = |e| self.fail("read the model's drives", e);
        let named = matches!(self.place, Place::Named(_));
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT d.serial, dr.id FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id
                 WHERE d.model = ?1 AND dr.qualified = 1 AND d.serial IS NOT NULL
                   AND (?2 OR d.simulated = 0) AND instr(dr.findings, '\"code\":\"acknowledged\"') = 0
                 ORDER BY dr.started DESC, dr.id DESC",
            )
            .map_err(fail)?;
        let rows: Vec<(String, i64)> = st
            .query_map(params![model, named], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        let mut drives: Vec<EarlierDrive> = Vec::new();
        for (serial, id) in rows {
            if batch.contains(&serial) || drives.iter().any(|d| d.serial == serial) {
                continue;
            }
            drives.push(EarlierDrive {
                serial,
                figures: self.figures(id)?,
            });
        }
        Ok(ModelHistory {
            model: model.to_string(),
            drives,
        })
    }

    /// The drive's first passing qualification: when, and its figures.
    fn first_qualification(
        &self,
        serial: &str,
        model: Option<&str>,
    ) -> Result<Option<Qualification>, String> {
        let fail = |e| self.fail("read the drive's runs", e);
        let first: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT dr.id, dr.started FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id
                 WHERE d.serial = ?1 AND d.model IS ?2 AND dr.qualified = 1 AND instr(dr.findings, '\"code\":\"acknowledged\"') = 0
                 ORDER BY dr.started, dr.id LIMIT 1",
                params![serial, model],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(fail)?;
        match first {
            Some((id, at)) => Ok(Some((super::utc(at), self.figures(id)?))),
            None => Ok(None),
        }
    }

    /// The findings of the drive `serial` of `model` (as the drives table holds
    /// it) acknowledged and not undone.
    pub fn acknowledged(
        &self,
        serial: &str,
        model: Option<&str>,
    ) -> Result<Vec<Acknowledgement>, String> {
        let fail = |e| self.fail("read the acknowledgements", e);
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT code, reason, who, at FROM acks WHERE serial = ?1 AND model IS ?2 AND undone_at IS NULL ORDER BY id",
            )
            .map_err(fail)?;
        let rows: Vec<(String, String, String, i64)> = st
            .query_map(params![serial, model], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .map_err(fail)?
            .collect::<Result<_, _>>()
            .map_err(fail)?;
        Ok(rows
            .into_iter()
            .filter_map(|(code, reason, who, at)| {
                Some(Acknowledgement {
                    code: code_named(&code)?,
                    reason,
                    who,
                    at: super::utc(at),
                })
            })
            .collect())
    }

    /// Accept the findings with code `code` of the drive's last run at their
    /// figures, for that drive (its serial and model). Ok(the reasons
    /// acknowledged); Err when the drive or a finding with that code is not
    /// there (saying what is), or the finding cannot be acknowledged
    /// ([`crate::verdict::earlier::ackable`]: it counts nothing that could change).
    pub fn ack(&mut self, serial: &str, code: &str, who: &str) -> Result<Vec<String>, String> {
        let fail = |e| self.fail("acknowledge", e);
        let Some(c) = code_named(code) else {
            return Err(format!(
                "{code}: not a finding code; docs/verdict.md lists them (e.g. smart, worse_than_reference)"
            ));
        };
        type Last = (String, Option<String>, Option<String>);
        let last: Option<Last> = self
            .conn
            .query_row(
                "SELECT dr.findings, dr.smart, d.model FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id
                 WHERE d.serial = ?1 ORDER BY dr.started DESC, dr.id DESC LIMIT 1",
                [serial],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(fail)?;
        let Some((last, smart, model)) = last else {
            return Err(format!(
                "no drive with serial {serial} in {}; `seekprobe history` lists the drives",
                self.path.display()
            ));
        };
        let findings: Vec<Finding> = serde_json::from_str(&last).unwrap_or_default();
        let matching: Vec<&Finding> = findings
            .iter()
            .filter(|f| f.code == c && f.severity != Severity::Note)
            .collect();
        if matching.is_empty() {
            let codes: Vec<String> = findings
                .iter()
                .filter(|f| f.severity != Severity::Note)
                .map(|f| code_name(f.code))
                .collect();
            return Err(format!(
                "the last run of {serial} has no finding {code} to acknowledge (its findings: {})",
                if codes.is_empty() {
                    "none".into()
                } else {
                    codes.join(", ")
                }
            ));
        }
        let rules = smart
            .and_then(|s| serde_json::from_str::<crate::results::smart::SmartResult>(&s).ok())
            .map(|s| s.findings)
            .unwrap_or_default();
        for f in &matching {
            if let Err(why) = crate::verdict::earlier::ackable(f, &rules) {
                return Err(format!(
                    "{code} of {serial} cannot be acknowledged ({}): {why}",
                    f.reason
                ));
            }
        }
        let now = super::now();
        for f in &matching {
            self.conn
                .execute(
                    "INSERT INTO acks (serial, model, code, reason, who, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    params![serial, model, code, f.reason, who, now],
                )
                .map_err(fail)?;
        }
        Ok(matching.iter().map(|f| f.reason.clone()).collect())
    }

    /// Undo the drive's acknowledgements of `code`. Ok(how many were undone).
    pub fn unack(&mut self, serial: &str, code: &str, who: &str) -> Result<usize, String> {
        let fail = |e| self.fail("undo the acknowledgement", e);
        self.conn
            .execute(
                "UPDATE acks SET undone_by = ?3, undone_at = ?4
                 WHERE serial = ?1 AND code = ?2 AND undone_at IS NULL",
                params![serial, code, who, super::now()],
            )
            .map_err(fail)
    }
}
