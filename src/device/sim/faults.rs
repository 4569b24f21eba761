//! Injected faults: what the spec's fault keys say, and what they do to an operation.
//!
//! Today: unreadable ranges (`bad=`: an overlapping read fails with EIO after the
//! model's error recovery time; a write over them remaps them, as a drive reallocates
//! a sector it cannot use, and they read correctly afterwards), slow ranges (`slow=`: milliseconds added at
//! completion), a lying flush (`lying_flush=1`), unwritable ranges (`unwritable=`: an
//! overlapping write fails with EIO after the error recovery time and stores
//! nothing), silently corrupting ranges (`corrupt=`: reads return the stored content
//! with one bit flipped in every sector of the range, and no error) and a fake
//! capacity (`fake=BYTES`: the drive reports its full size but stores only BYTES;
//! a byte at address `a` is kept at `a mod BYTES`, see [`Faults::physical`]), and a
//! counterfeit that remaps (`keeps=BYTES`: the drive keeps the first BYTES written,
//! wherever they are written, and drops the rest; keeps.rs), and a drive whose
//! size shrinks under a test (`shrink=AT:TO`: once AT bytes were written, its size
//! reads TO and every access past TO fails).
//!
//! # Adding a fault
//!
//! 1. A field in [`FaultSpec`] (as the user wrote it, in logical sectors), an arm in
//!    [`FaultSpec::parse_key`] and its syntax in [`ACCEPTED_KEYS`]: the spec parser
//!    (spec.rs) hands every key it does not know to `parse_key`, so nothing else in
//!    the parser changes.
//! 2. The same field in [`Faults`] (in bytes), converted in [`Faults::new`], and a
//!    clause in [`Faults::describe`].
//! 3. Its effect: [`Faults::on_access`] sees every read and write (kind, offset,
//!    length) before the model serves it and may keep state (`&mut self`, e.g. a
//!    range remapped by a rewrite); it answers with an [`Effect`]. A fault that does
//!    something new to an operation (e.g. corrupt the data read) adds a field to
//!    [`Effect`], which `SimTarget::serve` (target.rs) applies.
//! 4. docs/sim.md's key table and its Faults section; a test in tests.rs.

use super::Kind;
use super::keeps::Kept;
use super::parse_range;
use crate::device::size_probe::SizeProbe;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The fault keys accepted after `?`, with their values, for error messages.
pub(super) const ACCEPTED_KEYS: &str = "bad=START-END[,START-END...] (logical sectors, end exclusive), \
slow=START-END:MS[,...] (added milliseconds), lying_flush=0|1, \
corrupt=START-END[,...] (reads altered without an error), unwritable=START-END[,...] (writes fail), \
fake=BYTES[K|M|G|T|P] (stores only that much; addresses wrap), \
keeps=BYTES[K|M|G|T|P] (keeps only the first BYTES written, wherever written), \
shrink=AT:TO (bytes; once AT bytes were written the size is TO)";

/// The faults a spec asks for, in logical sectors (end exclusive), as written.
#[derive(Debug, Clone, Default)]
pub(super) struct FaultSpec {
    /// Unreadable ranges (`bad=`), (start, end), in the order given.
    bad: Vec<(u64, u64)>,
    /// Slow ranges, with the added milliseconds.
    slow: Vec<(u64, u64, f64)>,
    /// Whether a flush returns at once without writing anything back.
    lying_flush: bool,
    /// Ranges whose reads return altered content without an error.
    corrupt: Vec<(u64, u64)>,
    /// Ranges whose writes fail.
    unwritable: Vec<(u64, u64)>,
    /// The bytes really stored, when fewer than reported (addresses wrap).
    fake: Option<u64>,
    /// The bytes kept of those written first, wherever written (`keeps=`).
    keeps: Option<u64>,
    /// Once this many bytes were written, the size becomes the second (`shrink=`).
    shrink: Option<(u64, u64)>,
}

/// Append `what` ranges (END excluded) to a description: up to four as the
/// findings print them ("corrupting sectors 5000-5003"), more as a count.
fn ranges(d: &mut String, what: &str, v: &[(u64, u64)]) {
    let one = |&(a, b): &(u64, u64)| match b - a {
        1 => format!("{a}"),
        _ => format!("{a}-{}", b - 1),
    };
    match v.len() {
        0 => {}
        1..=4 => {
            let listed: Vec<String> = v.iter().map(one).collect();
            d.push_str(&format!(", {what} sectors {}", listed.join(", ")));
        }
        n => d.push_str(&format!(", {n} {what} ranges")),
    }
}

