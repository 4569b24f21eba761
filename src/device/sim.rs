//! Simulated drives on a virtual clock (`sim:PRESET[?key=value&...]`).
//!
//! A [`SimTarget`] serves reads, writes and flushes from a physical model and advances
//! a [`VirtualClock`] by each operation's service time; no data is stored and buffers
//! are only zero-filled. Two models exist:
//!
//! - a rotating disk (`hdd`, `hdd5400`): zoned recording, a seek curve over distance in
//!   cylinders, the platter's angle derived from the clock (so the rotational wait
//!   after a seek depends on where the platter is when the seek ends), per-command
//!   overheads, a read-ahead cache segment and a volatile write cache;
//! - flash (`ssd`, `nvme`): flat latency plus size over bandwidth, with internal
//!   parallelism for queued requests.
//!
//! Faults are injected by parameters: unreadable ranges (EIO), slow ranges and a lying
//! flush. docs/sim.md gives every formula and parameter.

use super::{DeviceInfo, IoMode, QueueModel, Rotation, Target, TargetKind};
use crate::clock::{Clock, VirtualClock};
use crate::error::ProbeError;
use crate::probe::{Op, OpKind};
use std::io;

/// Nanoseconds per millisecond.
const MS: f64 = 1e6;
/// Nanoseconds per microsecond.
const US: f64 = 1e3;
/// One mebibyte.
const MIB: u64 = 1 << 20;
/// The largest simulated media size (1 PiB).
const MAX_SIZE: u64 = 1 << 50;

/// The preset names accepted after `sim:`.
pub const PRESETS: &[&str] = &["hdd", "hdd5400", "ssd", "nvme"];

/// The keys accepted after `?`, with their values, for error messages.
const ACCEPTED_KEYS: &str = "rpm=RPM (hdd presets, 3600-15000), \
size=BYTES[K|M|G|T|P] (binary suffixes), sector=512|4096, seed=U64, \
bad=START-END[,START-END...] (logical sectors, end exclusive), \
slow=START-END:MS[,...] (added milliseconds), lying_flush=0|1";

// ---------------------------------------------------------------------------------
// The spec: sim:PRESET[?key=value&...]
// ---------------------------------------------------------------------------------

/// Which preset a spec names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Preset {
    Hdd,
    Hdd5400,
    Ssd,
    Nvme,
}

impl Preset {
    fn parse(name: &str) -> Option<Preset> {
        match name {
            "hdd" => Some(Preset::Hdd),
            "hdd5400" => Some(Preset::Hdd5400),
            "ssd" => Some(Preset::Ssd),
            "nvme" => Some(Preset::Nvme),
            _ => None,
        }
    }
    fn rotating(self) -> bool {
        matches!(self, Preset::Hdd | Preset::Hdd5400)
    }
}

/// A parsed spec, before the model is built.
#[derive(Debug, Clone)]
struct Spec {
    preset: Preset,
    rpm: Option<u32>,
    size: Option<u64>,
    sector: Option<u32>,
    seed: u64,
    /// Unreadable ranges in logical sectors, end exclusive.
    bad: Vec<(u64, u64)>,
    /// Slow ranges in logical sectors, end exclusive, with the added milliseconds.
    slow: Vec<(u64, u64, f64)>,
    lying_flush: bool,
}

/// The default seed when `seed=` is not given.
const DEFAULT_SEED: u64 = 1;

fn parse_spec(spec: &str) -> Result<Spec, String> {
    let rest = spec
        .strip_prefix("sim:")
        .ok_or_else(|| "a simulated drive is named sim:PRESET[?key=value&...]".to_string())?;
    let (name, query) = match rest.split_once('?') {
        Some((n, q)) => (n, Some(q)),
        None => (rest, None),
    };
    let preset = Preset::parse(name).ok_or_else(|| {
        format!(
            "unknown simulated drive preset \"{name}\"; presets: {}",
            PRESETS.join(", ")
        )
    })?;
    let mut s = Spec {
        preset,
        rpm: None,
        size: None,
        sector: None,
        seed: DEFAULT_SEED,
        bad: Vec::new(),
        slow: Vec::new(),
        lying_flush: false,
    };
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("\"{pair}\" is not key=value; accepted: {ACCEPTED_KEYS}"))?;
        let bad_value = |what: &str| format!("{key}={value}: {what}");
        match key {
            "rpm" => {
                let rpm: u32 = parse_uint(value)
                    .and_then(|v| u32::try_from(v).ok())
                    .ok_or_else(|| bad_value("expected a whole number of rpm, 3600 to 15000"))?;
                if !(3600..=15000).contains(&rpm) {
                    return Err(bad_value("rpm must be between 3600 and 15000"));
                }
                s.rpm = Some(rpm);
            }
            "size" => {
                let size = parse_size(value).ok_or_else(|| {
                    bad_value("expected bytes, optionally with a binary suffix K, M, G, T or P (e.g. 500G)")
                })?;
                if size == 0 || size > MAX_SIZE {
                    return Err(bad_value("the size must be between one sector and 1 PiB"));
                }
                s.size = Some(size);
            }
            "sector" => match value {
                "512" => s.sector = Some(512),
                "4096" => s.sector = Some(4096),
                _ => return Err(bad_value("the logical sector size must be 512 or 4096")),
            },
            "seed" => {
                s.seed = parse_uint(value)
                    .ok_or_else(|| bad_value("expected an unsigned 64-bit number"))?;
            }
            "bad" => {
                for r in value.split(',') {
                    s.bad.push(parse_range(r).map_err(|m| bad_value(&m))?);
                }
            }
            "slow" => {
                for item in value.split(',') {
                    let (r, ms) = item.rsplit_once(':').ok_or_else(|| {
                        bad_value("expected START-END:MS (logical sectors, milliseconds)")
                    })?;
                    let (a, b) = parse_range(r).map_err(|m| bad_value(&m))?;
                    let ms: f64 = ms
                        .parse()
                        .ok()
                        .filter(|m: &f64| m.is_finite() && (0.0..=3_600_000.0).contains(m))
                        .ok_or_else(|| {
                            bad_value("the added latency must be milliseconds, 0 to 3600000")
                        })?;
                    s.slow.push((a, b, ms));
                }
            }
            "lying_flush" => {
                s.lying_flush = match value {
                    "1" | "true" | "yes" => true,
                    "0" | "false" | "no" => false,
                    _ => return Err(bad_value("expected 0 or 1")),
                }
            }
            _ => return Err(format!("unknown key \"{key}\"; accepted: {ACCEPTED_KEYS}")),
        }
    }
    if s.rpm.is_some() && !s.preset.rotating() {
        return Err(format!(
            "rpm= applies only to the rotating presets (hdd, hdd5400), not to {name}"
        ));
    }
    Ok(s)
}

/// A decimal or 0x-prefixed hexadecimal unsigned number.
fn parse_uint(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => v.parse().ok(),
        None => None,
    }
}

/// Bytes with an optional binary suffix K, M, G, T or P (case-insensitive).
fn parse_size(v: &str) -> Option<u64> {
    let (digits, shift) = match v.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => (&v[..v.len() - 1], 10),
        b'M' => (&v[..v.len() - 1], 20),
        b'G' => (&v[..v.len() - 1], 30),
        b'T' => (&v[..v.len() - 1], 40),
        b'P' => (&v[..v.len() - 1], 50),
        _ => (v, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1u64 << shift)
}

/// `START-END` in logical sectors, START < END.
fn parse_range(r: &str) -> Result<(u64, u64), String> {
    let (a, b) = r
        .split_once('-')
        .ok_or_else(|| format!("\"{r}\" is not a sector range START-END"))?;
    let (a, b) = match (parse_uint(a), parse_uint(b)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err(format!("\"{r}\": START and END must be sector numbers")),
    };
    if a >= b {
        return Err(format!(
            "\"{r}\": START must be below END (the end is exclusive)"
        ));
    }
    Ok((a, b))
}

// ---------------------------------------------------------------------------------
// A tiny deterministic PRNG (splitmix64)
// ---------------------------------------------------------------------------------

/// splitmix64: small, fast, and identical on every platform.
#[derive(Debug, Clone)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// A multiplier uniform in [1 - amp, 1 + amp] (mean 1).
    fn jitter(&mut self, amp: f64) -> f64 {
        1.0 + amp * (2.0 * self.unit() - 1.0)
    }
}

