//! `--new` means new: a drive sold as new has the power-on hours, power cycles,
//! head load cycles and host writes of factory testing at most, no wear and no
//! command timeout. Each finding names the figure and where it was read.

use super::counters::Counter;
use super::counters::Thresholds;
use crate::results::health::Health;
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

/// The `--new` findings on a drive as it came (`before`): power-on hours above
/// `max_hours` (`--new-max-hours`), power cycles, load cycles and host writes
/// above their limits (`--threshold`), and any wear. The damage counters and
/// 188 are judged with the other counters; past self-test failures with the log.
pub fn findings(before: &Health, max_hours: u64, thresholds: &Thresholds, out: &mut Vec<Finding>) {
    // SMART's hours, else FARM's (a FARM-only report); without either, newness
    // cannot be judged, and the drive does not pass as new.
    let farm = before.farm.as_ref().and_then(|f| f.power_on_hours);
    let hours = match (before.power_on_hours, farm) {
        (Some(h), _) => Some((h, "", "power_on_time.hours")),
        (None, Some(h)) => Some((
            h,
            " (Seagate FARM)",
            "seagate_farm_log.page_1_drive_information.poh",
        )),
        (None, None) => None,
    };
    match hours {
        Some((h, whose, source)) if h > max_hours => out.push(
            Finding::smart(
                Severity::Fail,
                "new-power-on-hours",
                format!(
                    "{h} power-on hours{whose} on a drive given as new ({max_hours} allowed, --new-max-hours)"
                ),
            )
            .with(Figure::new("power-on-hours", Some(h), source)),
        ),
        Some(_) => {}
        None => out.push(
            Finding::smart(
                Severity::Fail,
                "new-hours-missing",
                format!(
                    "--new cannot judge whether the drive is new: the report holds no power-on hours (power_on_time.hours, the NVMe log's power_on_hours, or Seagate FARM's poh){}; take smartctl -x DEVICE",
                    if before.has_counters() {
                        ""
                    } else {
                        ": no counters were read"
                    }
                ),
            )
            .with(Figure::new("power-on-hours", None, "power_on_time.hours")),
        ),
    }
    for c in [
        Counter::PowerCycles,
        Counter::LoadCycles,
        Counter::HostWritesGib,
    ] {
        let limit = thresholds.limit(c);
        let Some(v) = c.value(before).filter(|v| *v > limit) else {
            continue;
        };
        let source = match c {
            Counter::HostWritesGib => before
                .usage
                .host_writes_source
                .clone()
                .unwrap_or_else(|| c.source().into()),
            _ => c.source().into(),
        };
        out.push(
            Finding::smart(
                Severity::Fail,
                c.key(),
                format!(
                    "{}: {v} on a drive given as new ({limit} allowed, --threshold {}=N; read from {source})",
                    c.describe(),
                    c.key()
                ),
            )
            .with(Figure::new(c.key(), Some(v), &source)),
        );
    }
    unknown_writes(before, thresholds, out);
    for w in before.usage.wear.iter().filter(|w| w.used_percent > 0) {
        out.push(
            Finding::smart(
                Severity::Fail,
                "new-wear",
                format!(
                    "{}% of the rated life used ({}) on a drive given as new",
                    w.used_percent, w.source
                ),
            )
            .with(Figure::new("wear", Some(w.used_percent), &w.source)),
        );
    }
}

/// A written total that cannot fit the hours ([`crate::results::health::UnknownWrites`])
/// cannot show a drive new: unless even read as GiB (the largest unit SSD
/// families count 241 in) it is within the allowance, newness cannot be judged.
fn unknown_writes(before: &Health, thresholds: &Thresholds, out: &mut Vec<Finding>) {
    let limit = thresholds.limit(Counter::HostWritesGib);
    let Some(w) = before
        .usage
        .host_writes_unknown
        .as_ref()
        .filter(|w| w.raw > limit)
    else {
        return;
    };
    out.push(
        Finding::smart(
            Severity::Fail,
            "new-host-writes-unknown",
            format!(
                "--new cannot judge whether the drive is new: its host writes are unknown ({} raw {}: {} LBAs or {} GiB, {limit} GiB allowed); give a report of a smartctl whose drive database knows the drive",
                w.source, w.raw, w.raw, w.raw
            ),
        )
        .with(Figure::new("host-writes-raw", Some(w.raw), &w.source)),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::{Usage, Wear};

    #[test]
    fn use_and_wear_fail_a_new_drive_each_naming_its_figure() {
        let h = Health {
            power_on_hours: Some(44_670),
            usage: Usage {
                power_cycles: Some(26),
                load_cycles: Some(3),
                host_written_bytes: Some(278 << 30),
                host_writes_source: Some("ATA 241 Total_LBAs_Written".into()),
                wear: vec![Wear {
                    source: "ATA 233 Media_Wearout_Indicator (normalised value)".into(),
                    used_percent: 85,
                }],
                host_writes_unknown: None,
            },
            ..Default::default()
        };
        let mut f = Vec::new();
        findings(&h, 48, &Thresholds::default(), &mut f);
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(
            rules,
            [
                "new-power-on-hours",
                "power-cycles",
                "host-writes-gib",
                "new-wear"
            ]
        );
        assert_eq!(
            f[0].reason,
            "44670 power-on hours on a drive given as new (48 allowed, --new-max-hours)"
        );
        assert_eq!(
            f[2].figure.as_ref().unwrap().source,
            "ATA 241 Total_LBAs_Written"
        );
        assert_eq!(f[3].figure.as_ref().unwrap().count, Some(85));
        // The limits move both ways.
        let loose = Thresholds {
            limits: vec![(Counter::PowerCycles, 30), (Counter::HostWritesGib, 300)],
        };
        let mut f = Vec::new();
        findings(&h, 50_000, &loose, &mut f);
        assert_eq!(f.len(), 1, "{f:?}");
        let strict = Thresholds {
            limits: vec![(Counter::LoadCycles, 2)],
        };
        let mut f = Vec::new();
        findings(&h, 48, &strict, &mut f);
        assert!(f.iter().any(|f| f.rule == "load-cycles"));
    }
}
