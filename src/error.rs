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
    },
    /// The user pressed Ctrl-C.
    #[error("interrupted")]
    Interrupted,
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
