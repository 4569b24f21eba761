//! smartctl's JSON output (`smartctl --json`, smartmontools 7 or later) as serde
//! structs. Every field is optional: older smartctl versions, drives without some
//! logs and reports taken with fewer options (`-i -H -A` instead of `-x`) all
//! parse. Keys this model does not name are kept in [`Report::other`], so a report
//! written back out holds everything smartctl said.
//!
//! Key names come from smartctl's sources (ataprint.cpp, scsiprint.cpp,
//! nvmeprint.cpp) and from real reports; docs/smart.md lists them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use super::lenient::ValueString;
use super::lenient::{lenient_lba, lenient_u64};
pub use super::model_logs::{
    AtaDeviceStatistics, DevstatEntry, DevstatPage, FarmDriveInformation, FarmLog, NvmeHealthLog,
    NvmeSelfTestEntry, NvmeSelfTestLog,
};
use crate::results::health::AtaSctErc;

/// A whole `smartctl --json` report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Report {
    /// About smartctl itself: version, arguments, messages, exit status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smartctl: Option<SmartctlInfo>,
    /// The `device` block: the name smartctl opened and how (type, protocol).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device: Option<Device>,
    /// ATA and NVMe model name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    /// The drive database's family name (ATA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_family: Option<String>,
    /// SCSI model name (vendor and product).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scsi_model_name: Option<String>,
    /// Serial number.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<String>,
    /// Firmware version (ATA, NVMe).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware_version: Option<String>,
    /// SCSI product revision: the firmware of a SCSI or SAS drive.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scsi_revision: Option<String>,
    /// Whether the device has SMART and has it on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smart_support: Option<SmartSupport>,
    /// The overall health self-assessment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smart_status: Option<SmartStatus>,
    /// Temperatures in °C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Temperature>,
    /// Power-on time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_on_time: Option<PowerOnTime>,
    /// ATA: the vendor attribute table (`-A`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_smart_attributes: Option<AtaSmartAttributes>,
    /// ATA: the SMART data (`-c`): self-test status, polling times, capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_smart_data: Option<AtaSmartData>,
    /// ATA: the self-test log (`-l selftest`, `-l xselftest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_smart_self_test_log: Option<AtaSelfTestLog>,
    /// ATA: the error log summary (`-l error`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_smart_error_log: Option<AtaErrorLog>,
    /// SCSI: the grown defect list's length.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub scsi_grown_defect_list: Option<u64>,
    /// SCSI: the error counter log pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scsi_error_counter_log: Option<ScsiErrorCounterLog>,
    /// SCSI: the duration of the extended (long) self-test in seconds.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub scsi_extended_self_test_seconds: Option<u64>,
    /// NVMe: the SMART/Health Information log page (0x02).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvme_smart_health_information_log: Option<NvmeHealthLog>,
    /// NVMe: the Device Self-test log page (0x06), smartctl 7.4 and later.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nvme_self_test_log: Option<NvmeSelfTestLog>,
    /// Power cycles (ATA attribute 12 or the NVMe log, as smartctl gives them).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub power_cycle_count: Option<u64>,
    /// The logical block size in bytes (for attributes counted in LBAs).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub logical_block_size: Option<u64>,
    /// Whether smartctl's drive database knows the drive (`-i`): when it does
    /// not, the attributes have their default names and units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_smartctl_database: Option<bool>,
    /// The rotation rate in rpm (`-i`): 0 for a solid-state device.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub rotation_rate: Option<u64>,
    /// The interface's link speeds (`-i`, SATA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interface_speed: Option<InterfaceSpeed>,
    /// ATA: the SCT error recovery control timers (`-l scterc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_sct_erc: Option<AtaSctErc>,
    /// ATA: the device statistics (`-l devstat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ata_device_statistics: Option<AtaDeviceStatistics>,
    /// Seagate's FARM log (`-l farm`, smartctl 7.4 and later).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seagate_farm_log: Option<FarmLog>,
    /// Every other key, kept as smartctl wrote it. SCSI self-test results are
    /// among them (`scsi_self_test_0` … `scsi_self_test_19`); see
    /// [`Report::scsi_self_tests`]. A key this model names but whose value had an
    /// unexpected type is kept here too, as it was (see [`Report::ignored`]).
    #[serde(flatten, skip_deserializing)]
    pub other: BTreeMap<String, serde_json::Value>,
    /// The fields (JSON paths, e.g. `temperature.current`) left out because their
    /// value had a type this model does not expect: the rest of the report is read.
    #[serde(skip)]
    pub ignored: Vec<String>,
    /// What of the parts the health rules stand on cannot be read (a structural
    /// field of an unexpected type, a counter that is not a count), one line
    /// each ([`super::structure::problems`]): such a report cannot be judged.
    #[serde(skip)]
    pub unjudgeable: Vec<String>,
}

