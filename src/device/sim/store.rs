//! What the simulated drive stores: the content written to it, kept sparsely by
//! physical byte address, so that a read returns what was written there (zeros
//! where nothing was).
//!
//! A [`Store`] is a map of disjoint extents. An extent holds either **bytes**,
//! pointing into a shared, immutable content buffer, or **stamps**: a run of
//! sectors that are, byte for byte, the stamps of consecutive LBAs of one pass
//! (`crate::stamps::stamp`), kept as (stamper, first LBA) and written again by
//! [`Stamper::stamp`] when read. A write is sorted sector by sector: a sector that
//! [`Stamper::exact_run`] finds to be exactly the stamp its header names joins a
//! stamp run (consecutive runs merge, so a whole write-and-verify pass over a 2 TB
//! drive is one extent); any other sector is kept as bytes. Nothing is taken on
//! trust: a sector that differs from its stamp in any byte (a torn stamp, a
//! damaged fill word) is kept as the bytes written.
//!
//! A write cuts the extents it overlaps (an extent cut in two keeps pointing into
//! the same buffer, or the same stamps: no copy) and adds its own; a write of
//! zeros only cuts, leaving a hole that reads as zeros. Bytes that are a prefix of
//! one of the last few buffers stored (the engines write the same pattern buffer
//! again and again, at every size) share that buffer instead of copying it, so
//! tests that write tens of GiB of one pattern (-S, --zones -w, the SMR check) keep
//! only a few MiB. Other distinct content costs its size.
//!
//! **Memory bound.** At most [`MAX_CONTENT_BYTES`] (512 MiB) of distinct content
//! buffers and [`MAX_EXTENTS`] extents (about 100 bytes each) are alive at once. A
//! write that would pass either fails with an error that says so and names
//! docs/sim.md (nothing is stored): it never drops data silently, so a read never
//! returns something other than what was last written. Stamped sectors cost no
//! content, so write-and-verify passes and capacity checks of any size stay far
//! below the bound.
//!
//! Until the first write the drive has never stored anything and a read leaves the
//! caller's buffer as it is: zeroing every buffer would cost more wall time than the
//! whole model in a read-only scan of a large drive, and no reader compares content
//! it has not written. From the first write on, every read fills the whole buffer.

use crate::stamps::stamp::{self, StampSize, Stamper};
use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes of distinct content kept at once.
pub(super) const MAX_CONTENT_BYTES: u64 = 512 << 20;
/// The most extents alive at once (about 100 bytes each); a write past it fails.
pub(super) const MAX_EXTENTS: usize = 1 << 20;
/// How many recent content buffers a new write is compared with.
const RECENT: usize = 4;
/// How many passes' stampers are kept for recognising stamps.
const STAMPERS: usize = 4;

/// One immutable content buffer; its size is counted while it lives.
#[derive(Debug)]
struct Content {
    bytes: Box<[u8]>,
    live: Arc<AtomicU64>,
}

impl Drop for Content {
    fn drop(&mut self) {
        self.live
            .fetch_sub(self.bytes.len() as u64, Ordering::Relaxed);
    }
}

/// Where an extent's content comes from.
#[derive(Debug, Clone)]
enum Source {
    /// Bytes from `data[off..]`.
    Bytes { data: Arc<Content>, off: usize },
    /// The stamps of `stamper` from `skip` bytes into the sector of `lba` on:
    /// byte `x` of the extent is byte `(skip + x) % S` of the stamp of LBA
    /// `lba + (skip + x) / S`.
    Stamps {
        stamper: Arc<Stamper>,
        lba: u64,
        skip: u64,
    },
}

impl Source {
    /// The same content, `d` bytes further on.
    fn advanced(&self, d: u64) -> Source {
        match self {
            Source::Bytes { data, off } => Source::Bytes {
                data: data.clone(),
                off: off + d as usize,
            },
            Source::Stamps { stamper, lba, skip } => {
                let ss = u64::from(stamper.sector_size());
                let at = skip + d;
                Source::Stamps {
                    stamper: stamper.clone(),
                    lba: lba + at / ss,
                    skip: at % ss,
                }
            }
        }
    }

