//! The qualification report: one self-contained HTML page for a batch of drives
//! (`seekprobe report`, `--html`). The batch at a glance, the charts that compare
//! the drives, then a section per drive; inline CSS and SVG, nothing fetched, a
//! few lines of script only to sort the table. A pure function of saved runs.
//!
//! By concern: [`page`] the page's template, [`drive`] a drive's section,
//! [`charts`] the SVG charts, [`verdict`] the one adapter that reads a drive's
//! verdict (and the one accessor of its temperatures). Text from a drive is
//! escaped by maud wherever it is interpolated, and never put in an SVG.

pub mod charts;
pub mod drive;
pub mod page;
pub mod record;
pub mod verdict;

use crate::results::Run;
use drive::DriveSection;
use page::{BatchChart, Heading};

/// A saved run and the name of where it came from (its file's name, or this
/// host's name for `--html`), shown in the host column when the run recorded no
/// host name (runs saved before it was recorded).
pub struct Source<'a> {
    /// The host column's text when the run recorded no host name.
    pub host: String,
    /// The saved (or just finished) run, borrowed.
    pub run: &'a Run,
    /// The saved file it was read from, with its SHA-256, for the footer (None
    /// for `--html`: no file was read).
    pub saved: Option<record::SavedFile>,
    /// What the record's signature (RUN.json.sig) says of it; None when it was
    /// not looked for (standard input, or a run's own page before it is signed).
    pub seal: Option<crate::sshsig::Seal>,
}

/// The page of these runs' drives: failing drives first, otherwise in the order
/// given. A run given twice is counted once, and the page says so; drives that
/// share a serial number are marked.
pub fn render(sources: &[Source]) -> String {
    render_with(sources, &[])
}

/// [`render`], each drive with its earlier runs: `earlier` holds them by serial
/// number (from the drive history, docs/history.md).
pub fn render_with(sources: &[Source], earlier: &[(String, Vec<drive::EarlierRun>)]) -> String {
    let (sources, mut notices) = once_each(sources);
    let sources = &sources[..];
    let total: usize = sources.iter().map(|s| s.run.disks.len()).sum();
    let mut drives: Vec<DriveSection> = Vec::with_capacity(total);
    for s in sources {
        for disk in &s.run.disks {
            let i = drives.len();
            drives.push(DriveSection {
                host: record::host(s),
                disk,
                verdict: verdict::drive_verdict(s.run, disk),
                colour: charts::css(charts::colour(i, total)),
                anchor: format!("drive-{}", i + 1),
                earlier: disk
                    .info
                    .as_ref()
                    .and_then(|info| info.ident.as_ref())
                    .and_then(|s| earlier.iter().find(|(serial, _)| serial == s))
                    .map_or(&[], |(_, runs)| &runs[..]),
            });
        }
    }
    // Colours follow the order given; the failing drives come first, then the
    // incomplete ones, those with warnings, and those that passed (stable).
    let colours: Vec<charts::RGB> = (0..total).map(|i| charts::colour(i, total)).collect();
    let mut order: Vec<usize> = (0..total).collect();
    order.sort_by_key(|&i| drives[i].verdict.state);
    let batch = batch_charts(&drives, &colours);
    let mut sorted: Vec<Option<DriveSection>> = drives.into_iter().map(Some).collect();
    let drives: Vec<DriveSection> = order.iter().filter_map(|&i| sorted[i].take()).collect();
    let mut heading = heading(sources);
    notices.extend(record::seal_notices(sources));
    notices.extend(shared_serials(&drives));
    heading.notices = notices;
    let verbose = sources.iter().any(|s| s.run.verbose);
    page::page(&heading, &drives, &batch, verbose).into_string()
}

