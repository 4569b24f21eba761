//! What the capacity check (`--capacity-check`) found: each probe block's
//! read-back and the conclusion about the drive's real size, as plain data (the
//! plan and the analysis that fill them are `test_plans::capacity`'s).

use super::failures::ReadBack;
use serde::{Deserialize, Serialize};

/// One probe block and how it read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// Byte offset of the block.
    pub offset: u64,
    /// Its length in bytes.
    pub len: u64,
    /// How it read back (`test_plans::capacity::block_verdict`).
    pub verdict: ReadBack,
}

/// What the probes say about the drive's real size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "finding")]
pub enum CapacityOutcome {
    /// Every probe read back as written: the drive stores its full size (as far
    /// as probes can tell; see the module's documentation).
    Full,
    /// Probes past the real size read back stamps of lower blocks: addresses wrap.
    Wraps {
        /// The size that addresses wrap at, when the misdirected stamps agree on
        /// one inside the probes' bounds (bytes).
        modulus: Option<u64>,
        /// One misdirected probe: its offset ...
        example_at: u64,
        /// ... and the offset whose stamp it read back.
        example_found: u64,
    },
    /// Probes past the real size read back neither their stamp nor another's
    /// (zeros, older data, an earlier pass's stamp): writes there are lost.
    WritesLost,
    /// Reads of the probes past the real size fail.
    ReadsFail,
    /// Some probes failed, but later ones read back as written and none read
    /// another's stamp: damaged sectors, not a smaller drive.
    Scattered,
}

/// The capacity check's conclusion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capacity {
    /// The size the drive reports, in whole sectors (bytes).
    pub reported: u64,
    /// The size that stores data: the largest prefix whose probes all read back
    /// as written, or the wrap size when the misdirected stamps agree on one
    /// (bytes); `reported` when nothing failed.
    pub real: u64,
    /// How far past `real` the real size may reach: the distance from `real` to
    /// the end of the first failed probe (0 when exact). `test_plans::capacity::refine` narrows it to
    /// one probe block.
    pub uncertainty: u64,
    /// The offset of the lowest failed probe.
    pub first_failed: Option<u64>,
    /// Probes read back.
    pub probes: u32,
    /// Probes that did not read back as written.
    pub failed: u32,
    /// What the failures mean.
    pub finding: CapacityOutcome,
}

impl Capacity {
    /// Whether the drive stores less than it reports.
    pub fn is_fake(&self) -> bool {
        matches!(
            self.finding,
            CapacityOutcome::Wraps { .. }
                | CapacityOutcome::WritesLost
                | CapacityOutcome::ReadsFail
        )
    }
}

/// The capacity check's result (`--capacity-check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CapacityResult {
    /// Reported size against the size that stores data, over every round's probes.
    pub conclusion: Capacity,
    /// Rounds of probes (the first and its refinements).
    pub rounds: u32,
    /// Probe writes that failed (their read-backs say what they left).
    pub failed_writes: u32,
    /// Every probe block and how it read back, in the order read.
    pub probe_blocks: Vec<Probe>,
}
