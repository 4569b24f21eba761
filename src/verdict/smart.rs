//! SMART's findings as the verdict's: each finding of the health rules
//! (`crate::smart::health_rules`, the failed self-tests among them) keeps its weight,
//! and SMART that could not be read fails the drive (as does a report the rules
//! say cannot be judged: `smart_unreadable`). SMART the host or the operator
//! kept from being read (smartctl may not open the device, cannot run, or is
//! older than 7) leaves the drive NOT TESTED (`not_tested`, issue 56). A device
//! without SMART adds nothing here (`checks::nothing_to_judge` says it was not
//! read).

use crate::results::smart::SmartResult;
use crate::results::{Code, Finding, Severity};

/// The verdict's findings of a disk's SMART result.
pub fn smart(s: &SmartResult) -> Vec<Finding> {
    let mut out = Vec::new();
    if let Some(e) = &s.error {
        out.push(Finding::new(
            Severity::Fail,
            "smart",
            Code::SmartUnreadable,
            format!("SMART: {e}"),
        ));
    }
    if let Some(why) = &s.not_read {
        out.push(Finding::new(
            Severity::Fail,
            "smart",
            Code::NotTested,
            format!("not tested: SMART could not be read: {why}"),
        ));
    }
    out.extend(rules(&s.findings));
    out
}

/// The verdict's findings of the health rules' findings (`seekprobe smart`
/// judges a saved report with these alone): each keeps its severity and code,
/// its reason says SMART, and the rule and figure stay with SMART's result.
pub fn rules(findings: &[Finding]) -> Vec<Finding> {
    findings
        .iter()
        .map(|f| Finding::new(f.severity, "smart", f.code, format!("SMART: {}", f.reason)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::smart::model::Report;
    use crate::smart::smartctl::{SmartctlError, classify};

    /// The verdict's findings of SMART stopped by `e` as the run records it.
    fn judged(e: SmartctlError) -> Vec<Finding> {
        let mut r = SmartResult::default();
        match e.not_the_drives() {
            true => r.not_read = Some(e.to_string()),
            false => r.error = Some(e.to_string()),
        }
        smart(&r)
    }

    fn open_failed(said: &str) -> SmartctlError {
        let json = format!(
            r#"{{"smartctl":{{"messages":[{{"string":"{said}","severity":"error"}}],"exit_status":2}}}}"#
        );
        let e = classify(Report::from_json(&json).unwrap()).unwrap_err();
        match e.denied {
            true => SmartctlError::Denied {
                device: "/dev/sda".into(),
                msg: e.msg,
            },
            false => SmartctlError::Refused {
                device: "/dev/sda".into(),
                what: "read SMART".into(),
                msg: e.msg,
            },
        }
    }

    #[test]
    fn smart_the_host_or_the_operator_kept_unread_is_not_tested() {
        let denied = open_failed("Smartctl open device: /dev/sda failed: Permission denied");
        let eperm = open_failed("/dev/sda: Operation not permitted");
        let old = SmartctlError::BadOutput {
            device: "/dev/sda".into(),
            msg: "expected value at line 1 column 1".into(),
        };
        let spawn = SmartctlError::Spawn {
            path: "/usr/sbin/smartctl".into(),
            source: std::io::Error::from_raw_os_error(13),
        };
        for (e, says) in [
            (denied, "run seekprobe as root"),
            (eperm, "run seekprobe as root"),
            (old, "smartmontools 7 or later"),
            (spawn, "cannot run smartctl"),
        ] {
            let f = judged(e);
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(
                (f[0].severity, f[0].code),
                (Severity::Fail, Code::NotTested)
            );
            assert!(
                f[0].reason
                    .starts_with("not tested: SMART could not be read: ")
                    && f[0].reason.contains(says),
                "{}",
                f[0].reason
            );
            assert_eq!(
                crate::verdict::judge(f).state,
                crate::results::State::NotTested
            );
        }
    }

    #[test]
    fn smart_the_drive_kept_unread_still_fails() {
        let hung = SmartctlError::NoAnswer {
            device: "/dev/sda".into(),
            waited: std::time::Duration::from_secs(120),
        };
        let asleep = open_failed("Read Device Identity failed: Input/output error");
        let refused = SmartctlError::Refused {
            device: "/dev/sda".into(),
            what: "start a long self-test".into(),
            msg: "Command failed".into(),
        };
        for e in [hung, asleep, refused] {
            let f = judged(e);
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(
                (f[0].severity, f[0].code),
                (Severity::Fail, Code::SmartUnreadable)
            );
            assert_eq!(crate::verdict::judge(f).state, crate::results::State::Fail);
        }
    }
}
