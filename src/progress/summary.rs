//! What the board knows of all its drives at once: the widths that align their
//! lines in columns, and each drive's state for the batch's first line ("24
//! drives: 20 running, 4 finished, 1 failing, 1 not tested (FAIL: /dev/sdk; NOT
//! TESTED: /dev/sdl)  the last ends in 5h 10m"), which stays in sight when the
//! terminal is too short for every line.

use super::line::{MUST, Part, columns, fit};

/// Where a drive of the board is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum State {
    /// Its line exists; no step started yet.
    Starting,
    /// A step is running, or it is between two.
    Running,
    /// It ended, in the state the judge gives its own findings (FAIL, NOT
    /// TESTED, INCOMPLETE, a pass).
    Finished(crate::results::State),
}

/// The states the batch's line counts by name, in its order, with the words it
/// counts them in: a pass is not named.
const NAMED: [(crate::results::State, &str); 3] = [
    (crate::results::State::Fail, "failing"),
    (crate::results::State::NotTested, "not tested"),
    (crate::results::State::Incomplete, "incomplete"),
];

/// One drive as the batch's line counts it.
struct Drive {
    name: String,
    state: State,
    /// Seconds left of its burn-in (or step) on its clock, when estimated.
    left: Option<f64>,
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
    pub(super) fn set(&mut self, i: usize, state: State, left: Option<f64>) {
        if let Some(d) = self.drives.get_mut(i) {
            d.state = state;
            d.left = left;
        }
    }

    /// Whether every drive the run names has finished.
    pub(super) fn all_finished(&self) -> bool {
        self.drives.len() >= self.expected
            && (self.drives.iter()).all(|d| matches!(d.state, State::Finished(_)))
    }

    /// The batch's line, at most `width` columns: the counts first (the drives
    /// that failed, were not tested or are incomplete only when there are
    /// some), then those drives by name, then when the last running one ends.
    pub(super) fn line(&self, width: usize, eta: impl Fn(f64) -> String) -> String {
        let count = |f: &dyn Fn(State) -> bool| self.drives.iter().filter(|d| f(d.state)).count();
        let running = count(&|s| s != State::Starting && !matches!(s, State::Finished(_)));
        let finished = count(&|s| matches!(s, State::Finished(_)));
        let waiting = self.expected.max(self.drives.len()) - running - finished;
        let mut counts = format!(
            "{} drives: {running} running, {finished} finished",
            self.expected.max(self.drives.len())
        );
        if waiting > 0 {
            counts.push_str(&format!(", {waiting} waiting"));
        }
        let mut named = Vec::new();
        for (state, words) in NAMED {
            let names: Vec<&str> = (self.drives.iter())
                .filter(|d| d.state == State::Finished(state))
                .map(|d| d.name.as_str())
                .collect();
            if !names.is_empty() {
                counts.push_str(&format!(", {} {words}", names.len()));
                named.push(format!("{}: {}", state.word(), names.join(", ")));
            }
        }
        let mut parts = vec![Part::new(counts, MUST)];
        if !named.is_empty() {
            parts.push(Part::new(format!("({})", named.join("; ")), 3).shortens());
        }
        // When every drive still to end has an estimate: the latest of them (a
        // drive not estimated, or waiting, makes it none).
        let ahead: Option<Vec<f64>> = (self.drives.iter())
            .filter(|d| !matches!(d.state, State::Finished(_)))
            .map(|d| d.left)
            .collect();
        let last = ahead
            .filter(|_| waiting == 0)
            .and_then(|a| a.into_iter().reduce(f64::max));
        if let Some(s) = last {
            parts.push(Part::new(format!("the last ends in {}", eta(s)), 5));
        }
        fit(parts, width)
    }
}
