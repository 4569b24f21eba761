//! The "Path check" block of text (`--path-check`): each drive's path, its rates
//! alone and together, and the check's findings, each said once (a group's note
//! is every drive's of the group).

use crate::results::Run;
use crate::results::path::PathDrive;
use std::fmt::Write;

/// The block, empty when no drive of the run has a path check.
pub fn render(run: &Run) -> String {
    let checked: Vec<_> = run
        .disks
        .iter()
        .filter_map(|d| d.path_check.as_ref().map(|p| (&d.name, p)))
        .collect();
    let Some(n) = checked.iter().map(|(_, p)| p.drives_together).max() else {
        return String::new();
    };
    let mut s = format!("\nPath check: {n} drives read alone, then all at once (read-only)\n");
    let mut said: Vec<&str> = Vec::new();
    for (name, p) in &checked {
        s.push_str(&render_drive(name, p));
    }
    for (_, p) in &checked {
        for f in &p.findings {
            if !said.contains(&f.reason.as_str()) {
                said.push(&f.reason);
                let _ = writeln!(s, "{}: {}", f.severity.name(), f.reason);
            }
        }
    }
    // Only a check that ran to its end on every drive can say that every drive holds.
    if said.is_empty() && checked.iter().all(|(_, p)| p.complete()) {
        s.push_str("no path finding: every drive holds its rate with the others running\n");
    }
    s
}

/// One drive's lines of the block: its name, path, rates alone and together.
pub fn render_drive(name: &str, p: &PathDrive) -> String {
    let mut s = format!("{name}\n");
    let path = match (p.group.known(), p.group.bandwidth) {
        (false, _) => "unknown (a group of its own)".to_string(),
        (true, Some(b)) => format!("{} ({:.0} MB/s)", p.group.name, b / 1e6),
        (true, None) => p.group.name.clone(),
    };
    let _ = writeln!(s, "\tpath: {path}");
    if !p.group.detail.is_empty() {
        let _ = writeln!(s, "\t      {}", p.group.detail);
    }
    let pct = |r: Option<f64>| r.map_or("-".to_string(), |r| format!("{:.0}%", r * 100.0));
    let _ = writeln!(
        s,
        "\tsequential: {:.1} MB/s alone, {:.1} MB/s together ({})",
        p.alone() / 1e6,
        p.together() / 1e6,
        pct(p.seq_ratio())
    );
    let _ = writeln!(
        s,
        "\tseek stress: {:.0} reads/s alone, {:.0} together ({})",
        p.seek_alone_iops,
        p.seek_together_iops,
        pct(p.seek_ratio())
    );
    if let Some(e) = &p.error {
        let _ = writeln!(s, "\tstopped: {e}");
    } else if p.interrupted {
        let _ = writeln!(s, "\tinterrupted: the phase it cut is not kept");
    }
    s
}
