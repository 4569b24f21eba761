//! [`SimTarget`]: a simulated drive built from its spec, serving operations on its
//! virtual clock ([`Target`]) and without it, for a queued engine ([`QueueModel`]).

use super::faults::{Effect, Faults};
use super::flash::Flash;
use super::geometry::Zone;
use super::hdd::Hdd;
use super::neighbours::SharedSpec;
use super::physics::Model;
use super::presets::Preset;
use super::presets::{flash_params, hdd_params};
use super::smart::SimSmart;
use super::smr::Smr;
use super::spec::parse_spec;
use super::store::Store;
use super::{JITTER_STREAM, Kind, MIB, MS, SERIAL_STREAM};
use crate::clock::{Clock, VirtualClock};
use crate::device::{IoData, QueueModel, ReadBuf, Simulated, Target, Together, WriteBuf};
use crate::error::ProbeError;
use crate::results::device::{DeviceInfo, IoMode, Rotation, TargetKind};
use crate::rng::{self, Rng};
use crate::test_plans::{Op, OpKind};
use rustix::io::Errno;
use std::io;

/// A simulated drive: a physical model that advances a virtual clock.
///
/// Open one with [`SimTarget::open`]; it implements [`Target`] (reads, writes,
/// flushes, each advancing the clock by its service time) and [`QueueModel`] (the
/// same service times without advancing the clock, for a queued engine).
pub struct SimTarget {
    info: DeviceInfo,
    clock: VirtualClock,
    pub(super) model: Model,
    rng: Rng,
    pub(super) faults: Faults,
    /// The drive's SMART state (smart.rs).
    pub(super) smart: SimSmart,
    /// Drive-managed SMR on top of the disk model (smr.rs), when the spec asks.
    smr: Option<Smr>,
    /// The content written, by physical address (store.rs).
    store: Store,
    /// What the drive shares with the drives beside it (shared.rs).
    shared: SharedSpec,
    /// The drives running at once now, as the path check said (none: alone).
    together: Together,
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
            // ST8000DM004's capacity (Seagate BarraCuda manual 100805918).
            Preset::Smr => (8_001_563_222_016, 512, 4096),
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
        let faults = Faults::new(&s.faults, ss, size).map_err(bad_sim)?;
        s.smart.check(s.preset).map_err(bad_sim)?;

