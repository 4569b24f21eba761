//! `seekprobe plan`'s command line (clap) and the vdev shape it takes
//! (`--layout mirror|mirror:N|raidz1:N|raidz2:N|raidz3:N|raid6:N|stripe`).

use clap::Parser;
use serde::Serialize;
use std::path::PathBuf;

/// `seekprobe plan RUN.json... --layout L`: the command that builds the pool from
/// the drives of saved runs, and why; nothing is run (docs/plan.md).
#[derive(Debug, Parser)]
#[command(name = "seekprobe plan", bin_name = "seekprobe plan", version = env!("SEEKPROBE_VERSION"))]
#[command(
    after_help = "Exit status: 0 when the command is printed (with warnings or not), 3 when no command can be made of the drives (none passed, or too few for one vdev; each drive's reason is printed), 1 when a run cannot be read or the options cannot be used."
)]
pub struct PlanArgs {
    /// Runs saved with --json-file (a burn-in or a --qualify run; with
    /// --path-check, the drives' paths)
    #[arg(value_name = "RUN.json", required = true)]
    pub files: Vec<PathBuf>,

    /// The vdev shape: mirror (2-way), mirror:N, raidz1:N, raidz2:N, raidz3:N
    /// (N drives a vdev), raid6:N (raidz2:N), or stripe (no redundancy)
    #[arg(long, value_name = "L", value_parser = Shape::parse)]
    pub layout: Shape,

    /// Hot spares to set aside (the slowest drives first)
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub spares: usize,

    /// Also take drives whose verdict is PASS with warnings
    #[arg(long)]
    pub with_warnings: bool,

    /// Whose command: zpool create (zfs) or mdadm --create (mdadm: mirror and
    /// raid6 shapes)
    #[arg(
        long = "for",
        value_enum,
        default_value = "zfs",
        value_name = "zfs|mdadm"
    )]
    pub target: PoolTool,

    /// The pool's name (mdadm: the array's, /dev/md/NAME)
    #[arg(long, value_name = "NAME", default_value = "tank", value_parser = pool_name)]
    pub name: String,

    /// Print the plan as JSON (docs/plan.md)
    #[arg(long)]
    pub json: bool,
}

/// Whose command the plan prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum PoolTool {
    /// OpenZFS: `zpool create`.
    Zfs,
    /// Linux software RAID: `mdadm --create`.
    Mdadm,
}

/// What kind of vdev.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum VdevKind {
    /// Every drive of the vdev holds the same data.
    Mirror,
    /// Striped with this many drives of parity (1 to 3).
    Raidz(u8),
    /// Each drive a vdev of its own: no redundancy.
    Stripe,
}

/// A vdev shape: its kind and how many drives each vdev holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Mirror, raidz or stripe.
    pub kind: VdevKind,
    /// Drives a vdev.
    pub width: usize,
}

impl Shape {
    /// Parse `mirror`, `mirror:N`, `raidz:N` (raidz1), `raidz1:N` to `raidz3:N`,
    /// `raid6:N` (raidz2) or `stripe`; the width at least one more than the drives
    /// the vdev may lose, at most 255 (zpool's limit on a vdev's children).
    pub fn parse(s: &str) -> Result<Shape, String> {
        let (word, n) = match s.split_once(':') {
            Some((w, n)) => (w, Some(n)),
            None => (s, None),
        };
        let width = match n {
            None => None,
            Some(n) => Some(n.parse::<usize>().map_err(|_| {
                format!("{s:?}: the width after ':' is a number of drives, e.g. raidz2:6")
            })?),
        };
        let kind = match word {
            "mirror" => VdevKind::Mirror,
            "raidz" | "raidz1" => VdevKind::Raidz(1),
            "raidz2" | "raid6" => VdevKind::Raidz(2),
            "raidz3" => VdevKind::Raidz(3),
            "stripe" if width.is_none() => VdevKind::Stripe,
            "stripe" => {
                return Err(format!(
                    "{s:?}: a stripe takes no width (each drive is a vdev)"
                ));
            }
            _ => {
                return Err(format!(
                    "{s:?}: not a layout; give mirror, mirror:N, raidz1:N, raidz2:N, raidz3:N, raid6:N or stripe"
                ));
            }
        };
        let width = match (kind, width) {
            (VdevKind::Mirror, None) => 2,
            (VdevKind::Stripe, _) => 1,
            (VdevKind::Raidz(_), None) => {
                return Err(format!("{s:?}: give the vdev's width, e.g. {word}:6"));
            }
            (_, Some(w)) => w,
        };
        let shape = Shape { kind, width };
        let least = match kind {
            VdevKind::Mirror => 2,
            _ => shape.redundancy() + 1,
        };
        if width < least || width > 255 {
            return Err(format!(
                "{s:?}: a {} vdev holds {} to 255 drives",
                shape.word(),
                least
            ));
        }
        Ok(shape)
    }

