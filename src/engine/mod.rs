//! Engines execute plans against a target. They never choose offsets and never
//! format: they run operations, time them with the target's clock, and return data.

#[cfg(test)]
mod backend_tests;
pub mod capacity;
pub mod confirm;
pub mod driver;
pub mod in_order;
pub mod liveness;
pub mod locate;
pub mod queue;
pub mod queued;
pub mod scan;
pub mod sustained;
pub mod sync;
pub mod sync_write;
pub mod threads;
#[cfg(target_os = "linux")]
pub mod uring;
pub mod verify;
pub mod virtual_queue;
