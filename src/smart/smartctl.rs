//! Running smartctl: finding it, reading a drive's report (`smartctl --json=c -x
//! DEVICE`, the device type left to smartctl's autodetection), and telling a
//! device without SMART from one with it.

use super::model::Report;
use crate::results::health::{ExitStatus, Health};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use thiserror::Error;

/// Why smartctl could not give a report.
#[derive(Debug, Error)]
pub enum SmartctlError {
    /// smartctl is not on the PATH.
    #[error(
        "smartctl not found on the PATH; install smartmontools (apt-get install smartmontools, dnf install smartmontools, pkg install smartmontools), version 7 or later for JSON output"
    )]
    NotInstalled,
    /// smartctl could not be started.
    #[error("{path}: cannot run smartctl: {}", crate::error::describe_io(.source))]
    Spawn {
        /// The smartctl binary that failed to start, as found on the PATH or given.
        path: String,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The device does not exist (smartctl would only say it cannot tell its type).
    #[error("{device}: no such device; give a disk device (e.g. /dev/sdb, /dev/nvme0)")]
    NoDevice {
        /// The device as given on the command line, not resolved.
        device: String,
    },
    /// smartctl did not end within the request limit (`--io-timeout`): killed,
    /// and the drive is taken to have stopped answering.
    #[error("{device}: no answer from smartctl for {} s (the drive does not answer; smartctl was killed)", .waited.as_secs_f64())]
    NoAnswer {
        /// The device as given; smartctl was asked about it.
        device: String,
        /// How long it was waited for.
        waited: std::time::Duration,
    },
    /// smartctl's output was not a JSON report.
    #[error(
        "{device}: smartctl gave no JSON report ({msg}); smartmontools 7 or later is needed for --json"
    )]
    BadOutput {
        /// The device as given; smartctl was asked about it.
        device: String,
        /// What was wrong.
        msg: String,
    },
    /// smartctl may not open the device (exit status bit 1, EACCES or EPERM):
    /// the user's rights, not the drive (smartctl needs raw I/O rights).
    #[error("{device}: {msg}")]
    Denied {
        /// The device as given; smartctl was asked about it.
        device: String,
        /// smartctl's words and what to do (run as root).
        msg: String,
    },
    /// smartctl ran, but the drive (or smartctl) refused a command: a self-test
    /// kind it does not offer, a device without SMART, a command that failed.
    #[error("{device}: cannot {what}: {msg}")]
    Refused {
        /// The device as given; smartctl was asked about it.
        device: String,
        /// What was asked, e.g. "start a conveyance self-test".
        what: String,
        /// Why, in smartctl's or the drive's words.
        msg: String,
    },
}

impl SmartctlError {
    /// Whether the host or the operator kept SMART from being read, not the
    /// drive: smartctl missing, not runnable, older than 7 (no JSON), or not
    /// allowed to open the device. Then the drive is NOT TESTED, not failed.
    pub fn not_the_drives(&self) -> bool {
        matches!(
            self,
            SmartctlError::NotInstalled
                | SmartctlError::Spawn { .. }
                | SmartctlError::BadOutput { .. }
                | SmartctlError::Denied { .. }
        )
    }
}

/// Why smartctl could not open a device (exit status bit 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenFailed {
    /// Its message said Permission denied or Operation not permitted (EACCES,
    /// EPERM): the user's rights, not the drive.
    pub denied: bool,
    /// smartctl's words and what to do.
    pub msg: String,
}

impl std::fmt::Display for OpenFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

/// What reading a drive's SMART gave.
#[derive(Debug, Clone, PartialEq)]
pub enum SmartRead {
    /// The drive's health, with the report it came from.
    Health {
        /// The figures decoded from `report` by [`Health::from_report`], with some data.
        health: Box<Health>,
        /// smartctl's report, whole.
        report: Box<Report>,
    },
    /// The device has no SMART (a loop device, an image file, most virtual
    /// disks): a one-line note, never a failure by itself.
    NoSmart {
        /// Why, in words (smartctl's own message when it gave one).
        note: String,
    },
}

/// The arguments that read everything smartctl knows about a device.
pub fn info_args(device: &str) -> Vec<String> {
    vec!["--json=c".into(), "-x".into(), device.into()]
}

/// Find smartctl in the directories of a PATH value.
pub fn find_in(path_var: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .map(|d| d.join("smartctl"))
        .find(|p| is_executable(p))
}

