//! SMART of a simulated drive, from its model: the counters a real drive keeps
//! (ATA attributes for `hdd`, `hdd5400` and `ssd`; the NVMe health log for `nvme`),
//! filled into [`Health`] as smartctl's report would give them, and self-tests on
//! the virtual clock. docs/sim.md ("SMART") gives every figure and where it comes
//! from.
//!
//! - A sector of a `bad=` range becomes **pending** (ATA 197) when a read fails on
//!   it: the drive learns that a sector is unreadable by failing to read it (a host
//!   read, or its own scan during a self-test). A read stops at the first unreadable
//!   sector, so one failed read makes one sector pending.
//! - A **write** over unreadable sectors remaps them (faults.rs): reallocated (ATA 5)
//!   +1 per sector, pending −1 for each that was pending; they read correctly after.
//! - `smart=failing`: the overall assessment fails (ATA: attribute 5 at its
//!   threshold; NVMe: critical warning bit 2).
//! - `crc=N`: N interface CRC errors (ATA 199), one every [`CRC_EVERY`] commands.
//! - Self-tests run on the virtual clock; the long one reads every LBA in order at
//!   the media rate and stops at the first unreadable one.

use super::faults::{Effect, Faults};
use super::physics::Model;
use super::presets::Preset;
use crate::results::health::{
    AtaCounters, CommandTimeouts, ExitStatus, FailedAttribute, Health, NvmeHealth, NvmeWarning,
    Protocol,
};
use crate::results::health::{LoggedOutcome, SelfTestResult};
use crate::results::smart::SelfTestKind;
use std::collections::BTreeMap;

/// The SMART keys accepted after `?`, for error messages.
pub(super) const ACCEPTED_KEYS: &str =
    "smart=ok|failing, crc=N (interface CRC errors, ATA presets)";

/// Commands (reads and writes) between two interface CRC errors with `crc=N`.
pub(super) const CRC_EVERY: u64 = 1000;

/// Nanoseconds per hour.
pub(super) const HOUR_NS: u64 = 3_600_000_000_000;

/// What the spec asks of the drive's SMART.
#[derive(Debug, Clone, Default)]
pub(super) struct SmartSpec {
    /// `smart=failing`.
    failing: bool,
    /// `crc=N`.
    crc: u64,
}

