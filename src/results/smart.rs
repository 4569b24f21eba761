//! What SMART found on one disk during a run, as plain data: the health before and
//! after, the self-tests asked for, the rules' findings (the program's one
//! [`Finding`], saved in SMART's shape) and the temperatures during
//! long work (reading, judging and sampling are the SMART module's).

use super::health::Health;
use super::verdict::{Code, Figure, Finding, Severity};
use serde::{Deserialize, Serialize};

/// How one asked-for self-test ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelfTestOutcome {
    /// Completed without error.
    Passed,
    /// The drive found an error (the first error's LBA when it says).
    Failed,
    /// Aborted by something other than seekprobe (a reset, another program).
    Aborted,
    /// Ctrl-C: seekprobe aborted it on the drive.
    Interrupted,
    /// Not run: the drive does not offer this kind, or it has no SMART.
    Skipped,
}

/// One self-test asked for with `--smart-test`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SelfTestRecord {
    /// Which self-test was asked for (short, conveyance or long), as `--smart-test` named it.
    pub kind: SelfTestKind,
    /// How it ended.
    pub outcome: SelfTestOutcome,
    /// The drive's log entry in smartctl's words ("Completed: read failure"), or
    /// why it was skipped.
    pub status: String,
    /// The LBA of the first error, for a failed test when the drive says.
    #[serde(default)]
    pub first_error_lba: Option<u64>,
    /// How long it ran (the drive's clock: real time, or a simulated drive's
    /// virtual time), in seconds.
    #[serde(default)]
    pub elapsed_s: f64,
}

/// What SMART said about one disk during a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SmartResult {
    /// The health read before the tests (None: no SMART, or it could not be read).
    pub before: Option<Health>,
    /// The health read after them (None when the run stopped before).
    pub after: Option<Health>,
    /// The self-tests asked for, in the order they ran.
    pub self_tests: Vec<SelfTestRecord>,
    /// The health rules' findings (before against after, and the self-tests),
    /// saved in SMART's own shape (`saved`).
    #[serde(with = "saved")]
    pub findings: Vec<Finding>,
    /// The device has no SMART: the one-line note (never a failure by itself).
    pub note: Option<String>,
    /// SMART could not be read or a self-test not started: why (the disk fails).
    pub error: Option<String>,
    /// SMART could not be read for the host's or the operator's reason (smartctl
    /// may not open the device, cannot run, or gives no JSON): why, and what to
    /// do. The drive is NOT TESTED, not failed. Absent when read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_read: Option<String>,
    /// The drive's temperatures during long work (a burn-in, --verify,
    /// --smr-check), with the pauses of its writes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<TemperatureLog>,
}

impl SmartResult {
    /// Whether reading SMART or a self-test stopped short: the drive's fault
    /// (`error`) or not (`not_read`). Nothing more is asked of it then.
    pub fn stopped(&self) -> bool {
        self.error.is_some() || self.not_read.is_some()
    }
}

/// A self-test kind, as `smartctl -t` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SelfTestKind {
    /// The short self-test (ATA: usually under ten minutes; NVMe: two minutes or
    /// less; SCSI: "Background short").
    Short,
    /// The conveyance self-test (ATA only): damage from transport.
    Conveyance,
    /// The long (extended) self-test: the whole surface.
    Long,
}

/// The health rules whose finding says a report cannot be judged: its structure
/// cannot be read, it holds no SMART health, or `--new` cannot tell the hours
/// or the host writes.
pub const CANNOT_JUDGE: [&str; 4] = [
    "unjudgeable",
    "no-health-data",
    "new-hours-missing",
    "new-host-writes-unknown",
];

impl Finding {
    /// A finding of SMART's health rule `rule`, without a figure: test `smart`,
    /// and the code that rule makes (`smart_unreadable` for a report that
    /// cannot be judged, `self_test_failed` for the self-test rules, `smart`
    /// otherwise).
    pub fn smart(severity: Severity, rule: &str, reason: String) -> Finding {
        let code = if CANNOT_JUDGE.contains(&rule) {
            Code::SmartUnreadable
        } else if rule.starts_with("self-test") {
            Code::SelfTestFailed
        } else {
            Code::Smart
        };
        Finding {
            rule: rule.into(),
            ..Finding::new(severity, "smart", code, reason)
        }
    }
}

