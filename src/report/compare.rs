//! Comparisons rendered: disks side by side (a column per disk) while they fit, a
//! row per disk (figures as columns, failing disks first) when there are more, and
//! JSON for machines (`compare --json`, docs/json.md). Pure functions of the
//! comparison data of crate::compare.

use crate::compare::{Comparison, deviation, fmt_value};
use crate::results::{Finding, Severity, Verdict};
use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use serde::Serialize;

/// The most disks shown side by side, a column each; more get a row each.
pub const MAX_SIDE_BY_SIDE: usize = 8;

/// The comparison as text: side by side when there are at most
/// [`MAX_SIDE_BY_SIDE`] disks and the table fits in `width` columns (None: any
/// width), otherwise a row per disk; then the verdicts, when there are some.
pub fn render(cmp: &Comparison, verdicts: &[Verdict], width: Option<usize>) -> String {
    if cmp.disks.len() <= MAX_SIDE_BY_SIDE {
        let text = side_by_side(cmp, verdicts);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        if width.is_none_or(|w| widest <= w) {
            return text;
        }
    }
    per_disk(cmp, verdicts, width)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn align_right(t: &mut Table, from: usize, to: usize) {
    for col in from..to {
        if let Some(c) = t.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// A column per disk (value and deviation from the median), a row per figure.
pub fn side_by_side(cmp: &Comparison, verdicts: &[Verdict]) -> String {
    let mut t = Table::new();
    t.load_style(presets::ASCII_MARKDOWN);
    let mut header = vec!["figure".to_string(), "median".to_string()];
    header.extend(cmp.disks.iter().cloned());
    t.set_header(header);
    for r in &cmp.rows {
        let mut row = vec![r.label.clone(), fmt_value(r.median)];
        for v in &r.values {
            row.push(match v {
                Some(v) => format!(
                    "{} ({:+.1}%)",
                    fmt_value(*v),
                    deviation(*v, r.median) * 100.0
                ),
                None => "-".into(),
            });
        }
        t.add_row(row);
    }
    align_right(&mut t, 1, cmp.disks.len() + 2);
    let n = cmp.disks.len();
    // Verdicts alone (SMART health, --smr-check without a figure): no table.
    let mut s = if cmp.rows.is_empty() && !verdicts.is_empty() {
        format!("Comparison ({n} disk{}): no figure to compare\n", plural(n))
    } else {
        format!(
            "Comparison ({n} disk{}; deviation from the median):\n{t}\n",
            plural(n)
        )
    };
    if !verdicts.is_empty() {
        if !s.is_empty() {
            s.push('\n');
        }
        s.push_str("Qualification:\n");
        for (name, v) in cmp.disks.iter().zip(verdicts) {
            push_verdict(&mut s, name, v);
        }
    }
    s
}

/// One finding's line below its drive: a failing one's reason alone, the others
/// after their severity (`warning: `, `note: `).
pub fn finding_line(f: &Finding) -> String {
    match f.severity {
        Severity::Fail => f.reason.clone(),
        s => format!("{}: {}", s.name(), f.reason),
    }
}

/// A drive's lines of the "Qualification:" block: a tab, its name, a colon, its
/// state (PASS, PASS with warnings, FAIL, INCOMPLETE); then each finding, indented
/// by two tabs.
fn push_verdict(s: &mut String, name: &str, v: &Verdict) {
    s.push_str(&format!("\t{name}: {}\n", v.word()));
    for f in &v.findings {
        s.push_str(&format!("\t\t{}\n", finding_line(f)));
    }
}

/// A row per disk, figures as columns, the medians first; with verdicts, failing
/// disks come first (in their order) and only their reasons are listed below.
pub fn per_disk(cmp: &Comparison, verdicts: &[Verdict], width: Option<usize>) -> String {
    let judged = !verdicts.is_empty();
    let mut order: Vec<usize> = (0..cmp.disks.len()).collect();
    let failed = |i: usize| verdicts.get(i).is_some_and(|v| !v.passes());
    if judged {
        order.sort_by_key(|&i| !failed(i)); // stable: failing first, each in order
    }
    let mut t = Table::new();
    t.load_style(presets::ASCII_MARKDOWN);
    if let Some(w) = width {
        t.set_content_arrangement(ContentArrangement::Dynamic);
        t.set_width(w.min(u16::MAX as usize) as u16);
    }
    let mut header = vec!["disk".to_string()];
    if judged {
        header.push("verdict".into());
    }
    header.extend(cmp.rows.iter().map(|r| r.label.clone()));
    t.set_header(header);
    let mut medians = vec!["(median)".to_string()];
    if judged {
        medians.push(String::new());
    }
    medians.extend(cmp.rows.iter().map(|r| fmt_value(r.median)));
    t.add_row(medians);
    for &i in &order {
        let mut row = vec![cmp.disks[i].clone()];
        if judged {
            row.push(verdicts[i].word().into());
        }
        row.extend(cmp.rows.iter().map(|r| match r.values[i] {
            Some(v) => fmt_value(v),
            None => "-".into(),
        }));
        t.add_row(row);
    }
    let first_figure = if judged { 2 } else { 1 };
    align_right(&mut t, first_figure, first_figure + cmp.rows.len());
    let n = cmp.disks.len();
    let mut s = format!("Comparison ({n} disk{}, a row each):\n{t}\n", plural(n));
    if judged {
        let fails = verdicts.iter().filter(|v| !v.passes()).count();
        s.push_str(&format!("\nQualification: {} of {n} passed\n", n - fails));
        let warned = |v: &Verdict| v.passes() && v.of(Severity::Warning).next().is_some();
        let named = || cmp.disks.iter().zip(verdicts);
        for (name, v) in named()
            .filter(|(_, v)| !v.passes())
            .chain(named().filter(|(_, v)| warned(v)))
        {
            push_verdict(&mut s, name, v);
        }
    }
    s
}

/// One figure of `compare --json`.
#[derive(Serialize)]
struct JsonFigure<'a> {
    key: &'a str,
    label: &'a str,
    higher_is_better: bool,
    median: f64,
}

/// One disk of `compare --json`.
#[derive(Serialize)]
struct JsonDisk<'a> {
    name: &'a str,
    /// Comparable key → value (absent keys were not measured).
    figures: std::collections::BTreeMap<&'a str, f64>,
    /// Comparable key → relative deviation from the median (0.1 = 10% above).
    deviations: std::collections::BTreeMap<&'a str, f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pass: Option<bool>,
    /// Its state: pass, pass_with_warnings, fail, not_tested, incomplete.
    #[serde(skip_serializing_if = "Option::is_none")]
    state: Option<crate::results::State>,
    /// The failing findings' reasons.
    #[serde(skip_serializing_if = "Option::is_none")]
    reasons: Option<Vec<&'a str>>,
    /// The verdict's findings, failing ones first.
    #[serde(skip_serializing_if = "Option::is_none")]
    findings: Option<&'a [Finding]>,
}

/// The whole comparison of `compare --json`.
#[derive(Serialize)]
struct JsonComparison<'a> {
    schema_version: u32,
    tool: &'a str,
    tool_version: &'a str,
    figures: Vec<JsonFigure<'a>>,
    disks: Vec<JsonDisk<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    passed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    failed: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    not_tested: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    incomplete: Option<usize>,
}

