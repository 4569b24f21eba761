//! The "SMART health" text block (printed after diskinfo's text), the changes
//! between two readings, and the findings: pure functions of the data.

use crate::results::health::Health;
use crate::results::smart::{SelfTestOutcome, SelfTestRecord, SmartResult, TemperatureLog};
use crate::results::{Finding, Severity};
use std::fmt::Write;

/// One line of the block: the value, what it is, and whether a change of it
/// during a run is worth showing (temperature and power-on hours always move).
pub struct SmartRow {
    /// The value as the block prints it.
    pub value: String,
    /// What it is.
    pub what: String,
    /// Whether a change during the run is marked.
    pub compared: bool,
}

/// The block's lines of one reading, in the block's order.
pub fn rows(h: &Health) -> Vec<SmartRow> {
    let mut v = Vec::new();
    let mut row = |value: String, what: &str, compared: bool| {
        v.push(SmartRow {
            value,
            what: what.into(),
            compared,
        })
    };
    if let Some(p) = h.passed {
        let s = if p { "PASSED" } else { "FAILED" };
        row(s.into(), "overall assessment", true);
    }
    ata_rows(h, &mut row);
    attribute_rows(h, &mut row);
    scsi_rows(h, &mut row);
    nvme_rows(h, &mut row);
    if let Some(t) = h.temperature_c {
        row(t.to_string(), "temperature now, °C", false);
    }
    if let Some(t) = h.temperature_max_c {
        row(t.to_string(), "highest temperature recorded, °C", false);
    }
    if let Some(p) = h.power_on_hours {
        row(p.to_string(), "power-on hours", false);
    }
    usage_rows(h, &mut row);
    self_test_row(h, &mut row);
    v
}

/// The ATA counters the rules watch.
fn ata_rows(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    if let Some(a) = &h.ata {
        let counters = [
            (a.reallocated, "reallocated sectors (ATA 5)"),
            (a.reallocation_events, "reallocation events (ATA 196)"),
            (a.pending, "pending sectors (ATA 197)"),
            (a.offline_uncorrectable, "offline uncorrectable (ATA 198)"),
            (a.reported_uncorrectable, "reported uncorrectable (ATA 187)"),
        ];
        for (n, what) in counters {
            if let Some(n) = n {
                row(n.to_string(), what, true);
            }
        }
        if let Some(t) = a.command_timeouts {
            let what = if t.packed {
                format!(
                    "command timeouts (ATA 188; {} over 5 s, {} over 7.5 s)",
                    t.over_5s, t.over_7_5s
                )
            } else {
                "command timeouts (ATA 188)".to_string()
            };
            row(t.total.to_string(), &what, true);
        }
        if let Some(n) = a.udma_crc_errors {
            row(
                n.to_string(),
                "UDMA CRC errors (ATA 199; cable or controller)",
                true,
            );
        }
    }
}

/// The attributes that cannot be read, are not judged, or are past their
/// threshold.
fn attribute_rows(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    for a in &h.unreadable {
        row(
            "unreadable".into(),
            &format!(
                "raw value of ATA {} {}: {}",
                a.id,
                a.name,
                crate::smart::health::raw_in_words(a)
            ),
            true,
        );
    }
    for a in &h.not_judged {
        row(
            "not judged".into(),
            &format!(
                "ATA {} {}: this family uses the number for something else",
                a.id, a.name
            ),
            false,
        );
    }
    for a in &h.failed_attributes {
        let when = if a.now { "now" } else { "in the past" };
        row(
            format!("{} {}", a.id, a.name),
            &format!("attribute at or below its threshold {when}"),
            true,
        );
    }
}

/// A SCSI drive's grown defects and uncorrected errors.
fn scsi_rows(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    if let Some(s) = &h.scsi {
        let counters = [
            (s.grown_defects, "grown defects (SCSI)"),
            (s.read_uncorrected, "uncorrected read errors (SCSI)"),
            (s.write_uncorrected, "uncorrected write errors (SCSI)"),
            (s.verify_uncorrected, "uncorrected verify errors (SCSI)"),
        ];
        for (n, what) in counters {
            if let Some(n) = n {
                row(n.to_string(), what, true);
            }
        }
    }
}

