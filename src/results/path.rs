//! What the path check (`--path-check`) measured of one drive, as plain data: the
//! path it sits on, its sequential read rate alone and with every drive of the run
//! reading at once, its random reads alone and together (the seek stress), and the
//! findings the verdict module made of the whole check (docs/methods.md, "Path
//! check").

use super::verdict::Finding;
use serde::{Deserialize, Serialize};

/// The path a drive reaches the host by, as far as the system says.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PathGroup {
    /// The shared part that groups drives: "controller hba0" (a simulated
    /// controller), "pci 0000:03:00.0" (an HBA or NVMe device), "scsi host2",
    /// "expander 6:0:4", "file system of /var/img" (a loop device); empty when
    /// unknown (the drive is then a group of its own).
    pub name: String,
    /// What else is known of the path, in words: the SCSI port, the PCIe link's
    /// negotiated width and speed ("x8, 8.0 GT/s PCIe").
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
    /// The bandwidth of the shared part in bytes/s, when known (a simulated
    /// controller's; a PCIe link's width times its per-lane rate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<f64>,
}

impl PathGroup {
    /// Whether the path is known (the drive can be grouped with others).
    pub fn known(&self) -> bool {
        !self.name.is_empty()
    }
}

/// One position's sequential read rate, alone and together.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PositionRate {
    /// Where the reads started, in bytes from the drive's start.
    pub offset_bytes: u64,
    /// The rate with the drive reading alone, bytes/s.
    pub alone: f64,
    /// The rate with every drive of the check reading at once, bytes/s.
    pub together: f64,
}

/// One drive's part of the path check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathDrive {
    /// The path the drive sits on.
    pub group: PathGroup,
    /// How many drives read at once in the together phases (the whole check).
    pub drives_together: usize,
    /// Each position's sequential rates.
    pub positions: Vec<PositionRate>,
    /// Random reads per second alone, several readers in flight (the seek stress).
    pub seek_alone_iops: f64,
    /// Random reads per second with every drive's seek stress at once.
    pub seek_together_iops: f64,
    /// What stopped the check on this drive, if anything (the rates are then those
    /// measured before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The error was a request left unanswered for `--io-timeout`: the drive
    /// stopped answering and was given up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unanswered: bool,
    /// Ctrl-C (or a signal) stopped the check on this drive before its end: the
    /// phase it cut is not kept, and no ratio is made of it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The findings of the check about this drive, made by the verdict module from
    /// every drive's figures (a drive is judged against its group-mates).
    #[serde(default)]
    pub findings: Vec<Finding>,
}

impl PathDrive {
    /// Whether the check ran to its end on this drive (no error, not stopped):
    /// only then are its ratios made.
    pub fn complete(&self) -> bool {
        self.error.is_none() && !self.interrupted
    }

    /// The sequential rate alone over every position (their mean), bytes/s.
    pub fn alone(&self) -> f64 {
        mean(self.positions.iter().map(|p| p.alone))
    }

    /// The sequential rate together over every position (their mean), bytes/s.
    pub fn together(&self) -> f64 {
        mean(self.positions.iter().map(|p| p.together))
    }

    /// The sequential rate together over the rate alone (1: nothing lost); None
    /// when nothing was measured alone or the check did not complete.
    pub fn seq_ratio(&self) -> Option<f64> {
        let a = self.alone();
        (a > 0.0 && self.complete()).then(|| self.together() / a)
    }

    /// The seek stress's rate together over its rate alone; None when nothing was
    /// measured alone or the check did not complete.
    pub fn seek_ratio(&self) -> Option<f64> {
        (self.seek_alone_iops > 0.0 && self.complete())
            .then(|| self.seek_together_iops / self.seek_alone_iops)
    }

    /// The worse of the two ratios (the one a drive is judged by), when any.
    pub fn ratio(&self) -> Option<f64> {
        match (self.seq_ratio(), self.seek_ratio()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// The mean of `xs`, 0 when empty.
fn mean(xs: impl Iterator<Item = f64>) -> f64 {
    let (mut sum, mut n) = (0.0, 0usize);
    for x in xs {
        sum += x;
        n += 1;
    }
    if n == 0 { 0.0 } else { sum / n as f64 }
}
