//! A drive's health decoded from a smartctl report: plain data, the counts people
//! can trust (vendor-packed raw values unpacked), ready for the rules
//! ([`super::rules`]) and the text ([`crate::report::smart`]).

use super::attributes::{self, Meaning, RawFormat};
use super::model::{AtaAttribute, AtaSctErc, Report};
use super::selftest::{self, SelfTestResult};
use super::usage::usage;
pub use super::usage::{Farm, Usage, Wear};
use serde::{Deserialize, Serialize};

/// The interface smartctl talked to the drive over.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// ATA / SATA (also behind a SAT bridge).
    Ata,
    /// SCSI / SAS.
    Scsi,
    /// NVMe.
    Nvme,
}

impl Protocol {
    /// The name smartctl uses.
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

/// smartctl's exit status, a bit mask (smartctl(8), EXIT STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExitStatus(pub u32);

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

/// One NVMe critical warning bit (NVMe Base Specification, SMART / Health
/// Information log page, byte 0 "Critical Warning").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NvmeWarning {
    /// Bit 0: the available spare has fallen below its threshold.
    SpareBelowThreshold,
    /// Bit 1: a temperature is above an over- or below an under-temperature threshold.
    Temperature,
    /// Bit 2: NVM subsystem reliability is degraded (media errors, internal errors).
    ReliabilityDegraded,
    /// Bit 3: the media has been placed in read-only mode.
    ReadOnly,
    /// Bit 4: the volatile memory backup device (e.g. power-loss capacitors) failed.
    VolatileBackupFailed,
    /// Bit 5: the persistent memory region became read-only or unreliable.
    PersistentMemoryUnreliable,
    /// Bits 6–7: reserved; set by a drive beyond the specification's bits.
    Unknown,
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

/// Attribute 188 (Command_Timeout). On Seagate drives three 16-bit counters in
/// one raw value, as `smartctl -v 188,raw16` prints them (Seagate's SMART
/// attribute specification: bytes 1–0 all timeouts, 3–2 commands over 5 s, 5–4
/// over 7.5 s); on others one count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandTimeouts {
    /// Command timeouts (the low word when packed).
    pub total: u64,
    /// Commands that took more than 5 s, those over 7.5 s included (middle word;
    /// 0 when not packed).
    pub over_5s: u64,
    /// Commands that took more than 7.5 s (high word; 0 when not packed).
    pub over_7_5s: u64,
    /// Whether the raw value packs the three words (else `total` is the count).
    #[serde(default)]
    pub packed: bool,
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

/// The ATA counters that tell a drive's health (the attribute's ID in brackets).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaCounters {
    /// Reallocated sectors (5).
    pub reallocated: Option<u64>,
    /// Reallocation events (196).
    pub reallocation_events: Option<u64>,
    /// Sectors pending reallocation: unreadable now (197).
    pub pending: Option<u64>,
    /// Sectors found uncorrectable by the offline scan (198).
    pub offline_uncorrectable: Option<u64>,
    /// Errors that could not be recovered by ECC (187).
    pub reported_uncorrectable: Option<u64>,
    /// Command timeouts (188), unpacked.
    pub command_timeouts: Option<CommandTimeouts>,
    /// Interface (UDMA/SATA) CRC errors (199): a cable or controller fault.
    pub udma_crc_errors: Option<u64>,
}

/// The SCSI counters that tell a drive's health.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScsiCounters {
    /// Entries in the grown defect list.
    pub grown_defects: Option<u64>,
    /// Uncorrected read errors.
    pub read_uncorrected: Option<u64>,
    /// Uncorrected write errors.
    pub write_uncorrected: Option<u64>,
    /// Uncorrected verify errors.
    pub verify_uncorrected: Option<u64>,
}

