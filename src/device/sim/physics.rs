//! The physical model behind a simulated drive: a rotating disk or flash.

use super::flash::Flash;
use super::hdd::Hdd;

/// The physical model behind a simulated drive.
#[derive(Debug, Clone)]
pub(super) enum Model {
    /// A rotating disk (hdd.rs).
    Hdd(Box<Hdd>),
    /// Flash (flash.rs).
    Flash(Flash),
}
