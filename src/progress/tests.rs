//! The live view's unit tests: the log lines off a terminal, the ETAs, the rates
//! on the drive's clock, and a drive's terminal line and the batch's.
use super::*;

#[test]
fn timestamps_are_utc_rfc3339() {
    let at = |s| timestamp(SystemTime::UNIX_EPOCH + Duration::from_secs(s));
    assert_eq!(at(0), "1970-01-01T00:00:00Z");
    assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
    assert_eq!(at(1_796_139_123), "2026-12-01T15:32:03Z");
}

/// A writer the test reads back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);
impl Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_status_line_shows_the_latest_temperature_and_a_pause_for_heat() {
    let out = Shared::default();
    let board = Board::logging_to(Box::new(out.clone()), Duration::ZERO);
    let mut p = Progress::on(&board, "sim:a");
    p.opened(None, 1 << 30);
    let reading = Arc::new(Mutex::new(None));
    let r = reading.clone();
    p.temperature_from(Box::new(move || *r.lock().unwrap()));
    p.step_started("verify", "burn-in");
    p.line("verify", 0, 1, 4, "pass 1");
    *reading.lock().unwrap() = Some((41, false));
    p.line("verify", 0, 2, 4, "pass 1");
    *reading.lock().unwrap() = Some((56, true));
    p.line("verify", 0, 3, 4, "pass 1");
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let status: Vec<&str> = text.lines().filter(|l| l.contains("status:")).collect();
    assert_eq!(status.len(), 3, "{text}");
    // No reading yet: no temperature.
    assert!(!status[0].contains("°C"), "{text}");
    // Not a pass over the drive (per_pass 0): no time left.
    assert!(status[0].contains(" seekprobe: sim:a: status: verify 25% (pass 1), 0 failing"));
    assert!(
        status[1].ends_with(", 41 °C, 0 failing steps so far"),
        "{text}"
    );
    assert!(
        status[2].ends_with(", 56 °C (paused: too hot), 0 failing steps so far"),
        "{text}"
    );
}

#[test]
fn in_a_burn_in_the_line_shows_the_time_left_of_the_whole_burn_in_only_when_it_is_known() {
    let out = Shared::default();
    let board = Board::logging_to(Box::new(out.clone()), Duration::ZERO);
    let mut p = Progress::on(&board, "sim:a");
    p.opened(None, 1 << 30);
    let clock = crate::clock::VirtualClock::new();
    p.clock_from(clock.shared());
    let plan = [
        ("SMART before", Cost::Brief),
        ("write-verify", Cost::Unknown),
        ("long self-test", Cost::Unknown),
        ("SMART after", Cost::Brief),
    ];
    p.plan(plan.iter().map(|(n, c)| (n.to_string(), *c)).collect());
    // The write half in 100 s of the drive's clock, a tenth of the read half in
    // 10 s: 90 s left of it, but the self-test after it is not known: no
    // burn-in time left.
    p.step_started("write-verify", "burn-in");
    p.line("write-verify", 100, 0, 200, "pass 1");
    clock.advance(100_000_000_000);
    p.line("write-verify", 100, 100, 200, "pass 1");
    clock.advance(10_000_000_000);
    p.line("write-verify", 100, 110, 200, "pass 1");
    // The last long step: only brief ones after it.
    p.step_started("long self-test", "burn-in");
    p.line("long self-test", 100, 0, 100, "");
    clock.advance(30_000_000_000);
    p.line("long self-test", 100, 60, 100, "");
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let status: Vec<&str> = text.lines().filter(|l| l.contains("status:")).collect();
    assert_eq!(status.len(), 5, "{text}");
    // Before a tenth of a step, and in the write half: no time left at all.
    assert!(
        !status[0].contains("ETA") && !status[1].contains("ETA"),
        "{text}"
    );
    assert!(status[2].contains(", step ETA 1m 30s, 0 failing"), "{text}");
    assert!(!status[2].contains("burn-in ETA"), "{text}");
    assert!(
        status[4].contains(", step ETA 20s, burn-in ETA 20s,"),
        "{text}"
    );
    assert!(!text.contains("at least"), "{text}");
}

