//! The text of seekprobe's own tests (beyond diskinfo): the zone curve, the seek
//! profile, the surface scan and the block sweep, each a block ending with a blank
//! line.

use super::chart::{curve, curve_from_zero};
use crate::results::{SeekAnalysis, SeekFigure, TestResult};
use crate::test_plans::scan::BUCKET_LIMITS_MS;
use std::fmt::Write;

/// Width of the text charts, in characters (their height is [`HEIGHT`] lines).
const WIDTH: usize = 60;
const HEIGHT: usize = 10;

fn mb(bytes_per_s: f64) -> String {
    format!("{:.1} MB/s", bytes_per_s / 1e6)
}

fn size(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The block of a `--zones` test.
pub fn zones(t: &TestResult, media_size: u64) -> String {
    let Some(c) = &t.zone_curve() else {
        return String::new();
    };
    let sample = t.phases.first().map_or(0, |p| p.bytes_done());
    let pct = |off: u64| 100.0 * off as f64 / media_size.max(1) as f64;
    let at = |r: f64| {
        c.points
            .iter()
            .find(|p| p.rate_bytes_per_s == r)
            .map_or(0.0, |p| pct(p.offset_bytes))
    };
    let mut s = format!(
        "Zone transfer curve ({} samples of {}):\n",
        c.points.len(),
        size(sample)
    );
    let _ = writeln!(
        s,
        "\tmax:        {:>12} at {:.1}%",
        mb(c.max_bytes_per_s),
        at(c.max_bytes_per_s)
    );
    let _ = writeln!(
        s,
        "\tmin:        {:>12} at {:.1}%",
        mb(c.min_bytes_per_s),
        at(c.min_bytes_per_s)
    );
    let _ = writeln!(s, "\tmean:       {:>12}", mb(c.mean_bytes_per_s));
    let _ = writeln!(s, "\touter/inner ratio: {:.2}", c.outer_inner_ratio);
    let _ = writeln!(s, "\tzone steps: {}", c.steps.len());
    if let Some(w) = &t.write_curve() {
        let _ = writeln!(
            s,
            "\twrites (-w): max {}, min {}, mean {}, outer/inner ratio {:.2}",
            mb(w.max_bytes_per_s),
            mb(w.min_bytes_per_s),
            mb(w.mean_bytes_per_s),
            w.outer_inner_ratio
        );
    }
    let pts: Vec<(f64, f64)> = c
        .points
        .iter()
        .map(|p| (pct(p.offset_bytes), p.rate_bytes_per_s / 1e6))
        .collect();
    s.push_str(&curve(
        &pts,
        WIDTH,
        HEIGHT,
        "MB/s",
        "0% (outer)",
        "100% (inner)",
    ));
    s.push('\n');
    s
}

/// What the end of a slow line says of how its blocks were timed.
pub(crate) fn slow_timing(t: crate::results::SlowTiming) -> &'static str {
    use crate::results::SlowTiming;
    match t {
        SlowTiming::Queued => "",
        SlowTiming::Alone => ", read alone",
        SlowTiming::Confirmed => ", confirmed alone",
    }
}

fn ms(ns: f64) -> String {
    format!("{:.3}", ns / 1e6)
}

/// The block of a `--seek-profile` test.
pub fn seek_profile(t: &TestResult, sector_size: u32) -> String {
    let (Some(a), Some(samples)) = (&t.seek_analysis(), &t.seek_samples()) else {
        return String::new();
    };
    let ss = u64::from(sector_size);
    let mut s = format!(
        "Seek profile ({} reads at random distances, {} at {}):\n",
        samples.latencies_ns.len(),
        samples.rotation_latencies_ns.len(),
        size(samples.rotation_distance_sectors * ss)
    );
    let _ = writeln!(
        s,
        "\t{:>23}  {:>6}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
        "distance", "reads", "mean ms", "min ms", "p50 ms", "p90 ms", "curve ms"
    );
    for b in &a.bins {
        let range = format!(
            "{} - {}",
            size(b.from_sectors * ss),
            size(b.to_sectors * ss)
        );
        let m = &b.summary;
        let _ = writeln!(
            s,
            "\t{range:>23}  {:>6}  {:>9}  {:>9}  {:>9}  {:>9}  {:>9}",
            m.count,
            ms(m.mean_ns),
            ms(m.min_ns as f64),
            ms(m.p50_ns as f64),
            ms(m.p90_ns as f64),
            b.curve_mean_ns.map_or("-".into(), ms)
        );
    }
    let fig = |label: &str, v: Option<f64>| match v {
        Some(v) => format!("\t{label:<24}{:>9} msec\n", ms(v)),
        None => format!("\t{label:<24}{:>9}\n", "-"),
    };
    s.push_str(&fig("rotational latency:", a.rotational_latency_ns));
    s.push_str(&seek_figures(a));
    match (a.measured_rpm, a.reported_rpm) {
        (Some(m), Some(r)) => {
            let flag = if a.rpm_disagrees {
                "; DISAGREES with the reported rate"
            } else {
                ""
            };
            let _ = writeln!(
                s,
                "\tmeasured rotation rate: {m:.0} rpm (reported {r}{flag})"
            );
        }
        (Some(m), None) => {
            let _ = writeln!(
                s,
                "\tmeasured rotation rate: {m:.0} rpm (the device reports none)"
            );
        }
        (None, _) => {
            let _ = writeln!(
                s,
                "\tmeasured rotation rate: none (the device says it does not rotate, or its latencies do not spread evenly over a revolution)"
            );
        }
    }
    let pts: Vec<(f64, f64)> = a
        .bins
        .iter()
        .map(|b| {
            (
                ((b.from_sectors * ss) as f64).log2(),
                b.summary.mean_ns / 1e6,
            )
        })
        .collect();
    let left = a
        .bins
        .first()
        .map_or(String::new(), |b| size(b.from_sectors * ss));
    let right = a
        .bins
        .last()
        .map_or(String::new(), |b| size(b.from_sectors * ss));
    s.push_str(&curve(
        &pts,
        WIDTH.min(a.bins.len() * 3).max(2),
        HEIGHT.min(8),
        "ms",
        &left,
        &right,
    ));
    s.push('\n');
    s
}