/// The largest report read, in bytes: real `smartctl -x` reports are under 1 MiB,
/// so anything above 16 MiB is refused before it is parsed (a JSON tree takes
/// about ten times its text in memory).
pub const MAX_REPORT_BYTES: u64 = 16 << 20;

/// Why a report over [`MAX_REPORT_BYTES`] is refused.
pub fn too_big() -> String {
    format!(
        "over {} MiB, not a smartctl report (real smartctl -x reports are under 1 MiB); refused before parsing",
        MAX_REPORT_BYTES >> 20
    )
}

/// How many fields of an unexpected type one report may lose before it is
/// refused as not smartctl's.
const MAX_IGNORED: usize = 64;

/// Remove the value at `path` from `v` (an object key or an array element).
fn remove_at(v: &mut serde_json::Value, path: &serde_path_to_error::Path) -> bool {
    use serde_path_to_error::Segment;
    let segs: Vec<&Segment> = path.iter().collect();
    let Some((last, parents)) = segs.split_last() else {
        return false;
    };
    let mut cur = v;
    for s in parents {
        let next = match s {
            Segment::Map { key } => cur.get_mut(key.as_str()),
            Segment::Seq { index } => cur.get_mut(*index),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return false,
        }
    }
    match (last, cur) {
        (Segment::Map { key }, serde_json::Value::Object(m)) => m.remove(key.as_str()).is_some(),
        (Segment::Seq { index }, serde_json::Value::Array(a)) if *index < a.len() => {
            a.remove(*index);
            true
        }
        _ => false,
    }
}

impl Report {
    /// Parse a report; the message says what is wrong with the text.
    pub fn from_json(text: &str) -> Result<Report, String> {
        if text.len() as u64 > MAX_REPORT_BYTES {
            return Err(too_big());
        }
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
        if !v.is_object() {
            return Err("not a smartctl --json report (the JSON is not an object)".into());
        }
        if v.get("smartctl").is_none() && v.get("json_format_version").is_none() {
            return Err(
                "not a smartctl --json report (no \"smartctl\" or \"json_format_version\" key)"
                    .into(),
            );
        }
        let r = Report::lenient(v)?;
        if let Some(x) = r.exit_status().filter(|x| *x > 255) {
            return Err(format!(
                "not a smartctl --json report (exit status {x}: smartctl's is one byte, 0-255)"
            ));
        }
        Ok(r)
    }

    /// Deserialize a report, leaving out each field whose value has an
    /// unexpected type (recorded in `ignored`), and
    /// keeping every key the model does not name in `other`.
    fn lenient(original: serde_json::Value) -> Result<Report, String> {
        let mut v = original.clone();
        let mut ignored = Vec::new();
        let mut r: Report = loop {
            match serde_path_to_error::deserialize::<_, Report>(&v) {
                Ok(r) => break r,
                Err(e) if ignored.len() < MAX_IGNORED && remove_at(&mut v, e.path()) => {
                    ignored.push(e.path().to_string())
                }
                Err(e) => return Err(format!("not a smartctl --json report: {e}")),
            }
        };
        r.unjudgeable = super::structure::problems(&original, &ignored);
        ignored.extend(super::structure::unreadable_leaves(&original));
        let known = serde_json::to_value(&r).map_err(|e| e.to_string())?;
        if let serde_json::Value::Object(m) = original {
            r.other = m
                .into_iter()
                .filter(|(k, _)| known.get(k).is_none())
                .collect();
        }
        r.ignored = ignored;
        Ok(r)
    }

    /// The SCSI self-test log entries, most recent first (`scsi_self_test_0`
    /// onwards, as scsiprint.cpp numbers them).
    pub fn scsi_self_tests(&self) -> Vec<ScsiSelfTest> {
        (0..20)
            .map_while(|i| self.other.get(&format!("scsi_self_test_{i}")))
            .filter_map(|v| serde_json::from_value(v.clone()).ok())
            .collect()
    }

