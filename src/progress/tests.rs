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
    assert!(status[0].contains(" seekprobe: sim:a: status: verify 25% (pass 1), step ETA "));
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
fn in_a_burn_in_the_line_shows_the_eta_of_the_whole_burn_in() {
    let out = Shared::default();
    let board = Board::logging_to(Box::new(out.clone()), Duration::ZERO);
    let mut p = Progress::on(&board, "sim:a");
    p.opened(None, 1 << 30);
    let plan = [
        ("SMART before", Cost::Brief),
        ("write-verify", Cost::Passes(2.0)),
        ("long self-test", Cost::Unknown),
        ("SMART after", Cost::Brief),
    ];
    p.plan(plan.iter().map(|(n, c)| (n.to_string(), *c)).collect());
    // The rate an earlier pass over the drive showed.
    p.drive_rate = Some(1e8);
    // No progress of the step yet: the steps after it, a lower bound.
    p.step_started("SMART before", "burn-in");
    p.line("SMART before", 0, 0, 1, "");
    // Half the write-verify done in 100 s; the self-test after it unknown.
    p.step_started("write-verify", "burn-in");
    p.doing.started = Some(Instant::now() - Duration::from_secs(100));
    p.line("write-verify", 100, 50, 100, "pass 1");
    p.step_started("SMART after", "burn-in");
    p.line("SMART after", 0, 0, 1, "");
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    let status: Vec<&str> = text.lines().filter(|l| l.contains("status:")).collect();
    assert_eq!(status.len(), 3, "{text}");
    // 2 passes of 1 GiB at 100 MB/s: 21.5 s, but the self-test's time is unknown.
    assert!(status[0].contains(", burn-in ETA at least 21s,"), "{text}");
    // Half the step done in 100 s: 100 s left of it, then the self-test.
    assert!(
        status[1].contains(", step ETA 1m 40s, burn-in ETA at least 1m 40s,"),
        "{text}"
    );
    // The last step, its progress not known yet: nothing to say.
    assert!(!status[2].contains("burn-in ETA"), "{text}");
}

#[test]
fn a_simulated_drive_s_rate_is_on_its_clock_and_its_eta_on_the_wall_s() {
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
    // The ETAs go by the wall clock: 20 MB a second.
    let wall = p.drive_rate.unwrap();
    assert!((19e6..=20e6).contains(&wall), "{wall}");
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("10%"), "{text}");
    assert!(text.contains(", 10.0 MB/s,"), "{text}");
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