/// Find smartctl on this process's PATH: Err names the package to install.
pub fn find() -> Result<PathBuf, SmartctlError> {
    find_in(std::env::var_os("PATH").as_deref()).ok_or(SmartctlError::NotInstalled)
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Tell a report with SMART data from one without: smartctl could not tell the
/// device type (exit status bit 0, no protocol), the device says it has no
/// SMART, or the report holds no health figure at all. Err when smartctl could
/// not open the device (bit 1: permission denied, a device that did not
/// identify or sleeps): that is an error, not a device without SMART.
pub fn classify(report: Report) -> Result<SmartRead, OpenFailed> {
    let exit = ExitStatus(report.exit_status().unwrap_or(0));
    let message = report
        .smartctl
        .as_ref()
        .and_then(|s| s.messages.first())
        .map(|m| m.string.clone());
    let protocol = report.device.as_ref().and_then(|d| d.protocol.clone());
    if exit.has(ExitStatus::OPEN_FAILED) {
        let said = |s: &super::model::Message| {
            s.string.contains("Permission denied") || s.string.contains("Operation not permitted")
        };
        let denied = (report.smartctl.as_ref()).is_some_and(|s| s.messages.iter().any(said));
        let what = if denied {
            "run seekprobe as root: smartctl needs raw I/O rights, which the disk group does not give"
        } else {
            "wake the drive, or check that it identifies"
        };
        return Err(OpenFailed {
            denied,
            msg: format!(
                "smartctl could not open the device (exit status bit 1: {}); {what}",
                message.unwrap_or_else(|| "no message".into())
            ),
        });
    }
    let health = Health::from_report(&report);
    let why = if protocol.is_none() && exit.has(ExitStatus::COMMAND_LINE) {
        Some(message.unwrap_or_else(|| "smartctl cannot talk to the device".into()))
    } else if report.smart_support.as_ref().and_then(|s| s.available) == Some(false) {
        Some("the device reports no SMART support".into())
    } else if !health.has_data() {
        Some(message.unwrap_or_else(|| "smartctl found no SMART data".into()))
    } else {
        None
    };
    Ok(match why {
        Some(note) => SmartRead::NoSmart { note },
        None => SmartRead::Health {
            health: Box::new(health),
            report: Box::new(report),
        },
    })
}

/// The limit of a smartctl run where no `--io-timeout` is given: the option's
/// default.
pub const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(120);

/// smartctl as seekprobe runs it: the binary (e.g. from [`find`]) and how long
/// one run of it may take (`--io-timeout`) before it is killed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smartctl {
    /// The binary.
    pub path: PathBuf,
    /// How long a run may take: a smartctl still running then (a drive that does
    /// not answer its commands) is killed, [`SmartctlError::NoAnswer`].
    pub limit: std::time::Duration,
}

impl Smartctl {
    /// Run `smartctl ARGS` and parse its JSON. smartctl's exit status is a bit
    /// mask that is non-zero on healthy drives too, so it is read from the JSON,
    /// not taken as success or failure. Killed after the limit.
    pub fn run_json(&self, args: &[String], device: &str) -> Result<Report, SmartctlError> {
        run_within(&self.path, args, device, self.limit)
    }

    /// Read a device's SMART health: `smartctl --json=c -x DEVICE`. A path that
    /// does not exist is an error here, not "no SMART": smartctl says the same
    /// thing ("Unable to detect device type") for both.
    pub fn read(&self, device: &str) -> Result<SmartRead, SmartctlError> {
        if !Path::new(device).exists() {
            return Err(SmartctlError::NoDevice {
                device: device.into(),
            });
        }
        let report = self.run_json(&info_args(device), device)?;
        classify(report).map_err(|e| match e.denied {
            true => SmartctlError::Denied {
                device: device.into(),
                msg: e.msg,
            },
            false => SmartctlError::Refused {
                device: device.into(),
                what: "read SMART".into(),
                msg: e.msg,
            },
        })
    }
}

