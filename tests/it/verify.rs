//! `--verify`: a clean pass on an image file and on a loop device, the text
//! rendered again from the JSON, and Ctrl-C with the `--start` that resumes.

use crate::helpers::{LoopDev, seekprobe};

fn run(args: &[&str]) -> (i32, String) {
    let out = seekprobe().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn an_image_file_passes_clean_and_render_prints_the_same_block() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let img = dir.path().join("img");
    std::fs::write(&img, vec![0u8; 16 << 20]).unwrap();
    let json = dir.path().join("run.json");
    let (code, text) = run(&[
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

#[test]
#[cfg_attr(not(seekprobe_loop), ignore = "needs root and loop devices")]
fn a_loop_device_passes_clean_and_ctrl_c_says_where_to_resume() {
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let dev = LoopDev::new(dir.path(), 64 << 20, true, None);
    let (code, text) = run(&["--verify", "-w", "--yes", "--quiet", &dev.dev]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("\tpass 1: 0 failed sectors\n"), "{text}");
    // Ctrl-C while reading back small blocks: the partial block says where to resume.
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("seekprobe"))
        .args([
            "--verify",
            "-w",
            "--yes",
            "--quiet",
            "--passes",
            "3",
            "--block-size",
            "4K",
        ])
        .arg(&dev.dev)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(130), "{text}");
    let at = text.find(": resume with --start ").expect(&text);
    let start: u64 = text[at + 22..].lines().next().unwrap().parse().unwrap();
    assert!(start.is_multiple_of(4096) && start < 64 << 20, "{start}");
    // Resuming there passes the rest of the device.
    let (code, text) = run(&[
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
