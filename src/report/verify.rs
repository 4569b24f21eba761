//! The "Write and verify" block of `--verify`: per pass the write and read rates
//! (overall and the slowest and fastest regions of the curve), the service-time
//! buckets, the slow ranges and every failed range with its kind; where an
//! interrupted run stopped and the `--start` that resumes it.

use crate::results::TestResult;
use crate::results::failures::{FailedRange, FailureKind};
use crate::results::verify::{Half, HalfKind, VerifyResult};
use crate::test_plans::scan::BUCKET_LIMITS_MS;
use std::fmt::Write;

fn mb(bytes_per_s: f64) -> String {
    format!("{:.1} MB/s", bytes_per_s / 1e6)
}

fn span(first: u64, n: u64) -> String {
    if n == 1 {
        format!("sector {first}")
    } else {
        format!("sectors {first}-{} ({n})", first + n - 1)
    }
}

/// One half's lines.
fn half(s: &mut String, r: &VerifyResult, pass: u32, name: &str, h: &Half) {
    let secs = h.elapsed_ns as f64 / 1e9;
    let flush = h.flush_ns.map_or(String::new(), |ns| {
        format!(", flush {:.3} sec", ns as f64 / 1e9)
    });
    let _ = writeln!(
        s,
        "\tpass {} {name:<6}{:>14} bytes in {secs:.3} sec ({}){flush}",
        pass + 1,
        h.bytes,
        mb(h.rate())
    );
    if h.retried_bytes > 0 {
        let _ = writeln!(
            s,
            "\t\tplus {} bytes of the failed blocks {} while locating their failed sectors after the half (untimed, not in the rate)",
            h.retried_bytes,
            if name == "write" {
                "written"
            } else {
                "read back"
            }
        );
    }
    for &[first, n] in &h.inferred {
        let _ = writeln!(
            s,
            "\t\tsectors {first}-{} ({n}) recorded failed without reading each one: inside a long failed area",
            first + n - 1
        );
    }
    let curve = h.curve();
    let span_bytes = (r.end_bytes - r.start_bytes).max(1);
    let pct = |i: usize| 100.0 * i as f64 / curve.len().max(1) as f64;
    let timed: Vec<(usize, f64)> = curve
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, v)| v > 0.0)
        .collect();
    if let (Some(lo), Some(hi)) = (
        timed.iter().min_by(|a, b| a.1.total_cmp(&b.1)),
        timed.iter().max_by(|a, b| a.1.total_cmp(&b.1)),
    ) && span_bytes > r.block_bytes
    {
        let _ = writeln!(
            s,
            "\t\tcurve over {} regions: min {} at {:.0}%, max {} at {:.0}%",
            curve.len(),
            mb(lo.1),
            pct(lo.0),
            mb(hi.1),
            pct(hi.0)
        );
    }
    let mut b = String::new();
    for (i, n) in h.buckets.iter().enumerate() {
        let label = match BUCKET_LIMITS_MS.get(i) {
            Some(ms) => format!("<{ms} ms"),
            None => format!(">={} ms", BUCKET_LIMITS_MS[BUCKET_LIMITS_MS.len() - 1]),
        };
        let _ = write!(b, "{}{label}: {n}", if i == 0 { "" } else { ", " });
    }
    let _ = writeln!(s, "\t\t{b}; errors: {}", h.error_blocks);
    let slow = format!("slow (>= {} ms)", r.slow_ms);
    let slow_line = |sl: &crate::results::SlowRange| {
        format!(
            "{}, up to {:.1} ms{}",
            span(sl.first_sector, sl.sectors),
            sl.max_ns as f64 / 1e6,
            super::beyond::slow_timing(sl.timed)
        )
    };
    super::ranges::write(
        s,
        ("\t\t", &slow),
        &h.slow,
        slow_line,
        |sl| (sl.first_sector, sl.sectors),
        |sl| sl.max_ns,
    );
    if h.unconfirmed > 0 {
        let _ = writeln!(
            s,
            "\t\tslow in the queued pass, not when done again alone: {} blocks (not listed)",
            h.unconfirmed
        );
    }
}

/// A failed range in words: its sectors, and for a misdirected or stale one
/// whose stamps it holds.
fn failed(f: &FailedRange) -> String {
    let mut s = span(f.start_lba, f.sectors);
    match (f.kind, f.found_lba, f.found_pass) {
        (FailureKind::Misdirected, Some(lba), Some(pass)) => {
            let _ = write!(
                s,
                ", holding the stamps of {} (pass {})",
                span(lba, f.sectors),
                pass + 1
            );
        }
        (FailureKind::Stale, _, Some(pass)) => {
            let _ = write!(s, ", holding pass {}'s stamps", pass + 1);
        }
        _ => {}
    }
    s
}