/// The comparison as JSON (docs/json.md, "compare --json"), with a final newline.
pub fn to_json(cmp: &Comparison, verdicts: &[Verdict]) -> String {
    let judged = !verdicts.is_empty();
    let count = |state| verdicts.iter().filter(|v| v.state == state).count();
    let doc = JsonComparison {
        schema_version: crate::results::SCHEMA_VERSION,
        tool: "seekprobe",
        tool_version: env!("CARGO_PKG_VERSION"),
        figures: cmp
            .rows
            .iter()
            .map(|r| JsonFigure {
                key: &r.key,
                label: &r.label,
                higher_is_better: r.higher_is_better,
                median: r.median,
            })
            .collect(),
        disks: cmp
            .disks
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut figures = std::collections::BTreeMap::new();
                let mut deviations = std::collections::BTreeMap::new();
                for r in &cmp.rows {
                    if let Some(v) = r.values[i] {
                        figures.insert(r.key.as_str(), v);
                        deviations.insert(r.key.as_str(), deviation(v, r.median));
                    }
                }
                let v = verdicts.get(i);
                JsonDisk {
                    name,
                    figures,
                    deviations,
                    pass: v.map(|v| v.passes()),
                    state: v.map(|v| v.state),
                    reasons: v.map(|v| v.reasons()),
                    findings: v.map(|v| v.findings.as_slice()),
                }
            })
            .collect(),
        passed: judged.then(|| verdicts.iter().filter(|v| v.passes()).count()),
        failed: judged.then(|| count(crate::results::State::Fail)),
        not_tested: judged.then(|| count(crate::results::State::NotTested)),
        incomplete: judged.then(|| count(crate::results::State::Incomplete)),
    };
    let mut s = serde_json::to_string_pretty(&doc).expect("a comparison always serialises");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::ComparisonRow;

    fn cmp(n: usize) -> (Comparison, Vec<Verdict>) {
        let disks: Vec<String> = (0..n).map(|i| format!("d{i}")).collect();
        let values: Vec<Option<f64>> = (0..n).map(|i| Some(20.0 + (i % 3) as f64)).collect();
        let c = Comparison {
            disks: disks.clone(),
            rows: vec![ComparisonRow {
                key: "seek_transfer.full_stroke".into(),
                label: "Full stroke (ms)".into(),
                higher_is_better: false,
                values,
                median: 21.0,
            }],
        };
        let v = (0..n)
            .map(|i| {
                let f = Finding::new(
                    Severity::Fail,
                    "comparison",
                    crate::results::Code::WorseThanReference,
                    "too slow".into(),
                );
                crate::verdict::judge(if i == 5 { vec![f] } else { vec![] })
            })
            .collect();
        (c, v)
    }

    #[test]
    fn few_disks_side_by_side_many_a_row_each_failing_first() {
        let (c, v) = cmp(3);
        let text = render(&c, &v[..3], None);
        assert!(text.contains("| figure"), "{text}");
        let (c, v) = cmp(12);
        let text = render(&c, &v, None);
        assert!(text.contains("a row each"), "{text}");
        assert!(text.contains("Qualification: 11 of 12 passed"), "{text}");
        let d5 = text.find("| d5 ").unwrap();
        let d0 = text.find("| d0 ").unwrap();
        assert!(d5 < d0, "{text}");
        assert!(text.contains("\td5: FAIL\n\t\ttoo slow\n"), "{text}");
        assert!(!text.contains("d0: PASS"), "{text}");
    }

    #[test]
    fn a_narrow_terminal_gets_a_row_per_disk() {
        let (c, v) = cmp(6);
        assert!(render(&c, &v[..6], Some(40)).contains("a row each"));
        assert!(render(&c, &v[..6], None).contains("| figure"));
    }

    #[test]
    fn json_names_each_figure_and_verdict() {
        let (c, v) = cmp(6);
        let j: serde_json::Value = serde_json::from_str(&to_json(&c, &v[..6])).unwrap();
        assert_eq!(j["figures"][0]["key"], "seek_transfer.full_stroke");
        assert_eq!(j["disks"][5]["pass"], false);
        assert_eq!(j["disks"][0]["figures"]["seek_transfer.full_stroke"], 20.0);
        assert_eq!(j["failed"], 1);
    }
}
