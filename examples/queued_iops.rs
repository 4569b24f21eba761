//! Measure queued random-read IOPS on a device with one of seekprobe's queued engines,
//! for comparison with fio on the same device:
//!
//! ```sh
//! cargo run --release --example queued_iops -- /dev/loop0 uring 4096 128 3
//! fio --name=x --filename=/dev/loop0 --ioengine=io_uring --iodepth=128 \
//!     --rw=randread --bs=4k --direct=1 --runtime=3 --time_based
//! ```
//!
//! Arguments: DEVICE ENGINE(uring|threads) [LEN [QUEUE_DEPTH [SECONDS [SEED]]]].
//! Linux only (the device is opened with O_DIRECT).

#[cfg(target_os = "linux")]
fn main() {
    use seekprobe::clock::MonotonicClock;
    use seekprobe::engine::queued::QueuedParams;
    use seekprobe::engine::{threads, uring};
    use seekprobe::test_plans::iops::OffsetGen;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: queued_iops DEVICE uring|threads [LEN [QD [SECONDS [SEED]]]]");
        std::process::exit(2);
    }
    let num = |i: usize, d: u64| args.get(i).map_or(d, |s| s.parse().expect("a number"));
    let params = QueuedParams {
        len: num(2, 4096) as u32,
        queue_depth: seekprobe::results::settings::QueueDepth::check_depth(num(3, 128) as u32)
            .expect("a queue depth of 1 to 4096"),
        duration: Duration::from_secs_f64(num(4, 3) as f64),
        seed: num(5, 1),
        io_timeout: None,
    };
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT)
        .open(&args[0])
        .expect("open");
    // The media size: seek to the end.
    let media = {
        use std::io::Seek;
        (&file).seek(std::io::SeekFrom::End(0)).expect("size")
    };
    let stream = OffsetGen::new(
        params.seed,
        media,
        seekprobe::results::settings::SectorSize::B512,
        params.len,
    )
    .expect("size");
    let clock = MonotonicClock::new();
    let stop = AtomicBool::new(false);
    let fd = file.as_raw_fd();
    let run = match args[1].as_str() {
        "uring" => match uring::run(fd, &clock, stream, &params, &stop) {
            Ok(run) => run,
            Err(why) => {
                eprintln!("queued_iops: io_uring: {why}");
                std::process::exit(1);
            }
        },
        "threads" => threads::run(fd, &clock, stream, &params, &stop),
        other => panic!("unknown engine {other}"),
    };
    let s = run.latency.summary();
    println!(
        "{} len={} qd={} completed={} elapsed={:.6}s iops={:.0} p50={}ns p99={}ns stop={:?}",
        run.engine.name(),
        params.len,
        params.queue_depth.get(),
        run.completed,
        run.elapsed_ns as f64 / 1e9,
        run.iops(),
        s.as_ref().map_or(0, |s| s.p50_ns),
        s.as_ref().map_or(0, |s| s.p99_ns),
        run.stop
    );
}

#[cfg(not(target_os = "linux"))]
fn main() {
    eprintln!("queued_iops: Linux only");
}
