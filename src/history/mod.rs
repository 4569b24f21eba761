//! The drive history: an embedded SQLite database (rusqlite's bundled SQLite) of
//! every drive qualified, at the side of the run (docs/history.md). It records a
//! run's results (plain `results` data) and answers queries: the drives known, a
//! drive's timeline, the earlier drives of a model, a drive's own first
//! qualification and its acknowledged findings. It hands the judge plain data
//! ([`crate::verdict::earlier::History`]) and decides nothing itself.
//!
//! A database that cannot be opened or written (read-only, corrupt, a full disk,
//! a newer schema) is an `Err` with the reason; the caller names it once and the
//! run goes on unchanged.

mod import;
mod query;
mod save_run;
mod schema;
pub mod show;

pub use import::{ImportSource, import, read};
pub use query::{DriveRow, RunRow};
pub use save_run::Origin;
pub use schema::SCHEMA;

use crate::results::DiskResult;
use crate::results::device::TargetKind;
use rusqlite::Connection;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another process's write to end before giving up
/// (SQLite's busy timeout): parallel runs recording at once wait, they lose nothing.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// Which database a command uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// `--no-history`: none.
    Off,
    /// The default file (root: /var/lib/seekprobe/history.db; else under
    /// `$XDG_DATA_HOME/seekprobe/`): real drives only.
    Default(PathBuf),
    /// `--history FILE`: any drive, simulated ones and those without a serial too.
    Named(PathBuf),
}

impl Place {
    /// The place `--history FILE` and `--no-history` choose (Off when there is no
    /// default: no HOME and not root).
    pub fn choose(file: Option<&Path>, off: bool) -> Place {
        match (file, off) {
            (_, true) => Place::Off,
            (Some(f), false) => Place::Named(f.to_path_buf()),
            (None, false) => default_path().map_or(Place::Off, Place::Default),
        }
    }

    /// The file, unless history is off.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Place::Off => None,
            Place::Default(p) | Place::Named(p) => Some(p),
        }
    }

    /// Whether this drive's run is recorded here: a drive [`Place::takes`] that
    /// was measured or read (a test, SMART, a burn-in step; `seekprobe -s` and a
    /// description alone are not recorded).
    pub fn records(&self, d: &DiskResult) -> bool {
        self.takes(d) && (!d.tests.is_empty() || d.smart.is_some() || !d.burn_in.is_empty())
    }

    /// Whether this drive is recorded here, and may serve as a reference: any in
    /// a file named with `--history`; in the default file only a real drive with
    /// a serial and a model (a simulated drive, a loop device or an image never
    /// changes how a real drive is judged).
    pub fn takes(&self, d: &DiskResult) -> bool {
        let Some(info) = &d.info else { return false };
        match self {
            Place::Off => false,
            Place::Named(_) => true,
            Place::Default(_) => {
                let id = info.identity();
                info.kind != TargetKind::Simulated
                    && info.simulated.is_none()
                    && id.serial.as_deref().is_some_and(|s| !s.trim().is_empty())
                    && id.model.as_deref().is_some_and(|m| !m.trim().is_empty())
            }
        }
    }
}

/// The default database: /var/lib/seekprobe/history.db for root, else
/// `$XDG_DATA_HOME/seekprobe/history.db` or `~/.local/share/seekprobe/history.db`.
pub fn default_path() -> Option<PathBuf> {
    if nix::unistd::geteuid().is_root() {
        return Some(PathBuf::from("/var/lib/seekprobe/history.db"));
    }
    let abs = |v: Option<std::ffi::OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let data = abs(std::env::var_os("XDG_DATA_HOME"))
        .or_else(|| abs(std::env::var_os("HOME")).map(|h| h.join(".local/share")))?;
    Some(data.join("seekprobe/history.db"))
}

/// An open history database.
pub struct HistoryDb {
    conn: Connection,
    path: PathBuf,
    /// Where it is: what it takes, and whether simulated drives serve as
    /// references (only in a file named with `--history`).
    place: Place,
}

impl HistoryDb {
    /// Open (or create) the database of `place`, upgrading an older schema. Err:
    /// why it cannot be used, naming the file.
    pub fn open(place: &Place) -> Result<HistoryDb, String> {
        let path = place.path().ok_or("history is off (--no-history)")?;
        let named = matches!(place, Place::Named(_));
        if !named && let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| {
                format!(
                    "history database {}: cannot create {}: {e}",
                    path.display(),
                    dir.display()
                )
            })?;
        }
        HistoryDb::connect(place, Connection::open(path))
    }

    /// Open the database of `place` to read it: Ok(None) when there is no such
    /// file (reading creates nothing, neither the file nor its directory).
    pub fn open_existing(place: &Place) -> Result<Option<HistoryDb>, String> {
        use rusqlite::OpenFlags;
        let path = place.path().ok_or("history is off (--no-history)")?;
        if !path.exists() {
            return Ok(None);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        HistoryDb::connect(place, Connection::open_with_flags(path, flags)).map(Some)
    }

    fn connect(place: &Place, conn: rusqlite::Result<Connection>) -> Result<HistoryDb, String> {
        let path = place.path().ok_or("history is off (--no-history)")?;
        let shown = path.display();
        let mut conn =
            conn.map_err(|e| format!("history database {shown}: cannot open it: {e}"))?;
        schema::prepare(&mut conn).map_err(|e| format!("history database {shown}: {e}"))?;
        Ok(HistoryDb {
            conn,
            path: path.to_path_buf(),
            place: place.clone(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> String {
        format!(
            "history database {}: cannot {what}: {e}",
            self.path.display()
        )
    }
}

/// The user who acknowledges a finding: the one sudo names, else the login name,
/// else the user id.
pub fn who() -> String {
    ["SUDO_USER", "USER", "LOGNAME"]
        .iter()
        .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| format!("uid {}", nix::unistd::getuid()))
}

/// This host's name (empty when it cannot be read).
pub fn host() -> String {
    nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Seconds since the Unix epoch as UTC text, "2026-12-01 15:40 UTC".
pub fn utc(secs: i64) -> String {
    crate::clock::utc_minutes(secs)
}

/// Now, in seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_text_is_the_civil_date() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(1_796_139_600), "2026-12-01 15:40 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
    }

    #[test]
    fn the_default_file_takes_only_real_drives_with_a_serial_and_a_model() {
        use crate::results::device::DeviceInfo;
        let mut d = DiskResult::new("x");
        let mut info = DeviceInfo::new("x", "x", TargetKind::Disk);
        info.ident = Some("S1".into());
        info.descr = Some("M".into());
        d.info = Some(info);
        let def = Place::Default("h.db".into());
        assert!(def.takes(&d));
        assert!(!Place::Off.takes(&d));
        d.info.as_mut().unwrap().descr = None;
        assert!(!def.takes(&d));
        assert!(Place::Named("h.db".into()).takes(&d));
        d.info.as_mut().unwrap().kind = TargetKind::Simulated;
        assert!(!def.takes(&d));
    }
}
