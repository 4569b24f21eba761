//! A burn-in's steps and verdicts: the preset's steps in order for a rotating and
//! a flash drive, the faults each step finds, the fields docs/json.md documents.

use super::*;

#[test]
fn a_clean_burn_in_passes_and_lists_every_step_in_order() {
    let Whole { code, text, .. } = whole();
    assert_eq!(*code, 0, "{text}");
    assert!(text.contains(&format!("Burn-in of {CLEAN}:")), "{text}");
    assert!(text.contains("verdict: PASS"), "{text}");
    let v = saved(&whole().json);
    let ids: Vec<String> = steps(&v, 0).into_iter().map(|(id, _)| id).collect();
    assert_eq!(
        ids,
        [
            "smart_before",
            "short_self_test",
            "conveyance_self_test",
            "seek_transfer",
            "zones",
            "flushed_writes",
            "verify",
            "long_self_test",
            "smart_after"
        ]
    );
    for (id, status) in steps(&v, 0) {
        assert_eq!(status, "done", "{id}");
    }
    assert_eq!(v["disks"][0]["verdict"]["pass"], true);
    assert_eq!(v["burn_in"]["disks"][1], PEER);
}

#[test]
fn flash_gets_the_capacity_check_then_one_write_verify_pass_then_a_discard() {
    let (dir, json) = run_file("run.json");
    let (code, text) = burn_in(
        &json,
        &["sim:ssd?size=64M", "sim:ssd?size=2T&fake=64G"],
        &[],
        None,
    );
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains(
            "    - capacity check: stores only the first 64.0 GiB of the 2048.0 GiB it reports"
        ),
        "{text}"
    );
    let ids: Vec<String> = steps(&saved(&json), 0)
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(ids, FLASH_STEPS, "{text}");
    let v = saved(&json);
    let status = |disk, id: &str| {
        steps(&v, disk)
            .into_iter()
            .find(|(i, _)| i == id)
            .map(|(_, s)| s)
            .unwrap()
    };
    assert_eq!(status(0, "verify"), "done", "{text}");
    // A simulated drive keeps nothing to discard: skipped, saying why.
    assert_eq!(status(0, "discard"), "skipped", "{text}");
    assert!(
        text.contains(
            "discard (TRIM/UNMAP)                 skipped: a simulated drive: nothing to discard"
        ),
        "{text}"
    );
    // The fake is not written whole after the capacity check named it.
    assert_eq!(status(1, "verify"), "skipped", "{text}");
    // --no-discard: no discard step; a rotating drive gets the flushed writes.
    let json = dir.path().join("kept.json");
    let (code, text) = burn_in(&json, &["sim:ssd?size=64M", CLEAN], &["--no-discard"], None);
    assert_eq!(code, 0, "{text}");
    let v = saved(&json);
    let ids = |disk| -> Vec<String> { steps(&v, disk).into_iter().map(|(id, _)| id).collect() };
    assert!(!ids(0).contains(&"discard".to_string()), "{text}");
    assert!(ids(1).contains(&"flushed_writes".to_string()), "{text}");
    assert!(!ids(1).contains(&"discard".to_string()), "{text}");
}

#[test]
fn a_burn_in_finds_a_rotating_drive_whose_flush_lies() {
    let (_dir, json) = run_file("run.json");
    let liar = "sim:hdd?size=64M&lying_flush=1";
    let (code, text) = burn_in(&json, &[liar], &[], None);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains("acknowledges flushes without writing its cache to the platters; a power loss loses writes it acknowledged"),
        "{text}"
    );
    let v = saved(&json);
    assert_eq!(
        v["disks"][0]["verdict"]["findings"][0]["code"],
        "flush_not_honoured"
    );
}

#[test]
fn burn_in_needs_write_and_resume_needs_burn_in() {
    seekprobe()
        .args(["--burn-in", CLEAN])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "--burn-in applies only with -w; add -w or drop --burn-in",
        ));
    seekprobe()
        .args(["-t", "--resume", "x.json", CLEAN])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("--resume applies to --burn-in"));
}

#[test]
fn docs_json_md_documents_the_burn_in_fields() {
    let doc = include_str!("../../../docs/json.md");
    let text = std::fs::read_to_string(&whole().json).unwrap();
    for k in [
        "burn_in",
        "step",
        "status",
        "command",
        "disks",
        "smr_check",
        "duration_s",
        "record",
        "host",
        "ended_unix_s",
    ] {
        assert!(text.contains(&format!("\"{k}\"")), "{k} not in the JSON");
        assert!(doc.contains(&format!("`{k}`")), "docs/json.md lacks `{k}`");
    }
}

#[test]
fn a_drive_with_bad_sectors_fails_naming_its_smart_counters() {
    let (_dir, json) = run_file("run.json");
    let (code, text) = burn_in(&json, &[CLEAN, PEER, BAD], &[], None);
    assert_eq!(code, 3, "{text}");
    let v = saved(&json);
    assert_eq!(v["disks"][0]["verdict"]["pass"], true, "{text}");
    assert_eq!(v["disks"][2]["verdict"]["pass"], false);
    let reasons = v["disks"][2]["verdict"]["findings"].to_string();
    // The write-verify pass rewrote the bad sectors: the drive remapped them.
    assert!(
        reasons.contains("SMART: reallocated sectors (ATA 5) rose from 0 to 4 during the run")
            || reasons
                .contains("SMART: reallocated sectors (ATA 5) rose from 0 to 3 during the run"),
        "{reasons}"
    );
    assert!(text.contains("0 -> "), "the SMART changes: {text}");
    let smart = &v["disks"][2]["smart"];
    assert_eq!(smart["before"]["ata"]["reallocated"], 0, "{smart}");
    assert_eq!(smart["after"]["ata"]["pending"], 0, "{smart}");
}

#[test]
fn a_long_self_test_names_the_first_bad_lba() {
    seekprobe()
        .args(["--smart-test", "long", "-q", BAD])
        .assert()
        .stdout(predicates::str::contains("first error at LBA 1000"));
}

#[test]
fn a_drive_not_found_has_its_block_and_is_not_tested() {
    let (dir, json) = run_file("run.json");
    let missing = dir.path().join("sdz");
    let missing = missing.to_str().unwrap();
    let (code, text) = burn_in(&json, &[missing, CLEAN], &[], None);
    assert_eq!(code, 4, "{text}");
    let block = format!(
        "Burn-in of {missing}:\n  not burnt in: not tested (the verdict says why and what to do)\n  verdict: NOT TESTED\n    - "
    );
    assert!(text.contains(&block), "{text}");
    assert!(text.contains("no such file or directory"), "{text}");
    assert!(text.contains(&format!("Burn-in of {CLEAN}:")), "{text}");
}

#[test]
fn a_smart_failure_read_before_the_burn_in_stopped_fails_the_drive_exit_3() {
    let (_dir, json) = run_file("stopped.json");
    let failing = "sim:hdd?size=16M&smart=failing";
    let (code, text) = burn_in(&json, &[failing], &[], Some("smart_before"));
    assert_eq!(code, 130, "{text}");
    let (status, stdout) = compare_qualify(&json);
    // Send it back (3): what SMART read already fails it, whatever is left to run.
    assert_eq!(status, Some(3), "{stdout}");
    assert!(
        stdout.contains(&format!("\tstopped:{failing}: FAIL\n")),
        "{stdout}"
    );
    assert!(stdout.contains("SMART: "), "{stdout}");
}
