//! The run's side of the drive history (docs/history.md): open the database when
//! it takes one of the run's drives, hand the judge what it knows, and record the
//! run at its end. A database that cannot be used is named once on stderr and
//! left alone; the run, its verdicts and its exit status are the same as without.

use crate::ledger::{Ledger, Origin, Place};
use crate::results::{DiskResult, Run};
use crate::verdict::earlier::History;
use std::io::{self, Write};
use std::path::PathBuf;

/// The database of a run, while it can be used.
pub(super) struct RunHistory {
    ledger: Option<Ledger>,
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
        if !run.disks.iter().any(|d| place.takes(d)) {
            return Ok(RunHistory { ledger: None });
        }
        match Ledger::open(place) {
            Ok(l) => Ok(RunHistory { ledger: Some(l) }),
            Err(e) => {
                say(err, &e)?;
                Ok(RunHistory { ledger: None })
            }
        }
    }

    /// What the history knows of the run's drives (nothing without a database).
    pub(super) fn earlier(&mut self, run: &Run, err: &mut dyn Write) -> io::Result<History> {
        let Some(l) = &self.ledger else {
            return Ok(History::default());
        };
        let disks: Vec<&DiskResult> = run.disks.iter().collect();
        match l.history(&disks) {
            Ok(h) => Ok(h),
            Err(e) => {
                self.ledger = None;
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
        let Some(l) = &mut self.ledger else {
            return Ok(());
        };
        let origin = Origin {
            host: crate::ledger::host(),
            command: command.join(" "),
            source: "recorded".into(),
        };
        if let Err(e) = l.record(run, &origin) {
            self.ledger = None;
            say(err, &e)?;
        }
        Ok(())
    }
}

fn say(err: &mut dyn Write, e: &str) -> io::Result<()> {
    writeln!(
        err,
        "seekprobe: {e}; the drive history is left out of this run (--no-history says so quietly)"
    )
}