    /// Whether `next` is this content continued after `len` bytes (two stamp
    /// runs of one pass whose LBAs follow on).
    fn continued_by(&self, len: u64, next: &Source) -> bool {
        match (self, next) {
            (
                Source::Stamps { stamper: a, .. },
                Source::Stamps {
                    stamper: b,
                    lba,
                    skip,
                },
            ) if Arc::ptr_eq(a, b) => match self.advanced(len) {
                Source::Stamps {
                    lba: l, skip: s, ..
                } => (l, s) == (*lba, *skip),
                Source::Bytes { .. } => false,
            },
            _ => false,
        }
    }
}

/// An extent of stored content: `len` bytes from `src`.
#[derive(Debug, Clone)]
struct Extent {
    len: u64,
    src: Source,
}

/// The content written to a simulated drive, by physical byte address.
#[derive(Debug, Default)]
pub(super) struct Store {
    /// Disjoint extents by their first byte.
    map: BTreeMap<u64, Extent>,
    /// Bytes of content buffers alive (shared by `Content`s' drops).
    live: Arc<AtomicU64>,
    /// The last content buffers stored, for sharing a repeated pattern.
    recent: Vec<std::sync::Weak<Content>>,
    /// The stampers of the last passes seen, for recognising their stamps.
    stampers: Vec<Arc<Stamper>>,
    /// Whether any write has reached the store.
    written: bool,
    /// The bound on content bytes (0: [`MAX_CONTENT_BYTES`]; tests set less).
    cap: u64,
    /// The logical sector size whose stamps are recognised (0: none).
    sector: u64,
    /// What the first write refused at the bound was told, if one was.
    limit: Option<String>,
}

/// The error of a write past the store's bound.
fn full(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!(
            "the simulated drive keeps at most {} MiB of distinct written content and {} extents \
             in memory, and this write would pass the {what} (docs/sim.md, \"Stored data\"): \
             a limit of the simulator, not a fault of the simulated drive; simulate a smaller \
             drive (size=) or write less",
            MAX_CONTENT_BYTES >> 20,
            MAX_EXTENTS
        ),
    )
}

/// One piece of a write, as it will be kept.
enum Piece<'a> {
    /// Bytes to keep (or, all zeros, a hole).
    Bytes(&'a [u8]),
    /// `n` sectors of stamps from `lba` on.
    Stamps {
        stamper: Arc<Stamper>,
        lba: u64,
        n: u64,
    },
}

impl Store {
    /// A store that recognises the stamps of `sector`-byte logical sectors.
    pub(super) fn new(sector: u64) -> Store {
        Store {
            sector,
            ..Store::default()
        }
    }

    /// The message of the first write refused at the memory bound, if any: a
    /// limit of the simulator that the run must report as such, never as the
    /// drive's sectors.
    pub(super) fn limit_reached(&self) -> Option<&str> {
        self.limit.as_deref()
    }

    /// Bytes of distinct content kept.
    pub(super) fn content_bytes(&self) -> u64 {
        self.live.load(Ordering::Relaxed)
    }

    /// Extents alive now, at most [`MAX_EXTENTS`].
    pub(super) fn extents(&self) -> usize {
        self.map.len()
    }

    /// Remove everything in [a, b), cutting the extents that stick out.
    fn cut(&mut self, a: u64, b: u64) {
        // An extent starting before `a` that reaches into [a, b).
        if let Some((&s, e)) = self.map.range(..a).next_back()
            && s + e.len > a
        {
            let e = e.clone();
            let end = s + e.len;
            self.map.get_mut(&s).expect("just found").len = a - s;
            if end > b {
                self.map.insert(
                    b,
                    Extent {
                        len: end - b,
                        src: e.src.advanced(b - s),
                    },
                );
            }
        }
        // Extents starting inside [a, b).
        let inside: Vec<u64> = self.map.range(a..b).map(|(&s, _)| s).collect();
        for s in inside {
            let e = self.map.remove(&s).expect("just listed");
            let end = s + e.len;
            if end > b {
                self.map.insert(
                    b,
                    Extent {
                        len: end - b,
                        src: e.src.advanced(b - s),
                    },
                );
            }
        }
    }

