//! What the plan knows of each drive, read from its saved run: its verdict, the
//! name that survives a reboot, its size and sectors, the path the path check
//! found, its measured rate and whether it is drive-managed SMR. Pure: nothing
//! here opens a drive.

use crate::results::device::{TargetKind, ZoneMode};
use crate::results::smr::{SmrConclusion, SmrSignKind, SmrSignStrength};
use crate::results::test_kind::{PhaseId, TestKind};
use crate::results::{DiskResult, Run, Severity, State, Verdict};
use serde::Serialize;

/// How a drive is named in the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Naming {
    /// By a name that survives a reboot (/dev/disk/by-id, /dev/diskid).
    Stable,
    /// A simulated drive, by the whole `sim:` name it was given.
    Simulated,
    /// By the path it was opened as (`/dev/sdb`), which may name another drive
    /// after a reboot: a warning.
    Unstable,
}

/// Where a drive's rate was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RateSource {
    /// The mean of the zone curve (`--zones`): the whole surface.
    ZoneCurve,
    /// The mean of -t's three transfer rates (outside, middle, inside).
    Transfer,
    /// The path check's sequential rate alone (its three positions).
    PathCheck,
}

impl RateSource {
    /// In words, for the plan's reasons.
    pub fn words(self) -> &'static str {
        match self {
            RateSource::ZoneCurve => "the zone curve's mean (--zones)",
            RateSource::Transfer => "-t's transfer rates (outside, middle, inside)",
            RateSource::PathCheck => "the path check's sequential rate alone",
        }
    }
}

