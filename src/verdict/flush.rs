//! Whether a drive's flushes write its cache to the medium (the -S test's
//! flushed writes, against what the medium allows: `validity::fast_flush`).

use crate::results::{Code, DiskResult, Finding, Severity};
use crate::validity::{self, FlushMedium};

/// A flush acknowledged faster than the medium allows: on a rotating drive it
/// fails (a power loss loses writes the drive acknowledged); on flash it is a note
/// (a power-loss-protected cache does it legitimately); where the rotation is not
/// reported, a warning. Judged under --qualify and --burn-in only
/// ([`super::unqualified`] leaves it out).
pub fn findings(d: &DiskResult) -> Vec<Finding> {
    let Some(info) = &d.info else {
        return Vec::new();
    };
    d.tests
        .iter()
        .filter_map(|t| validity::fast_flush(info, t, &d.warnings).map(|f| (t.test.id(), f)))
        .map(|(test, f)| {
            let (severity, why) = match f.medium {
                FlushMedium::Rotating { .. } => (
                    Severity::Fail,
                    "a power loss loses writes it acknowledged: unfit as a ZFS log device or wherever writes must be durable",
                ),
                FlushMedium::Flash => (
                    Severity::Note,
                    "legitimate when the cache is protected against power loss (enterprise drives); without that protection a power loss loses writes it acknowledged",
                ),
                FlushMedium::Unknown => (
                    Severity::Warning,
                    "a rotating drive (behind a USB bridge, a loop device) would lose acknowledged writes on power loss; flash with a power-loss-protected cache may do this legitimately",
                ),
            };
            Finding::new(
                severity,
                test,
                Code::FlushNotHonoured,
                format!("synchronous writes (-S): {}; {why}", f.describe()),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::device::{DeviceInfo, Rotation, TargetKind};
    use crate::results::stats::Summary;
    use crate::results::test_kind::{PhaseId, TestKind};
    use crate::results::{Engine, PhaseResult, TestResult};

    /// A drive whose -S test timed 4 KiB flushed writes at `us` each.
    fn drive(rotation: Rotation, us: u64) -> DiskResult {
        let mut info = DeviceInfo::new("d", "/dev/d", TargetKind::Disk);
        info.rotation = rotation;
        let mut d = DiskResult::new("d");
        d.info = Some(info);
        let mut t = TestResult::new(TestKind::SyncWrite, 0.0, Engine::Sync);
        let latencies_ns = vec![us * 1000; 8];
        t.phases.push(PhaseResult {
            id: PhaseId::SyncWrite,
            ops_planned: 8,
            op_bytes: 4096,
            first_offset_bytes: 0,
            elapsed_ns: latencies_ns.iter().sum(),
            summary: Summary::of(&latencies_ns),
            latencies_ns,
            histogram: None,
            queue_depth: None,
            seed: None,
            stopped_early: false,
        });
        d.tests.push(t);
        d
    }

    #[test]
    fn a_fast_flush_fails_a_rotating_drive_is_a_note_on_flash_and_a_warning_unknown() {
        // 7200 rpm: a revolution is 8333 us, a quarter 2083 us.
        let f = findings(&drive(Rotation::Rpm(7200), 120));
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].severity, f[0].code),
            (Severity::Fail, Code::FlushNotHonoured)
        );
        assert!(
            f[0].reason
                .contains("120.0 us each, far under one revolution (8333.3 us at 7200 rpm)"),
            "{}",
            f[0].reason
        );
        assert!(findings(&drive(Rotation::Rpm(7200), 2100)).is_empty());
        let f = findings(&drive(Rotation::NonRotating, 40));
        assert_eq!(f[0].severity, Severity::Note);
        assert!(
            f[0].reason.contains("protected against power loss"),
            "{}",
            f[0].reason
        );
        assert!(findings(&drive(Rotation::NonRotating, 900)).is_empty());
        for unknown in [Rotation::Unknown, Rotation::Invalid(1)] {
            let f = findings(&drive(unknown, 900));
            assert_eq!(f[0].severity, Severity::Warning, "{unknown:?}");
            assert!(
                f[0].reason.contains("rotation is not reported"),
                "{}",
                f[0].reason
            );
        }
        assert!(findings(&drive(Rotation::Unknown, 1100)).is_empty());
    }

    #[test]
    fn no_finding_when_the_device_could_not_flush() {
        // FreeBSD's DIOCGFLUSH refused (ENOTSUP) behind a caching controller: the
        // writes ran unflushed, so their speed says nothing of a flush; the run's
        // flush_unsupported warning says so, and the drive is not failed.
        let mut d = drive(Rotation::Rpm(7200), 120);
        let info = d.info.clone().expect("info");
        d.warnings.push(validity::flush_unsupported(&info));
        assert!(findings(&d).is_empty());
        let how = super::super::Judging {
            timings: false,
            baseline: None,
            max_deviation: crate::results::settings::Deviation::DEFAULT,
        };
        assert!(super::super::qualify(&[&d], &how)[0].passes());
        let t = &d.tests[0];
        assert!(validity::test_warnings(&info, t, &d.warnings).is_empty());
        assert_eq!(
            validity::test_warnings(&info, t, &[])[0].code,
            crate::results::WarningCode::FlushNotHonoured
        );
    }

    #[test]
    fn a_lying_flush_judges_a_drive_only_when_it_is_qualified() {
        let d = drive(Rotation::Rpm(5400), 100);
        assert!(super::super::unqualified(&d).passes());
        let how = super::super::Judging {
            timings: false,
            baseline: None,
            max_deviation: crate::results::settings::Deviation::DEFAULT,
        };
        let v = &super::super::qualify(&[&d], &how)[0];
        assert!(!v.passes());
        assert_eq!(v.findings[0].code, Code::FlushNotHonoured);
    }
}