        let mut rng = rng::seeded(rng::derive(s.seed, JITTER_STREAM));
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
        let serial = rng::below(
            &mut rng::seeded(rng::derive(s.seed, SERIAL_STREAM)),
            1 << 20,
        );
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
                Preset::Smr => format!("Simulated {} rpm DM-SMR HDD (ST8000DM004-like)", hdd.p.rpm),
                _ => format!("Simulated {} rpm HDD", hdd.p.rpm),
            });
            if s.smr.is_some() {
                // A drive-managed SMR disk advertises TRIM and reports no zones.
                info.trim = true;
                info.zone_mode = Some(crate::results::device::ZoneMode::NotZoned);
            }
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
        let smart = SimSmart::new(&s.smart, s.preset, &model, size, ss);
        let mut t = SimTarget {
            info,
            clock: VirtualClock::new(),
            model,
            rng,
            faults,
            smart,
            smr: s.smr.map(Smr::new),
            store: Store::new(ss),
            shared: s.shared,
            together: Together::default(),
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
        if let Some(s) = &self.smr {
            d.push_str(&format!(
                ", drive-managed SMR: {} GiB media cache, {} MiB bands, cleaning after {} ms idle",
                s.p.cache_bytes >> 30,
                s.p.band_bytes >> 20,
                s.p.idle_ms
            ));
        }
        d.push_str(&format!(", seed {seed}"));
        self.faults.describe(&mut d);
        self.smart.describe(&mut d);
        self.shared.describe(&mut d);
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
            return Err(io::Error::from(Errno::INVAL));
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

    /// Bytes of distinct written content the drive keeps in memory, and its
    /// extents (docs/sim.md, "Stored data").
    pub fn stored(&self) -> (u64, usize) {
        (self.store.content_bytes(), self.store.extents())
    }

    /// Whether this drive reached a limit of the simulator (the memory bound of
    /// docs/sim.md, "Stored data"), with the message of the first write it
    /// refused: a note for the run (`WarningCode::SimulatorLimit` in the results),
    /// never a fault of the simulated drive. Stamped sectors cost no content, so
    /// write-and-verify passes and capacity checks of any size never reach it.
    pub fn limit_reached(&self) -> Option<&str> {
        self.store.limit_reached()
    }

    /// Move the data of a served operation at logical byte `offset`: a write is
    /// stored, a read filled (and altered in `corrupt=` ranges), in pieces where a
    /// `fake=` capacity wraps the addresses.
    fn move_data(&mut self, offset: u64, data: IoData<'_>) -> io::Result<()> {
        if let IoData::Write(buf) = &data
            && let Some(kept) = self.faults.kept_of_write(offset, buf.len() as u64)
        {
            return self.store_kept(offset, buf, &kept);
        }
        let ss = u64::from(self.info.sector_size);
        let wrap = self.faults.fake().unwrap_or(u64::MAX);
        // The pieces of [offset, offset + len) that do not cross a wrap.
        let piece = |at: u64, left: usize| -> usize {
            let to_wrap = wrap - self.faults.physical(at);
            left.min(usize::try_from(to_wrap).unwrap_or(usize::MAX))
        };
        match data {
            IoData::None => Ok(()),
            IoData::Write(buf) => {
                let mut done = 0;
                while done < buf.len() {
                    let at = offset + done as u64;
                    let n = piece(at, buf.len() - done);
                    self.store
                        .write(self.faults.physical(at), &buf[done..done + n])?;
                    done += n;
                }
                Ok(())
            }
            IoData::Read(buf) => {
                let mut done = 0;
                while done < buf.len() {
                    let at = offset + done as u64;
                    let n = piece(at, buf.len() - done);
                    self.store
                        .read(self.faults.physical(at), &mut buf[done..done + n]);
                    done += n;
                }
                self.faults.corrupt(offset, buf, ss);
                Ok(())
            }
        }
    }

    /// Store the parts `kept` (sorted byte spans inside it) of a write of `buf` at
    /// logical byte `offset` on a counterfeit that remaps (`keeps=`): the rest of
    /// the write is acknowledged and dropped. Its content stays at its logical
    /// address (`fake=` and `keeps=` are never given together).
    fn store_kept(&mut self, offset: u64, buf: &[u8], kept: &[(u64, u64)]) -> io::Result<()> {
        for &(a, b) in kept {
            let (x, y) = ((a - offset) as usize, (b - offset) as usize);
            self.store.write(a, &buf[x..y])?;
        }
        Ok(())
    }

    /// Serve a read or write of `len` bytes at `offset` arriving at virtual time
    /// `start_ns`, without touching the clock: the service time in ns (from
    /// `start_ns`, including any wait for the busy disk arm) and the outcome. When
    /// it succeeds, its data moves (`data`, see [`SimTarget::move_data`]).
    fn serve(
        &mut self,
        kind: Kind,
        start_ns: u64,
        offset: u64,
        len: u64,
        data: IoData<'_>,
    ) -> (u64, io::Result<()>) {
        if let Err(e) = self.check(offset, len) {
            return (0, Err(e));
        }
        if len == 0 {
            return (0, Ok(()));
        }
        if self.smart.test_running() {
            let size = self.info.media_size_bytes;
            self.smart.settle(start_ns, &self.model, &self.faults, size);
        }
        let effect: Effect = self.faults.on_access(kind, offset, len);
        self.smart.on_access(&effect);
        let (is_bad, extra) = (effect.fail, effect.extra_ns);
        let start = start_ns as f64;
        let rng = &mut self.rng;
        let (shared, together) = (&self.shared, self.together);
        let dur = match &mut self.model {
            Model::Hdd(h) => {
                let mut t0 = start.max(h.busy_until);
                if let Some(s) = &mut self.smr {
                    t0 = s.arrive(h, t0);
                }
                let done = match (kind, &mut self.smr) {
                    (Kind::Read, _) => h.read(t0, offset, len, rng),
                    (Kind::Write, Some(s)) => s.write(h, t0, offset, len, rng),
                    (Kind::Write, None) => h.write(t0, offset, len, rng),
                };
                // Drives running together stretch the service, not the wait.
                let mut done = t0 + shared.stretch(done - t0, len, together);
                done += extra;
                if is_bad {
                    done += h.p.error_recovery_revs * h.rev_ns;
                    h.abort_stream(offset);
                }
                h.busy_until = done;
                if let Some(s) = &mut self.smr {
                    s.completed(done);
                }
                done - start
            }
            Model::Flash(f) => {
                let mut d = shared.stretch(f.access_ns(kind, start, len, rng), len, together);
                d += extra;
                if is_bad {
                    d += f.p.error_ms * MS;
                }
                d
            }
        };
        let ns = dur.round().max(1.0) as u64;
        self.smart.thermal.busy(start_ns, ns);
        if is_bad {
            (ns, Err(io::Error::from(Errno::IO)))
        } else {
            (ns, self.move_data(offset, data))
        }
    }

    /// Serve a read arriving at virtual time `start_ns` without advancing the clock:
    /// (service time in ns, outcome). The model's state (head, cache) moves on.
    pub fn service_read(&mut self, start_ns: u64, offset: u64, len: u64) -> (u64, io::Result<()>) {
        self.serve(Kind::Read, start_ns, offset, len, IoData::None)
    }

    /// Serve a write arriving at virtual time `start_ns` without advancing the
    /// clock: (service time in ns, outcome).
    pub fn service_write(&mut self, start_ns: u64, offset: u64, len: u64) -> (u64, io::Result<()>) {
        self.serve(Kind::Write, start_ns, offset, len, IoData::None)
    }

    /// Serve a cache flush arriving at virtual time `start_ns` without advancing the
    /// clock; returns its service time in ns. With `lying_flush=1` it returns at once
    /// and the dirty data stay in the volatile cache.
    pub fn service_flush(&mut self, start_ns: u64) -> u64 {
        let start = start_ns as f64;
        let lying = self.faults.lying_flush();
        let rng = &mut self.rng;
        let dur = match &mut self.model {
            Model::Hdd(h) => {
                let mut t0 = start.max(h.busy_until);
                if let Some(s) = &mut self.smr {
                    t0 = s.arrive(h, t0);
                }
                let done = h.flush(t0, lying, rng);
                h.busy_until = done;
                if let Some(s) = &mut self.smr {
                    s.completed(done);
                }
                done - start
            }
            Model::Flash(f) => f.flush_ns(lying, rng),
        };
        dur.round().max(1.0) as u64
    }

    /// Run one served operation on the clock, moving its data.
    fn timed(&mut self, kind: Kind, offset: u64, data: IoData<'_>) -> io::Result<()> {
        let len = match &data {
            IoData::None => 0,
            IoData::Read(b) => b.len() as u64,
            IoData::Write(b) => b.len() as u64,
        };
        let (ns, r) = self.serve(kind, self.clock.now_ns(), offset, len, data);
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

    /// The buffer gets what was written there (zeros where nothing was; before
    /// the first write it is left as it is: see docs/sim.md, "Stored data").
    fn read_at(&mut self, mut buf: ReadBuf<'_>, offset: u64) -> io::Result<()> {
        self.timed(Kind::Read, offset, IoData::Read(&mut buf))
    }

    /// Nothing to do: the simulation has no page cache, and sync() does not flush a
    /// drive's own cache.
    fn quiesce(&mut self) -> io::Result<()> {
        Ok(())
    }

    fn write_at(&mut self, buf: WriteBuf<'_>, offset: u64) -> io::Result<()> {
        self.timed(Kind::Write, offset, IoData::Write(&buf))
    }

    fn flush(&mut self) -> io::Result<bool> {
        let ns = self.service_flush(self.clock.now_ns());
        self.clock.advance(ns);
        Ok(true)
    }

    fn size_probe(&self) -> Option<crate::device::size_probe::SizeProbe> {
        self.faults.size_probe(self.info.media_size_bytes)
    }

    fn simulated(&mut self) -> Option<&mut dyn Simulated> {
        Some(self)
    }
}

impl Simulated for SimTarget {
    fn queue_model(&mut self) -> &mut dyn QueueModel {
        self
    }

    fn smart_source(&mut self) -> Option<&mut dyn crate::smart::SmartSource> {
        Some(self)
    }

    fn controller(&mut self) -> Option<(&str, u64)> {
        self.shared
            .controller
            .as_ref()
            .map(|(name, rate)| (name.as_str(), *rate))
    }

    fn set_together(&mut self, together: Together) {
        self.together = together;
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

    fn service_data(&mut self, op: &Op, start_ns: u64, data: IoData<'_>) -> io::Result<u64> {
        let kind = match op.kind {
            OpKind::Read => Kind::Read,
            OpKind::Write => Kind::Write,
        };
        let len = u64::from(op.len);
        let ok = match &data {
            IoData::None => true,
            IoData::Read(b) => b.len() as u64 == len,
            IoData::Write(b) => b.len() as u64 == len,
        };
        if !ok {
            return Err(io::Error::from(Errno::INVAL));
        }
        let (ns, r) = self.serve(kind, start_ns, op.offset, len, data);
        r.map(|()| ns)
    }
}