/// An NVMe drive's critical warning, errors, endurance used and spare.
fn nvme_rows(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    if let Some(n) = &h.nvme {
        if let Some(w) = n.critical_warning {
            let named: Vec<&str> = n.warnings.iter().map(|w| w.describe()).collect();
            let what = if named.is_empty() {
                "critical warning (NVMe): none".to_string()
            } else {
                format!("critical warning (NVMe): {}", named.join("; "))
            };
            row(format!("0x{w:02x}"), &what, true);
        }
        let counters = [
            (n.media_errors, "media and data integrity errors (NVMe)"),
            (n.error_log_entries, "error log entries (NVMe)"),
        ];
        for (c, what) in counters {
            if let Some(c) = c {
                row(c.to_string(), what, true);
            }
        }
        if let Some(u) = n.percentage_used {
            row(format!("{u}%"), "of rated endurance used (NVMe)", true);
        }
        if let Some(s) = n.available_spare {
            let t = n
                .available_spare_threshold
                .map(|t| format!(", threshold {t}%"))
                .unwrap_or_default();
            row(format!("{s}%"), &format!("available spare (NVMe{t})"), true);
        }
    }
}

/// The last self-test's outcome.
fn self_test_row(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    if let Some(t) = &h.last_self_test {
        let when = t
            .power_on_hours
            .map(|p| format!(" at {p} h"))
            .unwrap_or_default();
        let lba = t
            .first_error_lba
            .map(|l| format!(", first error at LBA {l}"))
            .unwrap_or_default();
        row(
            t.status.clone(),
            &format!("last self-test: {}{when}{lba}", t.test),
            true,
        );
    }
}

/// The rows of use, wear, FARM and the error recovery timers.
fn usage_rows(h: &Health, row: &mut dyn FnMut(String, &str, bool)) {
    let u = &h.usage;
    if let Some(n) = u.power_cycles {
        row(n.to_string(), "power cycles", false);
    }
    if let Some(n) = u.load_cycles {
        row(n.to_string(), "head load cycles", false);
    }
    if let Some(b) = u.host_written_bytes {
        let src = u.host_writes_source.as_deref().unwrap_or("host writes");
        row(
            format!("{}", b >> 30),
            &format!("GiB written by the host ({src})"),
            false,
        );
    }
    if let Some(w) = &u.host_writes_unknown {
        row(
            "unknown".into(),
            &format!(
                "GiB written by the host ({}: raw {}, unit not known or too large for the hours)",
                w.source, w.raw
            ),
            false,
        );
    }
    for w in &u.wear {
        row(
            format!("{}%", w.used_percent),
            &format!("of rated life used ({})", w.source),
            false,
        );
    }
    if let Some(f) = &h.farm {
        if let Some(p) = f.power_on_hours {
            row(p.to_string(), "power-on hours (Seagate FARM)", false);
        }
        if let Some(t) = &f.recording_type {
            row(t.clone(), "recording type (Seagate FARM)", false);
        }
    }
    if let Some(e) = crate::smart::erc::describe(h) {
        row(e, "error recovery control (SCT ERC)", false);
    }
}

/// C's `%-12s`, as diskinfo's -v lines use it.
fn left12(s: &str) -> String {
    format!("{s:<12}")
}

/// The heading: what was read, through which smartctl.
fn heading(h: &Health) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &h.device {
        parts.push(d.clone());
    }
    if let Some(m) = &h.model {
        parts.push(m.clone());
    }
    if let Some(p) = h.protocol {
        parts.push(p.name().into());
    }
    if let Some(v) = &h.smartctl_version {
        parts.push(format!("smartctl {v}"));
    }
    if parts.is_empty() {
        "SMART health\n".into()
    } else {
        format!("SMART health ({})\n", parts.join(", "))
    }
}

/// The "SMART health" block: one figure per line in diskinfo's -v layout, a
/// blank line after.
pub fn render_health(h: &Health) -> String {
    let mut s = heading(h);
    for r in rows(h) {
        let _ = writeln!(s, "\t{}\t# {}", left12(&r.value), r.what);
    }
    if let Some(e) = h.exit_status.filter(|e| e.0 != 0) {
        let _ = writeln!(
            s,
            "\t{}\t# smartctl exit status: {}",
            left12(&e.0.to_string()),
            e.meanings().join("; ")
        );
    }
    s.push('\n');
    s
}

/// The figures that changed between two readings (the "before -> after" block),
/// or None when nothing did.
pub fn render_diff(before: &Health, after: &Health) -> Option<String> {
    let b = rows(before);
    let a = rows(after);
    let mut s = String::new();
    for r in a.iter().filter(|r| r.compared) {
        let old = b.iter().find(|o| same_figure(&o.what, &r.what));
        let old = old.map_or("-", |o| o.value.as_str());
        if old != r.value {
            let change = format!("{old} -> {}", r.value);
            let _ = writeln!(s, "\t{}\t# {}", left12(&change), r.what);
        }
    }
    for what in vanished(before, after) {
        let old = b.iter().find(|o| o.what == what).map_or("", |o| &o.value);
        let change = format!("{old} -> not reported");
        let _ = writeln!(s, "\t{}\t# {what}", left12(&change));
    }
    (!s.is_empty()).then(|| format!("SMART changes during the run\n{s}\n"))
}

