//! Unit tests of the page's parts, on hand-made runs.

use super::charts;
use super::verdict::{TempSample, drive_verdict, human_test};
use super::{Source, render, utc};
use crate::results::device::DeviceInfo;
use crate::results::test_kind::TestKind;
use crate::results::{
    Code, DiskResult, Engine, Finding, Payload, Run, SCHEMA_VERSION, ScanResult, Severity,
    TestResult, Verdict, ZoneCurve, ZonePoint,
};

fn info(name: &str, model: &str, serial: &str) -> DeviceInfo {
    serde_json::from_value(serde_json::json!({
        "name": name, "path": name, "kind": "simulated", "sector_size_bytes": 512,
        "physical_sector_size_bytes": 4096, "media_size_bytes": 268435456u64,
        "stripe_size_bytes": 4096, "stripe_offset_bytes": 0, "fw_heads": 255,
        "fw_sectors": 63, "descr": model, "ident": serial, "attachment": "sim",
        "physical_path": null, "trim": false, "rotation": {"rpm": 7200},
        "zone_mode": null, "parent_disk": null, "loop_device": null, "simulated": "a model",
        "interface": null, "allocated_bytes": null, "in_memory": false, "io_mode": "simulated"
    }))
    .unwrap()
}

fn disk(name: &str, model: &str) -> DiskResult {
    let mut d = DiskResult::new(name);
    d.info = Some(info(name, model, "SER1"));
    d
}

fn run(disks: Vec<DiskResult>) -> Run {
    Run {
        schema_version: SCHEMA_VERSION,
        tool: "seekprobe".into(),
        tool_version: "0.1.0".into(),
        tests: vec![],
        verbose: true,
        settle_s: 0.0,
        disks,
        started_unix_s: Some(1_796_111_160),
        burn_in: None,
        record: Default::default(),
    }
}

fn page(r: &Run) -> String {
    render(&[Source {
        host: "h<1>".into(),
        run: r,
        saved: None,
        seal: None,
    }])
}

fn scan(error_blocks: u64, map_ns: Vec<u64>) -> TestResult {
    let mut t = TestResult::new(TestKind::Scan, 0.0, Engine::Sync);
    t.payload = Payload::Scan(ScanResult {
        start_bytes: 0,
        end_bytes: 1 << 20,
        block_bytes: 1 << 16,
        blocks_read: 16,
        bytes_read: 1 << 20,
        elapsed_ns: 1_000_000,
        buckets: vec![16, 0, 0, 0, 0, 0],
        error_blocks,
        unreadable: vec![],
        slow_ms: 50.0,
        slow: vec![],
        unconfirmed: 0,
        redone_bytes: 0,
        map_ns,
        inferred: vec![],
        unanswered: None,
        unlocated_from: None,
    });
    t
}

fn zones(rate: f64) -> TestResult {
    let mut t = TestResult::new(TestKind::Zones, 0.0, Engine::Sync);
    let points: Vec<ZonePoint> = (0..10)
        .map(|i| ZonePoint {
            offset_bytes: i * (268435456 / 10),
            rate_bytes_per_s: rate - i as f64 * 1e6,
            mean_read_ns: 1e6,
        })
        .collect();
    t.payload = Payload::Zones {
        read: Some(ZoneCurve {
            points,
            max_bytes_per_s: rate,
            min_bytes_per_s: rate - 9e6,
            mean_bytes_per_s: rate - 4.5e6,
            outer_inner_ratio: 1.1,
            steps: vec![],
        }),
        write: None,
    };
    t
}

