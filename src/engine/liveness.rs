//! Whether a drive whose requests keep failing is still there: after a streak of
//! failed blocks, re-read a few sectors that read fine earlier in the run. If they
//! fail too, or an error says the device is gone (ENODEV, ENXIO), the drive stopped
//! answering; if they read, the failures are a region of the drive, reported as
//! such. A long unreadable region is re-checked after 4, 8, 16, ... failed blocks
//! in a row, so the checks cost a few reads per doubling, not per block.

use crate::device::AlignedBuf;
use crate::device::pio::read_exact_at;
use crate::results::verify::Unanswered;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

/// Failed blocks in a row before the first check.
pub const STREAK: u32 = 4;

/// Earlier good sectors re-read by a check.
pub const PROBES: usize = 3;

/// One pass's good sectors and failure streak, re-read to tell a bad region from a
/// drive that stopped answering.
#[derive(Debug)]
pub struct Liveness {
    fd: Option<OwnedFd>,
    ss: u64,
    /// Offsets of good sectors seen: the first good ones of the run, then the last.
    good: Vec<u64>,
    streak: u32,
    next_check: u32,
    streak_start: u64,
    /// Good sectors from before the test ([`Liveness::knowing`]).
    earlier: Vec<u64>,
}

/// How a test given up on a drive that stopped answering (`u`) stops: failed at
/// the byte where it stopped, with the finding's line as the error.
pub fn given_up(u: &Unanswered) -> super::queue::EngineStop {
    super::queue::EngineStop::Failed {
        setup: false,
        offset: u.at_bytes,
        error: io::Error::other(u.line()),
    }
}

/// Whether `e` says that the device itself is gone (not a sector of it).
pub fn gone_error(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENODEV) | Some(libc::ENXIO))
}

impl Liveness {
    /// Watch through a duplicate of `fd` (None: only the errors can tell; a simulated
    /// drive). `ss` is the sector size.
    pub fn new(fd: Option<BorrowedFd<'_>>, ss: u64) -> Liveness {
        Liveness {
            fd: fd.and_then(|fd| fd.try_clone_to_owned().ok()),
            ss,
            good: Vec::new(),
            streak: 0,
            next_check: STREAK,
            streak_start: 0,
            earlier: Vec::new(),
        }
    }

    /// Sectors at these byte offsets read fine earlier in the run (before this
    /// test: the signature check's), re-read when this test has seen none itself.
    pub fn knowing(mut self, good: &[u64]) -> Liveness {
        self.earlier = good.iter().map(|&o| o / self.ss * self.ss).collect();
        self
    }

    /// The block at `offset` succeeded.
    pub fn ok(&mut self, offset: u64) {
        self.streak = 0;
        self.next_check = STREAK;
        let off = offset / self.ss * self.ss;
        if self.good.len() < PROBES {
            self.good.push(off);
        } else {
            // Keep the first good sector and the latest ones.
            let n = self.good.len();
            self.good[1..].rotate_left(1);
            self.good[n - 1] = off;
        }
    }

    /// A write at `offset` failed with `e` after `elapsed_ns`: Some when it says the
    /// drive turned read-only (EROFS, EPERM, EACCES) after earlier writes succeeded.
    pub fn write_refused(&self, offset: u64, e: &io::Error, elapsed_ns: u64) -> Option<Unanswered> {
        let ro = matches!(
            e.raw_os_error(),
            Some(libc::EROFS) | Some(libc::EPERM) | Some(libc::EACCES)
        );
        (ro && !self.good.is_empty()).then(|| Unanswered {
            read_only: true,
            ..Unanswered::stopped(offset, elapsed_ns, format!("writes are refused ({e})"))
        })
    }

    /// The block at `offset` failed with `e` after `elapsed_ns` of the pass: Some
    /// when the drive stopped answering.
    pub fn failed(&mut self, offset: u64, e: &io::Error, elapsed_ns: u64) -> Option<Unanswered> {
        if self.streak == 0 {
            self.streak_start = offset;
        }
        self.streak += 1;
        let at_bytes = self.streak_start.min(offset);
        let gone = move |reason| Unanswered::stopped(at_bytes, elapsed_ns, reason);
        if let Some(fd) = &self.fd
            && crate::device::removed(fd.as_fd()) == Some(true)
        {
            return Some(Unanswered {
                removed: true,
                ..gone(format!(
                    "its block device left the system ({e}): a drive that drops off its bus is failing, or its slot or cable is"
                ))
            });
        }
        if gone_error(e) {
            return Some(gone(format!("the device is gone ({e})")));
        }
        if self.streak < self.next_check {
            return None;
        }
        self.next_check = self.next_check.saturating_mul(2);
        let fd = self.fd.as_ref()?;
        let good = if self.good.is_empty() {
            &self.earlier
        } else {
            &self.good
        };
        if good.is_empty() {
            return None;
        }
        let mut buf = AlignedBuf::new(self.ss as usize);
        let mut last = None;
        for &at in good {
            match read_exact_at(fd.as_fd(), &mut buf, at) {
                Ok(()) => return None,
                Err(e) => last = Some((at, e)),
            }
        }
        let (at, e) = last.expect("a sector was re-read");
        Some(gone(format!(
            "{} sector{} that read fine earlier fail{} now (byte {at}: {e})",
            good.len(),
            if good.len() == 1 { "" } else { "s" },
            if good.len() == 1 { "s" } else { "" }
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    fn eio() -> io::Error {
        io::Error::from_raw_os_error(libc::EIO)
    }

    #[test]
    fn a_gone_device_is_told_at_once_and_a_failed_region_is_not_stopped() {
        let mut l = Liveness::new(None, 512);
        let u = l
            .failed(4096, &io::Error::from_raw_os_error(libc::ENODEV), 7)
            .unwrap();
        assert_eq!((u.at_bytes, u.after_ns), (4096, 7));
        assert!(u.reason.starts_with("the device is gone"), "{}", u.reason);
        // Earlier sectors still read: failures in a row are a region.
        let f = tempfile::tempfile().unwrap();
        f.set_len(1 << 20).unwrap();
        let mut l = Liveness::new(Some(f.as_fd()), 512);
        l.ok(0);
        l.ok(1 << 19);
        for b in 0..7 {
            assert!(l.failed((b + 1) << 16, &eio(), b).is_none());
        }
        // The drive goes (here: the sectors it read are gone): the check after 8
        // failed blocks in a row says so, naming where the streak began.
        f.set_len(0).unwrap();
        let u = l.failed(8 << 16, &eio(), 8).unwrap();
        assert_eq!(u.at_bytes, 1 << 16);
        assert!(
            u.reason
                .starts_with("2 sectors that read fine earlier fail now")
        );
        assert!(!u.read_only);
    }

    #[test]
    fn refused_writes_after_writes_succeeded_are_read_only() {
        let mut l = Liveness::new(None, 512);
        let eperm = io::Error::from_raw_os_error(libc::EPERM);
        assert!(l.write_refused(0, &eperm, 0).is_none());
        l.ok(0);
        let u = l.write_refused(1 << 20, &eperm, 5).unwrap();
        assert!(u.read_only && u.at_bytes == 1 << 20);
        assert!(
            u.line()
                .starts_with("the drive turned read-only at byte 1048576")
        );
        assert!(l.write_refused(1 << 20, &eio(), 5).is_none());
    }
}
