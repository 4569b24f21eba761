//! Sector stamps: every logical sector written by a verify pass or a capacity check
//! carries content that no other sector of the run, and no earlier pass, carries.
//!
//! Layout of one sector of `S` bytes (format 2; all integers little-endian):
//!
//! | bytes        | content                                                       |
//! |--------------|---------------------------------------------------------------|
//! | 0..8         | magic `SEEKPRB2`                                              |
//! | 8..16        | the sector's own LBA (in logical sectors from the device start) |
//! | 16..24       | the run's nonce                                               |
//! | 24..28       | the pass number                                               |
//! | 28..32       | the sector size `S`                                           |
//! | 32..S        | fill: the pass's pool at the LBA's offset, XOR the LBA's key   |
//!
//! The fill: each pass draws a pool of random words once from `Pcg64Mcg` seeded
//! from (nonce, pass); the sector at an LBA takes `(S-32)/8` consecutive pool words
//! from an offset (0..512) given by its key, a 64-bit value derived from (nonce,
//! pass, LBA) by SplitMix64's mixer, each XOR the key. So each sector's content
//! follows from (nonce, pass, LBA) alone, differs from every other's, and costs a
//! load, an XOR and a store per word rather than a 128-bit multiply (drawing every
//! word from the generator ran at under 3 GB/s; see benches/stamps.rs).
//!
//! A read-back is judged by [`Stamper::check`] by comparing every byte: the header
//! it should carry and every fill word, against what [`Stamper::stamp`] writes for
//! that LBA (a load, an XOR and an OR per word, vectorised). Nothing is hashed:
//! the comparison is exact (format 1 ended each sector with an XXH3-64 check value
//! of the rest and trusted it for the fill, so damage passed with a chance of
//! 2^-64) and cheaper (hashing every sector once when stamped and once when judged
//! was half the CPU of a write-and-verify pass on the simulated drive). Only a
//! sector that is not this pass's stamp of its LBA is parsed as a possible stamp
//! of another LBA or pass, which counts only when its magic, nonce and sector size
//! are this run's and it is, byte for byte, the stamp of the LBA and pass its
//! header names (so a torn or altered sector is never taken for another LBA's).
//! A sector of format 1 is not a stamp of this format: it is corrupt (no run of
//! format 1 can be resumed by this one: see `crate::stamps::checkpoint`).

use rand::Rng;
use rand_pcg::Pcg64Mcg;
use std::cell::RefCell;
use std::rc::Rc;

/// The first eight bytes of every stamped sector.
pub const MAGIC: [u8; 8] = *b"SEEKPRB2";
/// The stamp format this build writes and reads (the digit of [`MAGIC`]): saved
/// checkpoints carry it, so that a run of another format is never resumed.
pub const FORMAT: u32 = 2;
/// Bytes of the header (magic, LBA, nonce, pass, sector size).
pub const HEADER_BYTES: usize = 32;
/// The smallest sector a stamp fits in.
pub const MIN_SECTOR: u32 = 64;
/// The largest sector size accepted (larger than any drive's logical sector).
pub const MAX_SECTOR: u32 = 1 << 20;

/// Pool words beyond one sector's fill: the spread of the per-LBA offsets.
const SPREAD: usize = 512;

use super::fill::{fill_diff, word, write_fill};
use crate::results::failures::ReadBack;

/// What a sector's header says, when it carries this format's magic: the fields a
/// [`Stamper`] is made from, and the LBA the sector claims.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The run's nonce.
    pub nonce: u64,
    /// The pass (0 first) the stamp says wrote it.
    pub pass: u32,
    /// The sector size the stamp was made for.
    pub sector_size: u32,
    /// The LBA the stamp was made for.
    pub lba: u64,
}

/// The header of `sector` if it starts with [`MAGIC`] and is long enough to hold
/// one (nothing else is checked: see [`Stamper::exact_run`]).
pub fn header_of(sector: &[u8]) -> Option<Header> {
    if sector.len() < HEADER_BYTES || sector[..8] != MAGIC {
        return None;
    }
    let meta = word(sector, 3);
    Some(Header {
        nonce: word(sector, 2),
        pass: meta as u32,
        sector_size: (meta >> 32) as u32,
        lba: word(sector, 1),
    })
}

/// The sector size is not one a stamp fits in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a {0}-byte sector cannot be stamped: the sector size must be a multiple of 8 from {MIN_SECTOR} to {MAX_SECTOR} bytes"
)]
pub struct BadSectorSize(pub u32);

