//! Reading a target's size again while a test runs: a block device's through
//! `BLKGETSIZE64` (Linux), an image file's length. A size that changed under a
//! write-verify pass (a bridge that re-enumerated, an HPA set, a loop device
//! resized) stops the pass there (`engine::verify`).

use crate::results::device::TargetKind;
use crate::results::verify::{HalfKind, SizeChanged};
use std::os::fd::{BorrowedFd, OwnedFd};

/// A duplicate of a target's descriptor, to read its size through.
#[derive(Debug)]
pub struct SizeProbe {
    fd: OwnedFd,
    kind: TargetKind,
    /// The size the target was opened with, in bytes.
    pub opened_bytes: u64,
}

impl SizeProbe {
    /// Watch through a duplicate of `fd` (None: a simulated drive, whose size
    /// never changes) a target of `kind` opened with `opened_bytes`.
    pub fn new(fd: Option<BorrowedFd<'_>>, kind: TargetKind, opened_bytes: u64) -> Option<Self> {
        let fd = fd?.try_clone_to_owned().ok()?;
        Some(SizeProbe {
            fd,
            kind,
            opened_bytes,
        })
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
        if self.kind == TargetKind::File {
            return rustix::fs::fstat(&self.fd)
                .ok()
                .and_then(|st| u64::try_from(st.st_size).ok());
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsFd;
            super::linux::media_size(self.fd.as_fd()).ok()
        }
        #[cfg(not(target_os = "linux"))]
        {
            None
        }
    }
}
