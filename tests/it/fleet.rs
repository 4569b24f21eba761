//! Many hosts: `--prometheus` output checked by promtool for every test kind, and
//! the Ansible playbook of examples/ansible run for real against two local hosts.
//! Each is reported as ignored where its tool is missing (build.rs looks for
//! them; .ci/run installs both).

use crate::helpers::{Finish, run_file, runs_dir, seekprobe, temp_dir};
use predicates::prelude::*;
use std::path::Path;
use std::process::Command;

/// Each test kind, as the arguments that run it briefly on a simulated drive, and
/// a metric family its output must hold.
const KINDS: &[(&[&str], &str)] = &[
    (&["-c", "sim:hdd"], "seekprobe_command_overhead_seconds"),
    (&["-t", "sim:hdd"], "seekprobe_seek_seconds"),
    (&["-i", "--duration", "0.05", "sim:ssd"], "seekprobe_iops"),
    (
        &["-S", "-w", "--yes", "--write-duration", "0.02", "sim:ssd"],
        "seekprobe_operation_latency_seconds",
    ),
    (
        &["--zones=8", "--zone-size", "4M", "sim:hdd"],
        "seekprobe_zone_transfer_bytes_per_second",
    ),
    (
        &["--seek-profile", "--seek-samples", "200", "sim:hdd"],
        "seekprobe_seek_profile_revolution_seconds",
    ),
    (
        &["--scan", "--end", "1G", "sim:hdd"],
        "seekprobe_scan_block_latency_seconds_bucket",
    ),
    (
        &["--block-sweep", "--sweep-duration", "0.02", "sim:ssd"],
        "seekprobe_transfer_bytes_per_second",
    ),
    (
        &["--verify", "-w", "--yes", "sim:ssd?size=16M"],
        "seekprobe_verify_failed_sectors",
    ),
    (
        &["--capacity-check", "-w", "--yes", "sim:ssd?size=2T"],
        "seekprobe_capacity_real_bytes",
    ),
    (
        &["--smr-check", "-w", "--yes", "sim:smr?size=64G"],
        "seekprobe_smr_verdict",
    ),
    (
        &["--smart-test", "short", "sim:hdd?size=1G&crc=2"],
        "seekprobe_smart_self_test_passed",
    ),
    (
        &[
            "-t",
            "--qualify",
            "sim:hdd?seed=1",
            "sim:hdd?seed=2",
            "sim:hdd?slow=0-409600:5&seed=3",
        ],
        "seekprobe_qualification_passed",
    ),
];

fn promtool_check(file: &Path) -> (bool, String) {
    let out = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::fs::File::open(file).unwrap())
        .output()
        .expect("promtool runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success() && text.trim().is_empty(), text)
}

#[test]
#[cfg_attr(
    seekprobe_no_promtool,
    ignore = "promtool not found: apt-get install prometheus (.ci/run does)"
)]
fn promtool_accepts_the_metrics_of_every_test_kind() {
    let dir = temp_dir();
    for (i, (args, family)) in KINDS.iter().enumerate() {
        let prom = dir.path().join(format!("kind{i}.prom"));
        let json = dir.path().join(format!("kind{i}.json"));
        let out = seekprobe()
            .arg("-q")
            .arg("--prometheus")
            .arg(&prom)
            .arg("--json-file")
            .arg(&json)
            .args(*args)
            .output()
            .unwrap();
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&prom).unwrap();
        assert!(
            text.contains(&format!("\n{family}{{")),
            "{args:?}: no {family}:\n{text}"
        );
        assert!(text.contains("seekprobe_run_timestamp_seconds "), "{text}");
        let (ok, said) = promtool_check(&prom);
        assert!(ok, "promtool check metrics on {args:?}:\n{said}\n{text}");
        assert!(!dir.path().join(format!("kind{i}.prom.partial")).exists());
        // The saved run renders to the same metrics.
        let again = dir.path().join(format!("again{i}.prom"));
        seekprobe()
            .arg("render")
            .arg(&json)
            .arg("--prometheus")
            .arg(&again)
            .assert()
            .success();
        same_metrics(&std::fs::read_to_string(&again).unwrap(), &text, args);
    }
}

