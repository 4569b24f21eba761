//! The analysis of the hidden-SMR behaviour test: pure, from the timed write
//! completions and the read probes to a verdict with its evidence. The thresholds and
//! their reasons are in docs/methods.md ("Hidden SMR").

use crate::results::device::{DeviceInfo, Rotation};
use crate::results::smr::{
    Budget, RateWindow, SmrAnalysis, SmrConclusion, SmrSamples, Stall, WriteSample,
};

/// The write rate is measured over windows of this many seconds of the test.
pub const WINDOW_S: f64 = 30.0;
/// A window "collapsed" when its rate is below this fraction of the best window
/// before it.
pub const COLLAPSE_FRACTION: f64 = 0.25;
/// The collapse must last this many windows in a row (90 s): a conventional drive's
/// hiccup (a write-cache flush, a recalibration) lasts far less.
pub const COLLAPSE_WINDOWS: usize = 3;
/// Bytes that must be written before a collapse counts: more than any drive's DRAM
/// write cache (256 MiB on the DM-SMR BarraCudas).
pub const MIN_BYTES_BEFORE_COLLAPSE: u64 = 1 << 30;
/// A write taking this long is reported as a stall.
pub const STALL_S: f64 = 1.0;
/// A conventional verdict needs this many bytes written without a collapse: more
/// than the largest published media cache (25 GiB).
pub const CONVENTIONAL_MIN_BYTES: u64 = 32 << 30;
/// Post-idle reads this many times slower than the baseline (median) are "slowed by
/// cleaning".
pub const SLOW_READ_FACTOR: f64 = 4.0;

/// Whether the behaviour test applies to the device: not to flash, nor to data in
/// memory. Decided before anything is written.
pub fn applies(info: &DeviceInfo) -> bool {
    info.rotation != Rotation::NonRotating && !info.in_memory
}

/// The write rate in windows of [`WINDOW_S`], by completion time; a window without
/// completions has rate 0. The last window is left out unless it is full.
pub fn windows(writes: &[WriteSample]) -> Vec<RateWindow> {
    let w_ns = WINDOW_S * 1e9;
    let Some(last) = writes.iter().map(|w| w.end_ns).max() else {
        return Vec::new();
    };
    let full = (last as f64 / w_ns).floor() as usize;
    let mut bytes = vec![0u64; full];
    for w in writes {
        let i = (w.end_ns as f64 / w_ns) as usize;
        if i < full {
            bytes[i] += u64::from(w.bytes);
        }
    }
    bytes
        .into_iter()
        .enumerate()
        .map(|(i, b)| RateWindow {
            start_s: i as f64 * WINDOW_S,
            bytes: b,
            rate_bytes_per_s: b as f64 / WINDOW_S,
        })
        .collect()
}

/// The first window of a collapse: [`COLLAPSE_WINDOWS`] windows in a row below
/// [`COLLAPSE_FRACTION`] of the best window before them, after at least
/// [`MIN_BYTES_BEFORE_COLLAPSE`]. The executor may stop writing once it is found.
pub fn find_collapse(windows: &[RateWindow]) -> Option<usize> {
    let mut best: f64 = 0.0;
    let mut before: u64 = 0;
    for i in 0..windows.len() {
        if i + COLLAPSE_WINDOWS <= windows.len()
            && before >= MIN_BYTES_BEFORE_COLLAPSE
            && windows[i..i + COLLAPSE_WINDOWS]
                .iter()
                .all(|w| w.rate_bytes_per_s < COLLAPSE_FRACTION * best)
        {
            return Some(i);
        }
        best = best.max(windows[i].rate_bytes_per_s);
        before += windows[i].bytes;
    }
    None
}

fn median_ms(ns: &[u64]) -> Option<f64> {
    if ns.is_empty() {
        return None;
    }
    let mut v = ns.to_vec();
    v.sort_unstable();
    let m = if v.len() % 2 == 1 {
        v[v.len() / 2] as f64
    } else {
        (v[v.len() / 2 - 1] + v[v.len() / 2]) as f64 / 2.0
    };
    Some(m / 1e6)
}

