//! Decoding a drive's health from a smartctl report: the counts people can trust
//! (vendor-packed raw values unpacked), ready for the rules ([`super::rules`]) and
//! the text ([`crate::report::smart`]). The health itself is plain data in the
//! results, re-exported here.

use super::attributes::{self, Meaning, RawFormat};
use super::model::{AtaAttribute, Report};
use super::selftest;
use super::usage::usage;
use crate::results::health::Farm;
use crate::results::health::{
    AtaCounters, CommandTimeouts, ExitStatus, FailedAttribute, Health, NvmeHealth, NvmeWarning,
    Protocol, ScsiCounters, UnreadableAttribute,
};

impl Protocol {
    /// Its name as smartctl's `device.protocol` spells it ("ATA", "SCSI", "NVMe").
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Ata => "ATA",
            Protocol::Scsi => "SCSI",
            Protocol::Nvme => "NVMe",
        }
    }

    fn parse(s: &str) -> Option<Protocol> {
        match s {
            "ATA" => Some(Protocol::Ata),
            "SCSI" => Some(Protocol::Scsi),
            "NVMe" => Some(Protocol::Nvme),
            _ => None,
        }
    }
}

impl ExitStatus {
    /// Bit 0: the command line did not parse (smartctl also sets it when it cannot
    /// tell the device type, e.g. on a loop device or an image file).
    pub const COMMAND_LINE: u32 = 1 << 0;
    /// Bit 1: the device could not be opened, did not identify, or sleeps.
    pub const OPEN_FAILED: u32 = 1 << 1;
    /// Bit 2: some SMART or other command to the disk failed, or a checksum error.
    pub const COMMAND_FAILED: u32 = 1 << 2;
    /// Bit 3: SMART status check returned "DISK FAILING".
    pub const DISK_FAILING: u32 = 1 << 3;
    /// Bit 4: pre-failure attributes at or below threshold now.
    pub const PREFAIL_NOW: u32 = 1 << 4;
    /// Bit 5: attributes at or below threshold in the past.
    pub const THRESHOLD_PAST: u32 = 1 << 5;
    /// Bit 6: the device error log holds errors.
    pub const ERROR_LOG: u32 = 1 << 6;
    /// Bit 7: the self-test log holds errors.
    pub const SELF_TEST_LOG: u32 = 1 << 7;

    /// Whether a bit is set.
    pub fn has(self, bit: u32) -> bool {
        self.0 & bit != 0
    }

    /// Each set bit in words, lowest first.
    pub fn meanings(self) -> Vec<&'static str> {
        const TEXT: [&str; 8] = [
            "the command line did not parse or the device type is unknown",
            "the device could not be opened",
            "a SMART or other command to the disk failed",
            "SMART status check returned DISK FAILING",
            "pre-failure attributes at or below threshold",
            "attributes were at or below threshold in the past",
            "the device error log holds errors",
            "the self-test log holds errors",
        ];
        (0..8)
            .filter(|b| self.has(1 << b))
            .map(|b| TEXT[b])
            .collect()
    }
}

impl NvmeWarning {
    /// The warnings set in a critical warning byte.
    pub fn from_bits(byte: u8) -> Vec<NvmeWarning> {
        const BITS: [NvmeWarning; 6] = [
            NvmeWarning::SpareBelowThreshold,
            NvmeWarning::Temperature,
            NvmeWarning::ReliabilityDegraded,
            NvmeWarning::ReadOnly,
            NvmeWarning::VolatileBackupFailed,
            NvmeWarning::PersistentMemoryUnreliable,
        ];
        let mut v: Vec<NvmeWarning> = (0..6)
            .filter(|b| byte & (1 << b) != 0)
            .map(|b| BITS[b])
            .collect();
        if byte & 0xc0 != 0 {
            v.push(NvmeWarning::Unknown);
        }
        v
    }

    /// The bit's number (6 for the reserved ones).
    pub fn bit(self) -> u8 {
        self as u8
    }

    /// In words.
    pub fn describe(self) -> &'static str {
        match self {
            NvmeWarning::SpareBelowThreshold => "available spare below threshold",
            NvmeWarning::Temperature => "temperature above or below a threshold",
            NvmeWarning::ReliabilityDegraded => "NVM subsystem reliability degraded",
            NvmeWarning::ReadOnly => "media placed in read-only mode",
            NvmeWarning::VolatileBackupFailed => "volatile memory backup device failed",
            NvmeWarning::PersistentMemoryUnreliable => {
                "persistent memory region read-only or unreliable"
            }
            NvmeWarning::Unknown => "reserved warning bits set",
        }
    }
}

