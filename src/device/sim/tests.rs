//! The simulated drive's unit tests: the published-drive bounds, the model's own
//! analytic expectations, faults and the spec's errors.

use super::hdd::Hdd;
use super::physics::Model;
use super::{MS, SimTarget};
use crate::clock::Clock;
use crate::device::{AlignedBuf, Simulated, Target};
use crate::error::ProbeError;
use crate::results::device::{IoMode, Rotation, TargetKind};
use crate::results::test_kind::{PhaseId, TestKind};
use crate::rng;
use crate::test_plans::Op;
use crate::test_plans::{Phase, plan};
use std::io;
use std::time::Duration;

/// The published ST2000DM001 figures, in the order of the -t phases: msec per
/// op for the seven seek lines, kbytes/s for the three transfer lines.
const PUBLISHED: [(PhaseId, f64); 10] = [
    (PhaseId::FullStroke, 22.110),
    (PhaseId::HalfStroke, 16.574),
    (PhaseId::QuarterStroke, 8.448),
    (PhaseId::ShortForward, 3.867),
    (PhaseId::ShortBackward, 4.933),
    (PhaseId::SeqOuter, 0.071),
    (PhaseId::SeqInner, 0.074),
    (PhaseId::Outside, 179598.0),
    (PhaseId::Middle, 168832.0),
    (PhaseId::Inside, 97431.0),
];