impl FaultSpec {
    /// Take `key=value` if `key` is a fault key: `Ok(true)` when it was one,
    /// `Ok(false)` when it is not a fault key, `Err(what)` when its value is wrong
    /// (the caller prefixes `key=value: `).
    pub(super) fn parse_key(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "bad" => {
                for r in value.split(',') {
                    self.bad.push(parse_range(r)?);
                }
            }
            "slow" => {
                for item in value.split(',') {
                    let (r, ms) = item
                        .rsplit_once(':')
                        .ok_or("expected START-END:MS (logical sectors, milliseconds)")?;
                    let (a, b) = parse_range(r)?;
                    let ms: f64 = ms
                        .parse()
                        .ok()
                        .filter(|m: &f64| m.is_finite() && (0.0..=3_600_000.0).contains(m))
                        .ok_or("the added latency must be milliseconds, 0 to 3600000")?;
                    self.slow.push((a, b, ms));
                }
            }
            "lying_flush" => {
                self.lying_flush = match value {
                    "1" | "true" | "yes" => true,
                    "0" | "false" | "no" => false,
                    _ => return Err("expected 0 or 1".to_string()),
                }
            }
            "corrupt" | "unwritable" => {
                let v = if key == "corrupt" {
                    &mut self.corrupt
                } else {
                    &mut self.unwritable
                };
                for r in value.split(',') {
                    v.push(parse_range(r)?);
                }
            }
            "fake" => {
                let bytes = super::parse_size(value).filter(|&b| b > 0).ok_or(
                    "expected the bytes really stored, optionally with a unit as size= takes it (e.g. 64G)",
                )?;
                self.fake = Some(bytes);
            }
            "keeps" => {
                let bytes = super::parse_size(value).filter(|&b| b > 0).ok_or(
                    "expected the bytes kept of those written first, optionally with a unit as size= takes it (e.g. 256M)",
                )?;
                self.keeps = Some(bytes);
            }
            "shrink" => {
                let bytes = |v| {
                    super::parse_size(v).ok_or("expected AT:TO, bytes with an optional unit as size= takes it (e.g. 128M:64M)")
                };
                let (at, to) = value
                    .split_once(':')
                    .ok_or("expected AT:TO (e.g. 128M:64M)")?;
                self.shrink = Some((bytes(at)?, bytes(to)?));
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// Byte ranges from sector ranges, sorted, with overlapping or touching ones merged.
fn merged(ranges: &[(u64, u64)], sector: u64) -> Result<Vec<(u64, u64)>, String> {
    let mut v = ranges
        .iter()
        .map(|&r| to_bytes(r, sector))
        .collect::<Result<Vec<_>, _>>()?;
    v.sort_unstable();
    v.dedup_by(|next, prev| {
        let touch = next.0 <= prev.1;
        if touch {
            prev.1 = prev.1.max(next.1);
        }
        touch
    });
    Ok(v)
}

/// A sector range in bytes; the error names one that does not fit in 64 bits.
fn to_bytes((a, b): (u64, u64), sector: u64) -> Result<(u64, u64), String> {
    match (a.checked_mul(sector), b.checked_mul(sector)) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err(format!(
            "sector range {a}-{b} is beyond any device ({sector}-byte sectors)"
        )),
    }
}

/// A fault range that reaches past the drive's last sector would never be met:
/// refused, naming it and the drive's size in sectors.
fn past_the_end(spec: &FaultSpec, sector: u64, size: u64) -> Result<(), String> {
    let sectors = size / sector;
    let ranges = [
        ("bad", &spec.bad),
        ("corrupt", &spec.corrupt),
        ("unwritable", &spec.unwritable),
    ];
    let slow: Vec<(u64, u64)> = spec.slow.iter().map(|&(a, b, _)| (a, b)).collect();
    for (name, list) in ranges.into_iter().chain([("slow", &slow)]) {
        if let Some((a, b)) = list.iter().find(|&&(_, b)| b > sectors) {
            return Err(format!(
                "{name}={a}-{b}: past the end of the drive, whose sectors are 0-{sectors} ({sector}-byte sectors); give sectors below {sectors}"
            ));
        }
    }
    Ok(())
}

/// The faults of a drive, in bytes, as the model applies them.
#[derive(Debug, Clone)]
pub(super) struct Faults {
    /// Unreadable byte ranges.
    bad: Vec<(u64, u64)>,
    /// Slow byte ranges and their added ns.
    slow: Vec<(u64, u64, f64)>,
    lying_flush: bool,
    /// Byte ranges read back altered.
    corrupt: Vec<(u64, u64)>,
    /// Byte ranges that cannot be written.
    unwritable: Vec<(u64, u64)>,
    /// The bytes really stored (a multiple of the sector size, below the size).
    fake: Option<u64>,
    /// A counterfeit that remaps: which addresses hold data (`keeps=`).
    keeps: Option<Kept>,
    /// A size that shrinks (`shrink=`).
    shrink: Option<Shrink>,
}

/// A drive whose size shrinks once `at` bytes were written (`shrink=AT:TO`).
#[derive(Debug, Clone)]
struct Shrink {
    at: u64,
    to: u64,
    /// Bytes written so far.
    written: u64,
    /// The size it reads now, shared with its [`SizeProbe`]s.
    size: Arc<AtomicU64>,
}

/// What the faults do to one read or write.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Effect {
    /// The operation fails with EIO, after the model's error recovery time.
    pub(super) fail: bool,
    /// Nanoseconds added at completion.
    pub(super) extra_ns: f64,
    /// A failed read: the byte offset of the first unreadable sector it met (the
    /// drive stops there and reports it).
    pub(super) unreadable_at: Option<u64>,
    /// A write: the unreadable byte ranges it covered, remapped by it.
    pub(super) remapped: Vec<(u64, u64)>,
    /// A failed write: the byte offset of the first unwritable sector it met.
    pub(super) unwritable_at: Option<u64>,
}

impl Effect {
    /// An access past the end of a drive that shrank: it fails, and nothing else.
    fn failed() -> Effect {
        Effect {
            fail: true,
            extra_ns: 0.0,
            unreadable_at: None,
            remapped: Vec::new(),
            unwritable_at: None,
        }
    }
}

impl Faults {
    /// The faults of `spec` on a drive of `size` bytes with `sector`-byte logical
    /// sectors; the error names a range that does not fit in 64-bit byte offsets, or
    /// a `fake=` size that is not whole sectors below the size.
    pub(super) fn new(spec: &FaultSpec, sector: u64, size: u64) -> Result<Faults, String> {
        let slow = spec
            .slow
            .iter()
            .map(|&(a, b, ms)| to_bytes((a, b), sector).map(|(a, b)| (a, b, ms * super::MS)))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(f) = spec.fake
            && (!f.is_multiple_of(sector) || f >= size)
        {
            return Err(format!(
                "fake={f}: the bytes really stored must be whole {sector}-byte sectors and \
                 fewer than the drive's {size} bytes"
            ));
        }
        let keeps = keeps_of(spec, sector, size)?;
        let shrink = match spec.shrink {
            Some((at, to)) if to == 0 || !to.is_multiple_of(sector) || to >= size => {
                return Err(format!(
                    "shrink={at}:{to}: the size it shrinks to must be whole {sector}-byte \
                     sectors, more than 0 and fewer than the drive's {size} bytes"
                ));
            }
            Some((at, to)) => Some(Shrink {
                at,
                to,
                written: 0,
                size: Arc::new(AtomicU64::new(size)),
            }),
            None => None,
        };
        let faults = Faults {
            keeps,
            shrink,
            // Overlapping or touching ranges merged, so that a sector is remapped once.
            bad: merged(&spec.bad, sector)?,
            slow,
            lying_flush: spec.lying_flush,
            corrupt: merged(&spec.corrupt, sector)?,
            unwritable: merged(&spec.unwritable, sector)?,
            fake: spec.fake,
        };
        past_the_end(spec, sector, size)?;
        Ok(faults)
    }

