//! `--verify`: a clean pass on an image file and on a loop device, the text
//! rendered again from the JSON, and Ctrl-C with the `--start` that resumes.

use crate::helpers::loop_tests;
use crate::helpers::scratch_dir;
use crate::helpers::{LoopDev, run, run_file, run_saved, seekprobe, verify_ranges};

#[test]
fn an_image_file_passes_clean_and_render_prints_the_same_block() {
    let dir = scratch_dir();
    let img = dir.path().join("img");
    std::fs::write(&img, vec![0u8; 16 << 20]).unwrap();
    let json = dir.path().join("run.json");
    let (code, text, _) = run(&[
        "--verify",
        "-w",
        "--yes",
        "--passes",
        "2",
        "--block-size",
        "256K",
        "--json-file",
        json.to_str().unwrap(),
        img.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("Write and verify: bytes 0 to 16777216 in 262144-byte blocks, 4 deep"));
    assert!(
        text.contains("\tpass 1: 0 failed sectors\n")
            && text.contains("\tpass 2: 0 failed sectors\n")
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let verify = &v["disks"][0]["tests"][0]["verify"];
    assert_eq!(verify["passes"].as_array().unwrap().len(), 2);
    assert_eq!(verify["passes"][1]["read"]["bytes"], 16 << 20);
    assert!(verify["nonce"].is_u64());
    let again = seekprobe()
        .args(["render", json.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(again.stdout).unwrap(), text);
}

#[test]
fn verify_needs_write_and_its_options_need_verify() {
    seekprobe()
        .args(["--verify", "sim:ssd"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--verify applies only with -w"));
    seekprobe()
        .args(["--scan", "--passes", "2", "sim:ssd"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--passes applies to --verify"));
    seekprobe()
        .args(["--verify", "-w", "--bad-blocks-size", "512", "sim:ssd"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--bad-blocks-size 512"));
}

loop_tests! {
    fn a_loop_device_passes_clean_and_ctrl_c_says_where_to_resume() {
        let dev = LoopDev::scratch(64 << 20, true, None);
        let (code, text, _) = run(&["--verify", "-w", "--yes", "--quiet", &dev.dev]);
        assert_eq!(code, 0, "{text}");
        assert!(text.contains("\tpass 1: 0 failed sectors\n"), "{text}");
        // Ctrl-C while reading back small blocks: the partial block says where to resume.
        // Ctrl-C in the first pass's read half: once the device has had 64 MiB more
        // written (its sectors-written count, /sys/block/loopN/stat's 7th field).
        let stat = format!("/sys/block/{}/stat", dev.short_name());
        let written = || -> Option<u64> {
            let text = std::fs::read_to_string(&stat).ok()?;
            text.split_whitespace().nth(6)?.parse().ok()
        };
        let before = written().expect(&stat);
        let args = ["--verify", "-w", "--yes", "--quiet", "--passes", "3"];
        let mut job = crate::helpers::Spawned::start(
            &[&args[..], &["--block-size", "4K", &dev.dev]].concat(),
            &[],
        );
        job.wait_until("the first pass's writes", |_| {
            (written()? >= before + (64 << 20) / 512).then_some(())
        });
        job.signal(nix::sys::signal::Signal::SIGINT);
        let (code, text, _) = job.finish();
        assert_eq!(code, Some(130), "{text}");
        let at = text.find(": resume with --start ").expect(&text);
        let start: u64 = text[at + 22..].lines().next().unwrap().parse().unwrap();
        assert!(start.is_multiple_of(4096) && start < 64 << 20, "{start}");
        // Resuming there passes the rest of the device.
        let (code, text, _) = run(&[
            "--verify",
            "-w",
            "--yes",
            "--quiet",
            "--start",
            &start.to_string(),
            &dev.dev,
        ]);
        assert_eq!(code, 0, "{text}");
        assert!(
            text.contains(&format!("Write and verify: bytes {start} to 67108864")),
            "{text}"
        );
    }
}

#[test]
fn simulated_faults_are_found_exactly_with_their_kinds_and_exit_1() {
    let (_dir, list) = run_file("bad.txt");
    let out = seekprobe()
        .args(["--verify", "-w", "--yes", "--json", "--bad-blocks"])
        .arg(&list)
        .arg("sim:ssd?size=64M&unwritable=1000-1003&corrupt=5000-5002&corrupt=100000-100001")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        verify_ranges(&v, 0),
        [
            ("unwritable".to_string(), 1000, 3),
            ("corrupt".to_string(), 5000, 2),
            ("corrupt".to_string(), 100000, 1),
        ]
    );
    // 512-byte sectors in 4 KiB blocks: 1000-1002 is block 125, 5000-5001 block 625,
    // 100000 block 12500.
    assert_eq!(std::fs::read_to_string(&list).unwrap(), "125\n625\n12500\n");
    // The 1 MiB block holding the unwritable sectors failed; its retries, sector by
    // sector, stored the other 2045 of its 2048 sectors.
    let write = &v["disks"][0]["tests"][0]["verify"]["passes"][0]["write"];
    assert_eq!(write["error_blocks"], 1);
    assert_eq!(write["bytes"], 63u64 << 20);
    assert_eq!(write["retried_bytes"], 2045 * 512);
    // A drive that stores 16 MiB of its 64: every sector past it, or below it but
    // overwritten by a wrapped write, holds another LBA's stamp.
    let out = seekprobe()
        .args([
            "--verify",
            "-w",
            "--yes",
            "--json",
            "sim:ssd?size=64M&fake=16M",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = verify_ranges(&v, 0);
    assert!(r.iter().all(|(k, _, _)| k == "misdirected"), "{r:?}");
    assert_eq!(r.iter().map(|x| x.2).sum::<u64>(), 3 * 32768, "{r:?}");
    let found = &v["disks"][0]["tests"][0]["verify"]["passes"][0]["failures"]["ranges"][0];
    assert_eq!(found["found_lba"], 3 * 32768);
}

/// The verdict's findings of the first disk: (code, reason).
fn findings(v: &serde_json::Value) -> Vec<(String, String)> {
    v["disks"][0]["verdict"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["code"].as_str().unwrap().to_string(),
                f["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_simulated_drive_keeping_only_its_first_256_mib_written_is_named_early_as_a_fake() {
    let (code, out, err) = run(&[
        "--verify",
        "-w",
        "--yes",
        "--qualify",
        "--json",
        "-q",
        "sim:ssd?size=1G&keeps=256M",
    ]);
    assert_eq!(code, 3, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let k = &v["disks"][0]["tests"][0]["verify"]["keeps_only"];
    let kept = k["kept_bytes"].as_u64().unwrap() as f64;
    let want = (256u64 << 20) as f64;
    assert!((kept - want).abs() <= want / 100.0, "{k}");
    // Found early: at most the kept size and a quarter of the claimed size written.
    let written = k["written_to"].as_u64().unwrap();
    assert!(written <= (256 << 20) + (1 << 30) / 4, "{k}");
    // One finding, a fake capacity; no sector listing stands in for it.
    let f = findings(&v);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, "keeps_only_first_written");
    assert!(
        f[0].1.contains("keeps only the first 256.0 MiB written"),
        "{f:?}"
    );
}

#[test]
fn the_readme_burn_in_demo_with_a_drive_that_remaps_ends_pass_fail_fail() {
    // The README's demo, small: a healthy drive, one with 4 corrupt sectors, and one
    // that keeps only the first 16 MiB written (a rotating drive: its burn-in has
    // the write-verify pass).
    let disks = [
        "sim:hdd?size=64M",
        "sim:hdd?size=64M&corrupt=5000-5004",
        "sim:hdd?size=64M&keeps=16M",
    ];
    let burn_in = ["--burn-in", "-w", "--yes", "--qualify", "--parallel"];
    let (code, text, err, v) = run_saved(&burn_in, &disks);
    assert_eq!(code, 3, "{text}{err}");
    let codes = |i: usize| -> Vec<String> {
        v["disks"][i]["verdict"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == "fail")
            .map(|f| f["code"].as_str().unwrap().to_string())
            .collect()
    };
    let pass: Vec<bool> = (0..3)
        .map(|i| v["disks"][i]["verdict"]["pass"].as_bool().unwrap())
        .collect();
    assert_eq!(pass, [true, false, false], "{text}");
    assert_eq!(codes(1), ["corrupt_sectors"], "{text}");
    assert!(
        text.contains("verify: corrupt: sectors 5000-5003 (4)"),
        "{text}"
    );
    // The fake first. (The burn-in's zone curve wrote 655 KiB samples over the
    // drive before the pass, leaving a sector unwritten between two: the drive
    // gave those samples its flash, so the pass's writes to the sectors between
    // them were dropped, and the read-back of what it kept names them corrupt.)
    assert_eq!(codes(2)[0], "keeps_only_first_written", "{text}");
    assert!(
        codes(2)[1..].iter().all(|c| c == "corrupt_sectors"),
        "{text}"
    );
    assert!(
        text.contains("keeps only the first 16.0 MiB written"),
        "{text}"
    );
}
