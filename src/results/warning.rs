//! Notes on the validity of a measurement (`Warning`) and their stable codes.

use serde::{Deserialize, Serialize};

/// A note on the validity of a measurement, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    /// A stable identifier, e.g. `page_cache`.
    pub code: WarningCode,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub advice: String,
}

/// The stable identifiers of warnings (docs/json.md lists them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningCode {
    /// A simulated drive: figures from a model.
    Simulated,
    /// O_DIRECT refused: the page cache may serve reads.
    PageCache,
    /// A loop device without direct I/O on its backing file.
    LoopWithoutDirectIo,
    /// The data lives in RAM (tmpfs or ramfs).
    InMemory,
    /// A sparse image file: its holes are read without touching a disk.
    Sparse,
    /// A file size that is not a whole number of sectors.
    PartialSector,
    /// The device does not support flushing its write cache.
    FlushUnsupported,
    /// io_uring unavailable: the queued engine fell back.
    QueuedEngine,
    /// Other programs used the device during a test.
    OtherIo,
    /// A transfer faster than the interface: a cache.
    FasterThanInterface,
    /// Seeks faster than the rotation allows: a cache.
    SeekFasterThanRotation,
    /// Flushed writes too fast for the medium: a lying write cache.
    FlushNotHonoured,
    /// libblkid could not check for signatures before writing: only the
    /// built-in list was.
    SignaturesBuiltinOnly,
    /// The signature check could not read part of the device (--force went on).
    SignaturesUnreadable,
    /// A request was given up unanswered (--io-timeout or Ctrl-C): the process can
    /// end only when the kernel gives it back.
    RequestAbandoned,
    /// A simulated drive reached a limit of the simulator (docs/sim.md, "Stored
    /// data"): a note about the run, never a fault of the drive or its sectors.
    SimulatorLimit,
}

impl WarningCode {
    /// Its stable name, as in the JSON (e.g. `page_cache`).
    pub fn name(self) -> &'static str {
        match self {
            WarningCode::Simulated => "simulated",
            WarningCode::PageCache => "page_cache",
            WarningCode::LoopWithoutDirectIo => "loop_without_direct_io",
            WarningCode::InMemory => "in_memory",
            WarningCode::Sparse => "sparse",
            WarningCode::PartialSector => "partial_sector",
            WarningCode::FlushUnsupported => "flush_unsupported",
            WarningCode::QueuedEngine => "queued_engine",
            WarningCode::OtherIo => "other_io",
            WarningCode::FasterThanInterface => "faster_than_interface",
            WarningCode::SeekFasterThanRotation => "seek_faster_than_rotation",
            WarningCode::FlushNotHonoured => "flush_not_honoured",
            WarningCode::SignaturesBuiltinOnly => "signatures_builtin_only",
            WarningCode::SignaturesUnreadable => "signatures_unreadable",
            WarningCode::RequestAbandoned => "request_abandoned",
            WarningCode::SimulatorLimit => "simulator_limit",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warning_codes_serialise_to_their_names() {
        for c in [
            WarningCode::Simulated,
            WarningCode::PageCache,
            WarningCode::LoopWithoutDirectIo,
            WarningCode::InMemory,
            WarningCode::Sparse,
            WarningCode::PartialSector,
            WarningCode::FlushUnsupported,
            WarningCode::QueuedEngine,
            WarningCode::OtherIo,
            WarningCode::FasterThanInterface,
            WarningCode::SeekFasterThanRotation,
            WarningCode::FlushNotHonoured,
            WarningCode::SignaturesBuiltinOnly,
        ] {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
        }
    }
}
