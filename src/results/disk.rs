//! Everything about one disk of a run (`DiskResult`), and why a disk was not probed
//! (`DiskFailure`).

use serde::{Deserialize, Serialize};

use super::device::DeviceInfo;
use super::test_result::TestResult;
use super::verdict::Verdict;
use super::warning::Warning;
use super::{burnin, path, smart, smr};

/// Why a disk was not probed (in the JSON, the message alone; a drive not tested
/// with `not tested: ` before it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", from = "String")]
pub enum DiskFailure {
    /// It could not be opened or described: what the drive did (a FAIL).
    Open(String),
    /// Writing to it was refused for what the drive reports of itself
    /// (read-only, unreadable or unanswered where signatures are kept), or it was
    /// not the drive confirmed: a FAIL.
    Refused(String),
    /// Seekprobe or the operator left it untested, not the drive (writing
    /// refused for a signature, the device in use, a path that does not exist or
    /// cannot be opened for permission): NOT TESTED (docs/verdict.md).
    NotTested(String),
}

/// What a saved NOT TESTED failure starts with, to be told apart when read again.
const NOT_TESTED: &str = "not tested: ";

impl DiskFailure {
    /// The message: the path, what was wrong, what to do.
    pub fn message(&self) -> &str {
        match self {
            DiskFailure::Open(m) | DiskFailure::Refused(m) | DiskFailure::NotTested(m) => m,
        }
    }
}

impl std::fmt::Display for DiskFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl From<DiskFailure> for String {
    fn from(f: DiskFailure) -> String {
        match f {
            DiskFailure::Open(m) | DiskFailure::Refused(m) => m,
            DiskFailure::NotTested(m) => format!("{NOT_TESTED}{m}"),
        }
    }
}

impl From<String> for DiskFailure {
    /// A saved message: NOT TESTED says so first; a refusal says "refusing to
    /// write" (`ProbeError::Refused`).
    fn from(m: String) -> DiskFailure {
        if let Some(m) = m.strip_prefix(NOT_TESTED) {
            DiskFailure::NotTested(m.to_string())
        } else if m.contains(": refusing to write: ") {
            DiskFailure::Refused(m)
        } else {
            DiskFailure::Open(m)
        }
    }
}

/// Everything about one disk of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DiskResult {
    /// The disk as named on the command line (a path, or a `sim:` spec).
    pub name: String,
    /// Identity and geometry; absent when the target could not be opened.
    pub info: Option<DeviceInfo>,
    /// The tests, in the order they ran.
    pub tests: Vec<TestResult>,
    /// Warnings about the figures' validity (page cache, simulation, ...), with advice.
    pub warnings: Vec<Warning>,
    /// The error that stopped this disk, if any.
    pub error: Option<DiskFailure>,
    /// Signs of shingled recording that need no writing (read from the device's
    /// description before any test).
    #[serde(default)]
    pub smr_signs: Vec<smr::SmrSign>,
    /// `--burn-in`: each step of this drive's burn-in and how it ended, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub burn_in: Vec<burnin::StepRecord>,
    /// SMART health before and after the tests, the self-tests and the findings
    /// (--smart, --smart-test).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smart: Option<smart::SmartResult>,
    /// The drive's verdict with its findings (--qualify, --burn-in): see
    /// docs/verdict.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// `--path-check`: the drive's rates alone and with the run's other drives,
    /// its path and the check's findings about it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_check: Option<path::PathDrive>,
}

impl DiskResult {
    /// A result with only the name: no info, tests, warnings or error yet.
    pub fn new(name: &str) -> DiskResult {
        DiskResult {
            name: name.to_string(),
            info: None,
            tests: Vec::new(),
            warnings: Vec::new(),
            error: None,
            smr_signs: Vec::new(),
            burn_in: Vec::new(),
            smart: None,
            verdict: None,
            path_check: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_serialise_to_plain_strings() {
        let f = DiskFailure::Refused("/dev/x: refusing to write: it carries gpt; wipe".into());
        let json = serde_json::to_string(&f).unwrap();
        assert_eq!(json, "\"/dev/x: refusing to write: it carries gpt; wipe\"");
        assert_eq!(serde_json::from_str::<DiskFailure>(&json).unwrap(), f);
        let o: DiskFailure = serde_json::from_str("\"/dev/y: no such file\"").unwrap();
        assert_eq!(o, DiskFailure::Open("/dev/y: no such file".into()));
        let n = DiskFailure::NotTested("/dev/z: refusing to write: in use (mounted on /)".into());
        let json = serde_json::to_string(&n).unwrap();
        assert_eq!(
            json,
            "\"not tested: /dev/z: refusing to write: in use (mounted on /)\""
        );
        assert_eq!(serde_json::from_str::<DiskFailure>(&json).unwrap(), n);
    }
}
