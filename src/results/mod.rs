//! The results of a run as plain, serialisable data: the only input of reporters.

pub mod burnin;
pub mod capacity;
pub mod device;
pub mod disk;
pub mod engine;
pub mod failures;
pub mod health;
pub mod outcome;
pub mod overhead;
pub mod path;
pub mod phase;
pub mod record;
pub mod run;
pub mod scan;
pub mod seek_profile;
pub mod settings;
pub mod smart;
pub mod smr;
pub mod stats;
pub mod test_kind;
pub mod test_result;
pub mod verdict;
pub mod verify;
pub mod warning;
pub mod zones;
pub use capacity::CapacityResult;
pub use disk::{DiskFailure, DiskResult};
pub use engine::{Engine, QueuedEngine};
pub use outcome::Outcome;
pub use overhead::CommandOverhead;
pub use phase::PhaseResult;
pub use run::{Run, SCHEMA_VERSION};
pub use scan::{ScanResult, SectorRange, SlowRange, SlowTiming};
pub use seek_profile::{
    SeekAnalysis, SeekBin, SeekCurveFit, SeekFigure, SeekFloor, SeekSamples, SeekSet,
};
pub use test_result::{Payload, TestResult};
pub use verdict::{ByteSpan, Code, Finding, Severity, State, Verdict};
pub use warning::{Warning, WarningCode};
pub use zones::{ZoneCurve, ZonePoint, ZoneStep};
