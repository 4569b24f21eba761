//! The findings of whether each test ran, of the capacity check, of the hidden-SMR
//! check and its no-write signs, of opening the drive and of the burn-in's steps.

use crate::results::burnin::{Status, Step, StepRecord};
use crate::results::smr::{SmrAnalysis, SmrConclusion, SmrSign, SmrSignStrength};
use crate::results::{
    ByteSpan, CapacityResult, Code, DiskFailure, DiskResult, Finding, Outcome, Severity, TestResult,
};

/// A test's JSON name (`seek_transfer`, `verify`, ...).
pub fn test_id(t: crate::results::test_kind::TestKind) -> String {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// A drive that could not be opened, described, or written to cannot be
/// qualified: for what the drive did, a failing finding with why; for what
/// seekprobe or the operator decided, NOT TESTED ([`Code::NotTested`]), with what
/// to do.
pub fn opened(error: Option<&DiskFailure>) -> Vec<Finding> {
    let Some(e) = error else { return Vec::new() };
    let (code, what) = match e {
        DiskFailure::Open(_) | DiskFailure::Refused(_) => (Code::NotProbed, "not probed"),
        DiskFailure::NotTested(_) => (Code::NotTested, "not tested"),
    };
    vec![Finding::new(
        Severity::Fail,
        "open",
        code,
        format!("{what}: {e}"),
    )]
}

/// How a test ended: stopped by an I/O error (the message names the step, the
/// byte offset and the errno), not run (why), or interrupted.
pub fn outcome(t: &TestResult) -> Vec<Finding> {
    let test = test_id(t.test);
    let name = t.test.name();
    let unanswered = (t.verify().and_then(|v| v.unanswered.as_ref()))
        .or_else(|| t.scan().and_then(|s| s.unanswered.as_ref()));
    let size_changed = t.verify().and_then(|v| v.size_changed.as_ref());
    let (code, reason) = match &t.outcome {
        Outcome::Complete => return Vec::new(),
        Outcome::Failed(_) if let Some(c) = size_changed => {
            (Code::SizeChanged, format!("{name}: {}", c.line()))
        }
        Outcome::Failed(_) if let Some(u) = unanswered => (
            if u.removed {
                Code::RemovedFromSystem
            } else if u.read_only {
                Code::TurnedReadOnly
            } else {
                Code::StoppedAnswering
            },
            format!("{name}: {}", u.line()),
        ),
        Outcome::Failed(why) => (
            Code::TestFailed,
            format!("{name}: stopped by an error: {why}"),
        ),
        Outcome::Skipped(why) => (Code::TestNotRun, format!("{name}: not run: {why}")),
        Outcome::Interrupted => (
            Code::TestInterrupted,
            format!("{name}: interrupted before its end, so the drive is not qualified by it"),
        ),
    };
    vec![Finding::new(Severity::Fail, &test, code, reason)]
}

/// `--capacity-check`: a fake drive (with the bytes it does not store), or probe
/// blocks that did not read back.
pub fn capacity(test: &str, r: &CapacityResult) -> Vec<Finding> {
    let c = &r.conclusion;
    let Some(reason) = fake_reason(c) else {
        return Vec::new();
    };
    let code = if c.is_fake() {
        Code::FakeCapacity
    } else {
        Code::CapacityProbesFailed
    };
    let mut f = Finding::new(Severity::Fail, test, code, reason);
    if code == Code::FakeCapacity {
        f.bytes = Some(ByteSpan {
            start_bytes: c.real,
            end_bytes: c.reported,
        });
    }
    vec![f]
}

/// `--smr-check`: hidden SMR fails the drive (its evidence in the reason); a
/// check that could not tell is a warning.
pub fn smr(test: &str, a: &SmrAnalysis) -> Vec<Finding> {
    let (severity, code) = match a.verdict {
        SmrConclusion::HiddenSmr => (Severity::Fail, Code::HiddenSmr),
        SmrConclusion::CannotTell => (Severity::Warning, Code::SmrCannotTell),
        SmrConclusion::Conventional | SmrConclusion::NotApplicable => return Vec::new(),
    };
    vec![Finding::new(
        severity,
        test,
        code,
        format!("SMR check: {}", a.text),
    )]
}

/// The signs of shingled recording that need no writing: warnings beside the
/// verdict (worth a look, not proof).
pub fn smr_signs(signs: &[SmrSign]) -> Vec<Finding> {
    signs
        .iter()
        .map(|sign| {
            let what = match sign.strength {
                SmrSignStrength::Reported => "reported",
                SmrSignStrength::Hint => "hint",
            };
            Finding::new(
                Severity::Warning,
                "smr_signs",
                Code::SmrSign,
                format!("SMR sign ({what}): {}", sign.text),
            )
        })
        .collect()
}

/// The burn-in's steps: one that was interrupted leaves the burn-in incomplete; a
/// discard that failed is the drive's: unanswered, the drive stopped answering (a
/// fail, as any hung request); refused, a TRIM the drive advertises but does not
/// take (a warning). (A step that ran a test is judged by that test's findings, a
/// self-test by SMART's, so nothing else here.)
pub fn burn_in(steps: &[StepRecord]) -> Vec<Finding> {
    steps
        .iter()
        .filter_map(|r| {
            let (severity, code, reason) = match &r.status {
                Status::Interrupted => (
                    Severity::Fail,
                    Code::BurnInIncomplete,
                    format!(
                        "burn-in: {} was interrupted; the burn-in is not complete (--resume runs the rest)",
                        r.step.name()
                    ),
                ),
                Status::Failed(why) if r.step == Step::Discard && r.unanswered => (
                    Severity::Fail,
                    Code::StoppedAnswering,
                    format!("burn-in: the drive stopped answering: {why}; it was given up"),
                ),
                Status::Failed(why) if r.step == Step::Discard => (
                    Severity::Warning,
                    Code::DiscardRefused,
                    format!(
                        "burn-in: the drive advertises TRIM but refused the whole-drive discard ({why}): its flash was not told which blocks are free"
                    ),
                ),
                _ => return None,
            };
            Some(Finding::new(severity, "burn_in", code, reason))
        })
        .collect()
}

/// A drive that was opened but on which no test ran and whose SMART (if asked
/// for) gave no health: nothing to judge, so no pass. When SMART was asked of a
/// device that has none (a loop device, an image file), that is the device's
/// kind, not its fault: NOT TESTED, the reason saying to run a test; when tests
/// ran, they are judged, and a note says SMART was not read.
pub fn nothing_to_judge(d: &DiskResult) -> Vec<Finding> {
    let smart = d.smart.as_ref().is_some_and(|s| s.judged() || s.stopped());
    let no_smart = (d.smart.as_ref())
        .filter(|_| !smart)
        .and_then(|s| s.note.as_deref());
    let ran = !d.tests.is_empty() || !d.burn_in.is_empty() || smart;
    let (severity, test, code, reason) = match (ran, no_smart) {
        _ if d.error.is_some() => return Vec::new(),
        (true, None) => return Vec::new(),
        (true, Some(note)) => (
            Severity::Note,
            "smart",
            Code::SmartNotRead,
            format!("SMART not read: the device has no SMART ({note}); only its tests were judged"),
        ),
        (false, Some(note)) => (
            Severity::Fail,
            "smart",
            Code::NotTested,
            format!(
                "not tested: SMART could not be read (the device has no SMART: {note}) and no test ran, so nothing was measured; run a test (e.g. -t, --scan or --verify)"
            ),
        ),
        (false, None) => (
            Severity::Fail,
            "open",
            Code::NothingToJudge,
            "nothing to judge: no test ran (run a test, e.g. -t, --scan or --smart)".into(),
        ),
    };
    vec![Finding::new(severity, test, code, reason)]
}

/// Why a capacity check's conclusion fails a drive: it stores less than it
/// reports, or probe blocks did not read back as written (None when all did).
fn fake_reason(c: &crate::results::capacity::Capacity) -> Option<String> {
    use crate::results::capacity::CapacityOutcome;
    if c.failed == 0 {
        return None;
    }
    if !c.is_fake() {
        return Some(format!(
            "capacity check: {} of {} probe blocks did not read back as written",
            c.failed, c.probes
        ));
    }
    // In the unit that fits ("256.0 MiB", not "0.2 GiB"; GiB from 1 GiB up).
    let size = |b: u64| match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30)),
        b if b >= 1 << 20 => format!("{:.1} MiB", b as f64 / f64::from(1u32 << 20)),
        b => format!("{:.1} KiB", b as f64 / 1024.0),
    };
    let how = match c.finding {
        CapacityOutcome::Wraps { .. } => "writes beyond it land at other addresses",
        CapacityOutcome::WritesLost => "writes beyond it are lost",
        _ => "reads beyond it fail",
    };
    Some(format!(
        "capacity check: stores only the first {} of the {} it reports; {how} (a fake drive)",
        size(c.real),
        size(c.reported)
    ))
}
