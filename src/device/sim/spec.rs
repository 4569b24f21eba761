//! The spec of a simulated drive: `sim:PRESET[?key=value&...]`.
//!
//! [`parse_spec`] reads the preset and the model's keys (`rpm`, `size`, `sector`,
//! `seed`) itself and hands every other key to [`FaultSpec::parse_key`]
//! (faults.rs), so a new fault needs no change here. A new model key is one more arm
//! in [`parse_spec`]'s `match`, a field of [`Spec`] and a line in [`MODEL_KEYS`].

use super::faults::{self, FaultSpec};
use super::neighbours::{self, SharedSpec};
use super::presets::Preset;
use super::smart::{self, SmartSpec};
use super::smr::SmrParams;
use super::{parse_size, parse_uint};

/// The largest simulated media size (1 PiB).
const MAX_SIZE: u64 = 1 << 50;

/// The preset names accepted after `sim:`.
pub const PRESETS: &[&str] = &["hdd", "hdd5400", "ssd", "nvme", "smr"];

/// The model's keys accepted after `?`, with their values, for error messages (the
/// fault keys follow them, from [`faults::ACCEPTED_KEYS`]).
const MODEL_KEYS: &str = "rpm=RPM (hdd presets, 3600-15000), \
size=BYTES[K|M|G|T|P|KiB|MiB|GiB|TiB|PiB] (binary units; kB, MB, GB, TB, PB are powers of 1000), sector=512|4096, seed=U64, \
smr=dm|none (rotating presets), smr_cache=BYTES, smr_band=BYTES, smr_idle=MS";

/// Every key accepted after `?`, with its values, for error messages.
fn accepted_keys() -> String {
    format!(
        "{MODEL_KEYS}, {}, {}, {}",
        faults::ACCEPTED_KEYS,
        smart::ACCEPTED_KEYS,
        neighbours::ACCEPTED_KEYS
    )
}

/// A parsed spec, before the model is built.
#[derive(Debug, Clone)]
pub(super) struct Spec {
    pub(super) preset: Preset,
    pub(super) rpm: Option<u32>,
    pub(super) size: Option<u64>,
    pub(super) sector: Option<u32>,
    pub(super) seed: u64,
    /// The injected faults, in logical sectors.
    pub(super) faults: FaultSpec,
    /// What the drive's SMART says (smart.rs).
    pub(super) smart: SmartSpec,
    /// Drive-managed SMR (`smr=dm`, and the `smr` preset), with its parameters.
    pub(super) smr: Option<SmrParams>,
    /// What the drive shares with the drives beside it (shared.rs).
    pub(super) shared: SharedSpec,
}

/// The default seed when `seed=` is not given.
const DEFAULT_SEED: u64 = 1;

/// Parse `sim:PRESET[?key=value&...]`; the error says what was wrong and what is
/// accepted.
pub(super) fn parse_spec(spec: &str) -> Result<Spec, String> {
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
        faults: FaultSpec::default(),
        smart: SmartSpec::default(),
        smr: (preset == Preset::Smr).then(SmrParams::default),
        shared: SharedSpec::default(),
    };
    for pair in query.into_iter().flat_map(|q| q.split('&')) {
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("\"{pair}\" is not key=value; accepted: {}", accepted_keys()))?;
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
                    bad_value("expected bytes, optionally with a unit: K, M, G, T, P or KiB, MiB, GiB, TiB, PiB (binary), kB, MB, GB, TB, PB (powers of 1000) (e.g. 500G, 500GiB, 500GB)")
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
            "smr" => match value {
                "dm" => s.smr = Some(s.smr.take().unwrap_or_default()),
                "none" => s.smr = None,
                _ => return Err(bad_value("expected dm (drive-managed) or none")),
            },
            "smr_cache" | "smr_band" => {
                let bytes = parse_size(value)
                    .filter(|&b| (1 << 20..=1 << 50).contains(&b))
                    .ok_or_else(|| bad_value("expected bytes from 1M to 1P, e.g. 20G or 256M"))?;
                let p = s.smr.get_or_insert_with(SmrParams::default);
                if key == "smr_cache" {
                    p.cache_bytes = bytes;
                } else {
                    p.band_bytes = bytes;
                }
            }
            "smr_idle" => {
                let ms: f64 = value
                    .parse()
                    .ok()
                    .filter(|m: &f64| m.is_finite() && *m >= 0.0)
                    .ok_or_else(|| bad_value("expected milliseconds, 0 or more"))?;
                s.smr.get_or_insert_with(SmrParams::default).idle_ms = ms;
            }
            _ => {
                if !s.faults.parse_key(key, value).map_err(|m| bad_value(&m))?
                    && !s.smart.parse_key(key, value).map_err(|m| bad_value(&m))?
                    && !s.shared.parse_key(key, value).map_err(|m| bad_value(&m))?
                {
                    return Err(format!(
                        "unknown key \"{key}\"; accepted: {}",
                        accepted_keys()
                    ));
                }
            }
        }
    }
    if s.smr.is_some() && !s.preset.rotating() {
        return Err(format!(
            "smr keys apply only to the rotating presets (hdd, hdd5400, smr), not to {name}"
        ));
    }
    if s.rpm.is_some() && !s.preset.rotating() {
        return Err(format!(
            "rpm= applies only to the rotating presets (hdd, hdd5400), not to {name}"
        ));
    }
    Ok(s)
}