/// One seek figure: `value ± uncertainty msec`, how it was found, and a mark when
/// the uncertainty is more than a fifth of it; a run saved before the figures had
/// an uncertainty shows its old value (`legacy`) as it was.
fn seek_figure(label: &str, f: Option<&SeekFigure>, how: &str, legacy: Option<f64>) -> String {
    if let (None, Some(v)) = (f, legacy) {
        return format!(
            "\t{label:<24}{:>9} msec (a bin's mean less half a revolution)\n",
            ms(v)
        );
    }
    match f {
        Some(f) => {
            let from = if f.from_curve {
                "from the fitted curve"
            } else {
                how
            };
            let mark = if f.uncertain {
                "; UNCERTAIN: the uncertainty is more than a fifth of it"
            } else {
                ""
            };
            format!(
                "\t{label:<24}{:>9} ± {} msec ({from}, {} reads{mark})\n",
                ms(f.value_ns),
                ms(f.uncertainty_ns),
                f.samples
            )
        }
        None => format!("\t{label:<24}{:>9}\n", "-"),
    }
}

/// The seek figures of a seek profile, each with its uncertainty, and the curve.
fn seek_figures(a: &SeekAnalysis) -> String {
    let mut s = seek_figure(
        "track-to-track seek:",
        a.track_to_track.as_ref(),
        "hops of 1-2 cylinders, past the head-switch floor",
        a.track_to_track_ns,
    );
    if let Some(why) = &a.track_to_track_missing {
        let _ = writeln!(s, "\t  (not found: {why})");
    }
    s.push_str(&seek_figure(
        "head switch:",
        a.head_switch.as_ref(),
        "the floor below the seek's",
        None,
    ));
    s.push_str(&seek_figure(
        "average seek (1/3):",
        a.average.as_ref(),
        "pairs a third of the stroke apart",
        a.average_ns,
    ));
    s.push_str(&seek_figure(
        "full stroke seek:",
        a.full_stroke.as_ref(),
        "pairs at the full stroke",
        a.full_stroke_ns,
    ));
    if a.fixed_cost.is_some() {
        s.push_str(&seek_figure(
            "fixed cost of a miss:",
            a.fixed_cost.as_ref(),
            "reads with no seek, taken out of the figures above",
            None,
        ));
    } else if a.track_to_track_ns.is_some() || a.average_ns.is_some() || a.full_stroke_ns.is_some()
    {
        s.push_str(
            "\t(seek figures hold the drive's fixed cost of a read that misses its cache: \
             it could not be measured)\n",
        );
    }
    if let Some(c) = &a.curve {
        let across = if c.radial {
            "of the stroke"
        } else {
            "of the sectors"
        };
        let _ = writeln!(
            s,
            "\tfitted seek curve: {} + {} * sqrt(f) msec up to f = {:.2}, then {} msec per stroke (f: fraction {across}; residuals {} msec rms)",
            ms(c.min_ns),
            ms(c.sqrt_ns),
            c.knee_fraction,
            ms(c.linear_ns_per_stroke),
            ms(c.rms_ns)
        );
    }
    s
}

