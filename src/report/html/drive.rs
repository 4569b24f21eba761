//! One drive's section of the page: its verdict with every finding, identity,
//! warnings, burn-in steps, SMART before and after, self-tests, and each test's
//! block (the text reporters' own lines, so the figures are the text's) with its
//! chart.

use super::charts;
use super::verdict::{readable, severity_class, severity_label, temperatures};
use crate::report::humanize::humanize;
use crate::report::{capacity, diskinfo, smart};
use crate::results::health::Health;
use crate::results::test_kind::HtmlBlock;
use crate::results::verdict::binary_size;
use crate::results::{DiskResult, Payload, TestResult, Verdict};
use maud::{Markup, PreEscaped, html};

/// One drive's results with what the page adds: host, verdict view, colour, anchor.
pub struct DriveSection<'a> {
    /// Where its run came from (the saved run's name, or this host's).
    pub host: &'a str,
    /// The drive's results as saved, borrowed from the run.
    pub disk: &'a DiskResult,
    /// The drive's verdict as the page shows it, from the results.
    pub verdict: Verdict,
    /// Its colour in the batch charts.
    pub colour: String,
    /// Its section's HTML id, `drive-N` (N from 1 in the order given), linked from the table.
    pub anchor: String,
    /// Its earlier runs, from the drive history (docs/history.md), oldest first.
    pub earlier: &'a [EarlierRun],
}

/// One earlier run of a drive, as the drive history holds it, in words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EarlierRun {
    /// When it ran (UTC).
    pub when: String,
    /// The host that ran it.
    pub host: String,
    /// "PASS" or "FAIL".
    pub verdict: String,
    /// Its key figures, in words.
    pub figures: String,
}

impl DriveSection<'_> {
    /// The model, as the drive reports it ("" when unknown).
    pub fn model(&self) -> &str {
        self.disk
            .info
            .as_ref()
            .and_then(|i| i.descr.as_deref())
            .unwrap_or("")
    }

    /// The serial number, as the drive reports it ("" when unknown).
    pub fn serial(&self) -> &str {
        self.disk
            .info
            .as_ref()
            .and_then(|i| i.ident.as_deref())
            .unwrap_or("")
    }

    /// The firmware revision, from the SMART health (after the run, else before;
    /// "" when SMART was not read).
    pub fn firmware(&self) -> &str {
        self.disk
            .smart
            .as_ref()
            .and_then(|s| s.after.as_ref().or(s.before.as_ref()))
            .and_then(|h| h.firmware.as_deref())
            .unwrap_or("")
    }

    /// The World Wide Name, as the drive reports it ("" when unknown).
    pub fn wwn(&self) -> &str {
        self.disk
            .info
            .as_ref()
            .and_then(|i| i.wwn.as_deref())
            .unwrap_or("")
    }

    /// The capacity as diskinfo gives it ("2000398934016 (1.8T)"), or "".
    pub fn capacity(&self) -> String {
        self.disk.info.as_ref().map_or(String::new(), |i| {
            format!("{} ({})", i.media_size_bytes, humanize(i.media_size_bytes))
        })
    }
}

/// The state's words (PASS, PASS with warnings, FAIL, INCOMPLETE) in its badge.
pub fn badge(state: crate::results::State) -> Markup {
    html! { span.badge.(super::verdict::state_class(state)) { (state.word()) } }
}

/// A text reporter's block as preformatted text (nothing when it is empty).
fn block(text: &str) -> Markup {
    let text = text.trim_end();
    html! { @if !text.is_empty() { pre { (text) } } }
}

/// A text reporter's block, folded under "The text's figures" (nothing when it
/// is empty).
fn folded(text: &str) -> Markup {
    html! {
        @if !text.trim().is_empty() {
            details { summary { "The text's figures" } (block(text)) }
        }
    }
}

/// A chart, when there is one.
fn chart(svg: Option<String>, label: &str) -> Markup {
    html! {
        @if let Some(svg) = svg {
            figure.chart role="img" aria-label=(label) { (PreEscaped(svg)) }
        }
    }
}

