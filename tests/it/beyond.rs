//! Beyond diskinfo: the zone curve, the seek profile, the measured rotation rate and
//! the surface scan, checked against the simulated drive's own model.

use crate::helpers::{image, seekprobe};
use seekprobe::device::sim::SimTarget;
use seekprobe::probe::seek_profile;

fn json_of(args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = seekprobe()
        .args(args)
        .arg("--json")
        .arg("--quiet")
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    (out.status.code().unwrap_or(-1), v, err)
}

fn test_of(v: &serde_json::Value) -> &serde_json::Value {
    &v["disks"][0]["tests"][0]
}

#[test]
fn the_zone_curve_follows_the_model_within_two_percent_everywhere() {
    for spec in ["sim:hdd", "sim:hdd5400?seed=3"] {
        let (code, v, err) = json_of(&["--zones=50", "--zone-size", "32M", spec]);
        assert_eq!(code, 0, "{err}");
        let sim = SimTarget::open(spec).unwrap();
        let points = test_of(&v)["zone_curve"]["points"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(points.len(), 50);
        for p in &points {
            let start = p["offset_bytes"].as_u64().unwrap();
            // The time the model needs for the sample's bytes, MiB by MiB: the
            // command overhead and the host transfer, or the media if slower.
            let ovh = sim.truth_command_overhead_ns().unwrap() / 1e9;
            let host = sim.truth_host_rate().unwrap();
            let mib = (1u64 << 20) as f64;
            let secs: f64 = (0..32u64)
                .map(|i| {
                    (ovh + mib / host)
                        .max(mib / sim.truth_media_rate(start + (i << 20) + (1 << 19)))
                })
                .sum();
            let want = (32u64 << 20) as f64 / secs;
            let got = p["rate_bytes_per_s"].as_f64().unwrap();
            assert!(
                (got / want - 1.0).abs() < 0.02,
                "{spec} at {start}: {got} vs model {want}"
            );
        }
        let c = &test_of(&v)["zone_curve"];
        assert!(c["outer_inner_ratio"].as_f64().unwrap() > 1.5);
        assert!(!c["steps"].as_array().unwrap().is_empty());
    }
}

#[test]
fn the_measured_rotation_rate_is_within_two_percent() {
    for spec in [
        "sim:hdd5400",
        "sim:hdd",
        "sim:hdd?rpm=10000",
        "sim:hdd?rpm=10000&seed=4&sector=4096",
    ] {
        // Fixed seeds: a fresh random one made the test flaky (10222 rpm once).
        for seed in ["1", "2", "3"] {
            let (code, v, err) = json_of(&[
                "--seek-profile",
                "--seek-samples",
                "200",
                "--seed",
                seed,
                spec,
            ]);
            assert_eq!(code, 0, "{err}");
            let truth = SimTarget::open(spec).unwrap().truth_rpm().unwrap();
            let a = &test_of(&v)["seek_analysis"];
            let got = a["measured_rpm"].as_f64().unwrap();
            assert!(
                (got / truth - 1.0).abs() < 0.02,
                "{spec} --seed {seed}: measured {got} rpm, model {truth}"
            );
            assert_eq!(a["rpm_disagrees"], false, "{spec} --seed {seed}");
        }
    }
    // A drive whose reported rate is wrong is flagged; flash shows no rotation.
    let (_, v, _) = json_of(&["--seek-profile", "--seek-samples", "100", "sim:ssd"]);
    assert!(test_of(&v)["seek_analysis"]["measured_rpm"].is_null());
}

#[test]
fn the_seek_profile_follows_the_model_s_seek_curve_within_five_percent() {
    let spec = "sim:hdd";
    let samples = 20000u32;
    let (code, v, err) = json_of(&[
        "--seek-profile",
        "--seed",
        "11",
        "--seek-samples",
        &samples.to_string(),
        spec,
    ]);
    assert_eq!(code, 0, "{err}");
    let sim = SimTarget::open(spec).unwrap();
    let rev = 60e9 / sim.truth_rpm().unwrap();
    let ovh = sim.truth_miss_overhead_ns().unwrap();
    let plan = seek_profile::plan(2_000_398_934_016, 512, samples, 11).unwrap();
    let got = test_of(&v)["seek_samples"]["latencies_ns"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(got.len(), plan.profile.len());
    // Per power-of-two distance bin: the mean access time against the model's
    // seek + overhead + half a revolution for the same pairs.
    let mut bins: std::collections::BTreeMap<u32, (f64, f64, u32)> = Default::default();
    for (p, lat) in plan.profile.iter().zip(&got) {
        let want = sim.truth_seek_ns(p.from.offset, p.to.offset).unwrap() + ovh + rev / 2.0;
        let b = bins
            .entry(63 - p.distance_sectors.leading_zeros())
            .or_default();
        b.0 += lat.as_f64().unwrap();
        b.1 += want;
        b.2 += 1;
    }
    for (bin, (sum_got, sum_want, n)) in bins {
        if n < 200 {
            continue;
        }
        let (g, w) = (sum_got / f64::from(n), sum_want / f64::from(n));
        assert!(
            (g / w - 1.0).abs() < 0.05,
            "bin 2^{bin} sectors ({n} reads): {g} vs model {w}"
        );
    }
}

#[test]
fn the_scan_finds_every_injected_bad_and_slow_range_and_nothing_else() {
    let spec = "sim:hdd?size=2G&bad=1000-1003&bad=3000000-3000001&slow=2000000-2000100:120";
    let out = seekprobe()
        .args(["--scan", "--quiet", spec])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "unreadable sectors make the exit status 1"
    );
    let listed: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("unreadable:") || l.contains("slow ("))
        .collect();
    assert_eq!(listed.len(), 3, "{text}");
    assert_eq!(listed[0], "\tunreadable: sectors 1000-1002 (3)");
    assert_eq!(listed[1], "\tunreadable: sector 3000000");
    assert!(
        listed[2].starts_with("\tslow (>= 50 ms): sectors 1998848-2000895 (2048), up to 12"),
        "{}",
        listed[2]
    );
    assert!(text.contains("\terrors:              2\n"), "{text}");
    // A clean drive: exit 0, no list.
    let out = seekprobe()
        .args(["--scan", "--quiet", "sim:ssd?size=256M"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains("unreadable") && !text.contains("slow ("),
        "{text}"
    );
    // Part of a drive: --start and --end.
    let (_, v, _) = json_of(&[
        "--scan",
        "--start",
        "1M",
        "--end",
        "3M",
        "--block-size",
        "64K",
        "sim:ssd?size=256M",
    ]);
    let s = &test_of(&v)["scan"];
    assert_eq!(
        (
            s["start_bytes"].as_u64(),
            s["end_bytes"].as_u64(),
            s["blocks_read"].as_u64()
        ),
        (Some(1 << 20), Some(3 << 20), Some(32))
    );
}

#[test]
fn the_new_tests_render_again_from_json_and_run_on_files() {
    let dir = tempfile::tempdir().unwrap();
    let img = image(dir.path(), "img", 64 << 20);
    let json = dir.path().join("run.json");
    let out = seekprobe()
        .args([
            "--zones=10",
            "--seek-profile",
            "--seek-samples",
            "100",
            "--scan",
            "--quiet",
            "--json-file",
        ])
        .arg(&json)
        .arg(&img)
        .arg("sim:hdd?size=1G")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let live = String::from_utf8(out.stdout).unwrap();
    for block in [
        "Zone transfer curve (10 samples of 6 MiB):",
        "Seek profile (",
        "Surface scan: bytes 0 to 67108864",
    ] {
        assert!(live.contains(block), "{block} in {live}");
    }
    assert!(
        live.contains("measured rotation rate: none"),
        "a file does not rotate: {live}"
    );
    let plot = dir.path().join("plot.svg");
    let again = seekprobe()
        .arg("render")
        .arg(&json)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), live);
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg")
            && svg.contains("transfer rate and access time")
            && svg.contains("scan map"),
        "{}",
        &svg[..200.min(svg.len())]
    );
    // Nothing to plot without the tests that make the figures.
    seekprobe()
        .args(["-t", "--quiet", "--plot"])
        .arg(dir.path().join("none.svg"))
        .arg("sim:ssd")
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "--plot applies to --zones, --seek-profile, --scan",
        ));
}

