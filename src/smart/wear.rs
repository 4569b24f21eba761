//! A used SSD's wear: 80% or more of its rated life used is a warning (plan the
//! replacement), read from every wear figure the drive reports (NVMe percentage
//! used, the ATA device statistics' endurance indicator, the vendors' life and
//! wear attributes as smartctl's drive database names them: [`super::attributes`]).
//! NVMe percentage used of 100 and above is judged with the NVMe log
//! (`worn-out`); a drive given as new fails on any wear ([`super::newness`]).

use crate::results::health::Health;
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// The share of the rated life used from which a used drive gets a warning,
/// percent (seekprobe's: a fifth of the rated endurance left is months of a
/// pool's writes, time to plan the replacement).
pub const WARN_AT_PERCENT: u64 = 80;

/// The warning on a used drive's highest wear reading at or above
/// [`WARN_AT_PERCENT`] (none when the NVMe log already says `worn-out`).
pub fn findings(now: &Health, out: &mut Vec<Finding>) {
    let nvme_worn = now
        .nvme
        .as_ref()
        .and_then(|n| n.percentage_used)
        .is_some_and(|u| u >= 100);
    let Some(w) = now.usage.wear.iter().max_by_key(|w| w.used_percent) else {
        return;
    };
    if nvme_worn || w.used_percent < WARN_AT_PERCENT {
        return;
    }
    out.push(
        Finding::smart(
            Severity::Warning,
            "life-used",
            format!(
                "{}% of the rated life used ({}): {}% or more used, plan its replacement",
                w.used_percent, w.source, WARN_AT_PERCENT
            ),
        )
        .with(Figure::new("wear", Some(w.used_percent), &w.source)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::{NvmeHealth, Usage, Wear};

    fn worn(used: u64) -> Health {
        Health {
            usage: Usage {
                wear: vec![
                    Wear {
                        source: "ATA 202 Percent_Lifetime_Remain (normalised value)".into(),
                        used_percent: used,
                    },
                    Wear {
                        source: "device statistics".into(),
                        used_percent: 3,
                    },
                ],
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn eighty_percent_used_warns() {
        let mut f = Vec::new();
        findings(&worn(79), &mut f);
        assert!(f.is_empty());
        findings(&worn(80), &mut f);
        assert_eq!(
            (f[0].rule.as_str(), f[0].severity),
            ("life-used", Severity::Warning)
        );
        assert!(
            f[0].reason
                .starts_with("80% of the rated life used (ATA 202"),
            "{}",
            f[0].reason
        );
        let mut nvme = worn(100);
        nvme.nvme = Some(NvmeHealth {
            percentage_used: Some(100),
            ..Default::default()
        });
        let mut f = Vec::new();
        findings(&nvme, &mut f);
        assert!(f.is_empty(), "worn-out says it");
    }
}
