//! Unit tests of the write-and-verify pass on simulated drives and image files.
use super::*;
use crate::device::AlignedBuf;
use crate::results::failures::{FailureKind, ReadBack};
use crate::test_plans::scan::whole;
use std::sync::atomic::Ordering;

fn params(size: u64, block: u64) -> VerifyParams {
    VerifyParams {
        range: whole(size, block),
        passes: 2,
        nonce: 42,
        queue_depth: QueueDepth::fixed::<4>(),
        slow_ms: 50.0,
        io_timeout: None,
        resume: None,
        known_good: Vec::new(),
    }
}

#[test]
fn ctrl_c_during_the_retries_stops_them_and_the_pass_resumes_from_its_start() {
    let mut t =
        crate::device::sim::SimTarget::open("sim:ssd?size=16M&unwritable=1000-1003").unwrap();
    let p = VerifyParams {
        passes: 1,
        ..params(16 << 20, 1 << 20)
    };
    let stop = AtomicBool::new(false);
    // Ctrl-C as the write half's last block completes: the failed block's
    // sectors are not redone one by one, and nothing is judged of them.
    let (r, stopped, _) = run_verify(
        &mut t,
        &p,
        (&stop, None),
        &mut |_, half, done| {
            if half == HalfKind::Write && done == crate::engine::PassProgress::Bytes(16 << 20) {
                stop.store(true, Ordering::Relaxed);
            }
        },
        None,
    );
    assert!(
        matches!(stopped, Some(EngineStop::Interrupted)),
        "{stopped:?}"
    );
    let st = r.stopped.unwrap();
    assert_eq!((st.half, st.resume_start), (HalfKind::Write, 0));
    let pass = &r.passes[0];
    assert_eq!(pass.write.error_blocks, 1);
    assert_eq!(pass.write.retried_bytes, 0);
    assert_eq!(pass.write.flush_ns, None);
    assert!(pass.read.is_none());
    assert!(pass.failures.is_empty(), "{:?}", pass.failures);
}

/// One pass run on `t` to its end (no Ctrl-C), every checkpoint it saves handed
/// to `save`: the result and how it stopped.
fn run_saving(
    t: &mut dyn Target,
    p: &VerifyParams,
    save: &mut dyn FnMut(&Checkpoint),
) -> (VerifyResult, Option<EngineStop>) {
    let stop = AtomicBool::new(false);
    let mut saver = Saver::new(save);
    let (r, stopped, _) = run_verify(t, p, (&stop, None), &mut |_, _, _| {}, Some(&mut saver));
    (r, stopped)
}

#[test]
fn a_run_resumed_from_any_read_half_checkpoint_has_the_whole_runs_failures() {
    // Blocks 2 and 3 slow, so that block 4 (corrupt) completes before them and
    // the checkpoint saved when block 2 completes is below block 4.
    let uri = "sim:ssd?size=16M&slow=4096-4097:20&slow=6144-6145:40&corrupt=8300-8310&unwritable=12000-12002";
    let mut t = crate::device::sim::SimTarget::open(uri).unwrap();
    let p = VerifyParams {
        passes: 1,
        queue_depth: QueueDepth::fixed::<8>(),
        ..params(16 << 20, 1 << 20)
    };
    let mut cps = Vec::new();
    let (whole, stopped) = run_saving(&mut t, &p, &mut |c| cps.push(c.clone()));
    assert!(stopped.is_none(), "{stopped:?}");
    let want = &whole.passes[0].failures;
    assert!(!want.is_empty());
    let cps: Vec<Checkpoint> = cps
        .into_iter()
        .filter(|c| c.half == HalfKind::Read && c.pass == 0)
        .collect();
    assert!(cps.len() > 2, "{}", cps.len());
    for cp in cps {
        // Each failure the read half found lies below the checkpoint's done_to.
        assert!(
            cp.failures
                .ranges()
                .iter()
                .filter(|r| r.kind != FailureKind::Unwritable)
                .all(|r| r.end_lba() <= cp.done_to / 512),
            "{cp:?}"
        );
        let p = VerifyParams {
            resume: Some(cp.clone()),
            ..p.clone()
        };
        // The resumed run never saves a checkpoint behind the one it resumed
        // (the write half it skips saved `done_to: start`).
        let mut behind = Vec::new();
        let mut save = |c: &Checkpoint| {
            if c.pass == 0 && c.done_to < cp.done_to {
                behind.push(c.done_to);
            }
        };
        let (r, stopped) = run_saving(&mut t, &p, &mut save);
        assert!(stopped.is_none(), "{stopped:?}");
        assert_eq!(&r.passes[0].failures, want, "resumed at {}", cp.done_to);
        assert!(behind.is_empty(), "resumed at {}: {behind:?}", cp.done_to);
    }
}

