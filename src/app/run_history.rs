//! The run's side of the drive history (docs/history.md): open the database when
//! it takes one of the run's drives, hand the judge what it knows, and record the
//! run at its end. A database that cannot be used is named once on stderr and
//! left alone; the run, its verdicts and its exit status are the same as without.

use crate::history::{HistoryDb, Origin, Place};
use crate::results::{DiskResult, Run};
use crate::verdict::earlier::History;
use std::io::{self, Write};
use std::path::PathBuf;

/// The database of a run, while it can be used.
pub(super) struct RunHistory {
    db: Option<HistoryDb>,
}

/// The place `--history FILE` and `--no-history` choose, from the matches.
pub(super) fn place(m: &clap::ArgMatches) -> Place {
    let file = m.get_one::<PathBuf>("history");
    Place::choose(file.map(PathBuf::as_path), m.get_flag("no_history"))
}

impl RunHistory {
    /// Open the database of `place` if it takes one of `run`'s drives (a run of
    /// simulated drives or loop devices never touches the default file).
    pub(super) fn open(place: &Place, run: &Run, err: &mut dyn Write) -> io::Result<RunHistory> {
        if !run.disks.iter().any(|d| place.records(d)) {
            return Ok(RunHistory { db: None });
        }
        match HistoryDb::open(place) {
            Ok(l) => Ok(RunHistory { db: Some(l) }),
            Err(e) => {
                say(err, &e)?;
                Ok(RunHistory { db: None })
            }
        }
    }

    /// What the history knows of the run's drives (nothing without a database).
    pub(super) fn earlier(&mut self, run: &Run, err: &mut dyn Write) -> io::Result<History> {
        let Some(l) = &self.db else {
            return Ok(History::default());
        };
        let disks: Vec<&DiskResult> = run.disks.iter().collect();
        match l.history(&disks) {
            Ok(h) => Ok(h),
            Err(e) => {
                self.db = None;
                say(err, &e)?;
                Ok(History::default())
            }
        }
    }

    /// Record the run, as it ends.
    pub(super) fn record(
        &mut self,
        run: &Run,
        command: &[String],
        err: &mut dyn Write,
    ) -> io::Result<()> {
        let Some(l) = &mut self.db else {
            return Ok(());
        };
        let origin = Origin {
            host: crate::history::host(),
            command: command.join(" "),
            source: "recorded".into(),
        };
        if let Err(e) = l.record(run, &origin) {
            self.db = None;
            say(err, &e)?;
        }
        Ok(())
    }
}

fn say(err: &mut dyn Write, e: &str) -> io::Result<()> {
    writeln!(
        err,
        "seekprobe: {e}; this run is neither recorded in the drive history nor judged with it"
    )
}

/// `seekprobe smart` with `--history FILE` (a saved report is recorded only in a
/// file named so: `history import` takes saved runs): the drive's acknowledged
/// findings become notes, and the report is recorded as a run of its drive.
pub(super) struct SmartHistory {
    db: Option<HistoryDb>,
}

impl SmartHistory {
    /// Open the file `--history` names (none: nothing to do).
    pub(super) fn open(
        file: &crate::cli::HistoryFileArgs,
        err: &mut dyn Write,
    ) -> io::Result<SmartHistory> {
        let Some(path) = file.history.as_ref().filter(|_| !file.no_history) else {
            return Ok(SmartHistory { db: None });
        };
        match HistoryDb::open(&Place::Named(path.clone())) {
            Ok(l) => Ok(SmartHistory { db: Some(l) }),
            Err(e) => {
                say(err, &e)?;
                Ok(SmartHistory { db: None })
            }
        }
    }

    /// The health rules' findings with the acknowledged ones of the drive (its
    /// serial and model) as notes (through the verdict's `acknowledge`, one
    /// verdict finding per rule's).
    pub(super) fn acknowledge(
        &mut self,
        (serial, model): (Option<&str>, Option<&str>),
        mut rules: Vec<crate::results::Finding>,
        err: &mut dyn Write,
    ) -> io::Result<Vec<crate::results::Finding>> {
        let (Some(l), Some(serial)) = (&self.db, serial) else {
            return Ok(rules);
        };
        let acks = match l.acknowledged(serial, model) {
            Ok(a) => a,
            Err(e) => {
                self.db = None;
                say(err, &e)?;
                return Ok(rules);
            }
        };
        let judged = crate::verdict::smart_rule_findings(&rules);
        let seen = crate::verdict::earlier::acknowledge(judged.clone(), &acks, &rules);
        for ((r, before), after) in rules.iter_mut().zip(&judged).zip(seen) {
            if after.reason != before.reason {
                r.reason = after.reason.trim_start_matches("SMART: ").to_string();
                if after.code == crate::results::Code::Acknowledged {
                    r.severity = crate::results::Severity::Note;
                }
            }
        }
        Ok(rules)
    }

