//! Findings and the one judge (docs/verdict.md). Each kind of test's results
//! yield findings through one pure function ([`test_findings`] lists them), the
//! batch comparison adds its own ([`batch`]), and [`judge`] turns a drive's
//! findings into its verdict: FAIL when any finding fails it, PASS otherwise. No
//! other code decides whether a drive failed; every output shows this verdict.
//!
//! Adding a kind of finding: its [`Code`] in `results/verdict.rs` (and its line
//! in docs/verdict.md), and the function that makes it, called from
//! [`test_findings`] (a test's results) or [`disk_findings`] (the disk's).

pub mod batch;
mod checks;
pub mod earlier;
mod flush;
pub mod path;
mod sectors;
mod smart;

use crate::results::{Code, Finding, Severity, State, Verdict};
pub use checks::test_id;
pub use sectors::span;
pub use smart::rules as smart_rule_findings;

use crate::results::{DiskResult, Run, TestResult};

/// The findings of one test's results: how it ended, then what it found.
pub fn test_findings(t: &TestResult) -> Vec<Finding> {
    let id = t.test.id();
    let mut f = checks::outcome(t);
    f.extend(t.scan().into_iter().flat_map(|s| sectors::scan(id, s)));
    f.extend(t.verify().into_iter().flat_map(|v| sectors::verify(id, v)));
    f.extend(
        t.capacity()
            .into_iter()
            .flat_map(|c| checks::capacity(id, c)),
    );
    f.extend(t.smr().into_iter().flat_map(|a| checks::smr(id, a)));
    f
}

/// Every finding of a drive's own results (without the batch comparison): the
/// drive could not be opened, each test's, SMART's, the SMR signs, the burn-in's
/// steps.
pub fn disk_findings(d: &DiskResult) -> Vec<Finding> {
    let mut f = checks::opened(d.error.as_ref());
    f.extend(d.tests.iter().flat_map(test_findings));
    f.extend(d.smart.iter().flat_map(smart::smart));
    f.extend(checks::smr_signs(&d.smr_signs));
    f.extend(checks::burn_in(&d.burn_in));
    f.extend(flush::findings(d));
    f.extend(d.path_check.iter().flat_map(|p| p.findings.iter().cloned()));
    f
}

/// THE judge: a drive fails when any of its findings fails it. The findings are
/// kept, failing ones first, then warnings, then notes (each in the order found).
/// Its state: FAIL when a failing finding is of the drive; NOT TESTED when
/// seekprobe or the operator left it untested ([`Code::NotTested`]); INCOMPLETE
/// when every failing finding only says a test did not finish ([`unfinished`]);
/// PASS with warnings when a warning of its own is listed; PASS otherwise.
pub fn judge(mut findings: Vec<Finding>) -> Verdict {
    findings.sort_by_key(|f| f.severity);
    let failing = || findings.iter().filter(|f| f.severity == Severity::Fail);
    let state = if failing().any(|f| !unfinished(f.code) && f.code != Code::NotTested) {
        State::Fail
    } else if failing().any(|f| f.code == Code::NotTested) {
        State::NotTested
    } else if failing().next().is_some() {
        State::Incomplete
    } else if findings.iter().any(|f| f.severity == Severity::Warning) {
        State::PassWithWarnings
    } else {
        State::Pass
    };
    Verdict { state, findings }
}

/// Whether a failing finding only says that a test did not finish, which leaves
/// the drive INCOMPLETE, not FAILed: interrupted (Ctrl-C, a signal, a burn-in
/// step), or not run (the drive too small for it; a test skipped after an
/// earlier one failed is FAIL by that earlier finding). A drive that could not be
/// opened, reported itself read-only or stopped answering has findings of its
/// own (FAIL); one left untested by seekprobe or the operator is NOT TESTED.
pub fn unfinished(code: Code) -> bool {
    matches!(
        code,
        Code::TestInterrupted | Code::TestNotRun | Code::BurnInIncomplete
    )
}

/// Why a test makes its drive fail, if it does: the reason of its first failing
/// finding (for a line that says how a step ended, as the burn-in's does).
pub fn test_failure(t: &TestResult) -> Option<String> {
    test_findings(t)
        .into_iter()
        .find(|f| f.severity == Severity::Fail)
        .map(|f| f.reason)
}

