//! The live view on standard error: one line per drive, never measured, never mixed
//! into standard output.
//!
//! On a terminal (without `--quiet`), each drive has one line updated in place
//! (indicatif's `MultiProgress`): its name (and serial), its step, the step's
//! progress, the rate where the step moves bytes, the step's time left where it
//! is a pass over the drive ([`estimate`]: within 20% from its first tenth on, or
//! not shown) and in a burn-in the drive's for the whole burn-in (when every
//! step ahead is brief), all on the drive's clock (a simulated drive's is
//! virtual, as its results are), the drive's temperature when it is watched (its latest
//! reading, "paused: too hot" while `--max-temp` holds it) and its failing steps
//! so far. The line fits the terminal's width ([`line::fit`]: what does not fit
//! is dropped whole, least needed first). Between two steps it says how the last
//! one ended; a drive that finished keeps its line to the end of the run, with
//! its verdict and first reason, and a run of several drives has a first line
//! that counts them ([`summary`]). Off a terminal (a log file, Ansible, systemd) nothing is redrawn:
//! a [`Board`] that keeps a log writes a self-contained, timestamped line per drive
//! as each step starts and ends, and a status line per drive every
//! `--status-interval`, as it happens (not when the run ends).

use crate::clock::Clock;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use line::{MUST, Part};
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};
use summary::{Drives, State};

pub mod estimate;
mod line;
mod summary;

/// The live view shared by the drives of a run.
pub struct Board {
    /// The lines on a terminal; None off a terminal or with --quiet.
    multi: Option<MultiProgress>,
    /// Off a terminal: write the step and status lines (a burn-in, or a --verify or
    /// --scan run of several drives).
    log: bool,
    /// Between two status lines of a drive.
    interval: Duration,
    /// Where the log lines go (standard error).
    out: Mutex<Box<dyn Write + Send>>,
    /// Its drives, for the columns and the batch's line.
    drives: Mutex<Drives>,
    /// The batch's line, above the drives' (a run of several drives on a
    /// terminal).
    batch: Mutex<Option<ProgressBar>>,
}

impl Board {
    /// The view of a run: bars when `bars` is wanted and standard error is a
    /// terminal; else, when `log`, the timestamped lines every `interval`.
    pub fn new(bars: bool, log: bool, interval: Duration) -> Arc<Board> {
        let tty = std::io::stderr().is_terminal();
        Arc::new(Board {
            multi: (bars && tty).then(MultiProgress::new),
            log: log && !tty,
            interval,
            out: Mutex::new(Box::new(std::io::stderr())),
            drives: Mutex::default(),
            batch: Mutex::new(None),
        })
    }

    /// The run names `drives` drives: with more than one, on a terminal, the
    /// board's first line counts them, and every drive keeps its line to the
    /// end of the run. Told before the first drive's line is made.
    pub fn batch(&self, drives: usize) {
        self.drives().expected = drives;
        if let (Some(m), true) = (&self.multi, drives > 1) {
            let b = m.add(ProgressBar::new(1));
            if let Ok(style) = ProgressStyle::with_template("{msg}") {
                b.set_style(style);
            }
            *self.batch.lock().unwrap_or_else(|p| p.into_inner()) = Some(b);
        }
    }

    fn drives(&self) -> std::sync::MutexGuard<'_, Drives> {
        self.drives.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether finished drives keep their lines (a run of several drives).
    fn keeps_lines(&self) -> bool {
        self.drives().expected > 1
    }

    /// Drive `i` is in `state`, with `left` seconds to go when estimated: the
    /// batch's line again (finished once every drive has).
    fn update(&self, i: usize, state: State, left: Option<f64>) {
        let mut d = self.drives();
        d.set(i, state, left);
        if let Some(b) = &*self.batch.lock().unwrap_or_else(|p| p.into_inner()) {
            b.set_message(d.line(line::terminal_width().saturating_sub(1), |s| {
                eta_text(Duration::from_secs_f64(s))
            }));
            if d.all_finished() {
                b.finish();
            }
        }
    }

    /// A view that shows nothing.
    pub fn off() -> Arc<Board> {
        Arc::new(Board {
            multi: None,
            log: false,
            interval: Duration::from_secs(600),
            out: Mutex::new(Box::new(std::io::sink())),
            drives: Mutex::default(),
            batch: Mutex::new(None),
        })
    }

