//! The run's figures in Prometheus' text exposition format (version 0.0.4), for
//! node_exporter's textfile collector (`--prometheus FILE`, docs/fleet.md).
//!
//! Every metric is named with its base unit (`_seconds`, `_bytes`,
//! `_bytes_per_second`) and carries the labels `disk`, `model` and `serial`; per-line
//! figures add `test`, `phase` and `request_bytes`. Values are the figures of
//! complete lines only, as the other reporters print them. The textfile collector
//! refuses samples with timestamps, so the run's time is a gauge of its own,
//! `seekprobe_run_timestamp_seconds`.

mod exposition;
mod path;
mod qualify;
mod temperature;

use crate::results::test_kind::PhaseId;
use crate::results::{DiskResult, Outcome, PhaseResult, Run, TestResult};
pub use exposition::escape_label;
use exposition::{Exposition, Family, id};

/// The families of the measuring tests.
const FAMILIES: &[Family] = &[
    Family {
        name: "seekprobe_run_timestamp_seconds",
        kind: "gauge",
        help: "When the run started, in seconds since the Unix epoch.",
    },
    Family {
        name: "seekprobe_build_info",
        kind: "gauge",
        help: "Always 1: the seekprobe version that measured and its JSON schema version.",
    },
    Family {
        name: "seekprobe_disk_info",
        kind: "gauge",
        help: "Always 1: a probed disk, with its path and kind.",
    },
    Family {
        name: "seekprobe_disk_size_bytes",
        kind: "gauge",
        help: "The disk's media size.",
    },
    Family {
        name: "seekprobe_disk_sector_size_bytes",
        kind: "gauge",
        help: "The disk's logical sector size.",
    },
    Family {
        name: "seekprobe_disk_reported_rotation_rpm",
        kind: "gauge",
        help: "The rotation rate the disk reports, in revolutions per minute (0: not rotating).",
    },
    Family {
        name: "seekprobe_disk_failed",
        kind: "gauge",
        help: "1 when the disk's verdict is FAIL (docs/verdict.md): its --qualify or --burn-in verdict, else the judge of its own findings (it could not be opened, a test failed, sectors failed, a fake capacity, ...).",
    },
    Family {
        name: "seekprobe_disk_state",
        kind: "gauge",
        help: "The disk's state (docs/verdict.md), a line per state, 1 for its own: pass, pass_with_warnings, fail, not_tested (writing refused for a signature, the device held, a path that does not exist), incomplete (interrupted, or a test the disk is too small for).",
    },
    Family {
        name: "seekprobe_disk_warning",
        kind: "gauge",
        help: "1 for each validity warning of the disk's figures (code as in the JSON results).",
    },
    Family {
        name: "seekprobe_qualification_passed",
        kind: "gauge",
        help: "The --qualify or --burn-in verdict: 1 when the disk passed (with warnings or not), 0 when it did not (seekprobe_disk_state says FAIL, NOT TESTED or INCOMPLETE).",
    },
    Family {
        name: "seekprobe_verdict_findings",
        kind: "gauge",
        help: "The findings of the disk's verdict, by severity (fail, warning, note).",
    },
    Family {
        name: "seekprobe_test_complete",
        kind: "gauge",
        help: "1 when the test ran to its end, 0 when it was interrupted, failed or skipped.",
    },
    Family {
        name: "seekprobe_seek_seconds",
        kind: "gauge",
        help: "Mean time per read of a seek line (-t, diskinfo's msec), or a seek time derived by --seek-profile.",
    },
    Family {
        name: "seekprobe_transfer_bytes_per_second",
        kind: "gauge",
        help: "Bytes transferred per second by a line of sequential transfers (-t, -c, --block-sweep, --scan).",
    },
    Family {
        name: "seekprobe_iops",
        kind: "gauge",
        help: "Operations completed per second by a line (-i, -S, --block-sweep).",
    },
    Family {
        name: "seekprobe_command_overhead_seconds",
        kind: "gauge",
        help: "-c: the calculated command overhead per sector, as diskinfo prints it.",
    },
    Family {
        name: "seekprobe_operation_latency_seconds",
        kind: "summary",
        help: "Latency of each operation of a line: nearest-rank quantiles, sum and count.",
    },
    Family {
        name: "seekprobe_zone_transfer_bytes_per_second",
        kind: "gauge",
        help: "--zones: the sequential rate at each sampled offset.",
    },
    Family {
        name: "seekprobe_zone_max_transfer_bytes_per_second",
        kind: "gauge",
        help: "--zones: the highest rate of the curve.",
    },
    Family {
        name: "seekprobe_zone_min_transfer_bytes_per_second",
        kind: "gauge",
        help: "--zones: the lowest rate of the curve.",
    },
    Family {
        name: "seekprobe_zone_mean_transfer_bytes_per_second",
        kind: "gauge",
        help: "--zones: the mean rate over the curve's points.",
    },
    Family {
        name: "seekprobe_zone_outer_inner_ratio",
        kind: "gauge",
        help: "--zones: the first point's rate over the last point's.",
    },
    Family {
        name: "seekprobe_seek_profile_access_seconds",
        kind: "gauge",
        help: "--seek-profile: mean access time of the reads in a seek-distance bin.",
    },
    Family {
        name: "seekprobe_seek_profile_revolution_seconds",
        kind: "gauge",
        help: "--seek-profile: one revolution, measured.",
    },
    Family {
        name: "seekprobe_seek_profile_measured_rpm",
        kind: "gauge",
        help: "--seek-profile: the measured rotation rate, in revolutions per minute.",
    },
    Family {
        name: "seekprobe_seek_profile_rpm_disagrees",
        kind: "gauge",
        help: "--seek-profile: 1 when the measured rotation rate differs from the reported one by more than 3%.",
    },
    Family {
        name: "seekprobe_scan_block_latency_seconds",
        kind: "histogram",
        help: "--scan: blocks by read latency (the sum is the time spent in block reads).",
    },
    Family {
        name: "seekprobe_scan_read_bytes",
        kind: "gauge",
        help: "--scan: bytes read successfully.",
    },
    Family {
        name: "seekprobe_scan_error_blocks",
        kind: "gauge",
        help: "--scan: blocks that failed to read.",
    },
    Family {
        name: "seekprobe_scan_unreadable_sectors",
        kind: "gauge",
        help: "--scan: sectors that could not be read.",
    },
    Family {
        name: "seekprobe_scan_slow_ranges",
        kind: "gauge",
        help: "--scan: runs of blocks at least --slow-ms slow.",
    },
];

