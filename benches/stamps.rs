//! Micro-benchmarks of the write-and-verify pass's CPU cost, through the public API
//! only: stamping a buffer and checking a clean read-back, for 512- and 4096-byte
//! sectors, in 1 MiB buffers (the pass's request size).
//!
//! ```sh
//! cargo bench --bench stamps
//! ```
//!
//! Both must run at 4 GB/s or more on one core, so that the disk, not the CPU, sets
//! the pace of `--verify` on any drive (issue 12); docs/methods.md has the figures.
//!
//! Each is measured twice: in wall time (`stamp/...`), and in the CPU time of the
//! benchmarking thread (`stamp_cpu/...`), which is what "on one core" means and
//! what stays meaningful on a shared machine whose other jobs take the CPU away.

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use seekprobe::stamps::stamp::{StampSize, Stamper};
use std::hint::black_box;
use std::time::Duration;

/// The bytes of one request of the pass.
const BUF: usize = 1 << 20;

/// The CPU time of the calling thread, as a criterion measurement (formatted as
/// wall time is).
struct ThreadCpu {
    wall: WallTime,
}

/// The calling thread's CPU time in ns. Raw libc: nix's clock_gettime needs a
/// feature the crate does not enable, and rustix is not a dependency.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid timespec to write to; the clock id is a constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID)");
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns() - start
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn stamps<M: Measurement>(c: &mut Criterion<M>, group: &str) {
    let mut g = c.benchmark_group(group);
    g.throughput(Throughput::Bytes(BUF as u64));
    for ss in [512u32, 4096] {
        let s = Stamper::new(0x5EED, 1, StampSize::new(ss).expect("a valid sector size"));
        let mut buf = vec![0u8; BUF];
        let mut lba = 0u64;
        g.bench_function(format!("stamp/{ss}"), |b| {
            b.iter(|| {
                s.stamp(black_box(&mut buf), lba);
                lba += (BUF / ss as usize) as u64;
            })
        });
        s.stamp(&mut buf, 1 << 30);
        g.bench_function(format!("all_ok/{ss}"), |b| {
            b.iter(|| assert!(s.all_ok(black_box(&buf), 1 << 30)))
        });
        g.bench_function(format!("check/{ss}"), |b| {
            b.iter(|| {
                assert_eq!(
                    s.check(black_box(&buf), 1 << 30)
                        .filter(|v| !v.is_ok())
                        .count(),
                    0
                )
            })
        });
    }
    g.finish();
}

fn wall(c: &mut Criterion) {
    stamps(c, "stamp");
}

fn cpu(c: &mut Criterion<ThreadCpu>) {
    stamps(c, "stamp_cpu");
}

criterion_group! {
    name = benches;
    // Short runs: the machine is shared.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = wall
}
criterion_group! {
    name = cpu_benches;
    config = Criterion::default()
        .with_measurement(ThreadCpu { wall: WallTime })
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = cpu
}
criterion_main!(benches, cpu_benches);