/// The block of a `--scan` test.
pub fn scan(t: &TestResult) -> String {
    let Some(r) = &t.scan() else {
        return String::new();
    };
    let secs = r.elapsed_ns as f64 / 1e9;
    let mut s = format!(
        "Surface scan: bytes {} to {} in {} blocks, {} reads in {:.3} sec ({}):\n",
        r.start_bytes,
        r.end_bytes,
        size(r.block_bytes),
        r.blocks_read,
        secs,
        mb(if secs > 0.0 {
            r.bytes_read as f64 / secs
        } else {
            0.0
        })
    );
    for (i, n) in r.buckets.iter().enumerate() {
        let label = match BUCKET_LIMITS_MS.get(i) {
            Some(ms) => format!("<{ms} ms:"),
            None => format!(">={} ms:", BUCKET_LIMITS_MS[BUCKET_LIMITS_MS.len() - 1]),
        };
        let _ = writeln!(s, "\t{label:<10}{n:>12}");
    }
    let _ = writeln!(s, "\t{:<10}{:>12}", "errors:", r.error_blocks);
    use crate::verdict::span;
    let sectors = |u: &crate::results::SectorRange| (u.first_sector, u.sectors);
    let words = |u: &crate::results::SectorRange| span(u.first_sector, u.sectors);
    super::ranges::write(
        &mut s,
        ("\t", "unreadable"),
        &r.unreadable,
        words,
        sectors,
        |u| u.sectors,
    );
    let what = "of which not read one by one (inside a long unreadable area)";
    super::ranges::write(&mut s, ("\t\t", what), &r.inferred, words, sectors, |u| {
        u.sectors
    });
    if let Some(u) = &r.unanswered {
        let _ = writeln!(s, "\t{}", u.line());
    }
    let slow = format!("slow (>= {} ms)", r.slow_ms);
    let slow_line = |sl: &crate::results::SlowRange| {
        format!(
            "{}, up to {} ms{}",
            span(sl.first_sector, sl.sectors),
            ms(sl.max_ns as f64),
            slow_timing(sl.timed)
        )
    };
    super::ranges::write(
        &mut s,
        ("\t", &slow),
        &r.slow,
        slow_line,
        |sl| (sl.first_sector, sl.sectors),
        |sl| sl.max_ns,
    );
    if r.unconfirmed > 0 {
        let _ = writeln!(
            s,
            "\tslow in the queued pass, not when read again alone: {} blocks (not listed)",
            r.unconfirmed
        );
    }
    if !r.map_ns.is_empty() {
        let _ = writeln!(
            s,
            "\tmap ({} cells from start to end; . <10 ms, o <50 ms, O <150 ms, X >=150 ms, E error):",
            r.map_ns.len()
        );
        let cells: Vec<char> = r
            .map_ns
            .iter()
            .map(|&ns| match ns {
                0 => ' ', // not read (an interrupted scan)
                u64::MAX => 'E',
                n if n < 10_000_000 => '.',
                n if n < 50_000_000 => 'o',
                n if n < 150_000_000 => 'O',
                _ => 'X',
            })
            .collect();
        for row in cells.chunks(100) {
            let _ = writeln!(s, "\t{}", row.iter().collect::<String>());
        }
    }
    if t.outcome == crate::results::Outcome::Interrupted {
        let _ = writeln!(
            s,
            "\tinterrupted at byte {}: resume with --start {}",
            r.end_bytes, r.end_bytes
        );
    }
    s.push('\n');
    s
}