/// The NVMe SMART / Health log's health figures.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NvmeHealth {
    /// The critical warning byte.
    pub critical_warning: Option<u8>,
    /// Its bits, named.
    pub warnings: Vec<NvmeWarning>,
    /// Media and data integrity errors.
    pub media_errors: Option<u64>,
    /// Error information log entries.
    pub error_log_entries: Option<u64>,
    /// Percentage of the rated endurance used.
    pub percentage_used: Option<u32>,
    /// Available spare, percent.
    pub available_spare: Option<u32>,
    /// Its threshold, percent.
    pub available_spare_threshold: Option<u32>,
}

/// An ATA attribute whose normalised value is or was at or below its threshold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedAttribute {
    /// The ID.
    pub id: u8,
    /// smartctl's name.
    pub name: String,
    /// Now (true) or in the past (false).
    pub now: bool,
    /// A pre-failure attribute (predicts failure) rather than an age one.
    pub prefailure: bool,
}

/// A health attribute whose raw value is not a count (negative or garbled).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadableAttribute {
    /// The ID.
    pub id: u8,
    /// smartctl's name.
    pub name: String,
    /// smartctl's text for the raw value, as it was.
    pub raw: String,
}

/// A drive's health as read from one smartctl report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Health {
    /// The device name smartctl opened.
    pub device: Option<String>,
    /// Model (ATA/NVMe model name or SCSI vendor and product).
    pub model: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// The interface.
    pub protocol: Option<Protocol>,
    /// smartctl's version, e.g. "7.3".
    pub smartctl_version: Option<String>,
    /// smartctl's exit status bit mask.
    pub exit_status: Option<ExitStatus>,
    /// SMART is switched off on the drive (values may be stale or missing).
    pub smart_disabled: bool,
    /// The overall-health self-assessment: true PASSED, false FAILED.
    pub passed: Option<bool>,
    /// ATA counters.
    pub ata: Option<AtaCounters>,
    /// Attributes at or below their thresholds, now or in the past.
    pub failed_attributes: Vec<FailedAttribute>,
    /// Health attributes whose raw value could not be read (negative, garbled):
    /// their counters are None, and this says so rather than leaving a blank.
    pub unreadable: Vec<UnreadableAttribute>,
    /// Errors in the ATA error log over the drive's life.
    pub ata_error_log_count: Option<u64>,
    /// SCSI counters.
    pub scsi: Option<ScsiCounters>,
    /// NVMe health.
    pub nvme: Option<NvmeHealth>,
    /// Temperature now, °C.
    pub temperature_c: Option<i64>,
    /// Highest temperature the drive recorded (lifetime, else since power-on), °C.
    pub temperature_max_c: Option<i64>,
    /// Power-on hours.
    pub power_on_hours: Option<u64>,
    /// The most recent self-test in the drive's log.
    pub last_self_test: Option<SelfTestResult>,
    /// The whole self-test log, most recent first.
    pub self_test_log: Vec<SelfTestResult>,
    /// Attributes at a health counter's number under another family's name
    /// (e.g. 198 Host_Reads_GiB): not judged.
    pub not_judged: Vec<UnreadableAttribute>,
    /// How much the drive has been used.
    pub usage: Usage,
    /// Seagate's FARM log.
    pub farm: Option<Farm>,
    /// A Seagate drive (FARM is Seagate's).
    pub seagate: bool,
    /// The SCT error recovery control timers.
    pub erc: Option<AtaSctErc>,
    /// The drive's highest recommended operating temperature, °C.
    pub temperature_limit_c: Option<i64>,
    /// Fields of the report left out because of an unexpected type.
    pub ignored_fields: Vec<String>,
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

