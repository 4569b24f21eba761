//! Loop devices (root only; CI runs as root): the exact diskinfo format on real
//! block devices, short names, 4Kn sectors and loop devices without direct I/O.

use crate::helpers::loop_tests;
use crate::helpers::{Finish, LoopDev, seekprobe};
use predicates::prelude::*;
use regex::Regex;
use std::path::Path;

/// Check that `text` is diskinfo's -ctv output for `name`, line by line: every
/// figure is parsed and printed again with diskinfo's printf formats, which must
/// give the same line, and the derived figures must agree with the measured ones.
pub fn assert_ctv_format(text: &str, name: &str) {
    let lines: Vec<&str> = text.split('\n').collect();
    assert_eq!(lines[0], name, "{text}");
    let field = Regex::new(r"^\t(\S+(?: \S+)*) *\t# (.+)$").unwrap();
    let mut i = 1;
    while !lines[i].is_empty() {
        let c = field
            .captures(lines[i])
            .unwrap_or_else(|| panic!("header line {:?}", lines[i]));
        assert_eq!(lines[i], format!("\t{:<12}\t# {}", &c[1], &c[2]));
        i += 1;
    }
    let f = |s: &str| {
        s.trim()
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("number {s:?}"))
    };
    let rest = &lines[i + 1..];
    assert_eq!(rest[0], "I/O command overhead:", "{text}");
    let mega =
        Regex::new(r"^\ttime to read 10MB block    (.{10,}) sec\t= (.{8,}) msec/sector$").unwrap();
    let c = mega
        .captures(rest[1])
        .unwrap_or_else(|| panic!("{:?}", rest[1]));
    let (dm, m1) = (f(&c[1]), f(&c[2]));
    assert_eq!(
        rest[1],
        format!("\ttime to read 10MB block    {dm:10.6} sec\t= {m1:8.3} msec/sector")
    );
    let sect =
        Regex::new(r"^\ttime to read 20480 sectors (.{10,}) sec\t= (.{8,}) msec/sector$").unwrap();
    let c = sect
        .captures(rest[2])
        .unwrap_or_else(|| panic!("{:?}", rest[2]));
    let (ds, s1) = (f(&c[1]), f(&c[2]));
    assert_eq!(
        rest[2],
        format!("\ttime to read 20480 sectors {ds:10.6} sec\t= {s1:8.3} msec/sector")
    );
    assert!((s1 - ds * 100.0 / 2048.0).abs() < 0.0015, "{}", rest[2]);
    let ovh = Regex::new(r"^\tcalculated command overhead\t\t\t= (.{8,}) msec/sector$").unwrap();
    let c = ovh
        .captures(rest[3])
        .unwrap_or_else(|| panic!("{:?}", rest[3]));
    assert_eq!(
        rest[3],
        format!(
            "\tcalculated command overhead\t\t\t= {:8.3} msec/sector",
            f(&c[1])
        )
    );
    assert_eq!(rest[4], "");
    assert_eq!(rest[5], "Seek times:");
    let seek =
        Regex::new(r"^\t([A-Za-z ]+):\t(.{5,}) iter in (.{10,}) sec = (.{8,}) msec$").unwrap();
    let labels = [
        "Full stroke",
        "Half stroke",
        "Quarter stroke",
        "Short forward",
        "Short backward",
        "Seq outer",
        "Seq inner",
    ];
    let iters = [250, 250, 500, 400, 400, 2048, 2048];
    for (k, (label, n)) in labels.iter().zip(iters).enumerate() {
        let line = rest[6 + k];
        let c = seek.captures(line).unwrap_or_else(|| panic!("{line:?}"));
        assert_eq!(&c[1], *label);
        let (it, secs, ms) = (f(&c[2]) as u32, f(&c[3]), f(&c[4]));
        assert_eq!(it, n);
        assert_eq!(
            line,
            format!("\t{label}:\t{it:5} iter in {secs:10.6} sec = {ms:8.3} msec")
        );
        assert!(
            (ms - secs * 1000.0 / f64::from(n)).abs() <= 0.0005 + 0.5e-3 / f64::from(n),
            "{line}"
        );
    }
    assert_eq!(rest[13], "");
    assert_eq!(rest[14], "Transfer rates:");
    let rate = Regex::new(
        r"^\t(outside|middle|inside):( +)(.{8,}) kbytes in (.{10,}) sec = (.{8,}) kbytes/sec$",
    )
    .unwrap();
    for (k, label) in ["outside", "middle", "inside"].iter().enumerate() {
        let line = rest[15 + k];
        let c = rate.captures(line).unwrap_or_else(|| panic!("{line:?}"));
        assert_eq!(&c[1], *label);
        let (kb, secs, r) = (f(&c[3]), f(&c[4]), f(&c[5]));
        let padded = format!("{label}:{}", " ".repeat(13 - label.len() - 1));
        assert_eq!(
            line,
            format!("\t{padded}{kb:8.0} kbytes in {secs:10.6} sec = {r:8.0} kbytes/sec")
        );
        // secs is printed to the microsecond, so kb / secs is off by up to that much.
        let tolerance = 1.0 + r * 0.5e-6 / (secs - 0.5e-6);
        assert!((r - kb / secs).abs() <= tolerance, "{line}");
    }
    assert_eq!(
        &rest[18..],
        ["", ""],
        "the text ends with one blank line: {text:?}"
    );
}