/// The same series with the same values, but for the last bits of a float that
/// went through JSON (serde_json parses decimals to within one unit in the last
/// place).
fn same_metrics(a: &str, b: &str, args: &[&str]) {
    let (la, lb): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    assert_eq!(la.len(), lb.len(), "{args:?}");
    for (x, y) in la.iter().zip(&lb) {
        let (sx, vx) = x.rsplit_once(' ').unwrap();
        let (sy, vy) = y.rsplit_once(' ').unwrap();
        assert_eq!(sx, sy, "{args:?}");
        if vx != vy {
            let (fx, fy): (f64, f64) = (vx.parse().unwrap(), vy.parse().unwrap());
            assert!(
                (fx - fy).abs() <= 1e-12 * fx.abs().max(fy.abs()),
                "{args:?}: {x} / {y}"
            );
        }
    }
}

/// The series of `family` in `text` whose labels include every one of `labels`,
/// as their values.
fn values(text: &str, family: &str, labels: &[&str]) -> Vec<f64> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{family}{{")))
        .filter(|l| labels.iter().all(|x| l.contains(x)))
        .map(|l| l.rsplit_once(' ').unwrap().1.parse().unwrap())
        .collect()
}

#[test]
fn what_qualification_finds_is_in_the_metrics() {
    let (_dir, prom) = run_file("m.prom");
    let run = |args: &[&str]| {
        let out = seekprobe()
            .arg("-q")
            .arg("--prometheus")
            .arg(&prom)
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), std::fs::read_to_string(&prom).unwrap())
    };
    let (code, text) = run(&["--verify", "-w", "--yes", "sim:ssd?size=16M&corrupt=10-12"]);
    assert_eq!(code, Some(1));
    let failed = "seekprobe_verify_failed_sectors";
    assert_eq!(
        values(&text, failed, &["kind=\"corrupt\""]),
        [2.0],
        "{text}"
    );
    assert_eq!(values(&text, failed, &["kind=\"misdirected\""]), [0.0]);
    let (code, text) = run(&[
        "--capacity-check",
        "-w",
        "--yes",
        "sim:ssd?size=2T&fake=64G",
    ]);
    assert_eq!(code, Some(1));
    let real = values(&text, "seekprobe_capacity_real_bytes", &[]);
    assert_eq!(real, [(64u64 << 30) as f64], "{text}");
    let (code, text) = run(&["--smart", "--qualify", "sim:hdd?size=1G&smart=failing"]);
    assert_eq!(code, Some(3));
    let passed = values(&text, "seekprobe_smart_health_passed", &["when=\"before\""]);
    assert_eq!(passed, [0.0], "{text}");
    assert_eq!(
        values(&text, "seekprobe_smart_findings", &["severity=\"fail\""]),
        [2.0], // FAILED, and attribute 5 at its threshold
        "{text}"
    );
}

#[test]
fn prometheus_refuses_what_json_file_refuses() {
    let (dir, p) = run_file("m.prom");
    seekprobe()
        .args(["-t", "--json-file"])
        .arg(&p)
        .arg("--prometheus")
        .arg(&p)
        .arg("sim:hdd")
        .assert()
        .failure()
        .stderr(predicates::str::contains("both name"));
    seekprobe()
        .args(["-t", "--prometheus"])
        .arg(dir.path())
        .arg("sim:hdd")
        .assert()
        .failure()
        .stderr(predicates::str::contains("not a regular file"));
    seekprobe()
        .args(["-t", "--prometheus"])
        .arg(dir.path().join("no/such/dir/m.prom"))
        .arg("sim:hdd")
        .assert()
        .failure()
        .stderr(predicates::str::contains("does not exist"));
    seekprobe()
        .args(["-s", "--prometheus"])
        .arg(&p)
        .arg("sim:hdd")
        .assert()
        .failure();
}