/// The upper bounds, in seconds, of the scan's latency buckets (< 3, 10, 50, 150,
/// 500 ms; the last bucket is everything else).
const SCAN_BOUNDS_S: [&str; 5] = ["0.003", "0.01", "0.05", "0.15", "0.5"];

/// The run as a Prometheus text exposition, ending with a line feed.
pub fn render(run: &Run) -> String {
    let mut x = Exposition::new();
    if let Some(t) = run.started_unix_s {
        x.add("seekprobe_run_timestamp_seconds", "", &[], t as f64);
    }
    x.add(
        "seekprobe_build_info",
        "",
        &[
            ("version", run.tool_version.clone()),
            ("schema_version", run.schema_version.to_string()),
        ],
        1.0,
    );
    for disk in &run.disks {
        render_disk(&mut x, run, disk);
    }
    x.finish()
}

fn render_disk(x: &mut Exposition, run: &Run, disk: &DiskResult) {
    let info = disk.info.as_ref();
    let base = vec![
        ("disk", disk.name.clone()),
        (
            "model",
            info.and_then(|i| i.descr.clone()).unwrap_or_default(),
        ),
        (
            "serial",
            info.and_then(|i| i.ident.clone()).unwrap_or_default(),
        ),
    ];
    let with = |more: &[(&'static str, String)]| {
        let mut l = base.clone();
        l.extend_from_slice(more);
        l
    };
    if let Some(i) = info {
        x.add(
            "seekprobe_disk_info",
            "",
            &with(&[("path", i.path.clone()), ("kind", id(i.kind))]),
            1.0,
        );
        x.add(
            "seekprobe_disk_size_bytes",
            "",
            &base,
            i.media_size_bytes as f64,
        );
        x.add(
            "seekprobe_disk_sector_size_bytes",
            "",
            &base,
            f64::from(i.sector_size),
        );
        match i.rotation {
            crate::results::device::Rotation::Rpm(r) => {
                x.add(
                    "seekprobe_disk_reported_rotation_rpm",
                    "",
                    &base,
                    f64::from(r),
                );
            }
            crate::results::device::Rotation::NonRotating => {
                x.add("seekprobe_disk_reported_rotation_rpm", "", &base, 0.0);
            }
            _ => {}
        }
    }
    let verdict = crate::verdict::in_run(run, disk);
    x.add(
        "seekprobe_disk_failed",
        "",
        &base,
        f64::from(u8::from(verdict.state == crate::results::State::Fail)),
    );
    for s in crate::results::State::ALL {
        let state = with(&[("state", s.name().to_string())]);
        x.add(
            "seekprobe_disk_state",
            "",
            &state,
            f64::from(u8::from(verdict.state == s)),
        );
    }
    for w in &disk.warnings {
        x.add(
            "seekprobe_disk_warning",
            "",
            &with(&[("code", w.code.name().to_string())]),
            1.0,
        );
    }
    if let Some(v) = &disk.verdict {
        x.add(
            "seekprobe_qualification_passed",
            "",
            &base,
            f64::from(u8::from(v.passes())),
        );
    }
    for s in crate::results::Severity::ALL {
        x.add(
            "seekprobe_verdict_findings",
            "",
            &with(&[("severity", s.name().to_string())]),
            verdict.of(s).count() as f64,
        );
    }
    for t in &disk.tests {
        let test = id(t.test);
        x.add(
            "seekprobe_test_complete",
            "",
            &with(&[("test", test.clone())]),
            f64::from(u8::from(t.outcome == Outcome::Complete)),
        );
        for p in t.phases.iter().filter(|p| p.complete() && p.elapsed_ns > 0) {
            render_phase(x, &with(&[("test", test.clone())]), t, p, info);
        }
        render_beyond(x, &with(&[("test", test.clone())]), t, info);
        qualify::render_test(x, &with(&[("test", test.clone())]), t);
    }
    if let Some(smart) = &disk.smart {
        qualify::render_smart(x, &base, smart);
        temperature::render(x, &base, smart);
    }
    if let Some(p) = &disk.path_check {
        path::render(x, &base, p);
    }
}

/// One complete phase's metric (seconds, bytes/s or IOPS by phase), labelled; zone
/// phases are skipped (the zone curve carries them).
fn render_phase(
    x: &mut Exposition,
    labels: &[(&'static str, String)],
    t: &TestResult,
    p: &PhaseResult,
    info: Option<&crate::results::device::DeviceInfo>,
) {
    if matches!(p.id, PhaseId::Zone | PhaseId::ZoneWrite) {
        return; // the zone curve carries them, by offset
    }
    let mut l = labels.to_vec();
    l.push(("phase", id(p.id)));
    l.push(("request_bytes", p.op_bytes.to_string()));
    let s = p.elapsed_s();
    let n = p.ops_done() as f64;
    match p.id {
        PhaseId::FullStroke
        | PhaseId::HalfStroke
        | PhaseId::QuarterStroke
        | PhaseId::ShortForward
        | PhaseId::ShortBackward
        | PhaseId::SeqOuter
        | PhaseId::SeqInner => x.add("seekprobe_seek_seconds", "", &l, s / n),
        PhaseId::Outside | PhaseId::Middle | PhaseId::Inside | PhaseId::OverheadMega => x.add(
            "seekprobe_transfer_bytes_per_second",
            "",
            &l,
            p.bytes_done() as f64 / s,
        ),
        PhaseId::RandomRead | PhaseId::SyncWrite => x.add("seekprobe_iops", "", &l, n / s),
        PhaseId::SweepSync | PhaseId::SweepQueued | PhaseId::SweepWrite => {
            x.add(
                "seekprobe_transfer_bytes_per_second",
                "",
                &l,
                p.bytes_done() as f64 / s,
            );
            x.add("seekprobe_iops", "", &l, n / s);
        }
        PhaseId::OverheadSector => {
            if let (Some(mega), Some(i)) = (t.phase(PhaseId::OverheadMega), info)
                && mega.complete()
                && mega.bytes_done() > 0
            {
                // diskinfo: the time per sector of single-sector reads, less the
                // time per sector of 1 MiB reads.
                let mega_sectors = mega.bytes_done() as f64 / f64::from(i.sector_size);
                let overhead = s / n - mega.elapsed_s() / mega_sectors;
                let mut lo = labels.to_vec();
                lo.retain(|(k, _)| *k != "phase");
                x.add("seekprobe_command_overhead_seconds", "", &lo, overhead);
            }
        }
        PhaseId::Zone | PhaseId::ZoneWrite => {}
    }
    if let Some(sum) = &p.summary {
        let name = "seekprobe_operation_latency_seconds";
        for (q, v) in [
            ("0.5", sum.p50_ns),
            ("0.9", sum.p90_ns),
            ("0.99", sum.p99_ns),
            ("0.999", sum.p999_ns),
        ] {
            let mut lq = l.clone();
            lq.push(("quantile", q.into()));
            x.add(name, "", &lq, v as f64 / 1e9);
        }
        x.add(name, "_sum", &l, sum.mean_ns * sum.count as f64 / 1e9);
        x.add(name, "_count", &l, sum.count as f64);
    }
}

/// The figures of --zones, --seek-profile and --scan.
fn render_beyond(
    x: &mut Exposition,
    labels: &[(&'static str, String)],
    t: &TestResult,
    info: Option<&crate::results::device::DeviceInfo>,
) {
    for (dir, curve) in [("read", t.zone_curve()), ("write", t.write_curve())] {
        if let Some(c) = curve {
            render_zone_curve(x, labels, dir, c);
        }
    }
    if let Some(a) = t.seek_analysis() {
        render_seek_profile(x, labels, a, info);
    }
    if let Some(s) = t.scan() {
        render_scan(x, labels, t.test.id(), s);
    }
}

/// The zone transfer curve of one direction (--zones, and its write half with -w).
fn render_zone_curve(
    x: &mut Exposition,
    labels: &[(&'static str, String)],
    dir: &str,
    c: &crate::results::ZoneCurve,
) {
    let with = |more: &[(&'static str, String)]| {
        let mut l = labels.to_vec();
        l.extend_from_slice(more);
        l
    };
    let l = with(&[("direction", dir.into())]);
    for p in &c.points {
        let mut lp = l.clone();
        lp.push(("offset_bytes", p.offset_bytes.to_string()));
        x.add(
            "seekprobe_zone_transfer_bytes_per_second",
            "",
            &lp,
            p.rate_bytes_per_s,
        );
    }
    if c.points.is_empty() {
        return;
    }
    x.add(
        "seekprobe_zone_max_transfer_bytes_per_second",
        "",
        &l,
        c.max_bytes_per_s,
    );
    x.add(
        "seekprobe_zone_min_transfer_bytes_per_second",
        "",
        &l,
        c.min_bytes_per_s,
    );
    x.add(
        "seekprobe_zone_mean_transfer_bytes_per_second",
        "",
        &l,
        c.mean_bytes_per_s,
    );
    x.add(
        "seekprobe_zone_outer_inner_ratio",
        "",
        &l,
        c.outer_inner_ratio,
    );
}

/// The seek profile's figures (--seek-profile): the access time by distance, the
/// seek times, the revolution and the measured rate of rotation.
fn render_seek_profile(
    x: &mut Exposition,
    labels: &[(&'static str, String)],
    a: &crate::results::SeekAnalysis,
    info: Option<&crate::results::device::DeviceInfo>,
) {
    let with = |more: &[(&'static str, String)]| {
        let mut l = labels.to_vec();
        l.extend_from_slice(more);
        l
    };
    let sector = info.map_or(512, |i| u64::from(i.sector_size));
    for b in &a.bins {
        let l = with(&[
            ("from_bytes", (b.from_sectors * sector).to_string()),
            ("to_bytes", (b.to_sectors * sector).to_string()),
        ]);
        x.add(
            "seekprobe_seek_profile_access_seconds",
            "",
            &l,
            b.summary.mean_ns / 1e9,
        );
    }
    for (phase, v) in [
        ("track_to_track", a.track_to_track_ns),
        ("average", a.average_ns),
        ("full_stroke", a.full_stroke_ns),
    ] {
        if let Some(v) = v {
            let l = with(&[
                ("phase", phase.into()),
                ("request_bytes", sector.to_string()),
            ]);
            x.add("seekprobe_seek_seconds", "", &l, v / 1e9);
        }
    }
    if let Some(r) = a.revolution_ns {
        x.add(
            "seekprobe_seek_profile_revolution_seconds",
            "",
            labels,
            r / 1e9,
        );
    }
    if let Some(r) = a.measured_rpm {
        x.add("seekprobe_seek_profile_measured_rpm", "", labels, r);
    }
    x.add(
        "seekprobe_seek_profile_rpm_disagrees",
        "",
        labels,
        f64::from(u8::from(a.rpm_disagrees)),
    );
}

/// The surface scan's figures (--scan): the block latency histogram, bytes read,
/// errors, unreadable sectors, slow ranges and the rate.
fn render_scan(
    x: &mut Exposition,
    labels: &[(&'static str, String)],
    test: &str,
    s: &crate::results::ScanResult,
) {
    let with = |more: &[(&'static str, String)]| {
        let mut l = labels.to_vec();
        l.extend_from_slice(more);
        l
    };
    let name = "seekprobe_scan_block_latency_seconds";
    let mut cumulative = 0u64;
    for (i, bound) in SCAN_BOUNDS_S.iter().enumerate() {
        cumulative += s.buckets.get(i).copied().unwrap_or(0);
        x.add(
            name,
            "_bucket",
            &with(&[("le", (*bound).into())]),
            cumulative as f64,
        );
    }
    let total: u64 = s.buckets.iter().sum();
    x.add(
        name,
        "_bucket",
        &with(&[("le", "+Inf".into())]),
        total as f64,
    );
    x.add(name, "_sum", labels, s.elapsed_ns as f64 / 1e9);
    x.add(name, "_count", labels, total as f64);
    x.add("seekprobe_scan_read_bytes", "", labels, s.bytes_read as f64);
    x.add(
        "seekprobe_scan_error_blocks",
        "",
        labels,
        s.error_blocks as f64,
    );
    let unreadable: u64 = s.unreadable.iter().map(|r| r.sectors).sum();
    x.add(
        "seekprobe_scan_unreadable_sectors",
        "",
        labels,
        unreadable as f64,
    );
    x.add(
        "seekprobe_scan_slow_ranges",
        "",
        labels,
        s.slow.len() as f64,
    );
    if s.elapsed_ns > 0 {
        let l = with(&[
            ("phase", test.into()),
            ("request_bytes", s.block_bytes.to_string()),
        ]);
        x.add(
            "seekprobe_transfer_bytes_per_second",
            "",
            &l,
            s.bytes_read as f64 / (s.elapsed_ns as f64 / 1e9),
        );
    }
}
