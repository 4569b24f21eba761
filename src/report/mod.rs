//! Reporters: pure functions of results. They never measure.

pub mod beyond;
pub mod burnin;
pub mod capacity;
pub mod chart;
pub mod compare;
pub mod diskinfo;
pub mod html;
pub mod humanize;
pub mod json;
pub mod path;
pub mod plot;
pub mod prometheus;
pub mod ranges;
pub mod smart;
pub mod table;
pub mod verify;

use crate::results::Run;

/// The text formats of `--format` (live and `report`); HTML and Prometheus go to files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// FreeBSD diskinfo's text, byte for byte.
    Diskinfo,
    /// A table per test with the spread and percentiles of every line.
    Table,
    /// The whole run as JSON (docs/json.md).
    Json,
}

/// Render a whole run in a format. The diskinfo text equals what the live run
/// printed on standard output: each disk's text, then for a judged run the
/// comparison and its "Qualification:" block as a terminal of any width shows
/// them (for a burn-in, its block alone).
pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Diskinfo => {
            let mut s: String = run
                .disks
                .iter()
                .map(|d| diskinfo::render_disk(d, run.verbose))
                .collect();
            s.push_str(&path::render(run));
            s.push_str(&verdicts(run));
            s
        }
        Format::Table => table::render(run) + &path::render(run),
        Format::Json => json::to_json(run),
    }
}

/// The verdicts of a judged run as the live run printed them after the disks'
/// text; nothing when no disk has a verdict.
fn verdicts(run: &Run) -> String {
    if run.disks.iter().all(|d| d.verdict.is_none()) {
        return String::new();
    }
    if run.burn_in.is_some() {
        return burnin::render(run);
    }
    let disks: Vec<&crate::results::DiskResult> = run.disks.iter().collect();
    let judged: Vec<crate::results::Verdict> =
        disks.iter().map(|d| crate::verdict::of(d)).collect();
    format!(
        "\n{}",
        compare::render(&crate::compare::compare(&disks), &judged, None)
    )
}