impl SmartSpec {
    /// Take `key=value` if it is a SMART key (as [`super::faults::FaultSpec::parse_key`]).
    pub(super) fn parse_key(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "smart" => {
                self.failing = match value {
                    "ok" => false,
                    "failing" => true,
                    _ => return Err("expected ok or failing".to_string()),
                }
            }
            "crc" => {
                self.crc = value
                    .parse()
                    .map_err(|_| "expected a whole number of CRC errors".to_string())?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Refuse what the preset cannot have: CRC errors are an ATA counter.
    pub(super) fn check(&self, preset: Preset) -> Result<(), String> {
        if self.crc > 0 && preset == Preset::Nvme {
            return Err(
                "crc= applies to the ATA presets (hdd, hdd5400, ssd): NVMe has no interface CRC counter"
                    .to_string(),
            );
        }
        Ok(())
    }
}

/// A self-test running on the drive.
#[derive(Debug, Clone, Copy)]
pub(super) struct Running {
    pub(super) kind: SelfTestKind,
    pub(super) start_ns: u64,
}

/// The drive's SMART state.
#[derive(Debug, Clone)]
pub(super) struct SimSmart {
    pub(super) nvme: bool,
    pub(super) rotating: bool,
    pub(super) failing: bool,
    pub(super) crc_budget: u64,
    pub(super) crc_errors: u64,
    pub(super) commands: u64,
    /// The logical sector size, bytes.
    pub(super) sector: u64,
    /// Pending sectors, and whether the drive's own scan (a self-test) found each.
    pub(super) pending: BTreeMap<u64, bool>,
    pub(super) reallocated: u64,
    /// Failed host reads: ATA 187 reported uncorrectable, NVMe media errors.
    pub(super) uncorrectable: u64,
    /// Entries in the drive's error log (one per failed command).
    pub(super) error_log: u64,
    /// Polling minutes: short, long, conveyance.
    pub(super) polling: [u32; 3],
    /// Durations on the virtual clock, ns: short, long, conveyance.
    pub(super) duration_ns: [u64; 3],
    pub(super) running: Option<Running>,
    pub(super) last: Option<SelfTestResult>,
    /// The drive's temperature, warmed by its work.
    pub(super) thermal: Thermal,
}

/// The simulated drive's temperature: a first-order thermal model. Idle, the
/// drive settles at its idle temperature; busy, it heads for its busy
/// temperature; either way the gap closes as exp(−t/τ). Busy time is what the
/// drive spends serving commands ([`Thermal::busy`], from the target's serve);
/// the rest is idle. Exact in virtual time: no sampling of the model itself.
#[derive(Debug, Clone, Copy)]
pub(super) struct Thermal {
    /// Idle temperature, °C.
    idle_c: f64,
    /// The temperature sustained work heads for, °C.
    busy_c: f64,
    /// Time constant, ns.
    tau_ns: f64,
    /// The temperature at `at_ns`, °C.
    now_c: f64,
    /// Virtual time the state is at, ns.
    at_ns: u64,
}

impl Thermal {
    /// A drive of `preset`, cool at time 0. Idle as [`temperature`]; busy and τ:
    /// a 3.5" disk warms by about 12 °C under sustained work over tens of
    /// minutes, flash by about 12 °C and an NVMe drive by about 18 °C within
    /// minutes (docs/smart.md, "Temperatures during long work": round figures of the kind vendors' data
    /// sheets and reviews show, not one drive's measurement).
    pub(super) fn new(preset: Preset) -> Thermal {
        let idle = temperature(preset) as f64;
        let (rise, tau_min) = match preset {
            Preset::Hdd | Preset::Hdd5400 | Preset::Smr => (12.0, 20.0),
            Preset::Ssd => (12.0, 5.0),
            Preset::Nvme => (18.0, 2.0),
        };
        Thermal {
            idle_c: idle,
            busy_c: idle + rise,
            tau_ns: tau_min * 60e9,
            now_c: idle,
            at_ns: 0,
        }
    }

    fn toward(&mut self, target_c: f64, until_ns: u64) {
        if until_ns > self.at_ns {
            let k = (-((until_ns - self.at_ns) as f64) / self.tau_ns).exp();
            self.now_c = target_c + (self.now_c - target_c) * k;
            self.at_ns = until_ns;
        }
    }

    /// The drive served a command from `start_ns` for `ns`: idle until then,
    /// busy through it (overlapping commands count once).
    pub(super) fn busy(&mut self, start_ns: u64, ns: u64) {
        let idle = self.idle_c;
        let busy = self.busy_c;
        self.toward(idle, start_ns);
        self.toward(busy, start_ns.saturating_add(ns));
    }

    /// The temperature at `now_ns` (idle since the last command), whole °C.
    pub(super) fn at(&self, now_ns: u64) -> i64 {
        let mut t = *self;
        t.toward(self.idle_c, now_ns);
        t.now_c.round() as i64
    }
}

/// Temperature the drive reports idle, °C.
pub(super) fn temperature(preset: Preset) -> i64 {
    match preset {
        Preset::Hdd | Preset::Hdd5400 | Preset::Smr => 35,
        Preset::Ssd => 30,
        Preset::Nvme => 40,
    }
}

pub(super) fn index(kind: SelfTestKind) -> usize {
    match kind {
        SelfTestKind::Short => 0,
        SelfTestKind::Long => 1,
        SelfTestKind::Conveyance => 2,
    }
}

/// Time for the long self-test's read scan to reach byte `x` from LBA 0, ns: the
/// disk streams through its zones (each track one revolution plus the skew),
/// flash reads at its read rate.
fn scan_ns(model: &Model, x: u64) -> f64 {
    match model {
        Model::Hdd(h) if x > 0 => (h.geo.end_tau(x) - h.geo.tau(0)) * h.rev_ns,
        Model::Hdd(_) => 0.0,
        Model::Flash(f) => x as f64 * 1e9 / f.p.read_rate,
    }
}

/// How far (bytes, whole sectors) the scan has read after `ns`.
fn scan_position(model: &Model, size: u64, sector: u64, ns: f64) -> u64 {
    let (mut lo, mut hi) = (0u64, size / sector);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if scan_ns(model, mid * sector) <= ns {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo * sector
}

impl SimSmart {
    /// The SMART state of a new drive of `preset` (`size` bytes of `sector`-byte
    /// logical sectors) served by `model`.
    pub(super) fn new(
        spec: &SmartSpec,
        preset: Preset,
        model: &Model,
        size: u64,
        sector: u64,
    ) -> SimSmart {
        let long_ns = scan_ns(model, size).round() as u64;
        let long_min = long_ns.div_ceil(60_000_000_000) as u32;
        // Short and conveyance polling minutes: hdd from a real ST2000DM001-1ER164's
        // smartctl report (1 and 2), hdd5400 from a WD20EFRX-class WD Red's (2 and 5),
        // flash: the NVMe specification's two-minute bound for a short test.
        let (short, conveyance) = match preset {
            Preset::Hdd => (1, 2),
            // smr: the hdd5400 mechanics, and its figures (no ST8000DM004 report at hand).
            Preset::Hdd5400 | Preset::Smr => (2, 5),
            Preset::Ssd | Preset::Nvme => (2, 0),
        };
        let min = |m: u32| u64::from(m) * 60_000_000_000;
        SimSmart {
            nvme: preset == Preset::Nvme,
            rotating: preset.rotating(),
            failing: spec.failing,
            crc_budget: spec.crc,
            crc_errors: 0,
            commands: 0,
            sector,
            pending: BTreeMap::new(),
            reallocated: 0,
            uncorrectable: 0,
            error_log: 0,
            polling: [short, long_min, conveyance],
            duration_ns: [min(short), long_ns, min(conveyance)],
            running: None,
            last: None,
            thermal: Thermal::new(preset),
        }
    }

    /// Append what the spec asked of SMART to the model's one-line description.
    pub(super) fn describe(&self, d: &mut String) {
        if self.failing {
            d.push_str(", SMART failing");
        }
        if self.crc_budget > 0 {
            d.push_str(&format!(
                ", {} interface CRC error(s) (one per {CRC_EVERY} commands)",
                self.crc_budget
            ));
        }
    }

    /// Count a host read or write and what the faults did to it.
    pub(super) fn on_access(&mut self, e: &Effect) {
        self.commands += 1;
        if self.crc_errors < self.crc_budget && self.commands.is_multiple_of(CRC_EVERY) {
            self.crc_errors += 1;
        }
        if let Some(x) = e.unreadable_at {
            self.pending.entry(x / self.sector).or_insert(false);
            self.uncorrectable += 1;
            self.error_log += 1;
        }
        for &(a, b) in &e.remapped {
            let (a, b) = (a / self.sector, b / self.sector);
            self.reallocated += b - a;
            let gone: Vec<u64> = self.pending.range(a..b).map(|(&s, _)| s).collect();
            for s in gone {
                self.pending.remove(&s);
            }
        }
    }

    /// Whether a self-test runs (its outcome may be due: see [`SimSmart::settle`]).
    pub(super) fn test_running(&self) -> bool {
        self.running.is_some()
    }

    /// Bring a running self-test up to virtual time `now_ns`: it fails at the first
    /// unreadable LBA its scan has reached, or passes once its time is over.
    pub(super) fn settle(&mut self, now_ns: u64, model: &Model, faults: &Faults, size: u64) {
        let Some(r) = self.running else { return };
        let elapsed = now_ns.saturating_sub(r.start_ns);
        if r.kind == SelfTestKind::Long {
            let reached = scan_position(model, size, self.sector, elapsed as f64);
            if let Some(x) = faults.first_bad_from(0).filter(|&x| x < reached) {
                let at_ns = r.start_ns + scan_ns(model, x).round() as u64;
                self.pending.insert(x / self.sector, true);
                self.error_log += 1;
                self.finish(r.kind, at_ns, LoggedOutcome::Failed, Some(x / self.sector));
                return;
            }
        }
        if elapsed >= self.duration_ns[index(r.kind)] {
            let at = r.start_ns + self.duration_ns[index(r.kind)];
            self.finish(r.kind, at, LoggedOutcome::Passed, None);
        }
    }

    /// End the running test with its log entry, in smartctl's words.
    pub(super) fn finish(
        &mut self,
        kind: SelfTestKind,
        at_ns: u64,
        outcome: LoggedOutcome,
        lba: Option<u64>,
    ) {
        self.running = None;
        let test = match (self.nvme, kind) {
            (true, SelfTestKind::Long) => "Extended",
            (true, _) => "Short",
            (false, SelfTestKind::Short) => "Short offline",
            (false, SelfTestKind::Long) => "Extended offline",
            (false, SelfTestKind::Conveyance) => "Conveyance offline",
        };
        let status = match (self.nvme, outcome) {
            (_, LoggedOutcome::Passed) => "Completed without error",
            (true, LoggedOutcome::Failed) => "Completed: failed segments",
            (false, LoggedOutcome::Failed) => "Completed: read failure",
            (true, _) => "Aborted: Self-test command",
            (false, _) => "Aborted by host",
        };
        self.last = Some(SelfTestResult {
            test: test.to_string(),
            outcome,
            status: status.to_string(),
            power_on_hours: Some(at_ns / HOUR_NS),
            first_error_lba: lba,
        });
    }

    /// Percent done of the running test: ATA in 10% steps (the status byte holds
    /// the tenths left), NVMe in 1% steps.
    pub(super) fn done_percent(&self, now_ns: u64) -> Option<u32> {
        let r = self.running?;
        let total = self.duration_ns[index(r.kind)].max(1) as f64;
        let f = (now_ns.saturating_sub(r.start_ns) as f64 / total).clamp(0.0, 1.0);
        Some(if self.nvme {
            (f * 100.0).floor() as u32
        } else {
            100 - ((1.0 - f) * 10.0).ceil() as u32 * 10
        })
    }

    /// The health now, as smartctl would read it.
    pub(super) fn health(
        &self,
        now_ns: u64,
        preset_temp: i64,
        device: &str,
        model: Option<&str>,
    ) -> Health {
        let mut exit = 0;
        if self.failing {
            exit |= ExitStatus::DISK_FAILING;
        }
        if self.error_log > 0 {
            exit |= ExitStatus::ERROR_LOG;
        }
        if self
            .last
            .as_ref()
            .is_some_and(|l| l.outcome == LoggedOutcome::Failed)
        {
            exit |= ExitStatus::SELF_TEST_LOG;
        }
        let pending = self.pending.len() as u64;
        let offline = self.pending.values().filter(|&&scan| scan).count() as u64;
        let mut h = Health {
            device: Some(device.to_string()),
            model: model.map(str::to_string),
            protocol: Some(if self.nvme {
                Protocol::Nvme
            } else {
                Protocol::Ata
            }),
            exit_status: Some(ExitStatus(exit)),
            passed: Some(!self.failing),
            temperature_c: Some(preset_temp),
            power_on_hours: Some(now_ns / HOUR_NS),
            last_self_test: self.last.clone(),
            self_test_log: self.last.iter().cloned().collect(),
            ..Health::default()
        };
        if self.nvme {
            let warning = if self.failing { 1 << 2 } else { 0 };
            h.nvme = Some(NvmeHealth {
                critical_warning: Some(warning),
                warnings: NvmeWarning::from_bits(warning),
                media_errors: Some(self.uncorrectable),
                error_log_entries: Some(self.error_log),
                percentage_used: Some(0),
                available_spare: Some(100),
                available_spare_threshold: Some(10),
            });
        } else {
            h.ata = Some(AtaCounters {
                reallocated: Some(self.reallocated),
                reallocation_events: None,
                pending: Some(pending),
                offline_uncorrectable: Some(offline),
                reported_uncorrectable: Some(self.uncorrectable),
                command_timeouts: Some(CommandTimeouts::from_raw(0)),
                udma_crc_errors: Some(self.crc_errors),
            });
            h.ata_error_log_count = Some(self.error_log);
            if self.failing {
                h.failed_attributes.push(FailedAttribute {
                    id: 5,
                    name: "Reallocated_Sector_Ct".to_string(),
                    now: true,
                    prefailure: true,
                });
            }
        }
        h
    }
}
