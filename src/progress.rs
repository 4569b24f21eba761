//! Progress on standard error: one bar per test, advanced per timed line, with an
//! ETA. Shown only on a terminal and without `--quiet`; never measured, never mixed
//! into standard output (the bar is hidden while a line is printed).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The progress display of a run; inert when stderr is not a terminal.
pub struct Progress {
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    /// A display that draws only when `wanted` and standard error is a terminal.
    pub fn new(wanted: bool) -> Progress {
        Progress {
            bar: None,
            enabled: wanted && std::io::stderr().is_terminal(),
        }
    }

    /// A display that never draws, whatever standard error is.
    pub fn off() -> Progress {
        Progress {
            bar: None,
            enabled: false,
        }
    }

    /// A test of `total` timed lines begins (or goes on) with line `index`.
    pub fn line(&mut self, test: &str, index: usize, total: usize, label: &str) {
        if !self.enabled {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(total as u64);
            if let Ok(style) = ProgressStyle::with_template(
                "{spinner} {prefix} [{bar:30}] {pos}/{len} {msg} (ETA {eta})",
            ) {
                b.set_style(style.progress_chars("=> "));
            }
            b.set_prefix(test.to_string());
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        bar.set_length(total as u64);
        bar.set_position(index as u64);
        bar.set_message(label.to_string());
    }

    /// A drive's self-test (`name`, e.g. "SMART long self-test") is `done_percent`
    /// done, with `eta` left by the drive's own polling time.
    pub fn self_test(&mut self, name: &str, done_percent: Option<u32>, eta: Option<Duration>) {
        if !self.enabled {
            return;
        }
        let bar = self.bar.get_or_insert_with(|| {
            let b = ProgressBar::new(100);
            if let Ok(style) =
                ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}% {msg}")
            {
                b.set_style(style.progress_chars("=> "));
            }
            b.set_prefix(name.to_string());
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        bar.set_position(u64::from(done_percent.unwrap_or(0).min(100)));
        bar.set_message(match eta {
            Some(e) => format!("(ETA {}, from the drive's polling time)", eta_text(e)),
            None => String::new(),
        });
    }

    /// The current test ended: clear its bar, if one is drawn.
    pub fn done(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }

    /// Run `f` (which prints) with the bar out of the way.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(b) => b.suspend(f),
            None => f(),
        }
    }
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
