//! What the board knows of all its drives at once: the widths that align their
//! lines in columns, and each drive's state for the batch's first line ("24
//! drives: 20 running, 3 finished, 1 FAIL: /dev/sdk; the last ends in at least
//! 5h 10m"), which stays in sight when the terminal is too short for every line.

use super::line::{MUST, Part, columns, fit};

/// Where a drive of the board is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum State {
    /// Its line exists; no step started yet.
    Starting,
    /// A step is running, or it is between two.
    Running,
    /// It ended: whether it failed.
    Finished {
        /// A failing finding (or it could not be probed).
        failed: bool,
    },
}

/// One drive as the batch's line counts it.
struct Drive {
    name: String,
    state: State,
    /// Seconds left of its burn-in (or step) by the wall clock, and whether
    /// every step ahead was estimated.
    left: Option<(f64, bool)>,
}

/// The drives of a board, as they are drawn.
#[derive(Default)]
pub(super) struct Drives {
    /// The drives the run names (0: not told, no batch line).
    pub(super) expected: usize,
    drives: Vec<Drive>,
    /// The widest step name drawn so far: the steps' column.
    pub(super) step_width: usize,
}

impl Drives {
    /// A new drive's line: its index.
    pub(super) fn add(&mut self, name: &str) -> usize {
        self.drives.push(Drive {
            name: name.to_string(),
            state: State::Starting,
            left: None,
        });
        self.drives.len() - 1
    }

    /// The widest drive name: the names' column.
    pub(super) fn name_width(&self) -> usize {
        let named = self.drives.iter().map(|d| columns(&d.name));
        named.max().unwrap_or(0)
    }

    /// Drive `i` is now in `state`, with `left` seconds left.
    pub(super) fn set(&mut self, i: usize, state: State, left: Option<(f64, bool)>) {
        if let Some(d) = self.drives.get_mut(i) {
            d.state = state;
            d.left = left;
        }
    }

    /// Whether every drive the run names has finished.
    pub(super) fn all_finished(&self) -> bool {
        self.drives.len() >= self.expected
            && (self.drives.iter()).all(|d| matches!(d.state, State::Finished { .. }))
    }

    /// The batch's line, at most `width` columns: the counts first, then the
    /// failing drives by name, then when the last running one ends.
    pub(super) fn line(&self, width: usize, eta: impl Fn(f64) -> String) -> String {
        let count = |f: &dyn Fn(State) -> bool| self.drives.iter().filter(|d| f(d.state)).count();
        let running = count(&|s| s != State::Starting && !matches!(s, State::Finished { .. }));
        let finished = count(&|s| matches!(s, State::Finished { .. }));
        let failed: Vec<&str> = (self.drives.iter())
            .filter(|d| d.state == State::Finished { failed: true })
            .map(|d| d.name.as_str())
            .collect();
        let waiting = self.expected.max(self.drives.len()) - running - finished;
        let mut counts = format!(
            "{} drives: {running} running, {finished} finished",
            self.expected.max(self.drives.len())
        );
        if waiting > 0 {
            counts.push_str(&format!(", {waiting} waiting"));
        }
        counts.push_str(&format!(", {} failing", failed.len()));
        let mut parts = vec![Part::new(counts, MUST)];
        if !failed.is_empty() {
            parts.push(Part::new(format!("(FAIL: {})", failed.join(", ")), 3).shortens());
        }
        let ahead: Vec<Option<(f64, bool)>> = (self.drives.iter())
            .filter(|d| !matches!(d.state, State::Finished { .. }))
            .map(|d| d.left)
            .collect();
        // A drive not estimated yet makes the last end a lower bound.
        let exact = ahead.iter().all(|l| l.is_some_and(|l| l.1)) && waiting == 0;
        let last = ahead
            .iter()
            .flatten()
            .map(|l| l.0)
            .fold(None, |m: Option<f64>, s| Some(m.map_or(s, |m| m.max(s))));
        if let Some(s) = last {
            let bound = if exact { "" } else { "at least " };
            parts.push(Part::new(format!("the last ends in {bound}{}", eta(s)), 5));
        }
        fit(parts, width)
    }
}
