//! The counters the rules watch, their `--threshold NAME=N` names, how each is
//! judged and the limits that apply by default.

use crate::results::health::Health;
use serde::{Deserialize, Serialize};

/// A counter the rules watch, with the name its threshold option uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// ATA 5: reallocated sectors.
    Reallocated,
    /// ATA 196: reallocation events.
    ReallocationEvents,
    /// ATA 197: sectors pending reallocation.
    Pending,
    /// ATA 198: offline uncorrectable sectors.
    OfflineUncorrectable,
    /// ATA 187: reported uncorrectable errors.
    ReportedUncorrectable,
    /// SCSI: the grown defect list.
    GrownDefects,
    /// SCSI: uncorrected read, write and verify errors.
    Uncorrected,
    /// NVMe: media and data integrity errors.
    MediaErrors,
    /// ATA 188: command timeouts.
    CommandTimeouts,
    /// ATA 199: interface CRC errors.
    Crc,
    /// Power cycles (judged on a new drive only).
    PowerCycles,
    /// Head load/unload cycles (judged on a new drive only).
    LoadCycles,
    /// GiB written by the host (judged on a new drive only).
    HostWritesGib,
}

/// Uncorrected read, write and verify errors (SCSI error counter log pages
/// 03h, 02h, 05h: errors the drive returned to the host with the data lost) a
/// used drive may have before it fails. Each is the SCSI counterpart of ATA 187,
/// one of the five counts Backblaze takes as a failure sign (any above 0 is
/// investigated: "What SMART Stats Tell Us About Hard Drives", 2016); a handful
/// over years of service is a warning, more than this is a failing surface.
/// The cut is seekprobe's (docs/smart.md).
pub const SCSI_UNCORRECTED_FAIL_ABOVE: u64 = 10;

/// Grown defects (the drive's G-list: sectors remapped since it left the
/// factory) a used drive may have before it fails. Grown defects are rare on a
/// healthy drive (STB Suite: "in the real world it is rare for a drive to
/// accumulate grown defects"); Fujitsu's MBA3073RC SAS manual (C141-C013,
/// §7.6.3) has the drive itself predict failure at 300 G-list updates within
/// its sampling window. The cut, a third of that over the drive's life, is
/// seekprobe's (docs/smart.md).
pub const GROWN_DEFECTS_FAIL_ABOVE: u64 = 100;

/// How a counter above its limit is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Sectors the drive cannot read now (pending, offline uncorrectable): FAIL
    /// on any drive, and a rise FAILs.
    Unreadable,
    /// Sectors or errors already dealt with (reallocated, uncorrectable
    /// reported, media errors...): a warning on a used drive, FAIL on a new one;
    /// a rise FAILs.
    Damage,
    /// Faults of the path or the host as much as the drive (command timeouts):
    /// a warning on a used drive, FAIL on a new one; a rise is a warning.
    Timeouts,
    /// Interface CRC errors: the cable's; a rise is a warning, nothing else.
    Interface,
    /// How much the drive was used: judged on a new drive only.
    Use,
}

impl Counter {
    /// Every counter, in the order findings are given.
    pub const ALL: [Counter; 13] = [
        Counter::Reallocated,
        Counter::ReallocationEvents,
        Counter::Pending,
        Counter::OfflineUncorrectable,
        Counter::ReportedUncorrectable,
        Counter::GrownDefects,
        Counter::Uncorrected,
        Counter::MediaErrors,
        Counter::CommandTimeouts,
        Counter::Crc,
        Counter::PowerCycles,
        Counter::LoadCycles,
        Counter::HostWritesGib,
    ];