    /// smartctl's exit status bit mask, when the report has it.
    pub fn exit_status(&self) -> Option<u32> {
        self.smartctl.as_ref().and_then(|s| s.exit_status)
    }
}

/// The `smartctl` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartctlInfo {
    /// smartctl's version as [major, minor].
    pub version: Vec<u32>,
    /// smartctl's own command line, program name first.
    pub argv: Vec<String>,
    /// Messages (errors and warnings) smartctl printed.
    pub messages: Vec<Message>,
    /// The exit status: a bit mask (smartctl(8), EXIT STATUS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_status: Option<u32>,
}

/// One message of smartctl's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Message {
    /// The message as smartctl printed it, one line.
    pub string: String,
    /// "error", "warning" or "information".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
}

/// The `device` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Device {
    /// The device name as given to smartctl, e.g. "/dev/sdb".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The name with the access type, e.g. "/dev/sdb \[SAT\]".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info_name: Option<String>,
    /// smartctl's device type (-d), e.g. "sat", "scsi", "nvme".
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// "ATA", "SCSI" or "NVMe".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

/// The `smart_support` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartSupport {
    /// The device has SMART.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available: Option<bool>,
    /// SMART is switched on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
}

/// The `smart_status` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartStatus {
    /// The overall-health self-assessment passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
}

/// The `temperature` block (°C).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Temperature {
    /// The current temperature, °C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<i64>,
    /// Highest since power-on (ATA SCT status).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_cycle_max: Option<i64>,
    /// Highest over the drive's life (ATA SCT status).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lifetime_max: Option<i64>,
    /// SCSI: the trip temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drive_trip: Option<i64>,
    /// ATA SCT: the highest recommended operating temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub op_limit_max: Option<i64>,
}

/// The `power_on_time` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PowerOnTime {
    /// Power-on hours, as the drive counts them (vendors may wrap or scale them).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub hours: Option<u64>,
}

/// `ata_smart_attributes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSmartAttributes {
    /// Every attribute the drive reports, in smartctl's order (by ID, usually).
    pub table: Vec<AtaAttribute>,
}

/// One ATA attribute.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaAttribute {
    /// The attribute ID (1–255).
    pub id: u8,
    /// smartctl's name for it (from the drive database).
    pub name: String,
    /// Normalised value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u32>,
    /// Worst normalised value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worst: Option<u32>,
    /// Failure threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thresh: Option<u32>,
    /// "", "now" or "past": when the value was at or below the threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when_failed: Option<String>,
    /// Pre-failure and other flags.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<AttributeFlags>,
    /// The raw value: as a number where it is one, and as smartctl's text.
    pub raw: RawValue,
}

/// An attribute's flags (only the ones seekprobe reads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AttributeFlags {
    /// A pre-failure attribute (a value at or below threshold predicts failure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefailure: Option<bool>,
}

/// An attribute's raw value: the 48-bit number and smartctl's rendering of it
/// (which applies the drive database's `-v ID,FORMAT` for that model).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, from = "RawWire")]
pub struct RawValue {
    /// The raw value as one number (48 bits; 56 or 64 for some formats); None
    /// when it is not a non-negative whole number (negative, garbled, missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u64>,
    /// smartctl's text for it, e.g. "1", "0 0 1", "32 (Min/Max 23/35)".
    pub string: String,
    /// What `value` held when it was there but not a count nor a negative
    /// number, in words (`the string "x"`, `the number 2.5, a fraction`):
    /// the notes say what was there.
    #[serde(skip)]
    pub held: Option<String>,
}

/// A raw value as the JSON has it, before it is read as a count.
#[derive(Default, Deserialize)]
#[serde(default)]
struct RawWire {
    value: serde_json::Value,
    string: String,
}

impl From<RawWire> for RawValue {
    fn from(w: RawWire) -> RawValue {
        let negative = w.value.as_f64().is_some_and(|f| f < 0.0);
        RawValue {
            value: super::lenient::value_u64(&w.value),
            held: super::structure::not_a_count(&w.value).filter(|_| !negative),
            string: w.string,
        }
    }
}

/// `interface_speed`: the SATA link's speeds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct InterfaceSpeed {
    /// The fastest the link can go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<LinkSpeed>,
}

