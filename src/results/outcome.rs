//! How a test ended.

use serde::{Deserialize, Serialize};

/// How a test ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Every phase ran to the end.
    Complete,
    /// Stopped by Ctrl-C; the phases listed are the ones measured.
    Interrupted,
    /// Stopped by an error (the message names the phase, offset and errno).
    Failed(String),
    /// Not run: the device is too small or an earlier test failed (why).
    Skipped(String),
}