/// The figures the first reading had and the second one lacks: a drive (or a
/// smartctl) that stops reporting a counter mid-run is worth a warning, never
/// a blank.
pub fn vanished(before: &Health, after: &Health) -> Vec<String> {
    let a = rows(after);
    rows(before)
        .into_iter()
        .filter(|r| r.compared && !a.iter().any(|n| same_figure(&n.what, &r.what)))
        .map(|r| r.what)
        .collect()
}

/// The warning lines for [`vanished`] figures.
pub fn render_vanished(before: &Health, after: &Health) -> String {
    vanished(before, after)
        .iter()
        .map(|w| format!("warning: {w}: in the first report, missing from the second\n"))
        .collect()
}

/// Why two readings cannot be of the same drive (serial number, model or
/// protocol differ), or None when nothing known differs.
pub fn different_drives(before: &Health, after: &Health) -> Option<String> {
    let mut why = Vec::new();
    let mut check = |what: &str, b: Option<&str>, a: Option<&str>| {
        if let (Some(b), Some(a)) = (b, a)
            && b != a
        {
            why.push(format!("{what} {b} vs {a}"));
        }
    };
    check("serial", before.serial.as_deref(), after.serial.as_deref());
    check("model", before.model.as_deref(), after.model.as_deref());
    check(
        "protocol",
        before.protocol.map(|p| p.name()),
        after.protocol.map(|p| p.name()),
    );
    (!why.is_empty()).then(|| why.join(", "))
}

/// Rows name the same figure when their descriptions agree up to the first
/// detail in brackets or after a colon (the 188 line carries its sub-counts,
/// the NVMe warning line its named bits).
pub fn same_figure(a: &str, b: &str) -> bool {
    let key = |s: &str| -> String {
        s.split([';', ':'])
            .next()
            .unwrap_or(s)
            .trim_end_matches(')')
            .to_string()
    };
    key(a) == key(b)
}

/// The findings, one per line ("FAIL: ...", "warning: ...", "note: ..."), and the
/// verdict of the one judge on them.
pub fn render_findings(findings: &[Finding]) -> String {
    let mut s = String::new();
    for f in findings {
        let _ = writeln!(s, "{}: {}", f.severity.label(), f.reason);
    }
    let failing = findings
        .iter()
        .any(|f| f.severity == Severity::Fail && !f.cannot_judge());
    let verdict = if crate::verdict::judge(crate::verdict::smart_rule_findings(findings)).passes() {
        "SMART verdict: healthy"
    } else if failing {
        "SMART verdict: FAILING"
    } else {
        "SMART verdict: cannot be judged"
    };
    let _ = writeln!(s, "{verdict}");
    s
}

/// The one-line note for a device without SMART (smartctl's messages often start
/// with the device's name already; it is not repeated).
pub fn no_smart_note(device: &str, note: &str) -> String {
    let note = note.strip_prefix(&format!("{device}: ")).unwrap_or(note);
    format!("{device}: no SMART: {note}\n")
}

/// The "SMART self-tests" block: each self-test asked for, how it ended.
pub fn render_self_tests(tests: &[SelfTestRecord]) -> String {
    if tests.is_empty() {
        return String::new();
    }
    let mut s = "SMART self-tests\n".to_string();
    for t in tests {
        let lba = t
            .first_error_lba
            .map(|l| format!(", first error at LBA {l}"))
            .unwrap_or_default();
        let took = match t.outcome {
            SelfTestOutcome::Skipped => String::new(),
            _ => format!(" ({})", minutes(t.elapsed_s)),
        };
        let outcome = match t.outcome {
            SelfTestOutcome::Passed => "passed",
            SelfTestOutcome::Failed => "FAILED",
            SelfTestOutcome::Aborted => "aborted",
            SelfTestOutcome::Interrupted => "interrupted",
            SelfTestOutcome::Skipped => "skipped",
        };
        let status = if t.outcome == SelfTestOutcome::Skipped {
            t.status.trim_start_matches("skipped: ").to_string()
        } else {
            t.status.clone()
        };
        let _ = writeln!(
            s,
            "\t{}\t# {} self-test {outcome}: {status}{lba}{took}",
            left12(outcome),
            t.kind.arg()
        );
    }
    s.push('\n');
    s
}