/// A logical sector size a stamp fits in: a multiple of 8 from [`MIN_SECTOR`] to
/// [`MAX_SECTOR`] bytes (every drive's 512 and 4096, and 520 or 528, among them).
/// Checked once, where a test learns the device's sector size and before it does
/// any I/O, so that a [`Stamper`] can always be made (issue 28).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StampSize(u32);

impl StampSize {
    /// 512-byte sectors.
    pub const B512: StampSize = StampSize(512);
    /// 4096-byte sectors.
    pub const B4096: StampSize = StampSize(4096);

    /// `bytes`, if a stamp fits a sector of that size.
    pub fn new(bytes: u32) -> Result<StampSize, BadSectorSize> {
        if (MIN_SECTOR..=MAX_SECTOR).contains(&bytes) && bytes.is_multiple_of(8) {
            Ok(StampSize(bytes))
        } else {
            Err(BadSectorSize(bytes))
        }
    }

    /// The size in bytes.
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// The stamps of one pass of one run: stamps buffers and checks read-backs.
/// Making one draws the pass's pool (one sector plus 4 KiB of random words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamper {
    nonce: u64,
    pass: u32,
    sector_size: u32,
    /// The per-pass key that the per-sector keys are derived from.
    key: u64,
    /// The pass's random words.
    pool: Vec<u64>,
}

/// SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom
/// number generators", OOPSLA 2014): a bijection of u64 that mixes every input bit
/// into every output bit; used only to derive seeds.
#[inline(always)]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Stamper {
    /// The stamps of pass `pass` of the run with `nonce`, for `size`-byte
    /// logical sectors.
    pub fn new(nonce: u64, pass: u32, size: StampSize) -> Stamper {
        let sector_size = size.get();
        let key = mix(mix(nonce ^ 0x5EEC_9B0B_E5EE_D5A1) ^ u64::from(pass));
        let mut g = Pcg64Mcg::new((u128::from(mix(key)) << 64) | u128::from(key));
        let words = (sector_size as usize - HEADER_BYTES) / 8 + SPREAD;
        let pool = (0..words).map(|_| g.next_u64()).collect();
        Stamper {
            nonce,
            pass,
            sector_size,
            key,
            pool,
        }
    }

    /// A fresh nonce for a run, from the operating system's entropy (through rand's
    /// thread generator), so that no earlier run's stamps pass as this run's.
    pub fn fresh_nonce() -> u64 {
        rand::rng().next_u64()
    }

    /// The run's nonce.
    pub fn nonce(&self) -> u64 {
        self.nonce
    }
    /// The pass (0 first) this stamper writes and expects.
    pub fn pass(&self) -> u32 {
        self.pass
    }
    /// The logical sector size in bytes: each sector carries one stamp.
    pub fn sector_size(&self) -> u32 {
        self.sector_size
    }

    /// The fill of the sector at `lba`: its pool words and its key.
    #[inline(always)]
    fn fill_of(&self, lba: u64) -> (&[u64], u64) {
        // For a fixed pass, distinct LBAs get distinct keys (mix is a bijection).
        let k = mix(self.key ^ lba);
        let off = (k >> 55) as usize; // 0..512
        (&self.pool[off..off + self.pool.len() - SPREAD], k)
    }

    /// The header words of the sector at `lba`.
    #[inline(always)]
    fn header(&self, lba: u64) -> [u64; 4] {
        [
            u64::from_le_bytes(MAGIC),
            lba,
            self.nonce,
            u64::from(self.pass) | (u64::from(self.sector_size) << 32),
        ]
    }

    /// Stamp `buf` (a whole number of sectors) as the sectors from `first_lba` on.
    ///
    /// # Panics
    /// When `buf` is not a whole number of sectors (a caller's bug).
    pub fn stamp(&self, buf: &mut [u8], first_lba: u64) {
        let ss = self.sector_size as usize;
        assert!(
            buf.len().is_multiple_of(ss),
            "a buffer of {} bytes is not a whole number of {ss}-byte sectors",
            buf.len()
        );
        // Index loops here and below, as in fill.rs (which says why: the test
        // build's iterator adapters are calls).
        let mut i = 0;
        while i < buf.len() / ss {
            self.stamp_sector(&mut buf[i * ss..(i + 1) * ss], first_lba + i as u64);
            i += 1;
        }
    }

    /// Write the header and the fill of the sector at `lba`.
    #[inline(always)]
    fn stamp_sector(&self, sector: &mut [u8], lba: u64) {
        let (head, fill) = sector.split_at_mut(HEADER_BYTES);
        let h = self.header(lba);
        let mut i = 0;
        while i < h.len() {
            head[i * 8..i * 8 + 8].copy_from_slice(&h[i].to_le_bytes());
            i += 1;
        }
        let (words, k) = self.fill_of(lba);
        write_fill(fill, words, k);
    }

    /// Judge one read-back sector that should hold this pass's stamp of `lba`.
    ///
    /// # Panics
    /// When `sector` is not exactly one sector long (a caller's bug).
    pub fn check_sector(&self, sector: &[u8], lba: u64) -> ReadBack {
        let ss = self.sector_size as usize;
        assert_eq!(sector.len(), ss, "not one {ss}-byte sector");
        if self.header_and_fill_match(sector, lba) {
            ReadBack::Ok
        } else {
            self.classify(sector, lba)
        }
    }

    /// The verdicts of a read-back buffer (a whole number of sectors) that should
    /// hold this pass's stamps of the sectors from `first_lba` on, one per sector in
    /// order, computed as the iterator is advanced (nothing is allocated).
    ///
    /// # Panics
    /// When `buf` is not a whole number of sectors (a caller's bug).
    pub fn check<'a>(
        &'a self,
        buf: &'a [u8],
        first_lba: u64,
    ) -> impl ExactSizeIterator<Item = ReadBack> + 'a {
        let ss = self.sector_size as usize;
        assert!(
            buf.len().is_multiple_of(ss),
            "a buffer of {} bytes is not a whole number of {ss}-byte sectors",
            buf.len()
        );
        buf.chunks_exact(ss)
            .enumerate()
            .map(move |(i, s)| self.check_sector(s, first_lba + i as u64))
    }

    /// Whether the buffer holds, byte for byte, this pass's stamps of the sectors
    /// from `first_lba` on: the fast path of a clean read-back, which the caller may
    /// take before asking for the verdicts of a buffer that failed it.
    pub fn all_ok(&self, buf: &[u8], first_lba: u64) -> bool {
        let ss = self.sector_size as usize;
        buf.len().is_multiple_of(ss) && self.exact_run(buf, first_lba) == buf.len() / ss
    }

    /// How many leading sectors of `buf` are, byte for byte, this pass's stamps
    /// of `first_lba`, `first_lba + 1`, …: the header and every fill word compared
    /// with what [`Stamper::stamp`] writes. A store that keeps stamped sectors as
    /// "the stamps of these LBAs" and writes them again when read (the simulated
    /// drive) asks this first, so that it never returns anything but what was
    /// written. A trailing partial sector never counts.
    pub fn exact_run(&self, buf: &[u8], first_lba: u64) -> usize {
        let ss = self.sector_size as usize;
        let mut i = 0;
        while i < buf.len() / ss {
            let whole = (first_lba.checked_add(i as u64))
                .is_some_and(|lba| self.header_and_fill_match(&buf[i * ss..(i + 1) * ss], lba));
            if !whole {
                break;
            }
            i += 1;
        }
        i
    }

    /// Whether `sector` is, byte for byte, this pass's stamp of `lba`: its header
    /// words, then (only when they match) every fill word.
    #[inline]
    fn header_and_fill_match(&self, sector: &[u8], lba: u64) -> bool {
        let (h, mut diff, mut i) = (self.header(lba), 0u64, 0);
        while i < h.len() {
            diff |= word(sector, i) ^ h[i];
            i += 1;
        }
        let (words, k) = self.fill_of(lba);
        diff == 0 && fill_diff(&sector[HEADER_BYTES..], words, k) == 0
    }

    /// The slow path: what a sector that is not this pass's stamp of `lba` holds.
    /// A stamp of another LBA or pass counts only when its magic, nonce and sector
    /// size are this run's and the whole sector is the stamp its header names
    /// (made again from that pass's pool): otherwise it is corrupt.
    fn classify(&self, sector: &[u8], lba: u64) -> ReadBack {
        let Some(h) = header_of(sector) else {
            return ReadBack::Corrupt;
        };
        if h.nonce != self.nonce || h.sector_size != self.sector_size {
            return ReadBack::Corrupt;
        }
        let whole = if h.pass == self.pass {
            self.header_and_fill_match(sector, h.lba)
        } else {
            other_pass(self.nonce, h.pass, self.sector_size).header_and_fill_match(sector, h.lba)
        };
        if !whole {
            return ReadBack::Corrupt;
        }
        if h.lba == lba && h.pass < self.pass {
            ReadBack::Stale { found_pass: h.pass }
        } else if h.lba == lba && h.pass == self.pass {
            // Unreachable: such a sector passes the fast path. Kept total.
            ReadBack::Corrupt
        } else {
            ReadBack::Misdirected {
                found_lba: h.lba,
                found_pass: h.pass,
            }
        }
    }
}