    /// The name used by `--threshold NAME=N`.
    pub fn key(self) -> &'static str {
        match self {
            Counter::Reallocated => "reallocated",
            Counter::ReallocationEvents => "reallocation-events",
            Counter::Pending => "pending",
            Counter::OfflineUncorrectable => "offline-uncorrectable",
            Counter::ReportedUncorrectable => "reported-uncorrectable",
            Counter::GrownDefects => "grown-defects",
            Counter::Uncorrected => "uncorrected",
            Counter::MediaErrors => "media-errors",
            Counter::CommandTimeouts => "command-timeouts",
            Counter::Crc => "crc",
            Counter::PowerCycles => "power-cycles",
            Counter::LoadCycles => "load-cycles",
            Counter::HostWritesGib => "host-writes-gib",
        }
    }

    /// What it counts, in words (plural).
    pub fn describe(self) -> &'static str {
        match self {
            Counter::Reallocated => "reallocated sectors (ATA 5)",
            Counter::ReallocationEvents => "reallocation events (ATA 196)",
            Counter::Pending => "pending sectors (ATA 197)",
            Counter::OfflineUncorrectable => "offline uncorrectable sectors (ATA 198)",
            Counter::ReportedUncorrectable => "reported uncorrectable errors (ATA 187)",
            Counter::GrownDefects => "grown defects (SCSI)",
            Counter::Uncorrected => "uncorrected read/write/verify errors (SCSI)",
            Counter::MediaErrors => "media and data integrity errors (NVMe)",
            Counter::CommandTimeouts => "command timeouts (ATA 188)",
            Counter::Crc => "UDMA CRC errors (ATA 199)",
            Counter::PowerCycles => "power cycles",
            Counter::LoadCycles => "head load cycles (ATA Load_Cycle_Count)",
            Counter::HostWritesGib => "GiB written by the host",
        }
    }

    /// How it is judged.
    pub fn kind(self) -> Kind {
        match self {
            Counter::Pending | Counter::OfflineUncorrectable => Kind::Unreadable,
            Counter::CommandTimeouts => Kind::Timeouts,
            Counter::Crc => Kind::Interface,
            Counter::PowerCycles | Counter::LoadCycles | Counter::HostWritesGib => Kind::Use,
            _ => Kind::Damage,
        }
    }

    /// The limit without `--threshold`: none tolerated of the health counters;
    /// for a new drive's use, seekprobe's small allowances for factory testing
    /// (docs/smart.md: they are seekprobe's choice, not a vendor's figure).
    pub fn default_limit(self) -> u64 {
        match self {
            Counter::PowerCycles => 20,
            Counter::LoadCycles => 100,
            Counter::HostWritesGib => 64,
            _ => 0,
        }
    }

    /// The count above which a used drive fails (a handful up to it is a
    /// warning): SCSI errors returned to the host uncorrected and grown defects
    /// (docs/smart.md gives the sources: [`SCSI_UNCORRECTED_FAIL_ABOVE`],
    /// [`GROWN_DEFECTS_FAIL_ABOVE`]). None: a used drive gets a warning at any count.
    pub fn used_fail_above(self) -> Option<u64> {
        match self {
            Counter::Uncorrected => Some(SCSI_UNCORRECTED_FAIL_ABOVE),
            Counter::GrownDefects => Some(GROWN_DEFECTS_FAIL_ABOVE),
            _ => None,
        }
    }

    /// What Backblaze or the standard makes of a count above 0 (said beside a
    /// warning).
    pub fn reading(self) -> &'static str {
        match self {
            Counter::Reallocated
            | Counter::ReportedUncorrectable
            | Counter::CommandTimeouts
            | Counter::Pending
            | Counter::OfflineUncorrectable => {
                "Backblaze investigates any drive whose raw SMART 5, 187, 188, 197 or 198 is above 0: they go with failure"
            }
            Counter::ReallocationEvents => {
                "each event is a sector the drive had to move: the surface has been failing"
            }
            Counter::GrownDefects => {
                "defects found since the drive left the factory (SBC's grown defect list)"
            }
            Counter::Uncorrected => "the drive returned data it could not correct",
            Counter::MediaErrors => {
                "unrecovered data integrity errors (NVMe SMART / Health log): data was lost"
            }
            Counter::Crc => "a cable, backplane or controller fault, not the drive's",
            Counter::PowerCycles | Counter::LoadCycles | Counter::HostWritesGib => {
                "more than factory testing leaves"
            }
        }
    }

    /// Where the count is read, for a finding's figure.
    pub fn source(self) -> &'static str {
        match self {
            Counter::Reallocated => "ATA attribute 5, raw",
            Counter::ReallocationEvents => "ATA attribute 196, raw",
            Counter::Pending => "ATA attribute 197, raw",
            Counter::OfflineUncorrectable => "ATA attribute 198, raw",
            Counter::ReportedUncorrectable => "ATA attribute 187, raw",
            Counter::GrownDefects => "scsi_grown_defect_list",
            Counter::Uncorrected => "scsi_error_counter_log total_uncorrected_errors",
            Counter::MediaErrors => "NVMe SMART / Health log media_errors",
            Counter::CommandTimeouts => "ATA attribute 188, raw",
            Counter::Crc => "ATA attribute 199, raw",
            Counter::PowerCycles => "power_cycle_count",
            Counter::LoadCycles => "ATA Load_Cycle_Count, raw",
            Counter::HostWritesGib => "host writes",
        }
    }

    /// Its value in a health reading, when the drive reports it.
    pub fn value(self, h: &Health) -> Option<u64> {
        let ata = h.ata.as_ref();
        let scsi = h.scsi.as_ref();
        match self {
            Counter::Reallocated => ata?.reallocated,
            Counter::ReallocationEvents => ata?.reallocation_events,
            Counter::Pending => ata?.pending,
            Counter::OfflineUncorrectable => ata?.offline_uncorrectable,
            Counter::ReportedUncorrectable => ata?.reported_uncorrectable,
            Counter::GrownDefects => scsi?.grown_defects,
            Counter::Uncorrected => {
                let s = scsi?;
                let parts = [
                    s.read_uncorrected,
                    s.write_uncorrected,
                    s.verify_uncorrected,
                ];
                parts.iter().any(Option::is_some).then(|| {
                    parts
                        .iter()
                        .flatten()
                        .fold(0u64, |a, b| a.saturating_add(*b))
                })
            }
            Counter::MediaErrors => h.nvme.as_ref()?.media_errors,
            Counter::CommandTimeouts => ata?.command_timeouts.map(|t| t.total),
            Counter::Crc => ata?.udma_crc_errors,
            Counter::PowerCycles => h.usage.power_cycles,
            Counter::LoadCycles => h.usage.load_cycles,
            Counter::HostWritesGib => h.usage.host_written_bytes.map(|b| b >> 30),
        }
    }

    /// Parse `NAME=N` (a `--threshold` value).
    pub fn parse_threshold(s: &str) -> Result<(Counter, u64), String> {
        let names: Vec<&str> = Counter::ALL.iter().map(|c| c.key()).collect();
        let (name, n) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: give NAME=N, NAME one of {}", names.join(", ")))?;
        let c = Counter::ALL
            .into_iter()
            .find(|c| c.key() == name)
            .ok_or_else(|| format!("{name:?}: unknown counter; use one of {}", names.join(", ")))?;
        let n = n
            .parse()
            .map_err(|_| format!("{s:?}: {n:?} is not a whole number"))?;
        Ok((c, n))
    }
}

/// How many of each counter are tolerated: on any drive (and a new one) at most
/// this many; during a run, a rise of at most this many. Without `--threshold`,
/// [`Counter::default_limit`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Counters with a limit given (`--threshold`).
    pub limits: Vec<(Counter, u64)>,
}

impl Thresholds {
    /// The limit of a counter (the last one given wins; else the default).
    pub fn limit(&self, c: Counter) -> u64 {
        self.limits
            .iter()
            .rev()
            .find(|(k, _)| *k == c)
            .map_or(c.default_limit(), |(_, n)| *n)
    }
}
