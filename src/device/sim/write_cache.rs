//! The rotating disk's volatile write cache and its background write-back.
//!
//! A write is accepted into the cache at the host's rate; the drive writes the
//! cache back to the media **continuously** while it keeps accepting data, one
//! dirty extent after another in ascending order from the head (an elevator), each
//! a media access (media overhead, seek, rotational wait, then the stream at the
//! zone's media rate). Data that continue the extent being written back extend
//! it, so a sequential write pass streams to the media without a seek or a lost
//! revolution. A write waits only for the room it needs: when the cache is full
//! it is accepted as soon as the write-back has freed its length, so a streaming
//! write runs at the media rate with no periodic stall. A read pauses the
//! write-back (the head serves the read; what is left of the extent in progress
//! stays dirty) and the write-back resumes once the read's media access is over.
//! An honest flush waits until everything dirty is on the media.
//!
//! The write-back never starts before its data are in the cache; data that
//! continue the extent in progress are not held back for their own transfer
//! (at most a fraction of a millisecond early on the outer zones, where the media
//! outruns the host).

use super::hdd::{Hdd, Stream, add_extent};
use super::{MS, jitter};
use crate::rng::Rng;

/// Remove [lo, hi) from sorted, merged extents.
fn remove_range(v: &mut Vec<(u64, u64)>, lo: u64, hi: u64) {
    let mut out = Vec::with_capacity(v.len() + 1);
    for &(a, b) in v.iter() {
        if b <= lo || a >= hi {
            out.push((a, b));
            continue;
        }
        if a < lo {
            out.push((a, lo));
        }
        if b > hi {
            out.push((hi, b));
        }
    }
    *v = out;
}

impl Hdd {
    /// Bytes in the write cache not yet on the media, as of the last command.
    pub(super) fn dirty_bytes(&self) -> u64 {
        let c = &self.cache;
        let waiting: u64 = c.dirty.iter().map(|(a, b)| b - a).sum();
        waiting
            + c.current
                .as_ref()
                .map_or(0, |s| s.stop - self.stream_pos(s, c.at).max(s.origin))
    }

    /// Run the background write-back up to time `t`.
    pub(super) fn drain_to(&mut self, t: f64, rng: &mut Rng) {
        loop {
            if let Some(s) = self.cache.current {
                let end = self.stream_time(&s, s.stop);
                if end > t {
                    break;
                }
                self.cache.current = None;
                self.cache.media_free = end;
                self.head_track = self.geo.locate(s.stop - 1).0;
                continue;
            }
            if self.cache.dirty.is_empty() || self.cache.media_free > t {
                break;
            }
            // The next extent at or above the head, else the lowest (an elevator).
            let head = self.geo.track_start(self.head_track);
            let i = self.cache.dirty.partition_point(|e| e.1 <= head);
            let i = if i < self.cache.dirty.len() { i } else { 0 };
            let (a, b) = self.cache.dirty.remove(i);
            let t1 = self.cache.media_free
                + self.p.media_overhead_ms * MS * jitter(rng, self.p.overhead_jitter);
            // The head leaves the read-ahead stream for the write-back.
            self.stream = None;
            let (t3, _) = self.access(t1, a, b, rng);
            self.cache.current = Some(Stream {
                origin: a,
                origin_tau: self.geo.tau(a),
                t_origin: t3,
                lo: a,
                stop: b,
            });
        }
        self.cache.at = self.cache.at.max(t);
    }

    /// Pause the write-back at `t` for a read: what is left of the extent in
    /// progress goes back to the dirty extents and the head stays where the
    /// write-back left it.
    pub(super) fn pause_write_back(&mut self, t: f64, rng: &mut Rng) {
        self.drain_to(t, rng);
        if let Some(s) = self.cache.current.take() {
            let pos = self.stream_pos(&s, t).max(s.origin);
            if pos < s.stop {
                add_extent(&mut self.cache.dirty, pos, s.stop);
            }
            let at = if pos > s.origin { pos - 1 } else { s.origin };
            self.head_track = self.geo.locate(at).0;
        }
    }

    /// The write-back may resume from `t` (a read's media access is over).
    pub(super) fn resume_write_back(&mut self, t: f64) {
        self.cache.media_free = self.cache.media_free.max(t);
    }

