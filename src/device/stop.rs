//! The process's stop, passed as a value to what needs it (issue 39: no global):
//! the flag Ctrl-C, SIGTERM and SIGHUP raise, which of them raised it, and the
//! count of requests the devices' watchdogs gave up, which keep the process from
//! ending while the kernel holds them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// One stop, shared by its clones: the binary's signal handlers raise it
/// ([`Stop::flag`], [`Stop::signal_slot`]), the engines read its flag (a `&Stop`
/// reads as the `&AtomicBool` they take), every device opened keeps a clone
/// ([`super::OpenOptions::stop`]): its watchdog gives up a request still
/// unanswered [`super::watched::GRACE`] after the flag is raised, and counts
/// every request it gives up here ([`Stop::left_behind`]).
#[derive(Debug, Clone, Default)]
pub struct Stop {
    flag: Arc<AtomicBool>,
    /// The number of the signal that raised the flag, as the handlers record it
    /// (0: none recorded).
    signal: Arc<AtomicUsize>,
    /// Requests given up, whose threads the kernel may still hold.
    left: Arc<AtomicUsize>,
}

impl std::ops::Deref for Stop {
    type Target = AtomicBool;

    /// The flag itself, for the engines that poll it.
    fn deref(&self) -> &AtomicBool {
        &self.flag
    }
}

impl Stop {
    /// The flag, for a signal handler to raise (the engines stop within one I/O).
    pub fn flag(&self) -> &Arc<AtomicBool> {
        &self.flag
    }

    /// Where a signal handler records the number of the signal that raises the
    /// flag (SIGINT, SIGTERM, SIGHUP), so that the exit status is 128 plus it.
    pub fn signal_slot(&self) -> &Arc<AtomicUsize> {
        &self.signal
    }

    /// Whether the flag is raised.
    pub fn stopping(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// The signal that stopped the run: the one recorded, SIGINT (2) when none
    /// was (the flag raised by other means).
    pub fn signal(&self) -> i32 {
        match self.signal.load(Ordering::Relaxed) {
            n @ 1..=64 => n as i32,
            _ => 2,
        }
    }

    /// Count one request given up by a watchdog.
    pub(super) fn leave_one(&self) {
        self.left.fetch_add(1, Ordering::Relaxed);
    }

    /// How many requests were given up unanswered through this stop's devices:
    /// while the kernel holds them, the process cannot end (main says so).
    pub fn left_behind(&self) -> usize {
        self.left.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag_the_signal_and_the_count() {
        let stop = Stop::default();
        let kept = stop.clone();
        assert!(!kept.stopping());
        assert_eq!(kept.signal(), 2, "none recorded: SIGINT");
        stop.signal_slot().store(15, Ordering::Relaxed);
        stop.flag().store(true, Ordering::Relaxed);
        kept.leave_one();
        assert!(kept.stopping() && kept.load(Ordering::Relaxed));
        assert_eq!((kept.signal(), stop.left_behind()), (15, 1));
    }
}