/// The stampers of other passes this thread judged sectors against last (a read
/// half of a drive that lost its writes finds an earlier pass's stamp in every
/// sector): made once, not once a sector.
const OTHERS: usize = 4;

thread_local! {
    static OTHER_PASSES: RefCell<Vec<Rc<Stamper>>> = const { RefCell::new(Vec::new()) };
}

/// The stamper of pass `pass` of the run with `nonce`, for `sector_size`-byte
/// sectors (a size a [`Stamper`] of this run was made with), from this thread's
/// few last ones when it is among them.
fn other_pass(nonce: u64, pass: u32, sector_size: u32) -> Rc<Stamper> {
    OTHER_PASSES.with_borrow_mut(|others| {
        let at = others
            .iter()
            .position(|s| (s.nonce, s.pass, s.sector_size) == (nonce, pass, sector_size));
        let s = match at {
            Some(i) => others.remove(i),
            None => {
                let size = StampSize::new(sector_size).expect("a size a stamper was made with");
                Rc::new(Stamper::new(nonce, pass, size))
            }
        };
        if others.len() == OTHERS {
            others.remove(0);
        }
        others.push(s.clone());
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stamped(s: &Stamper, sectors: usize, lba: u64) -> Vec<u8> {
        let mut b = vec![0u8; sectors * s.sector_size() as usize];
        s.stamp(&mut b, lba);
        b
    }

    #[test]
    fn sector_sizes_are_checked() {
        for ss in [512u32, 4096, 520, 64, 1 << 20] {
            assert_eq!(StampSize::new(ss).map(StampSize::get), Ok(ss));
        }
        for ss in [0u32, 8, 56, 513, 4100, (1 << 20) + 8] {
            assert_eq!(StampSize::new(ss), Err(BadSectorSize(ss)));
        }
    }

    #[test]
    fn the_layout_is_as_documented() {
        let s = Stamper::new(0xABCD, 3, StampSize::new(512).unwrap());
        let b = stamped(&s, 2, 1000);
        assert_eq!(&b[..8], b"SEEKPRB2");
        assert_eq!(word(&b, 1), 1000);
        assert_eq!(word(&b, 2), 0xABCD);
        assert_eq!(word(&b, 3), 3 | (512 << 32));
        assert_eq!(word(&b[512..], 1), 1001);
        // The fill runs to the sector's end: its 60 words are pool words XOR the key.
        assert_eq!(s.pool.len(), 60 + SPREAD);
        let (words, k) = s.fill_of(1000);
        assert_eq!(words.len(), 60);
        for (i, &w) in words.iter().enumerate() {
            assert_eq!(word(&b, 4 + i), w ^ k, "fill word {i}");
        }
    }

    #[test]
    fn content_is_reproducible_and_unique() {
        let s = Stamper::new(7, 1, StampSize::new(4096).unwrap());
        let a = stamped(&s, 8, 40);
        assert_eq!(a, stamped(&s, 8, 40));
        // The same LBAs stamped one at a time give the same bytes.
        for i in 0..8 {
            assert_eq!(a[i * 4096..(i + 1) * 4096], stamped(&s, 1, 40 + i as u64));
        }
        // Another LBA, pass or nonce: different fill, not only a different header.
        let fill = |b: &[u8]| b[HEADER_BYTES..].to_vec();
        let other = [
            stamped(&s, 1, 41),
            stamped(&Stamper::new(7, 2, StampSize::new(4096).unwrap()), 1, 40),
            stamped(&Stamper::new(8, 1, StampSize::new(4096).unwrap()), 1, 40),
        ];
        for o in &other {
            assert_ne!(fill(&a), fill(o));
        }
        // The fill is not a repeated pattern: no 8-byte word repeats in a sector.
        let mut words: Vec<u64> = (4..512).map(|i| word(&a, i)).collect();
        words.sort_unstable();
        words.dedup();
        assert_eq!(words.len(), 508);
    }

    #[test]
    fn a_clean_read_back_is_ok() {
        for ss in [512u32, 4096, 520] {
            let s = Stamper::new(99, 0, StampSize::new(ss).unwrap());
            let b = stamped(&s, 16, 1 << 40);
            assert!(s.all_ok(&b, 1 << 40));
            assert!(s.check(&b, 1 << 40).all(ReadBack::is_ok));
            assert_eq!(s.check(&b, 1 << 40).len(), 16);
        }
    }

    #[test]
    fn each_fault_gets_its_verdict() {
        let nonce = 0x1234_5678;
        let p0 = Stamper::new(nonce, 0, StampSize::new(512).unwrap());
        let p1 = Stamper::new(nonce, 1, StampSize::new(512).unwrap());
        let mut b = stamped(&p1, 8, 100);
        // Sector 101: one flipped bit in the fill.
        b[512 + 200] ^= 0x10;
        // Sector 102: holds pass 1's stamp of LBA 7 (wrapped or misdirected).
        b[1024..1536].copy_from_slice(&stamped(&p1, 1, 7));
        // Sector 103: still holds pass 0's stamp (the write was lost).
        b[1536..2048].copy_from_slice(&stamped(&p0, 1, 103));
        // Sector 104: zeros.
        b[2048..2560].fill(0);
        // Sector 105: another run's stamp of the same LBA.
        b[2560..3072].copy_from_slice(&stamped(
            &Stamper::new(nonce + 1, 1, StampSize::new(512).unwrap()),
            1,
            105,
        ));
        // Sector 106: pass 0's stamp of LBA 5, torn: its second half is zeros.
        let mut torn = stamped(&p0, 1, 5);
        torn[256..].fill(0);
        b[3072..3584].copy_from_slice(&torn);
        // Sector 107: only its last fill word damaged.
        b[4095] ^= 1;
        let v: Vec<ReadBack> = p1.check(&b, 100).collect();
        assert_eq!(
            v,
            [
                ReadBack::Ok,
                ReadBack::Corrupt,
                ReadBack::Misdirected {
                    found_lba: 7,
                    found_pass: 1
                },
                ReadBack::Stale { found_pass: 0 },
                ReadBack::Corrupt,
                ReadBack::Corrupt,
                ReadBack::Corrupt,
                ReadBack::Corrupt,
            ]
        );
        assert!(!p1.all_ok(&b, 100));
        // Read as pass 0 expects, pass 1's stamp is another pass's: misdirected in time.
        assert_eq!(
            p0.check_sector(&stamped(&p1, 1, 9), 9),
            ReadBack::Misdirected {
                found_lba: 9,
                found_pass: 1
            }
        );
    }

    #[test]
    fn exact_run_counts_the_sectors_that_are_their_stamps_byte_for_byte() {
        let s = Stamper::new(11, 1, StampSize::new(512).unwrap());
        let mut b = stamped(&s, 8, 64);
        assert_eq!(header_of(&b).unwrap().lba, 64);
        // Sector 67's last byte alone damaged: check() and exact_run agree.
        b[4 * 512 - 1] ^= 4;
        assert_eq!(s.exact_run(&b, 64), 3);
        assert_eq!(s.exact_run(&b[4 * 512..], 68), 4);
        assert!(s.all_ok(&b[..3 * 512], 64));
        assert!(!s.all_ok(&b, 64));
        assert_eq!(s.check_sector(&b[3 * 512..4 * 512], 67), ReadBack::Corrupt);
        // Another LBA, or another pass, is not a run.
        assert_eq!(s.exact_run(&b, 65), 0);
        assert_eq!(
            Stamper::new(11, 2, StampSize::new(512).unwrap()).exact_run(&b, 64),
            0
        );
        // A partial sector never counts; an empty buffer has no run.
        assert_eq!(s.exact_run(&b[..700], 64), 1);
        assert!(!s.all_ok(&b[..700], 64));
        assert_eq!(s.exact_run(&[], 64), 0);
        assert_eq!(header_of(&[0u8; 512]), None);
    }

    #[test]
    fn an_altered_stamp_of_another_lba_or_pass_is_corrupt_not_misdirected_or_stale() {
        let p0 = Stamper::new(77, 0, StampSize::new(512).unwrap());
        let p1 = Stamper::new(77, 1, StampSize::new(512).unwrap());
        // Intact, they are named for what they are.
        let mut other_lba = stamped(&p1, 1, 9);
        let mut stale = stamped(&p0, 1, 20);
        assert_eq!(
            p1.check_sector(&other_lba, 20),
            ReadBack::Misdirected {
                found_lba: 9,
                found_pass: 1
            }
        );
        assert_eq!(
            p1.check_sector(&stale, 20),
            ReadBack::Stale { found_pass: 0 }
        );
        // One fill byte flipped in either: its header still names an LBA and a pass
        // of this run, but it is not that stamp: corrupt.
        other_lba[300] ^= 0x01;
        stale[511] ^= 0x80;
        assert_eq!(p1.check_sector(&other_lba, 20), ReadBack::Corrupt);
        assert_eq!(p1.check_sector(&stale, 20), ReadBack::Corrupt);
        // Also when another pass's pool is remembered by this thread already.
        assert_eq!(
            p1.check_sector(&stamped(&p0, 1, 20), 20),
            ReadBack::Stale { found_pass: 0 }
        );
        assert_eq!(p1.check_sector(&stale, 20), ReadBack::Corrupt);
        // A sector of format 1 (its magic SEEKPRB1) is not a stamp of this run.
        let mut old = stamped(&p1, 1, 20);
        old[7] = b'1';
        assert_eq!(p1.check_sector(&old, 20), ReadBack::Corrupt);
        assert_eq!(header_of(&old), None);
    }

    #[test]
    fn a_lost_write_drive_is_judged_stale_sector_by_sector_with_few_pools() {
        // Pass 3 reads back what passes 0, 1 and 2 left, interleaved: each sector is
        // named by its own pass, with the few stampers of other passes remembered.
        let size = StampSize::new(4096).unwrap();
        let p3 = Stamper::new(5, 3, size);
        let mut b = vec![0u8; 12 * 4096];
        for (i, s) in b.chunks_exact_mut(4096).enumerate() {
            Stamper::new(5, (i % 3) as u32, size).stamp(s, 500 + i as u64);
        }
        let v: Vec<ReadBack> = p3.check(&b, 500).collect();
        for (i, r) in v.iter().enumerate() {
            assert_eq!(
                *r,
                ReadBack::Stale {
                    found_pass: (i % 3) as u32
                }
            );
        }
        assert!(OTHER_PASSES.with_borrow(|o| o.len() <= OTHERS));
    }

    #[test]
    #[should_panic(expected = "not a whole number")]
    fn a_partial_sector_is_a_bug() {
        let s = Stamper::new(1, 0, StampSize::new(512).unwrap());
        s.stamp(&mut [0u8; 1000], 0);
    }

    proptest! {
        #[test]
        fn any_single_byte_change_is_caught(
            lba in any::<u64>().prop_map(|l| l >> 8),
            pos in 0usize..4096,
            flip in 1u8..=255,
            big in any::<bool>(),
        ) {
            let ss = if big { 4096 } else { 512 };
            let s = Stamper::new(42, 2, StampSize::new(ss as u32).unwrap());
            let mut b = stamped(&s, 1, lba);
            b[pos % ss] ^= flip;
            prop_assert_eq!(s.check_sector(&b, lba), ReadBack::Corrupt);
            prop_assert!(!s.all_ok(&b, lba));
            prop_assert_eq!(s.exact_run(&b, lba), 0);
        }

        #[test]
        fn damage_anywhere_is_never_ok_nor_another_lbas_or_passes_stamp(
            lba in any::<u64>().prop_map(|l| l >> 8),
            from in any::<u64>().prop_map(|l| l >> 8),
            from_pass in 0u32..3,
            pos in 0usize..4096,
            flip in 1u8..=255,
            big in any::<bool>(),
        ) {
            // A stamp of any LBA and pass of this run (the sector's own, another
            // LBA's, an earlier pass's), one byte damaged anywhere, read where
            // pass 2 expects LBA `lba`: corrupt, whatever the byte.
            let ss = if big { 4096 } else { 512 };
            let size = StampSize::new(ss as u32).unwrap();
            let s = Stamper::new(42, 2, size);
            let mut b = stamped(&Stamper::new(42, from_pass, size), 1, from);
            b[pos % ss] ^= flip;
            prop_assert_eq!(s.check_sector(&b, lba), ReadBack::Corrupt);
        }

        #[test]
        fn a_stamp_read_at_another_lba_names_its_own(
            at in 0u64..(1 << 50), from in 0u64..(1 << 50),
        ) {
            prop_assume!(at != from);
            let s = Stamper::new(5, 0, StampSize::new(512).unwrap());
            let b = stamped(&s, 1, from);
            prop_assert_eq!(
                s.check_sector(&b, at),
                ReadBack::Misdirected { found_lba: from, found_pass: 0 }
            );
        }
    }
}
