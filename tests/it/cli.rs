//! The command line: diskinfo's rules, help and version.

use crate::helpers::{Finish, refused, run_file, seekprobe};
use predicates::prelude::*;

#[test]
fn help_has_examples_and_version_prints() {
    seekprobe().arg("--help").assert().success().stdout(
        predicate::str::contains("Examples:").and(predicate::str::contains("-t, --seek-transfer")),
    );
    seekprobe()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("seekprobe "));
}

#[test]
fn p_and_s_exclude_other_options() {
    for args in [
        &["-p", "-t", "x"][..],
        &["-s", "-v", "x"],
        &["-p", "-s", "x"],
    ] {
        seekprobe()
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(
                "-p or -s cannot be used with other options",
            ))
            .stderr(predicate::str::contains("usage: seekprobe"));
    }
}

#[test]
fn sync_write_and_write_options_require_w() {
    refused(
        &["-S", "x"],
        "-S writes to the disk: add -w to allow writing, or drop -S",
    );
    for (args, msg) in [
        (
            &["--force", "x"][..],
            // The list of write tests grows with the tests; its start is fixed.
            "--force applies to -S, --zones, --block-sweep",
        ),
        (
            &["--zones=4", "--preserve", "x"],
            "--preserve applies to -S",
        ),
        (
            &["--zones=4", "--yes", "x"],
            "--yes applies only with -w; add -w or drop --yes",
        ),
    ] {
        seekprobe()
            .args(args)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(msg));
    }
}

/// Options that each have what they need but clash name the clash (issue 20: the
/// burn-in case said that --preserve needs -w and -S, both given).
#[test]
fn options_that_clash_name_what_is_wrong() {
    for (args, msg) in [
        (
            &["-S", "-w", "--preserve", "--burn-in", "sim:hdd"][..],
            "seekprobe: --preserve cannot restore what --burn-in writes in its --zones and \
             --verify steps (it restores what -S and --capacity-check overwrite); drop \
             --preserve or --burn-in",
        ),
        (
            &[
                "-S",
                "-w",
                "--yes",
                "--preserve",
                "--block-sweep",
                "sim:hdd",
            ],
            "--preserve cannot restore what --block-sweep writes with -w (",
        ),
        (
            &[
                "--verify",
                "-w",
                "--yes",
                "--bad-blocks",
                "bb.txt",
                "sim:hdd",
                "sim:ssd",
            ],
            "--bad-blocks lists the blocks of one disk, and 2 are given: give one disk per \
             run, or drop --bad-blocks",
        ),
    ] {
        seekprobe()
            .args(args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(msg));
    }
}

#[test]
fn a_disk_is_required_and_unknown_options_fail() {
    seekprobe()
        .assert()
        .code(1)
        .stderr(predicate::str::contains("DISK"));
    refused(&["--bogus", "x"], "--bogus");
    seekprobe().args(["--settle", "-3", "x"]).assert().code(1);
}