    /// A content buffer holding `buf`: a recent one it is a prefix of, or a copy.
    fn content_for(&mut self, buf: &[u8]) -> io::Result<Arc<Content>> {
        self.recent.retain(|w| w.strong_count() > 0);
        for w in &self.recent {
            if let Some(c) = w.upgrade()
                && c.bytes.len() >= buf.len()
                && c.bytes[..buf.len()] == *buf
            {
                return Ok(c);
            }
        }
        let n = buf.len() as u64;
        let cap = if self.cap == 0 {
            MAX_CONTENT_BYTES
        } else {
            self.cap
        };
        if self.content_bytes() + n > cap {
            return Err(full("content bound"));
        }
        self.live.fetch_add(n, Ordering::Relaxed);
        let c = Arc::new(Content {
            bytes: buf.into(),
            live: self.live.clone(),
        });
        if self.recent.len() == RECENT {
            self.recent.remove(0);
        }
        self.recent.push(Arc::downgrade(&c));
        Ok(c)
    }

    /// The stamper of the pass a sector's header names, if the sector claims to
    /// be a stamp of this store's sector size.
    fn stamper_for(&mut self, sector: &[u8]) -> Option<(Arc<Stamper>, u64)> {
        let h = stamp::header_of(sector)?;
        if u64::from(h.sector_size) != self.sector {
            return None;
        }
        let found = self
            .stampers
            .iter()
            .find(|s| s.nonce() == h.nonce && s.pass() == h.pass)
            .cloned();
        let st = match found {
            Some(s) => s,
            None => {
                let s = Arc::new(Stamper::new(
                    h.nonce,
                    h.pass,
                    StampSize::new(h.sector_size).ok()?,
                ));
                if self.stampers.len() == STAMPERS {
                    self.stampers.remove(0);
                }
                self.stampers.push(s.clone());
                s
            }
        };
        Some((st, h.lba))
    }