    /// The earliest time from `t` at which the cache has room for `len` more
    /// bytes (a write larger than the whole cache waits for it to be empty).
    fn room_for(&mut self, mut t: f64, len: u64, rng: &mut Rng) -> f64 {
        let cap = self.p.write_cache.max(len);
        loop {
            self.drain_to(t, rng);
            let dirty = self.dirty_bytes();
            if dirty + len <= cap {
                return t;
            }
            let need = dirty + len - cap;
            match self.cache.current {
                Some(s) => {
                    let pos = self.stream_pos(&s, t).max(s.origin);
                    let left = s.stop - pos;
                    // The time the stream has passed `need` more bytes (whole
                    // sectors), or the end of this extent.
                    let upto = if need < left {
                        (pos + need).div_ceil(self.sector) * self.sector
                    } else {
                        s.stop
                    };
                    t = self.stream_time(&s, upto.min(s.stop)).max(t);
                    if upto < s.stop {
                        self.cache.at = t;
                        return t;
                    }
                }
                None => t = self.cache.media_free.max(t),
            }
        }
    }

    /// Serve a write of [a, a + len) into the write cache, arriving at `t0` (the
    /// drive being free); returns its completion.
    pub(super) fn write(&mut self, t0: f64, a: u64, len: u64, rng: &mut Rng) -> f64 {
        let ovh = self.overhead(rng);
        let t = self.room_for(t0 + ovh, len, rng);
        let done = t + self.host_ns(len);
        let b = a + len;
        match self.cache.current {
            Some(mut s) => {
                let pos = self.stream_pos(&s, t).max(s.origin);
                if a <= s.stop && b > pos {
                    // Overlaps or continues the extent in progress: it streams on
                    // (a part below what it has written is dirty again).
                    remove_range(&mut self.cache.dirty, s.stop, b.max(s.stop));
                    s.stop = s.stop.max(b);
                    self.cache.current = Some(s);
                    if a < pos {
                        add_extent(&mut self.cache.dirty, a, pos);
                    }
                } else {
                    add_extent(&mut self.cache.dirty, a, b);
                }
            }
            None => {
                if self.cache.dirty.is_empty() {
                    // An empty cache: the write-back starts when the data are in.
                    self.cache.media_free = self.cache.media_free.max(done);
                }
                add_extent(&mut self.cache.dirty, a, b);
            }
        }
        done
    }

