//! Unit tests of the executor on simulated drives: exact on the virtual clock.

use super::*;
use crate::device::sim::SimTarget;
use crate::results::test_kind::PhaseId;
use crate::test_plans::{Line, Op, Options, Phase, PlanStep};
use std::sync::atomic::Ordering;

/// An observer that records what it is told, as short strings.
#[derive(Default)]
struct Log(Vec<String>);

impl Observer for Log {
    fn line_started(&mut self, _: TestKind, index: usize, total: usize, label: &str) {
        self.0.push(format!("line {index}/{total} {label}"));
    }
    fn phase_done(&mut self, _: &DeviceInfo, t: &TestResult) -> io::Result<()> {
        let last = t.phases.last().expect("a phase");
        self.0.push(format!("phase {:?}", last.id));
        Ok(())
    }
    fn failed(&mut self, _: &str, e: &ProbeError) -> io::Result<()> {
        self.0.push(format!("failed {e}"));
        Ok(())
    }
}

/// Run `f` with a context on the simulated drive `spec`; the virtual time it
/// took and the sink's log.
fn with_sim<R>(
    spec: &str,
    stop: bool,
    f: impl FnOnce(&mut Context<'_>) -> R,
) -> (R, u64, Vec<String>) {
    let mut t = SimTarget::open(spec).unwrap();
    let mut engine = SyncEngine::new(1 << 20);
    let stop = AtomicBool::new(stop);
    let mut log = Log::default();
    let t0 = t.clock().now_ns();
    let r = {
        let mut cx = Context {
            target: &mut t,
            engine: &mut engine,
            stop: &stop,
            sink: &mut log,
            io_timeout: None,
            watch: None,
            checkpoint: None,
            resume: None,
            known_good: &[],
        };
        f(&mut cx)
    };
    let took = t.clock().now_ns() - t0;
    stop.store(false, Ordering::Relaxed);
    (r, took, log.0)
}

fn reads(id: PhaseId, from_sector: u64, n: u64) -> Phase {
    Phase {
        id,
        setup: Vec::new(),
        ops: (0..n)
            .map(|s| Op::read_sectors(from_sector + s * 1000, 1, 512))
            .collect(),
    }
}

fn sync(phase: Phase, settle: Duration) -> PlanStep {
    PlanStep::Sync {
        phase,
        settle,
        what: "reads".into(),
        flush_after: false,
    }
}

#[test]
fn the_executor_adds_exactly_the_pauses_to_the_measured_time() {
    let plan = Plan {
        test: TestKind::SeekTransfer,
        lines: vec![
            Line {
                label: "a".into(),
                steps: vec![
                    PlanStep::Quiesce,
                    PlanStep::Pause(Duration::from_millis(250)),
                    sync(reads(PhaseId::FullStroke, 0, 20), Duration::ZERO),
                ],
            },
            Line {
                label: "b".into(),
                steps: vec![sync(
                    reads(PhaseId::HalfStroke, 5000, 30),
                    Duration::from_secs(1),
                )],
            },
        ],
    };
    let (run, took, log) = with_sim("sim:hdd", false, |cx| {
        execute(&plan, Duration::from_secs(1), cx).unwrap()
    });
    let r = run.result;
    assert_eq!(r.outcome, Outcome::Complete);
    assert_eq!(r.engine, Engine::Sync);
    assert_eq!(r.settle_s, 1.0);
    assert_eq!(r.phases.len(), 2);
    for p in &r.phases {
        assert!(p.complete());
        assert_eq!(p.latencies_ns.iter().sum::<u64>(), p.elapsed_ns);
    }
    let measured: u64 = r.phases.iter().map(|p| p.elapsed_ns).sum();
    assert_eq!(took, measured + 250_000_000 + 1_000_000_000);
    assert_eq!(
        log,
        [
            "line 0/2 a",
            "phase FullStroke",
            "line 1/2 b",
            "phase HalfStroke"
        ]
    );
    assert_eq!(run.bypass_bytes, 0);
}

#[test]
fn ctrl_c_during_a_pause_ends_the_test_with_nothing_measured() {
    let opts = Options {
        settle: Duration::from_secs(2),
        ..Options::default()
    };
    let (run, took, log) = with_sim("sim:hdd", true, |cx| {
        run_test(TestKind::RandomReads, &opts, cx).unwrap()
    });
    assert_eq!(run.result.outcome, Outcome::Interrupted);
    assert!(run.result.phases.is_empty());
    assert_eq!(took, 0);
    assert_eq!(log, ["line 0/5 512 bytes"]);
}

#[test]
fn a_failed_read_names_the_phase_and_offset_and_stops_the_test() {
    // Sector 0 is unreadable: the first line of -c starts there.
    let (run, _, log) = with_sim("sim:hdd?size=1G&bad=0-8", false, |cx| {
        run_test(TestKind::CommandOverhead, &Options::default(), cx).unwrap()
    });
    let Outcome::Failed(msg) = &run.result.outcome else {
        panic!("{:?}", run.result.outcome)
    };
    assert!(
        msg.contains("Overhead 10MB block") && msg.contains("offset 0"),
        "{msg}"
    );
    assert_eq!(log.len(), 2, "{log:?}");
    assert!(log[1].starts_with("failed "), "{log:?}");
    assert_eq!(run.result.phases.len(), 1);
    assert!(!run.result.phases[0].complete());
}

#[test]
fn a_device_too_small_is_reported_and_the_test_skipped() {
    let (run, took, log) = with_sim("sim:hdd?size=2K", false, |cx| {
        run_test(TestKind::BlockSweep, &Options::default(), cx).unwrap()
    });
    assert!(matches!(run.result.outcome, Outcome::Skipped(_)));
    assert_eq!(run.result.engine, Engine::Sync);
    assert_eq!(took, 0);
    assert!(
        log[0].contains("smaller than the smallest request"),
        "{log:?}"
    );
}

#[test]
fn queued_steps_report_their_engine_and_the_bytes_they_moved() {
    let opts = Options {
        duration: Duration::from_millis(200),
        seed: 9,
        ..Options::default()
    };
    let (run, took, _) = with_sim("sim:ssd", false, |cx| {
        run_test(TestKind::RandomReads, &opts, cx).unwrap()
    });
    let r = &run.result;
    assert_eq!(r.engine, Engine::Queued(QueuedEngine::Virtual));
    let bytes: u64 = r.phases.iter().map(|p| p.bytes_done()).sum();
    assert!(bytes > 0);
    assert_eq!(run.bypass_bytes, bytes);
    for (i, p) in r.phases.iter().enumerate() {
        assert_eq!(p.seed, Some(crate::test_plans::iops::stream_seed(9, i)));
        assert_eq!(p.histogram.as_ref().unwrap().count, p.ops_planned);
    }
    // Each size ran at least its duration, and the sizes follow each other.
    let elapsed: u64 = r.phases.iter().map(|p| p.elapsed_ns).sum();
    assert!(elapsed >= r.phases.len() as u64 * 200_000_000);
    assert_eq!(took, elapsed);
}

#[test]
fn the_block_sweep_with_writes_runs_read_write_and_queued_halves_per_size() {
    let opts = Options {
        write: true,
        sweep_duration: Duration::from_millis(20),
        ..Options::default()
    };
    let (run, _, log) = with_sim("sim:ssd?size=64M", false, |cx| {
        run_test(TestKind::BlockSweep, &opts, cx).unwrap()
    });
    let r = &run.result;
    assert_eq!(r.outcome, Outcome::Complete);
    assert_eq!(r.engine, Engine::SyncAndQueued(QueuedEngine::Virtual));
    assert_eq!(String::from(r.engine), "sync+virtual");
    let sizes =
        crate::test_plans::sweep::sizes(64 << 20, crate::results::settings::SectorSize::B512).len();
    assert_eq!(r.phases.len(), 3 * sizes);
    for chunk in r.phases.chunks(3) {
        let ids: Vec<_> = chunk.iter().map(|p| p.id).collect();
        assert_eq!(
            ids,
            [
                PhaseId::SweepSync,
                PhaseId::SweepWrite,
                PhaseId::SweepQueued
            ]
        );
        assert_eq!(chunk[0].op_bytes, chunk[2].op_bytes);
    }
    assert_eq!(log.iter().filter(|l| l.starts_with("line")).count(), sizes);
}

#[test]
fn the_seek_profile_keeps_its_samples_seed_and_analysis() {
    let opts = Options {
        seek_samples: 200,
        seed: 5,
        ..Options::default()
    };
    let (run, took, log) = with_sim("sim:hdd", false, |cx| {
        run_test(TestKind::SeekProfile, &opts, cx).unwrap()
    });
    let r = &run.result;
    let s = r.seek_samples().unwrap();
    assert_eq!(s.latencies_ns.len(), 200);
    assert_eq!(s.distances_sectors.len(), 200);
    assert_eq!(s.rotation_latencies_ns.len(), 500);
    assert_eq!(s.tracks.latencies_ns.len(), 288);
    assert_eq!(s.full_stroke.latencies_ns.len(), 200);
    assert_eq!(s.third.latencies_ns.len(), 200);
    assert!(s.adjacent.latencies_ns.len() > 1400);
    assert_eq!(s.seed, Some(5));
    assert!(r.seek_analysis().is_some());
    // Only the timed reads are counted; their untimed partners take the rest.
    let timed: u64 = s.latencies_ns.iter().chain(&s.rotation_latencies_ns).sum();
    assert!(timed < took);
    assert_eq!(
        log,
        [
            "line 0/5 random distances",
            "line 1/5 fixed distance (rotation)",
            "line 2/5 track capacity",
            "line 3/5 full stroke",
            "line 4/5 a third of the stroke, and one to 64 tracks"
        ]
    );
}

/// The seek profile's default run takes no longer than the one before its
/// targeted pairs did: 2000 pairs at random distances and 1000 at the rotation's.
#[test]
fn the_seek_profile_takes_no_longer_than_its_two_thousand_and_one_thousand_pairs() {
    for spec in ["sim:hdd", "sim:hdd5400?seed=4"] {
        let opts = Options {
            seed: 9,
            ..Options::default()
        };
        let (_, took, _) = with_sim(spec, false, |cx| {
            run_test(TestKind::SeekProfile, &opts, cx).unwrap()
        });
        let (_, before, _) = with_sim(spec, false, |cx| {
            let size = cx.target.info().media_size_bytes;
            let p = crate::test_plans::seek_profile::plan(
                size,
                crate::results::settings::SectorSize::B512,
                2000,
                9,
            )
            .unwrap();
            let q = crate::test_plans::seek_profile::plan(
                size,
                crate::results::settings::SectorSize::B512,
                0,
                10,
            )
            .unwrap();
            let ops: Vec<_> = p
                .profile
                .iter()
                .chain(&p.rotation)
                .chain(&q.rotation)
                .map(|x| (x.from, x.to))
                .collect();
            assert_eq!(ops.len(), 3000);
            crate::engine::sync::run_pairs(cx.engine, cx.target, &ops, cx.stop)
        });
        eprintln!("{spec}: {took} ns, before {before} ns");
        assert!(took <= before, "{spec}: {took} ns, before {before} ns");
    }
}

#[test]
fn the_scan_reports_its_bytes_and_progress() {
    let opts = Options {
        block_size: crate::results::settings::BlockSize::MIB,
        ..Options::default()
    };
    let (run, _, log) = with_sim("sim:ssd?size=8M", false, |cx| {
        run_test(TestKind::Scan, &opts, cx).unwrap()
    });
    let scan = run.result.scan().unwrap();
    assert_eq!(scan.bytes_read, 8 << 20);
    assert_eq!(run.bypass_bytes, 8 << 20);
    assert_eq!(log.first().map(String::as_str), Some("line 0/1 reading"));
    assert_eq!(log.last().map(String::as_str), Some("line 100/100 reading"));
}

/// The slow blocks read again alone to place them are seekprobe's own reads:
/// counted with the pass's, so that the kernel's count of the device's I/O is not
/// taken for another program's (a verify on a slow QEMU disk was warned of 9 MiB
/// of "other I/O": its slow block and the four on either side, read again).
#[test]
fn the_blocks_a_verify_does_again_alone_count_as_its_own() {
    let opts = Options {
        write: true,
        ..Options::default()
    };
    // Block 8 of 16 is 120 ms slower to write and to read; the pass is 4 deep.
    let (run, _, _) = with_sim("sim:ssd?size=16M&slow=16384-18432:120", false, |cx| {
        run_test(TestKind::Verify, &opts, cx).unwrap()
    });
    let v = run.result.verify().unwrap();
    let (write, read) = (&v.passes[0].write, v.passes[0].read.as_ref().unwrap());
    for h in [write, read] {
        assert_eq!(h.slow.len(), 1, "{:?}", h.slow);
        // Blocks 4-12 done again, then block 8 once more.
        assert_eq!(h.redone_bytes, 10 << 20);
    }
    assert_eq!(run.bypass_bytes, 2 * ((16 << 20) + (10 << 20)));
}

/// --smr-check on sim:smr: the collapse is found and the writes stop there; the
/// virtual time is exactly the probes' and the writes' latencies plus the idle
/// period and the probes' spacing, which no latency includes.
#[test]
fn smr_check_times_every_completion_and_never_counts_the_waits() {
    let opts = Options {
        seed: 1,
        write: true,
        ..Options::default()
    };
    let (r, elapsed, log) = with_sim("sim:smr", false, |cx| {
        run_test(TestKind::SmrCheck, &opts, cx).unwrap()
    });
    let res = &r.result;
    assert_eq!(res.outcome, Outcome::Complete);
    let s = res.smr_samples().unwrap();
    let a = res.smr().unwrap();
    assert_eq!(
        a.verdict,
        crate::results::smr::SmrConclusion::HiddenSmr,
        "{}",
        a.text
    );
    assert_eq!((s.baseline_ns.len(), s.post_idle_ns.len()), (20, 20));
    let last = s.writes.last().unwrap().end_ns;
    // Consecutive completions: each write's latency is the time since the last one.
    assert!(
        s.writes
            .windows(2)
            .all(|w| w[1].end_ns - w[0].end_ns == w[1].latency_ns)
    );
    assert_eq!(s.writes[0].end_ns, s.writes[0].latency_ns);
    let probes: u64 = s.baseline_ns.iter().chain(&s.post_idle_ns).sum();
    assert_eq!(elapsed, probes + last + 5_000_000_000 + 20 * 2_000_000_000);
    assert_eq!(
        a.bytes_written,
        s.writes.iter().map(|w| u64::from(w.bytes)).sum::<u64>()
    );
    assert!(a.bytes_written < 21 << 30, "stopped at the collapse");
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("line ") && l.contains("/3 "))
            .count(),
        3,
        "{log:?}"
    );
}