/// The "Temperatures during the run" block: lowest and highest reading, the
/// limit and the pauses of the drive's writes.
pub fn render_temperatures(t: &TemperatureLog) -> String {
    let mut s = "Temperatures during the run\n".to_string();
    let n = t.samples.len();
    match (t.min_c(), t.max_c()) {
        (Some(lo), Some(hi)) => {
            let _ = writeln!(
                s,
                "\t{}\t# lowest, °C ({n} readings)",
                left12(&lo.to_string())
            );
            let _ = writeln!(s, "\t{}\t# highest, °C", left12(&hi.to_string()));
        }
        _ => {
            let _ = writeln!(s, "\t{}\t# no reading: the drive did not say", left12("-"));
        }
    }
    let _ = writeln!(
        s,
        "\t{}\t# limit, °C ({})",
        left12(&t.limit_c.to_string()),
        t.limit_source
    );
    if !t.pauses.is_empty() {
        let _ = writeln!(
            s,
            "\t{}\t# writes paused (too hot), {} s in all",
            left12(&t.pauses.len().to_string()),
            t.paused_s()
        );
    }
    s.push('\n');
    s
}

/// A self-test's duration in words: seconds under two minutes, else minutes.
fn minutes(s: f64) -> String {
    if s < 120.0 {
        format!("{s:.0} s")
    } else {
        format!("{:.0} min", s / 60.0)
    }
}

/// What `--smart` and `--smart-test` found on a disk, as the live run prints it
/// after diskinfo's text: the no-SMART note, or the health block (the reading
/// after the tests, else the one before), the changes, the self-tests, the
/// findings and the verdict. Errors go to standard error, not here.
pub fn render_result(r: &SmartResult, device: &str) -> String {
    let mut s = String::new();
    if let Some(note) = &r.note {
        s.push_str(&no_smart_note(device, note));
        s.push_str(&render_self_tests(&r.self_tests));
        s.push('\n');
        return s;
    }
    let Some(before) = &r.before else {
        return s;
    };
    s.push_str(&render_health(r.after.as_ref().unwrap_or(before)));
    if let Some(after) = &r.after
        && let Some(diff) = render_diff(before, after)
    {
        s.push_str(&diff);
    }
    s.push_str(&render_self_tests(&r.self_tests));
    if let Some(t) = &r.temperature {
        s.push_str(&render_temperatures(t));
    }
    if r.after.is_some() {
        s.push_str(&render_findings(&r.findings));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::{AtaCounters, CommandTimeouts, ExitStatus, Protocol};

    fn drive(pending: u64) -> Health {
        Health {
            device: Some("/dev/sdb".into()),
            model: Some("ST3500418AS".into()),
            protocol: Some(Protocol::Ata),
            smartctl_version: Some("7.3".into()),
            exit_status: Some(ExitStatus(64)),
            passed: Some(true),
            ata: Some(AtaCounters {
                reallocated: Some(1),
                pending: Some(pending),
                command_timeouts: Some(CommandTimeouts::from_raw(0x0001_0002_0003)),
                ..Default::default()
            }),
            temperature_c: Some(32),
            power_on_hours: Some(44670),
            ..Default::default()
        }
    }

    #[test]
    fn the_block_in_diskinfos_layout() {
        assert_eq!(
            render_health(&drive(0)),
            "SMART health (/dev/sdb, ST3500418AS, ATA, smartctl 7.3)\n\
             \tPASSED      \t# overall assessment\n\
             \t1           \t# reallocated sectors (ATA 5)\n\
             \t0           \t# pending sectors (ATA 197)\n\
             \t3           \t# command timeouts (ATA 188; 2 over 5 s, 1 over 7.5 s)\n\
             \t32          \t# temperature now, °C\n\
             \t44670       \t# power-on hours\n\
             \t64          \t# smartctl exit status: the device error log holds errors\n\n"
        );
    }

    #[test]
    fn the_no_smart_note_names_the_device_once() {
        assert_eq!(
            no_smart_note("/dev/loop1", "/dev/loop1: Unable to detect device type"),
            "/dev/loop1: no SMART: Unable to detect device type\n"
        );
        assert_eq!(
            no_smart_note("-", "/dev/loop1: Unable to detect device type"),
            "-: no SMART: /dev/loop1: Unable to detect device type\n"
        );
    }

    #[test]
    fn the_diff_shows_only_what_changed() {
        assert_eq!(render_diff(&drive(0), &drive(0)), None);
        let mut after = drive(2);
        after.temperature_c = Some(40);
        assert_eq!(
            render_diff(&drive(0), &after).unwrap(),
            "SMART changes during the run\n\t0 -> 2      \t# pending sectors (ATA 197)\n\n"
        );
    }
}
