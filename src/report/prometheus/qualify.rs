//! The qualification tests' figures: --verify, --capacity-check, --smr-check and
//! SMART, in the same exposition and with the same labels as the measuring tests'.

use super::{Exposition, Family, id};
use crate::results::TestResult;
use crate::smart::health::Health;
use crate::smart::record::{SelfTestOutcome, SmartResult};
use crate::smart::rules::Severity;
use crate::smr::analysis::SmrVerdict;
use crate::verify::failures::FailureKind;
use crate::verify::result::Half;

/// The families of this file, written after the measuring tests' ones.
pub(super) const FAMILIES: &[Family] = &[
    Family {
        name: "seekprobe_verify_failed_sectors",
        kind: "gauge",
        help: "--verify: sectors of a pass that failed, by kind (unwritable, unreadable, corrupt, misdirected, stale).",
    },
    Family {
        name: "seekprobe_verify_transfer_bytes_per_second",
        kind: "gauge",
        help: "--verify: the rate of a pass's write half or read-and-check half.",
    },
    Family {
        name: "seekprobe_verify_error_blocks",
        kind: "gauge",
        help: "--verify: requests of a pass's half that failed with an error.",
    },
    Family {
        name: "seekprobe_capacity_reported_bytes",
        kind: "gauge",
        help: "--capacity-check: the size the drive reports.",
    },
    Family {
        name: "seekprobe_capacity_real_bytes",
        kind: "gauge",
        help: "--capacity-check: the size that stores data (the reported size when every probe read back).",
    },
    Family {
        name: "seekprobe_capacity_failed_probes",
        kind: "gauge",
        help: "--capacity-check: probe blocks that did not read back as written.",
    },
    Family {
        name: "seekprobe_smr_verdict",
        kind: "gauge",
        help: "--smr-check: 1 for the verdict reached, 0 for the others (hidden_smr, conventional, cannot_tell, not_applicable).",
    },
    Family {
        name: "seekprobe_smr_level_write_bytes_per_second",
        kind: "gauge",
        help: "--smr-check: the best write rate before a collapse (or over the whole test).",
    },
    Family {
        name: "seekprobe_smr_collapsed_write_bytes_per_second",
        kind: "gauge",
        help: "--smr-check: the median write rate from the collapse on.",
    },
    Family {
        name: "seekprobe_smart_health_passed",
        kind: "gauge",
        help: "SMART: the drive's overall-health self-assessment, 1 PASSED, 0 FAILED, read before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_sectors",
        kind: "gauge",
        help: "SMART: sector counters (reallocated, pending, offline_uncorrectable; SCSI grown_defects), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_errors",
        kind: "gauge",
        help: "SMART: error counters (udma_crc, reported_uncorrectable; NVMe media and error_log), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_temperature_celsius",
        kind: "gauge",
        help: "SMART: the temperature now, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_power_on_seconds",
        kind: "gauge",
        help: "SMART: the power-on time (the drive counts hours), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_findings",
        kind: "gauge",
        help: "SMART: the health rules' findings by severity (fail, warn).",
    },
    Family {
        name: "seekprobe_smart_self_test_passed",
        kind: "gauge",
        help: "SMART: a self-test run by seekprobe, 1 when it completed without error, 0 otherwise.",
    },
];