/// One drive's `<section>` (id `anchor`): heading, findings, identity, warnings,
/// burn-in, SMART, each test, then the temperature.
pub fn section(d: &DriveSection, verbose: bool) -> Markup {
    let disk = d.disk;
    html! {
        section.drive id=(d.anchor) {
            h2 {
                span.swatch style=(format!("background:{}", d.colour)) {}
                (disk.name) " " (badge(d.verdict.state))
            }
            p.ident {
                @if !d.host.is_empty() { "host " b { (d.host) } " · " }
                "model " b { (or_dash(d.model())) } " · serial " b { (or_dash(d.serial())) }
                " · " (d.capacity())
                @if !d.firmware().is_empty() { " · firmware " b.firmware { (d.firmware()) } }
                @if !d.wwn().is_empty() { " · WWN " b.wwn { (d.wwn()) } }
            }
            (findings(&d.verdict))
            (identity(disk))
            @if !disk.warnings.is_empty() {
                h3 { "Warnings about the figures" }
                ul.warnings {
                    @for w in &disk.warnings { li { (w.message) "; " (w.advice) } }
                }
            }
            (burn_in(disk))
            (smart_section(disk))
            @for t in &disk.tests { (test(t, disk, verbose)) }
            @if let Some(p) = &disk.path_check {
                h3 { "Path check" } (block(&crate::report::path::render_drive(&disk.name, p)))
            }
            (temperature(disk))
            (earlier(d.earlier))
        }
    }
}

/// The drive's earlier runs, when the history has them.
fn earlier(runs: &[EarlierRun]) -> Markup {
    html! {
        @if !runs.is_empty() {
            h3 { "Earlier runs (drive history)" }
            table.earlier {
                tr { th { "when" } th { "host" } th { "verdict" } th { "figures" } }
                @for r in runs {
                    tr { td { (r.when) } td { (r.host) } td { (r.verdict) } td { (r.figures) } }
                }
            }
        }
    }
}

fn or_dash(s: &str) -> &str {
    if s.is_empty() { "–" } else { s }
}

/// The verdict badge, then every finding in the verdict's order ("No findings." if none).
fn findings(v: &Verdict) -> Markup {
    html! {
        h3 { "Verdict: " (badge(v.state)) }
        @if v.findings.is_empty() {
            p.muted { "No findings." }
        } @else {
            ul.findings {
                @for f in &v.findings {
                    li class=(severity_class(f.severity)) {
                        b { (severity_label(f.severity)) } ": "
                        (f.reason)
                    }
                }
            }
        }
    }
}

/// Identity and geometry, as described when the drive was opened.
fn identity(disk: &DiskResult) -> Markup {
    let Some(i) = &disk.info else {
        return html! {};
    };
    html! {
        details {
            summary { "Identity and geometry (" (binary_size(i.media_size_bytes)) ")" }
            (block(&diskinfo::verbose_header(i)))
        }
    }
}

/// The burn-in's steps and how each ended.
fn burn_in(disk: &DiskResult) -> Markup {
    use crate::results::burnin::Status;
    if disk.burn_in.is_empty() {
        return html! {};
    }
    let mut names = vec![disk.name.as_str()];
    names.extend(disk.info.as_ref().map(|i| i.path.as_str()));
    html! {
        h3 { "Burn-in steps" }
        table.steps {
            thead { tr { th { "step" } th { "how it ended" } th.num { "duration" } } }
            tbody {
                @for r in &disk.burn_in {
                    @let cls = match r.status {
                        Status::Failed(_) | Status::Interrupted => "fail",
                        Status::Skipped(_) => "muted",
                        Status::Done | Status::Resumed => "",
                    };
                    tr class=(cls) {
                        td { (r.step.name()) }
                        td { (readable(&crate::report::burnin::status(&r.status), &names)) }
                        td.num.duration { (r.duration_s.map_or_else(|| "not recorded".to_string(), duration)) }
                    }
                }
            }
        }
    }
}

