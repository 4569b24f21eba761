//! How much a drive has been used, for `--new`: power cycles, head load cycles,
//! host writes and every wear figure it reports, read by meaning (the
//! attributes' drivedb names, [`super::attributes`]); and what Seagate's FARM log
//! says. Plain data; re-exported by the health module.

use super::attributes::{self, Meaning};
use super::model::{AtaAttribute, Report};
use serde::{Deserialize, Serialize};

/// One wear reading: how much of its rated life the drive says it used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wear {
    /// Where it was read, e.g. "ATA 233 Media_Wearout_Indicator (normalised)".
    pub source: String,
    /// Percent of the rated life used.
    pub used_percent: u64,
}

/// How much a drive has been used, for `--new`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    /// Power cycles.
    pub power_cycles: Option<u64>,
    /// Head load/unload cycles (ATA Load_Cycle_Count).
    pub load_cycles: Option<u64>,
    /// Bytes written by the host.
    pub host_written_bytes: Option<u64>,
    /// Where the host writes were read.
    pub host_writes_source: Option<String>,
    /// Every wear figure the drive reports (NVMe percentage used, the device
    /// statistics' endurance indicator, the vendors' wear attributes).
    pub wear: Vec<Wear>,
}

/// What Seagate's FARM log says (smartctl 7.4+, `-l farm`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Farm {
    /// Power-on hours as FARM counts them.
    pub power_on_hours: Option<u64>,
    /// Hours the heads flew.
    pub head_flight_hours: Option<u64>,
    /// Power cycles as FARM counts them.
    pub power_cycles: Option<u64>,
    /// "CMR" or "SMR".
    pub recording_type: Option<String>,
}

/// How much the drive has been used, from a report.
pub(super) fn usage(r: &Report, table: &[AtaAttribute]) -> Usage {
    let mut u = Usage {
        power_cycles: r
            .power_cycle_count
            .or_else(|| r.nvme_smart_health_information_log.as_ref()?.power_cycles),
        ..Default::default()
    };
    let log = r.nvme_smart_health_information_log.as_ref();
    if let Some(p) = log.and_then(|l| l.percentage_used) {
        u.wear.push(Wear {
            source: "NVMe percentage used".into(),
            used_percent: u64::from(p),
        });
    }
    if let Some(w) = log.and_then(|l| l.data_units_written) {
        u.host_written_bytes = Some(w.saturating_mul(512_000));
        u.host_writes_source = Some("NVMe data units written".into());
    }
    for e in r
        .ata_device_statistics
        .iter()
        .flat_map(|d| &d.pages)
        .flat_map(|p| &p.table)
        .filter(|e| e.name == "Percentage Used Endurance Indicator")
    {
        if let Some(v) = e.value {
            u.wear.push(Wear {
                source: "device statistics, Percentage Used Endurance Indicator".into(),
                used_percent: v,
            });
        }
    }
    let block = r.logical_block_size.unwrap_or(512);
    for a in table {
        match attributes::identify(a) {
            Some(Meaning::LoadCycles) if u.load_cycles.is_none() => {
                u.load_cycles = attributes::count(a)
            }
            Some(Meaning::HostWrites(unit)) if u.host_written_bytes.is_none() => {
                let unit = if unit == 0 { block } else { unit };
                u.host_written_bytes = attributes::count(a).map(|n| n.saturating_mul(unit));
                u.host_writes_source = Some(format!("ATA {} {}", a.id, a.name));
            }
            Some(Meaning::Wear(scale)) => {
                if let Some(used) = attributes::wear_used(a, scale) {
                    let place = match scale {
                        attributes::WearScale::NormalizedLeft => "normalised value",
                        attributes::WearScale::RawUsed => "raw value",
                    };
                    u.wear.push(Wear {
                        source: format!("ATA {} {} ({place})", a.id, a.name),
                        used_percent: used,
                    });
                }
            }
            _ => {}
        }
    }
    u
}
