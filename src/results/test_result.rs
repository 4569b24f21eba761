//! One test's result on one disk (`TestResult`), what it found beyond its phases
//! (`Payload`, one kind's), and its JSON form (the payload's fields side by side).

use serde::{Deserialize, Serialize};
use std::borrow::Cow;

use super::capacity::CapacityResult;
use super::engine::Engine;
use super::outcome::Outcome;
use super::overhead::CommandOverhead;
use super::phase::PhaseResult;
use super::scan::ScanResult;
use super::seek_profile::{SeekAnalysis, SeekSamples};
use super::test_kind::{PhaseId, TestKind};
use super::zones::ZoneCurve;
use super::{smr, verify};

/// One test (any [`TestKind`]) on one disk: its phases, how it ended, what was derived.
///
/// Its JSON is [`Wire`]'s: the payload's fields side by side, each absent when
/// empty, as before the payload was one enum.
#[derive(Debug, Clone, PartialEq)]
pub struct TestResult {
    /// Which test.
    pub test: TestKind,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// How its I/O was issued: sync, queued (with the engine's name), both, or none.
    pub engine: Engine,
    /// The phases measured, in order. The last may be partial (interrupted or
    /// failed): its completed operations are kept, but reporters print only
    /// complete phases.
    pub phases: Vec<PhaseResult>,
    /// How the test ended.
    pub outcome: Outcome,
    /// What the test found beyond its phases: one kind's, never two.
    pub payload: Payload,
}

/// What a test found beyond its phases, by the test that finds it: one kind's
/// figures at most, so a result cannot carry two tests' findings.
#[derive(Debug, Clone, Default, PartialEq)]
// One payload per test of a drive, a handful a run: their sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Payload {
    /// Nothing yet (or nothing derived: the diskinfo tests, -i, -S, the sweep).
    #[default]
    None,
    /// `-c`: the command overhead per real sector (the text prints diskinfo's
    /// arithmetic, which assumes 512-byte sectors).
    CommandOverhead(CommandOverhead),
    /// `--zones`: the transfer curves derived from the `zone` phases.
    Zones {
        /// The read curve, from the `zone` phases.
        read: Option<ZoneCurve>,
        /// With -w, the write curve, from the `zone_write` phases.
        write: Option<ZoneCurve>,
    },
    /// `--seek-profile`: the samples and what they show.
    SeekProfile {
        /// Every sample's distance and latency.
        samples: Option<SeekSamples>,
        /// The bins and the figures derived from the samples.
        analysis: Option<SeekAnalysis>,
    },
    /// `--scan`: the surface scan.
    Scan(ScanResult),
    /// `--verify`: the write-and-verify passes.
    Verify(verify::VerifyResult),
    /// `--capacity-check`: what the probe blocks said about the drive's real size.
    Capacity(CapacityResult),
    /// `--smr-check`: the conclusion and what it was drawn from.
    Smr {
        /// The verdict with its evidence and the write rate over time.
        analysis: Option<smr::SmrAnalysis>,
        /// Every timed completion, kept for the analysis while the run lasts
        /// (not saved: the analysis holds what the reporters need).
        samples: Option<smr::SmrSamples>,
    },
}

/// [`TestResult`]'s JSON form: the payload's fields side by side, each absent
/// when empty (the form saved before the payload was one enum; docs/json.md).
/// Borrowed when saving, owned when read.
#[derive(Serialize, Deserialize)]
struct Wire<'a> {
    test: TestKind,
    settle_s: f64,
    engine: Engine,
    phases: Cow<'a, [PhaseResult]>,
    outcome: Cow<'a, Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    zone_curve: Option<Cow<'a, ZoneCurve>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    write_curve: Option<Cow<'a, ZoneCurve>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seek_samples: Option<Cow<'a, SeekSamples>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seek_analysis: Option<Cow<'a, SeekAnalysis>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    scan: Option<Cow<'a, ScanResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command_overhead: Option<Cow<'a, CommandOverhead>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    verify: Option<Cow<'a, verify::VerifyResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    capacity: Option<Cow<'a, CapacityResult>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    smr: Option<Cow<'a, smr::SmrAnalysis>>,
}