    /// What the faults do to a read or write of `len` bytes at `offset` (whole
    /// sectors inside the device, `len > 0`).
    pub(super) fn on_access(&mut self, kind: Kind, offset: u64, len: u64) -> Effect {
        let end = offset + len;
        if let Some(s) = &mut self.shrink {
            if s.written >= s.at {
                s.size.store(s.to, Ordering::Relaxed);
                if end > s.to {
                    return Effect::failed();
                }
            }
            if kind == Kind::Write {
                s.written += len;
            }
        }
        let touches = |a: u64, b: u64| offset < b && a < end;
        let (unreadable_at, unwritable_at, remapped) = match kind {
            Kind::Read => (
                self.first_bad_from(offset).filter(|&x| x < end),
                None,
                Vec::new(),
            ),
            Kind::Write => match first_from(&self.unwritable, offset).filter(|&x| x < end) {
                // The write fails: nothing is written, nothing remapped.
                Some(at) => (None, Some(at), Vec::new()),
                None => (None, None, self.remap(offset, end)),
            },
        };
        Effect {
            fail: unreadable_at.is_some() || unwritable_at.is_some(),
            unreadable_at,
            unwritable_at,
            remapped,
            extra_ns: self
                .slow
                .iter()
                .filter(|&&(a, b, _)| touches(a, b))
                .map(|&(_, _, ns)| ns)
                .sum(),
        }
    }

    /// With `shrink=`: the drive's size read again, shrinking as it does; the
    /// drive was opened with `opened` bytes.
    pub(super) fn size_probe(&self, opened: u64) -> Option<SizeProbe> {
        Some(SizeProbe::shared(
            self.shrink.as_ref()?.size.clone(),
            opened,
        ))
    }

