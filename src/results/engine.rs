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

/// The engine that ran a test; in the JSON `"none"`, `"sync"`, the queued engine's
/// name, or `"sync+"` and the queued engine's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Engine {
    /// Nothing ran (an earlier test failed).
    None,
    /// One positioned operation at a time.
    Sync,
    /// Many operations in flight.
    Queued(QueuedEngine),
    /// Both: one at a time, then queued (--block-sweep).
    SyncAndQueued(QueuedEngine),
}

impl Engine {
    /// The engine after a queued step ran with `q`: queued alone, or beside sync.
    pub fn with_queued(self, q: QueuedEngine) -> Engine {
        match self {
            Engine::Queued(_) => Engine::Queued(q),
            _ => Engine::SyncAndQueued(q),
        }
    }
}

impl From<Engine> for String {
    fn from(e: Engine) -> String {
        match e {
            Engine::None => "none".into(),
            Engine::Sync => "sync".into(),
            Engine::Queued(q) => q.name().into(),
            Engine::SyncAndQueued(q) => format!("sync+{}", q.name()),
        }
    }
}

impl TryFrom<String> for Engine {
    type Error = String;
    fn try_from(s: String) -> Result<Engine, String> {
        let queued = |n: &str| match QueuedEngine::from_name(n) {
            QueuedEngine::Unknown if n != "queued" => Err(format!("unknown engine {s:?}")),
            q => Ok(q),
        };
        match s.as_str() {
            "none" => Ok(Engine::None),
            "sync" => Ok(Engine::Sync),
            other => match other.strip_prefix("sync+") {
                Some(q) => queued(q).map(Engine::SyncAndQueued),
                None => queued(other).map(Engine::Queued),
            },
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

    #[test]
    fn engines_serialise_to_their_names_and_back() {
        use QueuedEngine::*;
        for (e, s) in [
            (Engine::None, "none"),
            (Engine::Sync, "sync"),
            (Engine::Queued(Unknown), "queued"),
            (Engine::Queued(IoUring), "io_uring"),
            (Engine::Queued(Threads), "threads"),
            (Engine::Queued(Virtual), "virtual"),
            (Engine::SyncAndQueued(IoUring), "sync+io_uring"),
            (Engine::SyncAndQueued(Virtual), "sync+virtual"),
        ] {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<Engine>(&json).unwrap(), e);
        }
        assert!(serde_json::from_str::<Engine>("\"sync+warp\"").is_err());
        assert_eq!(
            Engine::Sync.with_queued(Threads),
            Engine::SyncAndQueued(Threads)
        );
        assert_eq!(
            Engine::Queued(Unknown).with_queued(Virtual),
            Engine::Queued(Virtual)
        );
    }
}