impl Serialize for TestResult {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Wire {
            test: self.test,
            settle_s: self.settle_s,
            engine: self.engine,
            phases: Cow::Borrowed(&self.phases),
            outcome: Cow::Borrowed(&self.outcome),
            zone_curve: self.zone_curve().map(Cow::Borrowed),
            write_curve: self.write_curve().map(Cow::Borrowed),
            seek_samples: self.seek_samples().map(Cow::Borrowed),
            seek_analysis: self.seek_analysis().map(Cow::Borrowed),
            scan: self.scan().map(Cow::Borrowed),
            command_overhead: self.command_overhead().map(Cow::Borrowed),
            verify: self.verify().map(Cow::Borrowed),
            capacity: self.capacity().map(Cow::Borrowed),
            smr: self.smr().map(Cow::Borrowed),
        }
        .serialize(s)
    }
}

/// The payload fields `w` holds, as its JSON names them (read from the JSON form
/// itself: they are the file format's names, not the tests').
fn payload_fields(w: &Wire) -> Vec<String> {
    const SHARED: [&str; 5] = ["test", "settle_s", "engine", "phases", "outcome"];
    match serde_json::to_value(w) {
        Ok(serde_json::Value::Object(m)) => (m.into_iter())
            .map(|(k, _)| k)
            .filter(|k| !SHARED.contains(&k.as_str()))
            .collect(),
        _ => Vec::new(),
    }
}

impl<'de> Deserialize<'de> for TestResult {
    /// A saved result; more than one kind's payload is refused.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TestResult, D::Error> {
        let w = Wire::deserialize(d)?;
        let held = [
            w.command_overhead.is_some(),
            w.zone_curve.is_some() || w.write_curve.is_some(),
            w.seek_samples.is_some() || w.seek_analysis.is_some(),
            w.scan.is_some(),
            w.verify.is_some(),
            w.capacity.is_some(),
            w.smr.is_some(),
        ];
        if held.iter().filter(|&&h| h).count() > 1 {
            return Err(serde::de::Error::custom(format!(
                "a {} test result carries more than one test's payload ({}): one at most",
                w.test.id(),
                payload_fields(&w).join(", ")
            )));
        }
        let mut payload = Payload::None;
        if let Some(c) = w.command_overhead.map(Cow::into_owned) {
            payload = Payload::CommandOverhead(c);
        }
        if w.zone_curve.is_some() || w.write_curve.is_some() {
            let (read, write) = (
                w.zone_curve.map(Cow::into_owned),
                w.write_curve.map(Cow::into_owned),
            );
            payload = Payload::Zones { read, write };
        }
        if w.seek_samples.is_some() || w.seek_analysis.is_some() {
            let (samples, analysis) = (
                w.seek_samples.map(Cow::into_owned),
                w.seek_analysis.map(Cow::into_owned),
            );
            payload = Payload::SeekProfile { samples, analysis };
        }
        if let Some(x) = w.scan.map(Cow::into_owned) {
            payload = Payload::Scan(x);
        }
        if let Some(x) = w.verify.map(Cow::into_owned) {
            payload = Payload::Verify(x);
        }
        if let Some(x) = w.capacity.map(Cow::into_owned) {
            payload = Payload::Capacity(x);
        }
        if let Some(x) = w.smr.map(Cow::into_owned) {
            let analysis = Some(x);
            payload = Payload::Smr {
                analysis,
                samples: None,
            };
        }
        Ok(TestResult {
            test: w.test,
            settle_s: w.settle_s,
            engine: w.engine,
            phases: w.phases.into_owned(),
            outcome: w.outcome.into_owned(),
            payload,
        })
    }
}

impl TestResult {
    /// A test that has measured nothing yet, complete until told otherwise.
    pub fn new(test: TestKind, settle_s: f64, engine: Engine) -> TestResult {
        TestResult {
            test,
            settle_s,
            engine,
            phases: Vec::new(),
            outcome: Outcome::Complete,
            payload: Payload::None,
        }
    }

    /// `-c`: the command overhead per real sector.
    pub fn command_overhead(&self) -> Option<&CommandOverhead> {
        match &self.payload {
            Payload::CommandOverhead(c) => Some(c),
            _ => None,
        }
    }

    /// `--zones`: the read curve.
    pub fn zone_curve(&self) -> Option<&ZoneCurve> {
        match &self.payload {
            Payload::Zones { read, .. } => read.as_ref(),
            _ => None,
        }
    }

    /// `--zones` with -w: the write curve.
    pub fn write_curve(&self) -> Option<&ZoneCurve> {
        match &self.payload {
            Payload::Zones { write, .. } => write.as_ref(),
            _ => None,
        }
    }

    /// `--seek-profile`: every sample's distance and latency.
    pub fn seek_samples(&self) -> Option<&SeekSamples> {
        match &self.payload {
            Payload::SeekProfile { samples, .. } => samples.as_ref(),
            _ => None,
        }
    }

