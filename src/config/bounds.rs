//! Each option's range, read from its declaration ([`crate::cli::Range`], in
//! cli/probe.rs and cli/shared.rs) and checked once, the message naming the option
//! as it is written and the range: no option is named here.

use super::ConfigError;
use super::flags::flag;
use crate::cli::{Args, Range};
use crate::results::settings::Deviation;

/// The smallest logical sector: a [`Range::Sectors`] value is a whole number of
/// it, so that no drive rounds it silently.
const SECTOR: u64 = 512;

/// The longest time a [`Range::Seconds`] option takes: an hour.
const MAX_SECONDS: f64 = 3600.0;

/// An option's value as clap holds it: a whole number or a real one.
#[derive(Debug, Clone, Copy)]
pub(super) enum Value {
    /// An integer option's.
    Whole(i128),
    /// A time's, a percentage's.
    Real(f64),
}

/// Check every declared option's value in `m` (given, or its default) against
/// its range, in the declarations' order: the first out of range is the error.
pub(super) fn check_all(m: &clap::ArgMatches) -> Result<(), ConfigError> {
    for (id, o) in Args::declared() {
        if o.range == Range::Any {
            continue;
        }
        if let Some(v) = value(m, id) {
            check(id, o.range, v)?;
        }
    }
    Ok(())
}

/// The value of the option with clap id `id` in `m`, of whichever number type it
/// is declared; None when it has none (an `Option` not given).
fn value(m: &clap::ArgMatches, id: &str) -> Option<Value> {
    if let Ok(v) = m.try_get_one::<u32>(id) {
        return v.map(|v| Value::Whole((*v).into()));
    }
    if let Ok(v) = m.try_get_one::<u64>(id) {
        return v.map(|v| Value::Whole((*v).into()));
    }
    if let Ok(v) = m.try_get_one::<i64>(id) {
        return v.map(|v| Value::Whole((*v).into()));
    }
    m.try_get_one::<f64>(id)
        .ok()
        .flatten()
        .map(|v| Value::Real(*v))
}

/// Check value `v` of the option with clap id `id` against its declared range
/// (none for an id not declared).
pub(super) fn check_declared(id: &str, v: Value) -> Result<(), ConfigError> {
    match Args::option(id) {
        Some(o) => check(id, o.range, v),
        None => Ok(()),
    }
}

/// Check value `v` of option `id` against `range`; Err names the option and the
/// range.
fn check(id: &str, range: Range, v: Value) -> Result<(), ConfigError> {
    let name = flag(id);
    let shown = match v {
        Value::Whole(n) => n.to_string(),
        Value::Real(r) => r.to_string(),
    };
    let (whole, real) = match v {
        Value::Whole(n) => (n, n as f64),
        Value::Real(r) => (r as i128, r),
    };
    match range {
        Range::Any => Ok(()),
        Range::Count { lo, hi } if !(i128::from(lo)..=i128::from(hi)).contains(&whole) => {
            Err(ConfigError::OutOfRange(name, shown, lo, hi))
        }
        Range::Seconds { min_ms } => {
            let min = min_ms as f64 / 1000.0;
            if real.is_finite() && (min..=MAX_SECONDS).contains(&real) {
                Ok(())
            } else {
                Err(ConfigError::BadSeconds(name, shown, min))
            }
        }
        Range::Millis { max } if !(real.is_finite() && real > 0.0 && real <= max as f64) => {
            Err(ConfigError::BadMillis(name, shown, max))
        }
        Range::Bytes if whole == 0 => Err(ConfigError::Zero(name)),
        Range::Sectors { max } => {
            if let Some(max) = max
                && !(i128::from(SECTOR)..=i128::from(max)).contains(&whole)
            {
                return Err(ConfigError::BadSize(name, shown, size(max)));
            }
            let v = whole as u64;
            if !v.is_multiple_of(SECTOR) {
                let below = v / SECTOR * SECTOR;
                return Err(ConfigError::NotSectors(name, v, below, below + SECTOR));
            }
            Ok(())
        }
        Range::Percent if Deviation::from_percent(real).is_none() => {
            Err(ConfigError::BadPercent(name, shown))
        }
        Range::BadBlocksSize => {
            let bytes = u32::try_from(whole)
                .map_err(|_| ConfigError::Parse(format!("{name} {shown}: too large")))?;
            crate::stamps::badblocks::check_block_size(bytes)
                .map_err(|e| ConfigError::Parse(e.to_string()))
        }
        Range::Count { .. } | Range::Millis { .. } | Range::Bytes | Range::Percent => Ok(()),
    }
}