fn open(spec: &str) -> SimTarget {
    SimTarget::open(spec).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn bad_sim_msg(spec: &str) -> String {
    match SimTarget::open(spec) {
        Err(ProbeError::BadSim { spec: s, msg }) => {
            assert_eq!(s, spec);
            msg
        }
        Err(e) => panic!("{spec}: not BadSim: {e}"),
        Ok(_) => panic!("{spec}: accepted"),
    }
}

/// Run a phase as the sync engine does: setup ops, quiesce, the settle pause
/// (diskinfo: one second; seekprobe's default: none), then the timed ops.
/// Returns the elapsed ns and each op's ns.
fn run_phase_with(t: &mut SimTarget, ph: &Phase, settle: Duration) -> (u64, Vec<u64>) {
    let mut buf = AlignedBuf::new(ph.all_ops().map(|o| o.len as usize).max().unwrap_or(0));
    for op in &ph.setup {
        t.read_at(buf.for_read(..op.len as usize), op.offset)
            .unwrap();
    }
    t.quiesce().unwrap();
    t.clock().sleep(settle);
    let t0 = t.clock().now_ns();
    let mut each = Vec::with_capacity(ph.ops.len());
    for op in &ph.ops {
        let a = t.clock().now_ns();
        t.read_at(buf.for_read(..op.len as usize), op.offset)
            .unwrap();
        each.push(t.clock().now_ns() - a);
    }
    (t.clock().now_ns() - t0, each)
}

fn run_phase(t: &mut SimTarget, ph: &Phase) -> (u64, Vec<u64>) {
    run_phase_with(t, ph, Duration::from_secs(1))
}

/// The figure diskinfo prints for a phase.
fn figure(ph: &Phase, ns: u64) -> f64 {
    match ph.id {
        PhaseId::Outside | PhaseId::Middle | PhaseId::Inside => {
            ph.timed_bytes() as f64 / 1024.0 / (ns as f64 / 1e9)
        }
        _ => ns as f64 / ph.ops.len() as f64 / 1e6,
    }
}

/// The whole -t on a spec: (phase, figure, each op's ns).
fn run_t(spec: &str) -> Vec<(PhaseId, f64, Vec<u64>)> {
    run_t_with(spec, Duration::from_secs(1))
}

fn run_t_with(spec: &str, settle: Duration) -> Vec<(PhaseId, f64, Vec<u64>)> {
    let mut t = open(spec);
    let p = plan(
        TestKind::SeekTransfer,
        t.info().media_size_bytes,
        crate::results::settings::SectorSize::new(t.info().sector_size).unwrap(),
        &Default::default(),
    )
    .unwrap();
    p.phases()
        .map(|ph| {
            let (ns, each) = run_phase_with(&mut t, ph, settle);
            (ph.id, figure(ph, ns), each)
        })
        .collect()
}

fn hdd(t: &SimTarget) -> &Hdd {
    match &t.model {
        Model::Hdd(h) => h,
        Model::Flash(_) => panic!("not a disk model"),
    }
}

#[test]
fn hdd_lands_within_ten_percent_of_every_published_figure() {
    for (spec, settle) in [
        ("sim:hdd", 1000),
        ("sim:hdd", 0),
        ("sim:hdd?seed=2", 1000),
        ("sim:hdd?seed=12345", 0),
    ] {
        let got = run_t_with(spec, Duration::from_millis(settle));
        assert_eq!(got.len(), PUBLISHED.len());
        let mut report = String::new();
        let mut ok = true;
        for ((id, v, _), (pid, want)) in got.iter().zip(PUBLISHED) {
            assert_eq!(*id, pid);
            let dev = v / want - 1.0;
            ok &= dev.abs() <= 0.10;
            report.push_str(&format!(
                "{:>16}: {v:12.3} vs {want:12.3} ({:+.1}%)\n",
                id.name(),
                dev * 100.0
            ));
        }
        assert!(ok, "{spec}, settle {settle} ms, outside ±10%:\n{report}");
    }
}

/// The calibration table of docs/sim.md: seed 1 with no settle pause, and every
/// figure's range of deviations over seeds 0-99 in both settle modes, each within
/// ±10 % of the published drive (200 runs of -t on the virtual clock, about a second
/// in a debug build). `cargo test --lib seeds_0_to_99 -- --nocapture` prints the
/// table.
#[test]
fn seeds_0_to_99_stay_within_ten_percent_of_every_published_figure() {
    let seed1 = run_t_with("sim:hdd", Duration::ZERO);
    let mut range = [(f64::INFINITY, f64::NEG_INFINITY); 10];
    let mut worst = String::new();
    for settle in [0, 1000] {
        for seed in 0..100 {
            let got = run_t_with(
                &format!("sim:hdd?seed={seed}"),
                Duration::from_millis(settle),
            );
            for (i, ((_, v, _), (id, want))) in got.iter().zip(PUBLISHED).enumerate() {
                let dev = v / want - 1.0;
                range[i] = (range[i].0.min(dev), range[i].1.max(dev));
                if dev.abs() > 0.10 {
                    worst.push_str(&format!(
                        "seed {seed}, settle {settle} ms: {} {v:.3} ({:+.1}%)\n",
                        id.name(),
                        dev * 100.0
                    ));
                }
            }
        }
    }
    println!(
        "| line | published | seed 1, settle 0 | deviation | over seeds 0-99, both settle modes |"
    );
    for (i, (id, want)) in PUBLISHED.iter().enumerate() {
        let v = seed1[i].1;
        println!(
            "| {} | {want} | {v:.3} | {:+.1} % | {:+.1} ... {:+.1} % |",
            id.name(),
            (v / want - 1.0) * 100.0,
            range[i].0 * 100.0,
            range[i].1 * 100.0
        );
    }
    assert!(worst.is_empty(), "outside ±10%:\n{worst}");
}

#[test]
fn full_stroke_mean_matches_the_analytic_expectation() {
    // Alternate between random sectors of the first and of the last track, so
    // that the platter's angle at the end of each seek is effectively random.
    let mut t = open("sim:hdd?seed=7");
    let (first_len, last_start, end, d, rev, fixed) = {
        let h = hdd(&t);
        let end = h.media_end;
        let last = h.geo.locate(end - 1).0;
        let d = h.geo.cylinder(last) - h.geo.cylinder(0);
        let one_sector = |x: u64| {
            let b = h.geo.locate(x).2 as f64;
            (512.0 / b * h.rev_ns).max(h.host_ns(512))
        };
        // Overheads and the one-sector transfer, averaged over both ends.
        let fixed = (h.p.cmd_overhead_ms + h.p.media_overhead_ms) * MS
            + (one_sector(0) + one_sector(end - 1)) / 2.0;
        let seek = h.seek.seek_ns(d);
        assert_eq!(d + 1, h.geo.cylinders, "not a full stroke");
        (
            h.geo.zones[0].track_bytes,
            h.geo.track_start(last),
            end,
            seek,
            h.rev_ns,
            fixed,
        )
    };
    let mut pick = rng::seeded(99);
    let mut buf = AlignedBuf::new(512);
    let n = 4000;
    let t0 = t.clock().now_ns();
    for i in 0..n {
        let sector = if i % 2 == 0 {
            rng::below(&mut pick, first_len / 512)
        } else {
            last_start / 512 + rng::below(&mut pick, (end - last_start) / 512)
        };
        t.read_at(buf.for_read(..), sector * 512).unwrap();
    }
    let measured = (t.clock().now_ns() - t0) as f64 / f64::from(n);
    let expected = d + rev / 2.0 + fixed;
    let dev = measured / expected - 1.0;
    println!(
        "measured {:.3} ms, expected {:.3} ms ({:+.2}%)",
        measured / MS,
        expected / MS,
        dev * 100.0
    );
    assert!(
        dev.abs() < 0.02,
        "measured {:.3} ms, expected seek {:.3} + half a revolution {:.3} + overhead {:.3} = {:.3} ms ({:+.2}%)",
        measured / MS,
        d / MS,
        rev / 2.0 / MS,
        fixed / MS,
        expected / MS,
        dev * 100.0
    );
}

#[test]
fn short_backward_hops_cost_more_than_forward_ones() {
    let got = run_t("sim:hdd");
    let fwd = got.iter().find(|g| g.0 == PhaseId::ShortForward).unwrap().1;
    let back = got
        .iter()
        .find(|g| g.0 == PhaseId::ShortBackward)
        .unwrap()
        .1;
    assert!(
        back > fwd + 0.5,
        "forward {fwd:.3} ms, backward {back:.3} ms"
    );
}

#[test]
fn same_seed_same_timings_different_seed_different() {
    let ops = |spec: &str| -> Vec<u64> {
        run_t(spec)
            .into_iter()
            .flat_map(|(_, _, each)| each)
            .collect()
    };
    for preset in ["hdd", "ssd"] {
        let a = ops(&format!("sim:{preset}?seed=42"));
        let b = ops(&format!("sim:{preset}?seed=42"));
        let c = ops(&format!("sim:{preset}?seed=43"));
        assert_eq!(a, b, "{preset}: same seed, different timings");
        assert_ne!(a, c, "{preset}: different seeds, same timings");
    }
}

#[test]
fn bad_ranges_fail_exactly_the_reads_that_overlap_them() {
    for preset in ["hdd", "ssd", "nvme"] {
        let mut t = open(&format!("sim:{preset}?bad=1000-1008,5000-5001"));
        let mut one = AlignedBuf::new(512);
        let mut eight = AlignedBuf::new(4096);
        let eio = |r: io::Result<()>| {
            r.err().and_then(|e| e.raw_os_error()) == Some(rustix::io::Errno::IO.raw_os_error())
        };
        for s in [999u64, 1008, 4999, 5001, 0, 2000] {
            assert!(
                t.read_at(one.for_read(..), s * 512).is_ok(),
                "{preset}: sector {s}"
            );
        }
        for s in [1000u64, 1003, 1007, 5000] {
            assert!(
                eio(t.read_at(one.for_read(..), s * 512)),
                "{preset}: sector {s}"
            );
        }
        // Multi-sector reads: overlapping at either end fails, touching does not.
        assert!(eio(t.read_at(eight.for_read(..), 993 * 512)));
        assert!(eio(t.read_at(eight.for_read(..), 1007 * 512)));
        assert!(t.read_at(eight.for_read(..), 992 * 512).is_ok());
        assert!(t.read_at(eight.for_read(..), 1008 * 512).is_ok());
        // A write over a bad sector remaps it (smart.rs): it reads afterwards.
        t.write_at(one.for_write(..), 1004 * 512).unwrap();
        assert!(t.read_at(one.for_read(..), 1004 * 512).is_ok());
        assert!(eio(t.read_at(one.for_read(..), 1003 * 512)));
    }
}

#[test]
fn slow_ranges_add_exactly_their_latency() {
    for preset in ["hdd", "ssd"] {
        let mut plain = open(&format!("sim:{preset}?seed=5"));
        let mut slow = open(&format!("sim:{preset}?seed=5&slow=3000-3100:7.5"));
        let mut buf = AlignedBuf::new(4096);
        let mut each = |t: &mut SimTarget, s: u64| {
            let a = t.clock().now_ns();
            t.read_at(buf.for_read(..), s * 512).unwrap();
            t.clock().now_ns() - a
        };
        // Before the slow range both drives agree exactly.
        for s in [0u64, 1_000_000, 2000] {
            assert_eq!(each(&mut plain, s), each(&mut slow, s), "{preset} {s}");
        }
        // 3096..3104 touches the range: 7.5 ms more, to the rounding nanosecond.
        let (p, q) = (each(&mut plain, 3096), each(&mut slow, 3096));
        assert!(
            (q as i64 - p as i64 - 7_500_000).abs() <= 1,
            "{preset}: {p} {q}"
        );
    }
}

#[test]
fn spec_errors_say_what_is_accepted() {
    let m = bad_sim_msg("sim:floppy");
    assert!(
        m.contains("floppy") && m.contains("hdd, hdd5400, ssd, nvme"),
        "{m}"
    );
    let m = bad_sim_msg("sim:hdd?colour=blue");
    assert!(
        m.contains("colour") && m.contains("rpm=") && m.contains("lying_flush"),
        "{m}"
    );
    let m = bad_sim_msg("sim:hdd?rpm=fast");
    assert!(m.contains("rpm=fast") && m.contains("3600"), "{m}");
    let m = bad_sim_msg("sim:hdd?rpm=100");
    assert!(m.contains("between 3600 and 15000"), "{m}");
    let m = bad_sim_msg("sim:hdd?size=12X");
    assert!(
        m.contains("size=12X") && m.contains("KiB, MiB, GiB, TiB, PiB (binary)"),
        "{m}"
    );
    let m = bad_sim_msg("sim:hdd?size=99999999999T");
    assert!(m.contains("size="), "{m}");
    let m = bad_sim_msg("sim:hdd?size=1000");
    assert!(m.contains("multiple of the 512-byte sector"), "{m}");
    let m = bad_sim_msg("sim:hdd?sector=1024");
    assert!(m.contains("512 or 4096"), "{m}");
    let m = bad_sim_msg("sim:hdd?seed=-1");
    assert!(m.contains("seed=-1"), "{m}");
    let m = bad_sim_msg("sim:hdd?bad=10-5");
    assert!(m.contains("START must be below END"), "{m}");
    let m = bad_sim_msg("sim:hdd?slow=10-20");
    assert!(m.contains("START-END:MS"), "{m}");
    let m = bad_sim_msg("sim:hdd?slow=10-20:fast");
    assert!(m.contains("milliseconds"), "{m}");
    let m = bad_sim_msg("sim:hdd?lying_flush=maybe");
    assert!(m.contains("0 or 1"), "{m}");
    let m = bad_sim_msg("sim:ssd?rpm=7200");
    assert!(m.contains("rotating"), "{m}");
    let m = bad_sim_msg("sim:hdd?seed");
    assert!(m.contains("key=value"), "{m}");
    let m = bad_sim_msg("sim:hdd?bad=1-18446744073709551615");
    assert!(m.contains("beyond"), "{m}");
    // Accepted forms.
    for ok in [
        "sim:hdd?",
        "sim:hdd?seed=0x10&&rpm=10000",
        "sim:hdd5400?size=4T&sector=4096",
        "sim:nvme?bad=1-2&bad=5-9,20-30&slow=0-1:0.5,7-8:2&lying_flush=1",
    ] {
        open(ok);
    }
}

#[test]
fn no_spec_panics() {
    use proptest::prelude::*;
    let chars = "[a-z0-9?&=:,.xKMGT-]{0,40}";
    proptest!(|(tail in chars, preset in prop_oneof![
        Just("hdd"), Just("ssd"), Just("nvme"), Just("hdd5400"), Just("x")
    ])| {
        let _ = SimTarget::open(&format!("sim:{preset}?{tail}"));
        let _ = SimTarget::open(&format!("sim:{tail}"));
    });
}

#[test]
fn overrides_give_a_consistent_description() {
    let t = open("sim:hdd");
    let i = t.info();
    assert_eq!((i.name.as_str(), i.path.as_str()), ("sim:hdd", "sim:hdd"));
    assert_eq!(i.kind, TargetKind::Simulated);
    assert_eq!(i.io_mode, IoMode::Simulated);
    assert_eq!(i.media_size_bytes, 2_000_398_934_016);
    assert_eq!(i.sectors(), 3_907_029_168);
    assert_eq!((i.sector_size, i.physical_sector_size), (512, 4096));
    assert_eq!((i.stripe_size_bytes, i.stripe_offset_bytes), (4096, 0));
    assert_eq!(
        (i.fw_heads, i.fw_sectors, i.fw_cylinders()),
        (255, 63, Some(243201))
    );
    assert_eq!(i.rotation, Rotation::Rpm(7200));
    assert!(!i.trim);
    assert_eq!(i.attachment.as_deref(), Some("sim"));
    assert!(i.ident.as_deref().unwrap().starts_with("SIM"));
    let sim = i.simulated.as_deref().unwrap();
    assert!(sim.contains("7200 rpm") && !sim.contains('\n'), "{sim}");

    let t = open("sim:hdd?sector=4096&size=1T&rpm=10000");
    let i = t.info();
    assert_eq!(i.media_size_bytes, 1 << 40);
    assert_eq!(i.sectors(), (1 << 40) / 4096);
    assert_eq!((i.sector_size, i.physical_sector_size), (4096, 4096));
    assert_eq!(i.stripe_size_bytes, 0);
    assert_eq!(i.rotation, Rotation::Rpm(10000));
    assert!(i.simulated.as_deref().unwrap().contains("10000 rpm"));
    assert!(i.descr.as_deref().unwrap().contains("10000 rpm"));
    // The model covers exactly the media: the last sector reads, the next does not.
    let mut t = t;
    let mut buf = AlignedBuf::new(4096);
    assert!(t.read_at(buf.for_read(..), (1 << 40) - 4096).is_ok());
    assert!(t.read_at(buf.for_read(..), 1 << 40).is_err());
    assert!(
        t.read_at(buf.for_read(..), 512).is_err(),
        "misaligned for 4096-byte sectors"
    );

    // A preset's size rounds down to whole 4096-byte sectors.
    let i = open("sim:hdd?sector=4096").info().clone();
    assert_eq!(i.media_size_bytes, 2_000_398_934_016 / 4096 * 4096);

    for (spec, rot, trim) in [
        ("sim:ssd", Rotation::NonRotating, true),
        ("sim:nvme?sector=4096", Rotation::NonRotating, true),
        ("sim:hdd5400", Rotation::Rpm(5400), false),
    ] {
        let i = open(spec).info().clone();
        assert_eq!((i.rotation, i.trim), (rot, trim), "{spec}");
        assert_eq!(i.media_size_bytes % u64::from(i.sector_size), 0, "{spec}");
        assert!(i.simulated.is_some() && i.descr.is_some() && i.ident.is_some());
    }
    assert_eq!(open("sim:nvme?sector=4096").info().sector_size, 4096);
}

#[test]
fn small_and_odd_sizes_run_the_whole_test() {
    for spec in [
        "sim:hdd?size=1M",
        "sim:hdd?size=8M&sector=4096",
        "sim:hdd5400?size=100M",
        "sim:ssd?size=2M",
        "sim:hdd?size=1P",
    ] {
        let got = run_t(spec);
        assert!(
            got.iter().all(|g| g.1.is_finite() && g.1 > 0.0),
            "{spec}: {got:?}"
        );
    }
    // A one-sector drive opens and reads.
    let mut t = open("sim:hdd?size=512");
    let mut buf = AlignedBuf::new(512);
    t.read_at(buf.for_read(..), 0).unwrap();
    assert!(t.read_at(buf.for_read(..), 512).is_err());
}

#[test]
fn lying_flush_is_instant_honest_flush_writes_back() {
    let write_some = |t: &mut SimTarget| {
        let buf = AlignedBuf::new(4096);
        let n = t.info().media_size_bytes / 4096;
        for i in 0..8u64 {
            t.write_at(
                buf.for_write(..),
                (i * 7919 % n) * (n / 8 / 7919).max(1) * 4096 % (n * 4096),
            )
            .unwrap();
        }
    };
    let flush_ns = |t: &mut SimTarget| {
        let a = t.clock().now_ns();
        assert!(t.flush().unwrap());
        t.clock().now_ns() - a
    };
    let mut honest = open("sim:hdd");
    write_some(&mut honest);
    assert!(honest.dirty_bytes() > 0);
    let rev = hdd(&honest).rev_ns;
    let h = flush_ns(&mut honest);
    assert!(
        h as f64 >= rev,
        "honest flush {h} ns, a revolution is {rev} ns"
    );
    assert_eq!(honest.dirty_bytes(), 0);
    // Nothing dirty: a flush costs only the command.
    assert!(flush_ns(&mut honest) < 100_000);

    let mut liar = open("sim:hdd?lying_flush=1");
    write_some(&mut liar);
    let dirty = liar.dirty_bytes();
    let l = flush_ns(&mut liar);
    assert!(l < 100_000, "lying flush took {l} ns");
    assert_eq!(
        liar.dirty_bytes(),
        dirty,
        "a lying flush writes nothing back"
    );

    for preset in ["ssd", "nvme"] {
        let mut honest = open(&format!("sim:{preset}"));
        let mut liar = open(&format!("sim:{preset}?lying_flush=1"));
        write_some(&mut honest);
        write_some(&mut liar);
        let (h, l) = (flush_ns(&mut honest), flush_ns(&mut liar));
        assert!(h > 20 * l, "{preset}: honest {h} ns, lying {l} ns");
    }
}

#[test]
fn command_overhead_figures_are_sensible() {
    for (spec, mega_s, sector_ms) in [
        ("sim:hdd", (0.05, 0.07), (0.05, 0.08)),
        ("sim:ssd", (0.015, 0.025), (0.06, 0.08)),
    ] {
        let mut t = open(spec);
        let m = t.info().media_size_bytes;
        let p = plan(
            TestKind::CommandOverhead,
            m,
            crate::results::settings::SectorSize::B512,
            &Default::default(),
        )
        .unwrap();
        let phases: Vec<_> = p.phases().collect();
        let (mega, _) = run_phase(&mut t, phases[0]);
        let (sectors, _) = run_phase(&mut t, phases[1]);
        let mega = mega as f64 / 1e9;
        let per = sectors as f64 / 20480.0 / 1e6;
        assert!(
            mega > mega_s.0 && mega < mega_s.1,
            "{spec}: 10 MiB in {mega} s"
        );
        assert!(
            per > sector_ms.0 && per < sector_ms.1,
            "{spec}: {per} ms/sector"
        );
    }
}

#[test]
fn flash_is_flat_and_fast() {
    let got = run_t("sim:ssd");
    for (id, v, _) in &got[..7] {
        assert!((0.06..0.09).contains(v), "ssd {id:?}: {v} ms");
    }
    for (_, v, _) in &got[7..] {
        let mbs = v * 1024.0 / 1e6;
        assert!((450.0..560.0).contains(&mbs), "ssd: {mbs} MB/s");
    }
    let got = run_t("sim:nvme");
    for (id, v, _) in &got[..7] {
        assert!((0.01..0.02).contains(v), "nvme {id:?}: {v} ms");
    }
    for (_, v, _) in &got[7..] {
        let mbs = v * 1024.0 / 1e6;
        assert!((2500.0..3300.0).contains(&mbs), "nvme: {mbs} MB/s");
    }
    assert_eq!(open("sim:nvme").parallelism(), 16);
    assert_eq!(open("sim:hdd").parallelism(), 1);
}

#[test]
fn hdd5400_is_slower_than_hdd() {
    let a = run_t("sim:hdd");
    let b = run_t("sim:hdd5400");
    // Longer rotational waits on every seek line, lower rates on every zone.
    for i in 0..5 {
        assert!(b[i].1 > a[i].1, "{:?}: {} vs {}", a[i].0, b[i].1, a[i].1);
    }
    assert!(b[9].1 < a[9].1);
}

#[test]
fn the_queue_model_does_not_advance_the_clock() {
    let mut t = open("sim:ssd?bad=8-9");
    let op = Op::read_sectors(0, 8, 512);
    let q = t.queue_model();
    assert_eq!(q.parallelism(), 8);
    let ns = q.service_ns(&op, 1_000).unwrap();
    assert!((60_000..90_000).contains(&ns), "{ns}");
    assert!(q.service_ns(&Op::read_sectors(8, 1, 512), 1_000).is_err());
    assert_eq!(q.virtual_clock().now_ns(), 0);
    // The disk arm serves one request at a time: a request arriving while it is
    // busy waits for it.
    let mut t = open("sim:hdd");
    let (a, r) = t.service_read(0, 1 << 30, 512);
    r.unwrap();
    let (b, r) = t.service_read(0, 1 << 31, 512);
    r.unwrap();
    assert!(b > a);
    assert_eq!(t.clock().now_ns(), 0);
}

mod stored_data;
mod sustained;
