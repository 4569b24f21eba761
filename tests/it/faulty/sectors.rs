//! Faults found to the sector: read and write errors, corrupt reads, misdirected,
//! dropped and wrapped writes, unreadable areas, a device that keeps only its first
//! MiB.

use super::*;

fuse_tests! {
    fn read_errors_are_found_by_scan_to_the_sector_in_few_reads() {
        // 8 unreadable sectors inside the second 1 MiB block.
        let d = FaultDisk::new(64 << 20, &["read-error=2100s-2108s", "count=1M-2M"]);
        let (code, out, err) = run(&["--scan", "--json", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        let scan = &v["disks"][0]["tests"][0]["scan"];
        assert_eq!(scan["error_blocks"], 1, "{scan}");
        assert_eq!(
            scan["unreadable"],
            serde_json::json!([{"first_sector": 2100, "sectors": 8}])
        );
        let (reads, _) = d.stats().rule("count=1M-2M");
        assert!(reads <= 64, "{reads} reads of the failed 1 MiB block");
    }

    fn write_errors_corrupt_reads_and_misdirected_writes_are_found_by_verify() {
        // Sectors 1000-1002 refuse writes, 5000-5001 read back inverted, the writes to
        // 20000-20007 land on 9000-9007, whose own writes are lost. Lost, not only
        // written earlier: the pass has several writes in flight, and a loaded machine
        // once stored 9000's own block after the misdirected one (9000 then read back
        // right, no "misdirected" range); what 9000 holds is now the same whatever the
        // order the two writes land in. (drop-writes first: faultdisk applies the rules
        // in order, and the misdirected write must not be dropped at its new place.)
        let d = FaultDisk::new(
            32 << 20,
            &[
                "write-error=1000s-1003s",
                "corrupt-reads=5000s-5002s",
                "drop-writes=9000s-9008s",
                "misdirect=20000s-20008s,9000s",
            ],
        );
        let (code, out, err) = run(&["--verify", "-w", "--yes", "--json", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        // 9000-9007 read back the stamps of 20000-20007 (misdirected), 20000-20007 what
        // was there before (zeros: corrupt).
        assert_eq!(
            verify_ranges(&v, 0),
            [
                r("unwritable", 1000, 3),
                r("corrupt", 5000, 2),
                r("misdirected", 9000, 8),
                r("corrupt", 20000, 8),
            ]
        );
        let found = &v["disks"][0]["tests"][0]["verify"]["passes"][0]["failures"]["ranges"][2];
        assert_eq!(found["found_lba"], 20000);
        assert!(d.stats().rule("write-error=1000s-1003s").1 >= 1);
    }

    fn writes_silently_dropped_read_back_the_previous_pass() {
        let d = FaultDisk::new(16 << 20, &["drop-writes=4096s-4104s"]);
        let (code, out, err) = run(&["--verify", "-w", "--yes", "--passes", "2", "--json", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        // Pass 1 reads the zeros that were there; pass 2 its own stamps of pass 1? No:
        // pass 1's writes were dropped too, so pass 2 reads zeros again.
        assert_eq!(verify_ranges(&v, 0), [r("corrupt", 4096, 8)]);
        assert_eq!(verify_ranges(&v, 1), [r("corrupt", 4096, 8)]);
        assert_eq!(d.stored(4096 * 512, 4096), vec![0; 4096]);
    }

    fn writes_dropped_after_a_first_pass_read_back_stale_stamps() {
        // A drive whose writes to 100-107 stop landing between two passes of one run:
        // they are dropped once the first pass has written and read the 16 MiB (the
        // rule starts at a byte count, not at a moment the test would have to catch).
        let d = FaultDisk::new(16 << 20, &["drop-writes=100s-108s,32M"]);
        let args = ["--verify", "-w", "--yes", "--passes", "2", "--json", "-q"];
        let (code, out, err) = run(&[&args[..], &["--block-size", "64K", &d.dev]].concat());
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        assert_eq!(verify_ranges(&v, 0), []);
        assert_eq!(verify_ranges(&v, 1), [r("stale", 100, 8)]);
    }

    fn a_device_wrapping_at_16_mib_fails_the_capacity_check_naming_it() {
        let d = FaultDisk::new(256 << 20, &["wrap=16M"]);
        let (code, out, err) = run(&["--capacity-check", "-w", "--yes", "-q", "--json", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        let c = &v["disks"][0]["tests"][0]["capacity"]["conclusion"];
        assert_eq!(c["real"], 16 << 20, "{c}");
    }

    fn a_device_unreadable_over_its_last_900_mib_is_scanned_and_verified_in_reads_of_its_blocks_with_exact_edges() {
        // Unreadable from sector 250,001 (inside a 1 MiB block) to the end of 1 GiB.
        let d = FaultDisk::new(1 << 30, &["read-error=250001s-2097152s"]);
        let (code, out, err) = run(&["--scan", "--json", "-q", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        let scan = &v["disks"][0]["tests"][0]["scan"];
        assert!(scan.get("unanswered").is_none(), "{scan}");
        assert_eq!(
            scan["unreadable"],
            serde_json::json!([{"first_sector": 250001, "sectors": 2097152 - 250001}])
        );
        assert!(!scan["inferred"].as_array().unwrap().is_empty(), "{scan}");
        // The pass reads each block once (two FUSE requests per 1 MiB); the locating
        // costs reads in proportion to the edges.
        let (reads, _) = d.stats().rule("read-error=250001s-2097152s");
        assert!(reads < 2 * 903 + 200, "{reads}");
        // --verify -w (on 256 MiB, unreadable past its first 50 MB: a debug build stamps
        // at about 50 MB/s): the writes land, the reads of the rest fail; earlier
        // sectors still read, so the drive is not "stopped", and the region's edges are
        // exact.
        drop(d);
        let d = FaultDisk::new(256 << 20, &["read-error=100001s-524288s"]);
        let (code, out, err) = run(&["--verify", "-w", "--yes", "--force", "--json", "-q", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        assert!(
            v["disks"][0]["tests"][0]["verify"]
                .get("unanswered")
                .is_none()
        );
        assert_eq!(
            verify_ranges(&v, 0),
            [r("unreadable", 100001, 524288 - 100001)]
        );
        let read = &v["disks"][0]["tests"][0]["verify"]["passes"][0]["read"];
        assert!(!read["inferred"].as_array().unwrap().is_empty(), "{read}");
        // The read half reads each of the region's 208 blocks once (two FUSE requests
        // per 1 MiB), and locating its edge costs reads in proportion to the edges, not
        // to the 424,287 sectors (454 to 666 reads seen).
        let (reads, _) = d.stats().rule("read-error=100001s-524288s");
        assert!(reads < 2 * 208 + 400, "{reads}");
    }

    fn unreadable_signature_areas_refuse_without_force_naming_the_offset_and_run_with_it() {
        let d = FaultDisk::new(256 << 20, &["read-error=96M-256M"]);
        let (code, out, err) = run(&["--verify", "-w", "--yes", "-q", &d.dev]);
        assert_ne!(code, 0, "{out}{err}");
        let at = err.find("byte ").map(|i| &err[i + 5..]).expect(&err);
        let at: u64 = at[..at.find(' ').unwrap()].parse().unwrap();
        assert!((96 << 20..256 << 20).contains(&at), "{err}");
        assert!(
            err.contains("unreadable") && err.contains("--force"),
            "{err}"
        );
        let (code, out, err) = run(&["--verify", "-w", "--yes", "--force", "--json", "-q", &d.dev]);
        assert_eq!(code, 1, "{out}{err}");
        let v = json(&out);
        assert!(
            v["disks"][0]["tests"][0]["verify"]
                .get("unanswered")
                .is_none()
        );
        assert_eq!(
            verify_ranges(&v, 0),
            [r("unreadable", 196608, 524288 - 196608)]
        );
    }

    fn a_device_keeping_only_its_first_64_mib_written_is_named_early_by_verify() {
        // A 256 MiB device that keeps the first 64 MiB written, wherever written, and
        // drops the rest (a counterfeit that remaps).
        let d = FaultDisk::new(256 << 20, &["keeps=64M"]);
        let qualify = ["--verify", "-w", "--yes", "--qualify", "--json", "-q"];
        let (code, out, err) = run(&[&qualify[..], &[d.dev.as_str()]].concat());
        assert_eq!(code, 3, "{out}{err}");
        let v = json(&out);
        let k = &v["disks"][0]["tests"][0]["verify"]["keeps_only"];
        // Stopped early, by the device's own count: at most the kept size and a
        // quarter of the claimed size written.
        let stats = d.stats();
        let written = stats.get("write_bytes");
        assert!(
            written <= (64 << 20) + (256 << 20) / 4,
            "{written} bytes written"
        );
        let (lost_from, holes) = keeps_only_matches_the_device(k, &stats.json["kept"]);
        let findings = &v["disks"][0]["verdict"]["findings"];
        let n = findings.as_array().unwrap().len();
        assert_eq!(n, 1 + usize::from(!holes.is_empty()), "{findings}");
        assert_eq!(findings[0]["code"], "keeps_only_first_written");
        let mib = format!(
            "keeps only the first {:.1} MiB written",
            lost_from as f64 / 1048576.0
        );
        assert!(
            findings[0]["reason"].as_str().unwrap().contains(&mib),
            "{findings}"
        );
        assert_eq!(verify_ranges(&v, 0), holes, "{k}");
    }
}

/// Check a `keeps_only` finding against the spans the device really stored
/// (faultdisk's `kept`, 64 MiB in all): the pass's `lost_from` is where one of
/// them ends, within the pass's requests in flight of 64 MiB. Returns `lost_from`
/// and the sectors below it that the device dropped, as the pass's corrupt ranges
/// must name them.
///
/// The pass keeps `VERIFY_DEPTH` writes of 1 MiB in flight, and on a busy machine
/// a later block (or its first pieces) can reach the device before an earlier
/// one: the device then spends its last flash on the later block and drops the
/// earlier one. Beside a busy CPU: 992 sectors dropped just below 64 MiB and as
/// many stored above it; with both CPUs busy, 7 runs of 30 stored 64 to 65 MiB
/// and dropped a block below. The device lied about those sectors too, so the pass
/// rightly names them corrupt; where `lost_from` lands (a hole's start, or the end
/// of the stored part past it) is the bisection's to find.
fn keeps_only_matches_the_device(
    k: &serde_json::Value,
    kept: &serde_json::Value,
) -> (u64, Vec<(String, u64, u64)>) {
    let spans: Vec<(u64, u64)> = (kept.as_array().unwrap().iter())
        .map(|s| (s[0].as_u64().unwrap(), s[1].as_u64().unwrap()))
        .collect();
    assert_eq!(
        spans.iter().map(|(s, e)| e - s).sum::<u64>(),
        64 << 20,
        "{kept}"
    );
    let lost_from = k["lost_from"].as_u64().unwrap();
    assert_eq!(k["kept_bytes"].as_u64(), Some(lost_from), "{k}");
    assert!(
        spans.iter().any(|&(_, e)| e == lost_from),
        "{k}: kept {kept}"
    );
    let in_flight = u64::from(seekprobe::test_plans::VERIFY_DEPTH.get()) << 20;
    assert!(
        lost_from.abs_diff(64 << 20) <= in_flight,
        "{k}: kept {kept}"
    );
    let mut holes = Vec::new();
    let mut at = 0;
    for &(s, e) in spans.iter().take_while(|&&(s, _)| s < lost_from) {
        if s > at {
            holes.push(("corrupt".to_string(), at / 512, (s - at) / 512));
        }
        at = e;
    }
    (lost_from, holes)
}
