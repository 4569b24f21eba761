//! The names of the queued engines: plain data, recorded in the results and
//! imported by the queued engines that run.

use serde::{Deserialize, Serialize};

/// A queued engine (-i, the queued half of --block-sweep, --verify); in the JSON
/// its [`name`](QueuedEngine::name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueuedEngine {
    /// Not known: the test did not run. (Runs saved before this enum wrote `""`.)
    #[serde(rename = "queued", alias = "")]
    Unknown,
    /// io_uring (Linux).
    IoUring,
    /// The portable thread pool: on every platform, wherever io_uring is not used.
    Threads,
    /// The simulated drive's virtual-time model.
    Virtual,
}

impl QueuedEngine {
    /// The engine of this name (as the queued engines name themselves).
    pub fn from_name(name: &str) -> QueuedEngine {
        match name {
            "io_uring" => QueuedEngine::IoUring,
            "threads" => QueuedEngine::Threads,
            "virtual" => QueuedEngine::Virtual,
            _ => QueuedEngine::Unknown,
        }
    }

    /// Its name in the JSON.
    pub fn name(self) -> &'static str {
        match self {
            QueuedEngine::Unknown => "queued",
            QueuedEngine::IoUring => "io_uring",
            QueuedEngine::Threads => "threads",
            QueuedEngine::Virtual => "virtual",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_name_is_the_name() {
        for e in [
            QueuedEngine::Unknown,
            QueuedEngine::IoUring,
            QueuedEngine::Threads,
            QueuedEngine::Virtual,
        ] {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json, format!("\"{}\"", e.name()));
            assert_eq!(serde_json::from_str::<QueuedEngine>(&json).unwrap(), e);
            if e != QueuedEngine::Unknown {
                assert_eq!(QueuedEngine::from_name(e.name()), e);
            }
        }
        assert_eq!(
            serde_json::from_str::<QueuedEngine>("\"\"").unwrap(),
            QueuedEngine::Unknown
        );
    }
}
