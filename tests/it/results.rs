//! Results as data: JSON round trips, re-rendering and the table view.

use crate::helpers::temp_dir;
use crate::helpers::{image, run_file, seekprobe};
use predicates::prelude::*;

#[test]
fn a_saved_run_renders_the_same_text_as_the_live_run() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 32 << 20);
    let missing = dir.path().join("missing");
    let json = dir.path().join("run.json");
    let live = seekprobe()
        .arg("-ctv")
        .arg("--json-file")
        .arg(&json)
        .arg(&img)
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(live.status.code(), Some(1));
    let rendered = seekprobe().arg("render").arg(&json).output().unwrap();
    assert!(rendered.status.success());
    assert_eq!(
        String::from_utf8(rendered.stdout).unwrap(),
        String::from_utf8(live.stdout).unwrap()
    );
    for (format, needle) in [
        ("table", "| Full stroke "),
        ("json", "\"schema_version\": 1"),
    ] {
        seekprobe()
            .args(["render", "--format", format])
            .arg(&json)
            .assert()
            .success()
            .stdout(predicate::str::contains(needle));
    }
    // SMART before and after, a self-test, the findings (--smart, --smart-test).
    let live = seekprobe()
        .args(["-t", "--smart-test", "short", "--json-file"])
        .arg(&json)
        .args(["sim:hdd?size=1G&crc=1", "sim:nvme?size=1G"])
        .output()
        .unwrap();
    assert_eq!(live.status.code(), Some(0));
    let live = String::from_utf8(live.stdout).unwrap();
    assert!(live.contains("SMART self-tests\n"), "{live}");
    let rendered = seekprobe().arg("render").arg(&json).output().unwrap();
    assert_eq!(String::from_utf8(rendered.stdout).unwrap(), live);
    // The table view carries the SMART findings too.
    let table = seekprobe()
        .args(["render", "--format", "table"])
        .arg(&json)
        .output()
        .unwrap();
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(table.contains("| Full stroke "), "{table}");
    assert!(table.contains("SMART self-tests\n"), "{table}");
}

#[test]
fn the_table_view_shows_the_blocks_of_seekprobes_own_tests() {
    let out = seekprobe()
        .args(["--verify", "-w", "--yes", "--format", "table"])
        .arg("sim:ssd?size=8M&corrupt=10-12")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "write and verify (--verify) — complete:\nWrite and verify: bytes 0 to 8388608"
        ),
        "{text}"
    );
    assert!(text.contains("\t\tcorrupt: sectors 10-11 (2)\n"), "{text}");
    // No empty table of lines for a test that has none.
    assert!(!text.contains("| line "), "{text}");
}

#[test]
fn json_output_is_the_whole_run_with_units_in_the_names() {
    let dir = temp_dir();
    let img = image(dir.path(), "img", 16 << 20);
    let out = seekprobe()
        .arg("-t")
        .arg("--json")
        .arg(&img)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    let disk = &v["disks"][0];
    assert_eq!(disk["info"]["media_size_bytes"], 16 << 20);
    assert_eq!(disk["info"]["sector_size_bytes"], 512);
    let phases = disk["tests"][0]["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 10);
    let full = &phases[0];
    assert_eq!(full["id"], "full_stroke");
    let lat = full["latencies_ns"].as_array().unwrap();
    assert_eq!(lat.len(), 250);
    let sum: u64 = lat.iter().map(|x| x.as_u64().unwrap()).sum();
    assert_eq!(sum, full["elapsed_ns"].as_u64().unwrap());
    assert_eq!(full["summary"]["count"], 250);
}

#[test]
fn render_refuses_what_is_not_a_saved_run() {
    let (dir, bad) = run_file("bad.json");
    std::fs::write(&bad, "{\"schema_version\": 99}").unwrap();
    seekprobe()
        .arg("render")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("schema version 99"));
    std::fs::write(&bad, "not json").unwrap();
    seekprobe()
        .arg("render")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not valid JSON"));
    seekprobe()
        .arg("render")
        .arg(dir.path().join("none.json"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("no such file"));
}

#[test]
fn docs_json_md_documents_every_field_the_json_has() {
    let doc = include_str!("../../docs/json.md");
    let out = seekprobe()
        .args([
            "-ctiSw",
            "--yes",
            "--duration",
            "0.02",
            "--write-duration",
            "0",
            "--qualify",
            "--zones=4",
            "--seek-profile",
            "--seek-samples",
            "60",
            "--scan",
            "--capacity-check",
            "--smart-test",
            "short",
            "--json",
        ])
        .arg("sim:ssd?size=1G")
        .arg("sim:hdd?size=1G")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    fn keys(v: &serde_json::Value, acc: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    acc.insert(k.clone());
                    keys(x, acc);
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, acc)),
            _ => {}
        }
    }
    let mut all = std::collections::BTreeSet::new();
    keys(&v, &mut all);
    for k in all {
        assert!(
            doc.contains(&format!("`{k}`")),
            "docs/json.md does not document `{k}`"
        );
    }
}