#[test]
fn label_values_with_quotes_and_backslashes_are_escaped() {
    let (dir, json) = run_file("r.json");
    seekprobe()
        .args(["-q", "-t", "--json-file"])
        .arg(&json)
        .arg("sim:hdd")
        .assert()
        .success();
    let text = std::fs::read_to_string(&json)
        .unwrap()
        .replace("Simulated 7200 rpm HDD", "Odd \\\"model\\\\ name");
    std::fs::write(&json, text).unwrap();
    let prom = dir.path().join("r.prom");
    seekprobe()
        .arg("render")
        .arg(&json)
        .arg("--prometheus")
        .arg(&prom)
        .assert()
        .success();
    let text = std::fs::read_to_string(&prom).unwrap();
    assert!(
        text.contains(r#"model="Odd \"model\\ name (ST2000DM001-like)""#),
        "{text}"
    );
}

/// ansible-playbook: in the venv .ci/run makes, or on PATH.
fn ansible_playbook() -> std::path::PathBuf {
    let venv = Path::new("/opt/seekprobe-ansible/bin/ansible-playbook");
    if venv.is_file() {
        return venv.to_path_buf();
    }
    "ansible-playbook".into()
}

/// Run examples/ansible/qualify.yml against two local hosts with these drives;
/// its exit status and output.
pub fn run_playbook(dir: &Path, host1: &[&str], host2: &[&str], extra: &[&str]) -> (i32, String) {
    let list = |d: &[&str]| {
        let q: Vec<String> = d.iter().map(|s| format!("{s:?}")).collect();
        format!("[{}]", q.join(", "))
    };
    let inventory = format!(
        "all:\n  vars:\n    ansible_connection: local\n    ansible_python_interpreter: \"{{{{ ansible_playbook_python }}}}\"\n    seekprobe_binary: {bin:?}\n    seekprobe_args: \"-t --zones=20\"\n    seekprobe_remote_dir: {remote:?}\n    seekprobe_results_dir: {results:?}\n  hosts:\n    host1:\n      seekprobe_disks: {h1}\n    host2:\n      seekprobe_disks: {h2}\n",
        bin = assert_cmd::cargo::cargo_bin("seekprobe")
            .display()
            .to_string(),
        remote = dir.join("remote").display().to_string(),
        results = dir.join("results").display().to_string(),
        h1 = list(host1),
        h2 = list(host2),
    );
    let inv = dir.join("inventory.yml");
    std::fs::write(&inv, inventory).unwrap();
    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ansible/qualify.yml");
    let out = Command::new(ansible_playbook())
        .arg("-i")
        .arg(&inv)
        .arg(&playbook)
        .args(extra)
        .env("ANSIBLE_HOME", dir.join("ansible-home"))
        .env("ANSIBLE_LOCAL_TEMP", dir.join("ansible-tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_FORCE_COLOR", "0")
        // The hosts' seekprobe is this process's child: its runs dir as
        // helpers::seekprobe's (the playbook saves with --json-file).
        .env("SEEKPROBE_RUNS_DIR", runs_dir())
        .output()
        .expect("ansible-playbook runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
#[cfg_attr(
    seekprobe_no_ansible,
    ignore = "ansible-playbook not found in /opt/seekprobe-ansible or on PATH; .ci/run installs ansible-core there"
)]
fn the_ansible_playbook_fails_the_slow_drive_naming_its_host_and_passes_equal_drives() {
    let dir = temp_dir();
    let (code, text) = run_playbook(
        dir.path(),
        &["sim:hdd?seed=1", "sim:hdd?seed=2"],
        &["sim:hdd?seed=3", "sim:hdd?slow=0-409600:5&seed=4"],
        &[],
    );
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("1 of 4 drives failed qualification")
            && text.contains("host host2, disk sim:hdd?slow=0-409600:5&seed=4:"),
        "{text}"
    );
    assert!(!text.contains("host host1,"), "{text}");
    for host in ["host1", "host2"] {
        let run = dir.path().join(format!("results/{host}/{host}.json"));
        assert!(run.is_file(), "{} missing:\n{text}", run.display());
    }

    let dir = temp_dir();
    let (code, text) = run_playbook(
        dir.path(),
        &["sim:hdd?seed=5", "sim:hdd?seed=6"],
        &["sim:hdd?seed=7", "sim:hdd?seed=8"],
        &[],
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("host2:sim:hdd?seed=8: PASS"), "{text}");
    assert!(text.contains("failed=0"), "{text}");

    // A drive too small for -t: INCOMPLETE (exit status 4), named apart from a
    // failed one: run it again, not send it back.
    let dir = temp_dir();
    let (code, text) = run_playbook(
        dir.path(),
        &["sim:hdd?seed=9", "sim:hdd?seed=10"],
        &["sim:hdd?seed=11", "sim:hdd?size=64K"],
        &["-e", "seekprobe_args='-t'"],
    );
    assert_ne!(code, 0, "{text}");
    assert!(
        text.contains("0 of 4 drives failed qualification, 1 could not be judged whole")
            && text.contains("host host2, disk sim:hdd?size=64K: INCOMPLETE:"),
        "{text}"
    );

    // Write arguments belong in seekprobe_write_args only: -w among the tests is
    // refused before anything runs.
    let dir = temp_dir();
    let (code, text) = run_playbook(
        dir.path(),
        &["sim:hdd?seed=1"],
        &["sim:hdd?seed=2"],
        &["-e", "seekprobe_args='-Sw --yes'"],
    );
    assert_ne!(code, 0, "{text}");
    assert!(text.contains("never in seekprobe_args"), "{text}");
    assert!(!dir.path().join("remote").exists(), "{text}");
}

/// The playbook with `seekprobe_deb`, in a throwaway root (tests/it/throwaway.rs:
/// the package is installed for real, and thrown away): each of two local hosts
/// gets the package from tests/it/package.rs installed with apt and probes with
/// /usr/bin/seekprobe, which the controller judges with too.
#[test]
#[cfg_attr(
    any(
        seekprobe_no_ansible,
        not(all(
            seekprobe_loop,
            seekprobe_has_cargo_deb,
            seekprobe_has_lintian,
            seekprobe_has_tmux
        ))
    ),
    ignore = "needs ansible-playbook, root, cargo-deb, lintian and tmux (.ci/run installs them)"
)]
fn the_ansible_playbook_installs_the_debian_package_and_probes_with_it() {
    let deb = crate::package::deb();
    let root = crate::throwaway::ThrowawayRoot::new();
    let name = deb.file_name().unwrap().to_string_lossy();
    std::fs::copy(deb, root.tmp().join(&*name)).unwrap();
    let inventory = format!(
        "all:\n  vars:\n    ansible_connection: local\n    ansible_python_interpreter: \"{{{{ ansible_playbook_python }}}}\"\n    seekprobe_deb: /tmp/{name}\n    seekprobe_args: \"-t --zones=20\"\n    seekprobe_remote_dir: /tmp/remote\n    seekprobe_results_dir: /tmp/results\n  hosts:\n    host1:\n      seekprobe_disks: [\"sim:hdd?seed=1\"]\n    host2:\n      seekprobe_disks: [\"sim:hdd?seed=2\"]\n"
    );
    std::fs::write(root.tmp().join("inventory.yml"), inventory).unwrap();
    // The playbook goes into the root's /tmp: the checkout's own path may not be
    // in the root (a checkout under /tmp is hidden by the root's scratch /tmp, one
    // on another file system is not in the overlay of /).
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/ansible");
    std::fs::create_dir(root.tmp().join("ansible")).unwrap();
    for e in std::fs::read_dir(&examples).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), root.tmp().join("ansible").join(e.file_name())).unwrap();
    }
    let (code, out, err) = root
        .command("env")
        .args([
            "ANSIBLE_HOME=/tmp/ansible-home",
            "ANSIBLE_LOCAL_TEMP=/tmp/ansible-tmp",
            "ANSIBLE_NOCOLOR=1",
            // Both hosts are this root: one dpkg at a time (its lock).
            "ANSIBLE_FORKS=1",
        ])
        .arg(ansible_playbook())
        .args(["-i", "/tmp/inventory.yml", "/tmp/ansible/qualify.yml"])
        .outcome();
    let text = out + &err;
    assert_eq!(code, 0, "{text}");
    let install = text
        .split("TASK [Install the package]")
        .nth(1)
        .unwrap_or("");
    let install = install.split("TASK [").next().unwrap();
    assert!(install.contains("changed: ["), "{text}");
    assert!(text.contains("host2:sim:hdd?seed=2: PASS"), "{text}");
    assert_eq!(
        root.sh("dpkg-query -W -f '${Status}' seekprobe"),
        (0, "install ok installed".to_string())
    );
}

