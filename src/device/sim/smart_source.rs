//! The simulated drive answers SMART questions ([`SmartSource`]) from its model
//! (smart.rs holds the counters and the self-test state; this file joins them to
//! the [`SimTarget`] that owns them).

use super::smart::{Running, index};
use super::target::SimTarget;
use crate::clock::Clock;
use crate::device::Target;
use crate::results::health::LoggedOutcome;
use crate::results::smart::SelfTestKind;
use crate::smart::source::{SelfTestPoll, SelfTestStarted, SmartSource};
use crate::smart::{SmartRead, SmartctlError};
use std::time::Duration;

impl SimTarget {
    fn settle_smart(&mut self) {
        let now = self.virtual_clock().now_ns();
        let size = self.info().media_size_bytes;
        self.smart.settle(now, &self.model, &self.faults, size);
    }

    fn refused(&self, what: &str, msg: &str) -> SmartctlError {
        SmartctlError::Refused {
            device: self.info().path.clone(),
            what: what.to_string(),
            msg: msg.to_string(),
        }
    }

    /// The drive's temperature now, from its thermal model (a running
    /// self-test keeps the drive busy as its reads would).
    fn temperature_c(&mut self) -> i64 {
        let now = self.virtual_clock().now_ns();
        if let Some(r) = self.smart.running {
            let from = r.start_ns.min(now);
            self.smart.thermal.busy(from, now - from);
        }
        self.smart.thermal.at(now)
    }
}

impl SmartSource for SimTarget {
    fn device(&self) -> String {
        self.info().path.clone()
    }

    fn read(&mut self) -> Result<SmartRead, SmartctlError> {
        self.settle_smart();
        let temperature = self.temperature_c();
        let info = self.info();
        let mut health = self.smart.health(
            self.virtual_clock().now_ns(),
            temperature,
            &info.path,
            info.descr.as_deref(),
        );
        health.serial = info.ident.clone();
        Ok(SmartRead::Health {
            health: Box::new(health),
            report: Box::default(),
        })
    }

    fn supports(&mut self, kind: SelfTestKind) -> Result<bool, SmartctlError> {
        Ok(kind != SelfTestKind::Conveyance || (self.smart.rotating && !self.smart.nvme))
    }

    fn start_self_test(&mut self, kind: SelfTestKind) -> Result<SelfTestStarted, SmartctlError> {
        self.settle_smart();
        let what = format!("start a {} self-test", kind.arg());
        if !self.supports(kind)? {
            return Err(self.refused(
                &what,
                "the drive does not offer it (conveyance: ATA hard disks only)",
            ));
        }
        if self.smart.running.is_some() {
            return Err(self.refused(&what, "a self-test is already running; abort it first"));
        }
        self.smart.running = Some(Running {
            kind,
            start_ns: self.virtual_clock().now_ns(),
        });
        Ok(SelfTestStarted {
            kind,
            polling_minutes: Some(self.smart.polling[index(kind)]),
        })
    }

    fn poll_self_test(&mut self) -> Result<SelfTestPoll, SmartctlError> {
        self.settle_smart();
        if self.smart.running.is_some() {
            return Ok(SelfTestPoll::Running {
                done_percent: self.smart.done_percent(self.virtual_clock().now_ns()),
            });
        }
        match &self.smart.last {
            Some(l) => Ok(SelfTestPoll::Finished(l.clone())),
            None => Err(self.refused("read the self-test status", "no self-test has run")),
        }
    }

    fn abort_self_test(&mut self) -> Result<(), SmartctlError> {
        self.settle_smart();
        if let Some(r) = self.smart.running {
            let now = self.virtual_clock().now_ns();
            self.smart.finish(r.kind, now, LoggedOutcome::Aborted, None);
        }
        Ok(())
    }

    fn now(&self) -> Duration {
        Duration::from_nanos(self.virtual_clock().now_ns())
    }

    fn pause(&mut self, d: Duration, _interrupted: &dyn Fn() -> bool) {
        self.virtual_clock()
            .advance(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }
}

#[cfg(test)]
mod tests {
    use super::super::smart::HOUR_NS;
    use super::*;
    use crate::device::{AlignedBuf, Simulated};
    use crate::results::Severity;
    use crate::results::health::{AtaCounters, Health, SelfTestResult};
    use crate::smart::health_rules::{RuleOptions, findings};
    use crate::smart::source::{SelfTestEnd, run_self_test};

    /// Whether the one judge lets the drive pass on these findings.
    fn passes(f: &[crate::results::Finding]) -> bool {
        crate::verdict::judge(crate::verdict::smart_rule_findings(f)).passes()
    }