#[test]
fn man_page_and_completions_are_generated_from_the_definitions() {
    seekprobe()
        .args(["generate", "man"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains(".TH seekprobe 1")
                .and(predicate::str::contains("seek\\-transfer")),
        );
    for (shell, needle) in [
        ("bash", "_seekprobe()"),
        ("zsh", "#compdef seekprobe"),
        ("fish", "complete -c seekprobe"),
    ] {
        seekprobe()
            .args(["generate", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains(needle));
    }
}

#[test]
fn option_values_are_checked_before_any_disk_is_touched() {
    for (args, msg) in [
        (
            &["-i", "--queue-depth", "4097", "x"][..],
            "--queue-depth 4097: expected 1 to 4096",
        ),
        (
            &["--zones=200000", "x"],
            "--zones 200000: expected 1 to 100000",
        ),
        // One case of the option rules, end to end (their table is the unit test
        // in src/config/rules.rs).
        (
            &["--slow-ms", "10", "x"],
            "--slow-ms applies to --scan or --verify; add one of them or drop --slow-ms",
        ),
        (
            &["--zones", "50", "sim:hdd"],
            "50: no such disk; to give --zones a number, write --zones=50",
        ),
        (
            &["--seek-profile", "--seek-samples", "4000000000", "x"],
            "--seek-samples 4000000000: expected 1 to 1000000",
        ),
        (
            &["--scan", "--block-size", "1G", "x"],
            "--block-size 1073741824: expected 512 bytes to 64M",
        ),
        (
            &["--scan", "--slow-ms", "0", "x"],
            "--slow-ms 0: expected a number of milliseconds",
        ),
        (
            &[
                "-t",
                "--qualify",
                "--baseline",
                "/nonexistent.json",
                "sim:hdd",
            ],
            "/nonexistent.json: no such file",
        ),
    ] {
        seekprobe()
            .args(args)
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::contains(msg));
    }
}

#[test]
fn p_and_s_accept_w_and_l_as_diskinfo_does() {
    // A simulated drive has an ident; -w is accepted (and writes nothing).
    seekprobe()
        .args(["-l", "-w", "-s", "sim:hdd"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("sim:hdd\t"));
    refused(
        &["compare", "--baseline", "b.json", "a.json"],
        "--baseline applies to --qualify; add --qualify or drop --baseline",
    );
}

/// -c prints diskinfo's arithmetic (`dt * 100 / 2048`) on every sector size: on a
/// 4Kn drive the figures are those diskinfo's formulas give for the timings the JSON
/// records; the JSON carries the sector-correct ones.
#[test]
fn c_prints_diskinfos_arithmetic_on_4096_byte_sectors() {
    let (_dir, json) = run_file("c.json");
    let out = seekprobe()
        .args(["-c", "--quiet", "--json-file"])
        .arg(&json)
        .arg("sim:hdd?sector=4096")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let test = &v["disks"][0]["tests"][0];
    let secs = |id: &str| {
        let phase = test["phases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["id"] == id)
            .unwrap();
        let ns: u64 = phase["latencies_ns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_u64().unwrap())
            .sum();
        ns as f64 / 1e9
    };
    let (mega, sector) = (secs("overhead_mega"), secs("overhead_sector"));
    let expected = format!(
        "I/O command overhead:\n\ttime to read 10MB block    {mega:10.6} sec\t= {:8.3} msec/sector\n\ttime to read 20480 sectors {sector:10.6} sec\t= {:8.3} msec/sector\n\tcalculated command overhead\t\t\t= {:8.3} msec/sector\n\n",
        mega * 100.0 / 2048.0,
        sector * 100.0 / 2048.0,
        (sector - mega) * 100.0 / 2048.0
    );
    assert!(text.ends_with(&expected), "{text}\nexpected:\n{expected}");
    // The JSON's sector-correct figures: 10 MiB is 2560 sectors of 4096 bytes.
    let c = &test["command_overhead"];
    assert_eq!(c["sector_bytes"], 4096);
    let mega_ms = mega * 1000.0 / 2560.0;
    let sector_ms = sector * 1000.0 / 20480.0;
    assert!((c["mega_ms_per_sector"].as_f64().unwrap() - mega_ms).abs() < 1e-9);
    assert!((c["overhead_ms"].as_f64().unwrap() - (sector_ms - mega_ms)).abs() < 1e-9);
    // On 4096-byte sectors the two differ: diskinfo's line subtracts the time per
    // 512 bytes of the 10 MB block, not per sector.
    assert!((sector - mega) * 100.0 / 2048.0 > c["overhead_ms"].as_f64().unwrap() + 0.01);
}

/// Issue 30, "the command line's own words".
#[test]
fn help_version_and_misspelled_subcommands_are_not_probed_as_disks() {
    seekprobe()
        .arg("help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Usage: seekprobe"));
    seekprobe()
        .args(["help", "compare"])
        .assert()
        .success()
        .stdout(predicate::str::contains("seekprobe compare"));
    seekprobe()
        .arg("version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("seekprobe "));
    for (typo, meant) in [
        ("rendr", "render"),
        ("comapre", "compare"),
        ("smrat", "smart"),
    ] {
        seekprobe()
            .args([typo, "run.json"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "seekprobe: {typo}: no such disk or subcommand; did you mean `seekprobe {meant}`?"
            )));
    }
}

#[test]
fn the_help_synopsis_and_the_error_usage_are_one_text() {
    let help = seekprobe().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let bad = seekprobe()
        .args(["--verify", "-w", "--max-temp", "50", "sim:hdd"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr).into_owned();
    assert_eq!(bad.status.code(), Some(1), "{err}");
    for sub in ["render", "compare", "report", "smart", "generate", "help"] {
        let line = format!("seekprobe {sub}");
        assert!(help.contains(&line), "{sub}: {help}");
        assert!(err.contains(&line), "{sub}: {err}");
    }
    // --max-temp without SMART to read the temperature: refused, saying what to add.
    assert!(
        err.contains("--max-temp needs the drive's temperature, read through SMART: add --smart"),
        "{err}"
    );
}

#[test]
fn smart_help_gives_the_exit_statuses_of_docs_verdict_md() {
    let out = seekprobe().args(["smart", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("Exit status: 0 healthy, 3 failing, 1 when a report cannot be read or judged (it holds no SMART data"),
        "{help}"
    );
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/verdict.md")).unwrap();
    assert!(
        doc.contains(
            "| `seekprobe smart FILE.json [AFTER.json]` | healthy | the report cannot be judged"
        ),
        "docs/verdict.md's row changed: update smart --help with it"
    );
}

#[test]
fn a_sim_fault_past_the_end_is_refused() {
    refused(
        &["sim:hdd?size=1G&bad=3000000-3000010"],
        "bad=3000000-3000010: past the end of the drive, whose sectors are 0-2097152",
    );
}

#[test]
fn an_output_into_a_missing_directory_names_the_directory_not_a_temporary_file() {
    let (dir, run) = run_file("run.json");
    seekprobe()
        .args(["-c", "-q", "--json-file"])
        .arg(&run)
        .arg("sim:ssd")
        .assert()
        .success();
    let missing = dir.path().join("no/such");
    for (args, file) in [
        (vec!["report", "-o"], "r.html"),
        (vec!["render", "--prometheus"], "m.prom"),
    ] {
        let (code, _, err) = seekprobe()
            .args(&args[..1])
            .arg(&run)
            .args(&args[1..])
            .arg(missing.join(file))
            .outcome();
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains(&format!(
                "the directory {} does not exist",
                missing.display()
            )),
            "{err}"
        );
        assert!(
            !err.contains(&format!("{}/.tmp", missing.display())),
            "{err}"
        );
    }
}

#[test]
fn the_man_page_keeps_examples_one_a_line_and_documents_the_subcommands() {
    let out = seekprobe().args(["generate", "man"]).output().unwrap();
    let man = String::from_utf8_lossy(&out.stdout);
    assert!(man.contains(".SH EXAMPLES\n.nf\n"), "{man}");
    assert!(man.contains(".SH \"EXIT STATUS\""), "{man}");
    assert!(!man.contains("docs/verdict.md"), "{man}");
    for sub in ["render", "compare", "report", "smart", "generate"] {
        assert!(
            man.contains(&format!(".SS \"seekprobe {sub}\"")),
            "{sub}: {man}"
        );
    }
}

#[test]
fn the_ci_s_allowed_ignored_tests_exist() {
    let root = env!("CARGO_MANIFEST_DIR");
    let ci = std::fs::read_to_string(format!("{root}/.ci/run")).unwrap();
    let start = ci.find("allowed_ignored=\"").unwrap() + "allowed_ignored=\"".len();
    let list = &ci[start..start + ci[start..].find('"').unwrap()];
    let sources: String = ["src", "tests"]
        .into_iter()
        .flat_map(crate::source_tree::rs_files)
        .map(|(_, text)| text)
        .collect();
    for name in list.lines() {
        let f = name.rsplit("::").next().unwrap();
        assert!(sources.contains(&format!("fn {f}(")), "{name} is no test");
    }
}
