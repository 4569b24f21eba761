//! Reading a target's size again while a test runs: a block device's through
//! `BLKGETSIZE64` (Linux), an image file's length, a simulated drive's `shrink=`. A size that changed under a
//! write-verify pass (a bridge that re-enumerated, an HPA set, a loop device
//! resized) stops the pass there (`engine::verify`).

use crate::results::device::TargetKind;
use crate::results::verify::{HalfKind, SizeChanged};
use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What a target's size is read again through.
#[derive(Debug)]
pub struct SizeProbe {
    source: Source,
    /// The size the target was opened with, in bytes.
    pub opened_bytes: u64,
}

#[derive(Debug)]
enum Source {
    /// A duplicate of a real target's descriptor, and what the target is.
    Fd(OwnedFd, TargetKind),
    /// A simulated drive's size, as it shrinks (`shrink=`, docs/sim.md).
    Shared(Arc<AtomicU64>),
}

impl SizeProbe {
    /// Watch through a duplicate of `fd` (None: a target without one, which
    /// cannot tell) a target of `kind` opened with `opened_bytes`.
    pub fn new(fd: Option<BorrowedFd<'_>>, kind: TargetKind, opened_bytes: u64) -> Option<Self> {
        let fd = fd?.try_clone_to_owned().ok()?;
        Some(SizeProbe {
            source: Source::Fd(fd, kind),
            opened_bytes,
        })
    }

    /// Read a simulated drive's `size` as it changes; it was opened with
    /// `opened_bytes`.
    pub fn shared(size: Arc<AtomicU64>, opened_bytes: u64) -> SizeProbe {
        SizeProbe {
            source: Source::Shared(size),
            opened_bytes,
        }
    }

    /// The size now, when it is not the one opened. A size of 0 is no size
    /// change: a disk hot-removed reads 0 (the kernel's `del_gendisk`), and the
    /// drive that is gone is told by the errors (the drive stopped answering).
    pub fn changed(&self) -> Option<u64> {
        self.now().filter(|&to| to != self.opened_bytes && to != 0)
    }

    /// The size change found at byte `at_bytes` of half `half` of pass `pass`,
    /// `after_ns` into the test, if the size now is not the one opened.
    pub fn found(
        &self,
        pass: u32,
        half: HalfKind,
        at_bytes: u64,
        after_ns: u64,
    ) -> Option<SizeChanged> {
        Some(SizeChanged {
            from_bytes: self.opened_bytes,
            to_bytes: self.changed()?,
            pass,
            half,
            at_bytes,
            after_ns,
        })
    }

    /// The size in bytes now; None when it cannot be read (a FreeBSD disk, an
    /// error: nothing is concluded from it).
    pub fn now(&self) -> Option<u64> {
        let fd = match &self.source {
            Source::Shared(size) => return Some(size.load(Ordering::Relaxed)),
            Source::Fd(fd, TargetKind::File) => {
                let st = rustix::fs::fstat(fd).ok()?;
                return u64::try_from(st.st_size).ok();
            }
            Source::Fd(fd, _) => fd,
        };
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsFd;
            super::linux::media_size(fd.as_fd()).ok()
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = fd;
            None
        }
    }
}
