//! Typed errors. Each names the path and the cause and, where one helps, what to do.

use std::io;
use thiserror::Error;

/// Why probing one target failed.
#[derive(Debug, Error)]
pub enum ProbeError {
    /// The target could not be opened or inspected.
    #[error("{path}: {}{}", describe_io(.source), hint_suffix(.hint))]
    Open {
        /// The path that failed to open; the message starts with it.
        path: String,
        /// The operating system's error.
        source: io::Error,
        /// What the user can do about it.
        hint: Option<String>,
    },
    /// The path exists but is not something that can be probed.
    #[error("{path}: {what}; give a disk device (e.g. /dev/sdb, da0) or an image file")]
    NotADisk {
        /// The path as given; the message starts with it.
        path: String,
        /// What it is instead.
        what: String,
    },
    /// The target holds no whole sector.
    #[error("{path}: {size} bytes, less than one {sector_size}-byte sector; nothing to probe")]
    Empty {
        /// The path as given; the message starts with it.
        path: String,
        /// Its size in bytes.
        size: u64,
        /// The logical sector size in bytes, of which not one whole fits.
        sector_size: u32,
    },
    /// The target is too small for a test.
    #[error("{path}: too small for the {test} test: {why}")]
    TooSmall {
        /// The path as given; the message starts with it.
        path: String,
        /// The test's name.
        test: String,
        /// Which limit is not met.
        why: String,
    },
    /// The device could not be described (an ioctl or attribute failed).
    #[error("{path}: cannot read the device's geometry: {msg}")]
    Describe {
        /// The path as given; the message starts with it.
        path: String,
        /// What failed, in words: an ioctl's error, or a value not supported.
        msg: String,
    },
    /// An I/O error during a test.
    #[error("{path}: {test}: I/O error at byte offset {offset}: {}", describe_io(.source))]
    Io {
        /// The path as given; the message starts with it.
        path: String,
        /// The test (phase) that was running.
        test: String,
        /// The byte offset of the failed operation.
        offset: u64,
        /// The operating system's error.
        source: io::Error,
    },
    /// A simulation spec was not understood.
    #[error("{spec}: {msg}")]
    BadSim {
        /// The whole `sim:` spec as given, quoted back first in the message.
        spec: String,
        /// What is wrong and what is accepted.
        msg: String,
    },
    /// Writing was refused by a safety rule.
    #[error("{path}: refusing to write: {why}; {hint}")]
    Refused {
        /// The path as given; the message starts with it.
        path: String,
        /// What was found.
        why: String,
        /// What to do.
        hint: String,
        /// Refused for what seekprobe's rules or the operator's setup decided
        /// (a signature, the device in use, no permission, a saved burn-in of
        /// another drive), not for what the drive reports of itself (read-only,
        /// unreadable or unanswered where its signatures are kept): the drive
        /// is then NOT TESTED, never FAILed ([`ProbeError::not_tested`]).
        untested: bool,
    },
    /// The user pressed Ctrl-C.
    #[error("interrupted")]
    Interrupted,
}

impl ProbeError {
    /// Whether the drive is left untested by what seekprobe or the operator
    /// decided, not by anything the drive did (docs/verdict.md, NOT TESTED): a
    /// path that does not exist or that this user may not open, a path that is
    /// not a disk, a simulated drive's spec not understood, writing refused for a
    /// signature or a device in use. What the drive reports of itself (read-only,
    /// a geometry that cannot be read, no whole sector, an I/O error) is not.
    pub fn not_tested(&self) -> bool {
        use rustix::io::Errno;
        match self {
            ProbeError::Open { source, .. } => {
                let errno = source.raw_os_error().map(Errno::from_raw_os_error);
                matches!(errno, Some(Errno::NOENT | Errno::ACCESS | Errno::PERM))
            }
            ProbeError::NotADisk { .. } | ProbeError::BadSim { .. } => true,
            ProbeError::Refused { untested, .. } => *untested,
            _ => false,
        }
    }

    /// Why the disk was not probed, as its results keep it: NOT TESTED
    /// ([`ProbeError::not_tested`]), a refusal to write for what the drive
    /// reports, or a drive that could not be opened or described.
    pub fn disk_failure(&self) -> crate::results::DiskFailure {
        use crate::results::DiskFailure;
        let m = self.to_string();
        match self {
            _ if self.not_tested() => DiskFailure::NotTested(m),
            ProbeError::Refused { .. } => DiskFailure::Refused(m),
            _ => DiskFailure::Open(m),
        }
    }
}

/// An io::Error as "message (errno N)" without Rust's "os error" wording.
pub fn describe_io(e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(code) => {
            let full = e.to_string();
            let msg = full
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&full);
            format!("{} (errno {code})", lowercase_first(msg))
        }
        None => lowercase_first(&e.to_string()),
    }
}

fn lowercase_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

fn hint_suffix(hint: &Option<String>) -> String {
    hint.as_ref().map(|h| format!("; {h}")).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_name_path_cause_and_errno() {
        let e = ProbeError::Io {
            path: "/dev/sdz".into(),
            test: "Full stroke".into(),
            offset: 4096,
            source: io::Error::from(rustix::io::Errno::IO),
        };
        assert_eq!(
            e.to_string(),
            "/dev/sdz: Full stroke: I/O error at byte offset 4096: input/output error (errno 5)"
        );
    }

    #[test]
    fn the_operator_s_mistakes_are_not_tested_the_drive_s_failures_are_not() {
        use rustix::io::Errno;
        let open = |errno: Errno| ProbeError::Open {
            path: "/dev/sdz".into(),
            source: io::Error::from(errno),
            hint: None,
        };
        let refused = |untested| ProbeError::Refused {
            path: "/dev/sdz".into(),
            why: "w".into(),
            hint: "h".into(),
            untested,
        };
        // A path that does not exist, may not be opened, is not a disk; a
        // signature or a device in use: the operator's, NOT TESTED.
        for e in [
            open(Errno::NOENT),
            open(Errno::ACCESS),
            open(Errno::PERM),
            ProbeError::NotADisk {
                path: "/tmp".into(),
                what: "a directory".into(),
            },
            refused(true),
        ] {
            assert!(e.not_tested(), "{e}");
            let f = e.disk_failure();
            assert_eq!(f, crate::results::DiskFailure::NotTested(e.to_string()));
        }
        // The drive's own: gone, unreadable, read-only, no geometry.
        for e in [
            open(Errno::NXIO),
            open(Errno::NODEV),
            open(Errno::IO),
            open(Errno::ROFS),
            refused(false),
            ProbeError::Describe {
                path: "/dev/sdz".into(),
                msg: "BLKGETSIZE64 failed".into(),
            },
        ] {
            assert!(!e.not_tested(), "{e}");
            assert!(!matches!(
                e.disk_failure(),
                crate::results::DiskFailure::NotTested(_)
            ));
        }
    }

    #[test]
    fn open_errors_carry_the_hint() {
        let e = ProbeError::Open {
            path: "/nope".into(),
            source: io::Error::from(rustix::io::Errno::NOENT),
            hint: Some("check the name".into()),
        };
        assert_eq!(
            e.to_string(),
            "/nope: no such file or directory (errno 2); check the name"
        );
    }
}
