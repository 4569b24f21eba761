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

    /// A display that never draws.
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

    /// The current test ended.
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
