//! The diskinfo renderer fed the published ST2000DM001 run must print its text
//! byte for byte.

use seekprobe::report::diskinfo::render_disk;
use seekprobe::results::device::{DeviceInfo, IoMode, TargetKind};
use seekprobe::results::test_kind::{PhaseId, TestKind};
use seekprobe::results::{DiskResult, Outcome, PhaseResult, TestResult};

fn phase(id: PhaseId, ops: u32, op_bytes: u32, elapsed_ns: u64) -> PhaseResult {
    // Spread the elapsed time over the operations so that they add up exactly.
    let each = elapsed_ns / u64::from(ops);
    let mut latencies_ns = vec![each; ops as usize];
    latencies_ns[0] += elapsed_ns - each * u64::from(ops);
    PhaseResult {
        id,
        ops_planned: u64::from(ops),
        op_bytes,
        first_offset_bytes: 0,
        elapsed_ns,
        summary: seekprobe::results::stats::Summary::of(&latencies_ns),
        histogram: None,
        queue_depth: None,
        seed: None,
        stopped_early: false,
        latencies_ns,
    }
}

fn published() -> DiskResult {
    let mut info = DeviceInfo::new("/dev/da0", "/dev/da0", TargetKind::Disk);
    info.media_size_bytes = 2_000_398_934_016;
    info.stripe_size_bytes = 4096;
    info.physical_sector_size = 4096;
    info.fw_heads = 255;
    info.fw_sectors = 63;
    info.ident = Some("Z1E22F0N".into());
    info.io_mode = IoMode::Direct;
    let us = 1000u64;
    let mib = 1 << 20;
    let phases = vec![
        phase(PhaseId::FullStroke, 250, 512, 5_527_386 * us),
        phase(PhaseId::HalfStroke, 250, 512, 4_143_420 * us),
        phase(PhaseId::QuarterStroke, 500, 512, 4_223_888 * us),
        phase(PhaseId::ShortForward, 400, 512, 1_546_921 * us),
        phase(PhaseId::ShortBackward, 400, 512, 1_973_161 * us),
        phase(PhaseId::SeqOuter, 2048, 512, 144_946 * us),
        phase(PhaseId::SeqInner, 2048, 512, 151_692 * us),
        phase(PhaseId::Outside, 100, mib, 570_161 * us),
        phase(PhaseId::Middle, 100, mib, 606_521 * us),
        phase(PhaseId::Inside, 100, mib, 1_051_001 * us),
    ];
    DiskResult {
        name: "/dev/da0".into(),
        info: Some(info),
        tests: vec![TestResult {
            phases,
            ..TestResult::new(
                TestKind::SeekTransfer,
                1.0,
                seekprobe::results::Engine::Sync,
            )
        }],
        warnings: Vec::new(),
        error: None,
        smr_signs: Vec::new(),
        burn_in: Vec::new(),
        smart: None,
        verdict: None,
        path_check: None,
    }
}

#[test]
fn the_published_run_renders_byte_for_byte() {
    let expected = include_str!("../data/published-drive.txt");
    assert_eq!(render_disk(&published(), true), expected);
}

#[test]
fn the_one_line_form_has_the_firmware_geometry() {
    assert_eq!(
        render_disk(&published(), false),
        "/dev/da0\t512\t2000398934016\t3907029168\t4096\t0\t243201\t255\t63\n"
    );
}

#[test]
fn a_partial_test_prints_only_complete_lines_and_no_closing_blank() {
    let mut d = published();
    let t = &mut d.tests[0];
    t.phases.truncate(3);
    t.phases[2].latencies_ns.truncate(17);
    t.outcome = Outcome::Interrupted;
    let text = render_disk(&d, true);
    assert!(text.ends_with("msec\n"), "{text}");
    assert!(text.contains("Half stroke"));
    assert!(!text.contains("Quarter stroke"));
}
