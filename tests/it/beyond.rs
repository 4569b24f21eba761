//! Beyond diskinfo: the zone curve, the seek profile, the measured rotation rate and
//! the surface scan, checked against the simulated drive's own model.

use crate::helpers::scratch_dir;
use crate::helpers::seekprobe_command;
use crate::helpers::temp_dir;
use crate::helpers::{Finish, image, run_file, seekprobe};
use seekprobe::device::sim::SimTarget;
use seekprobe::results::settings::SectorSize;
use seekprobe::test_plans::seek_profile;

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
    let plan = seek_profile::plan(2_000_398_934_016, SectorSize::B512, samples, 11).unwrap();
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
    let dir = temp_dir();
    let img = image(dir.path(), "img", 64 << 20);
    let json = dir.path().join("run.json");
    let live = seekprobe()
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
        .stdout_of_success();
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
    let (_dir, img) = run_file("img");
    std::fs::write(&img, vec![3u8; 16 << 20]).unwrap();
    let text = seekprobe()
        .args([
            "--block-sweep",
            "-w",
            "--yes",
            "--quiet",
            "--sweep-duration",
            "0.05",
        ])
        .arg(&img)
        .stdout_of_success();
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
    let child = seekprobe_command()
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

/// A preset's seek curve as docs/sim.md defines it ("Seek curve"), its parameters
/// read from the table of disk parameters: the time in ns to seek `d` cylinders.
fn documented_seek_curve(preset: &str) -> impl Fn(f64) -> f64 {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sim.md")).unwrap();
    let header: Vec<&str> = doc
        .lines()
        .find(|l| l.starts_with("| parameter | `hdd`"))
        .unwrap()
        .split('|')
        .map(str::trim)
        .collect();
    let col = header
        .iter()
        .position(|c| *c == format!("`{preset}`"))
        .unwrap();
    let cell = |row: &str| -> String {
        let line = doc
            .lines()
            .find(|l| l.starts_with(&format!("| {row}")))
            .unwrap();
        line.split('|').map(str::trim).nth(col).unwrap().to_string()
    };
    let nums = |s: &str| -> Vec<f64> {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|x| !x.is_empty() && *x != ".")
            .map(|x| x.parse().unwrap())
            .collect()
    };
    let span = nums(&cell("cylinders (used)"))[0] - 1.0;
    let t2t = nums(&cell("track-to-track / head switch"))[0];
    // "sqrt to (f1, t1); [ramp to (f2, t2);] linear to (1, full)"
    let knots = nums(&cell("seek curve knots"));
    let (k1, t1) = (knots[0] * span, knots[1]);
    let (k2, t2) = if knots.len() == 6 {
        (knots[2] * span, knots[3])
    } else {
        (k1, t1)
    };
    let full = knots[knots.len() - 1];
    let a = (t1 - t2t) / (k1.sqrt() - 1.0);
    move |d: f64| {
        let d = if d < 0.0 { span } else { d };
        1e6 * if d <= k1 {
            t2t + a * (d.sqrt() - 1.0)
        } else if d < k2 {
            t1 + (d - k1) / (k2 - k1) * (t2 - t1)
        } else {
            t2 + (d - k2) * (full - t2) / (span - k2)
        }
    }
}

#[test]
fn the_seek_figures_are_at_their_distance_within_five_percent_for_twenty_seeds() {
    for (preset, span) in [("hdd", 317_231.0), ("hdd5400", 299_976.0)] {
        let curve = documented_seek_curve(preset);
        let sim = SimTarget::open(&format!("sim:{preset}")).unwrap();
        let size = 2_000_398_934_016u64 * if preset == "hdd" { 1 } else { 2 };
        // The docs and the model agree on the full stroke.
        let model_full = sim.truth_seek_ns(0, size - 1).unwrap();
        assert!(
            (model_full / curve(span) - 1.0).abs() < 1e-4,
            "{preset}: {model_full}"
        );
        // The figures are the seek alone: the drive's fixed cost of a read that
        // misses its cache (command and media overhead), which every access time
        // holds, is measured from the reads that need no seek and taken out.
        let ovh = sim.truth_miss_overhead_ns().unwrap();
        let truth = [
            ("track_to_track", curve(1.0), 0.10),
            ("average", curve(span / 3.0), 0.05),
            ("full_stroke", curve(span), 0.05),
            ("fixed_cost", ovh, 0.10),
        ];
        for seed in 1..=20 {
            let spec = format!("sim:{preset}?seed={seed}");
            let plan_seed = (seed * 7 + 3).to_string();
            let (code, v, err) = json_of(&["--seek-profile", "--seed", &plan_seed, &spec]);
            assert_eq!(code, 0, "{err}");
            let a = &test_of(&v)["seek_analysis"];
            for (name, want, tol) in truth {
                let f = &a[name];
                let got = f["value_ns"]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{spec}: no {name}: {a}"));
                assert!(
                    (got / want - 1.0).abs() < tol,
                    "{spec} {name}: {got} vs model {want}"
                );
                assert!(f["uncertainty_ns"].as_f64().unwrap() > 0.0);
                assert_eq!(f["from_curve"], false, "{spec} {name}");
            }
        }
    }
}

