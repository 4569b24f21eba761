//! What the simulated drive stores: the content written to it, kept sparsely by
//! physical byte address, so that a read returns what was written there (zeros
//! where nothing was).
//!
//! A [`Store`] is a map of disjoint extents, each pointing into a shared, immutable
//! content buffer. A write cuts the extents it overlaps (an extent cut in two keeps
//! pointing into the same buffer: no copy) and adds its own; a write of zeros only
//! cuts, leaving a hole that reads as zeros. A write whose content is a prefix of one
//! of the last few buffers stored (the engines write the same pattern buffer again
//! and again, at every size) shares that buffer instead of copying it, so tests that
//! write tens of GiB of one pattern (-S, --zones -w, the SMR check) keep only a few
//! MiB. Distinct content (stamped sectors, every block unique) costs its size.
//!
//! **Memory bound.** At most [`MAX_CONTENT_BYTES`] (512 MiB) of distinct content
//! buffers and [`MAX_EXTENTS`] extents (about 100 bytes each) are alive at once. A
//! write that would pass either fails with an error that says so and names
//! docs/sim.md (nothing is stored): it never drops data silently, so a read never
//! returns something other than what was last written. Use a smaller `size=` for
//! full write-and-verify passes.
//!
//! Until the first write the drive has never stored anything and a read leaves the
//! caller's buffer as it is: zeroing every buffer would cost more wall time than the
//! whole model in a read-only scan of a large drive, and no reader compares content
//! it has not written. From the first write on, every read fills the whole buffer.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The most bytes of distinct content kept at once.
pub(super) const MAX_CONTENT_BYTES: u64 = 512 << 20;
/// The most extents kept at once.
pub(super) const MAX_EXTENTS: usize = 1 << 20;
/// How many recent content buffers a new write is compared with.
const RECENT: usize = 4;

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

/// An extent of stored content: `len` bytes from `data[off..]`.
#[derive(Debug, Clone)]
struct Extent {
    len: u64,
    data: Arc<Content>,
    off: usize,
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
    /// Whether any write has reached the store.
    written: bool,
    /// The bound on content bytes (0: [`MAX_CONTENT_BYTES`]; tests set less).
    cap: u64,
}

/// The error of a write past the store's bound.
fn full(what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::OutOfMemory,
        format!(
            "the simulated drive keeps at most {} MiB of distinct written content and {} extents \
             in memory, and this write would pass the {what} (docs/sim.md, \"Stored data\"): \
             simulate a smaller drive (size=) or write less",
            MAX_CONTENT_BYTES >> 20,
            MAX_EXTENTS
        ),
    )
}

impl Store {
    /// Bytes of distinct content kept.
    pub(super) fn content_bytes(&self) -> u64 {
        self.live.load(Ordering::Relaxed)
    }

    /// Extents kept.
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
                let skip = (b - s) as usize;
                self.map.insert(
                    b,
                    Extent {
                        len: end - b,
                        data: e.data.clone(),
                        off: e.off + skip,
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
                let skip = (b - s) as usize;
                self.map.insert(
                    b,
                    Extent {
                        len: end - b,
                        off: e.off + skip,
                        data: e.data,
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

    /// Store `buf` at physical byte `at`. Fails, storing nothing, past the bound.
    pub(super) fn write(&mut self, at: u64, buf: &[u8]) -> io::Result<()> {
        self.written = true;
        if buf.is_empty() {
            return Ok(());
        }
        let end = at + buf.len() as u64;
        if is_zero(buf) {
            self.cut(at, end);
            return Ok(());
        }
        // At most two more extents: this one and a cut one's tail.
        if self.map.len() + 2 > MAX_EXTENTS {
            return Err(full("extent bound"));
        }
        let data = self.content_for(buf)?;
        self.cut(at, end);
        self.map.insert(
            at,
            Extent {
                len: buf.len() as u64,
                data,
                off: 0,
            },
        );
        Ok(())
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
            let src = e.off + (lo - s) as usize;
            buf[(lo - at) as usize..(hi - at) as usize]
                .copy_from_slice(&e.data.bytes[src..src + (hi - lo) as usize]);
            filled = hi;
        }
        if filled < end {
            buf[(filled - at) as usize..].fill(0);
        }
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
        let mut b = [0u8; 4];
        s.read(n << 20, &mut b);
        assert_eq!(b, [0; 4]);
    }

    proptest! {
        #[test]
        fn the_store_matches_a_flat_model(
            writes in proptest::collection::vec((0u64..4000, 1usize..600, any::<u8>()), 1..60)
        ) {
            let mut s = Store::default();
            let mut flat = vec![0u8; 5000];
            for (at, len, v) in writes {
                let buf: Vec<u8> = (0..len).map(|i| if v == 0 { 0 } else { v ^ i as u8 }).collect();
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
