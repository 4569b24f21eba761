//! The qualification tests' figures: --verify, --capacity-check, --smr-check and
//! SMART, in the same exposition and with the same labels as the measuring tests'.

use super::{Exposition, Family, id};
use crate::results::failures::FailureKind;
use crate::results::health::Health;
use crate::results::smart::{SelfTestOutcome, SmartResult};
use crate::results::smr::SmrConclusion;
use crate::results::verify::Half;
use crate::results::{Severity, TestResult};

/// The families of this file, written after the measuring tests' ones.
pub(super) const FAMILIES: &[Family] = &[
    Family {
        name: "seekprobe_verify_failed_sectors",
        kind: "gauge",
        help: "--verify: sectors of a complete pass (1 first) that failed, by kind (unwritable, unreadable, corrupt, misdirected, stale); a pass that was stopped has none.",
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
        name: "seekprobe_smart_reallocated_sectors",
        kind: "gauge",
        help: "SMART: reallocated sectors (ATA 5), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_pending_sectors",
        kind: "gauge",
        help: "SMART: sectors pending reallocation (ATA 197), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_offline_uncorrectable_sectors",
        kind: "gauge",
        help: "SMART: offline uncorrectable sectors (ATA 198), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_reported_uncorrectable_errors",
        kind: "gauge",
        help: "SMART: reported uncorrectable errors (ATA 187), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_command_timeouts",
        kind: "gauge",
        help: "SMART: command timeouts (ATA 188), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_udma_crc_errors",
        kind: "gauge",
        help: "SMART: UDMA CRC errors (ATA 199: cable, backplane or controller), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_grown_defects",
        kind: "gauge",
        help: "SMART: the SCSI grown defect list's length, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_read_uncorrected_errors",
        kind: "gauge",
        help: "SMART: SCSI uncorrected read errors, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_media_errors",
        kind: "gauge",
        help: "SMART: NVMe media and data integrity errors, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_error_log_entries",
        kind: "gauge",
        help: "SMART: NVMe error information log entries, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_critical_warning",
        kind: "gauge",
        help: "SMART: the NVMe critical warning bits (0: none), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_used_ratio",
        kind: "gauge",
        help: "SMART: the NVMe percentage used, as a ratio (1: the rated endurance reached), before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_available_spare_ratio",
        kind: "gauge",
        help: "SMART: the NVMe available spare, as a ratio, before or after the tests.",
    },
    Family {
        name: "seekprobe_smart_nvme_available_spare_threshold_ratio",
        kind: "gauge",
        help: "SMART: the NVMe available spare threshold, as a ratio.",
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
        help: "SMART: the self-tests of a type run by seekprobe, 1 when all completed without error, 0 when one failed or the drive aborted it (interrupted and skipped ones are left out).",
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
    if let Some(v) = &t.verify() {
        for p in &v.passes {
            let pass = (p.pass + 1).to_string();
            // Zeros for a pass stopped before every sector was read back and
            // checked would say "clean" of sectors nobody looked at.
            let checked = p.read.as_ref().is_some_and(|h| h.end_bytes >= v.end_bytes)
                && v.stopped.is_none_or(|st| st.pass != p.pass);
            for kind in FailureKind::ALL.into_iter().filter(|_| checked) {
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
    if let Some(c) = &t.capacity() {
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
    if let Some(s) = &t.smr() {
        for v in [
            SmrConclusion::HiddenSmr,
            SmrConclusion::Conventional,
            SmrConclusion::CannotTell,
            SmrConclusion::NotApplicable,
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
        for (severity, name) in [(Severity::Fail, "fail"), (Severity::Warning, "warn")] {
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
    // Per type, every run of it: one failure makes it 0. Skipped and interrupted
    // (Ctrl-C) self-tests say nothing of the drive.
    let mut by_type: Vec<(String, bool)> = Vec::new();
    for t in &smart.self_tests {
        let passed = match t.outcome {
            SelfTestOutcome::Passed => true,
            SelfTestOutcome::Failed | SelfTestOutcome::Aborted => false,
            SelfTestOutcome::Interrupted | SelfTestOutcome::Skipped => continue,
        };
        let kind = id(t.kind);
        match by_type.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, all)) => *all &= passed,
            None => by_type.push((kind, passed)),
        }
    }
    for (kind, passed) in by_type {
        x.add(
            "seekprobe_smart_self_test_passed",
            "",
            &with(base, &[("type", kind)]),
            f64::from(u8::from(passed)),
        );
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
    let mut gauge = |family: &str, v: Option<f64>| {
        if let Some(v) = v {
            x.add(family, "", l, v);
        }
    };
    let n = |v: Option<u64>| v.map(|v| v as f64);
    let ratio = |v: Option<u32>| v.map(|v| f64::from(v) / 100.0);
    if let Some(a) = &h.ata {
        gauge("seekprobe_smart_reallocated_sectors", n(a.reallocated));
        gauge("seekprobe_smart_pending_sectors", n(a.pending));
        gauge(
            "seekprobe_smart_offline_uncorrectable_sectors",
            n(a.offline_uncorrectable),
        );
        gauge(
            "seekprobe_smart_reported_uncorrectable_errors",
            n(a.reported_uncorrectable),
        );
        gauge(
            "seekprobe_smart_command_timeouts",
            a.command_timeouts.as_ref().map(|c| c.total as f64),
        );
        gauge("seekprobe_smart_udma_crc_errors", n(a.udma_crc_errors));
    }
    if let Some(sc) = &h.scsi {
        gauge("seekprobe_smart_grown_defects", n(sc.grown_defects));
        gauge(
            "seekprobe_smart_read_uncorrected_errors",
            n(sc.read_uncorrected),
        );
    }
    if let Some(nv) = &h.nvme {
        gauge("seekprobe_smart_nvme_media_errors", n(nv.media_errors));
        gauge(
            "seekprobe_smart_nvme_error_log_entries",
            n(nv.error_log_entries),
        );
        gauge(
            "seekprobe_smart_nvme_critical_warning",
            nv.critical_warning.map(f64::from),
        );
        gauge("seekprobe_smart_nvme_used_ratio", ratio(nv.percentage_used));
        gauge(
            "seekprobe_smart_nvme_available_spare_ratio",
            ratio(nv.available_spare),
        );
        gauge(
            "seekprobe_smart_nvme_available_spare_threshold_ratio",
            ratio(nv.available_spare_threshold),
        );
    }
    if let Some(t) = h.temperature_c {
        x.add("seekprobe_smart_temperature_celsius", "", l, t as f64);
    }
    if let Some(p) = h.power_on_hours {
        x.add("seekprobe_smart_power_on_seconds", "", l, p as f64 * 3600.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::failures::Failures;
    use crate::results::test_kind::TestKind;
    use crate::results::verify::{HalfKind, Pass, Stopped, VerifyResult};
    use crate::results::{Engine, QueuedEngine};

    fn verify(read_to: Option<u64>, stopped: Option<Stopped>) -> String {
        let half = |end| Half {
            end_bytes: end,
            ..Half::new(1, 0)
        };
        let mut t = TestResult::new(TestKind::Verify, 0.0, Engine::None);
        t.payload = crate::results::Payload::Verify(VerifyResult {
            nonce: 1,
            start_bytes: 0,
            end_bytes: 1 << 20,
            block_bytes: 1 << 20,
            sector_bytes: 512,
            queue_depth: 4,
            passes_planned: 1,
            slow_ms: 50.0,
            engine: QueuedEngine::Virtual,
            passes: vec![Pass {
                pass: 0,
                write: half(1 << 20),
                read: read_to.map(half),
                failures: Failures::new(),
            }],
            stopped,
            unanswered: None,
            keeps_only: None,
            size_changed: None,
        });
        let mut x = Exposition::new();
        render_test(&mut x, &[], &t);
        x.finish()
    }

    #[test]
    fn only_a_pass_read_back_to_its_end_says_how_many_sectors_failed() {
        let failed = "seekprobe_verify_failed_sectors{pass=\"1\",kind=\"corrupt\"} 0";
        assert!(verify(Some(1 << 20), None).contains(failed));
        assert!(!verify(None, None).contains("failed_sectors"));
        assert!(!verify(Some(1 << 19), None).contains("failed_sectors"));
        let cut = Stopped {
            pass: 0,
            half: HalfKind::Read,
            at_bytes: 1 << 20,
            resume_start: 0,
        };
        assert!(!verify(Some(1 << 20), Some(cut)).contains("failed_sectors"));
    }
}