    /// `--seek-profile`: the samples to add to, once the profile's are taken.
    pub fn seek_samples_mut(&mut self) -> Option<&mut SeekSamples> {
        match &mut self.payload {
            Payload::SeekProfile { samples, .. } => samples.as_mut(),
            _ => None,
        }
    }

    /// `--seek-profile`: the bins and the figures derived from the samples.
    pub fn seek_analysis(&self) -> Option<&SeekAnalysis> {
        match &self.payload {
            Payload::SeekProfile { analysis, .. } => analysis.as_ref(),
            _ => None,
        }
    }

    /// `--scan`: the surface scan.
    pub fn scan(&self) -> Option<&ScanResult> {
        match &self.payload {
            Payload::Scan(s) => Some(s),
            _ => None,
        }
    }

    /// `--verify`: the write-and-verify passes.
    pub fn verify(&self) -> Option<&verify::VerifyResult> {
        match &self.payload {
            Payload::Verify(v) => Some(v),
            _ => None,
        }
    }

    /// `--capacity-check`: what the probe blocks said.
    pub fn capacity(&self) -> Option<&CapacityResult> {
        match &self.payload {
            Payload::Capacity(c) => Some(c),
            _ => None,
        }
    }

    /// `--smr-check`: the conclusion with its evidence.
    pub fn smr(&self) -> Option<&smr::SmrAnalysis> {
        match &self.payload {
            Payload::Smr { analysis, .. } => analysis.as_ref(),
            _ => None,
        }
    }

    /// `--smr-check`: the timed completions kept while the run lasts.
    pub fn smr_samples(&self) -> Option<&smr::SmrSamples> {
        match &self.payload {
            Payload::Smr { samples, .. } => samples.as_ref(),
            _ => None,
        }
    }

    /// `--smr-check`: the samples to add to, made (with the payload) if none yet.
    pub fn smr_samples_mut(&mut self) -> &mut smr::SmrSamples {
        if !matches!(self.payload, Payload::Smr { .. }) {
            self.payload = Payload::Smr {
                analysis: None,
                samples: None,
            };
        }
        match &mut self.payload {
            Payload::Smr { samples, .. } => samples.get_or_insert_with(Default::default),
            _ => unreachable!("the payload was made an SMR check's above"),
        }
    }

    /// The first phase recorded with this id, complete or not; None if it never ran.
    pub fn phase(&self, id: PhaseId) -> Option<&PhaseResult> {
        self.phases.iter().find(|p| p.id == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payload_saves_as_its_old_field_and_two_are_refused() {
        let mut t = TestResult::new(TestKind::CommandOverhead, 1.0, Engine::Sync);
        t.payload = Payload::CommandOverhead(CommandOverhead {
            sector_bytes: 512,
            mega_ms_per_sector: 0.5,
            sector_ms_per_read: 0.25,
            overhead_ms: 0.25,
        });
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(
            json,
            "{\"test\":\"command_overhead\",\"settle_s\":1.0,\"engine\":\"sync\",\"phases\":[],\
             \"outcome\":\"complete\",\"command_overhead\":{\"sector_bytes\":512,\
             \"mega_ms_per_sector\":0.5,\"sector_ms_per_read\":0.25,\"overhead_ms\":0.25}}"
        );
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), t);
        let bare = TestResult::new(TestKind::Scan, 0.0, Engine::None);
        let json = serde_json::to_string(&bare).unwrap();
        assert!(!json.contains("scan\":"), "{json}");
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), bare);
        let zones = TestResult {
            payload: Payload::Zones {
                read: None,
                write: Some(ZoneCurve {
                    points: vec![],
                    max_bytes_per_s: 1.0,
                    min_bytes_per_s: 1.0,
                    mean_bytes_per_s: 1.0,
                    outer_inner_ratio: 1.0,
                    steps: vec![],
                }),
            },
            ..TestResult::new(TestKind::Zones, 0.0, Engine::Sync)
        };
        let json = serde_json::to_string(&zones).unwrap();
        assert_eq!(serde_json::from_str::<TestResult>(&json).unwrap(), zones);
        // Two kinds' payloads in one saved result cannot be read.
        let both = json.replace("\"write_curve\"", "\"command_overhead\":{\"sector_bytes\":512,\
             \"mega_ms_per_sector\":0.5,\"sector_ms_per_read\":0.25,\"overhead_ms\":0.25},\"write_curve\"");
        let e = serde_json::from_str::<TestResult>(&both)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("carries more than one test's payload (command_overhead, write_curve)"),
            "{e}"
        );
    }
}