#[test]
fn an_image_file_passes_clean_with_both_halves_timed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("img");
    // 8 MiB and a partial last block of 3 sectors.
    std::fs::write(&path, vec![0u8; (8 << 20) + 1536]).unwrap();
    let opts = crate::device::OpenOptions {
        io: true,
        write: true,
        limit: std::time::Duration::from_secs(120),
        stop: crate::device::Stop::default(),
    };
    let mut t = crate::device::open(path.to_str().unwrap(), &opts).unwrap();
    let size = (8 << 20) + 1536;
    let p = params(size, 256 << 10);
    let mut seen = 0u64;
    let (r, stop, _) = run_verify(
        t.as_mut(),
        &p,
        (&AtomicBool::new(false), None),
        &mut |_, _, d| {
            if let crate::engine::PassProgress::Bytes(d) = d {
                seen = seen.max(d)
            }
        },
        None,
    );
    assert!(stop.is_none());
    assert_eq!(seen, size);
    // The thread pool: each request timed by the thread that did it.
    assert_eq!(r.engine, QueuedEngine::Threads);
    assert_eq!(r.passes.len(), 2);
    for pass in &r.passes {
        assert!(pass.failures.is_empty(), "{:?}", pass.failures);
        let read = pass.read.as_ref().unwrap();
        for h in [&pass.write, read] {
            assert_eq!((h.blocks, h.bytes, h.error_blocks), (33, size, 0));
            assert_eq!(h.buckets.iter().sum::<u64>(), 33);
            assert_eq!(h.region_bytes.iter().sum::<u64>(), size);
            assert_eq!(h.end_bytes, size);
        }
    }
    // The file holds the last pass's stamps.
    let data = std::fs::read(&path).unwrap();
    let s = Stamper::new(42, 1, StampSize::new(512).unwrap());
    assert!(s.all_ok(&data, 0));
    // Altered content is found, sector by sector, with its kind.
    let mut buf = data[..2 << 20].to_vec();
    buf[4096..5120].fill(0xFF);
    let v: Vec<ReadBack> = s.check(&buf, 0).filter(|v| !v.is_ok()).collect();
    assert_eq!(v, [ReadBack::Corrupt, ReadBack::Corrupt]);
}

#[test]
fn a_drive_that_keeps_only_the_first_256_mib_written_is_named_early_with_the_kept_size() {
    let mut t = crate::device::sim::SimTarget::open("sim:ssd?size=1G&keeps=256M").unwrap();
    let p = params(1 << 30, 1 << 20);
    let stop = AtomicBool::new(false);
    let (r, stopped, _) = run_verify(&mut t, &p, (&stop, None), &mut |_, _, _| {}, None);
    assert!(stopped.is_none(), "{stopped:?}");
    let k = r.keeps_only.expect("the fake is named");
    assert_eq!(
        (k.pass, k.lost_from, k.kept_bytes),
        (0, 256 << 20, 256 << 20)
    );
    // Found early: written at most the kept size and a quarter of the claimed size
    // (in fact a few sample spacings, 4 MiB each here).
    assert!(k.written_to <= (256 << 20) + (1 << 28), "{k:?}");
    assert!(k.written_to <= (256 << 20) + (32 << 20), "{k:?}");
    // One pass, no later one; the read half read back only what was kept, and
    // found it all as written: no sector stands in for the finding.
    assert_eq!(r.passes.len(), 1);
    let pass = &r.passes[0];
    assert_eq!(pass.write.end_bytes, k.written_to);
    assert_eq!(pass.read.as_ref().unwrap().bytes, 256 << 20);
    assert!(pass.failures.is_empty(), "{:?}", pass.failures);
    assert!(r.stopped.is_none());
}