/// The block of a `--block-sweep` test: the rate of each request size, one at a
/// time and queued.
pub fn sweep(t: &TestResult) -> String {
    use crate::results::test_kind::PhaseId;
    let qd = t
        .phases
        .iter()
        .find_map(|p| p.queue_depth)
        .map_or("queued".to_string(), |q| format!("QD{q}"));
    let writes = t.phases.iter().any(|p| p.id == PhaseId::SweepWrite);
    let mut s = "Block sweep (sequential from the start):\n".to_string();
    let mut columns = vec![
        ("QD1 MB/s".to_string(), PhaseId::SweepSync),
        (format!("{qd} MB/s"), PhaseId::SweepQueued),
    ];
    if writes {
        columns.push(("QD1 write MB/s".to_string(), PhaseId::SweepWrite));
    }
    let _ = write!(s, "\t{:>8}", "size");
    for (title, _) in &columns {
        let _ = write!(s, "  {title:>14}");
    }
    s.push('\n');
    let mut sizes: Vec<u32> = t.phases.iter().map(|p| p.op_bytes).collect();
    sizes.dedup();
    for bytes in sizes {
        let _ = write!(s, "\t{:>8}", size(u64::from(bytes)));
        for (_, id) in &columns {
            let rate = t
                .phases
                .iter()
                .find(|p| p.id == *id && p.op_bytes == bytes && p.complete() && p.elapsed_ns > 0)
                .map_or("-".to_string(), |p| {
                    format!("{:.1}", p.bytes_done() as f64 / p.elapsed_s() / 1e6)
                });
            let _ = write!(s, "  {rate:>14}");
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

/// The most stalls the --smr-check block lists one by one.
const STALLS_LISTED: usize = 10;

/// The block of a `--smr-check` test: the verdict with its evidence, what was
/// written, the rates before and after the collapse, the stalls with their length,
/// the read probes, and the write rate over time as a chart.
pub fn smr_check(t: &TestResult) -> String {
    use crate::results::smr::SmrConclusion;
    use crate::smr::behaviour::{STALL_S, WINDOW_S};
    let Some(a) = &t.smr() else {
        return String::new();
    };
    let mut s = "Hidden-SMR check (sustained random writes):\n".to_string();
    let _ = writeln!(s, "\tverdict: {}", a.text);
    if a.verdict == SmrConclusion::NotApplicable {
        s.push_str("\tnothing was written\n\n");
        return s;
    }
    let gib = |b: u64| format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30));
    let _ = writeln!(
        s,
        "\twritten:        {} in {:.0} s (random 128 KiB to 1 MiB, one at a time)",
        gib(a.bytes_written),
        a.write_seconds
    );
    match (a.bytes_before_collapse, a.collapsed_bytes_per_s) {
        (Some(before), Some(after)) => {
            let _ = writeln!(
                s,
                "\twrite rate:     {} before the collapse, {} after",
                mb(a.level_bytes_per_s),
                mb(after)
            );
            let _ = writeln!(s, "\tcollapse after: {} written", gib(before));
        }
        _ => {
            let _ = writeln!(
                s,
                "\twrite rate:     best {:.0}-s window {}, no collapse",
                WINDOW_S,
                mb(a.level_bytes_per_s)
            );
        }
    }
    if a.stalls.is_empty() {
        let _ = writeln!(s, "\tstalls:         no write took {STALL_S:.0} s or more");
    } else {
        let longest = a.stalls.iter().map(|x| x.seconds).fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "\tstalls:         {} writes took {STALL_S:.0} s or more, the longest {longest:.2} s",
            a.stalls.len()
        );
        for x in a.stalls.iter().take(STALLS_LISTED) {
            let _ = writeln!(
                s,
                "\t    {:>7.2} s at {:>6.0} s, after {}",
                x.seconds,
                x.at_s,
                gib(x.after_bytes)
            );
        }
        if a.stalls.len() > STALLS_LISTED {
            let _ = writeln!(s, "\t    ({} more)", a.stalls.len() - STALLS_LISTED);
        }
    }
    let ms = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.1} ms"));
    let _ = writeln!(
        s,
        "\tread probes:    median {} before the writes, {} after {:.0} s idle",
        ms(a.baseline_read_ms),
        ms(a.post_idle_read_ms),
        a.idle_s
    );
    if a.windows.len() >= 2 {
        let _ = writeln!(s, "\tWrite rate over time ({WINDOW_S:.0}-s windows):");
        // Each window drawn over its whole length, so that a few windows still
        // fill the chart.
        let sub = WIDTH.div_ceil(a.windows.len()).max(1);
        let pts: Vec<(f64, f64)> = a
            .windows
            .iter()
            .flat_map(|w| {
                (0..sub).map(move |k| {
                    let x = w.start_s + WINDOW_S * k as f64 / sub as f64;
                    (x, w.rate_bytes_per_s / 1e6)
                })
            })
            .collect();
        let last = a.windows.last().map_or(0.0, |w| w.start_s + WINDOW_S);
        let right = format!("{last:.0} s");
        s.push_str(&curve_from_zero(&pts, WIDTH, HEIGHT, "MB/s", "0 s", &right));
    }
    s.push('\n');
    s
}

/// The "SMR signs:" block that follows diskinfo's -v header when the device shows
/// any sign of shingled recording ([`crate::smr::signs::of`]); empty otherwise, so
/// diskinfo's own text is unchanged.
pub fn smr_signs(info: &crate::results::device::DeviceInfo) -> String {
    use crate::results::smr::SmrSignStrength;
    let signs = crate::smr::signs::of(info);
    if signs.is_empty() {
        return String::new();
    }
    let mut s = String::from("SMR signs (shingled recording; hints are not proofs):\n");
    for sign in &signs {
        let what = match sign.strength {
            SmrSignStrength::Reported => "reported",
            SmrSignStrength::Hint => "hint",
        };
        let _ = write!(s, "\t{what}: {}", sign.text);
        if let Some(src) = &sign.source {
            let _ = write!(s, " [source: {src}, see docs/methods.md]");
        }
        s.push('\n');
    }
    s.push('\n');
    s
}