/// The fractional part, in [0, 1), also for negative numbers.
fn frac(x: f64) -> f64 {
    x - x.floor()
}

// ---------------------------------------------------------------------------------
// Rotating disk: parameters
// ---------------------------------------------------------------------------------

/// The seek curve, as fractions of the full stroke and milliseconds.
#[derive(Debug, Clone, Copy)]
struct SeekSpec {
    /// A one-cylinder seek.
    t2t_ms: f64,
    /// Switching heads within a cylinder.
    head_switch_ms: f64,
    /// Where the square-root part ends (fraction of the stroke) and its time there.
    sqrt_end: (f64, f64),
    /// Where the linear part starts and its time there (equal to `sqrt_end` for a
    /// single-profile curve; later and slower for a drive that switches to a slow
    /// long-seek profile).
    long_start: (f64, f64),
    /// A full-stroke seek.
    full_ms: f64,
}

/// Everything that defines a rotating-disk model.
#[derive(Debug, Clone)]
struct HddParams {
    /// The rpm the zone table is defined at (track capacities are physical).
    nominal_rpm: u32,
    /// The rotation rate simulated.
    rpm: u32,
    /// Recording surfaces (tracks per cylinder).
    heads: u32,
    /// Recording zones, equal in cylinders.
    zones: u32,
    /// Media rate of the outermost zone at the nominal rpm, bytes/s.
    outer_rate: f64,
    /// Media rate of the innermost zone at the nominal rpm, bytes/s.
    inner_rate: f64,
    /// Shape of the zone profile: rate(x) = outer - (outer - inner) * x^exp, x the
    /// zone's position from the outer (0) to the inner (1) edge.
    profile_exp: f64,
    /// Track skew, as a fraction of a revolution.
    skew: f64,
    /// The seek curve.
    seek: SeekSpec,
    /// Relative seek-time jitter (uniform, mean 0).
    seek_jitter: f64,
    /// Command processing for every command (cache hit or not), ms.
    cmd_overhead_ms: f64,
    /// Extra processing before a command that needs the media, ms.
    media_overhead_ms: f64,
    /// Relative overhead jitter (uniform, mean 0).
    overhead_jitter: f64,
    /// Effective host transfer rate at queue depth 1 (link, HBA, driver), bytes/s.
    host_rate: f64,
    /// How far the drive reads ahead past the end of the last request, bytes.
    read_ahead: u64,
    /// How much of the stream the read cache segment keeps behind the read-ahead.
    cache_segment: u64,
    /// Volatile write cache, bytes.
    write_cache: u64,
    /// Time spent retrying an unreadable sector before reporting EIO, revolutions.
    error_recovery_revs: f64,
}

