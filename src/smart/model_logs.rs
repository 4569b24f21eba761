//! smartctl's JSON beyond the health counters, as serde structs (every field
//! optional): the NVMe health and self-test logs, the SCT error recovery
//! control timers, the ATA device statistics and Seagate's FARM log (the
//! model re-exports them).

use super::lenient::{ValueString, lenient_lba, lenient_u64};
use serde::{Deserialize, Serialize};

/// `nvme_smart_health_information_log`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NvmeHealthLog {
    /// Critical warning bits (NVMe base specification, SMART/Health log byte 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub critical_warning: Option<u8>,
    /// Composite temperature (°C).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<i64>,
    /// Available spare, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_spare: Option<u32>,
    /// The threshold below which the spare is critical, percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub available_spare_threshold: Option<u32>,
    /// Percentage of the rated endurance used (may exceed 100).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentage_used: Option<u32>,
    /// Media and data integrity errors.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub media_errors: Option<u64>,
    /// Error information log entries.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub num_err_log_entries: Option<u64>,
    /// Power-on hours.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub power_on_hours: Option<u64>,
    /// Data units written by the host, in thousands of 512-byte units.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub data_units_written: Option<u64>,
    /// Power cycles.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub power_cycles: Option<u64>,
}

/// `nvme_self_test_log` (smartctl 7.4 and later).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NvmeSelfTestLog {
    /// The running operation (value 0: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_self_test_operation: Option<ValueString>,
    /// Percent done of the running test (only while one runs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_self_test_completion_percent: Option<u32>,
    /// Results, most recent first.
    pub table: Vec<NvmeSelfTestEntry>,
}

/// One NVMe self-test result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NvmeSelfTestEntry {
    /// 1 short, 2 extended, 14 vendor specific.
    pub self_test_code: ValueString,
    /// 0 completed without error, 1–4, 8, 9 aborted, 5–7 failed.
    pub self_test_result: ValueString,
    /// Power-on hours when it ran.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub power_on_hours: Option<u64>,
    /// The failing LBA, when the drive reports one.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_lba"
    )]
    pub lba: Option<u64>,
}

/// `ata_device_statistics` (`-l devstat`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct AtaDeviceStatistics {
    /// The log's pages, in smartctl's order.
    pub pages: Vec<DevstatPage>,
}

/// One device statistics page.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DevstatPage {
    /// The page's name, e.g. "Solid State Device Statistics".
    pub name: String,
    /// The page's statistics, in smartctl's order.
    pub table: Vec<DevstatEntry>,
}

/// One device statistic.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct DevstatEntry {
    /// The statistic's name, e.g. "Percentage Used Endurance Indicator".
    pub name: String,
    /// Its value as a whole number; None when smartctl's value is not one.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub value: Option<u64>,
}

/// `seagate_farm_log`: Seagate's Field Accessible Reliability Metrics (the pages
/// seekprobe reads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FarmLog {
    /// Page 1, the drive information.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_1_drive_information: Option<FarmDriveInformation>,
}

/// FARM page 1 (the fields seekprobe reads).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FarmDriveInformation {
    /// The serial number FARM holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial_number: Option<String>,
    /// Power-on hours, as FARM counts them.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub poh: Option<u64>,
    /// Hours the heads flew.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub head_flight_hours: Option<u64>,
    /// Power cycles, as FARM counts them.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "lenient_u64"
    )]
    pub power_cycle_count: Option<u64>,
    /// "CMR" or "SMR".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drive_recording_type: Option<String>,
}