    /// Record the report as a run of its drive: its identity, SMART and verdict.
    pub(super) fn record(
        &mut self,
        (before, after): (
            &crate::results::health::Health,
            Option<&crate::results::health::Health>,
        ),
        rules: &[crate::results::Finding],
        command: &[std::ffi::OsString],
        err: &mut dyn Write,
    ) -> io::Result<()> {
        use crate::results::device::{DeviceInfo, TargetKind};
        let Some(l) = &mut self.db else {
            return Ok(());
        };
        let now = after.unwrap_or(before);
        let name = now
            .device
            .clone()
            .unwrap_or_else(|| "smartctl report".into());
        let mut info = DeviceInfo::new(&name, &name, TargetKind::File);
        info.ident = now.serial.clone();
        info.descr = now.model.clone();
        let mut d = DiskResult::new(&name);
        d.info = Some(info);
        d.smart = Some(crate::results::smart::SmartResult {
            before: Some(before.clone()),
            after: after.cloned(),
            findings: rules.to_vec(),
            ..Default::default()
        });
        d.verdict = Some(crate::verdict::judge(crate::verdict::smart_rule_findings(
            rules,
        )));
        let run = Run {
            schema_version: crate::results::SCHEMA_VERSION,
            tool: "seekprobe".into(),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            tests: Vec::new(),
            verbose: false,
            settle_s: 0.0,
            disks: vec![d],
            started_unix_s: Some(crate::history::now() as u64),
            burn_in: None,
            record: Default::default(),
        };
        let command: Vec<String> = command
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let origin = Origin {
            host: crate::history::host(),
            command: format!("seekprobe {}", command.join(" ")),
            source: "recorded".into(),
        };
        if let Err(e) = l.record(&run, &origin) {
            self.db = None;
            say(err, &e)?;
        }
        Ok(())
    }
}

/// What a file named with `--history FILE` knows of saved runs' drives (`compare
/// --qualify`: a model with too few drives in the runs is judged against its
/// earlier drives there): it reads, never records nor creates (`history import`
/// records). Nothing without the option, or when there is no such file.
pub(super) fn of_saved(
    file: &crate::cli::HistoryFileArgs,
    disks: &[&DiskResult],
    err: &mut dyn Write,
) -> io::Result<History> {
    let Some(path) = file.history.as_ref().filter(|_| !file.no_history) else {
        return Ok(History::default());
    };
    match HistoryDb::open_existing(&Place::Named(path.clone()))
        .and_then(|l| l.map_or_else(|| Ok(History::default()), |l| l.history(disks)))
    {
        Ok(h) => Ok(h),
        Err(e) => {
            say(err, &e)?;
            Ok(History::default())
        }
    }
}

/// Each drive's earlier runs in a file named with `--history FILE` (`report`),
/// by serial, oldest first: the runs given are left out. Nothing without the
/// option, or when there is no such file (it is read, never created).
pub(super) fn earlier_runs(
    file: &crate::cli::HistoryFileArgs,
    runs: &[&Run],
    err: &mut dyn Write,
) -> io::Result<Vec<(String, Vec<crate::report::html::drive::EarlierRun>)>> {
    use crate::report::html::drive::EarlierRun;
    let Some(path) = file.history.as_ref().filter(|_| !file.no_history) else {
        return Ok(Vec::new());
    };
    let db = match HistoryDb::open_existing(&Place::Named(path.clone())) {
        Ok(Some(l)) => l,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => {
            say(err, &e)?;
            return Ok(Vec::new());
        }
    };
    let shown: Vec<i64> = runs
        .iter()
        .filter_map(|r| r.started_unix_s)
        .map(|s| s as i64)
        .collect();
    let mut out = Vec::new();
    for d in runs.iter().flat_map(|r| &r.disks) {
        let Some(serial) = d.info.as_ref().and_then(|i| i.ident.clone()) else {
            continue;
        };
        if out.iter().any(|(s, _)| s == &serial) {
            continue;
        }
        let rows = match db.timeline(&serial) {
            Ok(r) => r,
            Err(e) => {
                say(err, &e)?;
                return Ok(Vec::new());
            }
        };
        let earlier: Vec<EarlierRun> = rows
            .into_iter()
            .filter(|r| !shown.contains(&r.started_unix_s))
            .map(|r| EarlierRun {
                when: crate::history::utc(r.started_unix_s),
                host: r.host,
                verdict: r.verdict.unwrap_or_default().to_uppercase(),
                figures: r
                    .figures
                    .iter()
                    .take(4)
                    .map(|(l, v)| format!("{l} {}", crate::compare::fmt_value(*v)))
                    .collect::<Vec<_>>()
                    .join("; "),
            })
            .collect();
        if !earlier.is_empty() {
            out.push((serial, earlier));
        }
    }
    Ok(out)
}
