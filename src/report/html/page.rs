//! The page itself: the head with its inline style, the batch at a glance (a row
//! per drive, failing drives first, the counts), the batch charts with their
//! legend, then each drive's section.

use super::drive::{Drive, badge, section};
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The style: plain, readable on a phone (the tables scroll sideways), and one
/// drive per printed page.
const CSS: &str = r#"
:root{--fail:#b3261e;--pass:#1b7a3a;--warn:#9a6700;--muted:#666}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:12px;color:#1a1a1a;background:#fff}
h1{font-size:1.5em;margin:.3em 0}h2{font-size:1.25em;margin:0 0 .3em;display:flex;gap:.5em;align-items:center;flex-wrap:wrap;word-break:break-all}
h3{font-size:1.05em;margin:1.1em 0 .3em;border-bottom:1px solid #ddd}
.muted{color:var(--muted)}.small{font-size:.85em}.fail{color:var(--fail)}.warn{color:var(--warn)}
.badge{display:inline-block;padding:.05em .5em;border-radius:4px;font-weight:700;color:#fff;font-size:.9em;letter-spacing:.03em}
.badge.pass{background:var(--pass)}.badge.fail{background:var(--fail)}
.counts{font-size:1.1em}.counts b.pass{color:var(--pass)}.counts b.fail{color:var(--fail)}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;margin:.3em 0}th,td{padding:.25em .55em;text-align:left;vertical-align:top;border-bottom:1px solid #e4e4e4}
th{background:#f4f4f4;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.batch{width:100%}table.batch td.verdict{font-weight:700;text-align:center}
table.batch td.verdict.pass{color:var(--pass)}table.batch td.verdict.fail{color:var(--fail)}
table.batch th[data-sort]{cursor:pointer}table.batch td.reasons{max-width:34em;font-size:.9em}
tr.failrow{background:#fdf1f0}tr.changed td{background:#fff4d6;font-weight:600}tr.fail td{color:var(--fail)}tr.muted td{color:var(--muted)}
ul.findings li.fail{color:var(--fail)}ul.findings li.warn{color:var(--warn)}ul.findings li.note{color:var(--muted)}
.key.band{background:#ddd;height:.5em;width:1.6em;vertical-align:.1em}
.swatch,.key{display:inline-block;width:.9em;height:.9em;border-radius:2px;vertical-align:-.1em}
.legend{display:flex;flex-wrap:wrap;gap:.2em 1em;margin:.2em 0 .8em}.legend span.item{white-space:nowrap}
figure.chart{margin:.4em 0}figure.chart svg{width:100%;max-width:900px;height:auto;display:block}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em;line-height:1.3;border-radius:4px}
section.drive{border-top:3px solid #333;margin-top:1.6em;padding-top:.6em}
details summary{cursor:pointer;color:#245;margin:.3em 0}
a{color:#245}
td.host{white-space:nowrap}
@media (max-width:600px){body{font-size:14px;padding:6px}th,td{padding:.2em .3em}
  table.batch thead{display:none}table.batch tr{display:flex;flex-wrap:wrap;align-items:baseline;border-bottom:2px solid #ccc;padding:.3em 0}
  table.batch td{display:block;border:none;padding:.1em .4em;text-align:left}
  table.batch td.verdict,table.batch td.device{order:-1;font-weight:700}table.batch td.reasons{flex-basis:100%;max-width:none}
  table.batch td[data-label]::before{content:attr(data-label) " ";color:var(--muted);font-weight:400}}
@media print{body{max-width:none;font-size:11pt}section.drive{break-before:page;border-top:none}
  .scroll{overflow:visible}a{color:inherit;text-decoration:none}pre{white-space:pre-wrap}
  figure.chart,table{break-inside:avoid}}
"#;

/// Sorting the batch table by a column (a click on its heading); the page reads
/// the same without it.
const SCRIPT: &str = r#"
document.querySelectorAll("table.batch th[data-sort]").forEach(function(th,col){
 th.addEventListener("click",function(){
  var tb=th.closest("table").tBodies[0],rows=Array.prototype.slice.call(tb.rows),up=th.dataset.dir!=="up";
  th.dataset.dir=up?"up":"down";
  rows.sort(function(a,b){var x=a.cells[col].dataset.key||a.cells[col].textContent,y=b.cells[col].dataset.key||b.cells[col].textContent;
   var n=parseFloat(x)-parseFloat(y);var c=isNaN(n)?x.localeCompare(y):n;return up?c:-c;});
  rows.forEach(function(r){tb.appendChild(r);});
 });
});
"#;

/// One batch chart with its legend (the drives' names, escaped, in their colours).
pub struct BatchChart {
    /// The chart's heading, as printed above it.
    pub title: &'static str,
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
}

/// The whole HTML document: heading and counts, the batch table, the charts, then
/// each drive's section.
pub fn page(heading: &Heading, drives: &[Drive], charts: &[BatchChart], verbose: bool) -> Markup {
    let fails = drives.iter().filter(|d| !d.verdict.pass).count();
    let passes = drives.len() - fails;
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
                        b.pass { (passes) " PASS" } ", " b.fail { (fails) " FAIL" }
                    }
                }
                (batch_table(drives))
                @for c in charts { (batch_chart(c)) }
                @for d in drives { (section(d, verbose)) }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
}

/// The batch at a glance: a row per drive, in the order given (failing first).
fn batch_table(drives: &[Drive]) -> Markup {
    html! {
        div.scroll {
            table.batch {
                thead {
                    tr {
                        th data-sort="" { "host" } th data-sort="" { "device" } th data-sort="" { "model" }
                        th data-sort="" { "serial" } th.num data-sort="" { "capacity" }
                        th data-sort="" { "verdict" } th { "first failing reasons" }
                    }
                }
                tbody {
                    @for d in drives {
                        @let failures: Vec<_> = d.verdict.failures().collect();
                        tr.failrow[!d.verdict.pass] {
                            td.host data-label="host" { (d.host) }
                            td.device { a href=(format!("#{}", d.anchor)) { (d.disk.name) } }
                            td data-label="model" { (d.model()) }
                            td data-label="serial" { (d.serial()) }
                            td.num data-label="capacity" data-key=(d.disk.info.as_ref().map_or(0, |i| i.media_size_bytes)) {
                                (d.disk.info.as_ref().map_or(String::new(), |i| crate::report::humanize::humanize(i.media_size_bytes)))
                            }
                            @if d.verdict.pass { td.verdict.pass { "PASS" } } @else { td.verdict.fail { "FAIL" } }
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

fn batch_chart(c: &BatchChart) -> Markup {
    html! {
        h3 { (c.title) }
        figure.chart role="img" aria-label=(c.title) { (PreEscaped(&c.svg)) }
        div.legend.small {
            @if let Some(note) = c.note { span.item { span.key.band {} " " (note) } }
            @for (name, colour, failed) in &c.legend {
                span.item {
                    span.key style=(format!("background:{colour}")) {} " " (name)
                    @if *failed { " " (badge(false)) }
                }
            }
        }
    }
}
