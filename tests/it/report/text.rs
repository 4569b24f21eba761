//! The report's contents: a row per drive and every failing reason, runs given
//! twice or from many hosts, refusals, and the size of a large page.

use super::*;
use crate::helpers::temp_dir;

#[test]
fn the_report_of_a_burn_in_has_a_row_per_drive_and_every_failing_reason() {
    let b = burn_in();
    let (_dir, page) = run_file("report.html");
    let (code, err) = report(&[&b.json], &page);
    // Written: exit 0, though two drives fail.
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let got = rows(&html);
    assert_eq!(got.len(), DRIVES.len(), "{got:?}");
    // Failing drives first, each with its verdict.
    assert!(got[..2].iter().all(|r| r.1 == "FAIL"), "{got:?}");
    for (name, verdict) in DRIVES {
        let row = got.iter().find(|r| r.0 == escaped(name)).expect(name);
        assert_eq!(row.1, verdict, "{name}");
    }
    assert!(
        html.contains("2 PASS") && html.contains("1 PASS with warnings") && html.contains("2 FAIL")
    );
    let reasons = text_reasons(&b.text);
    assert!(reasons.len() >= 2, "{}", b.text);
    for r in reasons {
        // The page's reason names no device: its row and section do.
        let mut r = r.to_string();
        for (name, _) in DRIVES {
            r = r.replace(&format!("{name}: "), "");
        }
        assert!(
            html.contains(&escaped(&r)),
            "the page lacks the reason {r:?}"
        );
    }
    // The overlaid zone curves, with a legend naming the drives.
    assert!(html.contains("Zone curves"));
    // The temperatures SMART sampled during the burn-in, a section per drive.
    assert_eq!(html.matches("<h3>Temperature</h3>").count(), DRIVES.len());
    assert!(!html.contains("http:") && !html.contains("https:"));
    // At most 35 KB a drive (issue 33; the minor grid alone was 57% of 59 KB).
    let per_drive = html.len() / DRIVES.len();
    assert!(per_drive <= 35_000, "{per_drive} bytes a drive");
    eprintln!(
        "five-drive burn-in: {} bytes, {per_drive} a drive",
        html.len()
    );
    // No internal ids, no device name inside a reason, no doubled prefix.
    let reasons = Regex::new(r#"(?s)<ul class="findings">(.*?)</ul>"#).unwrap();
    for r in reasons.captures_iter(&html) {
        let r = &r[1];
        for id in ["seek_transfer", "burn_in", "capacity_check", "smr_signs"] {
            assert!(!r.contains(id), "{id} in {r}");
        }
        for (name, _) in DRIVES {
            assert!(!r.contains(&escaped(name)), "{name} in {r}");
        }
        assert!(!r.contains("verify: verify:"), "{r}");
    }
}

#[test]
fn the_same_run_given_twice_counts_its_drives_once() {
    let b = burn_in();
    let (_dir, page) = run_file("twice.html");
    let (code, err) = report(&[&b.json, &b.json], &page);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(rows(&html).len(), DRIVES.len());
    assert!(
        html.contains(&format!("{} drives:", DRIVES.len())),
        "{html}"
    );
    assert!(html.contains("was given more than once"), "{html}");
}

#[test]
fn report_refuses_an_unreadable_run_and_an_output_that_is_an_input() {
    let (dir, bad) = run_file("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let page = dir.path().join("r.html");
    let (code, err) = report(&[&bad], &page);
    assert_eq!(code, 1);
    assert!(err.contains("bad.json"), "{err}");
    assert!(!page.exists());
    let (code, err) = report(&[&bad], &bad);
    assert_eq!(code, 1);
    assert!(err.contains("that is a saved run being read"), "{err}");
}

#[test]
fn html_writes_the_page_of_a_probing_run() {
    let (_dir, page) = run_file("run.html");
    let out = seekprobe()
        .args(["-t", "--html"])
        .arg(&page)
        .arg("sim:hdd?size=64M")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        rows(&html),
        vec![("sim:hdd?size=64M".to_string(), "PASS".to_string())]
    );
    // The same figures as the text: diskinfo's lines are on the page.
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("Full stroke")).unwrap();
    assert!(html.contains(line.trim()), "{line}");
}

#[test]
fn many_hosts_runs_make_one_page_with_each_drive_under_its_host() {
    let dir = temp_dir();
    let mut files = Vec::new();
    for (host, disk) in [
        ("rack1-a", "sim:hdd?size=64M"),
        ("rack1-b", "sim:ssd?size=64M"),
    ] {
        let json = dir.path().join(format!("{host}.json"));
        let out = seekprobe()
            .args(["-t", "--json-file"])
            .arg(&json)
            .arg(disk)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        // The run records this machine's host name; as two hosts' runs would,
        // one records its own, the other is a run saved before the host name was
        // recorded (shown under its file's name).
        let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let record = v["record"].as_object_mut().unwrap();
        match host {
            "rack1-a" => record.insert("host".into(), host.into()),
            _ => record.remove("host"),
        };
        std::fs::write(&json, v.to_string()).unwrap();
        files.push(json);
    }
    let page = dir.path().join("fleet.html");
    let refs: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    assert_eq!(report(&refs, &page).0, 0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(rows(&html).len(), 2);
    for host in ["rack1-a", "rack1-b"] {
        assert!(
            html.contains(&format!(
                "<td class=\"host\" data-label=\"host\">{host}</td>"
            )),
            "{host}"
        );
    }
}

#[test]
fn twenty_four_drives_with_every_test_fit_in_2_mib() {
    let b = burn_in();
    let dir = temp_dir();
    // One more drive with the tests the burn-in does not run.
    let extra = dir.path().join("extra.json");
    let out = seekprobe()
        .args([
            "-c",
            "-t",
            "--zones",
            "--seek-profile",
            "--scan",
            "--smr-check",
        ])
        .args(["-w", "--yes", "-q", "--json-file"])
        .arg(&extra)
        .arg("sim:smr?size=64M")
        .output()
        .unwrap();
    assert!(out.status.code().is_some());
    let load =
        |p: &Path| -> Value { serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap() };
    let mut run = load(&b.json);
    let extra = load(&extra);
    let mut pool: Vec<Value> = run["disks"].as_array().unwrap().clone();
    pool.extend(extra["disks"].as_array().unwrap().iter().cloned());
    let mut disks = Vec::new();
    for i in 0..24 {
        let mut d = pool[i % pool.len()].clone();
        let name = format!("{}#{i}", d["name"].as_str().unwrap());
        d["name"] = Value::from(name);
        disks.push(d);
    }
    run["disks"] = Value::from(disks);
    let big = dir.path().join("24.json");
    std::fs::write(&big, run.to_string()).unwrap();
    let page = dir.path().join("24.html");
    let (code, err) = report(&[&big], &page);
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(rows(&html).len(), 24);
    for part in [
        "Surface scan",
        "Seek profiles",
        "Hidden-SMR check",
        "Capacity check",
    ] {
        assert!(html.contains(part), "{part}");
    }
    let len = html.len();
    assert!(len < 2 << 20, "{len} bytes for 24 drives");
    eprintln!("24 drives with every test: {len} bytes");
}