    fn open(spec: &str) -> SimTarget {
        SimTarget::open(spec).unwrap()
    }

    fn health(t: &mut SimTarget) -> Health {
        match t.smart_source().unwrap().read().unwrap() {
            SmartRead::Health { health, .. } => *health,
            SmartRead::NoSmart { note } => panic!("no SMART: {note}"),
        }
    }

    fn ata(t: &mut SimTarget) -> AtaCounters {
        health(t).ata.unwrap()
    }

    fn new_drive() -> RuleOptions {
        RuleOptions {
            new_drive: true,
            ..Default::default()
        }
    }

    /// Follow a self-test to its end on the virtual clock, polling every minute.
    fn self_test(t: &mut SimTarget, kind: SelfTestKind) -> SelfTestResult {
        let src = t.smart_source().unwrap();
        match run_self_test(src, kind, Duration::from_secs(60), &|| false, &mut |_| {}).unwrap() {
            SelfTestEnd::Finished(r) => r,
            SelfTestEnd::Interrupted => panic!("interrupted"),
        }
    }

    #[test]
    fn pending_sectors_appear_when_a_read_fails_and_go_when_rewritten() {
        let mut t = open("sim:hdd?bad=1000-1003");
        let c = ata(&mut t);
        assert_eq!(
            (c.pending, c.reallocated),
            (Some(0), Some(0)),
            "unknown until read"
        );
        let mut buf = AlignedBuf::new(4096);
        // One 8-sector read over the range: the drive stops at 1000.
        assert!(t.read_at(buf.for_read(..), 996 * 512).is_err());
        let c = ata(&mut t);
        assert_eq!((c.pending, c.reported_uncorrectable), (Some(1), Some(1)));
        // Each sector read on its own: all three pending, read twice no more.
        let mut one = AlignedBuf::new(512);
        for s in [1000u64, 1001, 1002, 1002] {
            assert!(t.read_at(one.for_read(..), s * 512).is_err(), "sector {s}");
        }
        let c = ata(&mut t);
        assert_eq!((c.pending, c.reported_uncorrectable), (Some(3), Some(5)));
        assert!(t.read_at(one.for_read(..), 1003 * 512).is_ok());
        // Rewriting them remaps them: reallocated 3, pending 0, and they read.
        t.write_at(AlignedBuf::new(3 * 512).for_write(..), 1000 * 512)
            .unwrap();
        let c = ata(&mut t);
        assert_eq!((c.reallocated, c.pending), (Some(3), Some(0)));
        for s in 996..1008u64 {
            assert!(t.read_at(one.for_read(..), s * 512).is_ok(), "sector {s}");
        }
        assert!(t.read_at(buf.for_read(..), 996 * 512).is_ok());
        // The new-drive rules see the reallocations; the health is otherwise good.
        let f = findings(&health(&mut t), None, &new_drive());
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(
            rules,
            ["reallocated", "reported-uncorrectable", "error-log"]
        );
    }

    #[test]
    fn a_write_remaps_only_the_sectors_it_covers() {
        let mut t = open("sim:ssd?bad=100-110&bad=105-120");
        // One write over sectors 104..108 remaps 104..108 of the merged 100..120.
        t.write_at(AlignedBuf::new(2048).for_write(..), 104 * 512)
            .unwrap();
        assert_eq!(ata(&mut t).reallocated, Some(4));
        let mut one = AlignedBuf::new(512);
        assert!(t.read_at(one.for_read(..), 103 * 512).is_err());
        assert!(t.read_at(one.for_read(..), 107 * 512).is_ok());
        assert!(t.read_at(one.for_read(..), 108 * 512).is_err());
        t.write_at(AlignedBuf::new(8192).for_write(..), 96 * 512)
            .unwrap();
        t.write_at(AlignedBuf::new(8192).for_write(..), 112 * 512)
            .unwrap();
        let c = ata(&mut t);
        assert_eq!((c.reallocated, c.pending), (Some(20), Some(0)));
    }