#[test]
fn the_full_stroke_agrees_with_diskinfo_s_full_stroke_line_within_three_percent() {
    for spec in ["sim:hdd?seed=3", "sim:hdd5400?seed=8"] {
        let (code, v, err) = json_of(&["-t", "--seek-profile", spec]);
        assert_eq!(code, 0, "{err}");
        let tests = v["disks"][0]["tests"].as_array().unwrap();
        let line = tests[0]["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == "full_stroke")
            .unwrap();
        let a = &tests[1]["seek_analysis"];
        let per_op = line["elapsed_ns"].as_f64().unwrap() / line["ops_planned"].as_f64().unwrap();
        // diskinfo's line is the mean access time: the seek, half a revolution and
        // the fixed cost of each read; the seek figure holds only the seek, so the
        // fixed cost measured beside it comes off the line too.
        let fixed = a["fixed_cost"]["value_ns"].as_f64().unwrap();
        let diskinfo = per_op - a["revolution_ns"].as_f64().unwrap() / 2.0 - fixed;
        let ours = a["full_stroke"]["value_ns"].as_f64().unwrap();
        assert!(
            (ours / diskinfo - 1.0).abs() < 0.03,
            "{spec}: {ours} vs diskinfo's {diskinfo}"
        );
    }
}

#[test]
fn the_seek_figures_print_with_their_uncertainty_and_the_curve_is_drawn_beside_the_bins() {
    let (_dir, plot) = run_file("seek.svg");
    let out = seekprobe()
        .args(["--seek-profile", "--seed", "5", "--quiet", "--plot"])
        .arg(&plot)
        .arg("sim:hdd?seed=5")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for line in [
        "track-to-track seek:",
        "average seek (1/3):",
        "full stroke seek:",
    ] {
        let l = text
            .lines()
            .find(|l| l.contains(line))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(l.contains(" ± ") && l.contains(" msec ("), "{l}");
    }
    assert!(
        text.contains("curve ms") && text.contains("fitted seek curve: "),
        "{text}"
    );
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.contains("access time over seek distance") && svg.contains("red fitted curve"));
    // A figure is marked when its uncertainty is more than a fifth of it.
    let f = seekprobe::results::SeekFigure::new(1e6, 0.25e6, 30, false);
    assert!(f.uncertain && !seekprobe::results::SeekFigure::new(1e6, 0.19e6, 30, false).uncertain);
}

#[test]
fn five_hundred_slow_ranges_print_in_a_screenful_and_whole_in_the_json() {
    // A drive with periodic stalls: 500 slow ranges a MiB apart (issue 56: a
    // throttled device printed 760 lines of them).
    let slow: Vec<String> = (0..500u64)
        .map(|i| format!("{}-{}:60", i * 4096, i * 4096 + 8))
        .collect();
    let spec = format!("sim:ssd?size=1G&slow={}", slow.join(","));
    let dir = scratch_dir();
    let json = dir.path().join("slow.json");
    let out = seekprobe()
        .args(["--scan", "--json-file"])
        .arg(&json)
        .arg(&spec)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let at = text.find("\tslow (>= 50 ms): 500 ranges").expect(&text);
    let listed = text[at..]
        .lines()
        .take_while(|l| !l.contains("map ("))
        .count();
    assert!(listed < 40, "{listed} lines: {text}");
    assert!(text.lines().count() < 60, "{text}");
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let ranges = run["disks"][0]["tests"][0]["scan"]["slow"]
        .as_array()
        .unwrap();
    assert_eq!(ranges.len(), 500);
}