#[test]
fn a_simulated_drive_s_rate_and_time_left_are_on_its_clock() {
    let out = Shared::default();
    let board = Board::logging_to(Box::new(out.clone()), Duration::ZERO);
    let mut p = Progress::on(&board, "sim:a");
    // 100 MB a pass, in 100 steps.
    p.opened(None, 100_000_000);
    let clock = crate::clock::VirtualClock::new();
    p.clock_from(clock.shared());
    p.step_started("write-verify", "burn-in");
    p.line("write-verify", 100, 0, 200, "pass 1 of 1: writing");
    // A second of wall time ago at 0%, 2 s of the drive's time ago.
    p.doing.last = Some((Instant::now() - Duration::from_secs(1), 0.0, Some(0)));
    clock.advance(2_000_000_000);
    // 20 of the 200 steps: 20 MB, in 2 s of the drive's time.
    p.line("write-verify", 100, 20, 200, "pass 1 of 1: writing");
    assert_eq!(p.doing.rate, Some(10e6));
    // Writing says nothing of how long the reading will take.
    assert_eq!(p.step_left(), None);
    // The write half done at the same pace (10 s), the read half from then: a
    // tenth of it in 2 s of the drive's clock, 18 s left of it, whatever the
    // wall's.
    let reading = "pass 1 of 1: reading and checking";
    clock.advance(8_000_000_000);
    p.line("write-verify", 100, 100, 200, reading);
    clock.advance(2_000_000_000);
    p.line("write-verify", 100, 110, 200, reading);
    assert_eq!(p.step_left(), Some(18.0));
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("10%"), "{text}");
    assert!(text.contains(", 10.0 MB/s, 0 failing"), "{text}");
    assert!(
        text.contains("55% (pass 1 of 1: reading and checking)"),
        "{text}"
    );
    assert!(text.contains(", step ETA 18s,"), "{text}");
}

#[test]
fn a_drive_s_terminal_line_keeps_its_step_progress_and_failing_count() {
    let board = Board::off();
    board.batch(2);
    let mut p = Progress::on(&board, "/dev/sdb");
    let mut q = Progress::on(&board, "/dev/sdaa");
    p.opened(Some("Z1E22F0N"), 1 << 30);
    p.step_started("write-verify pass (--verify)", "burn-in");
    p.line(
        "write-verify pass (--verify)",
        100,
        50,
        200,
        "pass 1 of 1: writing",
    );
    let line = |p: &Progress, w| line::fit(p.parts(9, 28), w);
    let wide = line(&p, 200);
    assert!(
        wide.starts_with("/dev/sdb   (Z1E22F0N)  write-verify pass (--verify)  [=====>"),
        "{wide}"
    );
    assert!(
        wide.ends_with(" 25%  pass 1 of 1: writing  0 failing steps"),
        "{wide}"
    );
    let narrow = line(&p, 62);
    assert_eq!(
        narrow,
        "/dev/sdb   write-verify pass (--verify)   25%  0 failing steps"
    );
    // Between two steps: how the last ended, never an empty bar.
    p.step_ended(
        "burn-in",
        "write-verify pass (--verify): FAILED: 4 corrupt sectors",
        true,
    );
    let between = line(&p, 200);
    assert_eq!(
        between,
        "/dev/sdb   (Z1E22F0N)  write-verify pass (--verify): FAILED: 4 corrupt sectors  1 failing step"
    );
    p.finished(
        "FAIL: write-verify pass: 4 corrupt sectors",
        crate::results::State::Fail,
    );
    assert_eq!(line(&p, 41), "/dev/sdb  (Z1E22F0N)  FAIL: write-verify…");
    let batch = board.drives().line(200, |s| format!("{s}s"));
    assert_eq!(
        batch,
        "2 drives: 0 running, 1 finished, 1 waiting, 1 failing  (FAIL: /dev/sdb)"
    );
    // Stopped by Ctrl-C, or not tested: counted apart, never as failing.
    q.finished(
        "interrupted; INCOMPLETE: ...",
        crate::results::State::Incomplete,
    );
    let batch = board.drives().line(200, |s| format!("{s}s"));
    assert_eq!(
        batch,
        "2 drives: 0 running, 2 finished, 1 failing, 1 incomplete  (FAIL: /dev/sdb; INCOMPLETE: /dev/sdaa)"
    );
    p.finished("NOT TESTED: ...", crate::results::State::NotTested);
    let batch = board.drives().line(200, |s| format!("{s}s"));
    assert_eq!(
        batch,
        "2 drives: 0 running, 2 finished, 1 not tested, 1 incomplete  (NOT TESTED: /dev/sdb; INCOMPLETE: /dev/sdaa)"
    );
}

#[test]
fn off_a_terminal_each_step_and_the_status_are_lines_of_their_own() {
    let out = Shared::default();
    let board = Board::logging_to(Box::new(out.clone()), Duration::ZERO);
    let mut p = Progress::on(&board, "sim:a");
    p.opened(Some("SER"), 1 << 30);
    p.step_started("zone curve (--zones)", "burn-in");
    p.line("zones", 0, 5, 10, "zone 5");
    p.step_ended("burn-in", "zone curve (--zones) done", false);
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].ends_with(" seekprobe: sim:a: burn-in: zone curve (--zones) started"));
    assert!(
        lines[1].contains(" seekprobe: sim:a: status: zone curve (--zones) 50% (zone 5)"),
        "{text}"
    );
    assert!(lines[1].ends_with(", 0 failing steps so far"), "{text}");
    assert!(lines[2].ends_with("burn-in: zone curve (--zones) done"));
    // Each line starts with its time.
    assert!(
        lines
            .iter()
            .all(|l| l.as_bytes()[4] == b'-' && l.contains('T'))
    );
}