    #[test]
    fn a_long_self_test_stops_at_the_first_unreadable_lba() {
        let mut t = open("sim:hdd?bad=1000-1003");
        let r = self_test(&mut t, SelfTestKind::Long);
        assert_eq!(r.outcome, LoggedOutcome::Failed);
        assert_eq!(r.first_error_lba, Some(1000));
        assert_eq!(r.test, "Extended offline");
        assert_eq!(r.status, "Completed: read failure");
        // It failed at once (LBA 1000 is read in the first revolutions), found at
        // the first poll a minute later; the sector is pending, found by the scan.
        assert_eq!(t.virtual_clock().now_ns(), 60_000_000_000);
        let h = health(&mut t);
        assert_eq!(h.ata.as_ref().unwrap().pending, Some(1));
        assert_eq!(h.ata.as_ref().unwrap().offline_uncorrectable, Some(1));
        let f = findings(&h, None, &RuleOptions::default());
        assert!(!passes(&f));
        let log = f.iter().find(|f| f.rule == "self-test-log").unwrap();
        assert!(
            log.reason.starts_with("the self-test log holds a failure no passing extended test followed: Extended offline self-test at power-on hour 0")
                && log.reason.ends_with("Completed: read failure, first error at LBA 1000"),
            "{}",
            log.reason
        );
        assert!(
            f.iter()
                .any(|f| f.rule == "pending" && f.severity == Severity::Fail)
        );
        // Rewritten, the sector is remapped and the next long test passes.
        t.write_at(AlignedBuf::new(1536).for_write(..), 1000 * 512)
            .unwrap();
        let r = self_test(&mut t, SelfTestKind::Long);
        assert_eq!(
            (r.outcome, r.first_error_lba),
            (LoggedOutcome::Passed, None)
        );
        let c = ata(&mut t);
        assert_eq!(
            (c.reallocated, c.pending, c.offline_uncorrectable),
            (Some(3), Some(0), Some(0))
        );
    }

    #[test]
    fn self_test_durations_come_from_the_model() {
        let mut t = open("sim:hdd");
        let src = t.smart_source().unwrap();
        let s = src.start_self_test(SelfTestKind::Long).unwrap();
        // 2 TB at the zones' media rates (205 MB/s outer to 98 MB/s inner).
        assert_eq!(s.polling_minutes, Some(LONG_HDD_MINUTES));
        src.pause(Duration::from_secs(60 * 100), &|| false);
        match src.poll_self_test().unwrap() {
            SelfTestPoll::Running { done_percent } => {
                assert_eq!(done_percent, Some(50), "ATA: 10% steps, 100 of 198 min")
            }
            p => panic!("{p:?}"),
        }
        src.abort_self_test().unwrap();
        match src.poll_self_test().unwrap() {
            SelfTestPoll::Finished(r) => {
                assert_eq!(
                    (r.outcome, r.status.as_str()),
                    (LoggedOutcome::Aborted, "Aborted by host")
                )
            }
            p => panic!("{p:?}"),
        }
        // A clean long test passes after exactly its duration, polled each minute.
        let r = self_test(&mut t, SelfTestKind::Long);
        assert_eq!(r.outcome, LoggedOutcome::Passed);
        let polls = u64::from(LONG_HDD_MINUTES);
        assert_eq!(
            t.virtual_clock().now_ns(),
            100 * 60_000_000_000 + polls * 60_000_000_000
        );
        for (spec, short, long, conveyance) in [
            ("sim:hdd", 1, LONG_HDD_MINUTES, Some(2)),
            ("sim:hdd5400", 2, LONG_HDD5400_MINUTES, Some(5)),
            ("sim:smr", 2, 978, Some(5)),
            ("sim:ssd", 2, 16, None),
            ("sim:nvme", 2, 6, None),
        ] {
            let mut t = open(spec);
            let src = t.smart_source().unwrap();
            let mut polling = |k| {
                let s = src.start_self_test(k).map(|s| s.polling_minutes.unwrap());
                src.abort_self_test().unwrap();
                s.ok()
            };
            assert_eq!(polling(SelfTestKind::Short), Some(short), "{spec}");
            assert_eq!(polling(SelfTestKind::Long), Some(long), "{spec}");
            assert_eq!(polling(SelfTestKind::Conveyance), conveyance, "{spec}");
        }
    }

    /// The long self-test's polling minutes the model gives (docs/sim.md): the
    /// whole surface streamed zone by zone, 2000398934016 bytes in 198 minutes
    /// (169 MB/s on average between 205 and 98 MB/s; the real ST2000DM001 says 212
    /// to 231), and hdd5400's 4000787030016 bytes in 489 (136 MB/s, 175 to 80).
    const LONG_HDD_MINUTES: u32 = 198;
    /// hdd5400's.
    const LONG_HDD5400_MINUTES: u32 = 489;

