//! SMART health through smartctl's JSON: the report's model ([`model`]), the
//! decoded health ([`health`]), the health rules ([`rules`]), the drive's own
//! self-tests ([`selftest`]), running smartctl ([`smartctl`]) and one way to ask
//! any target, real or simulated, for all of it ([`source`]).
//! docs/smart.md says what is read and where each decoding comes from.

pub mod attributes;
pub mod counters;
pub mod erc;
pub mod exit_bits;
pub mod farm;
pub mod finding;
pub mod health;
pub mod health_rules;
mod lenient;
pub mod model;
mod model_logs;
pub mod newness;
pub mod policy;
pub mod self_test_log;
pub mod selftest;
pub mod smartctl;
pub mod source;
pub mod structure;
pub mod temperature;
pub mod usage;
pub mod wear;
mod writes;

pub use health_rules::{RuleOptions, findings};
pub use model::Report;
pub use policy::SmartSettings;
pub use smartctl::{SmartRead, Smartctl, SmartctlError};
pub use source::{SmartSource, source_for};