#[test]
fn a_damaged_area_followed_by_good_sectors_stays_sector_findings() {
    // 40 MiB read back altered (every sample in it lost), then good again: the
    // probes ahead read back as written, so the pass writes on to the end.
    let mut t =
        crate::device::sim::SimTarget::open("sim:ssd?size=256M&corrupt=204800-286720").unwrap();
    let p = VerifyParams {
        passes: 1,
        ..params(256 << 20, 1 << 20)
    };
    let stop = AtomicBool::new(false);
    let (r, stopped, _) = run_verify(&mut t, &p, (&stop, None), &mut |_, _, _| {}, None);
    assert!(stopped.is_none(), "{stopped:?}");
    assert_eq!(r.keeps_only, None);
    let pass = &r.passes[0];
    assert_eq!(pass.write.end_bytes, 256 << 20);
    assert_eq!(pass.read.as_ref().unwrap().bytes, 256 << 20);
    assert_eq!(pass.failures.count(FailureKind::Corrupt), 81920);
}

/// One pass over the `size`-byte simulated drive `uri` in 1 MiB blocks, its
/// checkpoints kept: the drive (holding what the pass wrote), the parameters,
/// the result, how it stopped, the checkpoints in the order saved.
fn one_pass_saved(
    uri: &str,
    size: u64,
) -> (
    crate::device::sim::SimTarget,
    VerifyParams,
    VerifyResult,
    Option<EngineStop>,
    Vec<Checkpoint>,
) {
    let mut t = crate::device::sim::SimTarget::open(uri).unwrap();
    let p = VerifyParams {
        passes: 1,
        ..params(size, 1 << 20)
    };
    let mut saved = Vec::new();
    let (r, stopped) = run_saving(&mut t, &p, &mut |c| saved.push(c.clone()));
    (t, p, r, stopped, saved)
}

#[test]
fn a_run_resumed_in_the_read_half_of_a_fake_reads_back_only_what_was_kept() {
    // 16 MiB and 40 sectors: the read half ends inside a block.
    let (mut t, p, whole, _, saved) = one_pass_saved("sim:ssd?size=64M&keeps=16404480", 64 << 20);
    let stop = AtomicBool::new(false);
    let k = whole.keeps_only.unwrap();
    assert_eq!(k.kept_bytes, 16404480);
    let reads: Vec<&Checkpoint> = saved
        .iter()
        .filter(|c| c.half == HalfKind::Read && c.done_to > 0)
        .collect();
    assert!(reads.len() > 1, "{}", reads.len());
    assert_eq!(reads.last().unwrap().done_to, k.lost_from);
    // The same drive, resumed from the first and the last of them (its content
    // is still on it).
    for cp in [reads[0], reads[reads.len() - 1]] {
        assert_eq!(cp.keeps_only, Some(k));
        assert!(cp.fits(0, 64 << 20, 1 << 20, 1));
        let resumed = VerifyParams {
            resume: Some(cp.clone()),
            ..p.clone()
        };
        let (again, stopped, _) =
            run_verify(&mut t, &resumed, (&stop, None), &mut |_, _, _| {}, None);
        assert!(stopped.is_none(), "{stopped:?}");
        assert_eq!(again.keeps_only, Some(k));
        assert_eq!(again.passes.len(), 1);
        assert!(again.passes[0].failures.is_empty());
        assert_eq!(
            again.passes[0].read.as_ref().unwrap().end_bytes,
            k.lost_from
        );
    }
}

