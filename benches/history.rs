//! The drive history's answer time: `seekprobe history` (the drives known, with
//! their runs, last verdict and last seen) over a database of 10,000 drives of 10
//! runs each must answer in under a second (issue 32), and a drive's timeline
//! at once.
//!
//! ```sh
//! cargo bench --bench history
//! ```
//!
//! The database is built once, in a temporary directory, through the same
//! `HistoryDb::record` a run uses (10 runs of 10,000 drives each).

use criterion::{Criterion, criterion_group, criterion_main};
use seekprobe::history::{HistoryDb, Origin, Place};
use seekprobe::results::device::{DeviceInfo, TargetKind};
use seekprobe::results::health::Health;
use seekprobe::results::smart::SmartResult;
use seekprobe::results::{DiskResult, Run, SCHEMA_VERSION};
use std::hint::black_box;
use std::time::Instant;

const DRIVES: usize = 10_000;
const RUNS: usize = 10;

fn run(i: usize) -> Run {
    let disks = (0..DRIVES)
        .map(|d| {
            let name = format!("/dev/da{d}");
            let mut info = DeviceInfo::new(&name, &name, TargetKind::Disk);
            info.ident = Some(format!("ZL{d:06}"));
            info.descr = Some(format!("ST{}NM000J", 12 + d % 4));
            info.media_size_bytes = 12_000_138_625_024;
            let mut disk = DiskResult::new(&name);
            disk.info = Some(info);
            // Measured or read: a SMART snapshot (the history records no drive
            // that was only described).
            disk.smart = Some(SmartResult {
                before: Some(Health {
                    temperature_c: Some(30 + (d % 15) as i64),
                    power_on_hours: Some(1000 + i as u64 * 24),
                    ..Default::default()
                }),
                ..Default::default()
            });
            disk.verdict = Some(seekprobe::verdict::judge(if (d + i).is_multiple_of(50) {
                vec![seekprobe::results::Finding::new(
                    seekprobe::results::Severity::Fail,
                    "scan",
                    seekprobe::results::Code::UnreadableSectors,
                    "scan: unreadable".into(),
                )]
            } else {
                Vec::new()
            }));
            disk
        })
        .collect();
    Run {
        schema_version: SCHEMA_VERSION,
        tool: "seekprobe".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        tests: Vec::new(),
        verbose: false,
        settle_s: 0.0,
        disks,
        started_unix_s: Some(1_790_000_000 + i as u64 * 86_400),
        burn_in: None,
        record: Default::default(),
    }
}

fn history(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let place = Place::Named(dir.path().join("history.db"));
    let mut db = HistoryDb::open(&place).unwrap();
    let origin = Origin {
        host: "bench".into(),
        command: "seekprobe -t --qualify".into(),
        source: "recorded".into(),
    };
    let start = Instant::now();
    for i in 0..RUNS {
        assert_eq!(db.record(&run(i), &origin).unwrap(), DRIVES);
    }
    eprintln!(
        "recorded {RUNS} runs of {DRIVES} drives in {:.1} s ({:.2} ms a drive)",
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() * 1e3 / (RUNS * DRIVES) as f64
    );
    let mut g = c.benchmark_group("history");
    g.sample_size(10);
    g.bench_function("drives_10000x10", |b| {
        b.iter(|| {
            let rows = db.drives().unwrap();
            assert_eq!(rows.len(), DRIVES);
            black_box(seekprobe::history::show::drives(
                &rows,
                seekprobe::cli::HistoryFormat::Table,
            ))
        })
    });
    g.bench_function("timeline", |b| {
        b.iter(|| black_box(db.timeline("ZL004242").unwrap()))
    });
    g.finish();
}

criterion_group!(benches, history);
criterion_main!(benches);