/// SMART's findings as a run saves them, unchanged since before the program had
/// one `Finding`: `{severity, rule, reason, figure}`, the severity in SMART's
/// words (`note`, `warn`, `fail`; `warning` is read too).
mod saved {
    use super::{Figure, Finding, Severity};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "lowercase")]
    enum Weight {
        Note,
        #[serde(alias = "warning")]
        Warn,
        Fail,
    }

    #[derive(Serialize, Deserialize)]
    struct Saved {
        severity: Weight,
        rule: String,
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        figure: Option<Figure>,
    }

    pub fn serialize<S: Serializer>(findings: &[Finding], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(findings.iter().map(|f| Saved {
            severity: match f.severity {
                Severity::Note => Weight::Note,
                Severity::Warning => Weight::Warn,
                Severity::Fail => Weight::Fail,
            },
            rule: f.rule.clone(),
            reason: f.reason.clone(),
            figure: f.figure.clone(),
        }))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Finding>, D::Error> {
        let saved = Vec::<Saved>::deserialize(d)?;
        Ok(saved
            .into_iter()
            .map(|f| {
                let severity = match f.severity {
                    Weight::Note => Severity::Note,
                    Weight::Warn => Severity::Warning,
                    Weight::Fail => Severity::Fail,
                };
                Finding {
                    figure: f.figure,
                    ..Finding::smart(severity, &f.rule, f.reason)
                }
            })
            .collect())
    }
}

/// One temperature reading of the drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sample {
    /// When, in whole seconds since the sampling started (the drive's clock:
    /// real, or a simulated drive's virtual time).
    pub at_s: u64,
    /// The temperature, °C.
    pub celsius: i64,
}

/// A pause of the drive's writes because it was too hot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pause {
    /// When it began, seconds since the sampling started.
    pub from_s: u64,
    /// When writes resumed (None: the work ended first).
    pub to_s: Option<u64>,
    /// The reading that paused them, °C.
    pub celsius: i64,
    /// Whether the drive cooled 5 °C below the limit (false: the work ended
    /// first, or the pause reached its longest and writes resumed hot).
    pub cooled: bool,
}

/// The temperatures of one drive during the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TemperatureLog {
    /// The limit, °C.
    pub limit_c: i64,
    /// Where the limit comes from: "--max-temp", "the drive's
    /// temperature.op_limit_max" or "seekprobe's default".
    pub limit_source: String,
    /// The readings, oldest first.
    pub samples: Vec<Sample>,
    /// The pauses of the drive's writes.
    pub pauses: Vec<Pause>,
    /// Readings that failed (the drive did not say): how many.
    pub unread: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_findings_are_saved_in_smarts_own_words_and_read_back() {
        let r = SmartResult {
            findings: vec![
                Finding {
                    figure: Some(Figure {
                        counter: "pending".into(),
                        count: Some(8),
                        source: "ATA attribute 197, raw".into(),
                    }),
                    ..Finding::smart(Severity::Warning, "pending", "8 pending".into())
                },
                Finding::smart(Severity::Fail, "unjudgeable", "no table".into()),
                Finding::smart(Severity::Note, "self-test-log", "old failure".into()),
            ],
            ..SmartResult::default()
        };
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(
            json["findings"][0],
            serde_json::json!({"severity": "warn", "rule": "pending", "reason": "8 pending",
                "figure": {"counter": "pending", "count": 8, "source": "ATA attribute 197, raw"}})
        );
        assert_eq!(
            json["findings"][1],
            serde_json::json!({"severity": "fail", "rule": "unjudgeable", "reason": "no table"})
        );
        let back: SmartResult = serde_json::from_value(json).unwrap();
        assert_eq!(back, r);
        let codes: Vec<Code> = back.findings.iter().map(|f| f.code).collect();
        assert_eq!(
            codes,
            [Code::Smart, Code::SmartUnreadable, Code::SelfTestFailed]
        );
        let old: SmartResult = serde_json::from_str(
            r#"{"findings": [{"severity": "warning", "rule": "crc", "reason": "r"}]}"#,
        )
        .unwrap();
        assert_eq!(old.findings[0].severity, Severity::Warning);
    }
}