fn hdd_params(preset: Preset) -> HddParams {
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

// ---------------------------------------------------------------------------------
// Rotating disk: geometry
// ---------------------------------------------------------------------------------

/// A recording zone: consecutive tracks of equal capacity.
#[derive(Debug, Clone, Copy)]
struct Zone {
    first_track: u64,
    first_byte: u64,
    track_bytes: u64,
}

/// Where bytes are on the platters.
#[derive(Debug, Clone)]
struct Geometry {
    zones: Vec<Zone>,
    heads: u64,
    cylinders: u64,
    tracks: u64,
    skew: f64,
}

impl Geometry {
    /// Zones of equal cylinder count whose track capacity follows the profile, with
    /// enough cylinders for `media` bytes.
    fn build(p: &HddParams, media: u64, phys: u64) -> Geometry {
        let nz = u64::from(p.zones.max(1));
        let rev_s = 60.0 / f64::from(p.nominal_rpm);
        let track_bytes: Vec<u64> = (0..nz)
            .map(|z| {
                let x = if nz > 1 {
                    z as f64 / (nz - 1) as f64
                } else {
                    0.0
                };
                let rate = p.outer_rate - (p.outer_rate - p.inner_rate) * x.powf(p.profile_exp);
                let bytes = rate * rev_s * (1.0 + p.skew);
                ((bytes / phys as f64).floor() as u64).max(1) * phys
            })
            .collect();
        let heads = u64::from(p.heads.max(1));
        let per_cyl_all: u64 = track_bytes.iter().sum::<u64>() * heads;
        let cyl_per_zone = media.div_ceil(per_cyl_all).max(1);
        let mut zones = Vec::with_capacity(track_bytes.len());
        let (mut track, mut byte) = (0u64, 0u64);
        for b in track_bytes {
            zones.push(Zone {
                first_track: track,
                first_byte: byte,
                track_bytes: b,
            });
            track += cyl_per_zone * heads;
            byte += cyl_per_zone * heads * b;
        }
        let mut g = Geometry {
            zones,
            heads,
            cylinders: cyl_per_zone * nz,
            tracks: track,
            skew: p.skew,
        };
        // The last zone is only partly used: the stroke ends at the last cylinder
        // that holds data.
        let last_track = g.locate(media.saturating_sub(1)).0;
        g.cylinders = g.cylinder(last_track) + 1;
        g.tracks = g.cylinders * heads;
        g
    }

    fn zone_of_byte(&self, x: u64) -> &Zone {
        let i = self.zones.partition_point(|z| z.first_byte <= x);
        &self.zones[i.saturating_sub(1)]
    }

    fn zone_of_track(&self, t: u64) -> &Zone {
        let i = self.zones.partition_point(|z| z.first_track <= t);
        &self.zones[i.saturating_sub(1)]
    }

    /// (track, byte within the track, track capacity) of byte `x`.
    fn locate(&self, x: u64) -> (u64, u64, u64) {
        let z = self.zone_of_byte(x);
        let rel = x - z.first_byte;
        (
            z.first_track + rel / z.track_bytes,
            rel % z.track_bytes,
            z.track_bytes,
        )
    }

    fn track_start(&self, t: u64) -> u64 {
        let z = self.zone_of_track(t);
        z.first_byte + (t - z.first_track) * z.track_bytes
    }

    /// Position of byte `x` on the stream scale, in revolutions: every track takes
    /// one revolution plus the skew, so frac(tau) is the byte's angle.
    fn tau(&self, x: u64) -> f64 {
        let (t, k, b) = self.locate(x);
        t as f64 * (1.0 + self.skew) + k as f64 / b as f64
    }

    /// Where reading ends after byte `x - 1` (x > 0), on the same scale.
    fn end_tau(&self, x: u64) -> f64 {
        let (t, k, b) = self.locate(x.saturating_sub(1));
        t as f64 * (1.0 + self.skew) + (k + 1) as f64 / b as f64
    }

    fn cylinder(&self, track: u64) -> u64 {
        track / self.heads
    }
}

/// The seek curve in cylinders.
#[derive(Debug, Clone, Copy)]
struct SeekCurve {
    t2t: f64,
    head_switch: f64,
    coeff: f64,
    knee1: f64,
    knee1_ns: f64,
    knee2: f64,
    knee2_ns: f64,
    slope: f64,
}

impl SeekCurve {
    fn new(s: &SeekSpec, cylinders: u64) -> SeekCurve {
        let span = cylinders.saturating_sub(1).max(1) as f64;
        let knee1 = (s.sqrt_end.0 * span).max(1.0);
        let knee2 = (s.long_start.0 * span).max(knee1);
        let coeff = if knee1 > 1.0 {
            (s.sqrt_end.1 - s.t2t_ms) * MS / (knee1.sqrt() - 1.0)
        } else {
            0.0
        };
        let knee1_ns = s.t2t_ms * MS + coeff * (knee1.sqrt() - 1.0);
        let knee2_ns = (s.long_start.1 * MS).max(knee1_ns);
        let slope = if span > knee2 {
            ((s.full_ms * MS - knee2_ns) / (span - knee2)).max(0.0)
        } else {
            0.0
        };
        SeekCurve {
            t2t: s.t2t_ms * MS,
            head_switch: s.head_switch_ms * MS,
            coeff,
            knee1,
            knee1_ns,
            knee2,
            knee2_ns,
            slope,
        }
    }

    /// The nominal time to seek `d` cylinders, ns (0 for no seek).
    fn seek_ns(&self, d: u64) -> f64 {
        if d == 0 {
            return 0.0;
        }
        let d = d as f64;
        if d <= self.knee1 {
            self.t2t + self.coeff * (d.sqrt() - 1.0)
        } else if d < self.knee2 {
            let f = (d - self.knee1) / (self.knee2 - self.knee1);
            self.knee1_ns + f * (self.knee2_ns - self.knee1_ns)
        } else {
            self.knee2_ns + self.slope * (d - self.knee2)
        }
    }
}

// ---------------------------------------------------------------------------------
// Rotating disk: state and service
// ---------------------------------------------------------------------------------

/// The head streaming sequentially into the cache: it started reading byte `origin`
/// at time `t_origin` and goes on until `stop`; the cache holds [lo, position).
#[derive(Debug, Clone, Copy)]
struct Stream {
    origin: u64,
    origin_tau: f64,
    t_origin: f64,
    lo: u64,
    stop: u64,
}

#[derive(Debug, Clone)]
struct Hdd {
    p: HddParams,
    geo: Geometry,
    seek: SeekCurve,
    rev_ns: f64,
    /// The platter's angle at time 0, as a time offset into the revolution.
    phase_ns: f64,
    /// Usable bytes (whole logical sectors).
    media_end: u64,
    sector: u64,
    stream: Option<Stream>,
    head_track: u64,
    busy_until: f64,
    /// Dirty extents in the write cache, sorted and merged.
    dirty: Vec<(u64, u64)>,
}

impl Hdd {
    fn new(p: HddParams, media_end: u64, sector: u64, phys: u64, rng: &mut SplitMix64) -> Hdd {
        let geo = Geometry::build(&p, media_end, phys);
        let seek = SeekCurve::new(&p.seek, geo.cylinders);
        let rev_ns = 60e9 / f64::from(p.rpm);
        let phase_ns = rng.unit() * rev_ns;
        Hdd {
            p,
            geo,
            seek,
            rev_ns,
            phase_ns,
            media_end,
            sector,
            stream: None,
            head_track: 0,
            busy_until: 0.0,
            dirty: Vec::new(),
        }
    }

    /// The wait from time `t` until the byte at stream position `tau` is under the
    /// head (the head being on its track).
    fn wait_for(&self, t: f64, tau: f64) -> f64 {
        frac(tau - (t + self.phase_ns) / self.rev_ns) * self.rev_ns
    }

    /// The time at which the stream has read everything below `x`.
    fn stream_time(&self, s: &Stream, x: u64) -> f64 {
        if x <= s.origin {
            s.t_origin
        } else {
            s.t_origin + (self.geo.end_tau(x) - s.origin_tau) * self.rev_ns
        }
    }

    /// How far the stream has read at time `t` (whole logical sectors).
    fn stream_pos(&self, s: &Stream, t: f64) -> u64 {
        if t <= s.t_origin {
            return s.origin;
        }
        let e = (t - s.t_origin) / self.rev_ns + s.origin_tau;
        let per = 1.0 + self.geo.skew;
        let tr = (e / per).floor();
        let r = e - tr * per;
        let track = (tr.max(0.0) as u64).min(self.geo.tracks.saturating_sub(1));
        let pos = if r >= 1.0 {
            self.geo.track_start(track + 1)
        } else {
            let b = self.geo.zone_of_track(track).track_bytes;
            let k = ((r.max(0.0) * b as f64) as u64 / self.sector) * self.sector;
            self.geo.track_start(track) + k
        };
        pos.clamp(s.origin, s.stop.max(s.origin))
    }

    fn head_track_at(&self, t: f64) -> u64 {
        match &self.stream {
            Some(s) => {
                let pos = self.stream_pos(s, t);
                let x = if pos > s.origin { pos - 1 } else { s.origin };
                self.geo.locate(x.min(self.media_end.saturating_sub(1))).0
            }
            None => self.head_track,
        }
    }

    /// Let the read-ahead go on to `b` plus the read-ahead distance; a stream that had
    /// stopped restarts when its next byte comes round again.
    fn extend(&self, s: &mut Stream, t: f64, b: u64) {
        let new_stop = self.media_end.min(s.stop.max(b + self.p.read_ahead));
        if new_stop <= s.stop {
            return;
        }
        if self.stream_time(s, s.stop) <= t {
            let tau = self.geo.tau(s.stop);
            s.t_origin = t + self.wait_for(t, tau);
            s.origin = s.stop;
            s.origin_tau = tau;
        }
        s.stop = new_stop;
        s.lo = s.lo.max(new_stop.saturating_sub(self.p.cache_segment));
    }

    /// The nominal positioning time from track `from` to track `to`.
    fn seek_between(&self, from: u64, to: u64) -> f64 {
        let d = self.geo.cylinder(from).abs_diff(self.geo.cylinder(to));
        if d == 0 {
            if from == to {
                0.0
            } else {
                self.seek.head_switch
            }
        } else {
            self.seek.seek_ns(d)
        }
    }

    /// A media access to [a, b) starting at `t`: seek, rotational wait, transfer.
    /// Returns (time the first byte is under the head, time the last is read).
    fn access(&self, t: f64, a: u64, b: u64, rng: &mut SplitMix64) -> (f64, f64) {
        let from = self.head_track_at(t);
        let (to, _, _) = self.geo.locate(a);
        let seek = self.seek_between(from, to) * rng.jitter(self.p.seek_jitter);
        let t2 = t + seek;
        let tau_a = self.geo.tau(a);
        let t3 = t2 + self.wait_for(t2, tau_a);
        (t3, t3 + (self.geo.end_tau(b) - tau_a) * self.rev_ns)
    }

    fn overhead(&self, rng: &mut SplitMix64) -> f64 {
        self.p.cmd_overhead_ms * MS * rng.jitter(self.p.overhead_jitter)
    }

    fn host_ns(&self, len: u64) -> f64 {
        len as f64 * 1e9 / self.p.host_rate
    }

    /// Serve a read of [a, a + len) that arrives at `t0` (the drive being free);
    /// returns its completion time.
    fn read(&mut self, t0: f64, a: u64, len: u64, rng: &mut SplitMix64) -> f64 {
        let b = a + len;
        let ovh = self.overhead(rng);
        let host_done = t0 + ovh + self.host_ns(len);
        if let Some(mut s) = self.stream
            && a >= s.lo
        {
            let pos = self.stream_pos(&s, t0);
            if b <= pos {
                // Entirely in the cache.
                self.extend(&mut s, t0, b);
                self.stream = Some(s);
                return host_done;
            }
            let slack = self
                .geo
                .zone_of_byte(pos.min(self.media_end - 1))
                .track_bytes;
            if a <= pos + slack {
                // At or just ahead of the read-ahead: keep streaming.
                self.extend(&mut s, t0, b);
                let media_done = self.stream_time(&s, b);
                self.stream = Some(s);
                return host_done.max(media_done);
            }
        }
        let t1 = t0 + ovh + self.p.media_overhead_ms * MS * rng.jitter(self.p.overhead_jitter);
        let (t3, media_done) = self.access(t1, a, b, rng);
        self.stream = Some(Stream {
            origin: a,
            origin_tau: self.geo.tau(a),
            t_origin: t3,
            lo: a,
            stop: self.media_end.min(b + self.p.read_ahead),
        });
        media_done.max(t3 + self.host_ns(len))
    }

    /// After a read error: the read-ahead is abandoned, the head stays on the track.
    fn abort_stream(&mut self, a: u64) {
        self.stream = None;
        self.head_track = self.geo.locate(a).0;
    }

    /// Write back every dirty extent in ascending order from time `t`; returns the
    /// time the last one is on the media.
    fn write_back(&mut self, mut t: f64, rng: &mut SplitMix64) -> f64 {
        let dirty = std::mem::take(&mut self.dirty);
        for (a, b) in dirty {
            let t1 = t + self.p.media_overhead_ms * MS * rng.jitter(self.p.overhead_jitter);
            let (_, done) = self.access(t1, a, b, rng);
            self.stream = None;
            self.head_track = self.geo.locate(b - 1).0;
            t = done;
        }
        t
    }

    /// Serve a write of [a, a + len) into the write cache; returns its completion.
    fn write(&mut self, t0: f64, a: u64, len: u64, rng: &mut SplitMix64) -> f64 {
        let ovh = self.overhead(rng);
        let mut t = t0;
        if self.dirty_bytes() + len > self.p.write_cache {
            t = self.write_back(t, rng);
        }
        add_extent(&mut self.dirty, a, a + len);
        t + ovh + self.host_ns(len)
    }

    /// Serve a cache flush; returns its completion.
    fn flush(&mut self, t0: f64, lying: bool, rng: &mut SplitMix64) -> f64 {
        let t = t0 + self.overhead(rng);
        if lying { t } else { self.write_back(t, rng) }
    }

    fn dirty_bytes(&self) -> u64 {
        self.dirty.iter().map(|(a, b)| b - a).sum()
    }
}

/// Insert [a, b) into sorted, merged extents.
fn add_extent(v: &mut Vec<(u64, u64)>, a: u64, b: u64) {
    let i = v.partition_point(|e| e.1 < a);
    let mut j = i;
    let (mut lo, mut hi) = (a, b);
    while j < v.len() && v[j].0 <= b {
        lo = lo.min(v[j].0);
        hi = hi.max(v[j].1);
        j += 1;
    }
    v.splice(i..j, [(lo, hi)]);
}

// ---------------------------------------------------------------------------------
// Flash
// ---------------------------------------------------------------------------------

/// Everything that defines a flash model.
#[derive(Debug, Clone)]
struct FlashParams {
    /// Read latency (command to first byte), µs.
    read_us: f64,
    /// Read bandwidth, bytes/s.
    read_rate: f64,
    /// Write latency into the write cache, µs.
    write_us: f64,
    /// Write bandwidth, bytes/s (also the rate a flush programs dirty data at).
    write_rate: f64,
    /// Fixed cost of a flush, ms.
    flush_ms: f64,
    /// Requests served at once.
    parallelism: u32,
    /// Relative latency jitter (uniform, mean 0).
    jitter: f64,
    /// Time spent before reporting EIO on an unreadable range, ms.
    error_ms: f64,
}

fn flash_params(preset: Preset) -> FlashParams {
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

#[derive(Debug, Clone)]
struct Flash {
    p: FlashParams,
    dirty_bytes: u64,
    /// When the shared transfer path (the interface) is next free, in ns: requests
    /// overlap their latencies, but their transfers share the bandwidth.
    bus_free: f64,
}

impl Flash {
    /// An access starting at `start` (ns): its latency, then its transfer once the
    /// shared bandwidth is free. Returns its duration.
    fn access_ns(&mut self, kind: Kind, start: f64, len: u64, rng: &mut SplitMix64) -> f64 {
        let (us, rate) = match kind {
            Kind::Read => (self.p.read_us, self.p.read_rate),
            Kind::Write => {
                self.dirty_bytes += len;
                (self.p.write_us, self.p.write_rate)
            }
        };
        let ready = start + us * US * rng.jitter(self.p.jitter);
        let done = ready.max(self.bus_free) + len as f64 * 1e9 / rate;
        self.bus_free = done;
        done - start
    }
    fn flush_ns(&mut self, lying: bool, rng: &mut SplitMix64) -> f64 {
        let cmd = 2.0 * US * rng.jitter(self.p.jitter);
        if lying {
            return cmd;
        }
        let dirty = std::mem::take(&mut self.dirty_bytes);
        cmd + self.p.flush_ms * MS + dirty as f64 * 1e9 / self.p.write_rate
    }
}

// ---------------------------------------------------------------------------------
// The target
// ---------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Model {
    Hdd(Box<Hdd>),
    Flash(Flash),
}

/// What an operation does, for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
}