/// A step's duration in words: "0.4 s", "12 min 5 s", "3 h 2 min".
fn duration(s: f64) -> String {
    let whole = s.round() as u64;
    match whole {
        _ if s < 60.0 => format!("{s:.1} s"),
        ..3600 => format!("{} min {} s", whole / 60, whole % 60),
        _ => format!("{} h {} min", whole / 3600, whole % 3600 / 60),
    }
}

/// SMART before and after, side by side, the changes marked; the self-tests.
fn smart_section(disk: &DiskResult) -> Markup {
    let Some(s) = &disk.smart else {
        return html! {};
    };
    let device = disk.info.as_ref().map_or(disk.name.as_str(), |i| &i.path);
    html! {
        h3 { "SMART" }
        @if let Some(note) = &s.note { p { (smart::no_smart_note(device, note)) } }
        @if let Some(e) = &s.error { p.fail { "SMART could not be read: " (e) } }
        @if let Some(e) = &s.not_read { p { "SMART not read (not the drive's fault): " (e) } }
        @if let Some(before) = &s.before { (smart_table(before, s.after.as_ref())) }
        (block(&smart::render_self_tests(&s.self_tests)))
    }
}

fn smart_table(before: &Health, after: Option<&Health>) -> Markup {
    let b = smart::rows(before);
    let a = after.map(smart::rows).unwrap_or_default();
    // Every figure of either reading, in the block's order.
    let mut whats: Vec<&str> = b.iter().map(|r| r.what.as_str()).collect();
    for r in &a {
        if !whats.iter().any(|w| smart::same_figure(w, &r.what)) {
            whats.push(&r.what);
        }
    }
    let find = |rows: &[smart::SmartRow], what: &str| {
        rows.iter()
            .find(|r| smart::same_figure(&r.what, what))
            .map(|r| (r.value.clone(), r.compared))
    };
    html! {
        table.smart {
            thead { tr { th { "figure" } th.num { "before" } @if after.is_some() { th.num { "after" } th.num { "change" } } } }
            tbody {
                @for w in &whats {
                    @let old = find(&b, w);
                    @let new = find(&a, w);
                    @let compared = old.as_ref().or(new.as_ref()).is_some_and(|x| x.1);
                    @let old_v = old.map(|x| x.0);
                    @let new_v = new.map(|x| x.0);
                    @let change = if after.is_some() { change(old_v.as_deref(), new_v.as_deref()) } else { None };
                    @let matters = compared && change.is_some() && matters(w, new_v.as_deref());
                    tr.changed[matters] {
                        td { (w) }
                        td.num { (old_v.as_deref().unwrap_or("–")) }
                        @if after.is_some() {
                            td.num { (new_v.as_deref().unwrap_or("not reported")) }
                            td.num { (change.unwrap_or_default()) @if matters { " ◀" } }
                        }
                    }
                }
            }
        }
        @if after.is_some() {
            p.muted.small { "A change is shown with its size; only a change that can mean a fault is highlighted (a temperature, hours or a self-test that completed without error is not)." }
        }
    }
}

/// A figure's change between two readings: "+N" (or "−N") for a number, "changed"
/// for a text, None when equal or only one reading has it.
pub fn change(old: Option<&str>, new: Option<&str>) -> Option<String> {
    let (old, new) = (old?, new?);
    if old == new {
        return None;
    }
    let num = |s: &str| s.trim_end_matches('%').parse::<i128>().ok();
    Some(match (num(old), num(new)) {
        (Some(o), Some(n)) if n >= o => format!("+{}", n - o),
        (Some(o), Some(n)) => format!("−{}", o - n),
        _ => "changed".to_string(),
    })
}

/// Whether a change of a compared figure can mean a fault, and is highlighted:
/// a counter of errors or defects that moved, the assessment, a self-test that
/// did not complete without error. A self-test that ran and passed is not.
pub fn matters(what: &str, new: Option<&str>) -> bool {
    if what.starts_with("last self-test") {
        return !new.is_some_and(|v| v.to_ascii_lowercase().contains("without error"));
    }
    true
}