/// A size as a range's message shows it: whole MiB as `64M`, else bytes.
fn size(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    if bytes.is_multiple_of(MIB) {
        format!("{}M", bytes / MIB)
    } else {
        bytes.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use clap::CommandFactory;

    /// A probing command line with `extra`, the tests every ranged option tunes
    /// (with -w), and a disk.
    fn run(extra: &[String]) -> Result<Config, String> {
        let mut line: Vec<String> = [
            "seekprobe",
            "-i",
            "--zones",
            "--seek-profile",
            "--verify",
            "-w",
            "-S",
            "--block-sweep",
            "--smr-check",
            "--smart",
            "--qualify",
        ]
        .map(String::from)
        .to_vec();
        // An option that selects its test (--zones=N) replaces it.
        line.retain(|t| !extra.iter().any(|e| e.starts_with(&format!("{t}="))));
        line.extend_from_slice(extra);
        line.push("sim:hdd".into());
        Config::from_command_line(line)
    }

    /// Every declared range, held to the command line: each default is in range,
    /// each end is accepted, a value past each end is refused naming the option;
    /// the bounds of the checked types ([`crate::results::settings`]) agree.
    #[test]
    fn every_declared_range_takes_its_ends_and_refuses_past_them() {
        let cmd = Args::command();
        let mut ranged = 0;
        for (id, o) in Args::declared() {
            if o.range == Range::Any {
                continue;
            }
            let arg = cmd.get_arguments().find(|a| a.get_id() == id).unwrap();
            let long = format!("--{}", arg.get_long().unwrap());
            let with = |v: &str| {
                let v = if arg.is_require_equals_set() {
                    vec![format!("{long}={v}")]
                } else {
                    vec![long.clone(), v.to_string()]
                };
                run(&v)
            };
            let (good, bad): (Vec<String>, Vec<String>) = match o.range {
                Range::Any => continue,
                Range::Count { lo, hi } => (
                    vec![lo.to_string(), hi.to_string()],
                    vec![(lo - 1).to_string(), (hi + 1).to_string()],
                ),
                Range::Seconds { min_ms } => (
                    vec![format!("{}ms", min_ms), "3600".into()],
                    vec!["3601".into()],
                ),
                Range::Millis { max } => (
                    vec!["1".into(), max.to_string()],
                    vec!["0".into(), (max + 1).to_string()],
                ),
                Range::Bytes => (vec!["1".into()], vec!["0".into()]),
                Range::Sectors { max } => {
                    let top = max.unwrap_or(1 << 30);
                    let mut bad = vec!["513".to_string()];
                    bad.extend(max.map(|m| (m + SECTOR).to_string()));
                    (vec![SECTOR.to_string(), top.to_string()], bad)
                }
                Range::Percent => (vec!["0.1".into(), "999".into()], vec!["0".into()]),
                Range::BadBlocksSize => (vec!["1024".into()], vec!["1000".into()]),
            };
            ranged += 1;
            for g in &good {
                assert!(with(g).is_ok(), "{long} {g}: {:?}", with(g));
            }
            for b in &bad {
                let e = with(b).expect_err(&format!("{long} {b}"));
                assert!(e.starts_with(&format!("{long} ")), "{e}");
            }
        }
        assert!(ranged >= 17, "{ranged} ranged options");
        // The checked types hold what the declarations let through.
        let c = run(&[]).unwrap();
        assert_eq!(
            c.options.queue_depth,
            crate::results::settings::QueueDepth::DISKINFO
        );
        let Range::Count { hi, .. } = Args::option("passes").unwrap().range else {
            panic!("--passes is a count")
        };
        assert!(crate::results::settings::Passes::new(hi as u32).is_some());
    }

    /// The string literals of config's code (src/config.rs and src/config/, the
    /// unit tests and comments left out) that spell an option (`"--zones"`).
    fn option_literals() -> Vec<String> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![root.join("config.rs")];
        for e in std::fs::read_dir(root.join("config")).unwrap() {
            files.push(e.unwrap().path());
        }
        let mut found = Vec::new();
        for f in files {
            let src = std::fs::read_to_string(&f).unwrap();
            let code = src.split("#[cfg(test)]\nmod tests").next().unwrap();
            for line in code.lines() {
                let line = line.trim_start();
                if line.starts_with("//") {
                    continue;
                }
                // The literals: the odd pieces between unescaped quotes.
                let text = line.replace("\\\"", "");
                for lit in text.split('"').skip(1).step_by(2) {
                    let spells = lit
                        .match_indices("--")
                        .any(|(i, _)| lit[i + 2..].starts_with(|c: char| c.is_ascii_lowercase()));
                    if spells {
                        found.push(format!("{}: {lit}", f.display()));
                    }
                }
            }
        }
        found
    }

    /// Config names no option for a range check: the ranges and their messages
    /// come from the declarations. Only a message that relates two options may
    /// name them, five at most (--json and --format, --max-temp and SMART,
    /// --burn-in and --smart-test, --preserve and a test, --end and --start).
    #[test]
    fn config_spells_no_option_but_in_five_messages_relating_two() {
        let found = option_literals();
        assert!(found.len() <= 5, "{found:#?}");
    }
}
