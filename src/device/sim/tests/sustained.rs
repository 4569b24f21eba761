//! Whole passes on the disk model: the sustained write rate against the published
//! figure, and a write-and-verify pass without the periodic stall of a cache
//! written back in one command.
use super::open;
use crate::device::{AlignedBuf, Target};
use crate::test_plans::scan::whole;
use std::sync::atomic::AtomicBool;

const MIB: u64 = 1 << 20;

#[test]
fn a_sequential_write_pass_runs_at_the_published_average_rate() {
    // size= keeps the zone profile, so a 20 GB drive's pass averages as the 2 TB
    // one's does. Seagate gives the ST2000DM001 an average transfer rate of
    // 156 MB/s (docs/sim.md, "Writes, the write cache, flush").
    let mut t = open("sim:hdd?size=20G");
    let size = t.info().media_size_bytes;
    let buf = AlignedBuf::new(MIB as usize);
    let t0 = t.clock().now_ns();
    for k in 0..size / MIB {
        t.write_at(buf.for_write(..), k * MIB).unwrap();
    }
    t.flush().unwrap();
    let secs = (t.clock().now_ns() - t0) as f64 / 1e9;
    let rate = size as f64 / secs / 1e6;
    assert!(
        (rate / 156.0 - 1.0).abs() < 0.10,
        "{rate:.1} MB/s against the published 156"
    );
    // Never faster than the media: the whole surface streamed once.
    let media: f64 = (0..size / MIB)
        .map(|k| MIB as f64 / t.truth_media_rate(k * MIB))
        .sum();
    assert!(secs >= media * 0.999, "{secs} s for {media} s of media");
}

#[test]
fn a_healthy_disk_passes_write_and_verify_without_a_slow_block() {
    // 128 MiB: four times the 32 MiB write cache, whose write-back in one
    // command used to stall a write every 32 MiB (size= keeps every zone).
    let mut t = open("sim:hdd?size=128M");
    let p = crate::engine::verify::VerifyParams {
        range: whole(128 * MIB, MIB),
        passes: 1,
        nonce: 5,
        queue_depth: crate::results::settings::QueueDepth::fixed::<4>(),
        slow_ms: 50.0,
        io_timeout: None,
        resume: None,
        known_good: Vec::new(),
    };
    let (r, stop, _) = crate::engine::verify::run_verify(
        &mut t,
        &p,
        (&AtomicBool::new(false), None),
        &mut |_, _, _| {},
        None,
    );
    assert!(stop.is_none());
    let pass = &r.passes[0];
    assert!(pass.failures.is_empty(), "{:?}", pass.failures);
    let read = pass.read.as_ref().unwrap();
    for h in [&pass.write, read] {
        assert!(h.slow.is_empty(), "{:?}", h.slow);
        assert_eq!(h.bytes, 128 * MIB);
    }
    // 128 MiB of stamps and no content kept.
    assert_eq!(t.stored(), (0, 1));
}
