//! The verdict as the page shows it, read through one adapter ([`drive_verdict`]),
//! and the drive's temperature samples through one accessor ([`temperatures`]),
//! so that a change of the data model is followed in one place.

use crate::results::test_kind::TestKind;
use crate::results::{Code, DiskResult, Finding, Run, Severity, State, Verdict};

/// The word shown before a finding's reason, as the text prints it.
pub fn severity_label(severity: Severity) -> &'static str {
    match severity {
        Severity::Note => "note",
        Severity::Warning => "warning",
        Severity::Fail => "FAIL",
    }
}

/// The CSS class of a finding's row.
pub fn severity_class(severity: Severity) -> &'static str {
    match severity {
        Severity::Note => "note",
        Severity::Warning => "warn",
        Severity::Fail => "fail",
    }
}

/// The reasons the batch row gives first: the failing ones; for a drive that
/// passed with warnings, its warnings.
pub fn first_reasons(v: &Verdict) -> Vec<&Finding> {
    let wanted = match v.state {
        State::PassWithWarnings => Severity::Warning,
        _ => Severity::Fail,
    };
    v.of(wanted).collect()
}

/// The CSS class of a state's badge and batch cell: `pass`, `warn` (PASS with
/// warnings), `fail`, `incomplete` (INCOMPLETE, and NOT TESTED: neither judged,
/// both to run again).
pub fn state_class(state: State) -> &'static str {
    match state {
        State::Pass => "pass",
        State::PassWithWarnings => "warn",
        State::Fail => "fail",
        State::NotTested | State::Incomplete => "incomplete",
    }
}

/// The verdict of `disk` as the one judge gives it (`crate::verdict::in_run`:
/// the verdict saved with the run under --qualify or --burn-in, INCOMPLETE while
/// a burn-in still runs, else the judge of the drive's own findings), every
/// finding's reason made [`readable`], failures first and, within a severity,
/// the root causes before the tests they stopped. The one place the page reads a
/// verdict.
pub fn drive_verdict(run: &Run, disk: &DiskResult) -> Verdict {
    let mut v = crate::verdict::in_run(run, disk);
    let mut names = vec![disk.name.as_str()];
    if let Some(i) = &disk.info {
        names.push(&i.path);
    }
    for f in &mut v.findings {
        f.reason = readable(&f.reason, &names);
    }
    // Stable: failures first, and within a severity the findings of the drive
    // itself before those of a test it stopped.
    v.findings
        .sort_by_key(|f| (f.severity, consequence(f.code)));
    v
}

/// Whether a finding is the consequence of another (a test stopped, not run, or
/// interrupted, a burn-in left incomplete): listed after the root causes, so that
/// "reallocated 0→8" is read before "-t stopped by an error".
fn consequence(code: Code) -> bool {
    matches!(
        code,
        Code::TestFailed | Code::TestNotRun | Code::TestInterrupted | Code::BurnInIncomplete
    )
}

/// A finding's source by its human name ("seek and transfer (-t)", "SMART",
/// "burn-in"), for the JSON's ids (`seek_transfer`, `burn_in`, ...).
pub fn human_test(id: &str) -> &str {
    if let Some(t) = TestKind::ALL.iter().find(|t| t.id() == id) {
        return t.name();
    }
    match id {
        "smart" => "SMART",
        "smr_signs" => "SMR signs",
        "burn_in" => "burn-in",
        "open" => "opening the drive",
        "comparison" => "comparison with the batch",
        other => other,
    }
}

/// A reason as a person reads it: no device name inside it (the section and the
/// row name the drive), no internal id (`capacity_check:` becomes "capacity check
/// (--capacity-check):"), no doubled prefix ("verify: verify: corrupt" becomes
/// "verify: corrupt"; a prefix already named as an option, "write and verify
/// (--verify): verify:", is said once).
pub fn readable(reason: &str, names: &[&str]) -> String {
    let mut r = reason.to_string();
    let mut names = names.to_vec();
    // The longest first: a path holds the name ("/dev/da0", "da0").
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    for n in names.iter().filter(|n| !n.is_empty()) {
        r = r.replace(&format!("{n}: "), "");
        // Elsewhere, a name that looks like a device's ("/dev/da0", "sim:hdd",
        // "da0"), as a whole word; never a plain word such as a test's "a".
        if n.contains(['/', ':']) || n.contains(|c: char| c.is_ascii_digit()) {
            r = whole_word(&r, n, "the drive");
        }
    }
    for t in TestKind::ALL.iter().filter(|t| t.id().contains('_')) {
        r = r.replace(t.id(), t.name());
    }
    for id in ["smr_signs", "burn_in"] {
        r = r.replace(id, human_test(id));
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in r.split(": ") {
        let said = parts.last().is_some_and(|p: &&str| {
            p.eq_ignore_ascii_case(part) || p.ends_with(&format!("(--{part})"))
        });
        if !said {
            parts.push(part);
        }
    }
    parts.join(": ")
}

/// `s` with each occurrence of `word` that is not part of a longer word replaced.
fn whole_word(s: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        let inside = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        out.push_str(if inside(before) || inside(after) {
            word
        } else {
            with
        });
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// One temperature reading during the run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TempSample {
    /// When, in seconds since the drive's run started.
    pub at_s: f64,
    /// The drive's temperature, °C.
    pub celsius: f64,
}

/// The drive's temperatures over the run, oldest first (SMART's log of long
/// work, `smart.temperature`); empty when none were recorded. The one place the
/// page reads them.
pub fn temperatures(disk: &DiskResult) -> Vec<TempSample> {
    let log = disk.smart.as_ref().and_then(|s| s.temperature.as_ref());
    log.map(|l| {
        l.samples
            .iter()
            .map(|s| TempSample {
                at_s: s.at_s as f64,
                celsius: s.celsius as f64,
            })
            .collect()
    })
    .unwrap_or_default()
}