/// A drive's verdict: the one saved with it (--qualify, --burn-in), else
/// [`unqualified`]'s. Reporters and exit statuses read verdicts here.
pub fn of(d: &DiskResult) -> Verdict {
    d.verdict.clone().unwrap_or_else(|| unqualified(d))
}

/// A drive's verdict as a report of its run shows it: the one saved with it;
/// else, in a burn-in (which saves every drive's verdict at its end, and judges
/// every finding of the drive, SMART's too), the judge of all its own findings
/// with one that says the burn-in is not complete: still running (no end
/// recorded: the live page), or stopped before its end (the run saved by
/// Ctrl-C, which `--resume` completes): FAIL by a finding of its own, else
/// INCOMPLETE, never a PASS; else [`unqualified`]'s.
pub fn in_run(run: &Run, d: &DiskResult) -> Verdict {
    if let Some(v) = &d.verdict {
        return v.clone();
    }
    if run.burn_in.is_none() {
        return unqualified(d);
    }
    not_complete(judge(disk_findings(d)), run.record.ended_unix_s.is_some())
}

/// `v`, judged again with the finding that the drive's burn-in is not complete,
/// for a drive of a burn-in saved without its verdict: still running (`ended`
/// false), or stopped before its end (a saved run given to `compare --qualify`,
/// the report). INCOMPLETE unless a finding of its own fails it.
pub fn not_complete(v: Verdict, ended: bool) -> Verdict {
    let mut f = v.findings;
    let why = match ended {
        false => "burn-in: still running; the drive is judged at its end",
        true => {
            "burn-in: stopped before its end, so the drive is not judged (--resume runs the rest)"
        }
    };
    if !f.iter().any(|f| f.code == Code::BurnInIncomplete) {
        f.push(Finding::new(
            Severity::Fail,
            "burn_in",
            Code::BurnInIncomplete,
            why.into(),
        ));
    }
    judge(f)
}

/// The verdict of a drive in a run without --qualify or --burn-in (its exit
/// status 1, `seekprobe_disk_failed`): the judge of its own findings but those of
/// SMART's health rules and of the SMR check, which judge a drive only when it is
/// qualified (SMART that could not be read still fails it), and the flush
/// honesty's (a warning of the run instead).
pub fn unqualified(d: &DiskResult) -> Verdict {
    let qualifying_only = |c: Code| {
        matches!(
            c,
            Code::Smart
                | Code::SelfTestFailed
                | Code::HiddenSmr
                | Code::SmrCannotTell
                | Code::SmrSign
                | Code::FlushNotHonoured
        )
    };
    judge(
        disk_findings(d)
            .into_iter()
            .filter(|f| !qualifying_only(f.code))
            .collect(),
    )
}

/// How the batch is judged: against whom, and how far a figure may stray.
#[derive(Debug, Clone, Copy)]
pub struct Judging<'a> {
    /// Compare the timings (--qualify); without it only the drives' own findings
    /// count (a burn-in without --qualify).
    pub timings: bool,
    /// The known-good run's figures (--baseline).
    pub baseline: Option<&'a crate::compare::Comparison>,
    /// The largest deviation a figure may have.
    pub max_deviation: crate::results::settings::Deviation,
}

/// Every drive's verdict, in order: its own findings ("nothing to judge" when no
/// test ran) and, when timings are judged, the batch comparison's.
pub fn qualify(disks: &[&DiskResult], how: &Judging<'_>) -> Vec<Verdict> {
    qualify_with(disks, how, &earlier::History::default())
}

