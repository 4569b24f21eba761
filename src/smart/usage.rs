//! How much a drive has been used, for `--new`, read from a report by meaning (the
//! attributes' drivedb names, [`super::attributes`]): power cycles, head load
//! cycles, host writes and every wear figure it reports. The figures, and what
//! Seagate's FARM log says, are plain data in the results, re-exported here and
//! by the health module.

use super::attributes::{self, Meaning};
use super::model::{AtaAttribute, Report};
use crate::results::health::{Usage, Wear};

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
    let family = r.model_family.as_deref();
    for a in table {
        let unread = u.host_written_bytes.is_none() && u.host_writes_unknown.is_none();
        match attributes::identify_in(a, family) {
            Some(Meaning::LoadCycles) if u.load_cycles.is_none() => {
                u.load_cycles = attributes::count(a)
            }
            Some(Meaning::HostWrites(unit)) if unread => {
                let unit = if unit == 0 { block } else { unit };
                let Some(raw) = attributes::count(a) else {
                    continue;
                };
                match super::writes::bytes_written(r, a, raw, unit) {
                    Ok(bytes) => {
                        u.host_written_bytes = Some(bytes);
                        u.host_writes_source = Some(format!("ATA {} {}", a.id, a.name));
                    }
                    Err(unknown) => u.host_writes_unknown = Some(unknown),
                }
            }
            Some(Meaning::Wear(scale)) => {
                if let Some(used) = attributes::wear_used(a, scale) {
                    let place = attributes::wear_place(a, scale);
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
