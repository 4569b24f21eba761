//! The drive history (docs/history.md), always in a temporary file named with
//! --history: lone drives judged against the earlier drives of their model, the
//! drives and timelines listed, acknowledged SMART counts, parallel writers, a
//! corrupt file, imports.

use crate::helpers::seekprobe_command;
use crate::helpers::temp_dir;
use crate::helpers::{run, run_file};
use std::path::Path;

const HDD: &str = "sim:hdd?seed=";

fn db_arg(db: &Path) -> String {
    db.to_string_lossy().into_owned()
}

/// `-t --qualify` of these simulated drives, recorded in `db`.
fn qualify(db: &Path, disks: &[String]) -> (i32, String, String) {
    let mut args = vec![
        "-t".to_string(),
        "--qualify".into(),
        "--history".into(),
        db_arg(db),
    ];
    args.extend(disks.iter().cloned());
    run(&args)
}

/// The serials of the drives `history --format json` lists.
fn serials(db: &Path) -> Vec<String> {
    let (code, out, err) = run(&["history", "--format", "json", "--history", &db_arg(db)]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d["serial"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_lone_drive_is_judged_against_the_earlier_drives_of_its_model() {
    let (_dir, db) = run_file("history.db");
    let three: Vec<String> = (1..=3).map(|s| format!("{HDD}{s}")).collect();
    let (code, out, err) = qualify(&db, &three);
    assert_eq!(code, 0, "{out}{err}");
    let earlier = serials(&db);
    assert_eq!(earlier.len(), 3, "{earlier:?}");

    // A slow outer zone (5 ms more per request over the first 200 MiB) fails
    // against the three, and the note names them.
    let (code, out, err) = qualify(&db, &[format!("{HDD}4&slow=0-409600:5")]);
    assert_eq!(code, 3, "{out}{err}");
    assert!(out.contains(": FAIL"), "{out}");
    assert!(
        out.contains("Transfer outside (kbytes/s)")
            && out.contains("worse than the earlier drives' median"),
        "{out}"
    );
    assert!(
        out.contains("judged against 3 earlier drives of this model"),
        "{out}"
    );
    for s in &earlier {
        assert!(out.contains(s.as_str()), "{s} not named: {out}");
    }
    assert!(!out.contains("timings not judged"), "{out}");

    // A healthy lone drive passes, judged and not merely noted.
    let (code, out, err) = qualify(&db, &[format!("{HDD}5")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": PASS"), "{out}");
    assert!(!out.contains("timings not judged"), "{out}");
    assert!(
        out.contains("judged against 3 earlier drives of this model"),
        "{out}"
    );

    // Every drive is listed; one drive's timeline shows its runs.
    let all = serials(&db);
    assert_eq!(all.len(), 5, "{all:?}");
    let (code, table, _) = run(&["history", "--history", &db_arg(&db)]);
    assert_eq!(code, 0);
    for s in &all {
        assert!(table.contains(s.as_str()), "{table}");
    }
    assert!(table.contains("5 drive(s)"), "{table}");
    // Sizes in the units the rest of the output uses (it said "2.1 GB").
    assert!(
        table.contains(" 1.8 TiB ") && !table.contains(" GB "),
        "{table}"
    );
    let (code, timeline, err) = run(&["history", &earlier[0], "--history", &db_arg(&db)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        timeline.contains(&format!("Drive {}: 1 run(s)", earlier[0])),
        "{timeline}"
    );
    assert!(timeline.contains("PASS (qualified)"), "{timeline}");
    let (code, _, err) = run(&["history", "NOSUCHSERIAL", "--history", &db_arg(&db)]);
    assert_eq!(code, 1);
    assert!(err.contains("no drive with serial NOSUCHSERIAL"), "{err}");
}

#[test]
fn an_acknowledged_smart_count_is_not_judged_again_until_it_changes() {
    let dir = temp_dir();
    let db = db_arg(&dir.path().join("history.db"));
    let report = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/smartctl/synthetic/ST3500418AS_11-pending-8.json");
    let report = report.to_string_lossy().into_owned();
    // The same drive, later: one more pending sector.
    let mut later: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    for a in later["ata_smart_attributes"]["table"]
        .as_array_mut()
        .unwrap()
    {
        if a["id"] == 197 {
            a["raw"]["value"] = 9.into();
            a["raw"]["string"] = "9".into();
        }
    }
    let later_path = dir.path().join("later.json");
    std::fs::write(&later_path, later.to_string()).unwrap();
    let later_path = later_path.to_string_lossy().into_owned();

    let (code, out, _) = run(&["smart", &report, "--history", &db]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("FAIL: pending sectors (ATA 197): 8"), "{out}");
    let serial = serials(Path::new(&db)).remove(0);
    let (code, out, err) = run(&["history", "ack", &serial, "smart", "--history", &db]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("acknowledged for"), "{out}");

    // The same figure: a note, not judged.
    let (code, out, _) = run(&["smart", &report, "--history", &db]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("not judged until it changes: SMART: pending sectors (ATA 197): 8"),
        "{out}"
    );
    assert!(out.contains("SMART verdict: healthy"), "{out}");

    // The count changed: judged as usual, saying so.
    let (code, out, _) = run(&["smart", &later_path, "--history", &db]);
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("FAIL: pending sectors (ATA 197): 9"), "{out}");
    assert!(out.contains("changed since acknowledged"), "{out}");

    // Undone: judged again.
    let (code, _, err) = run(&["history", "unack", &serial, "smart", "--history", &db]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&["smart", &report, "--history", &db]);
    assert_eq!(code, 3, "{out}");
    let (code, _, err) = run(&["history", "ack", &serial, "nonsense", "--history", &db]);
    assert_eq!(code, 1);
    assert!(err.contains("nonsense: not a finding code"), "{err}");
}

#[test]
fn two_runs_writing_to_one_database_at_once_are_both_recorded() {
    let dir = temp_dir();
    let db = db_arg(&dir.path().join("history.db"));
    let spawn = |seed: u32| {
        seekprobe_command()
            .args(["-t", "--qualify", "--history", &db])
            .args((0..3).map(|i| format!("{HDD}{}", seed * 10 + i)))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(1), spawn(2));
    for c in [a, b] {
        let out = c.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("history database"));
    }
    assert_eq!(serials(Path::new(&db)).len(), 6);
}

#[test]
fn a_corrupt_database_changes_nothing_but_one_message_naming_it() {
    let (_dir, db) = run_file("history.db");
    std::fs::write(&db, vec![0x5a; 16384]).unwrap();
    let disks = ["sim:hdd?seed=1", "sim:hdd?seed=2&slow=0-409600:5"];
    let (code, out, err) = run(&[
        &["-t", "--qualify", "--history", &db_arg(&db)][..],
        &disks[..],
    ]
    .concat());
    let (code0, out0, _) = run(&[&["-t", "--qualify", "--no-history"][..], &disks[..]].concat());
    assert_eq!((code, &out), (code0, &out0));
    let named: Vec<&str> = err.lines().filter(|l| l.contains(&db_arg(&db))).collect();
    assert_eq!(named.len(), 1, "{err}");
    assert!(named[0].contains("not a database"), "{err}");
    assert_eq!(std::fs::read(&db).unwrap(), vec![0x5a; 16384]);
}

#[test]
fn saved_runs_and_other_databases_are_imported_once() {
    let (dir, json) = run_file("host1.json");
    let (code, _, err) = run(&[
        "-t",
        "--no-history",
        "--json-file",
        &db_arg(&json),
        "sim:hdd?seed=7",
        "sim:hdd?seed=8",
    ]);
    assert_eq!(code, 0, "{err}");
    let a = db_arg(&dir.path().join("a.db"));
    let (code, out, err) = run(&["history", "import", &db_arg(&json), "--history", &a]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("1 run(s) imported, 0 already there"), "{out}");
    let (_, out, _) = run(&["history", "import", &db_arg(&json), "--history", &a]);
    assert!(out.contains("0 run(s) imported, 1 already there"), "{out}");
    assert_eq!(serials(Path::new(&a)).len(), 2);
    // Another host's database, into a third: its run once.
    let b = db_arg(&dir.path().join("b.db"));
    let (code, out, err) = run(&["history", "import", &a, &a, "--history", &b]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 run(s) imported, 1 already there"), "{out}");
    let (_, timeline, _) = run(&["history", &serials(Path::new(&b))[0], "--history", &b]);
    assert!(timeline.contains("1 run(s)"), "{timeline}");
    assert!(timeline.contains("host1"), "{timeline}");
}

#[test]
fn a_drive_worse_than_its_own_qualification_gets_a_drift_warning() {
    let (_dir, db) = run_file("history.db");
    let three: Vec<String> = (1..=3).map(|s| format!("{HDD}{s}")).collect();
    let (code, out, err) = qualify(&db, &three);
    assert_eq!(code, 0, "{out}{err}");
    // The same drive (its serial comes from its seed), slower now.
    let (code, out, err) = qualify(&db, &[format!("{HDD}1&slow=0-409600:5")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains(": PASS"), "{out}");
    assert!(
        out.contains("Transfer outside (kbytes/s)")
            && out.contains("worse than at its own qualification on"),
        "{out}"
    );
}

#[test]
fn a_finding_that_counts_nothing_cannot_be_acknowledged_nor_silenced_by_a_forced_ack() {
    let (dir, db_path) = run_file("history.db");
    let db = db_arg(&db_path);
    let report = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/smartctl/synthetic/ST3500418AS_11-pending-8.json");
    // The attribute table an object, not a list: the report cannot be judged.
    let mut broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    broken["ata_smart_attributes"]["table"] = serde_json::json!({});
    let broken_path = dir.path().join("broken.json");
    std::fs::write(&broken_path, broken.to_string()).unwrap();
    let broken_path = broken_path.to_string_lossy().into_owned();

    let (code0, out0, _) = run(&["smart", &broken_path, "--history", &db]);
    assert_ne!(code0, 0, "{out0}");
    assert!(out0.contains("cannot be judged"), "{out0}");
    let serial = serials(&db_path).remove(0);
    let (code, _, err) = run(&[
        "history",
        "ack",
        &serial,
        "smart_unreadable",
        "--history",
        &db,
    ]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("smart_unreadable of")
            && err.contains("cannot be acknowledged")
            && err.contains("could not be judged"),
        "{err}"
    );

    // An acknowledgement in the database anyway (imported, or written by hand)
    // at the finding's exact reason and the drive's model: never applied.
    let c = rusqlite::Connection::open(&db_path).unwrap();
    let (findings, model): (String, Option<String>) = c
        .query_row(
            "SELECT dr.findings, d.model FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    let findings: serde_json::Value = serde_json::from_str(&findings).unwrap();
    let reason = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "smart_unreadable")
        .expect("a smart_unreadable finding")["reason"]
        .as_str()
        .unwrap()
        .to_string();
    c.execute(
        "INSERT INTO acks (serial, model, code, reason, who, at) VALUES (?1, ?2, 'smart_unreadable', ?3, 'mallory', 0)",
        rusqlite::params![serial, model, reason],
    )
    .unwrap();
    drop(c);
    let (code, out, _) = run(&["smart", &broken_path, "--history", &db]);
    assert_eq!(code, code0, "{out}");
    assert!(!out.contains("acknowledged by"), "{out}");
    assert!(out.contains("cannot be judged"), "{out}");
}
