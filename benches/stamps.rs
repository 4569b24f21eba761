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

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use seekprobe::verify::stamp::Stamper;
use std::hint::black_box;
use std::time::Duration;

/// The bytes of one request of the pass.
const BUF: usize = 1 << 20;

fn stamps(c: &mut Criterion) {
    let mut g = c.benchmark_group("stamp");
    g.throughput(Throughput::Bytes(BUF as u64));
    for ss in [512u32, 4096] {
        let s = Stamper::new(0x5EED, 1, ss).expect("a valid sector size");
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

criterion_group! {
    name = benches;
    // Short runs: the machine is shared.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = stamps
}
criterion_main!(benches);
