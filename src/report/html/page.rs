//! The page itself: the head with its inline style, the batch at a glance (a row
//! per drive, failing drives first, the counts), the batch charts with their
//! legend, then each drive's section.

use super::drive::{DriveSection, badge, section};
use super::verdict::{first_reasons, state_class};
use crate::results::State;
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The style: plain, readable on a phone (the tables scroll sideways), and one
/// drive per printed page.
const CSS: &str = r#"
:root{--fail:#b3261e;--pass:#1b7a3a;--warn:#9a6700;--incomplete:#4a4a9c;--muted:#666}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:12px;color:#1a1a1a;background:#fff}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.25em;margin:0 0 .3em;display:flex;gap:.5em;align-items:center;flex-wrap:wrap;word-break:break-all}
h3{font-size:1.05em;margin:1.1em 0 .3em;border-bottom:1px solid #ddd}
.muted{color:var(--muted)}.small{font-size:.85em}.fail{color:var(--fail)}.warn{color:var(--warn)}
.badge{display:inline-block;padding:.05em .5em;border-radius:4px;font-weight:700;color:#fff;font-size:.9em;letter-spacing:.03em}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}.badge.warn{background:var(--warn)}.badge.incomplete{background:var(--incomplete)}
.counts{font-size:1.1em}.counts b.pass{color:var(--pass)}.counts b.fail{color:var(--fail)}.counts b.warn{color:var(--warn)}.counts b.incomplete{color:var(--incomplete)}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;margin:.3em 0}th,td{padding:.25em .55em;text-align:left;vertical-align:top;border-bottom:1px solid #e4e4e4}
th{background:#f4f4f4;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.batch{width:100%}table.batch td.verdict{font-weight:700;text-align:center}
table.batch td.verdict.pass{color:var(--pass)}table.batch td.verdict.fail{color:var(--fail)}table.batch td.verdict.warn{color:var(--warn)}table.batch td.verdict.incomplete{color:var(--incomplete)}
th button.sort{font:inherit;font-weight:600;background:none;border:0;padding:0;margin:0;color:inherit;cursor:pointer;text-align:inherit}
th button.sort:focus-visible{outline:2px solid #245;outline-offset:2px}
th[aria-sort=ascending] button.sort::after{content:" ▲"}th[aria-sort=descending] button.sort::after{content:" ▼"}
table.batch td.reasons{min-width:16em;max-width:34em;font-size:.9em}
tr.failrow{background:#fdf1f0}.dup{color:var(--warn);font-weight:600}tr.changed td{background:#fff4d6;font-weight:600}tr.fail td{color:var(--fail)}tr.muted td{color:var(--muted)}
ul.findings li.fail{color:var(--fail)}ul.findings li.warn{color:var(--warn)}ul.findings li.note{color:var(--muted)}
.key.band{background:#ddd;height:.5em;width:1.6em;vertical-align:.1em}
.swatch,.key{display:inline-block;width:.9em;height:.9em;border-radius:2px;vertical-align:-.1em}
.legend{display:flex;flex-wrap:wrap;gap:.2em 1em;margin:.2em 0 .8em}.legend span.item{white-space:nowrap}
figure.chart{margin:.4em 0}figure.chart svg{width:100%;max-width:760px;height:auto;display:block}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;max-width:100%;font-size:.8em;line-height:1.3;border-radius:4px}
h2,h3{break-after:avoid;page-break-after:avoid}
section.drive{border-top:3px solid #333;margin-top:1.6em;padding-top:.6em}
details summary{cursor:pointer;color:#245;margin:.3em 0}
a{color:#245}
td.host{white-space:nowrap}
table.record{font-size:.85em}code.command{overflow-wrap:anywhere}td.duration{white-space:nowrap}
td.seal{overflow-wrap:anywhere}td.seal.holds b{color:var(--pass)}td.seal.broken{color:var(--fail)}
footer{margin-top:1.6em;border-top:1px solid #ddd}footer code{overflow-wrap:anywhere}ul.sha256{list-style:none;padding:0}
@media (max-width:600px){body{font-size:14px;padding:6px}th,td{padding:.2em .3em}
  pre{white-space:pre-wrap;overflow-wrap:anywhere}
  table.batch thead{display:none}table.batch tr{display:flex;flex-wrap:wrap;align-items:baseline;border-bottom:2px solid #ccc;padding:.3em 0}
  table.batch td{display:block;border:none;padding:.1em .4em;text-align:left}
  table.batch td.verdict,table.batch td.device{order:-1;font-weight:700}table.batch td.reasons{flex-basis:100%;max-width:none}
  table.batch td[data-label]::before{content:attr(data-label) " ";color:var(--muted);font-weight:400}}
@media print{@page{margin:8mm}body{max-width:none;font-size:7pt;line-height:1.12;padding:0}
  section.drive{break-before:page;page-break-before:always;border-top:none;margin-top:0;padding-top:0}
  .scroll{overflow:visible}a{color:inherit;text-decoration:none}.small{font-size:7pt}
  pre{white-space:pre-wrap;font-size:7pt;line-height:1;padding:.1em .3em;margin:.1em 0;tab-size:4}
  th,td{padding:0 .4em}p,ul{margin:.15em 0}ul{padding-left:1.4em}h1{font-size:1.3em}h2{font-size:1.15em}
  figure.chart{break-inside:avoid;margin:.1em 0}figure.chart svg{max-width:48%}tr{break-inside:avoid}
  table.batch td.reasons{min-width:22em;max-width:none}th button.sort::after{content:none}
  table.steps,table.smart{line-height:1.1}h3{font-size:1.1em;margin:.3em 0 0}.legend{margin:0 0 .1em}details summary{margin:.1em 0}
  table.steps,table.steps thead,table.steps tbody{display:block}table.steps tbody{column-count:2;column-gap:1em}
  table.steps tr{display:flex;flex-wrap:wrap;column-gap:.6em}table.steps td:first-child{flex:none}table.steps th,table.steps td{padding:0;border:0;background:none}
  table.steps th:first-child::after,table.steps td:first-child::after{content:":"}
  section.drive{column-count:2;column-gap:4mm}section.drive>h2,section.drive>p.ident{column-span:all}
  section.drive figure.chart svg{max-width:100%}section.drive table{break-inside:avoid}section.drive pre{orphans:3;widows:3}
  table.record,footer{font-size:7pt}footer{margin-top:.3em;break-before:avoid}}
"#;

/// Sorting the batch table by a column (a button in its heading, so the keyboard
/// reaches it, with aria-sort on the heading, as the WAI-ARIA Authoring Practices'
/// sortable table does: https://www.w3.org/WAI/ARIA/apg/patterns/table/examples/sortable-table/),
/// and the folded sections opened for printing. The page reads the same without it.
const SCRIPT: &str = r#"
document.querySelectorAll("table.batch th button.sort").forEach(function(btn){
 var th=btn.parentNode;
 btn.addEventListener("click",function(){
  var col=th.cellIndex,tb=th.closest("table").tBodies[0],rows=Array.prototype.slice.call(tb.rows),up=th.getAttribute("aria-sort")!=="ascending";
  th.closest("tr").querySelectorAll("th[aria-sort]").forEach(function(o){o.setAttribute("aria-sort","none");});
  th.setAttribute("aria-sort",up?"ascending":"descending");
  rows.sort(function(a,b){var x=a.cells[col].dataset.key||a.cells[col].textContent,y=b.cells[col].dataset.key||b.cells[col].textContent;
   var n=parseFloat(x)-parseFloat(y);var c=isNaN(n)?x.localeCompare(y):n;return up?c:-c;});
  rows.forEach(function(r){tb.appendChild(r);});
 });
});
var folded=[];
addEventListener("beforeprint",function(){document.querySelectorAll("details:not([open])").forEach(function(d){d.open=true;folded.push(d);});});
addEventListener("afterprint",function(){folded.forEach(function(d){d.open=false;});folded=[];});
"#;

/// One batch chart with its legend (the drives' names, escaped, in their colours).
pub struct BatchChart {
    /// The chart's heading, as printed above it (escaped: it may hold a model).
    pub title: String,
    /// The chart as an SVG document, inlined in the page as it is.
    pub svg: String,
    /// The drives drawn, each with its colour and whether it failed.
    pub legend: Vec<(String, String, bool)>,
    /// What a grey band in it is, when it has one.
    pub note: Option<&'static str>,
}

/// What the page says at its top.
pub struct Heading {
    /// The tool and versions of the runs ("seekprobe 0.1.0").
    pub tool: String,
    /// When the runs started, in words (UTC), when recorded.
    pub started: Vec<String>,
    /// What the reader must know of the batch itself: a run given twice, drives
    /// sharing a serial number.
    pub notices: Vec<String>,
    /// Each run's record: host, command line, start and end, operator, versions.
    pub runs: Vec<super::record::RunView>,
    /// The saved files read, with their SHA-256, for the footer.
    pub saved: Vec<super::record::SavedFile>,
}

/// The whole HTML document: heading and counts, the batch table, the charts, then
/// each drive's section.
pub fn page(
    heading: &Heading,
    drives: &[DriveSection],
    charts: &[BatchChart],
    verbose: bool,
) -> Markup {
    let count = |s: State| drives.iter().filter(|d| d.verdict.state == s).count();
    let (passes, fails) = (count(State::Pass), count(State::Fail));
    // The states most runs never show are counted only when present.
    let rarer =
        [State::PassWithWarnings, State::NotTested, State::Incomplete].map(|s| (s, count(s)));
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "Qualification report: " (drives.len()) " drive" @if drives.len() != 1 { "s" } }
                style { (PreEscaped(CSS)) }
            }
            body {
                header {
                    h1 { "Qualification report" }
                    p.muted.small {
                        (heading.tool)
                        @for s in &heading.started { " · started " (s) }
                    }
                    p.counts {
                        (drives.len()) " drive" @if drives.len() != 1 { "s" } ": "
                        b.pass { (passes) " PASS" }
                        @for (s, n) in rarer.iter().filter(|r| r.1 > 0) {
                            ", " b.(state_class(*s)) { (n) " " (s.word()) }
                        }
                        ", " b.fail { (fails) " FAIL" }
                    }
                    @for n in &heading.notices { p.dup.notice { "⚠ " (n) } }
                    (super::record::table(&heading.runs))
                }
                (batch_table(drives))
                @for c in charts { (batch_chart(c)) }
                @for d in drives { (section(d, verbose)) }
                (super::record::footer(&heading.saved))
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
}

/// The batch at a glance: a row per drive, in the order given (failing first).
fn batch_table(drives: &[DriveSection]) -> Markup {
    html! {
        div.scroll {
            table.batch {
                thead {
                    tr {
                        (sortable("host", "")) (sortable("device", "")) (sortable("model", ""))
                        (sortable("serial", "")) (sortable("capacity", "num"))
                        (sortable("verdict", "")) th { "first reasons" }
                    }
                }
                tbody {
                    @for d in drives {
                        @let failures = first_reasons(&d.verdict);
                        tr.failrow[!d.verdict.passes()] {
                            td.host data-label="host" { (d.host) }
                            td.device { a href=(format!("#{}", d.anchor)) { (d.disk.name) } }
                            td data-label="model" { (d.model()) }
                            @let twins = drives.iter().filter(|o| !d.serial().is_empty() && o.serial() == d.serial()).count();
                            td data-label="serial" {
                                (d.serial())
                                @if twins > 1 { " " span.dup title="more than one drive reports this serial number" { "⚠ shared by " (twins) " drives" } }
                            }
                            td.num data-label="capacity" data-key=(d.disk.info.as_ref().map_or(0, |i| i.media_size_bytes)) {
                                (d.disk.info.as_ref().map_or(String::new(), |i| crate::report::humanize::humanize(i.media_size_bytes)))
                            }
                            td.verdict.(state_class(d.verdict.state)) { (d.verdict.state.word()) }
                            td.reasons {
                                @for f in failures.iter().take(2) { div { (f.reason) } }
                                @if failures.len() > 2 {
                                    div.muted { "and " (failures.len() - 2) " more (" a href=(format!("#{}", d.anchor)) { "all findings" } ")" }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A heading the table sorts by: a button (focusable, Enter and Space press it)
/// in a th whose aria-sort says the order ("none" until pressed).
fn sortable(label: &str, class: &str) -> Markup {
    html! {
        th.(class) aria-sort="none" scope="col" {
            button.sort type="button" { (label) }
        }
    }
}

fn batch_chart(c: &BatchChart) -> Markup {
    html! {
        h3 { (c.title) }
        figure.chart role="img" aria-label=(c.title) { (PreEscaped(&c.svg)) }
        div.legend.small {
            @if let Some(note) = c.note { span.item { span.key.band {} " " (note) } }
            @for (name, colour, failed) in &c.legend {
                span.item {
                    span.key style=(format!("background:{colour}")) {} " " (name)
                    @if *failed { " " (badge(State::Fail)) }
                }
            }
        }
    }
}
