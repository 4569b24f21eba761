//! A drive's verdict as plain data: its findings (each with a severity, the test
//! it comes from, a stable code, the reason with its figures and the sectors or
//! bytes concerned) and whether it passed. The verdict module makes the findings
//! and judges them; reporters only show them (docs/verdict.md).

use super::SectorRange;
use serde::{Deserialize, Serialize};

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The drive fails.
    Fail,
    /// Worth a look, but not the drive's defect (a cable fault, another model than
    /// the batch, a figure better than the reference).
    Warning,
    /// For information: the drive is not judged by it (timings not judged in a
    /// group too small).
    Note,
}

impl Severity {
    /// Every severity, worst first.
    pub const ALL: [Severity; 3] = [Severity::Fail, Severity::Warning, Severity::Note];

    /// Its stable name, as in the JSON and the metrics.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Fail => "fail",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What a finding is about: a stable identifier (docs/verdict.md lists each with
/// its test and severity). Adding a kind of finding: a variant here, its name, and
/// the line of the verdict module that makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// The drive could not be opened or described, or writing to it was refused
    /// for what the drive itself reports (read-only, unreadable where signatures
    /// are kept): what the drive did, a FAIL.
    NotProbed,
    /// The drive was not tested for what seekprobe or the operator decided, not
    /// for anything the drive did: writing refused for a signature or a partition
    /// table, the device mounted or held by another program, a path that does not
    /// exist or cannot be opened for permission, a saved burn-in that is not this
    /// drive's. The drive is NOT TESTED (never FAIL); the reason says what to do.
    NotTested,
    /// A test was stopped by an I/O error (the message names where).
    TestFailed,
    /// The drive stopped answering mid-test (every request failing, sectors that
    /// read earlier failing too, the device gone, or a request unanswered for
    /// `--io-timeout`): the test ended there and the drive was given up.
    StoppedAnswering,
    /// The drive refused writes after writes had succeeded (EROFS, EPERM, EACCES):
    /// flash at its end of life turns read-only.
    TurnedReadOnly,
    /// The drive was removed from the system mid-test (its block device is gone:
    /// it dropped off its bus, or was pulled); a drive that does is failing, or
    /// its slot or cable is.
    RemovedFromSystem,
    /// The device's size changed under a write-verify pass (a bridge that
    /// re-enumerated, an HPA set): the pass stopped there; a drive whose size
    /// changes under a test is not fit for a pool.
    SizeChanged,
    /// A test asked for did not run (the device is too small for it, or an
    /// earlier test failed).
    TestNotRun,
    /// A test was stopped by Ctrl-C before its end.
    TestInterrupted,
    /// Sectors whose write failed with an I/O error (--verify).
    UnwritableSectors,
    /// Sectors whose read failed with an I/O error (--scan, --verify).
    UnreadableSectors,
    /// Sectors that read back altered content without an error (--verify).
    CorruptSectors,
    /// Sectors that read back another sector's stamp (--verify).
    MisdirectedSectors,
    /// Sectors that read back an earlier pass's stamp: the write was lost (--verify).
    StaleSectors,
    /// The drive stores less than it reports (--capacity-check).
    FakeCapacity,
    /// Probe blocks that did not read back as written, without a smaller size
    /// (--capacity-check).
    CapacityProbesFailed,
    /// The drive kept only the first bytes written, wherever written, and dropped
    /// the rest: a fake capacity that remaps (--verify's read-back as it goes).
    KeepsOnlyFirstWritten,
    /// The write rate collapsed as a drive-managed SMR media cache does (--smr-check).
    HiddenSmr,
    /// The SMR check could not tell (--smr-check).
    SmrCannotTell,
    /// A sign of shingled recording that needs no writing.
    SmrSign,
    /// A finding of SMART's health rules (the reason names the rule's figures).
    Smart,
    /// One of the drive's self-tests failed or was aborted.
    SelfTestFailed,
    /// SMART could not be read, or a self-test not started.
    SmartUnreadable,
    /// SMART was asked for but the device has none (a loop device, an image
    /// file, a bridge that hides it): only the tests that ran were judged (a
    /// note; with no test, the drive is NOT TESTED).
    SmartNotRead,
    /// A burn-in step was interrupted, or the burn-in still runs: it is not complete.
    BurnInIncomplete,
    /// No test ran, so there is nothing to judge.
    NothingToJudge,
    /// A figure worse than the reference (the group median or the baseline)
    /// beyond the tolerance.
    WorseThanReference,
    /// A figure better than the reference beyond the tolerance.
    BetterThanReference,
    /// A figure the reference has but this drive did not measure.
    NotMeasured,
    /// No figure in common with the baseline.
    NoCommonFigure,
    /// Fewer than three comparable drives, or fewer than three that measured a
    /// figure, and no baseline: timings, or that figure, not judged.
    GroupTooSmall,
    /// Another model than the rest of the batch.
    OtherModel,
    /// Another firmware than the rest of the drives of its model.
    OtherFirmware,
    /// A batch too small was judged against the earlier drives of the model that
    /// the history database holds (docs/history.md).
    EarlierDrives,
    /// A figure worse than at the drive's own first qualification (the history).
    Drift,
    /// A finding accepted with `seekprobe history ack` at its figure: not judged.
    Acknowledged,
    /// Flushed writes acknowledged faster than the medium allows (-S): fails a
    /// rotating drive, a note on flash, a warning where the rotation is unknown.
    FlushNotHonoured,
    /// The burn-in's whole-drive discard was refused with an error by a drive
    /// that advertises TRIM (a warning).
    DiscardRefused,
    /// The path check: a whole group of drives lost rate together, beyond what
    /// each loses alone: their shared path (controller, expander, link) limits
    /// them (a note: not the drives' fault).
    PathLimits,
    /// The path check: one drive lost rate with the others running while its
    /// group-mates held: the drive or its slot (vibration, a connector; a warning).
    PathDriveLoses,
    /// The path check: a drive's rate together against alone lies outside its
    /// group's Tukey fences (a note).
    PathOutlier,
}