    /// A board that writes its log lines to `out` every `interval`, whatever
    /// standard error is (for tests).
    pub fn logging_to(out: Box<dyn Write + Send>, interval: Duration) -> Arc<Board> {
        Arc::new(Board {
            multi: None,
            log: true,
            interval,
            out: Mutex::new(out),
            drives: Mutex::default(),
            batch: Mutex::new(None),
        })
    }

    /// Whether this board writes the step lines itself (off a terminal).
    pub fn logs(&self) -> bool {
        self.log
    }

    fn write(&self, line: &str) {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let _ = writeln!(out, "{} seekprobe: {line}", timestamp(SystemTime::now()));
        let _ = out.flush();
    }
}

/// A watched drive's latest temperature (°C) and whether its work is paused for
/// heat; None before the first reading.
pub type Reading = Box<dyn Fn() -> Option<(i64, bool)> + Send>;

/// What a step of a burn-in costs, for the drive's time left of the whole burn-in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    /// A few seconds (SMART reads): counted as none.
    Brief,
    /// Not known before the step runs (a self-test, -t, a pass over the drive):
    /// while one lies ahead, the burn-in's time left is not shown.
    Unknown,
}

/// What the step in progress has done, for the status line and the bar.
#[derive(Default)]
struct Doing {
    /// The step (a burn-in step's name, or a test's).
    step: String,
    /// Its current part ("pass 1 of 1: writing").
    label: String,
    /// Its progress, 0 to 1.
    done: f64,
    /// When the step started, on the wall clock.
    started: Option<Instant>,
    /// The step's time left, when it is a pass over the drive.
    estimate: Option<estimate::Estimate>,
    /// The last progress reading with its time (and the drive's clock's then),
    /// for the rate.
    last: Option<(Instant, f64, Option<u64>)>,
    /// Bytes per second on the drive's clock, where the step moves the drive's
    /// bytes.
    rate: Option<f64>,
}

/// One drive's line of the live view.
pub struct Progress {
    board: Arc<Board>,
    bar: Option<ProgressBar>,
    /// The drive's name, as it was given.
    name: String,
    /// Bytes of a whole pass over the drive, for the rate of a scan or a pass.
    size: u64,
    doing: Doing,
    /// The failing steps so far.
    failing: usize,
    last_status: Instant,
    /// When the line was made: the wall's time for a drive without a clock.
    made: Instant,
    /// The drive's latest temperature and whether its work is paused for heat,
    /// when it is watched.
    temperature: Option<Reading>,
    /// A burn-in's steps in order and their costs ([`Progress::plan`]).
    plan: Vec<(String, Cost)>,
    /// How fast the drive moves its bytes where they lie, for the time left of a
    /// pass over it ([`Progress::rates`]).
    curve: estimate::RateCurve,
    /// The drive's clock (a simulated drive's is virtual): the rate shown.
    clock: Option<Arc<dyn Clock>>,
    /// The drive's serial, shown beside its name when there is room.
    serial: Option<String>,
    /// How the last step ended, shown until the next starts.
    ended: Option<String>,
    /// The drive ended: its line's last words, and its state.
    finished: Option<(String, crate::results::State)>,
    /// Its place on the board.
    slot: usize,
}

impl Progress {
    /// A display that draws only when `wanted` and standard error is a terminal.
    pub fn new(wanted: bool) -> Progress {
        Progress::on(&Board::new(wanted, false, Duration::from_secs(600)), "")
    }

    /// A display that never draws, whatever standard error is.
    pub fn off() -> Progress {
        Progress::on(&Board::off(), "")
    }