impl Health {
    /// Decode a report.
    pub fn from_report(r: &Report) -> Health {
        let protocol = r
            .device
            .as_ref()
            .and_then(|d| d.protocol.as_deref())
            .and_then(Protocol::parse);
        let seagate = is_seagate(r);
        let table: &[AtaAttribute] = r
            .ata_smart_attributes
            .as_ref()
            .map_or(&[], |t| t.table.as_slice());
        let attr = |m: Meaning| table.iter().find(|a| attributes::identify(a) == Some(m));
        let count = |m: Meaning| attr(m).and_then(attributes::count);
        let ata = r.ata_smart_attributes.as_ref().map(|_| AtaCounters {
            reallocated: count(Meaning::Reallocated),
            reallocation_events: count(Meaning::ReallocationEvents),
            pending: count(Meaning::Pending),
            offline_uncorrectable: count(Meaning::OfflineUncorrectable),
            reported_uncorrectable: count(Meaning::ReportedUncorrectable),
            command_timeouts: attr(Meaning::CommandTimeouts)
                .and_then(|a| CommandTimeouts::from_attribute(a, seagate)),
            udma_crc_errors: count(Meaning::UdmaCrc),
        });
        let as_unreadable = |a: &AtaAttribute| UnreadableAttribute {
            id: a.id,
            name: a.name.clone(),
            raw: a.raw.string.clone(),
        };
        let unreadable = table
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
            .collect();
        let not_judged = table
            .iter()
            .filter(|a| attributes::reused(a))
            .map(as_unreadable)
            .collect();
        let failed_attributes = r
            .ata_smart_attributes
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
            .collect();
        let scsi =
            (r.scsi_grown_defect_list.is_some() || r.scsi_error_counter_log.is_some()).then(|| {
                let log = r.scsi_error_counter_log.clone().unwrap_or_default();
                ScsiCounters {
                    grown_defects: r.scsi_grown_defect_list,
                    read_uncorrected: log.read.and_then(|c| c.total_uncorrected_errors),
                    write_uncorrected: log.write.and_then(|c| c.total_uncorrected_errors),
                    verify_uncorrected: log.verify.and_then(|c| c.total_uncorrected_errors),
                }
            });
        let nvme = r
            .nvme_smart_health_information_log
            .as_ref()
            .map(|l| NvmeHealth {
                critical_warning: l.critical_warning,
                warnings: NvmeWarning::from_bits(l.critical_warning.unwrap_or(0)),
                media_errors: l.media_errors,
                error_log_entries: l.num_err_log_entries,
                percentage_used: l.percentage_used,
                available_spare: l.available_spare,
                available_spare_threshold: l.available_spare_threshold,
            });
        let temp = r.temperature.clone().unwrap_or_default();
        Health {
            device: r.device.as_ref().and_then(|d| d.name.clone()),
            model: r.model_name.clone().or_else(|| r.scsi_model_name.clone()),
            serial: r.serial_number.clone(),
            protocol,
            smartctl_version: r
                .smartctl
                .as_ref()
                .filter(|s| !s.version.is_empty())
                .map(|s| {
                    let v: Vec<String> = s.version.iter().map(u32::to_string).collect();
                    v.join(".")
                }),
            exit_status: r.exit_status().map(ExitStatus),
            smart_disabled: r.smart_support.as_ref().and_then(|s| s.enabled) == Some(false),
            passed: r.smart_status.as_ref().and_then(|s| s.passed),
            ata,
            failed_attributes,
            unreadable,
            ata_error_log_count: r
                .ata_smart_error_log
                .as_ref()
                .and_then(|l| l.extended.as_ref().or(l.summary.as_ref()))
                .and_then(|s| s.count),
            scsi,
            nvme,
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
            not_judged,
            usage: usage(r, table),
            farm: r
                .seagate_farm_log
                .as_ref()
                .and_then(|f| f.page_1_drive_information.as_ref())
                .map(|p| Farm {
                    power_on_hours: p.poh,
                    head_flight_hours: p.head_flight_hours,
                    power_cycles: p.power_cycle_count,
                    recording_type: p.drive_recording_type.clone(),
                }),
            seagate,
            erc: r.ata_sct_erc.clone(),
            temperature_limit_c: temp.op_limit_max.and_then(real_temperature),
            ignored_fields: r.ignored.clone(),
        }
    }

    /// Whether the report holds any health figure at all.
    pub fn has_data(&self) -> bool {
        self.passed.is_some()
            || self.ata.is_some()
            || self.scsi.is_some()
            || self.nvme.is_some()
            || self.farm.is_some()
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
