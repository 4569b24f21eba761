//! seekprobe: measure how a disk really behaves — seek times, zone transfer rates,
//! command overhead — with FreeBSD `diskinfo -tv`'s exact output where users expect it.
//!
//! The data flows one way: command line → [`config::Config`] → [`device::Target`] →
//! pure plans ([`test_plans`]) → the [`engine`] executes them against a [`clock::Clock`] →
//! plain results ([`results`]) → reporters ([`report`]), which never measure.

pub mod analysis;
pub mod app;
pub mod burnin;
pub mod cli;
pub mod clock;
pub mod compare;
pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod executor;
pub mod history;
pub mod pathcheck;
pub mod pool;
pub mod prober;
pub mod progress;
pub mod report;
pub mod results;
pub mod rng;
pub mod safety;
pub mod smart;
pub mod smr;
pub mod sshsig;
pub mod stamps;
pub mod stats;
pub mod test_plans;
pub mod units;
pub mod validity;
pub mod verdict;