/// A simulated drive: a physical model that advances a virtual clock.
///
/// Open one with [`SimTarget::open`]; it implements [`Target`] (reads, writes,
/// flushes, each advancing the clock by its service time) and [`QueueModel`] (the
/// same service times without advancing the clock, for a queued engine).
pub struct SimTarget {
    info: DeviceInfo,
    clock: VirtualClock,
    model: Model,
    rng: SplitMix64,
    /// Unreadable byte ranges.
    bad: Vec<(u64, u64)>,
    /// Slow byte ranges and their added ns.
    slow: Vec<(u64, u64, f64)>,
    lying_flush: bool,
}

impl SimTarget {
    /// Open a simulated drive from its spec, e.g. `sim:hdd`, `sim:hdd?rpm=5400&seed=7`
    /// or `sim:ssd?size=64G&bad=1000-1008`. The spec syntax, presets and model are
    /// described in docs/sim.md; an unknown preset or key, or a bad value, gives
    /// [`ProbeError::BadSim`] with what is accepted.
    pub fn open(spec: &str) -> Result<Self, ProbeError> {
        let bad_sim = |msg: String| ProbeError::BadSim {
            spec: spec.to_string(),
            msg,
        };
        let s = parse_spec(spec).map_err(bad_sim)?;
        let (default_size, logical, physical) = match s.preset {
            Preset::Hdd => (2_000_398_934_016u64, 512u32, 4096u32),
            Preset::Hdd5400 => (4_000_787_030_016, 512, 4096),
            Preset::Ssd => (500_107_862_016, 512, 4096),
            Preset::Nvme => (1_000_204_886_016, 512, 512),
        };
        let logical = s.sector.unwrap_or(logical);
        let physical = physical.max(logical);
        let ss = u64::from(logical);
        let size = match s.size {
            Some(size) if !size.is_multiple_of(ss) => {
                return Err(bad_sim(format!(
                    "size={size} is not a multiple of the {logical}-byte sector size"
                )));
            }
            Some(size) => size,
            // A preset's size, rounded down to whole sectors of the chosen size.
            None => default_size / ss * ss,
        };
        let to_bytes = |(a, b): (u64, u64)| -> Result<(u64, u64), ProbeError> {
            match (a.checked_mul(ss), b.checked_mul(ss)) {
                (Some(a), Some(b)) => Ok((a, b)),
                _ => Err(bad_sim(format!(
                    "sector range {a}-{b} is beyond any device ({logical}-byte sectors)"
                ))),
            }
        };
        let bad = s
            .bad
            .iter()
            .map(|&r| to_bytes(r))
            .collect::<Result<Vec<_>, _>>()?;
        let slow = s
            .slow
            .iter()
            .map(|&(a, b, ms)| to_bytes((a, b)).map(|(a, b)| (a, b, ms * MS)))
            .collect::<Result<Vec<_>, _>>()?;

        let mut rng = SplitMix64(s.seed);
        let mut info = DeviceInfo::new(spec, spec, TargetKind::Simulated);
        info.sector_size = logical;
        info.physical_sector_size = physical;
        info.media_size_bytes = size;
        info.stripe_size_bytes = if physical > logical {
            u64::from(physical)
        } else {
            0
        };
        info.stripe_offset_bytes = 0;
        info.attachment = Some("sim".to_string());
        info.io_mode = IoMode::Simulated;
        let serial = SplitMix64(s.seed ^ 0x5EED_5EED).next_u64() & 0xF_FFFF;
        let model = if s.preset.rotating() {
            let mut p = hdd_params(s.preset);
            if let Some(rpm) = s.rpm {
                p.rpm = rpm;
            }
            let hdd = Hdd::new(p, size, ss, u64::from(physical), &mut rng);
            info.fw_heads = 255;
            info.fw_sectors = 63;
            info.trim = false;
            info.rotation = Rotation::Rpm(hdd.p.rpm);
            info.descr = Some(match s.preset {
                Preset::Hdd => format!("Simulated {} rpm HDD (ST2000DM001-like)", hdd.p.rpm),
                _ => format!("Simulated {} rpm HDD", hdd.p.rpm),
            });
            info.ident = Some(format!("SIMH{serial:05X}"));
            Model::Hdd(Box::new(hdd))
        } else {
            let p = flash_params(s.preset);
            let nvme = s.preset == Preset::Nvme;
            info.fw_heads = if nvme { 0 } else { 16 };
            info.fw_sectors = if nvme { 0 } else { 63 };
            info.trim = true;
            info.rotation = Rotation::NonRotating;
            info.descr = Some(if nvme {
                "Simulated NVMe SSD".to_string()
            } else {
                "Simulated SATA SSD".to_string()
            });
            info.ident = Some(format!("SIM{}{serial:05X}", if nvme { "N" } else { "S" }));
            Model::Flash(Flash {
                p,
                dirty_bytes: 0,
                bus_free: 0.0,
            })
        };
        let mut t = SimTarget {
            info,
            clock: VirtualClock::new(),
            model,
            rng,
            bad,
            slow,
            lying_flush: s.lying_flush,
        };
        t.info.simulated = Some(t.describe(s.seed));
        Ok(t)
    }

