//! A drive's health as one smartctl report tells it, as plain data: the counters,
//! the overall assessment, the self-test log, how much the drive was used and its
//! error recovery timers (decoding a report into it is the SMART module's).

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

/// smartctl's exit status, a bit mask (smartctl(8), EXIT STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ExitStatus(pub u32);

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
    /// The critical warning byte as the log gives it (0: none set); None if absent.
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
    /// The attribute ID (1–255).
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
    /// The attribute ID (1–255).
    pub id: u8,
    /// smartctl's name.
    pub name: String,
    /// smartctl's text for the raw value, as it was.
    pub raw: String,
    /// What the raw value held when it was neither a count nor negative (`the
    /// string "x"`, `the number 2.5, a fraction`); None otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
}

/// A drive's health as read from one smartctl report.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Health {
    /// The device name as smartctl reports it opened (e.g. `/dev/sda`); None if absent.
    pub device: Option<String>,
    /// Model (ATA/NVMe model name or SCSI vendor and product).
    pub model: Option<String>,
    /// Serial number.
    pub serial: Option<String>,
    /// Firmware revision (ATA and NVMe firmware version, SCSI product revision):
    /// the batch rules warn of a drive whose firmware differs from its model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<String>,
    /// The protocol smartctl spoke to the drive (ATA, SCSI, NVMe); None if it did not say.
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
    /// What of the parts the health rules stand on could not be read (the
    /// attribute table, the NVMe health log, a counter that is not a count),
    /// one line each: when any, the report cannot be judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudgeable: Vec<String>,
}

/// How a self-test in the drive's own log ended, or that it still runs (the
/// outcome of a self-test this run asked for is `results::smart::SelfTestOutcome`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggedOutcome {
    /// Completed without error.
    Passed,
    /// Failed (read, servo, electrical, handling, unknown element, fatal error).
    Failed,
    /// Aborted or interrupted (by the host, a reset, a format...): no verdict.
    Aborted,
    /// Still running.
    Running,
}

/// One self-test from the drive's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfTestResult {
    /// The test as smartctl names it ("Short offline", "Extended", ...).
    pub test: String,
    /// Passed, failed, aborted or running, decoded from smartctl's status.
    pub outcome: LoggedOutcome,
    /// smartctl's text for the outcome.
    pub status: String,
    /// Power-on hours when it ran.
    pub power_on_hours: Option<u64>,
    /// The LBA of the first error, when the test failed and the drive says.
    pub first_error_lba: Option<u64>,
}

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
    /// A written total in a unit in doubt or that cannot fit the power-on hours: unknown, never a
    /// figure (`host_written_bytes` is None then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_writes_unknown: Option<UnknownWrites>,
}

/// A host-write total that cannot be the bytes the drive wrote in its hours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnknownWrites {
    /// Where it was read, e.g. "ATA 241 Total_LBAs_Written".
    pub source: String,
    /// The raw written total, in the drive's own unit.
    pub raw: u64,
    /// Why it cannot be taken as bytes, with the figures.
    pub why: String,
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

/// `ata_sct_erc`: the SCT error recovery control timers (ataprint.cpp).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaSctErc {
    /// How long a read may retry before it reports an error; None if not reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<ErcTimer>,
    /// How long a write may retry before it reports an error; None if not reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write: Option<ErcTimer>,
}

/// One SCT ERC timer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ErcTimer {
    /// Whether the timer is on (off: the drive retries as long as it likes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Recovery time limit in tenths of a second (70 is 7 s); None if not reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deciseconds: Option<u32>,
}