type Labels = [(&'static str, String)];

fn with(labels: &Labels, more: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    let mut l = labels.to_vec();
    l.extend_from_slice(more);
    l
}

/// The figures of a --verify, --capacity-check or --smr-check test.
pub(super) fn render_test(x: &mut Exposition, labels: &Labels, t: &TestResult) {
    if let Some(v) = &t.verify {
        for p in &v.passes {
            let pass = (p.pass + 1).to_string();
            for kind in FailureKind::ALL {
                x.add(
                    "seekprobe_verify_failed_sectors",
                    "",
                    &with(
                        labels,
                        &[("pass", pass.clone()), ("kind", kind.name().into())],
                    ),
                    p.failures.count(kind) as f64,
                );
            }
            let halves: [(&str, Option<&Half>); 2] =
                [("write", Some(&p.write)), ("read", p.read.as_ref())];
            for (direction, half) in halves {
                let Some(h) = half else { continue };
                let l = with(
                    labels,
                    &[("pass", pass.clone()), ("direction", direction.into())],
                );
                if h.elapsed_ns > 0 {
                    x.add(
                        "seekprobe_verify_transfer_bytes_per_second",
                        "",
                        &l,
                        h.rate(),
                    );
                }
                x.add(
                    "seekprobe_verify_error_blocks",
                    "",
                    &l,
                    h.error_blocks as f64,
                );
            }
        }
    }
    if let Some(c) = &t.capacity {
        let c = &c.conclusion;
        x.add(
            "seekprobe_capacity_reported_bytes",
            "",
            labels,
            c.reported as f64,
        );
        x.add("seekprobe_capacity_real_bytes", "", labels, c.real as f64);
        x.add(
            "seekprobe_capacity_failed_probes",
            "",
            labels,
            f64::from(c.failed),
        );
    }
    if let Some(s) = &t.smr {
        for v in [
            SmrVerdict::HiddenSmr,
            SmrVerdict::Conventional,
            SmrVerdict::CannotTell,
            SmrVerdict::NotApplicable,
        ] {
            x.add(
                "seekprobe_smr_verdict",
                "",
                &with(labels, &[("verdict", id(v))]),
                f64::from(u8::from(s.verdict == v)),
            );
        }
        if s.level_bytes_per_s > 0.0 {
            x.add(
                "seekprobe_smr_level_write_bytes_per_second",
                "",
                labels,
                s.level_bytes_per_s,
            );
        }
        if let Some(r) = s.collapsed_bytes_per_s {
            x.add(
                "seekprobe_smr_collapsed_write_bytes_per_second",
                "",
                labels,
                r,
            );
        }
    }
}

/// SMART's health before and after the tests, its findings and self-tests.
pub(super) fn render_smart(x: &mut Exposition, base: &Labels, smart: &SmartResult) {
    for (when, h) in [("before", &smart.before), ("after", &smart.after)] {
        if let Some(h) = h {
            health(x, &with(base, &[("when", when.into())]), h);
        }
    }
    if smart.judged() {
        for (severity, name) in [(Severity::Fail, "fail"), (Severity::Warn, "warn")] {
            let n = smart
                .findings
                .iter()
                .filter(|f| f.severity == severity)
                .count();
            x.add(
                "seekprobe_smart_findings",
                "",
                &with(base, &[("severity", name.into())]),
                n as f64,
            );
        }
    }
    for t in &smart.self_tests {
        // Skipped and interrupted (Ctrl-C) self-tests say nothing of the drive.
        let passed = match t.outcome {
            SelfTestOutcome::Passed => Some(true),
            SelfTestOutcome::Failed | SelfTestOutcome::Aborted => Some(false),
            SelfTestOutcome::Interrupted | SelfTestOutcome::Skipped => None,
        };
        if let Some(passed) = passed {
            x.add(
                "seekprobe_smart_self_test_passed",
                "",
                &with(base, &[("type", id(t.kind))]),
                f64::from(u8::from(passed)),
            );
        }
    }
}

fn health(x: &mut Exposition, l: &Labels, h: &Health) {
    if let Some(p) = h.passed {
        x.add(
            "seekprobe_smart_health_passed",
            "",
            l,
            f64::from(u8::from(p)),
        );
    }
    let mut counter = |family: &str, name: &str, v: Option<u64>| {
        if let Some(v) = v {
            x.add(family, "", &with(l, &[("counter", name.into())]), v as f64);
        }
    };
    if let Some(a) = &h.ata {
        counter("seekprobe_smart_sectors", "reallocated", a.reallocated);
        counter("seekprobe_smart_sectors", "pending", a.pending);
        counter(
            "seekprobe_smart_sectors",
            "offline_uncorrectable",
            a.offline_uncorrectable,
        );
        counter("seekprobe_smart_errors", "udma_crc", a.udma_crc_errors);
        counter(
            "seekprobe_smart_errors",
            "reported_uncorrectable",
            a.reported_uncorrectable,
        );
    }
    if let Some(s) = &h.scsi {
        counter("seekprobe_smart_sectors", "grown_defects", s.grown_defects);
        counter(
            "seekprobe_smart_errors",
            "read_uncorrected",
            s.read_uncorrected,
        );
    }
    if let Some(n) = &h.nvme {
        counter("seekprobe_smart_errors", "media", n.media_errors);
        counter("seekprobe_smart_errors", "error_log", n.error_log_entries);
    }
    if let Some(t) = h.temperature_c {
        x.add("seekprobe_smart_temperature_celsius", "", l, t as f64);
    }
    if let Some(p) = h.power_on_hours {
        x.add("seekprobe_smart_power_on_seconds", "", l, p as f64 * 3600.0);
    }
}