/// One link speed as smartctl gives it: `units_per_second` × `bits_per_unit`
/// bits a second (SATA 3: 60 × 100,000,000, "6.0 Gb/s").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LinkSpeed {
    /// How many units a second.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub units_per_second: Option<u64>,
    /// Bits a unit.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub bits_per_unit: Option<u64>,
}

/// `ata_smart_data` (`-c`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSmartData {
    /// The self-test execution status and the recommended polling times.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_test: Option<AtaSelfTestData>,
    /// What the drive can do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<AtaCapabilities>,
}

/// `ata_smart_data.self_test`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSelfTestData {
    /// The self-test execution status byte.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<AtaSelfTestStatus>,
    /// Recommended polling times in minutes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub polling_minutes: Option<PollingMinutes>,
}

/// An ATA self-test execution status (the drive's status byte, decoded).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSelfTestStatus {
    /// The status byte: high nibble the result, low nibble the remaining tenths.
    pub value: u32,
    /// smartctl's text.
    pub string: String,
    /// Whether the test passed (absent while one runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// Percent left of a running test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remaining_percent: Option<u32>,
}

/// `ata_smart_data.self_test.polling_minutes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct PollingMinutes {
    /// Short self-test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub short: Option<u32>,
    /// Extended (long) self-test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended: Option<u32>,
    /// Conveyance self-test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conveyance: Option<u32>,
}

/// `ata_smart_data.capabilities` (the ones seekprobe reads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaCapabilities {
    /// Short and extended self-tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_tests_supported: Option<bool>,
    /// The conveyance self-test.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conveyance_self_test_supported: Option<bool>,
}

/// `ata_smart_self_test_log`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSelfTestLog {
    /// The SMART self-test log (`-l selftest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standard: Option<AtaSelfTestTable>,
    /// The extended self-test log (`-l xselftest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended: Option<AtaSelfTestTable>,
}

/// One ATA self-test log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSelfTestTable {
    /// Entries, most recent first.
    pub table: Vec<AtaSelfTestEntry>,
    /// Failed tests in the log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_count_total: Option<u32>,
}

/// One ATA self-test log entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSelfTestEntry {
    /// The test ("Short offline", "Extended offline", "Conveyance offline", ...).
    #[serde(rename = "type")]
    pub kind: ValueString,
    /// The status byte with smartctl's text and whether the test passed.
    pub status: AtaSelfTestStatus,
    /// Power-on hours when it ran.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub lifetime_hours: Option<u64>,
    /// The LBA of the first error (only when the test failed).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_lba"
    )]
    pub lba: Option<u64>,
}

/// `ata_smart_error_log`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaErrorLog {
    /// The SMART error log's summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<AtaErrorLogSummary>,
    /// The extended comprehensive error log (`-l xerror`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extended: Option<AtaErrorLogSummary>,
}

/// The count of an ATA error log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaErrorLogSummary {
    /// Errors the drive has logged over its life.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// `scsi_error_counter_log`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScsiErrorCounterLog {
    /// The error counters of reads; None when the drive reports none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<ScsiErrorCounter>,
    /// The error counters of writes; None when the drive reports none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<ScsiErrorCounter>,
    /// The error counters of verifies; None when the drive reports none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify: Option<ScsiErrorCounter>,
}

/// One SCSI error counter page (the counts seekprobe reads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScsiErrorCounter {
    /// Errors the drive could not correct.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub total_uncorrected_errors: Option<u64>,
    /// Errors the drive corrected, all kinds together; None when not reported.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub total_errors_corrected: Option<u64>,
}

/// One SCSI self-test result (`scsi_self_test_N`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScsiSelfTest {
    /// The test ("Background short", "Background long", ...).
    pub code: ValueString,
    /// The result (0 completed, 1–2 aborted, 3–7 failed, 15 in progress).
    pub result: ValueString,
    /// Power-on hours when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_on_time: Option<PowerOnTime>,
    /// The LBA of the first failure; None when the test passed or the drive does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lba_first_failure: Option<ScsiLba>,
    /// Set while the test runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_test_in_progress: Option<bool>,
}

/// `lba_first_failure`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ScsiLba {
    /// The LBA; None when it is not a non-negative whole number.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub value: Option<u64>,
}

#[cfg(test)]
mod tests;