/// On flash nothing is read, written or waited for: not applicable.
#[test]
fn smr_check_on_flash_does_nothing() {
    let opts = Options {
        write: true,
        ..Options::default()
    };
    let (r, elapsed, _) = with_sim("sim:ssd", false, |cx| {
        run_test(TestKind::SmrCheck, &opts, cx).unwrap()
    });
    assert_eq!(elapsed, 0);
    assert_eq!(r.result.outcome, Outcome::Complete);
    assert!(r.result.smr_samples().is_none());
    let a = r.result.smr().unwrap();
    assert_eq!(a.verdict, crate::results::smr::SmrConclusion::NotApplicable);
    assert_eq!(a.bytes_written, 0);
}

/// --verify's progress: one bar over every pass, 100 steps per half, each step
/// told once, the halves in order.
#[test]
fn the_write_and_verify_pass_tells_each_step_of_its_progress_once() {
    let opts = Options {
        write: true,
        verify_passes: crate::results::settings::Passes::fixed::<2>(),
        ..Options::default()
    };
    let (run, _, log) = with_sim("sim:ssd?size=64M", false, |cx| {
        run_test(TestKind::Verify, &opts, cx).unwrap()
    });
    assert_eq!(run.result.outcome, Outcome::Complete);
    let bar: Vec<(usize, &str)> = log[1..]
        .iter()
        .map(|l| {
            let (at, label) = l["line ".len()..].split_once("/400 ").expect(l);
            (at.parse().unwrap(), label)
        })
        .collect();
    assert!(bar.windows(2).all(|w| w[0] != w[1]), "{bar:?}");
    assert!(bar.windows(2).all(|w| w[0].0 <= w[1].0), "{bar:?}");
    let mut halves: Vec<&str> = bar.iter().map(|b| b.1).collect();
    halves.dedup();
    assert_eq!(
        halves,
        [
            "pass 1 of 2: writing",
            "pass 1 of 2: reading and checking",
            "pass 2 of 2: writing",
            "pass 2 of 2: reading and checking"
        ]
    );
    assert!(bar.contains(&(100, "pass 1 of 2: writing")), "{bar:?}");
    assert_eq!(
        bar.last(),
        Some(&(400, "pass 2 of 2: reading and checking"))
    );
}