/// One drive of the runs, as the plan sees it.
#[derive(Debug, Clone, Serialize)]
pub struct PoolDrive {
    /// The name it was given in its run.
    pub given: String,
    /// The run file it comes from.
    pub run: String,
    /// The name the command uses.
    pub name: String,
    /// What kind of name that is.
    pub naming: Naming,
    /// Its serial number, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<String>,
    /// Its model, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Its size in bytes (0 when it could not be opened).
    pub size_bytes: u64,
    /// Its logical sector size.
    pub logical_sector_bytes: u32,
    /// Its physical sector size.
    pub physical_sector_bytes: u32,
    /// The path check's name of its path ("controller hba0"); absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Whether its run holds a path check of it (which may have found no path).
    pub path_checked: bool,
    /// Its measured sequential rates, bytes/s, each with where it comes from,
    /// best source first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<(f64, RateSource)>,
    /// Why it is drive-managed SMR, when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smr: Option<String>,
    /// The zone model the device reports, when it reports one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zone_mode: Option<ZoneMode>,
    /// Its verdict's word ("PASS", "FAIL", ...; "not judged" without one).
    pub verdict: String,
    /// The host its run ran on, when recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// The drive `d` of `run` (saved in `file`) and its verdict, None when the run
/// saved none (neither --qualify nor --burn-in judged it).
pub fn of(run: &Run, d: &DiskResult, file: &str) -> (PoolDrive, Option<Verdict>) {
    let judged = d.verdict.is_some() || run.burn_in.is_some();
    let verdict = judged.then(|| crate::verdict::in_run(run, d));
    let info = d.info.as_ref();
    let stable = info.and_then(|i| whole_disk_name(&i.stable_names));
    let (name, naming) = match (info, stable) {
        (Some(i), _) if i.kind == TargetKind::Simulated => (d.name.clone(), Naming::Simulated),
        (Some(_), Some(n)) => (n, Naming::Stable),
        (Some(i), None) => (i.path.clone(), Naming::Unstable),
        (None, _) => (d.name.clone(), Naming::Unstable),
    };
    let drive = PoolDrive {
        given: d.name.clone(),
        run: file.to_string(),
        name,
        naming,
        serial: info.and_then(|i| i.ident.clone()),
        model: info.and_then(|i| i.descr.clone()),
        size_bytes: info.map_or(0, |i| i.media_size_bytes),
        logical_sector_bytes: info.map_or(512, |i| i.sector_size),
        physical_sector_bytes: info.map_or(512, |i| i.physical_sector_size.max(i.sector_size)),
        path: d
            .path_check
            .as_ref()
            .filter(|p| p.group.known())
            .map(|p| p.group.name.clone()),
        path_checked: d.path_check.is_some(),
        rates: rates(d),
        smr: smr(d),
        zone_mode: info.and_then(|i| i.zone_mode),
        verdict: verdict
            .as_ref()
            .map_or("not judged".into(), |v| v.word().into()),
        host: run.record.host.clone(),
    };
    (drive, verdict)
}

/// The first of `names` that names the whole disk: not a FreeBSD GPT label
/// (`/dev/gpt/`, a partition's name), which runs saved before they were left
/// out of `stable_names` may hold.
fn whole_disk_name(names: &[String]) -> Option<String> {
    names.iter().find(|n| !n.starts_with("/dev/gpt/")).cloned()
}

/// Every rate measured of `d`, best source first.
pub fn rates(d: &DiskResult) -> Vec<(f64, RateSource)> {
    let mut out = Vec::new();
    if let Some(c) = d.tests.iter().find_map(|t| t.zone_curve())
        && c.mean_bytes_per_s > 0.0
    {
        out.push((c.mean_bytes_per_s, RateSource::ZoneCurve));
    }
    let transfer: Vec<f64> = d
        .tests
        .iter()
        .filter(|t| t.test == TestKind::SeekTransfer)
        .flat_map(|t| [PhaseId::Outside, PhaseId::Middle, PhaseId::Inside].map(|p| t.phase(p)))
        .flatten()
        .filter(|p| p.complete() && p.elapsed_s() > 0.0)
        .map(|p| p.bytes_done() as f64 / p.elapsed_s())
        .collect();
    if transfer.len() == 3 {
        out.push((transfer.iter().sum::<f64>() / 3.0, RateSource::Transfer));
    }
    if let Some(p) = &d.path_check
        && p.alone() > 0.0
    {
        out.push((p.alone(), RateSource::PathCheck));
    }
    out
}

/// Why `d` is drive-managed SMR, if it is: the SMR check found it, the device
/// reports a shingled zone model, or its model is on a vendor's DM-SMR list (a
/// TRIM-capable rotating drive alone is only a hint, and not enough).
fn smr(d: &DiskResult) -> Option<String> {
    if let Some(a) = d.tests.iter().find_map(|t| t.smr())
        && a.verdict == SmrConclusion::HiddenSmr
    {
        return Some(format!("the SMR check (--smr-check): {}", a.text));
    }
    let zoned = d.info.as_ref().and_then(|i| i.zone_mode);
    if let Some(z) = zoned.and_then(ZoneMode::zoned_words) {
        return Some(format!("the device reports a {z} zone model"));
    }
    d.smr_signs
        .iter()
        .find(|s| {
            s.kind == SmrSignKind::ModelList
                || (s.kind == SmrSignKind::ZoneModel && s.strength == SmrSignStrength::Reported)
        })
        .map(|s| format!("its model: {}", s.text))
}

/// Why a drive is left out for its verdict, None when it may join the pool:
/// PASS, or PASS with warnings when `with_warnings`.
pub fn verdict_bars(verdict: Option<&Verdict>, with_warnings: bool) -> Option<String> {
    let Some(v) = verdict else {
        return Some(
            "not judged: its run saved no verdict (run it with --qualify or --burn-in)".into(),
        );
    };
    let list = |sev: Severity| {
        v.of(sev)
            .map(|f| f.reason.as_str())
            .collect::<Vec<_>>()
            .join("; ")
    };
    match v.state {
        State::Pass => None,
        State::PassWithWarnings if with_warnings => None,
        State::PassWithWarnings => Some(format!(
            "PASS with warnings (--with-warnings takes it): {}",
            list(Severity::Warning)
        )),
        State::Fail | State::NotTested | State::Incomplete => {
            Some(format!("{}: {}", v.word(), list(Severity::Fail)))
        }
    }
}

/// A simulated passing drive of 2 GiB on `path` (4 KiB physical sectors, a
/// transfer rate of 100 bytes/s), for the plan's unit tests.
#[cfg(test)]
pub(crate) fn test_drive(path: &str) -> PoolDrive {
    PoolDrive {
        given: String::new(),
        run: String::new(),
        name: String::new(),
        naming: Naming::Simulated,
        serial: None,
        model: None,
        size_bytes: 1 << 31,
        logical_sector_bytes: 512,
        physical_sector_bytes: 4096,
        path: Some(path.into()),
        path_checked: true,
        rates: vec![(100.0, RateSource::Transfer)],
        smr: None,
        zone_mode: None,
        verdict: "PASS".into(),
        host: None,
    }
}
