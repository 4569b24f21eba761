//! Engines: the I/O of a plan's steps on a target. They never choose offsets and
//! never format: they run operations, time them with the target's clock, and return data.

#[cfg(test)]
mod backend_tests;
pub mod capacity;
pub mod confirm;
pub mod in_order;
pub mod liveness;
pub mod locate;
pub mod queue;
pub mod queue_loop;
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

/// How far a pass over the drive (--scan, a --verify half) has got, as its
/// progress is told: the bytes of the pass, then what follows it, whose work is
/// not known before it starts: the slow blocks done again alone
/// ([`confirm::confirm`], each round of them), the failed areas located
/// ([`locate::locate`]). Never silent while any of them runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PassProgress {
    /// Bytes of the pass done.
    Bytes(u64),
    /// Slow blocks done again alone: `done` of `of` (in this round).
    Again {
        /// Done so far.
        done: u64,
        /// Of these.
        of: u64,
    },
    /// Failed areas whose sectors are located: `done` of `of`.
    Locating {
        /// Done so far.
        done: u64,
        /// Of these.
        of: u64,
    },
}
