//! The watch of a queued pass (a real drive's temperature, `--max-temp`), found
//! by the drive's descriptor: the passes hand the drive loop a descriptor, not
//! the target (`engine/threads.rs`'s `drive_pool`), so the run registers the
//! watch here for the pass's length ([`register`]) and the loop looks it up
//! ([`of`]). A descriptor is unique in the process while it is open, and a
//! registration ends before its target closes it (the guard is dropped first).

use std::os::fd::RawFd;
use std::sync::{Arc, Mutex};

/// What the drive loop asks a watched queued pass before each submission.
pub trait PassWatch: Send + Sync {
    /// Whether the pass is held now (the drive too hot, `--max-temp`): nothing new
    /// is issued, the requests in flight complete.
    fn held(&self) -> bool;
}

type Entry = (RawFd, Arc<dyn PassWatch>);

static WATCHES: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// A registration: dropping it removes the watch.
pub struct Registration {
    fd: RawFd,
    watch: Arc<dyn PassWatch>,
}

/// Register `watch` for the requests on descriptor `fd` until the guard is dropped.
pub fn register(fd: RawFd, watch: Arc<dyn PassWatch>) -> Registration {
    let mut w = WATCHES.lock().unwrap_or_else(|e| e.into_inner());
    w.push((fd, watch.clone()));
    Registration { fd, watch }
}

/// The watch registered for `fd`, if any (the latest).
pub fn of(fd: RawFd) -> Option<Arc<dyn PassWatch>> {
    let w = WATCHES.lock().unwrap_or_else(|e| e.into_inner());
    w.iter()
        .rev()
        .find(|(f, _)| *f == fd)
        .map(|(_, a)| a.clone())
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut w = WATCHES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = (w.iter()).rposition(|(f, a)| *f == self.fd && Arc::ptr_eq(a, &self.watch))
        {
            w.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Always;
    impl PassWatch for Always {
        fn held(&self) -> bool {
            true
        }
    }

    #[test]
    fn a_watch_is_found_by_its_descriptor_until_its_guard_is_dropped() {
        let fd = -1000;
        assert!(of(fd).is_none());
        let g = register(fd, Arc::new(Always));
        assert!(of(fd).is_some_and(|w| w.held()));
        assert!(of(fd - 1).is_none());
        drop(g);
        assert!(of(fd).is_none());
    }
}
