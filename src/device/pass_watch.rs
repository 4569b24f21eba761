//! The watch of a queued pass (a real drive's temperature, `--max-temp`): the run
//! starts it for the pass's length (`prober/pass_temps.rs`) and hands it to the
//! engines through the executor's context ([`crate::executor::Context::watch`]), down
//! to the drive loop, which asks it before each submission
//! ([`crate::engine::queue_loop::drive_feed_watched`]).

/// What the drive loop asks a watched queued pass before each submission.
pub trait PassWatch: Send + Sync {
    /// Whether the pass is held now (the drive too hot, `--max-temp`): nothing new
    /// is issued, the requests in flight complete.
    fn held(&self) -> bool;
}