impl Code {
    /// Every code, in the order docs/verdict.md lists them.
    pub const ALL: [Code; 41] = [
        Code::NotProbed,
        Code::NotTested,
        Code::TestFailed,
        Code::StoppedAnswering,
        Code::TurnedReadOnly,
        Code::RemovedFromSystem,
        Code::SizeChanged,
        Code::TestNotRun,
        Code::TestInterrupted,
        Code::UnwritableSectors,
        Code::UnreadableSectors,
        Code::CorruptSectors,
        Code::MisdirectedSectors,
        Code::StaleSectors,
        Code::FakeCapacity,
        Code::CapacityProbesFailed,
        Code::KeepsOnlyFirstWritten,
        Code::HiddenSmr,
        Code::SmrCannotTell,
        Code::SmrSign,
        Code::Smart,
        Code::SelfTestFailed,
        Code::SmartUnreadable,
        Code::SmartNotRead,
        Code::BurnInIncomplete,
        Code::NothingToJudge,
        Code::WorseThanReference,
        Code::BetterThanReference,
        Code::NotMeasured,
        Code::NoCommonFigure,
        Code::GroupTooSmall,
        Code::OtherModel,
        Code::OtherFirmware,
        Code::EarlierDrives,
        Code::Drift,
        Code::Acknowledged,
        Code::FlushNotHonoured,
        Code::DiscardRefused,
        Code::PathLimits,
        Code::PathDriveLoses,
        Code::PathOutlier,
    ];
}

/// A span of bytes, `start_bytes` up to just before `end_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteSpan {
    /// The span's first byte, included.
    pub start_bytes: u64,
    /// Just past the last byte.
    pub end_bytes: u64,
}

/// One thing a test found about a drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// How much it weighs.
    pub severity: Severity,
    /// Where it comes from: a test's JSON name (`verify`, `scan`, ...), or `open`,
    /// `smart`, `smr_signs`, `burn_in`, `comparison`.
    pub test: String,
    /// What it is about.
    pub code: Code,
    /// The reason, in words, with its figures, as the text prints it.
    pub reason: String,
    /// The sectors concerned (merged runs, at most [`MAX_RANGES`] of them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sectors: Vec<SectorRange>,
    /// The bytes concerned (a fake drive's missing part, where a test stopped).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<ByteSpan>,
    /// The SMART health rule that made it ("pending", "smart-failing"; empty
    /// for the findings of every other test). SMART's findings save it
    /// (`results::smart`); the verdict's do not.
    #[serde(skip)]
    pub rule: String,
    /// The figure a SMART health rule's finding is about (None for a finding on
    /// no one figure, and for the findings of every other test). Saved with
    /// SMART's findings, not the verdict's.
    #[serde(skip)]
    pub figure: Option<Figure>,
}

/// The figure a finding is about (a SMART health rule's): which counter or field, its count, and where
/// it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figure {
    /// The counter or figure, e.g. "pending", "power-on-hours" (a `--threshold`
    /// name where there is one).
    pub counter: String,
    /// Its value (a count, hours, percent), when it is a number.
    pub count: Option<u64>,
    /// Where it was read, e.g. "ATA attribute 197, raw".
    pub source: String,
}

/// The most sector ranges a finding lists (the reason counts the rest).
pub const MAX_RANGES: usize = 16;

impl Finding {
    /// A finding without sectors or bytes.
    pub fn new(severity: Severity, test: &str, code: Code, reason: String) -> Finding {
        Finding {
            severity,
            test: test.to_string(),
            code,
            reason,
            sectors: Vec::new(),
            bytes: None,
            rule: String::new(),
            figure: None,
        }
    }
}

/// A drive's state, one of five (docs/verdict.md): the one judge decides it from
/// the drive's findings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// A finding fails the drive: send it back.
    Fail,
    /// Nothing the drive did fails it, but seekprobe or the operator left it
    /// untested (writing refused for a signature, the device held, a path that
    /// does not exist): the reason says what to do, then run it again.
    NotTested,
    /// No finding fails it, but it could not be judged whole: a test was
    /// interrupted (or is still running), or the drive is too small for a test
    /// asked for. Run it again.
    Incomplete,
    /// It passed, with warnings of its own to read.
    PassWithWarnings,
    /// It passed with no warning of its own (notes at most).
    Pass,
}