fn gib(b: u64) -> String {
    format!("{:.1} GiB", b as f64 / f64::from(1u32 << 30))
}

fn mbs(r: f64) -> String {
    format!("{:.1} MB/s", r / 1e6)
}

/// Judge the recorded samples of the test on `info` ([`analyse`]).
pub fn analyse_samples(info: &DeviceInfo, s: &SmrSamples) -> SmrAnalysis {
    let mut a = analyse_after_idle(
        info,
        &s.writes,
        s.budget,
        (&s.baseline_ns, &s.post_idle_ns),
        s.idle_s,
    );
    a.idle_s = s.idle_s;
    a
}

/// Judge the test: `info` is the device, `writes` the timed completions in order,
/// `budget` what the run allowed, `baseline_ns` and `post_idle_ns` the read probes'
/// latencies before the writes and after the idle period.
pub fn analyse(
    info: &DeviceInfo,
    writes: &[WriteSample],
    budget: Budget,
    baseline_ns: &[u64],
    post_idle_ns: &[u64],
) -> SmrAnalysis {
    let probes = (baseline_ns, post_idle_ns);
    analyse_after_idle(info, writes, budget, probes, crate::test_plans::smr::IDLE_S)
}

/// The writes that took [`STALL_S`] or longer, with the bytes written before each.
fn stalls(writes: &[WriteSample]) -> Vec<Stall> {
    let mut done = 0u64;
    writes
        .iter()
        .filter_map(|w| {
            let after = done;
            done += u64::from(w.bytes);
            (w.latency_ns as f64 >= STALL_S * 1e9).then(|| Stall {
                at_s: w.end_ns as f64 / 1e9,
                after_bytes: after,
                seconds: w.latency_ns as f64 / 1e9,
            })
        })
        .collect()
}

/// The conclusion's words on the read probes: the median before the writes and
/// after `idle_s` seconds of idle, and whether the drive was busy cleaning.
fn reads_text(baseline: Option<f64>, post: Option<f64>, idle_s: f64) -> String {
    let slowed = match (baseline, post) {
        (Some(b), Some(p)) => p >= SLOW_READ_FACTOR * b.max(0.001),
        _ => false,
    };
    match (baseline, post) {
        (Some(b), Some(p)) if slowed => format!(
            "; reads after {idle_s:.0} s idle took {p:.0} ms (median) against {b:.1} ms before: the drive was busy cleaning",
        ),
        (Some(b), Some(p)) => format!("; reads after idle {p:.1} ms against {b:.1} ms before"),
        _ => String::new(),
    }
}

/// The conclusion's words on the stalled writes, if any.
fn stall_text(stalls: &[Stall]) -> String {
    if stalls.is_empty() {
        String::new()
    } else {
        let longest = stalls.iter().map(|s| s.seconds).fold(0.0, f64::max);
        format!(
            "; {} writes stalled {STALL_S:.0} s or more (longest {longest:.1} s)",
            stalls.len()
        )
    }
}

