//! What a run's record holds besides its measurements: where and how it ran, when
//! it ended, and the operator's own fields (issue 33, "a record"; nwipe's users
//! ask for the operator and ticket, martijnvanbrummelen/nwipe#469).

use serde::{Deserialize, Serialize};

/// The facts a kept record of a run needs. Every field is absent (empty) in runs
/// saved before it was recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    /// The name of the machine the run ran on (its host name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// The command line that started the run (the program name first).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// The git commit seekprobe was built from, when the build knew it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_commit: Option<String>,
    /// When the run ended (or was last saved, for a run still going), in seconds
    /// since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_unix_s: Option<u64>,
    /// `--operator`: who ran it, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operator: Option<String>,
    /// `--ticket`: the ticket, order or job it belongs to, as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
}