    /// A one-line description of the model and its parameters.
    fn describe(&self, seed: u64) -> String {
        let mut d = match &self.model {
            Model::Hdd(h) => {
                let zr =
                    |z: &Zone| z.track_bytes as f64 / (h.rev_ns / 1e9 * (1.0 + h.geo.skew)) / 1e6;
                let s = &h.p.seek;
                format!(
                    "{} rpm HDD model: {} heads, {} cylinders, {} zones {:.0}-{:.0} MB/s, \
                     seek {:.1}-{:.1} ms (track-to-track, full stroke), {:.3} ms command \
                     overhead, {} MiB read-ahead",
                    h.p.rpm,
                    h.geo.heads,
                    h.geo.cylinders,
                    h.geo.zones.len(),
                    h.geo.zones.first().map_or(0.0, zr),
                    h.geo.zones.last().map_or(0.0, zr),
                    s.t2t_ms,
                    s.full_ms,
                    h.p.cmd_overhead_ms,
                    h.p.read_ahead / MIB,
                )
            }
            Model::Flash(f) => format!(
                "flash model: read {:.0} us + {:.0} MB/s, write {:.0} us + {:.0} MB/s, \
                 flush {:.2} ms, {} requests in parallel",
                f.p.read_us,
                f.p.read_rate / 1e6,
                f.p.write_us,
                f.p.write_rate / 1e6,
                f.p.flush_ms,
                f.p.parallelism,
            ),
        };
        d.push_str(&format!(", seed {seed}"));
        if !self.bad.is_empty() {
            d.push_str(&format!(", {} unreadable range(s)", self.bad.len()));
        }
        if !self.slow.is_empty() {
            d.push_str(&format!(", {} slow range(s)", self.slow.len()));
        }
        if self.lying_flush {
            d.push_str(", lying flush");
        }
        d
    }

    /// The model's own truth, for checking measurements against it: the rotation
    /// rate the platters really turn at (None for flash).
    pub fn truth_rpm(&self) -> Option<f64> {
        match &self.model {
            Model::Hdd(h) => Some(60e9 / h.rev_ns),
            Model::Flash(_) => None,
        }
    }

    /// The model's nominal seek time in ns from the track of byte `a` to the track of
    /// byte `b`, without jitter (None for flash).
    pub fn truth_seek_ns(&self, a: u64, b: u64) -> Option<f64> {
        match &self.model {
            Model::Hdd(h) => Some(h.seek_between(h.geo.locate(a).0, h.geo.locate(b).0)),
            Model::Flash(_) => None,
        }
    }

    /// The model's mean fixed cost of a read that misses the cache, in ns: the
    /// command overhead plus the media overhead (None for flash).
    pub fn truth_miss_overhead_ns(&self) -> Option<f64> {
        match &self.model {
            Model::Hdd(h) => Some((h.p.cmd_overhead_ms + h.p.media_overhead_ms) * MS),
            Model::Flash(_) => None,
        }
    }

    /// The model's media rate at byte `x`, in bytes/s: the capacity of its track
    /// read in one revolution plus the skew (flash: its read rate).
    pub fn truth_media_rate(&self, x: u64) -> f64 {
        match &self.model {
            Model::Hdd(h) => {
                let (_, _, track) = h.geo.locate(x);
                track as f64 * 1e9 / (h.rev_ns * (1.0 + h.geo.skew))
            }
            Model::Flash(f) => f.p.read_rate,
        }
    }

    /// The model's host interface rate, bytes/s (None for flash, whose read rate
    /// is the only limit).
    pub fn truth_host_rate(&self) -> Option<f64> {
        match &self.model {
            Model::Hdd(h) => Some(h.p.host_rate),
            Model::Flash(_) => None,
        }
    }

    /// The model's mean command overhead, in ns, paid by every command, cache hits
    /// included (None for flash).
    pub fn truth_command_overhead_ns(&self) -> Option<f64> {
        match &self.model {
            Model::Hdd(h) => Some(h.p.cmd_overhead_ms * MS),
            Model::Flash(_) => None,
        }
    }

    /// The virtual clock this drive advances.
    pub fn virtual_clock(&self) -> &VirtualClock {
        &self.clock
    }

    /// How many requests the model serves at once: 1 for a disk arm, the number of
    /// independent channels for flash.
    pub fn parallelism(&self) -> usize {
        match &self.model {
            Model::Hdd(_) => 1,
            Model::Flash(f) => f.p.parallelism as usize,
        }
    }

    /// Bytes written but not yet on stable media (a lying flush leaves them there).
    pub fn dirty_bytes(&self) -> u64 {
        match &self.model {
            Model::Hdd(h) => h.dirty_bytes(),
            Model::Flash(f) => f.dirty_bytes,
        }
    }

    /// Check that [offset, offset + len) is whole sectors inside the device.
    fn check(&self, offset: u64, len: u64) -> io::Result<()> {
        let ss = u64::from(self.info.sector_size);
        if !offset.is_multiple_of(ss) || !len.is_multiple_of(ss) {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        match offset.checked_add(len) {
            Some(end) if end <= self.info.media_size_bytes => Ok(()),
            _ => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{len} bytes at offset {offset} end past the simulated device's {} bytes",
                    self.info.media_size_bytes
                ),
            )),
        }
    }

    /// Serve a read or write of `len` bytes at `offset` arriving at virtual time
    /// `start_ns`, without touching the clock: the service time in ns (from
    /// `start_ns`, including any wait for the busy disk arm) and the outcome.
    fn serve(&mut self, kind: Kind, start_ns: u64, offset: u64, len: u64) -> (u64, io::Result<()>) {
        if let Err(e) = self.check(offset, len) {
            return (0, Err(e));
        }
        if len == 0 {
            return (0, Ok(()));
        }
        let end = offset + len;
        let touches = |a: u64, b: u64| offset < b && a < end;
        let is_bad = self.bad.iter().any(|&(a, b)| touches(a, b));
        let extra: f64 = self
            .slow
            .iter()
            .filter(|&&(a, b, _)| touches(a, b))
            .map(|&(_, _, ns)| ns)
            .sum();
        let start = start_ns as f64;
        let rng = &mut self.rng;
        let dur = match &mut self.model {
            Model::Hdd(h) => {
                let t0 = start.max(h.busy_until);
                let mut done = match kind {
                    Kind::Read => h.read(t0, offset, len, rng),
                    Kind::Write => h.write(t0, offset, len, rng),
                };
                done += extra;
                if is_bad {
                    done += h.p.error_recovery_revs * h.rev_ns;
                    h.abort_stream(offset);
                }
                h.busy_until = done;
                done - start
            }
            Model::Flash(f) => {
                let mut d = f.access_ns(kind, start, len, rng);
                d += extra;
                if is_bad {
                    d += f.p.error_ms * MS;
                }
                d
            }
        };
        let ns = dur.round().max(1.0) as u64;
        if is_bad {
            (ns, Err(io::Error::from_raw_os_error(libc::EIO)))
        } else {
            (ns, Ok(()))
        }
    }

    /// Serve a read arriving at virtual time `start_ns` without advancing the clock:
    /// (service time in ns, outcome). The model's state (head, cache) moves on.
    pub fn service_read(&mut self, start_ns: u64, offset: u64, len: u64) -> (u64, io::Result<()>) {
        self.serve(Kind::Read, start_ns, offset, len)
    }

    /// Serve a write arriving at virtual time `start_ns` without advancing the
    /// clock: (service time in ns, outcome).
    pub fn service_write(&mut self, start_ns: u64, offset: u64, len: u64) -> (u64, io::Result<()>) {
        self.serve(Kind::Write, start_ns, offset, len)
    }

    /// Serve a cache flush arriving at virtual time `start_ns` without advancing the
    /// clock; returns its service time in ns. With `lying_flush=1` it returns at once
    /// and the dirty data stay in the volatile cache.
    pub fn service_flush(&mut self, start_ns: u64) -> u64 {
        let start = start_ns as f64;
        let lying = self.lying_flush;
        let rng = &mut self.rng;
        let dur = match &mut self.model {
            Model::Hdd(h) => {
                let t0 = start.max(h.busy_until);
                let done = h.flush(t0, lying, rng);
                h.busy_until = done;
                done - start
            }
            Model::Flash(f) => f.flush_ns(lying, rng),
        };
        dur.round().max(1.0) as u64
    }

    /// Run one served operation on the clock.
    fn timed(&mut self, kind: Kind, offset: u64, len: u64) -> io::Result<()> {
        let (ns, r) = self.serve(kind, self.clock.now_ns(), offset, len);
        self.clock.advance(ns);
        r
    }
}

