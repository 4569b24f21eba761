//! Hidden shingled recording (drive-managed SMR): the signs that need no writing
//! ([`signs`], from the device's description and the published model list in
//! [`models`]) and the analysis of the behaviour test ([`analysis`], pure). The test's
//! plan is in [`crate::test_plans::smr`]; docs/methods.md ("Hidden SMR") explains the
//! method and what a verdict does and does not prove.

pub mod behaviour;
pub mod models;
pub mod signs;