#[test]
fn what_comes_from_a_drive_is_escaped() {
    let mut d = disk("sim:hdd?a=1&b=<2>", "<script>alert(1)</script>");
    d.info.as_mut().unwrap().ident = Some("\"><img src=x onerror=alert(2)>".into());
    d.verdict = Some(Verdict {
        state: crate::results::State::Fail,
        findings: vec![Finding::new(
            Severity::Fail,
            "scan",
            Code::UnreadableSectors,
            "<b>bold</b> reason".into(),
        )],
    });
    let html = page(&run(vec![d]));
    assert!(!html.contains("<script>alert"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(!html.contains("<img src=x"));
    assert!(html.contains("&quot;&gt;&lt;img src=x"));
    assert!(!html.contains("<b>bold</b>"));
    assert!(html.contains("sim:hdd?a=1&amp;b=&lt;2&gt;"));
    assert!(html.contains("h&lt;1&gt;"));
    // The one script is the page's own sorting.
    assert_eq!(html.matches("<script").count(), 1);
}

#[test]
fn the_run_verdict_is_shown_word_for_word() {
    let mut d = disk("a", "m");
    d.verdict = Some(Verdict {
        state: crate::results::State::Fail,
        findings: vec![
            Finding::new(
                Severity::Fail,
                "comparison",
                Code::WorseThanReference,
                "Full stroke (ms): 30 is 40% worse".into(),
            ),
            Finding::new(
                Severity::Warning,
                "smart",
                Code::Smart,
                "UDMA CRC errors rose by 3".into(),
            ),
        ],
    });
    let r = run(vec![d]);
    let got = drive_verdict(&r, &r.disks[0]);
    assert!(!got.passes());
    assert_eq!(got.findings.len(), 2);
    assert_eq!(got.findings[0].severity, Severity::Fail);
    assert_eq!(got.findings[0].reason, "Full stroke (ms): 30 is 40% worse");
    assert_eq!(got.findings[1].severity, Severity::Warning);
}

#[test]
fn without_a_verdict_the_results_decide_and_say_why() {
    let mut bad = disk("bad", "m");
    bad.tests.push(scan(3, vec![5_000_000, u64::MAX]));
    let good = disk("good", "m");
    let r = run(vec![good, bad]);
    let b = drive_verdict(&r, &r.disks[1]);
    assert!(!b.passes());
    assert_eq!(b.of(Severity::Fail).count(), 1);
    assert!(
        b.findings[0]
            .reason
            .contains("3 blocks of 65536 bytes failed to read")
    );
    assert!(drive_verdict(&r, &r.disks[0]).passes());
    let html = page(&r);
    // The failing drive's row comes first, its reason in the row.
    let first = html.find("<td class=\"verdict").unwrap();
    assert!(html[first..].starts_with("<td class=\"verdict fail\">FAIL</td>"));
    assert!(html.contains("1 PASS"));
    assert!(html.contains("1 FAIL"));
    assert!(html.contains("3 blocks of 65536 bytes failed to read"));
}

#[test]
fn a_drive_that_could_not_be_opened_fails_with_why() {
    let mut d = DiskResult::new("/dev/sdz");
    d.error = Some(crate::results::DiskFailure::Open(
        "/dev/sdz: no such file or directory".into(),
    ));
    let empty = page(&run(vec![]));
    assert!(empty.contains("0 drives"));
    let html = page(&run(vec![d]));
    assert!(html.contains("<td class=\"verdict fail\">FAIL</td>"));
    // The reason without the device's name: its row and section name it.
    assert!(
        html.contains("not probed: no such file or directory"),
        "{html}"
    );
}

#[test]
fn nothing_on_the_page_points_to_the_network() {
    let mut a = disk("a", "m");
    a.tests.push(zones(200e6));
    a.tests.push(scan(0, vec![5_000_000; 1000]));
    let mut b = disk("b", "m");
    b.tests.push(zones(150e6));
    let html = page(&run(vec![a, b]));
    assert!(html.contains("<svg"));
    assert!(
        !html.contains("http:") && !html.contains("https:"),
        "{html}"
    );
    assert!(!html.contains(" src="));
}

#[test]
fn the_zone_curves_of_the_batch_are_overlaid_with_a_legend() {
    let mut a = disk("first-drive", "m");
    a.tests.push(zones(200e6));
    let mut b = disk("second-drive", "m");
    b.tests.push(zones(150e6));
    let html = page(&run(vec![a, b]));
    let at = html.find("Zone curves").unwrap();
    let chart = &html[at..];
    let svg = &chart[chart.find("<svg").unwrap()..chart.find("</svg>").unwrap()];
    // One polyline per drive, in the drive's colour.
    for i in 0..2 {
        let c = charts::css(charts::colour(i, 2));
        assert!(svg.contains(&c), "{c} missing from the chart");
        assert!(chart.contains(&format!("background:{c}")));
    }
    assert!(chart.contains("first-drive") && chart.contains("second-drive"));
}

#[test]
fn the_median_band_is_the_middle_drive_sample_by_sample() {
    let curves: Vec<TestResult> = [200e6, 150e6, 180e6].map(zones).into();
    let series: Vec<(charts::Series<ZoneCurve>, u64)> = curves
        .iter()
        .map(|t| {
            let s = charts::Series {
                data: t.zone_curve().unwrap(),
                colour: charts::colour(0, 1),
                failed: false,
            };
            (s, 268435456)
        })
        .collect();
    let m = charts::median_curve(&series);
    assert_eq!(m.len(), 10);
    assert_eq!(m[0], (0.0, 180.0));
    assert_eq!(m[9].1, 171.0);
    // Two drives have no median worth drawing.
    assert!(charts::median_curve(&series[..2]).is_empty());
}

#[test]
fn a_healthy_scan_map_is_a_few_rectangles() {
    let svg = charts::scan_map(scan(0, vec![5_000_000; 1000]).scan().unwrap()).unwrap();
    // 1000 cells drawn as 10 rows of 50 green cells: one rectangle a row, and
    // the background.
    assert!(svg.matches("<rect").count() <= 12, "{svg}");
    let mut mixed = vec![5_000_000; 1000];
    mixed[10] = u64::MAX;
    let svg = charts::scan_map(scan(1, mixed).scan().unwrap()).unwrap();
    assert!(svg.contains("fill=\"#000000\""), "the failed cell is black");
}

#[test]
fn temperatures_draw_when_there_are_some() {
    assert!(charts::temperature_chart(&[]).is_none());
    let t: Vec<TempSample> = (0..10)
        .map(|i| TempSample {
            at_s: f64::from(i) * 60.0,
            celsius: 30.0 + f64::from(i),
        })
        .collect();
    let svg = charts::temperature_chart(&t).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
}

#[test]
fn times_are_utc_dates() {
    assert_eq!(utc(0), "1970-01-01 00:00 UTC");
    assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
    assert_eq!(utc(1_796_111_160), "2026-12-01 07:46 UTC");
}

#[test]
fn every_chart_colour_has_3_to_1_against_white() {
    let white = plotters::style::RGBColor(255, 255, 255);
    // The lime the issue found: 1.5:1, too faint for a line.
    let lime = plotters::style::RGBColor(0xB9, 0xDF, 0x20);
    assert!((charts::contrast(lime, white) - 1.54).abs() < 0.01);
    assert!((charts::contrast(plotters::style::RGBColor(0, 0, 0), white) - 21.0).abs() < 1e-9);
    for n in 1..=30 {
        for i in 0..n {
            let c = charts::colour(i, n);
            let r = charts::contrast(c, white);
            assert!(
                r >= charts::MIN_CONTRAST,
                "drive {i} of {n}: {} is {r:.2}:1",
                charts::css(c)
            );
        }
    }
    let fixed = [charts::WRITE, charts::READ, charts::TEMPERATURE];
    for c in fixed.iter().chain(&charts::SCAN) {
        let r = charts::contrast(*c, white);
        assert!(r >= charts::MIN_CONTRAST, "{} is {r:.2}:1", charts::css(*c));
    }
}

#[test]
fn one_temperature_reading_draws_no_chart() {
    let one = [TempSample {
        at_s: 0.0,
        celsius: 35.0,
    }];
    assert!(charts::temperature_chart(&one).is_none());
}

#[test]
fn a_failing_drive_is_drawn_first_at_the_same_weight_without_a_minor_grid() {
    let mut a = disk("good", "m");
    a.tests.push(zones(200e6));
    let mut b = disk("bad", "m");
    b.tests.push(zones(150e6));
    b.tests.push(scan(3, vec![5_000_000, u64::MAX]));
    let html = page(&run(vec![a, b]));
    let at = html.find("Zone curves").unwrap();
    let svg = &html[at..];
    let svg = &svg[svg.find("<svg").unwrap()..svg.find("</svg>").unwrap()];
    // The drives' lines (the axes' ticks are polylines one wide).
    let lines: Vec<&str> = svg
        .split("<polyline")
        .skip(1)
        .filter(|l| !l.contains("stroke=\"#000000\""))
        .collect();
    assert_eq!(lines.len(), 2, "{svg}");
    // The failing drive (the second given: colour 1) beneath the passing one.
    assert!(
        lines[0].contains(&charts::css(charts::colour(1, 2))),
        "{svg}"
    );
    assert!(
        lines[1].contains(&charts::css(charts::colour(0, 2))),
        "{svg}"
    );
    assert!(
        lines.iter().all(|l| l.contains("stroke-width=\"2\"")),
        "{svg}"
    );
    // The major grid only: a few tens of lines, not hundreds.
    assert!(svg.matches("<line").count() < 40, "{svg}");
}

#[test]
fn each_model_gets_its_own_zone_chart() {
    let mut a = disk("hdd", "a disk");
    a.tests.push(zones(200e6));
    let mut b = disk("ssd", "a flash drive");
    b.tests.push(zones(550e6));
    let html = page(&run(vec![a, b]));
    assert_eq!(html.matches("<h3>Zone curves").count(), 2, "{html}");
    assert!(html.contains("Zone curves, the read rate over each drive: a disk"));
    assert!(html.contains("Zone curves, the read rate over each drive: a flash drive"));
}

#[test]
fn smart_changes_show_their_size_and_only_faults_are_highlighted() {
    use super::drive::{change, matters};
    assert_eq!(change(Some("0"), Some("8")).as_deref(), Some("+8"));
    assert_eq!(change(Some("36"), Some("34")).as_deref(), Some("−2"));
    assert_eq!(change(Some("3%"), Some("4%")).as_deref(), Some("+1"));
    assert_eq!(change(Some("8"), Some("8")), None);
    assert_eq!(change(None, Some("8")), None);
    assert_eq!(
        change(
            Some("Completed without error"),
            Some("Completed: read failure")
        )
        .as_deref(),
        Some("changed")
    );
    assert!(matters("reallocated sectors (ATA 5)", Some("8")));
    assert!(!matters(
        "last self-test: Short offline at 12 h",
        Some("Completed without error")
    ));
    assert!(matters(
        "last self-test: Extended offline at 12 h",
        Some("Completed: read failure")
    ));
}

#[test]
fn reasons_are_read_by_a_person() {
    use super::verdict::readable;
    let names = ["da0", "/dev/da0"];
    assert_eq!(
        readable("verify: verify: corrupt at sector 8", &names),
        "verify: corrupt at sector 8"
    );
    assert_eq!(
        readable("write and verify (--verify): verify: corrupt", &names),
        "write and verify (--verify): corrupt"
    );
    assert_eq!(
        readable(
            "seek and transfer (-t): stopped by an error: /dev/da0: Seq outer: I/O error",
            &names
        ),
        "seek and transfer (-t): stopped by an error: Seq outer: I/O error"
    );
    assert_eq!(
        readable("da0 is gone; ada0 is not da0x", &names),
        "the drive is gone; ada0 is not da0x"
    );
    assert_eq!(
        readable("capacity_check: skipped; burn_in incomplete", &names),
        "capacity check (--capacity-check): skipped; burn-in incomplete"
    );
}

#[test]
fn the_root_cause_comes_before_the_tests_it_stopped() {
    let mut d = disk("a", "m");
    d.verdict = Some(Verdict {
        state: crate::results::State::Fail,
        findings: vec![
            Finding::new(
                Severity::Fail,
                "seek_transfer",
                Code::TestFailed,
                "seek and transfer (-t): stopped by an error: a: I/O error".into(),
            ),
            Finding::new(
                Severity::Fail,
                "smart",
                Code::Smart,
                "SMART: reallocated sectors (ATA 5) rose from 0 to 8 during the run".into(),
            ),
        ],
    });
    let r = run(vec![d]);
    let v = drive_verdict(&r, &r.disks[0]);
    assert!(v.findings[0].reason.starts_with("SMART: reallocated"));
    assert_eq!(human_test(&v.findings[1].test), "seek and transfer (-t)");
    assert_eq!(
        v.findings[1].reason,
        "seek and transfer (-t): stopped by an error: I/O error"
    );
}

#[test]
fn the_same_run_twice_counts_once_and_shared_serials_are_marked() {
    let mut a = disk("a", "m");
    a.info.as_mut().unwrap().ident = Some("S1".into());
    let mut b = disk("b", "m");
    b.info.as_mut().unwrap().ident = Some("S2".into());
    let r = run(vec![a, b]);
    let html = render(&[
        Source {
            host: "run.json".into(),
            run: &r,
            saved: None,
            seal: None,
        },
        Source {
            host: "run.json".into(),
            run: &r,
            saved: None,
            seal: None,
        },
    ]);
    assert!(html.contains("2 drives:"), "{html}");
    assert!(html.contains("given more than once"), "{html}");
    assert!(!html.contains("shared by"), "{html}");
    let twins = run(vec![disk("x", "m"), disk("y", "m")]);
    let html = page(&twins);
    assert!(html.contains("2 drives report the serial number SER1: x, y."));
    assert_eq!(html.matches("⚠ shared by 2 drives").count(), 2);
}

#[test]
fn the_sort_headers_are_buttons_with_aria_sort() {
    let html = page(&run(vec![disk("a", "m")]));
    assert_eq!(
        html.matches(r#"aria-sort="none" scope="col"><button class="sort" type="button">"#)
            .count(),
        6,
        "{html}"
    );
    assert!(!html.contains("data-sort"));
}

#[test]
fn the_record_shows_the_recorded_host_command_steps_firmware_and_checksum() {
    use crate::report::html::record::{SavedFile, sha256_hex};
    use crate::results::burnin::{Status, Step, StepRecord};
    let mut d = disk("/dev/sdb", "m");
    d.info.as_mut().unwrap().wwn = Some("0x5000c500a1b2c3d4".into());
    d.burn_in = vec![
        StepRecord {
            step: Step::SmartBefore,
            status: Status::Done,
            duration_s: Some(0.42),
            unanswered: false,
        },
        StepRecord {
            step: Step::Test(TestKind::Verify),
            status: Status::Done,
            duration_s: Some(7_325.0),
            unanswered: false,
        },
        StepRecord {
            step: Step::SmartAfter,
            status: Status::Done,
            duration_s: None,
            unanswered: false,
        },
    ];
    let mut r = run(vec![d]);
    r.record.host = Some("rack7-node3".into());
    r.record.command = vec!["seekprobe".into(), "--ticket".into(), "RMA 12".into()];
    r.record.ended_unix_s = Some(1_796_111_160 + 3_600);
    r.record.ticket = Some("RMA 12".into());
    let html = render(&[Source {
        host: "burnin".into(),
        run: &r,
        saved: Some(SavedFile {
            name: "burnin.json".into(),
            sha256: sha256_hex(b"abc"),
        }),
        seal: None,
    }]);
    // The recorded host, not the file's name, in the table and the drive's section.
    assert!(html.contains("rack7-node3"), "{html}");
    assert!(!html.contains(">burnin<"), "{html}");
    assert!(
        html.contains("seekprobe --ticket &#39;RMA 12&#39;")
            || html.contains("seekprobe --ticket 'RMA 12'"),
        "{html}"
    );
    assert!(html.contains("0x5000c500a1b2c3d4"), "{html}");
    assert!(
        html.contains("0.4 s") && html.contains("2 h 2 min"),
        "{html}"
    );
    assert!(html.contains("not recorded"), "{html}");
    assert!(!html.contains("do not record the steps"), "{html}");
    // FIPS 180-2's example: SHA-256("abc").
    assert!(html.contains("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    assert!(html.contains("burnin.json"), "{html}");
}

#[test]
fn a_finding_of_any_test_is_shown_by_the_test_s_name() {
    // One id per test: the JSON's, which findings carry (issue 39: `-i`'s was
    // shown raw while its row said `iops`).
    for t in crate::results::test_kind::TestKind::ALL {
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, format!("\"{}\"", t.id()));
        assert_eq!(human_test(t.id()), t.name());
    }
}
