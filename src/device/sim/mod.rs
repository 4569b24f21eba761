//! Simulated drives on a virtual clock (`sim:PRESET[?key=value&...]`).
//!
//! A [`SimTarget`] serves reads, writes and flushes from a physical model and advances
//! a [`VirtualClock`](crate::clock::VirtualClock) by each operation's service time;
//! what is written is kept sparsely in memory (`store.rs`) and read back. Two models
//! exist:
//!
//! - a rotating disk (`hdd`, `hdd5400`): zoned recording, a seek curve over distance in
//!   cylinders, the platter's angle derived from the clock (so the rotational wait
//!   after a seek depends on where the platter is when the seek ends), per-command
//!   overheads, a read-ahead cache segment and a volatile write cache;
//! - flash (`ssd`, `nvme`): flat latency plus size over bandwidth, with internal
//!   parallelism for queued requests.
//!
//! Faults are injected by parameters: unreadable ranges (EIO), slow ranges, a lying
//! flush, unwritable ranges, silently corrupting ranges, a fake capacity whose
//! addresses wrap, and one that remaps (keeps the first bytes written, `keeps.rs`).
//! docs/sim.md gives every formula and parameter.
//!
//! The folder, by concern:
//!
//! - `spec.rs`: the spec `sim:PRESET[?key=value&...]`, parsed into a `Spec`;
//! - `geometry.rs`: where bytes are on the platters (zones, tracks, skew) and the seek
//!   curve;
//! - `presets.rs`: every preset's parameters (the calibration lives here);
//! - `hdd.rs`: the rotating disk's state and service (head, platter angle, read-ahead
//!   stream);
//! - `write_cache.rs`: the disk's volatile write cache, written back continuously at
//!   the media rate while it accepts writes;
//! - `flash.rs`: the flash model;
//! - `faults.rs`: injected faults (their keys, and what they do to an operation);
//! - `smart.rs`: the drive's SMART (counters from the faults, `smart=`, `crc=`,
//!   self-tests on the virtual clock), answering [`crate::smart::SmartSource`];
//! - `smr.rs`: drive-managed shingled recording (a media cache, band cleaning) on top
//!   of the rotating disk (`sim:smr`, `smr=dm`);
//! - `shared.rs`: what the drive shares with the drives beside it for the path
//!   check (`controller=NAME:RATE`, `vibration=`);
//! - `store.rs`: the content written, kept sparsely by physical address within a
//!   memory bound;
//! - `target.rs`: [`SimTarget`], which builds the model from a spec and implements
//!   [`Target`](super::Target) and [`QueueModel`](super::QueueModel) on its clock.

mod faults;
mod flash;
mod geometry;
mod hdd;
mod keeps;
mod neighbours;
mod physics;
mod presets;
mod smart;
mod smart_source;
mod smr;
mod spec;
mod store;
mod target;
#[cfg(test)]
mod tests;
mod write_cache;

use crate::rng::Rng;

pub use spec::PRESETS;
pub use target::SimTarget;

/// Nanoseconds per millisecond.
const MS: f64 = 1e6;
/// Nanoseconds per microsecond.
const US: f64 = 1e3;
/// One mebibyte.
const MIB: u64 = 1 << 20;

/// What an operation does, for the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Read,
    Write,
}

// The number parsers the spec (spec.rs) and its fault keys (faults.rs) share.

/// A decimal or 0x-prefixed hexadecimal unsigned number.
fn parse_uint(v: &str) -> Option<u64> {
    match v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) => v.parse().ok(),
        None => None,
    }
}

/// Bytes with an optional unit, as every size option takes them
/// ([`crate::units::parse_bytes`]: K or KiB and the others binary, kB and the
/// others SI).
fn parse_size(v: &str) -> Option<u64> {
    crate::units::parse_bytes(v).ok()
}

/// A count with an optional suffix K, M, G, T or P (case-insensitive), each
/// `unit` times the one before (1000 for the rates of a controller, MB/s).
fn parse_scaled(v: &str, unit: u64) -> Option<u64> {
    let power = match v.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => 1,
        b'M' => 2,
        b'G' => 3,
        b'T' => 4,
        b'P' => 5,
        _ => 0,
    };
    let digits = &v[..v.len() - usize::from(power > 0)];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits
        .parse::<u64>()
        .ok()?
        .checked_mul(unit.checked_pow(power)?)
}

/// How a spec's sector range reads, for its error messages: the end is excluded,
/// where the findings print first-last, inclusive.
const RANGE: &str = "START-END, logical sectors, END excluded: 5000-5004 is the 4 sectors the findings print as 5000-5003";

/// `START-END` in logical sectors, START < END (END excluded).
fn parse_range(r: &str) -> Result<(u64, u64), String> {
    let (a, b) = r
        .split_once('-')
        .ok_or_else(|| format!("\"{r}\" is not a sector range {RANGE}"))?;
    let (a, b) = match (parse_uint(a), parse_uint(b)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err(format!("\"{r}\": not a sector range {RANGE}")),
    };
    if a >= b {
        return Err(format!("\"{r}\": START must be below END ({RANGE})"));
    }
    Ok((a, b))
}

/// The fractional part, in [0, 1), also for negative numbers.
fn frac(x: f64) -> f64 {
    x - x.floor()
}

/// The sub-stream of the seed that draws the platter's starting angle and every
/// operation's jitter ([`crate::rng::derive`]).
const JITTER_STREAM: u64 = 0;
/// The sub-stream of the seed that draws the serial number.
const SERIAL_STREAM: u64 = 1;

/// A multiplier uniform in [1 - amp, 1 + amp] (mean 1).
fn jitter(rng: &mut Rng, amp: f64) -> f64 {
    1.0 + amp * (2.0 * crate::rng::unit(rng) - 1.0)
}