    /// `buf` (at a sector-aligned address) sorted into stamp runs and bytes.
    fn pieces<'a>(&mut self, buf: &'a [u8]) -> Vec<Piece<'a>> {
        let ss = self.sector as usize;
        let mut out: Vec<Piece<'a>> = Vec::new();
        let mut bytes_from: Option<usize> = None; // start of a run of plain sectors
        let mut i = 0;
        while i < buf.len() {
            // A run of stamps from here?
            if let Some((stamper, lba)) = self.stamper_for(&buf[i..i + ss]) {
                let n = stamper.exact_run(&buf[i..], lba);
                if n > 0 {
                    if let Some(from) = bytes_from.take() {
                        out.push(Piece::Bytes(&buf[from..i]));
                    }
                    out.push(Piece::Stamps {
                        stamper,
                        lba,
                        n: n as u64,
                    });
                    i += n * ss;
                    continue;
                }
            }
            bytes_from.get_or_insert(i);
            i += ss;
        }
        if let Some(from) = bytes_from {
            out.push(Piece::Bytes(&buf[from..]));
        }
        out
    }

    /// Store `buf` at physical byte `at`. Fails, storing nothing, past the bound
    /// (and remembers the first such refusal: [`Store::limit_reached`]).
    pub(super) fn write(&mut self, at: u64, buf: &[u8]) -> io::Result<()> {
        let r = self.write_within_bound(at, buf);
        if let Err(e) = &r
            && self.limit.is_none()
        {
            self.limit = Some(e.to_string());
        }
        r
    }

    /// [`Store::write`] without remembering a refusal.
    fn write_within_bound(&mut self, at: u64, buf: &[u8]) -> io::Result<()> {
        self.written = true;
        if buf.is_empty() {
            return Ok(());
        }
        let ss = self.sector;
        let pieces = if ss >= u64::from(stamp::MIN_SECTOR)
            && at.is_multiple_of(ss)
            && (buf.len() as u64).is_multiple_of(ss)
        {
            self.pieces(buf)
        } else {
            vec![Piece::Bytes(buf)]
        };
        // Each piece adds at most two extents (itself and a cut one's tail).
        if self.map.len() + 2 * pieces.len() > MAX_EXTENTS {
            return Err(full("extent bound"));
        }
        // Content first, so that a refused write stores nothing.
        let mut kept = Vec::with_capacity(pieces.len());
        for p in pieces {
            kept.push(match p {
                Piece::Bytes(b) if is_zero(b) => (b.len() as u64, None),
                Piece::Bytes(b) => (
                    b.len() as u64,
                    Some(Source::Bytes {
                        data: self.content_for(b)?,
                        off: 0,
                    }),
                ),
                Piece::Stamps { stamper, lba, n } => (
                    n * ss,
                    Some(Source::Stamps {
                        stamper,
                        lba,
                        skip: 0,
                    }),
                ),
            });
        }
        let mut a = at;
        for (len, src) in kept {
            self.cut(a, a + len);
            if let Some(src) = src {
                self.insert(a, Extent { len, src });
            }
            a += len;
        }
        Ok(())
    }

    /// Insert an extent into a hole, merged with the extents on either side
    /// when it continues them (stamp runs).
    fn insert(&mut self, at: u64, mut e: Extent) {
        if let Some(next) = self.map.get(&(at + e.len))
            && e.src.continued_by(e.len, &next.src)
        {
            let next = self.map.remove(&(at + e.len)).expect("just found");
            e.len += next.len;
        }
        if let Some((&s, prev)) = self.map.range_mut(..at).next_back()
            && s + prev.len == at
            && prev.src.continued_by(prev.len, &e.src)
        {
            prev.len += e.len;
            return;
        }
        self.map.insert(at, e);
    }

    /// Fill `buf` with the content at physical byte `at` (zeros where nothing was
    /// written). Before the first write, `buf` is left as it is.
    pub(super) fn read(&self, at: u64, buf: &mut [u8]) {
        if !self.written {
            return;
        }
        let end = at + buf.len() as u64;
        let mut filled = at; // bytes before this are done
        let first = self
            .map
            .range(..at)
            .next_back()
            .filter(|(s, e)| *s + e.len > at)
            .map(|(&s, _)| s)
            .unwrap_or(at);
        for (&s, e) in self.map.range(first..end) {
            let (lo, hi) = (s.max(at), (s + e.len).min(end));
            if lo > filled {
                buf[(filled - at) as usize..(lo - at) as usize].fill(0);
            }
            let dst = &mut buf[(lo - at) as usize..(hi - at) as usize];
            match e.src.advanced(lo - s) {
                Source::Bytes { data, off } => {
                    dst.copy_from_slice(&data.bytes[off..off + dst.len()]);
                }
                Source::Stamps { stamper, lba, skip } => write_stamps(&stamper, lba, skip, dst),
            }
            filled = hi;
        }
        if filled < end {
            buf[(filled - at) as usize..].fill(0);
        }
    }
}

/// Fill `dst` with the stamps of `stamper` from `skip` bytes into the sector of
/// `lba` on: whole sectors are stamped in place, a partial one at either end
/// through a scratch sector.
fn write_stamps(stamper: &Stamper, mut lba: u64, skip: u64, dst: &mut [u8]) {
    let ss = stamper.sector_size() as usize;
    let mut dst = dst;
    let mut skip = skip as usize;
    let mut scratch = Vec::new();
    while !dst.is_empty() {
        if skip == 0 && dst.len() >= ss {
            let whole = dst.len() / ss * ss;
            let (head, rest) = std::mem::take(&mut dst).split_at_mut(whole);
            stamper.stamp(head, lba);
            lba += (whole / ss) as u64;
            dst = rest;
            continue;
        }
        scratch.resize(ss, 0);
        stamper.stamp(&mut scratch, lba);
        let n = (ss - skip).min(dst.len());
        let (head, rest) = std::mem::take(&mut dst).split_at_mut(n);
        head.copy_from_slice(&scratch[skip..skip + n]);
        dst = rest;
        skip = 0;
        lba += 1;
    }
}