impl CommandTimeouts {
    /// Split a raw value into its three 16-bit words.
    pub fn from_raw(raw: u64) -> CommandTimeouts {
        CommandTimeouts {
            total: raw & 0xffff,
            over_5s: (raw >> 16) & 0xffff,
            over_7_5s: (raw >> 32) & 0xffff,
            packed: true,
        }
    }

    /// One count, not packed (every vendor but Seagate: Micron's 70000 is 70000).
    pub fn plain(total: u64) -> CommandTimeouts {
        CommandTimeouts {
            total,
            over_5s: 0,
            over_7_5s: 0,
            packed: false,
        }
    }

    /// Attribute 188 by its printed format: `a b c` (raw16) is packed; a plain
    /// number is one count, except on a Seagate drive, whose specification packs
    /// it whatever the drive database prints (ST3500418AS prints raw48).
    fn from_attribute(a: &AtaAttribute, seagate: bool) -> Option<CommandTimeouts> {
        match attributes::raw_format(&a.raw.string) {
            Some(RawFormat::Words([hi, mid, lo])) => Some(CommandTimeouts {
                total: lo,
                over_5s: mid,
                over_7_5s: hi,
                packed: true,
            }),
            _ if seagate => a.raw.value.map(CommandTimeouts::from_raw),
            _ => attributes::count(a).map(CommandTimeouts::plain),
        }
    }
}

/// The count an attribute's raw value stands for ([`attributes::count`]).
pub fn attribute_count(a: &AtaAttribute) -> Option<u64> {
    attributes::count(a)
}

/// A temperature smartctl gives that is a reading: SCT's "no value" (−127) and
/// the 0 °C of a drive without a sensor are none.
fn real_temperature(t: i64) -> Option<i64> {
    (t != 0 && t > -60 && t < 200).then_some(t)
}

/// Whether a report is of a Seagate drive.
fn is_seagate(r: &Report) -> bool {
    let family = r.model_family.as_deref().unwrap_or("");
    let model = r.model_name.as_deref().unwrap_or("");
    let scsi = r.scsi_model_name.as_deref().unwrap_or("");
    family.starts_with("Seagate")
        || scsi.starts_with("SEAGATE")
        || (model.starts_with("ST") && model[2..].starts_with(|c: char| c.is_ascii_digit()))
}

/// smartctl's version as "7.4", when the report says it.
fn smartctl_version(r: &Report) -> Option<String> {
    r.smartctl
        .as_ref()
        .filter(|s| !s.version.is_empty())
        .map(|s| {
            let v: Vec<String> = s.version.iter().map(u32::to_string).collect();
            v.join(".")
        })
}

/// The ATA counters the rules watch, by meaning, when the report has an attribute
/// table.
fn ata_counters(r: &Report, table: &[AtaAttribute], seagate: bool) -> Option<AtaCounters> {
    let attr = |m: Meaning| table.iter().find(|a| attributes::identify(a) == Some(m));
    let count = |m: Meaning| attr(m).and_then(attributes::count);
    r.ata_smart_attributes.as_ref().map(|_| AtaCounters {
        reallocated: count(Meaning::Reallocated),
        reallocation_events: count(Meaning::ReallocationEvents),
        pending: count(Meaning::Pending),
        offline_uncorrectable: count(Meaning::OfflineUncorrectable),
        reported_uncorrectable: count(Meaning::ReportedUncorrectable),
        command_timeouts: attr(Meaning::CommandTimeouts)
            .and_then(|a| CommandTimeouts::from_attribute(a, seagate)),
        udma_crc_errors: count(Meaning::UdmaCrc),
    })
}

/// An attribute as the text names one that cannot be judged.
fn as_unreadable(a: &AtaAttribute) -> UnreadableAttribute {
    UnreadableAttribute {
        id: a.id,
        name: a.name.clone(),
        // A raw value missing or null has no text worth showing.
        raw: if a.raw.value.is_some()
            || a.raw.held.is_some()
            || a.raw.string.trim().starts_with('-')
        {
            a.raw.string.clone()
        } else {
            String::new()
        },
        held: a.raw.held.clone(),
    }
}

/// An unreadable attribute's raw value in words, for the notes and the text:
/// what it held (`the string "x"`), its text (`"-3"`), or "missing or null".
pub fn raw_in_words(a: &UnreadableAttribute) -> String {
    match &a.held {
        Some(held) if a.raw.is_empty() => held.clone(),
        Some(held) => format!("{held} (smartctl's text {:?})", a.raw),
        None if a.raw.is_empty() => "missing or null".into(),
        None => format!("{:?}", a.raw),
    }
}