loop_tests! {
    fn ctv_on_a_256_mib_direct_io_loop_device_is_diskinfo_exact() {
        let l = LoopDev::scratch(256 << 20, true, None);
        let out = seekprobe().arg("-ctv").arg(&l.dev).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        // The backing file is in /dev/shm, and sparse (never written): the two
        // warnings say so, as they do for the image itself.
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), 2, "{err}");
        assert!(warnings[0].contains("stored in RAM"), "{err}");
        assert!(
            warnings[1].contains(&format!("{}: a loop device over the sparse image ", l.dev)),
            "{err}"
        );
        let text = String::from_utf8(out.stdout).unwrap();
        assert_ctv_format(&text, &l.dev);
        assert!(text.contains("\t512         \t# sectorsize\n\t268435456   \t# mediasize in bytes (256M)\n\t524288      \t# mediasize in sectors\n"), "{text}");
        assert!(
            text.contains("\tUnknown     \t# Rotation rate in RPM\n"),
            "{text}"
        );
    }

    fn short_names_are_found_under_dev() {
        let l = LoopDev::scratch(16 << 20, true, None);
        seekprobe()
            .arg("-v")
            .arg(l.short_name())
            .assert()
            .success()
            .stdout(predicate::str::starts_with(format!(
                "{}\n\t512         \t# sectorsize\n",
                l.short_name()
            )));
        seekprobe()
            .arg(l.short_name())
            .assert()
            .success()
            .stdout(predicate::str::starts_with(format!(
                "{}\t512\t16777216\t32768\t",
                l.short_name()
            )));
    }

    fn a_loop_device_without_direct_io_is_flagged() {
        let l = LoopDev::scratch(16 << 20, false, None);
        seekprobe().arg("-t").arg(&l.dev).assert().success().stderr(
            predicate::str::contains("without direct I/O")
                .and(predicate::str::contains("--direct-io=on")),
        );
    }

    fn four_k_native_sectors_work() {
        let l = LoopDev::scratch(64 << 20, true, Some(4096));
        let text = seekprobe().arg("-ctv").arg(&l.dev).stdout_of_success();
        assert!(text.contains("\t4096        \t# sectorsize\n\t67108864    \t# mediasize in bytes (64M)\n\t16384       \t# mediasize in sectors\n"), "{text}");
        assert!(text.contains("\ttime to read 20480 sectors"), "{text}");
        assert!(
            text.contains("\tinside:         65536 kbytes in "),
            "{text}"
        );
        assert!(Path::new(&l.dev).exists());
    }

    fn random_reads_on_a_loop_device_use_io_uring_and_print_diskinfo_s_block() {
        let l = LoopDev::scratch(64 << 20, true, None);
        let json = seekprobe()
            .args(["-i", "--duration", "0.1", "--json"])
            .arg(&l.dev)
            .stdout_of_success();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let test = &v["disks"][0]["tests"][0];
        let engine = test["engine"].as_str().unwrap();
        assert!(engine == "io_uring" || engine == "threads", "{engine}");
        let phases = test["phases"].as_array().unwrap();
        assert_eq!(phases.len(), 5);
        for p in phases {
            assert_eq!(p["histogram"]["count"], p["ops_planned"]);
            assert!(p["ops_planned"].as_u64().unwrap() > 0);
            assert_eq!(p["queue_depth"], 128);
        }
        let text = seekprobe()
            .arg("render")
            .arg("-")
            .write_stdin(json)
            .output()
            .unwrap();
        let text = String::from_utf8(text.stdout).unwrap();
        assert!(
            text.contains("Asynchronous random reads:\n\tsectorsize:  "),
            "{text}"
        );
        assert!(text.contains("\n\t1024 kbytes: "), "{text}");
    }

    fn other_io_on_the_device_during_a_test_is_flagged() {
        let l = LoopDev::scratch(64 << 20, true, None);
        let dev = l.dev.clone();
        // Another reader starts during the first settle pause of -c.
        let other = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            std::process::Command::new("dd")
                .args([
                    format!("if={dev}").as_str(),
                    "of=/dev/null",
                    "bs=1M",
                    "count=48",
                    "iflag=direct",
                    "status=none",
                ])
                .status()
                .unwrap()
        });
        let out = seekprobe()
            .args(["-c", "--settle", "1", "--quiet"])
            .arg(&l.dev)
            .output()
            .unwrap();
        assert!(other.join().unwrap().success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("other I/O on the device during the command overhead (-c) test"),
            "{err}"
        );
        // Alone, no such warning.
        let out = seekprobe()
            .args(["-c", "--quiet"])
            .arg(&l.dev)
            .output()
            .unwrap();
        assert!(!String::from_utf8_lossy(&out.stderr).contains("other I/O"));
    }
}