impl Target for SimTarget {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn clock(&self) -> &dyn Clock {
        &self.clock
    }

    /// The simulation stores no data: the buffer is left as it is (filling it
    /// would cost more wall time than everything else, e.g. in a full scan).
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.timed(Kind::Read, offset, buf.len() as u64)
    }

    /// Nothing to do: the simulation has no page cache, and sync() does not flush a
    /// drive's own cache.
    fn quiesce(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.timed(Kind::Write, offset, buf.len() as u64)
    }

    fn flush(&mut self) -> io::Result<bool> {
        let ns = self.service_flush(self.clock.now_ns());
        self.clock.advance(ns);
        Ok(true)
    }

    fn queue_model(&mut self) -> Option<&mut dyn QueueModel> {
        Some(self)
    }
}

impl QueueModel for SimTarget {
    fn parallelism(&self) -> usize {
        SimTarget::parallelism(self)
    }

    fn service_ns(&mut self, op: &Op, start_ns: u64) -> io::Result<u64> {
        let (ns, r) = match op.kind {
            OpKind::Read => self.service_read(start_ns, op.offset, u64::from(op.len)),
            OpKind::Write => self.service_write(start_ns, op.offset, u64::from(op.len)),
        };
        r.map(|()| ns)
    }

    fn virtual_clock(&self) -> &VirtualClock {
        &self.clock
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::{Phase, PhaseId, TestKind, plan};
    use std::time::Duration;

    /// The published ST2000DM001 figures, in the order of the -t phases: msec per
    /// op for the seven seek lines, kbytes/s for the three transfer lines.
    const PUBLISHED: [(PhaseId, f64); 10] = [
        (PhaseId::FullStroke, 22.110),
        (PhaseId::HalfStroke, 16.574),
        (PhaseId::QuarterStroke, 8.448),
        (PhaseId::ShortForward, 3.867),
        (PhaseId::ShortBackward, 4.933),
        (PhaseId::SeqOuter, 0.071),
        (PhaseId::SeqInner, 0.074),
        (PhaseId::Outside, 179598.0),
        (PhaseId::Middle, 168832.0),
        (PhaseId::Inside, 97431.0),
    ];

    fn open(spec: &str) -> SimTarget {
        SimTarget::open(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
    }

    fn bad_sim_msg(spec: &str) -> String {
        match SimTarget::open(spec) {
            Err(ProbeError::BadSim { spec: s, msg }) => {
                assert_eq!(s, spec);
                msg
            }
            Err(e) => panic!("{spec}: not BadSim: {e}"),
            Ok(_) => panic!("{spec}: accepted"),
        }
    }

    /// Run a phase as the sync engine does: setup ops, quiesce, the settle pause
    /// (diskinfo: one second; seekprobe's default: none), then the timed ops.
    /// Returns the elapsed ns and each op's ns.
    fn run_phase_with(t: &mut SimTarget, ph: &Phase, settle: Duration) -> (u64, Vec<u64>) {
        let mut buf = vec![0u8; ph.all_ops().map(|o| o.len as usize).max().unwrap_or(0)];
        for op in &ph.setup {
            t.read_at(&mut buf[..op.len as usize], op.offset).unwrap();
        }
        t.quiesce().unwrap();
        t.clock().sleep(settle);
        let t0 = t.clock().now_ns();
        let mut each = Vec::with_capacity(ph.ops.len());
        for op in &ph.ops {
            let a = t.clock().now_ns();
            t.read_at(&mut buf[..op.len as usize], op.offset).unwrap();
            each.push(t.clock().now_ns() - a);
        }
        (t.clock().now_ns() - t0, each)
    }

    fn run_phase(t: &mut SimTarget, ph: &Phase) -> (u64, Vec<u64>) {
        run_phase_with(t, ph, Duration::from_secs(1))
    }

    /// The figure diskinfo prints for a phase.
    fn figure(ph: &Phase, ns: u64) -> f64 {
        match ph.id {
            PhaseId::Outside | PhaseId::Middle | PhaseId::Inside => {
                ph.timed_bytes() as f64 / 1024.0 / (ns as f64 / 1e9)
            }
            _ => ns as f64 / ph.ops.len() as f64 / 1e6,
        }
    }

    /// The whole -t on a spec: (phase, figure, each op's ns).
    fn run_t(spec: &str) -> Vec<(PhaseId, f64, Vec<u64>)> {
        run_t_with(spec, Duration::from_secs(1))
    }

    fn run_t_with(spec: &str, settle: Duration) -> Vec<(PhaseId, f64, Vec<u64>)> {
        let mut t = open(spec);
        let p = plan(
            TestKind::SeekTransfer,
            t.info().media_size_bytes,
            t.info().sector_size,
            &Default::default(),
        )
        .unwrap();
        p.phases()
            .map(|ph| {
                let (ns, each) = run_phase_with(&mut t, ph, settle);
                (ph.id, figure(ph, ns), each)
            })
            .collect()
    }

    fn hdd(t: &SimTarget) -> &Hdd {
        match &t.model {
            Model::Hdd(h) => h,
            Model::Flash(_) => panic!("not a disk model"),
        }
    }

    #[test]
    fn hdd_lands_within_ten_percent_of_every_published_figure() {
        for (spec, settle) in [
            ("sim:hdd", 1000),
            ("sim:hdd", 0),
            ("sim:hdd?seed=2", 1000),
            ("sim:hdd?seed=12345", 0),
        ] {
            let got = run_t_with(spec, Duration::from_millis(settle));
            assert_eq!(got.len(), PUBLISHED.len());
            let mut report = String::new();
            let mut ok = true;
            for ((id, v, _), (pid, want)) in got.iter().zip(PUBLISHED) {
                assert_eq!(*id, pid);
                let dev = v / want - 1.0;
                ok &= dev.abs() <= 0.10;
                report.push_str(&format!(
                    "{:>16}: {v:12.3} vs {want:12.3} ({:+.1}%)\n",
                    id.name(),
                    dev * 100.0
                ));
            }
            assert!(ok, "{spec}, settle {settle} ms, outside ±10%:\n{report}");
        }
    }

    #[test]
    fn full_stroke_mean_matches_the_analytic_expectation() {
        // Alternate between random sectors of the first and of the last track, so
        // that the platter's angle at the end of each seek is effectively random.
        let mut t = open("sim:hdd?seed=7");
        let (first_len, last_start, end, d, rev, fixed) = {
            let h = hdd(&t);
            let end = h.media_end;
            let last = h.geo.locate(end - 1).0;
            let d = h.geo.cylinder(last) - h.geo.cylinder(0);
            let one_sector = |x: u64| {
                let b = h.geo.locate(x).2 as f64;
                (512.0 / b * h.rev_ns).max(h.host_ns(512))
            };
            // Overheads and the one-sector transfer, averaged over both ends.
            let fixed = (h.p.cmd_overhead_ms + h.p.media_overhead_ms) * MS
                + (one_sector(0) + one_sector(end - 1)) / 2.0;
            let seek = h.seek.seek_ns(d);
            assert_eq!(d + 1, h.geo.cylinders, "not a full stroke");
            (
                h.geo.zones[0].track_bytes,
                h.geo.track_start(last),
                end,
                seek,
                h.rev_ns,
                fixed,
            )
        };
        let mut pick = SplitMix64(99);
        let mut buf = vec![0u8; 512];
        let n = 4000;
        let t0 = t.clock().now_ns();
        for i in 0..n {
            let sector = if i % 2 == 0 {
                pick.next_u64() % (first_len / 512)
            } else {
                last_start / 512 + pick.next_u64() % ((end - last_start) / 512)
            };
            t.read_at(&mut buf, sector * 512).unwrap();
        }
        let measured = (t.clock().now_ns() - t0) as f64 / f64::from(n);
        let expected = d + rev / 2.0 + fixed;
        let dev = measured / expected - 1.0;
        assert!(
            dev.abs() < 0.02,
            "measured {:.3} ms, expected seek {:.3} + half a revolution {:.3} + overhead {:.3} = {:.3} ms ({:+.2}%)",
            measured / MS,
            d / MS,
            rev / 2.0 / MS,
            fixed / MS,
            expected / MS,
            dev * 100.0
        );
    }

    #[test]
    fn short_backward_hops_cost_more_than_forward_ones() {
        let got = run_t("sim:hdd");
        let fwd = got.iter().find(|g| g.0 == PhaseId::ShortForward).unwrap().1;
        let back = got
            .iter()
            .find(|g| g.0 == PhaseId::ShortBackward)
            .unwrap()
            .1;
        assert!(
            back > fwd + 0.5,
            "forward {fwd:.3} ms, backward {back:.3} ms"
        );
    }

    #[test]
    fn same_seed_same_timings_different_seed_different() {
        let ops = |spec: &str| -> Vec<u64> {
            run_t(spec)
                .into_iter()
                .flat_map(|(_, _, each)| each)
                .collect()
        };
        for preset in ["hdd", "ssd"] {
            let a = ops(&format!("sim:{preset}?seed=42"));
            let b = ops(&format!("sim:{preset}?seed=42"));
            let c = ops(&format!("sim:{preset}?seed=43"));
            assert_eq!(a, b, "{preset}: same seed, different timings");
            assert_ne!(a, c, "{preset}: different seeds, same timings");
        }
    }

    #[test]
    fn bad_ranges_fail_exactly_the_reads_that_overlap_them() {
        for preset in ["hdd", "ssd", "nvme"] {
            let mut t = open(&format!("sim:{preset}?bad=1000-1008,5000-5001"));
            let mut one = vec![0u8; 512];
            let mut eight = vec![0u8; 4096];
            let eio = |r: io::Result<()>| r.err().and_then(|e| e.raw_os_error()) == Some(libc::EIO);
            for s in [999u64, 1008, 4999, 5001, 0, 2000] {
                assert!(t.read_at(&mut one, s * 512).is_ok(), "{preset}: sector {s}");
            }
            for s in [1000u64, 1003, 1007, 5000] {
                assert!(eio(t.read_at(&mut one, s * 512)), "{preset}: sector {s}");
            }
            // Multi-sector reads: overlapping at either end fails, touching does not.
            assert!(eio(t.read_at(&mut eight, 993 * 512)));
            assert!(eio(t.read_at(&mut eight, 1007 * 512)));
            assert!(t.read_at(&mut eight, 992 * 512).is_ok());
            assert!(t.read_at(&mut eight, 1008 * 512).is_ok());
            assert!(eio(t.write_at(&one, 1004 * 512)));
        }
    }

    #[test]
    fn slow_ranges_add_exactly_their_latency() {
        for preset in ["hdd", "ssd"] {
            let mut plain = open(&format!("sim:{preset}?seed=5"));
            let mut slow = open(&format!("sim:{preset}?seed=5&slow=3000-3100:7.5"));
            let mut buf = vec![0u8; 4096];
            let mut each = |t: &mut SimTarget, s: u64| {
                let a = t.clock().now_ns();
                t.read_at(&mut buf, s * 512).unwrap();
                t.clock().now_ns() - a
            };
            // Before the slow range both drives agree exactly.
            for s in [0u64, 1_000_000, 2000] {
                assert_eq!(each(&mut plain, s), each(&mut slow, s), "{preset} {s}");
            }
            // 3096..3104 touches the range: 7.5 ms more, to the rounding nanosecond.
            let (p, q) = (each(&mut plain, 3096), each(&mut slow, 3096));
            assert!(
                (q as i64 - p as i64 - 7_500_000).abs() <= 1,
                "{preset}: {p} {q}"
            );
        }
    }

    #[test]
    fn spec_errors_say_what_is_accepted() {
        let m = bad_sim_msg("sim:floppy");
        assert!(
            m.contains("floppy") && m.contains("hdd, hdd5400, ssd, nvme"),
            "{m}"
        );
        let m = bad_sim_msg("sim:hdd?colour=blue");
        assert!(
            m.contains("colour") && m.contains("rpm=") && m.contains("lying_flush"),
            "{m}"
        );
        let m = bad_sim_msg("sim:hdd?rpm=fast");
        assert!(m.contains("rpm=fast") && m.contains("3600"), "{m}");
        let m = bad_sim_msg("sim:hdd?rpm=100");
        assert!(m.contains("between 3600 and 15000"), "{m}");
        let m = bad_sim_msg("sim:hdd?size=12X");
        assert!(
            m.contains("size=12X") && m.contains("K, M, G, T or P"),
            "{m}"
        );
        let m = bad_sim_msg("sim:hdd?size=99999999999T");
        assert!(m.contains("size="), "{m}");
        let m = bad_sim_msg("sim:hdd?size=1000");
        assert!(m.contains("multiple of the 512-byte sector"), "{m}");
        let m = bad_sim_msg("sim:hdd?sector=1024");
        assert!(m.contains("512 or 4096"), "{m}");
        let m = bad_sim_msg("sim:hdd?seed=-1");
        assert!(m.contains("seed=-1"), "{m}");
        let m = bad_sim_msg("sim:hdd?bad=10-5");
        assert!(m.contains("START must be below END"), "{m}");
        let m = bad_sim_msg("sim:hdd?slow=10-20");
        assert!(m.contains("START-END:MS"), "{m}");
        let m = bad_sim_msg("sim:hdd?slow=10-20:fast");
        assert!(m.contains("milliseconds"), "{m}");
        let m = bad_sim_msg("sim:hdd?lying_flush=maybe");
        assert!(m.contains("0 or 1"), "{m}");
        let m = bad_sim_msg("sim:ssd?rpm=7200");
        assert!(m.contains("rotating"), "{m}");
        let m = bad_sim_msg("sim:hdd?seed");
        assert!(m.contains("key=value"), "{m}");
        let m = bad_sim_msg("sim:hdd?bad=1-18446744073709551615");
        assert!(m.contains("beyond"), "{m}");
        // Accepted forms.
        for ok in [
            "sim:hdd?",
            "sim:hdd?seed=0x10&&rpm=10000",
            "sim:hdd5400?size=4T&sector=4096",
            "sim:nvme?bad=1-2&bad=5-9,20-30&slow=0-1:0.5,7-8:2&lying_flush=1",
        ] {
            open(ok);
        }
    }

    #[test]
    fn no_spec_panics() {
        use proptest::prelude::*;
        let chars = "[a-z0-9?&=:,.xKMGT-]{0,40}";
        proptest!(|(tail in chars, preset in prop_oneof![
            Just("hdd"), Just("ssd"), Just("nvme"), Just("hdd5400"), Just("x")
        ])| {
            let _ = SimTarget::open(&format!("sim:{preset}?{tail}"));
            let _ = SimTarget::open(&format!("sim:{tail}"));
        });
    }

    #[test]
    fn overrides_give_a_consistent_description() {
        let t = open("sim:hdd");
        let i = t.info();
        assert_eq!((i.name.as_str(), i.path.as_str()), ("sim:hdd", "sim:hdd"));
        assert_eq!(i.kind, TargetKind::Simulated);
        assert_eq!(i.io_mode, IoMode::Simulated);
        assert_eq!(i.media_size_bytes, 2_000_398_934_016);
        assert_eq!(i.sectors(), 3_907_029_168);
        assert_eq!((i.sector_size, i.physical_sector_size), (512, 4096));
        assert_eq!((i.stripe_size_bytes, i.stripe_offset_bytes), (4096, 0));
        assert_eq!(
            (i.fw_heads, i.fw_sectors, i.fw_cylinders()),
            (255, 63, Some(243201))
        );
        assert_eq!(i.rotation, Rotation::Rpm(7200));
        assert!(!i.trim);
        assert_eq!(i.attachment.as_deref(), Some("sim"));
        assert!(i.ident.as_deref().unwrap().starts_with("SIM"));
        let sim = i.simulated.as_deref().unwrap();
        assert!(sim.contains("7200 rpm") && !sim.contains('\n'), "{sim}");

        let t = open("sim:hdd?sector=4096&size=1T&rpm=10000");
        let i = t.info();
        assert_eq!(i.media_size_bytes, 1 << 40);
        assert_eq!(i.sectors(), (1 << 40) / 4096);
        assert_eq!((i.sector_size, i.physical_sector_size), (4096, 4096));
        assert_eq!(i.stripe_size_bytes, 0);
        assert_eq!(i.rotation, Rotation::Rpm(10000));
        assert!(i.simulated.as_deref().unwrap().contains("10000 rpm"));
        assert!(i.descr.as_deref().unwrap().contains("10000 rpm"));
        // The model covers exactly the media: the last sector reads, the next does not.
        let mut t = t;
        let mut buf = vec![0u8; 4096];
        assert!(t.read_at(&mut buf, (1 << 40) - 4096).is_ok());
        assert!(t.read_at(&mut buf, 1 << 40).is_err());
        assert!(
            t.read_at(&mut buf, 512).is_err(),
            "misaligned for 4096-byte sectors"
        );

        // A preset's size rounds down to whole 4096-byte sectors.
        let i = open("sim:hdd?sector=4096").info().clone();
        assert_eq!(i.media_size_bytes, 2_000_398_934_016 / 4096 * 4096);

        for (spec, rot, trim) in [
            ("sim:ssd", Rotation::NonRotating, true),
            ("sim:nvme?sector=4096", Rotation::NonRotating, true),
            ("sim:hdd5400", Rotation::Rpm(5400), false),
        ] {
            let i = open(spec).info().clone();
            assert_eq!((i.rotation, i.trim), (rot, trim), "{spec}");
            assert_eq!(i.media_size_bytes % u64::from(i.sector_size), 0, "{spec}");
            assert!(i.simulated.is_some() && i.descr.is_some() && i.ident.is_some());
        }
        assert_eq!(open("sim:nvme?sector=4096").info().sector_size, 4096);
    }

    #[test]
    fn small_and_odd_sizes_run_the_whole_test() {
        for spec in [
            "sim:hdd?size=1M",
            "sim:hdd?size=8M&sector=4096",
            "sim:hdd5400?size=100M",
            "sim:ssd?size=2M",
            "sim:hdd?size=1P",
        ] {
            let got = run_t(spec);
            assert!(
                got.iter().all(|g| g.1.is_finite() && g.1 > 0.0),
                "{spec}: {got:?}"
            );
        }
        // A one-sector drive opens and reads.
        let mut t = open("sim:hdd?size=512");
        let mut buf = vec![0u8; 512];
        t.read_at(&mut buf, 0).unwrap();
        assert!(t.read_at(&mut buf, 512).is_err());
    }

    #[test]
    fn lying_flush_is_instant_honest_flush_writes_back() {
        let write_some = |t: &mut SimTarget| {
            let buf = vec![0u8; 4096];
            let n = t.info().media_size_bytes / 4096;
            for i in 0..8u64 {
                t.write_at(
                    &buf,
                    (i * 7919 % n) * (n / 8 / 7919).max(1) * 4096 % (n * 4096),
                )
                .unwrap();
            }
        };
        let flush_ns = |t: &mut SimTarget| {
            let a = t.clock().now_ns();
            assert!(t.flush().unwrap());
            t.clock().now_ns() - a
        };
        let mut honest = open("sim:hdd");
        write_some(&mut honest);
        assert!(honest.dirty_bytes() > 0);
        let rev = hdd(&honest).rev_ns;
        let h = flush_ns(&mut honest);
        assert!(
            h as f64 >= rev,
            "honest flush {h} ns, a revolution is {rev} ns"
        );
        assert_eq!(honest.dirty_bytes(), 0);
        // Nothing dirty: a flush costs only the command.
        assert!(flush_ns(&mut honest) < 100_000);

        let mut liar = open("sim:hdd?lying_flush=1");
        write_some(&mut liar);
        let dirty = liar.dirty_bytes();
        let l = flush_ns(&mut liar);
        assert!(l < 100_000, "lying flush took {l} ns");
        assert_eq!(
            liar.dirty_bytes(),
            dirty,
            "a lying flush writes nothing back"
        );

        for preset in ["ssd", "nvme"] {
            let mut honest = open(&format!("sim:{preset}"));
            let mut liar = open(&format!("sim:{preset}?lying_flush=1"));
            write_some(&mut honest);
            write_some(&mut liar);
            let (h, l) = (flush_ns(&mut honest), flush_ns(&mut liar));
            assert!(h > 20 * l, "{preset}: honest {h} ns, lying {l} ns");
        }
    }

    #[test]
    fn command_overhead_figures_are_sensible() {
        for (spec, mega_s, sector_ms) in [
            ("sim:hdd", (0.05, 0.07), (0.05, 0.08)),
            ("sim:ssd", (0.015, 0.025), (0.06, 0.08)),
        ] {
            let mut t = open(spec);
            let m = t.info().media_size_bytes;
            let p = plan(TestKind::CommandOverhead, m, 512, &Default::default()).unwrap();
            let phases: Vec<_> = p.phases().collect();
            let (mega, _) = run_phase(&mut t, phases[0]);
            let (sectors, _) = run_phase(&mut t, phases[1]);
            let mega = mega as f64 / 1e9;
            let per = sectors as f64 / 20480.0 / 1e6;
            assert!(
                mega > mega_s.0 && mega < mega_s.1,
                "{spec}: 10 MiB in {mega} s"
            );
            assert!(
                per > sector_ms.0 && per < sector_ms.1,
                "{spec}: {per} ms/sector"
            );
        }
    }

    #[test]
    fn flash_is_flat_and_fast() {
        let got = run_t("sim:ssd");
        for (id, v, _) in &got[..7] {
            assert!((0.06..0.09).contains(v), "ssd {id:?}: {v} ms");
        }
        for (_, v, _) in &got[7..] {
            let mbs = v * 1024.0 / 1e6;
            assert!((450.0..560.0).contains(&mbs), "ssd: {mbs} MB/s");
        }
        let got = run_t("sim:nvme");
        for (id, v, _) in &got[..7] {
            assert!((0.01..0.02).contains(v), "nvme {id:?}: {v} ms");
        }
        for (_, v, _) in &got[7..] {
            let mbs = v * 1024.0 / 1e6;
            assert!((2500.0..3300.0).contains(&mbs), "nvme: {mbs} MB/s");
        }
        assert_eq!(open("sim:nvme").parallelism(), 16);
        assert_eq!(open("sim:hdd").parallelism(), 1);
    }

    #[test]
    fn hdd5400_is_slower_than_hdd() {
        let a = run_t("sim:hdd");
        let b = run_t("sim:hdd5400");
        // Longer rotational waits on every seek line, lower rates on every zone.
        for i in 0..5 {
            assert!(b[i].1 > a[i].1, "{:?}: {} vs {}", a[i].0, b[i].1, a[i].1);
        }
        assert!(b[9].1 < a[9].1);
    }

    #[test]
    fn the_queue_model_does_not_advance_the_clock() {
        let mut t = open("sim:ssd?bad=8-9");
        let op = Op::read_sectors(0, 8, 512);
        let q = t.queue_model().unwrap();
        assert_eq!(q.parallelism(), 8);
        let ns = q.service_ns(&op, 1_000).unwrap();
        assert!((60_000..90_000).contains(&ns), "{ns}");
        assert!(q.service_ns(&Op::read_sectors(8, 1, 512), 1_000).is_err());
        assert_eq!(q.virtual_clock().now_ns(), 0);
        // The disk arm serves one request at a time: a request arriving while it is
        // busy waits for it.
        let mut t = open("sim:hdd");
        let (a, r) = t.service_read(0, 1 << 30, 512);
        r.unwrap();
        let (b, r) = t.service_read(0, 1 << 31, 512);
        r.unwrap();
        assert!(b > a);
        assert_eq!(t.clock().now_ns(), 0);
    }
}
