//! The rotating disk's state and service: the head, the platter's angle on the clock,
//! the read-ahead stream and cache segment (the volatile write cache and its
//! write-back are in write_cache.rs).

use super::geometry::{Geometry, SeekCurve};
use super::presets::HddParams;
use super::{MS, frac, jitter};
use crate::rng::Rng;

/// The head streaming sequentially into the cache: it started reading byte `origin`
/// at time `t_origin` and goes on until `stop`; the cache holds [lo, position).
#[derive(Debug, Clone, Copy)]
pub(super) struct Stream {
    pub(super) origin: u64,
    pub(super) origin_tau: f64,
    pub(super) t_origin: f64,
    pub(super) lo: u64,
    pub(super) stop: u64,
}

/// The write cache's state (its behaviour is write_cache.rs's).
#[derive(Debug, Clone, Default)]
pub(super) struct WriteCache {
    /// Dirty extents not being written back, sorted and merged.
    pub(super) dirty: Vec<(u64, u64)>,
    /// The extent being written back: a stream from `origin` to `stop`.
    pub(super) current: Option<Stream>,
    /// The earliest time the write-back may use the media (after a read's media
    /// access, or when the data arrived in an empty cache).
    pub(super) media_free: f64,
    /// The time the write-back was last brought up to date.
    pub(super) at: f64,
}

#[derive(Debug, Clone)]
pub(super) struct Hdd {
    pub(super) p: HddParams,
    pub(super) geo: Geometry,
    pub(super) seek: SeekCurve,
    pub(super) rev_ns: f64,
    /// The platter's angle at time 0, as a time offset into the revolution.
    pub(super) phase_ns: f64,
    /// Usable bytes (whole logical sectors).
    pub(super) media_end: u64,
    pub(super) sector: u64,
    pub(super) stream: Option<Stream>,
    pub(super) head_track: u64,
    pub(super) busy_until: f64,
    /// The volatile write cache and its background write-back (write_cache.rs).
    pub(super) cache: WriteCache,
}

impl Hdd {
    pub(super) fn new(p: HddParams, media_end: u64, sector: u64, phys: u64, rng: &mut Rng) -> Hdd {
        let geo = Geometry::build(&p, media_end, phys);
        let seek = SeekCurve::new(&p.seek, geo.cylinders);
        let rev_ns = 60e9 / f64::from(p.rpm);
        let phase_ns = crate::rng::unit(rng) * rev_ns;
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
            cache: WriteCache::default(),
        }
    }

    /// The wait from time `t` until the byte at stream position `tau` is under the
    /// head (the head being on its track).
    pub(super) fn wait_for(&self, t: f64, tau: f64) -> f64 {
        frac(tau - (t + self.phase_ns) / self.rev_ns) * self.rev_ns
    }

    /// The time at which the stream has read everything below `x`.
    pub(super) fn stream_time(&self, s: &Stream, x: u64) -> f64 {
        if x <= s.origin {
            s.t_origin
        } else {
            s.t_origin + (self.geo.end_tau(x) - s.origin_tau) * self.rev_ns
        }
    }

    /// How far the stream has read at time `t` (whole logical sectors).
    pub(super) fn stream_pos(&self, s: &Stream, t: f64) -> u64 {
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

    pub(super) fn head_track_at(&self, t: f64) -> u64 {
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
    pub(super) fn extend(&self, s: &mut Stream, t: f64, b: u64) {
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
    pub(super) fn seek_between(&self, from: u64, to: u64) -> f64 {
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
    pub(super) fn access(&self, t: f64, a: u64, b: u64, rng: &mut Rng) -> (f64, f64) {
        let from = self.head_track_at(t);
        let (to, _, _) = self.geo.locate(a);
        let seek = self.seek_between(from, to) * jitter(rng, self.p.seek_jitter);
        let t2 = t + seek;
        let tau_a = self.geo.tau(a);
        let t3 = t2 + self.wait_for(t2, tau_a);
        (t3, t3 + (self.geo.end_tau(b) - tau_a) * self.rev_ns)
    }

    pub(super) fn overhead(&self, rng: &mut Rng) -> f64 {
        self.p.cmd_overhead_ms * MS * jitter(rng, self.p.overhead_jitter)
    }

    pub(super) fn host_ns(&self, len: u64) -> f64 {
        len as f64 * 1e9 / self.p.host_rate
    }

    /// Serve a read of [a, a + len) that arrives at `t0` (the drive being free);
    /// returns its completion time.
    pub(super) fn read(&mut self, t0: f64, a: u64, len: u64, rng: &mut Rng) -> f64 {
        self.pause_write_back(t0, rng);
        let done = self.serve_read(t0, a, len, rng);
        self.resume_write_back(done);
        done
    }

    /// [`Hdd::read`] with the write-back paused.
    fn serve_read(&mut self, t0: f64, a: u64, len: u64, rng: &mut Rng) -> f64 {
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
        let t1 = t0 + ovh + self.p.media_overhead_ms * MS * jitter(rng, self.p.overhead_jitter);
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
    pub(super) fn abort_stream(&mut self, a: u64) {
        self.stream = None;
        self.head_track = self.geo.locate(a).0;
    }
}

/// Insert [a, b) into sorted, merged extents.
pub(super) fn add_extent(v: &mut Vec<(u64, u64)>, a: u64, b: u64) {
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
