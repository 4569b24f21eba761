//! The command line: diskinfo's rules, help and version.

use crate::helpers::seekprobe;
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
    seekprobe()
        .args(["-S", "x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("-S require also -w"));
    for opt in ["--force", "--preserve"] {
        seekprobe()
            .args([opt, "x"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("needs -w"));
    }
}

#[test]
fn a_disk_is_required_and_unknown_options_fail() {
    seekprobe()
        .assert()
        .code(1)
        .stderr(predicate::str::contains("DISK"));
    seekprobe()
        .args(["--bogus", "x"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--bogus"));
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
            &["-Sw", "--parallel", "x", "y"][..],
            "--parallel with a write test needs --yes",
        ),
        (
            &["-i", "--queue-depth", "4097", "x"],
            "--queue-depth 4097: expected 1 to 4096",
        ),
        (&["--zones=200000", "x"], "--zones: at most 100000"),
        (
            &["--slow-ms", "10", "x"],
            "--slow-ms applies only to --scan",
        ),
        (
            &["-t", "--queue-depth", "8", "x"],
            "--queue-depth applies only to -i or --block-sweep",
        ),
        (
            &["--write-duration", "2", "-i", "x"],
            "--write-duration applies only to -S",
        ),
        (
            &["--seek-profile", "--seek-samples", "4000000000", "x"],
            "--seek-samples: at most 1000000",
        ),
        (
            &["-t", "--plot", "x.svg", "x"],
            "--plot draws the results of --zones",
        ),
        (
            &["--scan", "--block-size", "1G", "x"],
            "--block-size 1073741824: at most 64M",
        ),
        (
            &["--scan", "--slow-ms", "0", "x"],
            "--slow-ms 0: expected a number of milliseconds",
        ),
        (
            &["--zones=2", "-w", "--parallel", "x", "y"],
            "--parallel with a write test needs --yes",
        ),
        (
            &["-t", "--baseline", "/nonexistent.json", "sim:hdd"],
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