#[test]
fn many_saved_runs_compare_a_row_per_drive_failing_first_and_as_json() {
    let dir = temp_dir();
    let mut files = Vec::new();
    for i in 1..=10 {
        let spec = if i == 7 {
            format!("sim:hdd?slow=0-409600:5&seed={i}")
        } else {
            format!("sim:hdd?seed={i}")
        };
        let f = dir.path().join(format!("host{i:02}.json"));
        seekprobe()
            .args(["-q", "-t", "--json-file"])
            .arg(&f)
            .arg(&spec)
            .assert()
            .success();
        files.push(f);
    }
    let out = seekprobe()
        .args(["compare", "--qualify"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Comparison (10 disks, a row each)"), "{text}");
    assert!(text.contains("Qualification: 9 of 10 passed"), "{text}");
    let slow = text
        .find("| host07:sim:hdd?slow=0-409600:5&seed=7")
        .expect("the slow drive");
    let first = text.find("| host01:").expect("a passing drive");
    assert!(slow < first, "failing drives come first:\n{text}");
    assert!(
        text.contains("\thost07:sim:hdd?slow=0-409600:5&seed=7: FAIL\n"),
        "{text}"
    );

    let out = seekprobe()
        .args(["compare", "--qualify", "--json"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["failed"], 1);
    assert_eq!(j["disks"].as_array().unwrap().len(), 10);
    assert_eq!(
        j["disks"][6]["name"],
        "host07:sim:hdd?slow=0-409600:5&seed=7"
    );
    assert_eq!(j["disks"][6]["pass"], false);
    assert!(
        j["disks"][0]["figures"]["seek_transfer.full_stroke"]
            .as_f64()
            .unwrap()
            > 0.0
    );
}

#[test]
fn runs_of_other_versions_compare_when_their_schema_matches_and_are_refused_otherwise() {
    let dir = temp_dir();
    let (a, b) = (dir.path().join("a.json"), dir.path().join("b.json"));
    for (f, spec) in [(&a, "sim:hdd?seed=1"), (&b, "sim:hdd?seed=2")] {
        seekprobe()
            .args(["-q", "-t", "--json-file"])
            .arg(f)
            .arg(spec)
            .assert()
            .success();
    }
    let text = std::fs::read_to_string(&b).unwrap();
    let older = text.replacen(
        &format!("\"tool_version\": \"{}\"", env!("CARGO_PKG_VERSION")),
        "\"tool_version\": \"0.0.9\"",
        1,
    );
    assert_ne!(older, text);
    std::fs::write(&b, &older).unwrap();
    seekprobe()
        .args(["compare", "--qualify"])
        .arg(&a)
        .arg(&b)
        .assert()
        .success()
        .stderr(
            predicates::str::contains("runs of seekprobe").and(predicates::str::contains("0.0.9")),
        );
    // Another schema: refused, with the reason.
    std::fs::write(
        &b,
        older.replacen("\"schema_version\": 1", "\"schema_version\": 2", 1),
    )
    .unwrap();
    seekprobe()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .failure()
        .stderr(predicates::str::contains("schema version 2"));
    // A line this version does not know (from a newer seekprobe): refused, naming it.
    let newer = text
        .replacen(
            &format!("\"tool_version\": \"{}\"", env!("CARGO_PKG_VERSION")),
            "\"tool_version\": \"9.0.0\"",
            1,
        )
        .replacen("\"full_stroke\"", "\"warp_stroke\"", 1);
    std::fs::write(&b, newer).unwrap();
    seekprobe()
        .arg("compare")
        .arg(&a)
        .arg(&b)
        .assert()
        .failure()
        .stderr(predicates::str::contains("written by seekprobe 9.0.0"));
}

#[test]
fn qualifying_nothing_is_refused_and_one_drive_alone_is_judged_on_its_findings() {
    let (dir, one) = run_file("one.json");
    seekprobe()
        .args(["-q", "-t", "--json-file"])
        .arg(&one)
        .arg("sim:hdd?seed=1")
        .assert()
        .success();
    seekprobe()
        .args(["compare", "--qualify"])
        .arg(&one)
        .assert()
        .code(0)
        .stdout(predicates::str::contains(
            "\tone:sim:hdd?seed=1: PASS\n\t\tnote: timings not judged: the only drive",
        ));
    // Against a baseline, one drive is judged.
    seekprobe()
        .args(["compare", "--qualify", "--baseline"])
        .arg(&one)
        .arg(&one)
        .assert()
        .success();
    // A run without drives: nothing to judge.
    let text = std::fs::read_to_string(&one).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["disks"] = serde_json::json!([]);
    let empty = dir.path().join("empty.json");
    std::fs::write(&empty, v.to_string()).unwrap();
    seekprobe()
        .args(["compare", "--qualify"])
        .arg(&empty)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("nothing to judge"));
}
