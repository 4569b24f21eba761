//! SCT Error Recovery Control ("TLER", "CCTL"): how long the drive retries a bad
//! sector before it answers. In a redundant pool the array rebuilds the sector
//! from the others, so a drive should give up within 7 s (the limit RAID
//! controllers and Linux md users set with `smartctl -l scterc,70,70`); a desktop
//! drive that retries for a minute stalls the whole pool, or is dropped from it.

use crate::results::health::Health;
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// The longest recovery a drive for a redundant pool should take, in tenths of
/// a second (7 s).
pub const POOL_LIMIT_DS: u32 = 70;

/// The timers in words, e.g. "read 7.0 s, write 7.0 s", or None when the report
/// has no SCT ERC.
pub fn describe(h: &Health) -> Option<String> {
    let e = h.erc.as_ref()?;
    let one = |what: &str, t: &Option<crate::results::health::ErcTimer>| match t {
        Some(t) if t.enabled == Some(false) => format!("{what} disabled"),
        Some(t) => match t.deciseconds {
            Some(ds) => format!("{what} {:.1} s", f64::from(ds) / 10.0),
            None => format!("{what} unknown"),
        },
        None => format!("{what} not reported"),
    };
    Some(format!(
        "{}, {}",
        one("read", &e.read),
        one("write", &e.write)
    ))
}

/// A warning for each timer disabled or above [`POOL_LIMIT_DS`].
pub fn findings(h: &Health, out: &mut Vec<Finding>) {
    let Some(e) = &h.erc else { return };
    for (what, t) in [("read", &e.read), ("write", &e.write)] {
        let Some(t) = t else { continue };
        let why = if t.enabled == Some(false) {
            "disabled: the drive retries a bad sector as long as it likes".to_string()
        } else {
            match t.deciseconds.filter(|ds| *ds > POOL_LIMIT_DS) {
                Some(ds) => format!("{:.1} s, above 7 s", f64::from(ds) / 10.0),
                None => continue,
            }
        };
        out.push(
            Finding::smart(
                Severity::Warning,
                "erc",
                format!("SCT error recovery control, {what} timer {why}: for a redundant pool (RAID, ZFS, md) set 7 s (smartctl -l scterc,70,70), else one bad sector stalls the pool"),
            )
            .with(Figure::new(
                &format!("erc-{what}"),
                t.deciseconds.map(u64::from),
                &format!("ata_sct_erc.{what}.deciseconds"),
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::{AtaSctErc, ErcTimer};

    fn drive(read: (bool, u32), write: (bool, u32)) -> Health {
        let t = |(enabled, ds): (bool, u32)| {
            Some(ErcTimer {
                enabled: Some(enabled),
                deciseconds: Some(ds),
            })
        };
        Health {
            erc: Some(AtaSctErc {
                read: t(read),
                write: t(write),
            }),
            ..Default::default()
        }
    }

    #[test]
    fn disabled_or_slow_recovery_warns() {
        let mut f = Vec::new();
        findings(&drive((true, 70), (true, 70)), &mut f);
        assert!(f.is_empty());
        assert_eq!(
            describe(&drive((true, 70), (false, 0))).unwrap(),
            "read 7.0 s, write disabled"
        );
        findings(&drive((true, 120), (false, 0)), &mut f);
        assert_eq!(f.len(), 2);
        assert!(
            f[0].reason.contains("read timer 12.0 s, above 7 s"),
            "{}",
            f[0].reason
        );
        assert!(f[1].reason.contains("write timer disabled"));
        assert!(f.iter().all(|f| f.severity == Severity::Warning));
    }
}