    /// The line of drive `name` on `board`.
    pub fn on(board: &Arc<Board>, name: &str) -> Progress {
        let bar = board.multi.as_ref().map(|m| {
            let b = m.add(ProgressBar::new(1000));
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                b.set_style(style);
            }
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        let slot = board.drives().add(name);
        let p = Progress {
            board: Arc::clone(board),
            bar,
            name: name.to_string(),
            size: 0,
            doing: Doing::default(),
            failing: 0,
            last_status: Instant::now(),
            made: Instant::now(),
            temperature: None,
            plan: Vec::new(),
            curve: estimate::RateCurve::flat(),
            clock: None,
            serial: None,
            ended: None,
            finished: None,
            slot,
        };
        p.draw();
        p
    }

    /// Whether the live view writes the step lines itself (off a terminal).
    pub fn logs(&self) -> bool {
        self.board.log
    }

    /// The drive is open: its serial (shown beside its name) and its size (for
    /// the rate of a pass over it).
    pub fn opened(&mut self, serial: Option<&str>, size: u64) {
        self.size = size;
        self.serial = serial.map(str::to_string);
        self.draw();
    }

    /// The drive's clock, which its rates and times left are shown on (a
    /// simulated drive's virtual clock, as its results are).
    pub fn clock_from(&mut self, clock: Arc<dyn Clock>) {
        self.clock = Some(clock);
    }

    /// How fast the drive moves its bytes where they lie: the time left of a pass
    /// over it is weighed by it ([`estimate::RateCurve`]).
    pub fn rates(&mut self, curve: estimate::RateCurve) {
        self.curve = curve;
    }

    /// Now on the drive's clock, in ns (without one, the wall's since the line
    /// was made).
    fn now_ns(&self) -> u64 {
        match &self.clock {
            Some(c) => c.now_ns(),
            None => self.made.elapsed().as_nanos() as u64,
        }
    }

    /// The drive ended: `line` says how (its verdict and first reason), kept on
    /// its line to the end of the run; `state` is its verdict's, which the
    /// batch's line counts.
    pub fn finished(&mut self, line: &str, state: crate::results::State) {
        self.finished = Some((line.to_string(), state));
        self.draw();
    }

    /// The drive's temperature is watched: `now` gives its latest reading (°C)
    /// and whether its work is paused for heat, shown in the line from now on.
    pub fn temperature_from(&mut self, now: Reading) {
        self.temperature = Some(now);
    }

    /// The burn-in's steps in order (by the names [`Progress::step_started`] is
    /// given) and their costs: the line then shows the drive's ETA for the whole
    /// burn-in beside the step's.
    pub fn plan(&mut self, steps: Vec<(String, Cost)>) {
        self.plan = steps;
    }

    /// A step (a burn-in step, or a test of a run of several drives) starts.
    pub fn step_started(&mut self, step: &str, what: &str) {
        self.doing = Doing {
            step: step.to_string(),
            started: Some(Instant::now()),
            ..Doing::default()
        };
        if self.board.log {
            self.board
                .write(&format!("{}: {what}: {step} started", self.name));
        }
        self.draw();
    }

    /// The step ended: `line` says how; `failed` when it failed the drive.
    pub fn step_ended(&mut self, what: &str, line: &str, failed: bool) {
        self.failing += usize::from(failed);
        if self.board.log {
            self.board.write(&format!("{}: {what}: {line}", self.name));
        }
        self.doing = Doing::default();
        self.ended = Some(line.to_string());
        self.draw();
    }

    /// A test of `total` timed lines (or progress steps) goes on with line `index`;
    /// `per_pass`: the steps of one pass over the whole drive (a --verify half, a
    /// --scan), so its rate is shown; 0 for the other tests.
    pub fn line(&mut self, test: &str, per_pass: usize, index: usize, total: usize, label: &str) {
        if self.doing.step.is_empty() {
            self.doing.step = test.to_string();
            self.doing.started = Some(Instant::now());
        }
        let now = self.now_ns();
        let slot = &mut self.doing.estimate;
        estimate::Estimate::follow(slot, (index, total, per_pass), &self.curve, now);
        let done = index as f64 / total.max(1) as f64;
        self.moved(done, label, per_pass, total);
    }

    /// A drive's self-test (`name`, e.g. "SMART long self-test") is `done_percent`
    /// done, with `eta` left by the drive's own polling time.
    pub fn self_test(&mut self, name: &str, done_percent: Option<u32>, eta: Option<Duration>) {
        if self.doing.step.is_empty() {
            self.doing.step = name.to_string();
            self.doing.started = Some(Instant::now());
        }
        let label = match eta {
            Some(e) => format!("ETA {} by the drive's polling time", eta_text(e)),
            None => String::new(),
        };
        let done = f64::from(done_percent.unwrap_or(0).min(100)) / 100.0;
        self.moved(done, &label, 0, 1);
    }

    /// Progress moved to `done` (0 to 1) of the `steps` of the step, in its part
    /// `label`; `per_pass` of them cover the whole drive (0: no rate).
    fn moved(&mut self, done: f64, label: &str, per_pass: usize, steps: usize) {
        let now = Instant::now();
        if label != self.doing.label {
            self.doing.label = label.to_string();
            self.doing.last = None;
        }
        if per_pass > 0 && self.size > 0 {
            let per_step = self.size as f64 / per_pass as f64;
            let ns = self.clock.as_ref().map(|c| c.now_ns());
            if let Some((t, d, ns0)) = self.doing.last {
                let dt = now.duration_since(t).as_secs_f64();
                if dt > 0.5 && done > d {
                    let bytes = (done - d) * steps as f64 * per_step;
                    // Shown on the drive's clock.
                    let on_drive = match (ns, ns0) {
                        (Some(b), Some(a)) if b > a => (b - a) as f64 / 1e9,
                        _ => dt,
                    };
                    self.doing.rate = Some(bytes / on_drive);
                    self.doing.last = Some((now, done, ns));
                }
            } else {
                self.doing.last = Some((now, done, ns));
            }
        }
        self.doing.done = done;
        self.draw();
        if self.board.log && now.duration_since(self.last_status) >= self.board.interval {
            self.last_status = now;
            let status = self.status();
            self.board
                .write(&format!("{}: status: {status}", self.name));
        }
    }

    /// The step, its part, progress, rate, ETA and failing steps, in words.
    fn status(&self) -> String {
        let d = &self.doing;
        let mut s = format!("{} {:.0}%", d.step, d.done * 100.0);
        if !d.label.is_empty() {
            s.push_str(&format!(" ({})", d.label));
        }
        if let Some(r) = d.rate {
            s.push_str(&format!(", {:.1} MB/s", r / 1e6));
        }
        let step_left = self.step_left();
        if let Some(left) = step_left {
            s.push_str(&format!(
                ", step ETA {}",
                eta_text(Duration::from_secs_f64(left))
            ));
        }
        if let Some(left) = self.burn_in_left(step_left) {
            s.push_str(&format!(
                ", burn-in ETA {}",
                eta_text(Duration::from_secs_f64(left))
            ));
        }
        if let Some((t, _)) = self.temperature_text() {
            s.push_str(&format!(", {t}"));
        }
        s.push_str(&format!(", {} so far", self.failing_text()));
        s
    }

    /// Seconds left of the step on the drive's clock, where it is a pass over the
    /// drive and a tenth of it is done ([`estimate::Estimate`]).
    fn step_left(&self) -> Option<f64> {
        let e = self.doing.estimate.as_ref()?;
        e.left_ns(self.now_ns()).map(|ns| ns as f64 / 1e9)
    }

    /// The drive's latest temperature in words, and whether it is paused for heat.
    fn temperature_text(&self) -> Option<(String, bool)> {
        match self.temperature.as_ref().and_then(|f| f()) {
            Some((c, true)) => Some((format!("{c} °C (paused: too hot)"), true)),
            Some((c, false)) => Some((format!("{c} °C"), false)),
            None => None,
        }
    }

    /// "1 failing step", "3 failing steps".
    fn failing_text(&self) -> String {
        let s = if self.failing == 1 { "" } else { "s" };
        format!("{} failing step{s}", self.failing)
    }

    /// The terminal line's parts, in order, each with how long it is kept when
    /// the terminal is too narrow (the drive, its step, progress and failing
    /// count always).
    fn parts(&self, name_width: usize, step_width: usize) -> Vec<Part> {
        let mut p = vec![Part::new(self.name.clone(), MUST).padded(name_width)];
        if let Some(s) = &self.serial {
            // The drive to pull once it finished.
            let keep = if self.finished.is_some() { MUST } else { 2 };
            p.push(Part::new(format!("({s})"), keep));
        }
        if let Some((line, _)) = &self.finished {
            p.push(Part::new(line.clone(), MUST).shortens());
            return p;
        }
        let d = &self.doing;
        if d.step.is_empty() {
            let ended = self.ended.as_deref().unwrap_or("starting");
            p.push(Part::new(ended, MUST).shortens());
            p.push(Part::new(self.failing_text(), MUST));
            return p;
        }
        p.push(
            Part::new(d.step.clone(), MUST)
                .shortens()
                .padded(step_width),
        );
        p.push(Part::new(line::bar(d.done, 22), 1));
        p.push(Part::new(format!("{:>3.0}%", d.done * 100.0), MUST));
        if !d.label.is_empty() {
            p.push(Part::new(d.label.clone(), 3));
        }
        if let Some(r) = d.rate {
            p.push(Part::new(format!("{:.1} MB/s", r / 1e6), 6));
        }
        let step_left = self.step_left();
        if let Some(left) = step_left {
            let eta = eta_text(Duration::from_secs_f64(left));
            p.push(Part::new(format!("step ETA {eta}"), 4));
        }
        if let Some(left) = self.burn_in_left(step_left) {
            let eta = eta_text(Duration::from_secs_f64(left));
            p.push(Part::new(format!("burn-in ETA {eta}"), 7));
        }
        if let Some((t, paused)) = self.temperature_text() {
            p.push(Part::new(t, if paused { 8 } else { 5 }));
        }
        p.push(Part::new(self.failing_text(), MUST));
        p
    }

    /// Seconds left of the whole burn-in: the step's `step_left`, when every step
    /// after it is brief (a step whose time is not known before it runs makes it
    /// no estimate, so nothing is shown); None outside a planned burn-in.
    fn burn_in_left(&self, step_left: Option<f64>) -> Option<f64> {
        let at = self.plan.iter().position(|(n, _)| *n == self.doing.step)?;
        let brief = self.plan[at + 1..].iter().all(|(_, c)| *c == Cost::Brief);
        step_left.filter(|_| brief)
    }

    /// Draw the line again (and the batch's), fitted to the terminal's width.
    fn draw(&self) {
        let state = match &self.finished {
            Some((_, state)) => State::Finished(*state),
            None if self.doing.step.is_empty() && self.ended.is_none() => State::Starting,
            None => State::Running,
        };
        // The drive's time left: of its burn-in, or of its one step outside one.
        let step_left = self.step_left();
        let left = match self.plan.is_empty() {
            true => step_left,
            false => self.burn_in_left(step_left),
        };
        self.board.update(self.slot, state, left);
        let Some(b) = &self.bar else {
            return;
        };
        let (names, steps) = {
            let mut d = self.board.drives();
            d.step_width = d.step_width.max(line::columns(&self.doing.step));
            (d.name_width(), d.step_width)
        };
        // The spinner and its space.
        let width = line::terminal_width().saturating_sub(3);
        b.set_message(line::fit(self.parts(names, steps), width));
    }

    /// The current test ended: its part and progress are cleared (a burn-in's
    /// step keeps its name until it ends).
    pub fn done(&mut self) {
        self.doing.label.clear();
        self.doing.done = 0.0;
        self.doing.rate = None;
        self.draw();
    }

    /// Run `f` (which prints) with the lines out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match (&self.board.multi, &self.bar) {
            (Some(m), Some(_)) => m.suspend(f),
            _ => f(),
        }
    }
}