impl State {
    /// Every state, worst first.
    pub const ALL: [State; 5] = [
        State::Fail,
        State::NotTested,
        State::Incomplete,
        State::PassWithWarnings,
        State::Pass,
    ];

    /// As the text, the table and the page print it: "PASS", "PASS with
    /// warnings", "FAIL", "NOT TESTED", "INCOMPLETE".
    pub fn word(self) -> &'static str {
        match self {
            State::Fail => "FAIL",
            State::NotTested => "NOT TESTED",
            State::Incomplete => "INCOMPLETE",
            State::PassWithWarnings => "PASS with warnings",
            State::Pass => "PASS",
        }
    }

    /// Its stable name, as in the JSON and the metrics (`pass_with_warnings`).
    pub fn name(self) -> &'static str {
        match self {
            State::Fail => "fail",
            State::NotTested => "not_tested",
            State::Incomplete => "incomplete",
            State::PassWithWarnings => "pass_with_warnings",
            State::Pass => "pass",
        }
    }

    /// Whether it is a pass (with warnings or not).
    pub fn passes(self) -> bool {
        matches!(self, State::Pass | State::PassWithWarnings)
    }
}

/// A drive's verdict: FAIL when any finding fails it, PASS otherwise, with every
/// finding, failing ones first; its [`State`] tells the five apart. Whether it
/// passed is its state's ([`Verdict::passes`]); the JSON keeps that as `pass`
/// beside the state, as runs saved before the four states had it alone.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(from = "SavedVerdict")]
pub struct Verdict {
    /// Which of the five states: PASS, PASS with warnings, FAIL, NOT TESTED,
    /// INCOMPLETE.
    pub state: State,
    /// Every finding, by severity (fail, warning, note), each in the order found.
    pub findings: Vec<Finding>,
}

/// A verdict as saved: runs saved before the four states hold no `state`; theirs
/// is PASS or FAIL from `pass` (PASS with warnings when a warning is listed).
#[derive(Deserialize)]
struct SavedVerdict {
    pass: bool,
    #[serde(default)]
    state: Option<State>,
    findings: Vec<Finding>,
}

impl From<SavedVerdict> for Verdict {
    fn from(s: SavedVerdict) -> Verdict {
        let warned = s.findings.iter().any(|f| f.severity == Severity::Warning);
        let state = s.state.unwrap_or(match (s.pass, warned) {
            (false, _) => State::Fail,
            (true, true) => State::PassWithWarnings,
            (true, false) => State::Pass,
        });
        Verdict {
            state,
            findings: s.findings,
        }
    }
}

impl Serialize for Verdict {
    /// `pass`, `state`, `findings`, as saved since the four states (docs/json.md).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut v = s.serialize_struct("Verdict", 3)?;
        v.serialize_field("pass", &self.passes())?;
        v.serialize_field("state", &self.state)?;
        v.serialize_field("findings", &self.findings)?;
        v.end()
    }
}

impl Verdict {
    /// Whether it passed: PASS or PASS with warnings.
    pub fn passes(&self) -> bool {
        self.state.passes()
    }

    /// Its state's word: "PASS", "PASS with warnings", "FAIL", "NOT TESTED" or
    /// "INCOMPLETE".
    pub fn word(&self) -> &'static str {
        self.state.word()
    }

    /// The findings of one severity, in the verdict's order.
    pub fn of(&self, severity: Severity) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.severity == severity)
    }

    /// The reasons it failed, in order.
    pub fn reasons(&self) -> Vec<&str> {
        self.of(Severity::Fail).map(|f| f.reason.as_str()).collect()
    }
}

/// Sizes in binary units with one decimal ("64.0 GiB", "256.0 MiB"; under 1 KiB,
/// "N B"), as seekprobe's findings and conclusions give them.
pub fn binary_size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let (mut v, mut u) = (bytes as f64, 0);
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_saved_before_the_four_states_reads_with_its_state() {
        let read = |json: &str| serde_json::from_str::<Verdict>(json).unwrap().state;
        assert_eq!(read(r#"{"pass":false,"findings":[]}"#), State::Fail);
        assert_eq!(read(r#"{"pass":true,"findings":[]}"#), State::Pass);
        let warned = r#"{"pass":true,"findings":[{"severity":"warning","test":"smr_check","code":"smr_cannot_tell","reason":"r"}]}"#;
        assert_eq!(read(warned), State::PassWithWarnings);
        // Saved with its state: kept, and written back the same.
        let v = Verdict {
            state: State::Incomplete,
            findings: Vec::new(),
        };
        let json = serde_json::to_string(&v).unwrap();
        assert!(
            json.starts_with(r#"{"pass":false,"state":"incomplete","#),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Verdict>(&json).unwrap(), v);
    }
}