/// The charts that compare drives: the zone curves and the seek profiles,
/// overlaid, one chart per model (drives of a model share a scale; an SSD does
/// not squeeze the disks' curves into a third of the axis), in the order the
/// models first appear.
fn batch_charts(drives: &[DriveSection], colours: &[charts::RGB]) -> Vec<BatchChart> {
    let mut models: Vec<&str> = Vec::new();
    for d in drives {
        if !models.contains(&d.model()) {
            models.push(d.model());
        }
    }
    let titled = |what: &str, model: &str| {
        if models.len() > 1 {
            format!(
                "{what}: {}",
                if model.is_empty() {
                    "model unknown"
                } else {
                    model
                }
            )
        } else {
            what.to_string()
        }
    };
    let mut out = Vec::new();
    for &model in &models {
        let mut legend = Vec::new();
        let mut zones = Vec::new();
        for (d, &c) in drives
            .iter()
            .zip(colours)
            .filter(|(d, _)| d.model() == model)
        {
            let media = d.disk.info.as_ref().map_or(0, |i| i.media_size_bytes);
            if let Some(z) = d.disk.tests.iter().find_map(|t| t.zone_curve()) {
                let failed = d.verdict.state == crate::results::State::Fail;
                zones.push((
                    charts::Series {
                        data: z,
                        colour: c,
                        failed,
                    },
                    media,
                ));
                legend.push((d.disk.name.clone(), d.colour.clone(), failed));
            }
        }
        let band = !charts::median_curve(&zones).is_empty();
        if let Some(svg) = charts::zone_overlay(&zones) {
            out.push(BatchChart {
                title: titled("Zone curves, the read rate over each drive", model),
                svg,
                legend,
                note: band.then_some("the batch's median"),
            });
        }
    }
    for &model in &models {
        let mut legend = Vec::new();
        let mut seeks = Vec::new();
        for (d, &c) in drives
            .iter()
            .zip(colours)
            .filter(|(d, _)| d.model() == model)
        {
            if let Some(a) = d.disk.tests.iter().find_map(|t| t.seek_analysis()) {
                let failed = d.verdict.state == crate::results::State::Fail;
                seeks.push(charts::Series {
                    data: a,
                    colour: c,
                    failed,
                });
                legend.push((d.disk.name.clone(), d.colour.clone(), failed));
            }
        }
        if let Some(svg) = charts::seek_overlay(&seeks) {
            out.push(BatchChart {
                title: titled("Seek profiles, the access time by distance", model),
                svg,
                legend,
                note: None,
            });
        }
    }
    out
}

/// The sources with each run once (the first of equal runs kept), and a notice
/// for each run given again: the same drives twice are not ten drives.
fn once_each<'a>(sources: &'a [Source<'a>]) -> (Vec<&'a Source<'a>>, Vec<String>) {
    let mut kept: Vec<&Source> = Vec::new();
    let mut notices = Vec::new();
    for s in sources {
        match kept.iter().find(|k| k.run == s.run) {
            Some(k) => notices.push(format!(
                "The run {} was given more than once (the same as {}): its drives are counted once.",
                s.host, k.host
            )),
            None => kept.push(s),
        }
    }
    (kept, notices)
}

/// A notice for each serial number more than one drive reports (their rows are
/// marked too): the same drive seen twice, or a bridge or simulator that reports
/// one serial for several.
fn shared_serials(drives: &[DriveSection]) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for d in drives {
        let serial = d.serial();
        if serial.is_empty() || seen.contains(&serial) {
            continue;
        }
        seen.push(serial);
        let names: Vec<&str> = drives
            .iter()
            .filter(|o| o.serial() == serial)
            .map(|o| o.disk.name.as_str())
            .collect();
        if names.len() > 1 {
            out.push(format!(
                "{} drives report the serial number {serial}: {}.",
                names.len(),
                names.join(", ")
            ));
        }
    }
    out
}

fn heading(sources: &[&Source]) -> Heading {
    let mut versions: Vec<String> = Vec::new();
    let mut started: Vec<String> = Vec::new();
    for s in sources {
        let v = format!("{} {}", s.run.tool, s.run.tool_version);
        if !versions.contains(&v) {
            versions.push(v);
        }
        if let Some(t) = s.run.started_unix_s.map(utc)
            && !started.contains(&t)
        {
            started.push(t);
        }
    }
    Heading {
        tool: versions.join(", "),
        started,
        notices: Vec::new(),
        runs: sources.iter().map(|s| record::view(s)).collect(),
        saved: sources.iter().filter_map(|s| s.saved.clone()).collect(),
    }
}

/// A Unix time as "YYYY-MM-DD HH:MM UTC" ([`crate::clock::utc_minutes`]).
pub fn utc(unix_s: u64) -> String {
    crate::clock::utc_minutes(i64::try_from(unix_s).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests;