/// The counters the rules watch whose raw value cannot be read as a count.
fn unreadable_counters(table: &[AtaAttribute], seagate: bool) -> Vec<UnreadableAttribute> {
    table
        .iter()
        .filter(|a| attributes::COUNTER_IDS.contains(&a.id))
        .filter(|a| attributes::identify(a).is_some())
        .filter(|a| {
            if attributes::identify(a) == Some(Meaning::CommandTimeouts) {
                CommandTimeouts::from_attribute(a, seagate).is_none()
            } else {
                attributes::count(a).is_none()
            }
        })
        .map(as_unreadable)
        .collect()
}

/// The attributes past their threshold, now or in the past.
fn failed_attributes(r: &Report) -> Vec<FailedAttribute> {
    r.ata_smart_attributes
        .iter()
        .flat_map(|t| &t.table)
        .filter_map(|a| {
            let when = a.when_failed.as_deref().unwrap_or("");
            (when == "now" || when == "past").then(|| FailedAttribute {
                id: a.id,
                name: a.name.clone(),
                now: when == "now",
                prefailure: a.flags.as_ref().and_then(|f| f.prefailure) == Some(true),
            })
        })
        .collect()
}

/// A SCSI drive's grown defects and uncorrected errors, when the report has them.
fn scsi_counters(r: &Report) -> Option<ScsiCounters> {
    (r.scsi_grown_defect_list.is_some() || r.scsi_error_counter_log.is_some()).then(|| {
        let log = r.scsi_error_counter_log.clone().unwrap_or_default();
        ScsiCounters {
            grown_defects: r.scsi_grown_defect_list,
            read_uncorrected: log.read.and_then(|c| c.total_uncorrected_errors),
            write_uncorrected: log.write.and_then(|c| c.total_uncorrected_errors),
            verify_uncorrected: log.verify.and_then(|c| c.total_uncorrected_errors),
        }
    })
}

/// An NVMe drive's health log, when the report has it.
fn nvme_health(r: &Report) -> Option<NvmeHealth> {
    r.nvme_smart_health_information_log
        .as_ref()
        .map(|l| NvmeHealth {
            critical_warning: l.critical_warning,
            warnings: NvmeWarning::from_bits(l.critical_warning.unwrap_or(0)),
            media_errors: l.media_errors,
            error_log_entries: l.num_err_log_entries,
            percentage_used: l.percentage_used,
            available_spare: l.available_spare,
            available_spare_threshold: l.available_spare_threshold,
        })
}

/// Seagate's FARM figures (page 1, the drive's information), when read.
fn farm(r: &Report) -> Option<Farm> {
    r.seagate_farm_log
        .as_ref()
        .and_then(|f| f.page_1_drive_information.as_ref())
        .map(|p| Farm {
            power_on_hours: p.poh,
            head_flight_hours: p.head_flight_hours,
            power_cycles: p.power_cycle_count,
            recording_type: p.drive_recording_type.clone(),
        })
}

impl Health {
    /// Decode a report.
    pub fn from_report(r: &Report) -> Health {
        let seagate = is_seagate(r);
        let table: &[AtaAttribute] = r
            .ata_smart_attributes
            .as_ref()
            .map_or(&[], |t| t.table.as_slice());
        let temp = r.temperature.clone().unwrap_or_default();
        Health {
            device: r.device.as_ref().and_then(|d| d.name.clone()),
            model: r.model_name.clone().or_else(|| r.scsi_model_name.clone()),
            serial: r.serial_number.clone(),
            firmware: r
                .firmware_version
                .clone()
                .or_else(|| r.scsi_revision.clone()),
            protocol: r
                .device
                .as_ref()
                .and_then(|d| d.protocol.as_deref())
                .and_then(Protocol::parse),
            smartctl_version: smartctl_version(r),
            exit_status: r.exit_status().map(ExitStatus),
            smart_disabled: r.smart_support.as_ref().and_then(|s| s.enabled) == Some(false),
            passed: r.smart_status.as_ref().and_then(|s| s.passed),
            ata: ata_counters(r, table, seagate),
            failed_attributes: failed_attributes(r),
            unreadable: unreadable_counters(table, seagate),
            ata_error_log_count: r
                .ata_smart_error_log
                .as_ref()
                .and_then(|l| l.extended.as_ref().or(l.summary.as_ref()))
                .and_then(|s| s.count),
            scsi: scsi_counters(r),
            nvme: nvme_health(r),
            temperature_c: temp
                .current
                .or_else(|| r.nvme_smart_health_information_log.as_ref()?.temperature)
                .and_then(real_temperature),
            temperature_max_c: temp
                .lifetime_max
                .and_then(real_temperature)
                .or(temp.power_cycle_max.and_then(real_temperature)),
            power_on_hours: r
                .power_on_time
                .as_ref()
                .and_then(|p| p.hours)
                .or_else(|| r.nvme_smart_health_information_log.as_ref()?.power_on_hours),
            last_self_test: selftest::last_result(r),
            self_test_log: selftest::log(r),
            not_judged: table
                .iter()
                .filter(|a| attributes::reused(a))
                .map(as_unreadable)
                .collect(),
            usage: usage(r, table),
            farm: farm(r),
            seagate,
            erc: r.ata_sct_erc.clone(),
            temperature_limit_c: temp.op_limit_max.and_then(real_temperature),
            ignored_fields: r
                .ignored
                .iter()
                .filter(|p| !super::structure::is_structural(p))
                .cloned()
                .collect(),
            unjudgeable: r.unjudgeable.clone(),
        }
    }