/// Whether `buf` is all zeros (compared in 4 KiB pieces, through memcmp).
fn is_zero(buf: &[u8]) -> bool {
    const Z: [u8; 4096] = [0; 4096];
    buf.chunks(Z.len()).all(|c| c == &Z[..c.len()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_return_what_was_written_and_zeros_elsewhere() {
        let mut s = Store::default();
        let mut buf = [7u8; 16];
        s.read(0, &mut buf);
        assert_eq!(buf, [7; 16], "untouched before the first write");
        s.write(4, &[1, 2, 3, 4]).unwrap();
        s.read(0, &mut buf);
        assert_eq!(buf, [0, 0, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0]);
        s.write(6, &[9, 9, 9, 9]).unwrap();
        s.read(0, &mut buf);
        assert_eq!(buf, [0, 0, 0, 0, 1, 2, 9, 9, 9, 9, 0, 0, 0, 0, 0, 0]);
        s.write(5, &[0]).unwrap();
        s.read(4, &mut buf[..4]);
        assert_eq!(buf[..4], [1, 0, 9, 9]);
    }

    #[test]
    fn a_repeated_pattern_is_kept_once() {
        let mut s = Store::default();
        let pat: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8 ^ 0x5a).collect();
        for i in 0..1000u64 {
            let len = [1 << 20, 4096, 65536][(i % 3) as usize];
            s.write(i * (2 << 20), &pat[..len]).unwrap();
        }
        assert_eq!(s.content_bytes(), 1 << 20);
        assert_eq!(s.extents(), 1000);
        // Overwritten and cut, the shared buffer is freed with its last extent.
        s.write(0, &vec![0u8; 2000 * (1 << 20)]).unwrap();
        assert_eq!((s.content_bytes(), s.extents()), (0, 0));
    }

    #[test]
    fn the_bound_refuses_a_write_and_keeps_the_old_content() {
        let mut s = Store {
            cap: 64 << 10,
            ..Store::default()
        };
        assert_eq!(s.limit_reached(), None);
        let mut n = 0u64;
        let err = loop {
            let block = [n as u8 + 1; 4096];
            match s.write(n << 20, &block) {
                Ok(()) => n += 1,
                Err(e) => break e,
            }
        };
        assert_eq!(n, 16);
        assert_eq!(err.kind(), io::ErrorKind::OutOfMemory);
        assert!(err.to_string().contains("size="), "{err}");
        assert_eq!(s.limit_reached(), Some(err.to_string().as_str()));
        let mut b = [0u8; 4];
        s.read(n << 20, &mut b);
        assert_eq!(b, [0; 4]);
    }

    fn stamped(st: &Stamper, lba: u64, sectors: usize) -> Vec<u8> {
        let mut b = vec![0u8; sectors * st.sector_size() as usize];
        st.stamp(&mut b, lba);
        b
    }

    #[test]
    fn stamps_are_kept_as_runs_and_written_again_when_read() {
        let mut s = Store::new(512);
        let st = Stamper::new(7, 0, StampSize::new(512).unwrap());
        // 64 MiB of stamps in 1 MiB writes, out of order within each 4 MiB:
        // one extent, no content.
        for i in 0..64u64 {
            let j = i ^ 3;
            s.write(j << 20, &stamped(&st, j * 2048, 2048)).unwrap();
        }
        assert_eq!((s.content_bytes(), s.extents()), (0, 1));
        let mut back = vec![0u8; 3 << 20];
        s.read(5 << 20, &mut back);
        assert_eq!(back, stamped(&st, 5 * 2048, 3 * 2048));
        // A read at an odd byte is the same bytes.
        let mut odd = vec![0u8; 1000];
        s.read((5 << 20) + 300, &mut odd);
        assert_eq!(odd[..], back[300..1300]);
        // Another pass over a part: three runs, and what each holds.
        let st1 = Stamper::new(7, 1, StampSize::new(512).unwrap());
        s.write(512 * 10, &stamped(&st1, 10, 6)).unwrap();
        assert_eq!((s.content_bytes(), s.extents()), (0, 3));
        let mut b = vec![0u8; 512 * 20];
        s.read(0, &mut b);
        let mut want = stamped(&st, 0, 20);
        want[512 * 10..512 * 16].copy_from_slice(&stamped(&st1, 10, 6));
        assert_eq!(b, want);
    }

    #[test]
    fn a_sector_that_is_not_exactly_its_stamp_is_kept_as_written() {
        let mut s = Store::new(512);
        let st = Stamper::new(9, 2, StampSize::new(512).unwrap());
        let mut buf = stamped(&st, 100, 8);
        buf[512 + 511] ^= 1; // sector 101: its last fill word
        buf[3 * 512 + 40] ^= 0x80; // sector 103: its fill
        buf[5 * 512 + 8] ^= 1; // sector 105: claims LBA 104 or so
        // Sector 106: another LBA's stamp, exact: a run of its own.
        buf[6 * 512..7 * 512].copy_from_slice(&stamped(&st, 5000, 1));
        s.write(0, &buf).unwrap();
        let mut back = vec![0u8; buf.len()];
        s.read(0, &mut back);
        assert_eq!(back, buf);
        // Runs: 100, [101], 102, [103], 104, [105], 5000, 107.
        assert_eq!(s.extents(), 8);
        assert_eq!(s.content_bytes(), 3 * 512);
        // Another sector size, or an unaligned write, is kept as bytes.
        let other = stamped(&Stamper::new(9, 2, StampSize::new(4096).unwrap()), 0, 1);
        s.write(1 << 20, &other).unwrap();
        s.write((2 << 20) + 8, &stamped(&st, 0, 1)).unwrap();
        assert_eq!(s.content_bytes(), 3 * 512 + 4096 + 512);
    }

    proptest! {
        #[test]
        fn the_store_matches_a_flat_model(
            writes in proptest::collection::vec((0u64..4000, 1usize..600, any::<u8>()), 1..60)
        ) {
            let mut s = Store::new(64);
            let mut flat = vec![0u8; 5000];
            let st = [Stamper::new(1, 0, StampSize::new(64).unwrap()), Stamper::new(1, 1, StampSize::new(64).unwrap())];
            for (at, len, v) in writes {
                let buf: Vec<u8> = if v % 4 == 1 {
                    // Whole stamped sectors at a sector's address (some of another
                    // LBA than the address's), the rest bytes.
                    let (at, n) = (at / 64 * 64, len.div_ceil(64).min(8));
                    let mut b = vec![0u8; n * 64];
                    st[usize::from(v & 8 != 0)].stamp(&mut b, at / 64 + u64::from(v >> 6));
                    if v & 16 != 0 {
                        b[len % (n * 64)] ^= 1;
                    }
                    s.write(at, &b).unwrap();
                    flat[at as usize..at as usize + b.len()].copy_from_slice(&b);
                    continue;
                } else {
                    (0..len).map(|i| if v == 0 { 0 } else { v ^ i as u8 }).collect()
                };
                s.write(at, &buf).unwrap();
                flat[at as usize..at as usize + len].copy_from_slice(&buf);
            }
            let mut out = vec![1u8; 5000];
            s.read(0, &mut out);
            prop_assert_eq!(&out, &flat);
            let mut part = vec![1u8; 777];
            s.read(1234, &mut part);
            prop_assert_eq!(&part[..], &flat[1234..2011]);
        }
    }
}