    /// How many drives a vdev may lose and keep its data.
    pub fn redundancy(&self) -> usize {
        match self.kind {
            VdevKind::Mirror => self.width - 1,
            VdevKind::Raidz(p) => usize::from(p),
            VdevKind::Stripe => 0,
        }
    }

    /// zpool's word for the vdev (`mirror`, `raidz2`; `stripe` for a lone drive).
    pub fn word(&self) -> String {
        match self.kind {
            VdevKind::Mirror => "mirror".into(),
            VdevKind::Raidz(p) => format!("raidz{p}"),
            VdevKind::Stripe => "stripe".into(),
        }
    }

    /// As `--layout` takes it: `raidz2:6`, `mirror:3`, `stripe`.
    pub fn label(&self) -> String {
        match self.kind {
            VdevKind::Stripe => "stripe".into(),
            _ => format!("{}:{}", self.word(), self.width),
        }
    }
}

/// A pool name zpool accepts (zpool-create(8), OpenZFS's `pool_namecheck`): a
/// letter first, then letters, digits, `_`, `-`, `.` or `:`; not one of the
/// reserved words mirror, raidz, draid, spare and log, not beginning with mirror,
/// raidz, draid or spare, and not `c` and a digit (a disk-like name).
fn pool_name(s: &str) -> Result<String, String> {
    let ok = s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
    let reserved = s == "log"
        || ["mirror", "raidz", "draid", "spare"]
            .iter()
            .any(|w| s.starts_with(w));
    let disk_like = s.len() > 1 && s.starts_with('c') && s.as_bytes()[1].is_ascii_digit();
    if !ok || reserved || disk_like {
        return Err(format!(
            "{s:?}: a pool name starts with a letter, holds letters, digits, '_', '-', '.' or ':', is not log, does not start with mirror, raidz, draid or spare, nor with c and a digit (zpool-create(8))"
        ));
    }
    Ok(s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_parse_with_their_widths_and_redundancy() {
        let p = |s: &str| Shape::parse(s).map(|s| (s.word(), s.width, s.redundancy()));
        assert_eq!(p("mirror"), Ok(("mirror".into(), 2, 1)));
        assert_eq!(p("mirror:3"), Ok(("mirror".into(), 3, 2)));
        assert_eq!(p("raidz2:6"), Ok(("raidz2".into(), 6, 2)));
        assert_eq!(p("raid6:8"), Ok(("raidz2".into(), 8, 2)));
        assert_eq!(p("raidz:3"), Ok(("raidz1".into(), 3, 1)));
        assert_eq!(p("stripe"), Ok(("stripe".into(), 1, 0)));
        for bad in [
            "raidz2", "raidz2:2", "mirror:1", "raidz4:6", "stripe:3", "raidz2:x",
        ] {
            assert!(Shape::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn pool_names_follow_zpool() {
        assert!(pool_name("tank").is_ok());
        assert!(pool_name("data-1").is_ok());
        assert!(pool_name("1tank").is_err());
        assert!(pool_name("mirror0").is_err());
        assert!(pool_name("ta nk").is_err());
        assert!(pool_name("logs").is_ok());
        assert!(pool_name("log").is_err());
        assert!(pool_name("spares").is_err());
        assert!(pool_name("draid2").is_err());
        assert!(pool_name("c0").is_err());
        assert!(pool_name("c1t0d0").is_err());
        assert!(pool_name("cache").is_ok());
        assert!(pool_name("c").is_ok());
    }
}