/// One test's block, as its row says: its diskinfo text under its name, or its
/// own block (diskinfo's end block, after what its payload draws) under its name
/// without the option.
fn test(t: &TestResult, disk: &DiskResult, verbose: bool) -> Markup {
    let Some(info) = &disk.info else {
        return html! {};
    };
    let how = t.test.row().html;
    let name = t.test.name();
    html! {
        @if how == HtmlBlock::Text {
            h3 { (capitalised(name)) }
            @let text = if verbose || !t.phases.is_empty() { diskinfo::render_test(t, info) } else { String::new() };
            (block(&text))
        } @else {
            h3 { (capitalised(name.split(" (").next().unwrap_or(name))) }
            (own_block(t, &diskinfo::test_end(t, info), how))
        }
        @let names = [disk.name.as_str(), info.path.as_str()];
        @match &t.outcome {
            crate::results::Outcome::Failed(why) => p.fail { "The test failed: " (readable(why, &names)) },
            crate::results::Outcome::Skipped(why) => p.fail { "The test was skipped: " (readable(why, &names)) },
            crate::results::Outcome::Interrupted => p.warn { "The test was interrupted." },
            crate::results::Outcome::Complete => {},
        }
    }
}

/// A test's own block: what its payload draws (a chart, a conclusion), then its
/// end block's `text`, folded when its row says so.
fn own_block(t: &TestResult, text: &str, how: HtmlBlock) -> Markup {
    html! {
        @match &t.payload {
            Payload::Verify(v) => {
                (chart(charts::verify_map(v), "the write and read rate over the range, failed sectors in red"))
                p.legend.small {
                    span.key style=(bg(charts::WRITE)) {} " write " span.key style=(bg(charts::READ)) {} " read back "
                    span.key style="background:#dc1e1e99" {} " failed sectors"
                }
                (block(text))
            }
            Payload::Capacity(c) => {
                @let said = capacity::conclusion(&c.conclusion);
                p class=(if c.conclusion.failed > 0 { "fail" } else { "" }) { "It holds " (said) "." }
                // The block's first line says it again: said once.
                (block(match text.split_once('\n') {
                    Some((first, rest)) if first.contains(&said) => rest,
                    _ => text,
                }))
            }
            Payload::Scan(s) => {
                (chart(charts::scan_map(s), "the scan map, start to end"))
                p.legend.small {
                    span.key style=(bg(charts::SCAN[0])) {} " <10 ms " span.key style=(bg(charts::SCAN[1])) {} " <50 "
                    span.key style=(bg(charts::SCAN[2])) {} " <150 " span.key style=(bg(charts::SCAN[3])) {} " ≥150 "
                    span.key style="background:#000" {} " error " span.key style=(bg(charts::NOT_READ)) {} " not read"
                }
                (block(text))
            }
            Payload::Smr { analysis: Some(a), .. } => {
                p class=(if a.verdict == crate::results::smr::SmrConclusion::HiddenSmr { "fail" } else { "" }) { (a.text) }
                (chart(charts::smr_chart(a), "the random-write rate over time, stalls in red"))
                (block(text))
            }
            _ => {
                @if how == HtmlBlock::Folded {
                    (folded(text))
                } @else {
                    (block(text))
                }
            }
        }
    }
}

/// A key's inline style: its background in `c`.
fn bg(c: charts::RGB) -> String {
    format!("background:{}", charts::css(c))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// The temperatures over the run, when they were recorded.
fn temperature(disk: &DiskResult) -> Markup {
    let t = temperatures(disk);
    if t.is_empty() {
        return html! {};
    }
    let hi = t.iter().map(|s| s.celsius).fold(f64::MIN, f64::max);
    let lo = t.iter().map(|s| s.celsius).fold(f64::MAX, f64::min);
    html! {
        h3 { "Temperature" }
        @if t.len() == 1 {
            p { "1 reading, " (format!("{hi:.0}")) " °C (no chart for a single reading)" }
        } @else {
            p { (t.len()) " readings, " (format!("{lo:.0}")) "–" (format!("{hi:.0}")) " °C" }
        }
        (chart(charts::temperature_chart(&t), "the temperature over the run"))
    }
}
