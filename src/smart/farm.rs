//! Seagate's FARM log (Field Accessible Reliability Metrics, `smartctl -l farm`,
//! smartmontools 7.4 and later): the drive keeps its own power-on hours there,
//! apart from SMART's. Drives whose SMART hours were reset have been sold as new
//! with tens of thousands of FARM hours; FARM far above SMART FAILs. FARM's
//! recording type (SMR or CMR) is the drive's own word on shingling.

use crate::results::health::{Health, Protocol};
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// FARM hours above SMART's by more than this many hours, and by more than
/// [`SLACK_PERCENT`] of SMART's, mean SMART's were reset (seekprobe's margin:
/// the two counters of one drive agree within hours).
pub const SLACK_HOURS: u64 = 100;
/// The relative margin, percent of SMART's hours.
pub const SLACK_PERCENT: u64 = 10;

/// Whether smartctl's version (e.g. "7.3") reads FARM (7.4 and later).
pub fn reads_farm(version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) >= (7, 4)
}

/// FARM's recording type when it says SMR: a sign of shingled recording from the
/// drive itself (for the hidden-SMR signs).
pub fn smr_sign(h: &Health) -> Option<String> {
    let t = h.farm.as_ref()?.recording_type.as_deref()?.trim();
    t.eq_ignore_ascii_case("SMR")
        .then(|| "Seagate FARM log: drive_recording_type SMR".to_string())
}

/// FARM's findings: hours far above SMART's FAIL; an SMR recording type is a
/// note; a Seagate ATA drive read by smartctl older than 7.4 gets a note that
/// FARM could not be read.
pub fn findings(h: &Health, out: &mut Vec<Finding>) {
    let Some(farm) = &h.farm else {
        let old = h.smartctl_version.as_deref().filter(|v| !reads_farm(v));
        if h.seagate
            && h.protocol == Some(Protocol::Ata)
            && let Some(v) = old
        {
            out.push(Finding::smart(
                Severity::Note,
                "farm-unread",
                format!("Seagate's FARM log (its own power-on hours, to catch reset SMART hours) could not be read: smartctl {v}; smartctl 7.4 or later reads it (smartctl -x -l farm)"),
            ));
        }
        return;
    };
    match (farm.power_on_hours, h.power_on_hours) {
        (Some(f), Some(s)) if f > s.saturating_add(SLACK_HOURS.max(s / 100 * SLACK_PERCENT)) => out.push(
            Finding::smart(
                Severity::Fail,
                "farm-hours",
                format!("SMART hours reset: FARM says {f} hours, SMART {s}"),
            )
            .with(Figure::new(
                "farm-power-on-hours",
                Some(f),
                "seagate_farm_log.page_1_drive_information.poh",
            )),
        ),
        (Some(f), None) => out.push(
            Finding::smart(
                Severity::Note,
                "farm-hours",
                format!("FARM says {f} power-on hours; the report holds no SMART hours to compare them with (take smartctl -x -l farm)"),
            )
            .with(Figure::new(
                "farm-power-on-hours",
                Some(f),
                "seagate_farm_log.page_1_drive_information.poh",
            )),
        ),
        _ => {}
    }
    if let Some(sign) = smr_sign(h) {
        out.push(Finding::smart(
            Severity::Note,
            "farm-smr",
            format!("{sign}: the drive says it is shingled (SMR); it is unfit for a RAID rebuild's sustained writes"),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::Farm;

    fn drive(smart: Option<u64>, farm: u64) -> Health {
        Health {
            power_on_hours: smart,
            seagate: true,
            farm: Some(Farm {
                power_on_hours: Some(farm),
                recording_type: Some("CMR".into()),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn farm_far_above_smart_means_reset_hours() {
        let mut f = Vec::new();
        findings(&drive(Some(12), 31_337), &mut f);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].severity, Severity::Fail);
        assert_eq!(
            f[0].reason,
            "SMART hours reset: FARM says 31337 hours, SMART 12"
        );
        let mut f = Vec::new();
        findings(&drive(Some(2_322), 2_344), &mut f);
        assert!(f.is_empty(), "{f:?}");
        // A garbled SMART count near 2^64 is no reason to panic.
        findings(&drive(Some(u64::MAX - 1), 5), &mut f);
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn old_smartctl_on_seagate_gets_a_note() {
        assert!(reads_farm("7.4") && reads_farm("7.5") && reads_farm("8.0"));
        assert!(!reads_farm("7.3"));
        let h = Health {
            seagate: true,
            protocol: Some(Protocol::Ata),
            smartctl_version: Some("7.3".into()),
            ..Default::default()
        };
        let mut f = Vec::new();
        findings(&h, &mut f);
        assert_eq!(f[0].rule, "farm-unread");
        assert!(f[0].reason.contains("smartctl 7.3; smartctl 7.4 or later"));
    }
}
