//! The command line as a new user meets it (issue 41): option values refused up
//! front with both ends of their range, one parser for every duration and every
//! size, `help` of no subcommand, `--history` written anywhere, and the drive
//! history's edges (a run imported once whichever form it came in, an acknowledged
//! drive no reference, reading that creates nothing, compare reading only a named
//! file).

use crate::helpers::temp_dir;
use crate::helpers::{run, run_file};
use seekprobe::config::Config;
use std::path::Path;

const HDD: &str = "sim:hdd?seed=";

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The runs a history database holds.
fn runs_in(db: &Path) -> i64 {
    let c = rusqlite::Connection::open(db).unwrap();
    c.query_row("SELECT COUNT(*) FROM runs", [], |r| r.get(0))
        .unwrap()
}

/// The serials of the drives `db` holds, as its `drives` table has them.
fn serials(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open(db).unwrap();
    let mut st = c
        .prepare("SELECT serial FROM drives WHERE serial IS NOT NULL ORDER BY id")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `-t --qualify` of `disks` recorded in `db`, with these extra arguments.
fn qualify(db: &Path, extra: &[&str], disks: &[String]) -> (i32, String, String) {
    let mut args: Vec<String> = vec!["-t".into(), "--qualify".into(), "--history".into(), s(db)];
    args.extend(extra.iter().map(|a| a.to_string()));
    args.extend(disks.iter().cloned());
    run(&args)
}

#[test]
fn values_that_a_drive_would_round_or_that_do_nothing_are_refused_up_front() {
    for (args, msg) in [
        (
            &["--scan", "--block-size", "1000", "sim:hdd"][..],
            "--block-size 1000: not a multiple of the 512-byte sector; the nearest allowed are 512 and 1024",
        ),
        (
            &["--scan", "--start", "1000", "sim:hdd"],
            "--start 1000: not a multiple of the 512-byte sector; the nearest allowed are 512 and 1024",
        ),
        (
            &["--scan", "--end", "1M", "--start", "4097", "sim:hdd"],
            "--start 4097: not a multiple of the 512-byte sector; the nearest allowed are 4096 and 4608",
        ),
        (
            &["--block-size", "3", "--scan", "--qualify", "sim:hdd"],
            "--block-size 3: expected 512 bytes to 64M",
        ),
        (
            &["--verify", "-w", "--yes", "--passes", "0", "sim:hdd"],
            "--passes 0: expected 1 to 1000",
        ),
        (
            &["-t", "--io-timeout", "0", "sim:hdd"],
            "--io-timeout 0: expected a number of seconds from 0.1 to 3600",
        ),
        (
            &["-i", "--duration", "2h", "sim:ssd"],
            "--duration 7200: expected a number of seconds from 0.001 to 3600",
        ),
        (
            &["--burn-in", "-w", "--yes", "--max-temp=-5", "sim:hdd"],
            "--max-temp -5: expected 20 to 100",
        ),
        (
            &["--seek-profile", "--seek-samples", "0", "sim:hdd"],
            "--seek-samples 0: expected 1 to 1000000",
        ),
        (
            &["-t", "--status-interval", "0.5s", "sim:hdd"],
            "expected a time from 1s to 24h",
        ),
        (&["help", "bogus"], "help bogus: no such subcommand"),
        (
            &["history", "import", "--format", "json", "x.json"],
            "unexpected argument '--format'",
        ),
        (
            &["history", "--format", "json", "import", "x.json"],
            "history import: --format applies to the listing",
        ),
        (
            &["history", "SERIAL", "ack", "SERIAL", "smart"],
            "give a SERIAL (its runs) or an action",
        ),
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 1, "{args:?}: {out}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(!err.contains("verdict"), "{args:?} judged a drive: {err}");
    }
}

#[test]
fn every_duration_takes_one_form_and_every_size_another() {
    let cfg = |args: &[&str]| {
        let mut v = vec!["seekprobe"];
        v.extend_from_slice(args);
        Config::from_command_line(v).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    // A time: seconds, or with ms, s, m or h, for every option that takes one.
    let c = cfg(&["-i", "--duration", "1h", "sim:ssd"]);
    assert_eq!(c.options.duration.as_secs(), 3600);
    let c = cfg(&["-i", "--duration", "500ms", "sim:ssd"]);
    assert_eq!(c.options.duration.as_millis(), 500);
    let c = cfg(&["-t", "--status-interval", "1h", "sim:hdd"]);
    assert_eq!(c.status_interval.as_secs(), 3600);
    let c = cfg(&["-t", "--settle", "1m", "sim:hdd"]);
    assert_eq!(c.options.settle.as_secs(), 60);
    let c = cfg(&["-t", "--io-timeout", "2m", "sim:hdd"]);
    assert_eq!(c.beyond.io_timeout.as_secs(), 120);
    let c = cfg(&["--scan", "--slow-ms", "0.2s", "sim:hdd"]);
    assert_eq!(c.options.slow_ms, 200.0);
    let c = cfg(&["--scan", "--slow-ms", "50", "sim:hdd"]);
    assert_eq!(c.options.slow_ms, 50.0);
    // A size: bytes, or with K, M, G, T; --bad-blocks-size too.
    let c = cfg(&["--scan", "--block-size", "4K", "--start", "1M", "sim:hdd"]);
    assert_eq!(c.options.block_size.bytes(), 4096);
    let c = cfg(&[
        "--verify",
        "-w",
        "--bad-blocks",
        "b.txt",
        "--bad-blocks-size",
        "1K",
        "sim:hdd",
    ]);
    assert_eq!(c.beyond.bad_blocks_size, 1024);
    // The units the output prints (issue 56: `--end 16MiB` was refused), and the
    // SI forms, powers of 1000.
    let c = cfg(&["--scan", "--end", "16MiB", "sim:hdd"]);
    assert_eq!(c.options.scan_span.end(), Some(16 << 20));
    let c = cfg(&["--scan", "--end", "16MB", "sim:hdd"]);
    assert_eq!(c.options.scan_span.end(), Some(16_000_000));
    let c = cfg(&["--burn-in", "-w", "--max-temp", "55", "sim:hdd"]);
    assert_eq!(c.smart.max_temp, Some(55));
}

#[test]
fn a_run_is_imported_once_whichever_form_it_came_in() {
    let dir = temp_dir();
    let (h, json, imp, imp2) = (
        dir.path().join("h.db"),
        dir.path().join("run.json"),
        dir.path().join("imp.db"),
        dir.path().join("imp2.db"),
    );
    let (code, out, err) = run(&[
        "-t",
        "--json-file",
        &s(&json),
        "--history",
        &s(&h),
        "sim:hdd",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    // The run as it was recorded, and as it was saved: one run, in either order.
    for (files, into, second) in [
        (
            [&json, &h],
            &imp,
            "h.db: 0 run(s) imported, 1 already there",
        ),
        (
            [&h, &json],
            &imp2,
            "run.json: 0 run(s) imported, 1 already there",
        ),
    ] {
        let (code, out, err) = run(&[
            "history",
            "import",
            &s(files[0]),
            &s(files[1]),
            "--history",
            &s(into),
        ]);
        assert_eq!(code, 0, "{err}");
        assert!(
            out.contains(": 1 run(s) imported, 0 already there"),
            "{out}"
        );
        assert!(out.contains(second), "{out}");
        assert_eq!(runs_in(into), 1);
    }
}

#[test]
fn history_is_written_anywhere_on_the_command_line() {
    let (_dir, db) = run_file("h.db");
    let (code, _, err) = qualify(&db, &[], &[format!("{HDD}1")]);
    assert_eq!(code, 0, "{err}");
    let db = s(&db);
    // ack of a code the drive's last run lacks: the same answer wherever --history is.
    let before = run(&["history", "--history", &db, "ack", "NOSUCH", "smart"]);
    let after = run(&["history", "ack", "NOSUCH", "smart", "--history", &db]);
    assert_eq!(before.0, 1, "{}", before.2);
    assert!(
        before.2.contains("no drive with serial NOSUCH"),
        "{}",
        before.2
    );
    assert_eq!(before, after);
    let (code, out, err) = run(&["history", "--history", &db, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.trim_start().starts_with('['), "{out}");
    let (code, _, err) = run(&["history", "import", "--history", &db, "/nonexistent.json"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent.json"), "{err}");
}

#[test]
fn an_acknowledged_drive_passes_but_is_never_a_reference() {
    let (_dir, db) = run_file("h.db");
    let three: Vec<String> = (1..=3).map(|n| format!("{HDD}{n}")).collect();
    let (code, out, err) = qualify(&db, &[], &three);
    assert_eq!(code, 0, "{out}{err}");
    let earlier = serials(&db);
    // A drive far slower on its outer zone fails against the three.
    let slow = format!("{HDD}4&slow=0-409600:5");
    let (code, out, err) = qualify(&db, &[], std::slice::from_ref(&slow));
    assert_eq!(code, 3, "{out}{err}");
    let serial = serials(&db)
        .into_iter()
        .find(|x| !earlier.contains(x))
        .expect("the slow drive is recorded");
    let (code, out2, err) = run(&[
        "history",
        "ack",
        &serial,
        "worse_than_reference",
        "--history",
        &s(&db),
    ]);
    assert_eq!(code, 0, "{out2}{err}");
    // Acknowledged: the drive passes...
    let (code, out, err) = qualify(&db, &[], std::slice::from_ref(&slow));
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("acknowledged by"), "{out}");
    // ...and is stored as no reference: a later lone drive is judged against the
    // three, not four.
    let c = rusqlite::Connection::open(&db).unwrap();
    let qualified: Vec<i64> = c
        .prepare(
            "SELECT dr.qualified FROM drive_runs dr JOIN drives d ON d.id = dr.drive_id
             WHERE d.serial = ?1 ORDER BY dr.id",
        )
        .unwrap()
        .query_map([&serial], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(qualified, [0, 0], "{serial}");
    let (code, out, err) = qualify(&db, &[], &[format!("{HDD}5")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("judged against 3 earlier drives of this model"),
        "{out}"
    );
    assert!(
        !out.contains(&serial),
        "{serial} served as a reference: {out}"
    );
}

#[test]
fn reading_the_history_creates_nothing_and_a_failed_import_leaves_nothing() {
    let (dir, db) = run_file("none.db");
    let (code, out, err) = run(&["history", "--history", &s(&db)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 drive(s)"), "{out}");
    for args in [
        vec!["history", "SERIAL"],
        vec!["history", "ack", "SERIAL", "smart"],
        vec!["history", "unack", "SERIAL", "smart"],
    ] {
        let mut args: Vec<String> = args.into_iter().map(String::from).collect();
        args.extend(["--history".to_string(), s(&db)]);
        let (code, _, err) = run(&args);
        assert_eq!(code, 1, "{args:?}");
        assert!(err.contains("nothing is recorded there yet"), "{err}");
    }
    assert!(!db.exists());
    // A saved run that cannot be read: nothing imported, no file left.
    let good = dir.path().join("good.json");
    let (code, _, err) = run(&["-t", "--json-file", &s(&good), "sim:hdd"]);
    assert_eq!(code, 0, "{err}");
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{ not a run").unwrap();
    let (code, _, err) = run(&[
        "history",
        "import",
        &s(&good),
        &s(&bad),
        "--history",
        &s(&db),
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("bad.json") && err.contains("nothing imported"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("none.db"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // compare and report read a named file, and create none.
    let (code, _, err) = run(&["compare", &s(&good), "--history", &s(&db)]);
    assert_eq!(code, 0, "{err}");
    let html = dir.path().join("r.html");
    let (code, _, err) = run(&["report", &s(&good), "-o", &s(&html), "--history", &s(&db)]);
    assert_eq!(code, 0, "{err}");
    assert!(!db.exists());
    // The default file (root's) is not made by a listing either.
    let default = Path::new("/var/lib/seekprobe/history.db");
    if nix::unistd::geteuid().is_root() && !default.exists() {
        let (code, _, err) = run(&["history"]);
        assert_eq!(code, 0, "{err}");
        assert!(!default.exists(), "a listing created {}", default.display());
    }
}

#[test]
fn compare_judges_with_the_history_only_when_it_is_named_and_records_nothing() {
    let (dir, db) = run_file("h.db");
    let three: Vec<String> = (1..=3).map(|n| format!("{HDD}{n}")).collect();
    let (code, out, err) = qualify(&db, &[], &three);
    assert_eq!(code, 0, "{out}{err}");
    let lone = dir.path().join("lone.json");
    let (code, _, err) = run(&[
        "-t",
        "--json-file",
        &s(&lone),
        "--no-history",
        &format!("{HDD}7"),
    ]);
    assert_eq!(code, 0, "{err}");
    let before = runs_in(&db);
    let (code, out, err) = run(&["compare", "--qualify", &s(&lone)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("timings not judged"), "{out}");
    let (code, out, err) = run(&["compare", "--qualify", "--history", &s(&db), &s(&lone)]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("judged against 3 earlier drives of this model"),
        "{out}"
    );
    assert_eq!(runs_in(&db), before, "compare recorded a run");
}