    #[test]
    fn conveyance_is_for_ata_hard_disks_only() {
        for (spec, offered) in [
            ("sim:hdd", true),
            ("sim:hdd5400", true),
            ("sim:ssd", false),
            ("sim:nvme", false),
        ] {
            let mut t = open(spec);
            let src = t.smart_source().unwrap();
            assert_eq!(
                src.supports(SelfTestKind::Conveyance).unwrap(),
                offered,
                "{spec}"
            );
            let r = src.start_self_test(SelfTestKind::Conveyance);
            assert_eq!(r.is_ok(), offered, "{spec}");
            if !offered {
                assert_eq!(
                    r.unwrap_err().to_string(),
                    format!(
                        "{spec}: cannot start a conveyance self-test: the drive does not offer it (conveyance: ATA hard disks only)"
                    )
                );
            }
        }
        let mut t = open("sim:hdd");
        assert_eq!(
            self_test(&mut t, SelfTestKind::Conveyance).outcome,
            LoggedOutcome::Passed
        );
        assert_eq!(t.virtual_clock().now_ns(), 2 * 60_000_000_000);
    }

    #[test]
    fn an_interrupted_self_test_is_aborted_on_the_drive() {
        let mut t = open("sim:hdd");
        let polls = std::cell::Cell::new(0);
        let mut seen = Vec::new();
        let src = t.smart_source().unwrap();
        let end = run_self_test(
            src,
            SelfTestKind::Long,
            Duration::from_secs(600),
            &|| polls.get() >= 3,
            &mut |p| {
                polls.set(polls.get() + 1);
                seen.push((
                    p.done_percent,
                    p.elapsed.as_secs(),
                    p.eta.map(|e| e.as_secs()),
                ));
            },
        )
        .unwrap();
        assert_eq!(end, SelfTestEnd::Interrupted);
        assert_eq!(seen.len(), 3);
        assert_eq!(
            seen[0],
            (Some(0), 0, Some(u64::from(LONG_HDD_MINUTES) * 60))
        );
        assert_eq!(seen[2].1, 1200);
        assert_eq!(
            health(&mut t).last_self_test.unwrap().outcome,
            LoggedOutcome::Aborted
        );
    }

    #[test]
    fn smart_failing_fails_the_judgement() {
        for spec in ["sim:hdd?smart=failing", "sim:nvme?smart=failing"] {
            let mut t = open(spec);
            let h = health(&mut t);
            assert_eq!(h.passed, Some(false));
            let f = findings(&h, None, &RuleOptions::default());
            assert!(!passes(&f), "{spec}");
            assert_eq!(f[0].rule, "smart-failing");
        }
        let mut t = open("sim:nvme?smart=failing");
        let d = t.info().simulated.clone().unwrap();
        assert!(d.ends_with(", seed 1, SMART failing"), "{d}");
        let f = findings(&health(&mut t), None, &RuleOptions::default());
        assert!(
            f.iter()
                .any(|f| f.reason
                    == "NVMe critical warning bit 2: NVM subsystem reliability degraded")
        );
    }

    #[test]
    fn crc_errors_rise_one_per_thousand_commands_up_to_n() {
        let mut t = open("sim:hdd?crc=3");
        let before = health(&mut t);
        let mut buf = AlignedBuf::new(4096);
        for i in 0..2500u64 {
            t.read_at(buf.for_read(..), i * 4096).unwrap();
        }
        let mid = health(&mut t);
        assert_eq!(mid.ata.as_ref().unwrap().udma_crc_errors, Some(2));
        for i in 0..5000u64 {
            t.read_at(buf.for_read(..), i * 4096).unwrap();
        }
        let after = health(&mut t);
        assert_eq!(after.ata.as_ref().unwrap().udma_crc_errors, Some(3));
        let f = findings(&before, Some(&after), &new_drive());
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].rule, "interface-crc");
        assert!(passes(&f), "a cable fault, not the drive's");
        assert!(SimTarget::open("sim:nvme?crc=1").is_err());
    }

    #[test]
    fn a_clean_drive_passes_the_new_drive_rules() {
        for spec in ["sim:hdd", "sim:hdd5400", "sim:ssd", "sim:nvme"] {
            let mut t = open(spec);
            let before = health(&mut t);
            let mut buf = AlignedBuf::new(1 << 20);
            for i in 0..64u64 {
                t.read_at(buf.for_read(..), i << 20).unwrap();
                t.write_at(buf.for_write(..), i << 20).unwrap();
            }
            let r = self_test(&mut t, SelfTestKind::Short);
            assert_eq!(r.outcome, LoggedOutcome::Passed, "{spec}");
            let after = health(&mut t);
            let f = findings(&before, Some(&after), &new_drive());
            assert!(f.is_empty(), "{spec}: {f:?}");
            assert_eq!(after.power_on_hours, Some(0));
            assert_eq!(after.serial, t.info().ident);
        }
    }

    #[test]
    fn power_on_hours_follow_the_virtual_clock() {
        let mut t = open("sim:nvme");
        t.virtual_clock().advance(3 * HOUR_NS + 1);
        assert_eq!(health(&mut t).power_on_hours, Some(3));
    }
}