    /// The first unreadable byte at or after `offset`, if any.
    pub(super) fn first_bad_from(&self, offset: u64) -> Option<u64> {
        first_from(&self.bad, offset)
    }

    /// Where a byte at logical address `a` is kept: `a mod BYTES` with `fake=BYTES`.
    pub(super) fn physical(&self, a: u64) -> u64 {
        self.fake.map_or(a, |f| a % f)
    }

    /// The bytes really stored, with `fake=`.
    pub(super) fn fake(&self) -> Option<u64> {
        self.fake
    }

    /// With `keeps=`, a write of `len` bytes at `offset`: the parts it stores
    /// (sorted byte spans; the rest is dropped). None without `keeps=` (all stored).
    pub(super) fn kept_of_write(&mut self, offset: u64, len: u64) -> Option<Vec<(u64, u64)>> {
        Some(self.keeps.as_mut()?.write(offset, offset + len))
    }

    /// Alter `buf`, just read from logical byte `offset` with `sector`-byte sectors,
    /// where it lies in a `corrupt=` range: one bit flipped in every such sector, at
    /// a place that follows from the sector's number (the same on every read).
    pub(super) fn corrupt(&self, offset: u64, buf: &mut [u8], sector: u64) {
        let end = offset + buf.len() as u64;
        for &(a, b) in &self.corrupt {
            let (lo, hi) = (a.max(offset), b.min(end));
            let mut s = lo;
            while s < hi {
                let lba = s / sector;
                // Fibonacci hashing spreads the flipped bit over the sector.
                let bit = (lba.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) % (sector * 8);
                buf[(s - offset + bit / 8) as usize] ^= 1 << (bit % 8);
                s += sector;
            }
        }
    }

    /// Remap the unreadable bytes inside [a, b) (a write covered them): they read
    /// correctly from now on. Returns the ranges remapped.
    fn remap(&mut self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut done = Vec::new();
        let mut kept = Vec::with_capacity(self.bad.len());
        for &(x, y) in &self.bad {
            if y <= a || b <= x {
                kept.push((x, y));
                continue;
            }
            done.push((x.max(a), y.min(b)));
            if x < a {
                kept.push((x, a));
            }
            if b < y {
                kept.push((b, y));
            }
        }
        if !done.is_empty() {
            self.bad = kept;
        }
        done
    }

    /// Whether a flush returns at once, leaving the dirty data in the cache.
    pub(super) fn lying_flush(&self) -> bool {
        self.lying_flush
    }

    /// Append the faults to the model's one-line description, each range as the
    /// findings print it (first-last, inclusive).
    pub(super) fn describe(&self, d: &mut String) {
        let slow: Vec<(u64, u64)> = self.slow.iter().map(|&(a, b, _)| (a, b)).collect();
        ranges(d, "unreadable", &self.bad);
        ranges(d, "slow", &slow);
        if self.lying_flush {
            d.push_str(", lying flush");
        }
        ranges(d, "corrupting", &self.corrupt);
        ranges(d, "unwritable", &self.unwritable);
        if let Some(f) = self.fake {
            d.push_str(&format!(
                ", fake capacity: stores only {f} bytes, addresses wrap"
            ));
        }
        if let Some(s) = &self.shrink {
            d.push_str(&format!(
                ", shrinks to {} bytes once {} bytes were written",
                s.to, s.at
            ));
        }
        if let Some(k) = &self.keeps {
            d.push_str(&format!(
                ", fake capacity: keeps only the first {} bytes written, wherever written",
                k.limit()
            ));
        }
    }
}

/// The remapping counterfeit of `spec`'s `keeps=`, checked: whole sectors below the
/// size, and not with `fake=` (a drive either wraps or remaps).
fn keeps_of(spec: &FaultSpec, sector: u64, size: u64) -> Result<Option<Kept>, String> {
    let Some(k) = spec.keeps else {
        return Ok(None);
    };
    if !k.is_multiple_of(sector) || k >= size {
        return Err(format!(
            "keeps={k}: the bytes kept must be whole {sector}-byte sectors and fewer than \
             the drive's {size} bytes"
        ));
    }
    if spec.fake.is_some() {
        return Err(
            "keeps= and fake= describe two kinds of counterfeit (one remaps, one wraps): give one"
                .to_string(),
        );
    }
    Ok(Some(Kept::new(k)))
}

/// The first byte at or after `offset` inside one of `ranges`, if any.
fn first_from(ranges: &[(u64, u64)], offset: u64) -> Option<u64> {
    ranges
        .iter()
        .filter(|&&(_, b)| b > offset)
        .map(|&(a, _)| a.max(offset))
        .min()
}