impl Drop for Progress {
    /// A drive of several keeps its line, finished, to the end of the run (the
    /// spinner gone); a lone drive's line is cleared.
    fn drop(&mut self) {
        if self.finished.is_none() {
            self.finished = Some(("ended".to_string(), crate::results::State::Pass));
        }
        self.draw();
        if let Some(b) = self.bar.take() {
            if self.board.keeps_lines() {
                if let Ok(style) = ProgressStyle::with_template("  {msg}") {
                    b.set_style(style);
                }
                b.finish();
            } else {
                b.finish_and_clear();
                if let Some(m) = &self.board.multi {
                    m.remove(&b);
                }
            }
        }
    }
}

/// The width of the terminal on standard error, in columns (80 when it cannot
/// be read): the live view's lines and the question before writing fit in it.
pub fn terminal_width() -> usize {
    line::terminal_width()
}

/// A time left in words: "1h 05m", "12m 30s", "40s".
fn eta_text(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m {:02}s", s / 60, s % 60),
        _ => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
    }
}

/// `t` as UTC in RFC 3339 ("2026-12-01T15:52:03Z"): a log line stands on its own.
pub fn timestamp(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (y, mo, d, h, mi, s) = crate::clock::civil_utc(i64::try_from(secs).unwrap_or(i64::MAX));
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

#[cfg(test)]
mod tests;
