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
pub mod plot;
pub mod prometheus;
pub mod smart;
pub mod table;
pub mod verify;

use crate::results::Run;

/// The output formats.
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
/// printed on standard output.
pub fn render(run: &Run, format: Format) -> String {
    match format {
        Format::Diskinfo => run
            .disks
            .iter()
            .map(|d| diskinfo::render_disk(d, run.verbose))
            .collect(),
        Format::Table => table::render(run),
        Format::Json => json::to_json(run),
    }
}