#[test]
fn a_slow_write_block_is_written_again_alone_and_placed_exactly() {
    // Block 8 (sectors 16384-18431) takes 120 ms more for every write and read.
    let uri = "sim:ssd?size=64M&slow=16384-18432:120";
    let mut t = crate::device::sim::SimTarget::open(uri).unwrap();
    let p = params(64 << 20, 1 << 20);
    let (r, stopped, _) = run_verify(
        &mut t,
        &p,
        (&AtomicBool::new(false), None),
        &mut |_, _, _| {},
        None,
    );
    assert!(stopped.is_none(), "{stopped:?}");
    assert_eq!(r.passes.len(), 2);
    for pass in &r.passes {
        let read = pass.read.as_ref().unwrap();
        for h in [&pass.write, read] {
            assert_eq!(h.slow.len(), 1, "{:?}", h.slow);
            let s = h.slow[0];
            assert_eq!((s.first_sector, s.sectors), (16384, 2048), "{s:?}");
            assert_eq!(s.timed, crate::results::SlowTiming::Confirmed);
            // Its own time alone on the virtual clock: the 120 ms and one 1 MiB
            // transfer of a few ms.
            assert!((120_000_000..125_000_000).contains(&s.max_ns), "{s:?}");
            assert_eq!(h.unconfirmed, 0);
        }
        // The blocks written again held the pass's own stamps: every sector
        // read back as written.
        assert!(pass.failures.is_empty(), "{:?}", pass.failures);
    }
    // The drive holds the last pass's stamps everywhere.
    let mut data = AlignedBuf::new(64 << 20);
    t.read_at(data.for_read(..), 0).unwrap();
    let s = Stamper::new(42, 1, StampSize::B512);
    assert!(s.all_ok(&data, 0));
}

#[test]
fn a_write_half_cut_short_is_not_written_again() {
    // Ctrl-C once block 12 completes: the slow block 8 stays as the queued pass
    // timed it, and nothing is written again.
    let uri = "sim:ssd?size=64M&slow=16384-18432:120";
    let mut t = crate::device::sim::SimTarget::open(uri).unwrap();
    let p = VerifyParams {
        passes: 1,
        ..params(64 << 20, 1 << 20)
    };
    let stop = AtomicBool::new(false);
    let (r, stopped, _) = run_verify(
        &mut t,
        &p,
        (&stop, None),
        &mut |_, half, done| {
            if half == HalfKind::Write
                && matches!(done, crate::engine::PassProgress::Bytes(d) if d >= 12 << 20)
            {
                stop.store(true, Ordering::Relaxed);
            }
        },
        None,
    );
    assert!(
        matches!(stopped, Some(EngineStop::Interrupted)),
        "{stopped:?}"
    );
    let w = &r.passes[0].write;
    assert_eq!(w.slow.len(), 1, "{:?}", w.slow);
    assert_eq!(w.slow[0].timed, crate::results::SlowTiming::Queued);
}

#[test]
fn a_simulated_write_half_checkpoints_after_a_flush_and_resumes_from_any() {
    // A simulated drive lends no descriptor: the write half stops handing out
    // writes, flushes through the target and saves, every 1% of the range.
    let (mut t, p, whole, stopped, cps) =
        one_pass_saved("sim:hdd?size=64M&corrupt=20000-20004", 64 << 20);
    let stop = AtomicBool::new(false);
    assert!(stopped.is_none(), "{stopped:?}");
    assert_eq!(whole.passes[0].failures.count(FailureKind::Corrupt), 4);
    let writes: Vec<&Checkpoint> = cps
        .iter()
        .filter(|c| c.half == HalfKind::Write && c.done_to > 0)
        .collect();
    // Due at each block (1 MiB is more than 1% of 64 MiB), saved once the 4
    // writes in flight completed and the cache was flushed: every 4 MiB.
    let at: Vec<u64> = writes.iter().map(|c| c.done_to).collect();
    assert_eq!(at, (1..=16).map(|i| (i * 4) << 20).collect::<Vec<u64>>());
    for cp in [writes[0], writes[7], writes[15]] {
        let resumed = VerifyParams {
            resume: Some(cp.clone()),
            ..p.clone()
        };
        let (again, stopped, _) =
            run_verify(&mut t, &resumed, (&stop, None), &mut |_, _, _| {}, None);
        assert!(stopped.is_none(), "{stopped:?}");
        assert_eq!(again.passes[0].write.bytes, (64 << 20) - cp.done_to);
        assert_eq!(again.passes[0].failures, whole.passes[0].failures);
    }
}