    /// Whether the report holds any health figure at all.
    pub fn has_data(&self) -> bool {
        self.passed.is_some()
            || self.ata.is_some()
            || self.scsi.is_some()
            || self.nvme.is_some()
            || self.farm.is_some()
            || !self.unjudgeable.is_empty()
    }

    /// Whether the report holds any counter: an ATA attribute table, the SCSI
    /// error counters or the NVMe health log.
    pub fn has_counters(&self) -> bool {
        self.ata.is_some() || self.scsi.is_some() || self.nvme.is_some()
    }

    /// Whether the report holds SMART's health (an assessment or counters), not
    /// only Seagate's FARM log.
    pub fn has_health(&self) -> bool {
        self.passed.is_some() || self.has_counters()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smart::model::RawValue;

    fn attr(id: u8, value: u64, string: &str) -> AtaAttribute {
        AtaAttribute {
            id,
            raw: RawValue {
                value: Some(value),
                string: string.into(),
                held: None,
            },
            ..Default::default()
        }
    }

    #[test]
    fn counts_follow_smartctls_text() {
        assert_eq!(attribute_count(&attr(5, 1, "1")), Some(1));
        // raw16(raw16): "N (a b)", N the low word.
        assert_eq!(
            attribute_count(&attr(5, 0x0002_0000_0003, "3 (2 0)")),
            Some(3)
        );
        // raw16: "a b c", c the low word.
        assert_eq!(
            attribute_count(&attr(197, 0x0001_0001_0005, "1 1 5")),
            Some(5)
        );
        // Anything else: the raw value.
        assert_eq!(attribute_count(&attr(199, 7, "7 (whatever")), Some(7));
        assert_eq!(attribute_count(&attr(199, 7, "")), Some(7));
        // Negative or garbled, with no readable raw number: unreadable, never 0.
        let mut a = attr(197, 0, "-3");
        a.raw.value = None;
        assert_eq!(attribute_count(&a), None);
    }

    #[test]
    fn the_firmware_is_the_ata_or_nvme_version_or_the_scsi_revision() {
        let firmware = |json: &str| Health::from_report(&Report::from_json(json).unwrap()).firmware;
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/smartctl/");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).unwrap();
        assert_eq!(
            firmware(&read("HITACHI_H109060SESUN600G_9.json")).as_deref(),
            Some("A690")
        );
        // The published ATA and NVMe reports have their firmware redacted.
        assert_eq!(
            firmware(&read("WDC_WD20EFRX-68EUZN0_17.json")).as_deref(),
            Some("REDACTED")
        );
        assert_eq!(
            firmware(&read("nvme-null-INTEL_SSDPE2KX020T7-nvme6.json")).as_deref(),
            Some("REDACTED")
        );
        assert_eq!(firmware(r#"{"json_format_version": [1, 0]}"#), None);
    }

    #[test]
    fn seagate_188_unpacks_into_three_words() {
        // 4295032833 = 0x0001_0001_0001: smartctl -v 188,raw16 prints "1 1 1".
        let t = CommandTimeouts::from_raw(4_295_032_833);
        assert_eq!((t.total, t.over_5s, t.over_7_5s), (1, 1, 1));
        let t = CommandTimeouts::from_raw(1);
        assert_eq!((t.total, t.over_5s, t.over_7_5s), (1, 0, 0));
    }

    #[test]
    fn nvme_warning_bits_are_named() {
        assert_eq!(
            NvmeWarning::from_bits(16),
            vec![NvmeWarning::VolatileBackupFailed]
        );
        assert_eq!(
            NvmeWarning::from_bits(0b1000_0101),
            vec![
                NvmeWarning::SpareBelowThreshold,
                NvmeWarning::ReliabilityDegraded,
                NvmeWarning::Unknown
            ]
        );
        assert_eq!(NvmeWarning::VolatileBackupFailed.bit(), 4);
    }

    #[test]
    fn exit_status_is_a_bit_mask() {
        let e = ExitStatus(64 | 4);
        assert!(e.has(ExitStatus::ERROR_LOG) && e.has(ExitStatus::COMMAND_FAILED));
        assert!(!e.has(ExitStatus::DISK_FAILING));
        assert_eq!(e.meanings().len(), 2);
    }
}