/// [`qualify`] with what the history knows (docs/history.md): each drive's
/// acknowledged findings are notes, a model too few in the batch is judged
/// against its earlier drives, and a drive worse than at its own first
/// qualification gets a drift warning.
pub fn qualify_with(
    disks: &[&DiskResult],
    how: &Judging<'_>,
    history: &earlier::History,
) -> Vec<Verdict> {
    let acks = |i: usize| history.drive(i).map_or(&[][..], |h| &h.acknowledged[..]);
    let rules = |i: usize| disks[i].smart.as_ref().map_or(&[][..], |s| &s.findings[..]);
    let own: Vec<Vec<Finding>> = disks
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let mut f = disk_findings(d);
            f.extend(checks::nothing_to_judge(d));
            earlier::acknowledge(f, acks(i), rules(i))
        })
        .collect();
    let mut extra = if how.timings {
        let ids: Vec<batch::BatchIdentity> = disks.iter().map(|d| batch::identity(d)).collect();
        let max = how.max_deviation.fraction();
        let mut e = batch::findings_with(disks, &ids, &own, how.baseline, max, history);
        for (i, d) in disks.iter().enumerate() {
            if let Some(q) = history
                .drive(i)
                .and_then(|h| h.first_qualification.as_ref())
            {
                e[i].extend(earlier::drift(&crate::compare::figures(d), q, max));
            }
            e[i] = earlier::acknowledge(std::mem::take(&mut e[i]), acks(i), rules(i));
        }
        e
    } else {
        vec![Vec::new(); disks.len()]
    };
    own.into_iter()
        .zip(extra.iter_mut())
        .map(|(mut f, e)| {
            f.append(e);
            judge(f)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::smart::SmartResult;
    use crate::results::test_kind::TestKind;
    use crate::results::{DiskFailure, Engine, Outcome};

    #[test]
    fn the_judge_fails_on_any_failing_finding_and_lists_failing_ones_first() {
        let f = |s, r: &str| Finding::new(s, "x", Code::Smart, r.into());
        let v = judge(vec![
            f(Severity::Note, "n"),
            f(Severity::Fail, "a"),
            f(Severity::Warning, "w"),
            f(Severity::Fail, "b"),
        ]);
        assert!(!v.passes());
        let order: Vec<&str> = v.findings.iter().map(|f| f.reason.as_str()).collect();
        assert_eq!(order, ["a", "b", "w", "n"]);
        assert_eq!(v.reasons(), ["a", "b"]);
        let v = judge(vec![f(Severity::Warning, "w")]);
        assert!(v.passes());
        assert!(judge(Vec::new()).passes());
    }

    #[test]
    fn the_judge_gives_one_of_four_states() {
        let f = |s, c| Finding::new(s, "x", c, "r".into());
        let state = |v: Vec<Finding>| judge(v).state;
        assert_eq!(state(vec![]), State::Pass);
        assert_eq!(
            state(vec![f(Severity::Note, Code::GroupTooSmall)]),
            State::Pass
        );
        let warned = vec![f(Severity::Warning, Code::SmrCannotTell)];
        assert_eq!(state(warned.clone()), State::PassWithWarnings);
        assert!(judge(warned).passes());
        // Interrupted, or a test the drive is too small for: run it again.
        for c in [
            Code::TestInterrupted,
            Code::TestNotRun,
            Code::BurnInIncomplete,
        ] {
            let v = judge(vec![
                f(Severity::Fail, c),
                f(Severity::Warning, Code::SmrSign),
            ]);
            assert_eq!((v.state, v.passes()), (State::Incomplete, false), "{c:?}");
        }
        // A finding of the drive decides: FAIL, whatever else did not finish.
        for c in [
            Code::NotProbed,
            Code::StoppedAnswering,
            Code::TurnedReadOnly,
            Code::RemovedFromSystem,
        ] {
            let v = judge(vec![
                f(Severity::Fail, Code::TestNotRun),
                f(Severity::Fail, c),
            ]);
            assert_eq!((v.state, v.passes()), (State::Fail, false), "{c:?}");
        }
    }

    #[test]
    fn what_seekprobe_or_the_operator_decided_is_not_tested_and_the_drive_s_own_failure_fails() {
        let f = |c| Finding::new(Severity::Fail, "x", c, "r".into());
        let state = |v: Vec<Finding>| judge(v).state;
        // Not tested: not a pass, not a FAIL.
        let v = judge(vec![f(Code::NotTested)]);
        assert_eq!((v.state, v.passes()), (State::NotTested, false));
        // Before INCOMPLETE (what to do first), after what the drive did.
        assert_eq!(
            state(vec![f(Code::TestInterrupted), f(Code::NotTested)]),
            State::NotTested
        );
        for c in [Code::NotProbed, Code::TurnedReadOnly, Code::TestFailed] {
            assert_eq!(state(vec![f(Code::NotTested), f(c)]), State::Fail, "{c:?}");
        }
        // How a drive that was not probed is judged: by who decided.
        let judged = |e: DiskFailure| {
            let mut d = DiskResult::new("d");
            d.error = Some(e);
            of(&d)
        };
        let held = "d: refusing to write: in use (mounted on /); unmount or release it first";
        let v = judged(DiskFailure::NotTested(held.into()));
        assert_eq!(v.state, State::NotTested);
        assert_eq!(v.findings[0].code, Code::NotTested);
        assert_eq!(v.findings[0].reason, format!("not tested: {held}"));
        let ro = "d: refusing to write: read-only: the kernel reports the block device read-only";
        let v = judged(DiskFailure::Refused(ro.into()));
        assert_eq!(
            (v.state, v.findings[0].code),
            (State::Fail, Code::NotProbed)
        );
        let v = judged(DiskFailure::Open("d: input/output error (errno 5)".into()));
        assert_eq!(v.state, State::Fail);
    }

    #[test]
    fn a_burn_in_still_running_is_incomplete_and_judged_on_smart_too() {
        let mut run = crate::results::Run {
            schema_version: crate::results::SCHEMA_VERSION,
            tool: "seekprobe".into(),
            tool_version: "0".into(),
            tests: vec![],
            verbose: false,
            settle_s: 0.0,
            disks: vec![],
            started_unix_s: None,
            burn_in: Some(crate::results::burnin::RunInfo {
                command: vec![],
                disks: vec![],
                smr_check: false,
            }),
            record: Default::default(),
        };
        let d = DiskResult::new("d");
        // Still running: no end recorded, no verdict saved yet.
        let v = in_run(&run, &d);
        assert_eq!(v.state, State::Incomplete);
        assert!(v.findings[0].reason.contains("still running"), "{v:?}");
        // Ended without its verdicts (Ctrl-C): not a PASS either.
        run.record.ended_unix_s = Some(1);
        let v = in_run(&run, &d);
        assert_eq!(v.state, State::Incomplete);
        assert!(v.findings[0].reason.contains("--resume"), "{v:?}");
        // A saved verdict is the one shown.
        let mut saved = d.clone();
        saved.verdict = Some(judge(vec![Finding::new(
            Severity::Fail,
            "scan",
            Code::UnreadableSectors,
            "r".into(),
        )]));
        assert_eq!(in_run(&run, &saved).state, State::Fail);
    }

    #[test]
    fn a_failed_discard_is_judged_a_hung_one_fails_the_drive() {
        use crate::results::burnin::{Status, Step, StepRecord};
        let disk = |status: Status, unanswered| {
            let mut d = DiskResult::new("d");
            d.burn_in.push(StepRecord {
                step: Step::Discard,
                status,
                duration_s: None,
                unanswered,
            });
            d
        };
        // Refused with an error: a warning, the drive still passes.
        let d = disk(Status::Failed("discard: Input/output error".into()), false);
        let v = unqualified(&d);
        assert!(v.passes());
        assert_eq!(
            (v.findings[0].severity, v.findings[0].code),
            (Severity::Warning, Code::DiscardRefused)
        );
        assert!(
            v.findings[0].reason.contains("advertises TRIM"),
            "{}",
            v.findings[0].reason
        );
        // Unanswered: the drive stopped answering and fails.
        let why = "discard: no answer for 1120 s at byte 0";
        let v = unqualified(&disk(Status::Failed(why.into()), true));
        assert!(!v.passes());
        assert_eq!(v.findings[0].code, Code::StoppedAnswering);
        assert!(
            v.findings[0].reason.contains(why),
            "{}",
            v.findings[0].reason
        );
        // Done, skipped (not offered): nothing.
        assert!(unqualified(&disk(Status::Done, false)).findings.is_empty());
        let skipped = Status::Skipped("the device offers no discard".into());
        assert!(unqualified(&disk(skipped, false)).findings.is_empty());
    }

    /// A 1 GiB write-verify run of no pass.
    fn verify_result() -> crate::results::verify::VerifyResult {
        crate::results::verify::VerifyResult {
            nonce: 1,
            start_bytes: 0,
            end_bytes: 1 << 30,
            block_bytes: 1 << 20,
            sector_bytes: 512,
            queue_depth: 4,
            passes_planned: 1,
            slow_ms: 50.0,
            engine: crate::results::QueuedEngine::Threads,
            passes: Vec::new(),
            stopped: None,
            unanswered: None,
            keeps_only: None,
            size_changed: None,
        }
    }

    #[test]
    fn a_drive_given_up_mid_test_is_one_finding_that_says_where() {
        let verify = |read_only, removed| crate::results::verify::VerifyResult {
            unanswered: Some(crate::results::verify::Unanswered {
                at_bytes: 314_572_800,
                after_ns: 2_100_000_000,
                reason: "3 sectors that read fine earlier fail now".into(),
                read_only,
                removed,
            }),
            ..verify_result()
        };
        for (read_only, removed, code, words) in [
            (false, false, Code::StoppedAnswering, "stopped answering"),
            (true, false, Code::TurnedReadOnly, "turned read-only"),
            (
                false,
                true,
                Code::RemovedFromSystem,
                "was removed from the system",
            ),
        ] {
            let mut t = TestResult::new(TestKind::Verify, 0.0, Engine::Sync);
            t.payload = crate::results::Payload::Verify(verify(read_only, removed));
            t.outcome = Outcome::Failed(format!("the drive {words} at byte 314572800"));
            let f = test_findings(&t);
            assert_eq!(f.len(), 1, "{f:?}");
            assert_eq!(f[0].code, code);
            assert_eq!(f[0].severity, Severity::Fail);
            assert_eq!(
                f[0].reason,
                format!(
                    "write and verify (--verify): the drive {words} at byte 314572800 after 2.1 s: 3 sectors that read fine earlier fail now"
                )
            );
        }
    }

    #[test]
    fn a_size_that_changed_under_the_pass_is_one_finding_with_from_and_to() {
        let mut t = TestResult::new(TestKind::Verify, 0.0, Engine::Sync);
        let mut r = verify_result();
        r.size_changed = Some(crate::results::verify::SizeChanged {
            from_bytes: 1 << 30,
            to_bytes: 1 << 29,
            pass: 0,
            half: crate::results::verify::HalfKind::Write,
            at_bytes: 537_919_488,
            after_ns: 4_200_000_000,
        });
        t.payload = crate::results::Payload::Verify(r);
        t.outcome = Outcome::Failed("the device's size changed".into());
        let f = test_findings(&t);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(
            (f[0].code, f[0].severity),
            (Code::SizeChanged, Severity::Fail)
        );
        assert_eq!(
            f[0].reason,
            "write and verify (--verify): the device's size changed during the pass: from 1073741824 to 536870912 bytes at byte 537919488 (pass 1, writing, after 4.2 s)"
        );
    }

    #[test]
    fn a_drive_is_failed_by_what_its_tests_and_opening_found() {
        let mut d = DiskResult::new("d");
        d.error = Some(DiskFailure::Open("d: no such file".into()));
        let v = of(&d);
        assert!(!v.passes());
        assert_eq!(v.findings[0].code, Code::NotProbed);
        assert!(v.findings[0].reason.contains("not probed: d: no such file"));
        let mut d = DiskResult::new("d");
        let mut t = TestResult::new(TestKind::SeekTransfer, 0.0, Engine::Sync);
        t.outcome = Outcome::Failed("d: Full stroke: I/O error at byte offset 512".into());
        d.tests.push(t);
        assert_eq!(
            test_failure(&d.tests[0]).unwrap(),
            "seek and transfer (-t): stopped by an error: d: Full stroke: I/O error at byte offset 512"
        );
        assert!(!of(&d).passes());
    }

    #[test]
    fn smart_and_smr_findings_fail_a_drive_only_when_it_is_qualified() {
        let mut d = DiskResult::new("d");
        d.tests
            .push(TestResult::new(TestKind::SeekTransfer, 0.0, Engine::Sync));
        d.smart = Some(SmartResult {
            findings: vec![Finding::smart(
                Severity::Fail,
                "pending",
                "pending sectors (ATA 197): 8".into(),
            )],
            ..SmartResult::default()
        });
        assert!(unqualified(&d).passes());
        let how = Judging {
            timings: false,
            baseline: None,
            max_deviation: crate::results::settings::Deviation::DEFAULT,
        };
        let v = &qualify(&[&d], &how)[0];
        assert!(!v.passes());
        assert_eq!(v.reasons(), ["SMART: pending sectors (ATA 197): 8"]);
        // SMART that could not be read fails it either way.
        d.smart.as_mut().unwrap().error = Some("smartctl: timed out".into());
        assert!(!unqualified(&d).passes());
    }
}
