//! Micro-benchmarks of seekprobe's hot paths, through the public API only:
//! plan generation, per-operation recording, statistics, the synchronous engine on a
//! simulated drive, and rendering (diskinfo text, table, JSON).
//!
//! ```sh
//! cargo bench --bench hot_paths            # all of them
//! cargo bench --bench hot_paths -- render  # those whose name contains "render"
//! ```
//!
//! These measure seekprobe's own CPU cost, which must vanish beside a device's: a
//! `-t` on a real disk does about 4,000 one-sector reads and 300 MiB of transfers,
//! so tens of microseconds of bookkeeping per whole test is the budget.
//! docs/performance.md compares whole runs with fio, ioping and dd.

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use seekprobe::app;
use seekprobe::device::{self, OpenOptions, Stop, Target};
use seekprobe::engine::sync::SyncEngine;
use seekprobe::report::{self, Format, diskinfo, json};
use seekprobe::results::Run;
use seekprobe::results::stats::{Histogram, Summary};
use seekprobe::results::test_kind::{PhaseId, TestKind};
use seekprobe::test_plans::{self, MIB};
use std::ffi::OsString;
use std::hint::black_box;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The simulated 2 TB, 7200 rpm drive of the README.
const SIM: &str = "sim:hdd";

fn open_sim() -> Box<dyn Target> {
    device::open(
        SIM,
        &OpenOptions {
            io: true,
            write: false,
            limit: Duration::from_secs(120),
            stop: Stop::default(),
        },
    )
    .expect("sim:hdd opens")
}

/// Deterministic latencies shaped like a seek line (a few ms, spread) for the
/// statistics benchmarks, from seekprobe's seeded generator.
fn latencies(n: usize) -> Vec<u64> {
    let mut g = seekprobe::rng::seeded(0x5eed);
    (0..n)
        .map(|_| 2_000_000 + seekprobe::rng::below(&mut g, 20_000_000))
        .collect()
}

/// A whole `-t` run on sim:hdd, as the results the reporters take: run through the
/// command line's own entry point and read back from its JSON, so that this file
/// does not depend on the fields of the result types.
fn sim_run() -> Run {
    let args = ["seekprobe", "-t", "--json", "--quiet", SIM].map(OsString::from);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = app::main_with(args, Stop::default(), &mut out, &mut err);
    assert_eq!(status, 0, "{}", String::from_utf8_lossy(&err));
    json::from_json(std::str::from_utf8(&out).expect("UTF-8")).expect("the run's JSON")
}

fn plans(c: &mut Criterion) {
    let mut g = c.benchmark_group("plan");
    let opts = test_plans::Options::default();
    for (name, media, ss) in [
        (
            "seek_transfer/2TB-512",
            2_000_398_934_016u64,
            seekprobe::results::settings::SectorSize::B512,
        ),
        (
            "seek_transfer/16TB-4Kn",
            16_000_900_661_248,
            seekprobe::results::settings::SectorSize::B4096,
        ),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| {
                test_plans::plan(
                    TestKind::SeekTransfer,
                    black_box(media),
                    black_box(ss),
                    &opts,
                )
            })
        });
    }
    g.bench_function("command_overhead/2TB-512", |b| {
        b.iter(|| {
            test_plans::plan(
                TestKind::CommandOverhead,
                black_box(2_000_398_934_016),
                black_box(seekprobe::results::settings::SectorSize::B512),
                &opts,
            )
        })
    });
    g.finish();
}

fn stats(c: &mut Criterion) {
    let mut g = c.benchmark_group("stats");
    // One sample per operation of -i: the queued engines record every completion.
    let samples = latencies(1 << 16);
    g.throughput(Throughput::Elements(samples.len() as u64));
    g.bench_function("histogram_record/65536", |b| {
        b.iter_batched_ref(
            Histogram::new,
            |h| {
                for &v in &samples {
                    h.record(v);
                }
            },
            BatchSize::SmallInput,
        )
    });
    let mut full = Histogram::new();
    for &v in &samples {
        full.record(v);
    }
    g.bench_function("histogram_summary/65536", |b| {
        b.iter(|| black_box(&full).summary())
    });
    // The largest exact summary of -t and -c: Seq outer/inner (2048) and the 20480
    // reads of -c's second line.
    for n in [2048usize, 20480] {
        let s = latencies(n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_function(format!("summary_of/{n}"), |b| {
            b.iter(|| Summary::of(black_box(&s)))
        });
    }
    g.finish();
}

fn engine(c: &mut Criterion) {
    let mut g = c.benchmark_group("sync_engine");
    let mut target = open_sim();
    let info = target.info().clone();
    let plan = test_plans::plan(
        TestKind::SeekTransfer,
        info.media_size_bytes,
        seekprobe::results::settings::SectorSize::new(info.sector_size).expect("a sector size"),
        &test_plans::Options::default(),
    )
    .expect("plan");
    let stop = AtomicBool::new(false);
    let mut engine = SyncEngine::new(MIB as usize);
    for id in [PhaseId::FullStroke, PhaseId::SeqOuter, PhaseId::Outside] {
        let phase = plan.phases().find(|p| p.id == id).expect("phase in plan");
        g.throughput(Throughput::Elements(phase.ops.len() as u64));
        g.bench_function(format!("run_phase/sim:hdd/{}", id.name()), |b| {
            b.iter(|| engine.run_phase(target.as_mut(), black_box(phase), Duration::ZERO, &stop))
        });
    }
    g.finish();
}

fn render(c: &mut Criterion) {
    let mut g = c.benchmark_group("render");
    let run = sim_run();
    g.bench_function("diskinfo_render_disk", |b| {
        b.iter(|| diskinfo::render_disk(black_box(&run.disks[0]), true))
    });
    g.bench_function("table", |b| {
        b.iter(|| report::render(black_box(&run), Format::Table))
    });
    g.bench_function("json", |b| {
        b.iter(|| report::render(black_box(&run), Format::Json))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    // Short runs: the machine is shared; criterion's medians and confidence
    // intervals are what matter, not the last nanosecond.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = plans, stats, engine, render
}
criterion_main!(benches);