#[test]
fn a_resumed_verify_reports_only_the_bytes_it_moved_itself() {
    // Two passes over 8 MiB: the checkpoint saved as the second pass starts.
    let opts = Options {
        verify_passes: crate::results::settings::Passes::new(2).unwrap(),
        ..Options::default()
    };
    let mut t = SimTarget::open("sim:ssd?size=8M").unwrap();
    let mut engine = SyncEngine::new(1 << 20);
    let stop = AtomicBool::new(false);
    let mut saved = Vec::new();
    let mut keep = |c: &crate::stamps::checkpoint::Checkpoint| saved.push(c.clone());
    let mut log = Log::default();
    let mut cx = Context {
        target: &mut t,
        engine: &mut engine,
        stop: &stop,
        sink: &mut log,
        io_timeout: None,
        watch: None,
        checkpoint: Some(&mut keep),
        resume: None,
        known_good: &[],
    };
    let whole = run_test(TestKind::Verify, &opts, &mut cx).unwrap();
    assert_eq!(whole.bypass_bytes, 4 * (8 << 20));
    let second = (saved.into_iter())
        .find(|c| c.pass == 1)
        .expect("a checkpoint of pass 2");
    // Resumed there: the first pass is kept, not moved again.
    let mut cx = Context {
        target: &mut t,
        engine: &mut engine,
        stop: &stop,
        sink: &mut log,
        io_timeout: None,
        watch: None,
        checkpoint: None,
        resume: Some(second),
        known_good: &[],
    };
    let resumed = run_test(TestKind::Verify, &opts, &mut cx).unwrap();
    assert_eq!(resumed.result.verify().unwrap().passes.len(), 2);
    assert_eq!(resumed.bypass_bytes, 2 * (8 << 20));
}
