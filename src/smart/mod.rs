//! SMART health through smartctl's JSON: the report's model ([`model`]), the
//! decoded health ([`health`]), the health rules ([`rules`]), the drive's own
//! self-tests ([`selftest`]) and running smartctl ([`smartctl`]).
//! docs/smart.md says what is read and where each decoding comes from.

pub mod health;
pub mod model;
pub mod rules;
pub mod selftest;
pub mod smartctl;

pub use health::Health;
pub use model::Report;
pub use rules::{Finding, RuleOptions, Severity, judge};
pub use smartctl::{SmartRead, SmartctlError};
