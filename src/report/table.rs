//! A table view of a run: every measured line with its spread and percentiles;
//! seekprobe's own tests (zones, seek profile, scan, sweep, verify, capacity check,
//! SMR check) add their block as the text shows it, SMART its findings, and a
//! judged drive its verdict with every finding.

use super::diskinfo::{end_printed, test_end};
use crate::results::{Outcome, PhaseResult, Run, Verdict};
use comfy_table::{CellAlignment, Table, presets};

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// The rate column: KiB/s (diskinfo's kbytes/sec) for transfers, otherwise
/// operations per second.
fn rate(p: &PhaseResult) -> String {
    let s = p.elapsed_s();
    if s <= 0.0 {
        return "-".into();
    }
    if p.op_bytes >= 1 << 20 {
        format!("{:.0} KiB/s", p.bytes_done() as f64 / 1024.0 / s)
    } else {
        format!("{:.0} IOPS", p.ops_done() as f64 / s)
    }
}

/// One table per disk and test: a row per line of diskinfo's output.
pub fn render(run: &Run) -> String {
    let mut out = String::new();
    for disk in &run.disks {
        let Some(info) = &disk.info else {
            out.push_str(&format!(
                "{}: {}\n",
                disk.name,
                disk.error.as_ref().map_or("not probed", |e| e.message())
            ));
            if let Some(v) = &disk.verdict {
                out.push_str(&verdict(v));
            }
            out.push('\n');
            continue;
        };
        out.push_str(&format!(
            "{}: {} bytes, {}-byte sectors{}\n",
            disk.name,
            info.media_size_bytes,
            info.sector_size,
            info.descr
                .as_deref()
                .map(|d| format!(", {d}"))
                .unwrap_or_default()
        ));
        for test in &disk.tests {
            let mut t = Table::new();
            t.load_style(presets::ASCII_MARKDOWN);
            t.set_header(vec![
                "line", "ops", "total s", "mean ms", "stddev", "min", "p50", "p90", "p99", "p99.9",
                "max", "rate",
            ]);
            for p in &test.phases {
                let Some(s) = &p.summary else { continue };
                t.add_row(vec![
                    p.id.name().to_string(),
                    p.ops_done().to_string(),
                    format!("{:.6}", p.elapsed_s()),
                    ms(s.mean_ns),
                    ms(s.stddev_ns),
                    ms(s.min_ns as f64),
                    ms(s.p50_ns as f64),
                    ms(s.p90_ns as f64),
                    ms(s.p99_ns as f64),
                    ms(s.p999_ns as f64),
                    ms(s.max_ns as f64),
                    rate(p),
                ]);
            }
            for col in 1..12 {
                if let Some(c) = t.column_mut(col) {
                    c.set_cell_alignment(CellAlignment::Right);
                }
            }
            out.push_str(&format!(
                "\n{} — {}:\n",
                test.test.name(),
                outcome(&test.outcome)
            ));
            if !t.is_empty() {
                out.push_str(&format!("{t}\n"));
            }
            if let Some(c) = &test.command_overhead() {
                out.push_str(&format!(
                    "command overhead per {}-byte sector: {:.3} ms ({:.3} ms per sector of the 10 MB block, {:.3} ms per single-sector read)\n",
                    c.sector_bytes, c.overhead_ms, c.mega_ms_per_sector, c.sector_ms_per_read
                ));
            }
            if end_printed(test) {
                // The own tests' blocks (diskinfo's tests end with a blank line only).
                let block = test_end(test, info);
                if block.trim().is_empty() {
                    continue;
                }
                out.push_str(&block);
            }
        }
        if let Some(smart) = &disk.smart {
            out.push_str(&super::smart::render_result(smart, &info.path));
        }
        for w in &disk.warnings {
            out.push_str(&format!("warning: {}; {}\n", w.message, w.advice));
        }
        if let Some(v) = &disk.verdict {
            out.push_str(&verdict(v));
        }
        out.push('\n');
    }
    out
}

fn outcome(o: &Outcome) -> String {
    match o {
        Outcome::Complete => "complete".into(),
        Outcome::Interrupted => "interrupted".into(),
        Outcome::Failed(e) => format!("failed: {e}"),
        Outcome::Skipped(e) => format!("skipped: {e}"),
    }
}

/// The drive's verdict as a table of its findings: "verdict: " and its state
/// (PASS, PASS with warnings, FAIL, INCOMPLETE), then a
/// row per finding (severity, test, reason).
fn verdict(v: &Verdict) -> String {
    let mut s = format!("\nverdict: {}\n", v.word());
    if v.findings.is_empty() {
        return s;
    }
    let mut t = Table::new();
    t.load_style(presets::ASCII_MARKDOWN);
    t.set_header(vec!["severity", "test", "finding"]);
    for f in &v.findings {
        t.add_row(vec![f.severity.name(), f.test.as_str(), f.reason.as_str()]);
    }
    s.push_str(&format!("{t}\n"));
    s
}