    /// Serve a cache flush arriving at `t0`; returns its completion. An honest
    /// flush returns when everything dirty is on the media; a lying one at once.
    pub(super) fn flush(&mut self, t0: f64, lying: bool, rng: &mut Rng) -> f64 {
        let mut t = t0 + self.overhead(rng);
        if lying {
            self.drain_to(t, rng);
            return t;
        }
        loop {
            self.drain_to(t, rng);
            match self.cache.current {
                Some(s) => t = t.max(self.stream_time(&s, s.stop)),
                None if !self.cache.dirty.is_empty() => t = t.max(self.cache.media_free),
                None => break,
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::sim::presets::{Preset, hdd_params};

    const MIB: u64 = 1 << 20;

    /// The `hdd` preset's disk of `size` bytes without jitter, so that every time
    /// follows from the formulas.
    fn disk(size: u64) -> (Hdd, Rng) {
        let mut p = hdd_params(Preset::Hdd);
        p.seek_jitter = 0.0;
        p.overhead_jitter = 0.0;
        let mut rng = crate::rng::seeded(1);
        (Hdd::new(p, size, 512, 4096, &mut rng), rng)
    }

    /// The time the head takes to stream [x, y) (the same track or not).
    fn stream_ns(h: &Hdd, x: u64, y: u64) -> f64 {
        (h.geo.end_tau(y) - h.geo.end_tau(x)) * h.rev_ns
    }

    #[test]
    fn a_streaming_write_waits_only_for_its_room_at_the_media_rate() {
        let (mut h, mut rng) = disk(4 << 30);
        let (l, cap) = (MIB, h.p.write_cache);
        // The innermost 256 MiB, where the media (about 100 MB/s) is slower than
        // the host (180 MB/s): the cache fills, then each write waits for its room.
        let first = (4 << 30) - 256 * MIB;
        let mut t = 0.0;
        let mut done = Vec::new();
        for k in 0..256u64 {
            t = h.write(t, first + k * l, l, &mut rng);
            done.push(t);
        }
        // Once the cache is full, write k is accepted when the write-back has
        // passed the byte `cap - l` behind it, and completes one host transfer
        // later: consecutive completions are exactly the media time of 1 MiB at
        // the write-back's position.
        for k in 120..256u64 {
            let x = first + k * l + l - cap;
            let want = stream_ns(&h, x - l, x);
            let got = done[k as usize] - done[k as usize - 1];
            assert!(
                (got - want).abs() < 1e-3,
                "write {k}: {got} ns, the media {want} ns"
            );
        }
        // The write rate is the media rate there.
        let span = done[255] - done[119];
        let media = stream_ns(&h, first + 120 * l - cap, first + 256 * l - cap);
        assert!((span - media).abs() < 1e-2, "{span} vs {media}");
    }

    #[test]
    fn a_whole_sequential_pass_has_no_stall() {
        let (mut h, mut rng) = disk(2 << 30);
        let l = MIB;
        let host = h.host_ns(l) + h.p.cmd_overhead_ms * MS;
        let mut t = 0.0;
        let mut worst = 0.0f64;
        for k in 0..2048u64 {
            let done = h.write(t, k * l, l, &mut rng);
            worst = worst.max(done - t);
            t = done;
        }
        // The slowest write takes the inner zone's media time for 1 MiB plus its
        // command overhead (98 MB/s: 10.7 ms), never a whole cache's write-back
        // (the old model's 170 ms every 32 MiB).
        let inner = stream_ns(&h, (2 << 30) - 2 * l, (2 << 30) - l);
        assert!(worst <= inner + host, "{worst} ns > {inner} + {host}");
        assert!(worst < 12e6, "{worst} ns");
    }

    #[test]
    fn an_honest_flush_waits_for_the_write_back_a_lying_one_does_not() {
        for lying in [false, true] {
            let (mut h, mut rng) = disk(1 << 30);
            let ovh = h.p.cmd_overhead_ms * MS;
            let mo = h.p.media_overhead_ms * MS;
            // 16 MiB from byte 0 in one command: in the cache after its transfer.
            let done = h.write(0.0, 0, 16 * MIB, &mut rng);
            assert!((done - (ovh + h.host_ns(16 * MIB))).abs() < 1e-6);
            // The write-back starts once the data are in: media overhead, no seek
            // (the head is on track 0), the wait for byte 0, the stream.
            let t1 = done + mo;
            let end = t1
                + h.wait_for(t1, h.geo.tau(0))
                + (h.geo.end_tau(16 * MIB) - h.geo.tau(0)) * h.rev_ns;
            let f = h.flush(done, lying, &mut rng);
            if lying {
                assert_eq!(f, done + ovh);
                assert!(h.dirty_bytes() > 0, "still dirty after a lying flush");
                // The drive writes it back anyway, in the background.
                h.drain_to(end, &mut rng);
                assert_eq!(h.dirty_bytes(), 0);
            } else {
                assert!(
                    (f - end).abs() < 1e-3,
                    "flush done at {f}, write-back at {end}"
                );
                assert_eq!(h.dirty_bytes(), 0);
                // Nothing dirty: the next flush costs only its command.
                assert!((h.flush(f, false, &mut rng) - (f + ovh)).abs() < 1e-6);
            }
        }
    }

    #[test]
    fn a_read_pauses_the_write_back_and_what_is_left_stays_dirty() {
        let (mut h, mut rng) = disk(1 << 30);
        let done = h.write(0.0, 0, 16 * MIB, &mut rng);
        // A read far away 20 ms later: the write-back has written part of it.
        let r = h.read(done + 20e6, 512 << 20, 4096, &mut rng);
        let left = h.dirty_bytes();
        assert!(left > 0 && left < 16 * MIB, "{left}");
        // The rest is written back after the read; a flush then waits for it.
        let f = h.flush(r, false, &mut rng);
        assert!(f > r + stream_ns(&h, 16 * MIB - left, 16 * MIB));
        assert_eq!(h.dirty_bytes(), 0);
    }
}