/// [`Smartctl::run_json`] of `smartctl`, killing it after `limit`.
fn run_within(
    smartctl: &Path,
    args: &[String],
    device: &str,
    limit: std::time::Duration,
) -> Result<Report, SmartctlError> {
    let spawn_error = |source| SmartctlError::Spawn {
        path: smartctl.display().to_string(),
        source,
    };
    let mut child = Command::new(smartctl)
        .args(args)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(spawn_error)?;
    // Read on a side thread, so that a long report never fills the pipe.
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut buf);
        let _ = tx.send(buf);
    });
    let start = std::time::Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() >= limit => {
                // A smartctl held by the kernel in the drive's command may linger.
                let _ = child.kill();
                return Err(SmartctlError::NoAnswer {
                    device: device.into(),
                    waited: start.elapsed(),
                });
            }
            Ok(None) => std::thread::sleep(std::time::Duration::from_millis(10)),
            Err(e) => return Err(spawn_error(e)),
        }
    }
    let out = rx
        .recv_timeout(std::time::Duration::from_secs(1))
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&out);
    Report::from_json(&text).map_err(|msg| SmartctlError::BadOutput {
        device: device.into(),
        msg,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_smartctl_that_does_not_end_is_killed_after_the_limit() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("smartctl");
        std::fs::write(&bin, "#!/bin/sh\nexec sleep 30\n").unwrap();
        std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
        let t = std::time::Instant::now();
        let e =
            run_within(&bin, &[], "/dev/sdz", std::time::Duration::from_millis(300)).unwrap_err();
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
        assert!(
            e.to_string()
                .starts_with("/dev/sdz: no answer from smartctl for 0.3"),
            "{e}"
        );
    }

    #[test]
    fn a_loop_device_has_no_smart() {
        // smartctl 7.3 on /dev/loop1 (and on an image file): exit status 1.
        let r = Report::from_json(
            r#"{"json_format_version":[1,0],"smartctl":{"version":[7,3],"argv":["smartctl","--json=c","-x","/dev/loop1"],"messages":[{"string":"/dev/loop1: Unable to detect device type","severity":"error"}],"exit_status":1}}"#,
        )
        .unwrap();
        assert_eq!(
            classify(r).unwrap(),
            SmartRead::NoSmart {
                note: "/dev/loop1: Unable to detect device type".into()
            }
        );
    }

    #[test]
    fn no_smart_support_and_no_data() {
        let r = Report::from_json(
            r#"{"smartctl":{"exit_status":4},"device":{"protocol":"SCSI"},"smart_support":{"available":false}}"#,
        )
        .unwrap();
        assert!(
            matches!(classify(r).unwrap(), SmartRead::NoSmart { note } if note.contains("no SMART support"))
        );
        let r = Report::from_json(r#"{"smartctl":{"exit_status":0},"device":{"protocol":"ATA"}}"#)
            .unwrap();
        assert!(matches!(classify(r).unwrap(), SmartRead::NoSmart { .. }));
        // Permission denied (smartctl 7.3 as a user): exit status 2, an error.
        let r = Report::from_json(
            r#"{"smartctl":{"messages":[{"string":"Smartctl open device: /dev/sda failed: Permission denied","severity":"error"}],"exit_status":2}}"#,
        )
        .unwrap();
        let e = classify(r).unwrap_err();
        assert!(e.denied, "{e}");
        assert!(
            e.msg
                .contains("bit 1: Smartctl open device: /dev/sda failed: Permission denied")
                && e.msg.contains("run seekprobe as root"),
            "{e}"
        );
        // EPERM says the same; a drive that does not identify is not the user's.
        let open = |said: &str| {
            let json = format!(
                r#"{{"smartctl":{{"messages":[{{"string":"{said}","severity":"error"}}],"exit_status":2}}}}"#
            );
            classify(Report::from_json(&json).unwrap()).unwrap_err()
        };
        assert!(open("/dev/sda: Operation not permitted").denied);
        let e = open("Read Device Identity failed: Input/output error");
        assert!(!e.denied && e.msg.contains("wake the drive"), "{e}");
        let denied = SmartctlError::Denied {
            device: "/dev/sda".into(),
            msg: e.msg,
        };
        assert!(denied.not_the_drives());
        let old = SmartctlError::BadOutput {
            device: "/dev/sda".into(),
            msg: "not JSON".into(),
        };
        assert!(old.not_the_drives());
        let hung = SmartctlError::NoAnswer {
            device: "/dev/sda".into(),
            waited: std::time::Duration::from_secs(1),
        };
        assert!(!hung.not_the_drives());
    }

    #[test]
    fn smartctl_is_looked_up_on_the_path_only() {
        assert_eq!(find_in(None), None);
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(find_in(Some(dir.path().as_os_str())), None);
        let p = dir.path().join("smartctl");
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        assert_eq!(
            find_in(Some(dir.path().as_os_str())),
            None,
            "not executable"
        );
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(find_in(Some(dir.path().as_os_str())), Some(p));
        assert!(
            SmartctlError::NotInstalled
                .to_string()
                .contains("smartmontools")
        );
    }
}