/// [`analyse`] with the post-idle probes taken after `idle_s` seconds of idle time
/// (`--smr-idle`); `probes` are the latencies before the writes and after the idle.
fn analyse_after_idle(
    info: &DeviceInfo,
    writes: &[WriteSample],
    budget: Budget,
    (baseline_ns, post_idle_ns): (&[u64], &[u64]),
    idle_s: f64,
) -> SmrAnalysis {
    let bytes_written: u64 = writes.iter().map(|w| u64::from(w.bytes)).sum();
    let write_seconds = writes.iter().map(|w| w.end_ns).max().unwrap_or(0) as f64 / 1e9;
    let win = windows(writes);
    let stalls = stalls(writes);
    let collapse = find_collapse(&win);
    let level = win[..collapse.unwrap_or(win.len())]
        .iter()
        .map(|w| w.rate_bytes_per_s)
        .fold(0.0, f64::max);
    let collapsed = collapse.map(|i| {
        let mut c: Vec<f64> = win[i..].iter().map(|w| w.rate_bytes_per_s).collect();
        c.sort_by(f64::total_cmp);
        c[c.len() / 2]
    });
    let bytes_before_collapse = collapse.map(|i| win[..i].iter().map(|w| w.bytes).sum());
    let baseline = median_ms(baseline_ns);
    let post = median_ms(post_idle_ns);
    let reads = reads_text(baseline, post, idle_s);
    let stall_text = stall_text(&stalls);
    let flash = !applies(info);
    let (verdict, text) = if flash {
        (
            SmrConclusion::NotApplicable,
            "not a rotating drive: not applicable".to_string(),
        )
    } else if let (Some(_), Some(c), Some(before)) = (collapse, collapsed, bytes_before_collapse) {
        (
            SmrConclusion::HiddenSmr,
            format!(
                "hidden SMR (drive-managed): the random-write rate fell from {} to {} after {} \
                 written and stayed there{stall_text}{reads}",
                mbs(level),
                mbs(c),
                gib(before)
            ),
        )
    } else if bytes_written >= CONVENTIONAL_MIN_BYTES {
        let low = win
            .iter()
            .map(|w| w.rate_bytes_per_s)
            .fold(f64::INFINITY, f64::min);
        let level_text = format!(
            "rate level at {} (slowest {:.0}-s window {}) over {} of random writes",
            mbs(level),
            WINDOW_S,
            mbs(if low.is_finite() { low } else { 0.0 }),
            gib(bytes_written)
        );
        if matches!(info.rotation, Rotation::Rpm(_)) {
            (
                SmrConclusion::Conventional,
                format!("conventional recording: {level_text}{reads}"),
            )
        } else {
            (
                SmrConclusion::CannotTell,
                format!(
                    "cannot tell: {level_text}, but the device does not say it rotates \
                     (a cache or memory in front of it would look the same){reads}"
                ),
            )
        }
    } else {
        (
            SmrConclusion::CannotTell,
            format!(
                "cannot tell within the budget: {} written in {:.0} s without a collapse, \
                 fewer than the {} a conventional verdict needs (DM-SMR media caches hold \
                 20-25 GiB); the budget was {} or {:.0} s, try a larger --smr-budget{reads}",
                gib(bytes_written),
                write_seconds,
                gib(CONVENTIONAL_MIN_BYTES),
                gib(budget.bytes),
                budget.seconds
            ),
        )
    };
    SmrAnalysis {
        verdict,
        text,
        bytes_written,
        write_seconds,
        windows: win,
        stalls,
        level_bytes_per_s: level,
        collapsed_bytes_per_s: collapsed,
        bytes_before_collapse,
        baseline_read_ms: baseline,
        post_idle_read_ms: post,
        idle_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::device::sim::SimTarget;
    use crate::device::{AlignedBuf, Target};
    use crate::results::device::TargetKind;
    use crate::test_plans::smr::{self, IDLE_S, PROBE_SPACING_S};

    /// Run the test's plan on a simulated drive, as an executor would: the baseline
    /// probes, the writes until the budget or the collapse, the idle period and the
    /// post-idle probes; all on the virtual clock.
    fn run(spec: &str, seed: u64, budget: Budget) -> SmrAnalysis {
        let mut t = SimTarget::open(spec).unwrap();
        let info = t.info().clone();
        let plan = smr::plan(
            info.media_size_bytes,
            crate::results::settings::SectorSize::new(info.sector_size).unwrap(),
            seed,
        )
        .unwrap();
        let mut buf = AlignedBuf::new(1 << 20);
        let now = |t: &SimTarget| t.virtual_clock().now_ns();
        let mut probe = |t: &mut SimTarget| -> Vec<u64> {
            plan.probes
                .iter()
                .map(|op| {
                    let s = now(t);
                    t.read_at(buf.for_read(..op.len as usize), op.offset)
                        .unwrap();
                    now(t) - s
                })
                .collect()
        };
        let baseline = probe(&mut t);
        let start = now(&t);
        let (mut samples, mut bytes) = (Vec::new(), 0u64);
        let window = (WINDOW_S * 1e9) as u64;
        // Bytes per window, kept as the writes complete (the executor's early stop).
        let mut per_window: Vec<u64> = Vec::new();
        for op in plan.writes.clone() {
            // Served and timed as `write_at` does, without the data: the writes of
            // zeros it would move leave nothing stored, and sorting them sector by
            // sector is most of the CPU a debug build spends here.
            let s = now(&t);
            let (ns, r) = t.service_write(s, op.offset, u64::from(op.len));
            r.unwrap();
            t.virtual_clock().advance(ns);
            let e = now(&t);
            samples.push(WriteSample {
                end_ns: e - start,
                bytes: op.len,
                latency_ns: e - s,
            });
            bytes += u64::from(op.len);
            if bytes >= budget.bytes || (e - start) as f64 >= budget.seconds * 1e9 {
                break;
            }
            let i = ((e - start) / window) as usize;
            if i >= per_window.len() {
                per_window.resize(i + 1, 0);
                let full: Vec<RateWindow> = per_window[..i]
                    .iter()
                    .enumerate()
                    .map(|(k, &b)| RateWindow {
                        start_s: k as f64 * WINDOW_S,
                        bytes: b,
                        rate_bytes_per_s: b as f64 / WINDOW_S,
                    })
                    .collect();
                if find_collapse(&full).is_some() {
                    break;
                }
            }
            per_window[i] += u64::from(op.len);
        }
        t.virtual_clock().advance((IDLE_S * 1e9) as u64);
        let post: Vec<u64> = plan
            .probes
            .iter()
            .map(|op| {
                t.virtual_clock().advance((PROBE_SPACING_S * 1e9) as u64);
                let s = now(&t);
                t.read_at(buf.for_read(..op.len as usize), op.offset)
                    .unwrap();
                now(&t) - s
            })
            .collect();
        analyse(&info, &samples, budget, &baseline, &post)
    }

    #[test]
    fn sim_smr_is_detected_within_the_default_budget() {
        let wall = std::time::Instant::now();
        let a = run("sim:smr", 1, Budget::default());
        eprintln!("{}\n  wall {:?}", a.text, wall.elapsed());
        assert_eq!(a.verdict, SmrConclusion::HiddenSmr, "{}", a.text);
        assert!(
            a.text.starts_with("hidden SMR (drive-managed): "),
            "{}",
            a.text
        );
        // The collapse comes after the 20 GiB media cache filled, at the outer rate.
        let before = a.bytes_before_collapse.unwrap();
        assert!((18 << 30..=21 << 30).contains(&before), "{before}");
        assert!(a.level_bytes_per_s > 150e6, "{}", a.level_bytes_per_s);
        assert!(a.collapsed_bytes_per_s.unwrap() < 5e6);
        assert!(a.write_seconds < Budget::default().seconds);
        assert!(!a.stalls.is_empty());
        assert!(a.post_idle_read_ms.unwrap() > 4.0 * a.baseline_read_ms.unwrap());
    }

    #[test]
    fn sim_hdd_and_hdd5400_are_judged_conventional() {
        for spec in ["sim:hdd", "sim:hdd5400"] {
            let wall = std::time::Instant::now();
            let a = run(spec, 1, Budget::default());
            eprintln!("{spec}: {}\n  wall {:?}", a.text, wall.elapsed());
            assert_eq!(a.verdict, SmrConclusion::Conventional, "{spec}: {}", a.text);
            assert!(a.bytes_written >= Budget::default().bytes);
            assert!(
                a.text.starts_with("conventional recording: rate level at "),
                "{}",
                a.text
            );
        }
    }

    /// Run sim:smr, sim:hdd and sim:hdd5400 with each seed of `seeds` (the plan's and
    /// the drive's) and the default budget, spread over the machine's cores; returns
    /// every run judged otherwise than hidden SMR, conventional, conventional.
    fn judged_the_other_way(seeds: std::ops::Range<u64>) -> Vec<String> {
        let cores = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4);
        std::thread::scope(|sc| {
            let workers: Vec<_> = (0..cores)
                .map(|k| {
                    let seeds = seeds.clone();
                    sc.spawn(move || {
                        let mut bad = Vec::new();
                        for seed in seeds.skip(k).step_by(cores) {
                            for (preset, want) in [
                                ("smr", SmrConclusion::HiddenSmr),
                                ("hdd", SmrConclusion::Conventional),
                                ("hdd5400", SmrConclusion::Conventional),
                            ] {
                                let spec = format!("sim:{preset}?seed={seed}");
                                let a = run(&spec, seed, Budget::default());
                                if a.verdict != want {
                                    bad.push(format!("{spec}: {}", a.text));
                                }
                            }
                        }
                        bad
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect()
        })
    }

    /// Seeds 0-9 in every build (about 6 s of CPU in a debug build).
    #[test]
    fn seeds_0_to_9_are_never_judged_the_other_way() {
        let bad = judged_the_other_way(0..10);
        assert!(bad.is_empty(), "{bad:#?}");
    }

    /// Seeds 0-99: 300 runs of up to 40 GiB each on the virtual clock, about 60 s of
    /// CPU in a debug build, so it runs in release builds only (.ci/run runs it once):
    /// `cargo test --release --lib seeds_0_to_99`.
    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "about 60 s of CPU in a debug build; run: cargo test --release --lib seeds_0_to_99"
    )]
    fn seeds_0_to_99_are_never_judged_the_other_way() {
        let bad = judged_the_other_way(0..100);
        assert!(bad.is_empty(), "{bad:#?}");
    }

    #[test]
    fn flash_is_not_applicable() {
        let a = run(
            "sim:ssd?size=64G",
            1,
            Budget {
                bytes: 4 << 30,
                seconds: 60.0,
            },
        );
        assert_eq!(a.verdict, SmrConclusion::NotApplicable);
        assert_eq!(a.text, "not a rotating drive: not applicable");
    }

    #[test]
    fn a_small_budget_cannot_tell() {
        let a = run(
            "sim:smr",
            1,
            Budget {
                bytes: 4 << 30,
                seconds: 1800.0,
            },
        );
        assert_eq!(a.verdict, SmrConclusion::CannotTell, "{}", a.text);
        assert!(a.text.contains("try a larger --smr-budget"), "{}", a.text);
        let c = run(
            "sim:hdd",
            1,
            Budget {
                bytes: 40 << 30,
                seconds: 120.0,
            },
        );
        assert_eq!(c.verdict, SmrConclusion::CannotTell, "{}", c.text);
    }

    #[test]
    fn a_level_rate_without_rotation_is_not_called_conventional() {
        let mut info = DeviceInfo::new("/dev/loop0", "/dev/loop0", TargetKind::Disk);
        info.rotation = Rotation::Unknown;
        let w: Vec<WriteSample> = (0..40_000u64)
            .map(|i| WriteSample {
                end_ns: (i + 1) * 10_000_000,
                bytes: 1 << 20,
                latency_ns: 10_000_000,
            })
            .collect();
        let a = analyse(&info, &w, Budget::default(), &[], &[]);
        assert_eq!(a.verdict, SmrConclusion::CannotTell, "{}", a.text);
        info.rotation = Rotation::Rpm(7200);
        let b = analyse(&info, &w, Budget::default(), &[], &[]);
        assert_eq!(b.verdict, SmrConclusion::Conventional, "{}", b.text);
        assert_eq!(b.windows.len(), 13);
        assert!((b.level_bytes_per_s - 104_857_600.0).abs() < 1.0);
    }

    #[test]
    fn a_short_dip_is_not_a_collapse_but_a_sustained_one_is() {
        let w = |rates: &[f64]| -> Vec<RateWindow> {
            rates
                .iter()
                .enumerate()
                .map(|(i, &r)| RateWindow {
                    start_s: i as f64 * WINDOW_S,
                    bytes: (r * WINDOW_S) as u64,
                    rate_bytes_per_s: r,
                })
                .collect()
        };
        assert_eq!(
            find_collapse(&w(&[100e6, 100e6, 10e6, 10e6, 100e6, 100e6])),
            None
        );
        assert_eq!(
            find_collapse(&w(&[100e6, 100e6, 10e6, 10e6, 0.0, 100e6])),
            Some(2)
        );
        // Not before a GiB is written (a DRAM write cache filling).
        assert_eq!(find_collapse(&w(&[10e6, 1e6, 1e6, 1e6])), None);
        assert!(windows(&[]).is_empty());
    }
}