/// The executor's progress as the live view hears it, on the drive's clock.
#[derive(Default)]
struct Heard(Vec<(u64, usize, usize)>, Option<Arc<dyn Clock>>);

impl crate::executor::Observer for Heard {
    fn line_started(&mut self, _: TestKind, index: usize, total: usize, _: &str) {
        let now = self.1.as_ref().map_or(0, |c| c.now_ns());
        self.0.push((now, index, total));
    }
    fn phase_done(&mut self, _: &DeviceInfo, _: &TestResult) -> std::io::Result<()> {
        Ok(())
    }
    fn failed(&mut self, _: &str, _: &crate::error::ProbeError) -> std::io::Result<()> {
        Ok(())
    }
}

use crate::results::TestResult;
use crate::results::device::DeviceInfo;
use crate::results::test_kind::{LiveProgress, TestKind};

/// Run `test` on the simulated drive `spec` (after `first`, whose results give
/// the drive's rates, when given), and check the time left the live view would
/// show of it at every progress step, on the drive's virtual clock: from the
/// step's first tenth on, within 20% of the time it really had left, or none.
/// Returns how many were shown, and of how many after the first tenth.
fn time_left_holds(spec: &str, first: Option<TestKind>, test: TestKind) -> (usize, usize) {
    use crate::device::Target;
    let mut t = crate::device::sim::SimTarget::open(spec).unwrap();
    let clock = t.clock().shared();
    let mut engine = crate::engine::sync::SyncEngine::new(1 << 20);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let opts = crate::test_plans::Options {
        write: true,
        zone_size: 8 << 20,
        ..crate::test_plans::Options::default()
    };
    // As a burn-in runs it: its write-verify pass checkpointed (each checkpoint
    // flushes the drive's cache: no hour of dirty writes left for the half's end).
    let mut saved = |_: &crate::stamps::checkpoint::Checkpoint| {};
    let mut run = |test, heard: &mut Heard| {
        let mut cx = crate::executor::Context {
            target: &mut t,
            engine: &mut engine,
            stop: &stop,
            sink: heard,
            io_timeout: None,
            watch: None,
            checkpoint: Some(&mut saved),
            resume: None,
            known_good: &[],
        };
        crate::executor::run_test(test, &opts, &mut cx)
            .unwrap()
            .result
    };
    let info = crate::device::sim::SimTarget::open(spec)
        .unwrap()
        .info()
        .clone();
    let mut curve = estimate::RateCurve::flat();
    if let Some(k) = first {
        let r = run(k, &mut Heard(Vec::new(), None));
        let size = info.media_size_bytes as f64;
        let z = r.zone_curve().unwrap();
        let points = z
            .points
            .iter()
            .map(|p| (p.offset_bytes as f64 / size, p.rate_bytes_per_s));
        curve = estimate::RateCurve::measured(points).unwrap();
    }
    let mut heard = Heard(Vec::new(), Some(clock.clone()));
    run(test, &mut heard);
    let end = clock.now_ns();
    let (mut shown, mut due, mut e) = (0, 0, None);
    for &(now, index, total) in &heard.0 {
        let per_pass = match test.row().progress {
            LiveProgress::Percent => 100,
            LiveProgress::Lines => total,
            LiveProgress::None => 0,
        };
        estimate::Estimate::follow(&mut e, (index, total, per_pass), &curve, now);
        if index * 10 < total || index >= total || now >= end {
            continue;
        }
        due += 1;
        let Some(left) = e.as_ref().and_then(|e| e.left_ns(now)) else {
            continue;
        };
        shown += 1;
        let truth = (end - now) as f64;
        let off = left as f64 / truth - 1.0;
        assert!(
            off.abs() <= 0.2,
            "{spec} {test:?}: at {index} of {total}, {left} ns left shown, {truth} ns true ({:+.0}%)",
            off * 100.0
        );
    }
    (shown, due)
}

#[test]
fn the_time_left_of_a_pass_holds_within_a_fifth_on_the_drive_s_virtual_clock() {
    // Every time left shown holds; steps from the first tenth on show one but
    // during a --verify's write half, a pass's own first tenth and its last
    // second (a fifth of a verify's steps at least, most of a scan's).
    let holds = |spec, first, test| {
        let (shown, due) = time_left_holds(spec, first, test);
        assert!(shown * 5 >= due, "{spec} {test:?}: {shown} of {due}");
    };
    // A rotating drive's zones (205 to 98 MB/s) at the pace it shows, its read
    // half shaped by its write half.
    holds("sim:hdd?size=2G", None, TestKind::Verify);
    holds("sim:hdd?size=2G", None, TestKind::Scan);
    // Weighed by the zone curve the run measured (a burn-in's --zones).
    holds("sim:hdd?size=2G", Some(TestKind::Zones), TestKind::Verify);
    // Flash: flat, its write cache flushed at the write half's end.
    holds("sim:ssd?size=1G", None, TestKind::Verify);
}
