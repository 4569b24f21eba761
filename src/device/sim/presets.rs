//! Every preset's parameters: the rotating disks (`hdd`, calibrated on the published
//! ST2000DM001, and `hdd5400`) and flash (`ssd`, `nvme`). docs/sim.md gives the tables
//! and where each figure comes from.

use super::MIB;

/// Which preset a spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Preset {
    Hdd,
    Hdd5400,
    Ssd,
    Nvme,
    /// A 5400 rpm drive-managed SMR disk (smr.rs).
    Smr,
}

impl Preset {
    pub(super) fn parse(name: &str) -> Option<Preset> {
        match name {
            "hdd" => Some(Preset::Hdd),
            "hdd5400" => Some(Preset::Hdd5400),
            "ssd" => Some(Preset::Ssd),
            "nvme" => Some(Preset::Nvme),
            "smr" => Some(Preset::Smr),
            _ => None,
        }
    }

    /// Whether the preset is a rotating disk.
    pub(super) fn rotating(self) -> bool {
        matches!(self, Preset::Hdd | Preset::Hdd5400 | Preset::Smr)
    }
}

/// The seek curve, as fractions of the full stroke and milliseconds.
#[derive(Debug, Clone, Copy)]
pub(super) struct SeekSpec {
    /// A one-cylinder seek.
    pub(super) t2t_ms: f64,
    /// Switching heads within a cylinder.
    pub(super) head_switch_ms: f64,
    /// Where the square-root part ends (fraction of the stroke) and its time there.
    pub(super) sqrt_end: (f64, f64),
    /// Where the linear part starts and its time there (equal to `sqrt_end` for a
    /// single-profile curve; later and slower for a drive that switches to a slow
    /// long-seek profile).
    pub(super) long_start: (f64, f64),
    /// A full-stroke seek.
    pub(super) full_ms: f64,
}

/// Everything that defines a rotating-disk model.
#[derive(Debug, Clone)]
pub(super) struct HddParams {
    /// The rpm the zone table is defined at (track capacities are physical).
    pub(super) nominal_rpm: u32,
    /// The rotation rate simulated, in rpm: the preset's, or the spec's `rpm=`.
    pub(super) rpm: u32,
    /// Recording surfaces (tracks per cylinder).
    pub(super) heads: u32,
    /// Recording zones, equal in cylinders.
    pub(super) zones: u32,
    /// Media rate of the outermost zone at the nominal rpm, bytes/s.
    pub(super) outer_rate: f64,
    /// Media rate of the innermost zone at the nominal rpm, bytes/s.
    pub(super) inner_rate: f64,
    /// Shape of the zone profile: rate(x) = outer - (outer - inner) * x^exp, x the
    /// zone's position from the outer (0) to the inner (1) edge.
    pub(super) profile_exp: f64,
    /// Track skew, as a fraction of a revolution.
    pub(super) skew: f64,
    /// Seek times in ms at distances given as fractions of the full stroke.
    pub(super) seek: SeekSpec,
    /// Relative seek-time jitter (uniform, mean 0).
    pub(super) seek_jitter: f64,
    /// Command processing for every command (cache hit or not), ms.
    pub(super) cmd_overhead_ms: f64,
    /// Extra processing before a command that needs the media, ms.
    pub(super) media_overhead_ms: f64,
    /// Relative overhead jitter (uniform, mean 0).
    pub(super) overhead_jitter: f64,
    /// Effective host transfer rate at queue depth 1 (link, HBA, driver), bytes/s.
    pub(super) host_rate: f64,
    /// How far the drive reads ahead past the end of the last request, bytes.
    pub(super) read_ahead: u64,
    /// How much of the stream the read cache segment keeps behind the read-ahead.
    pub(super) cache_segment: u64,
    /// Volatile write cache, bytes.
    pub(super) write_cache: u64,
    /// Time spent retrying an unreadable sector before reporting EIO, revolutions.
    pub(super) error_recovery_revs: f64,
}

pub(super) fn hdd_params(preset: Preset) -> HddParams {
    match preset {
        // Calibrated on the published ST2000DM001 run (docs/sim.md).
        Preset::Hdd => HddParams {
            nominal_rpm: 7200,
            rpm: 7200,
            heads: 4,
            zones: 24,
            outer_rate: 205e6,
            inner_rate: 98.0e6,
            profile_exp: 2.05,
            skew: 0.12,
            seek: SeekSpec {
                t2t_ms: 0.8,
                head_switch_ms: 0.6,
                sqrt_end: (0.26, 4.4),
                long_start: (0.36, 11.4),
                full_ms: 17.8,
            },
            seek_jitter: 0.03,
            cmd_overhead_ms: 0.0604,
            media_overhead_ms: 0.1,
            overhead_jitter: 0.05,
            host_rate: 180e6,
            read_ahead: 4 * MIB,
            cache_segment: 32 * MIB,
            write_cache: 32 * MIB,
            error_recovery_revs: 16.0,
        },
        _ => HddParams {
            nominal_rpm: 5400,
            rpm: 5400,
            heads: 8,
            zones: 24,
            outer_rate: 175e6,
            inner_rate: 80e6,
            profile_exp: 1.5,
            skew: 0.1,
            seek: SeekSpec {
                t2t_ms: 1.0,
                head_switch_ms: 0.8,
                sqrt_end: (0.3, 10.0),
                long_start: (0.3, 10.0),
                full_ms: 19.0,
            },
            seek_jitter: 0.03,
            cmd_overhead_ms: 0.06,
            media_overhead_ms: 0.12,
            overhead_jitter: 0.05,
            host_rate: 550e6,
            read_ahead: 2 * MIB,
            cache_segment: 32 * MIB,
            write_cache: 32 * MIB,
            error_recovery_revs: 16.0,
        },
    }
}

/// Everything that defines a flash model.
#[derive(Debug, Clone)]
pub(super) struct FlashParams {
    /// Read latency (command to first byte), µs.
    pub(super) read_us: f64,
    /// Read bandwidth, bytes/s.
    pub(super) read_rate: f64,
    /// Write latency into the write cache, µs.
    pub(super) write_us: f64,
    /// Write bandwidth, bytes/s (also the rate a flush programs dirty data at).
    pub(super) write_rate: f64,
    /// Fixed cost of a flush, ms.
    pub(super) flush_ms: f64,
    /// Requests served at once.
    pub(super) parallelism: u32,
    /// Relative latency jitter (uniform, mean 0).
    pub(super) jitter: f64,
    /// Time spent before reporting EIO on an unreadable range, ms.
    pub(super) error_ms: f64,
}

pub(super) fn flash_params(preset: Preset) -> FlashParams {
    match preset {
        Preset::Nvme => FlashParams {
            read_us: 14.0,
            read_rate: 3.2e9,
            write_us: 12.0,
            write_rate: 2.6e9,
            flush_ms: 0.15,
            parallelism: 16,
            jitter: 0.08,
            error_ms: 1.0,
        },
        _ => FlashParams {
            read_us: 70.0,
            read_rate: 540e6,
            write_us: 40.0,
            write_rate: 480e6,
            flush_ms: 1.0,
            parallelism: 8,
            jitter: 0.08,
            error_ms: 2.0,
        },
    }
}