#[test]
fn a_simulated_write_half_checkpoints_every_minute_on_its_clock() {
    // 2 TB, its first 64 MiB 2 s a request: 1% of the range (20 GB) is far, so the
    // checkpoints come from the minute of virtual time.
    let uri = "sim:hdd?size=2T&slow=0-131072:2000";
    let mut t = crate::device::sim::SimTarget::open(uri).unwrap();
    let p = VerifyParams {
        passes: 1,
        queue_depth: QueueDepth::fixed::<1>(),
        ..params(2_000_000_000_000, 1 << 20)
    };
    let stop = AtomicBool::new(false);
    let mut cps = Vec::new();
    let mut save = |c: &Checkpoint| cps.push(c.clone());
    let mut saver = Saver::new(&mut save);
    let (r, stopped, _) = run_verify(
        &mut t,
        &p,
        (&stop, None),
        &mut |_, _, done| {
            if matches!(done, crate::engine::PassProgress::Bytes(d) if d >= 45 << 20) {
                stop.store(true, Ordering::Relaxed);
            }
        },
        Some(&mut saver),
    );
    assert!(
        matches!(stopped, Some(EngineStop::Interrupted)),
        "{stopped:?}"
    );
    assert!(r.passes[0].write.elapsed_ns > 90_000_000_000);
    let writes: Vec<u64> = cps
        .iter()
        .filter(|c| c.half == HalfKind::Write && c.done_to > 0)
        .map(|c| c.done_to)
        .collect();
    // 2 s a block: a checkpoint after 30 blocks (60 s), none after 45.
    assert_eq!(writes, [30 << 20], "{writes:?}");
}

/// Verify the 64 MiB simulated drive whose `shrink=` is `rule` (2 passes, 1 MiB
/// blocks): the run stopped by its size change, the change, and its only pass.
fn shrunk(rule: &str) -> (crate::results::verify::SizeChanged, Pass) {
    let uri = format!("sim:ssd?size=64M&shrink={rule}");
    let mut t = crate::device::sim::SimTarget::open(&uri).unwrap();
    let p = params(64 << 20, 1 << 20);
    let (r, stopped, _) = run_verify(
        &mut t,
        &p,
        (&AtomicBool::new(false), None),
        &mut |_, _, _| {},
        None,
    );
    let c = r.size_changed.unwrap();
    assert!(
        matches!(stopped, Some(EngineStop::Failed { offset, .. }) if offset == c.at_bytes),
        "{stopped:?}"
    );
    assert_eq!(r.passes.len(), 1);
    let pass = r.passes.into_iter().next().unwrap();
    assert!(pass.read.is_none());
    assert!(pass.failures.is_empty(), "{:?}", pass.failures);
    (c, pass)
}

#[test]
fn a_drive_that_shrinks_while_written_stops_the_pass_with_no_failed_sector() {
    // Once 40 MiB were written the drive's size reads 32 MiB, and every access
    // past 32 MiB fails: the write at 40 MiB is the first to fail.
    let (c, pass) = shrunk("40M:32M");
    assert_eq!(
        (c.from_bytes, c.to_bytes, c.pass, c.half, c.at_bytes),
        (64 << 20, 32 << 20, 0, HalfKind::Write, 40 << 20)
    );
    assert!(c.after_ns > 0, "{c:?}");
    assert_eq!(pass.write.error_blocks, 0);
    // A size it shrinks to must be whole sectors below its own.
    for bad in ["1M:64M", "1M:0", "1M:1000", "1M"] {
        let uri = format!("sim:ssd?size=64M&shrink={bad}");
        assert!(crate::device::sim::SimTarget::open(&uri).is_err(), "{bad}");
    }
}

#[test]
fn a_drive_that_shrinks_once_wholly_written_is_found_by_reading_its_size() {
    // The whole drive written once, then its size reads 32 MiB from the next
    // access on (the write half's read-back as it goes): no request failed, the
    // size read again with the 64th block (every 16 blocks) finds it.
    let (c, pass) = shrunk("64M:32M");
    assert_eq!(
        (c.from_bytes, c.to_bytes, c.pass, c.half, c.at_bytes),
        (64 << 20, 32 << 20, 0, HalfKind::Write, 63 << 20)
    );
    assert_eq!((pass.write.blocks, pass.write.error_blocks), (64, 0));
}
