//! -c's figures per real sector, computed from its phases and stored beside them.

use serde::{Deserialize, Serialize};

/// -c's figures per real sector (diskinfo's text divides by 2048 whatever the
/// sector size; see docs/methods.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandOverhead {
    /// The logical sector size the figures are per.
    pub sector_bytes: u32,
    /// The 10 MiB of sequential reads, per sector read.
    pub mega_ms_per_sector: f64,
    /// The 20480 reads of sector 0, per read.
    pub sector_ms_per_read: f64,
    /// The difference: the cost of one command beyond moving one sector.
    pub overhead_ms: f64,
}
