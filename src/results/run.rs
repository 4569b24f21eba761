//! A whole run (`Run`): the tool, what was asked, and each disk.

use serde::{Deserialize, Serialize};

use super::disk::DiskResult;
use super::test_kind::TestKind;
use super::{burnin, record};

/// The version of this data model's JSON form; raised on incompatible changes.
pub const SCHEMA_VERSION: u32 = 1;

/// A whole run: the tool, what was asked, and each disk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// "seekprobe".
    pub tool: String,
    /// The version of seekprobe that made the run (its Cargo version).
    pub tool_version: String,
    /// The tests asked for, in the order they run.
    pub tests: Vec<TestKind>,
    /// Whether the verbose (diskinfo -v) form was asked for.
    pub verbose: bool,
    /// The pause before each timed phase, in seconds.
    pub settle_s: f64,
    /// Each disk, in the order given.
    pub disks: Vec<DiskResult>,
    /// When the run started, in seconds since the Unix epoch (absent in runs saved
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_unix_s: Option<u64>,
    /// `--burn-in`: the command that started it, for `--resume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burn_in: Option<burnin::RunInfo>,
    /// The host, command line, end and operator's fields of the run.
    #[serde(default)]
    pub record: record::RunRecord,
}