/// The block of a `--verify` test.
pub fn block(t: &TestResult) -> String {
    render(t, false)
}

/// The block of a burn-in's write-verify pass: as [`block`], but an interrupted
/// pass is resumed by the burn-in's `--resume` (from its checkpoint), not `--start`.
pub fn burn_in_block(t: &TestResult) -> String {
    render(t, true)
}

fn render(t: &TestResult, burn_in: bool) -> String {
    let Some(r) = &t.verify() else {
        return String::new();
    };
    let mut s = format!(
        "Write and verify: bytes {} to {} in {}-byte blocks, {} deep ({}), {} pass{}, nonce {:#018x}:\n",
        r.start_bytes,
        r.end_bytes,
        r.block_bytes,
        r.queue_depth,
        r.engine.name(),
        r.passes_planned,
        if r.passes_planned == 1 { "" } else { "es" },
        r.nonce
    );
    for p in &r.passes {
        if p.write.blocks == 0 && p.read.is_some() && r.end_bytes > r.start_bytes {
            // Resumed in its read half: written before the interruption.
            let _ = writeln!(
                s,
                "\tpass {} write: done before the interruption (not timed in this run)",
                p.pass + 1
            );
        } else {
            half(&mut s, r, p.pass, "write", &p.write);
        }
        if let Some(h) = &p.read {
            half(&mut s, r, p.pass, "read", h);
        }
        let f = &p.failures;
        let counts: Vec<String> = FailureKind::ALL
            .iter()
            .filter(|&&k| f.count(k) > 0)
            .map(|&k| format!("{} {}", f.count(k), k.name()))
            .collect();
        let _ = writeln!(
            s,
            "\tpass {}: {} failed sector{}{}",
            p.pass + 1,
            f.total(),
            if f.total() == 1 { "" } else { "s" },
            if counts.is_empty() {
                String::new()
            } else {
                format!(" ({})", counts.join(", "))
            }
        );
        // The kinds of few ranges listed in the order found, a line each; each
        // kind of many summarised after them.
        let of = |k: FailureKind| f.ranges().iter().filter(move |r| r.kind == k);
        let many: Vec<FailureKind> = (FailureKind::ALL.into_iter())
            .filter(|&k| of(k).count() > super::ranges::LISTED)
            .collect();
        for range in f.ranges().iter().filter(|r| !many.contains(&r.kind)) {
            let _ = writeln!(s, "\t\t{}: {}", range.kind.name(), failed(range));
        }
        for k in many {
            let ranges: Vec<&FailedRange> = of(k).collect();
            super::ranges::write(
                &mut s,
                ("\t\t", k.name()),
                &ranges,
                |r| failed(r),
                |r| (r.start_lba, r.sectors),
                |r| r.sectors,
            );
        }
        if let Some(o) = f.overflow() {
            let _ = writeln!(
                s,
                "\t\tand {} more failed sectors between sector {} and {}",
                o.sectors,
                o.start_lba,
                o.end_lba - 1
            );
        }
    }
    if let Some(k) = &r.keeps_only {
        let _ = writeln!(
            s,
            "\tfake capacity: the drive keeps only the first {} bytes written ({:.1} MiB): nothing written from byte {} on was read back; pass {} stopped writing at byte {} and read back only what was kept",
            k.kept_bytes,
            k.kept_bytes as f64 / f64::from(1u32 << 20),
            k.lost_from,
            k.pass + 1,
            k.written_to
        );
    }
    if let Some(u) = &r.unanswered {
        let _ = writeln!(s, "\t{}", u.line());
    }
    if let Some(c) = &r.size_changed {
        let _ = writeln!(s, "\t{}", c.line());
    }
    if let Some(st) = &r.stopped {
        let what = match st.half {
            HalfKind::Write => "writing",
            HalfKind::Read => "reading back",
        };
        let hint = if burn_in {
            "the burn-in's --resume goes on from its last checkpoint".to_string()
        } else {
            format!("resume with --start {}", st.resume_start)
        };
        let _ = writeln!(
            s,
            "\tinterrupted in pass {} while {what}, at byte {}: {hint}",
            st.pass + 1,
            st.at_bytes,
        );
    }
    s.push('\n');
    s
}