#[test]
fn the_block_sweep_reads_and_with_w_writes_by_request_size() {
    let (code, v, err) = json_of(&["--block-sweep", "sim:ssd?size=1G"]);
    assert_eq!(code, 0, "{err}");
    let phases = test_of(&v)["phases"].as_array().unwrap().clone();
    assert_eq!(phases.len(), 24, "12 sizes, one at a time and queued");
    assert!(
        phases.iter().all(|p| p["id"] != "sweep_write"),
        "nothing is written without -w"
    );
    // With -w: a write column, the writes inside the image, which never grows.
    let dir = tempfile::tempdir().unwrap();
    let img = dir.path().join("img");
    std::fs::write(&img, vec![3u8; 16 << 20]).unwrap();
    let out = seekprobe()
        .args([
            "--block-sweep",
            "-w",
            "--yes",
            "--quiet",
            "--sweep-duration",
            "0.05",
        ])
        .arg(&img)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("QD1 write MB/s") && text.contains("\t   8 MiB"),
        "{text}"
    );
    assert_eq!(std::fs::metadata(&img).unwrap().len(), 16 << 20);
    // --zones with -w adds the write curve; --preserve is -S's alone.
    let (code, v, err) = json_of(&["--zones=8", "-w", "--yes", "sim:hdd?size=64G"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        test_of(&v)["write_curve"]["points"]
            .as_array()
            .unwrap()
            .len()
            == 8
    );
    seekprobe()
        .args(["--zones=8", "-w", "--yes", "--preserve", "sim:hdd"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--preserve applies to -S"));
}

#[test]
fn a_failing_test_does_not_stop_the_scan_and_an_interrupted_scan_says_where_to_resume() {
    // One bad sector in the first zone sample fails --zones; --scan still maps it.
    let (code, v, _) = json_of(&[
        "--zones=4",
        "--seek-profile",
        "--scan",
        "sim:hdd?size=4G&bad=100-108",
    ]);
    assert_eq!(code, 1);
    let tests = v["disks"][0]["tests"].as_array().unwrap();
    assert!(tests[0]["outcome"]["failed"].is_string());
    assert!(tests[1]["outcome"]["skipped"].is_string());
    assert_eq!(tests[2]["scan"]["unreadable"][0]["first_sector"], 100);
    // Ctrl-C in a long scan: the partial block is printed with the offset to resume at.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("seekprobe"))
        .args(["--scan", "--block-size", "4K", "--quiet", "sim:hdd"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("\tinterrupted at byte ") && text.contains(": resume with --start "),
        "{text}"
    );
}
