//! `seekprobe report` and `--html`: the qualification report of a burn-in of
//! simulated drives (two healthy, one with bad sectors, one fake, one SMR; and a
//! burn-in stopped as Ctrl-C stops it: INCOMPLETE), checked as text and in headless
//! Chromium (Debian's chromium: the DOM, every SVG drawn,
//! no console message, a screenshot kept under target/report/).

mod chromium;
mod text;

pub(crate) use chromium::chromium;

use crate::helpers::chromium_tests;
use crate::helpers::temp_dir;
use crate::helpers::{run_file, seekprobe};
use regex::Regex;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The drives of the burn-in and the verdict each must get. Small: the simulated
/// drive keeps what is written (up to 512 MiB), and a debug build spends its CPU on
/// the stamps of the write-verify pass, per byte.
const DRIVES: [(&str, &str); 5] = [
    ("sim:hdd?size=64M", "PASS"),
    ("sim:hdd?size=64M&seed=2", "PASS"),
    ("sim:hdd?size=64M&bad=100-108", "FAIL"),
    ("sim:ssd?size=64M&fake=16M", "FAIL"),
    // Its SMR signs are warnings of its own.
    ("sim:smr?size=64M", "PASS with warnings"),
];

/// A burn-in run once for the tests of this file: its saved run and its text.
struct BurnIn {
    _dir: tempfile::TempDir,
    json: PathBuf,
    text: String,
}

/// A burn-in (`-w --yes --zones=20 -q`, then `args`) of `drives` saved to `NAME.json`
/// in a directory of its own, with `env` set; it must end with `code`.
fn run_burn_in(
    name: &str,
    args: &[&str],
    drives: &[&str],
    env: &[(&str, &str)],
    code: i32,
) -> BurnIn {
    let dir = temp_dir();
    let json = dir.path().join(format!("{name}.json"));
    let out = seekprobe()
        .args(["--burn-in", "-w", "--yes", "--zones=20", "-q"])
        .args(args)
        .arg("--json-file")
        .arg(&json)
        .args(drives)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    BurnIn {
        _dir: dir,
        json,
        text,
    }
}

fn burn_in() -> &'static BurnIn {
    static RUN: OnceLock<BurnIn> = OnceLock::new();
    RUN.get_or_init(|| {
        // Two drives fail the burn-in: exit status 3.
        let args = ["--operator", "Ada L.", "--ticket", "RMA-12"];
        run_burn_in("burn-in", &args, &DRIVES.map(|d| d.0), &[], 3)
    })
}

/// The drive of a second burn-in, stopped (as Ctrl-C stops it, by the burn-in's
/// test hook) after its seek and transfer test: INCOMPLETE, never PASS.
const STOPPED: &str = "sim:hdd?size=64M&seed=3";

/// That stopped burn-in, run once (exit status 130).
fn stopped() -> &'static BurnIn {
    static RUN: OnceLock<BurnIn> = OnceLock::new();
    RUN.get_or_init(|| {
        let stop = [("SEEKPROBE_BURN_IN_STOP_AFTER", "seek_transfer")];
        run_burn_in("stopped", &[], &[STOPPED], &stop, 130)
    })
}

/// `seekprobe report FILES... -o OUT`: its exit status and standard error.
fn report(files: &[&Path], out: &Path) -> (i32, String) {
    let o = seekprobe()
        .arg("report")
        .args(files)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Text as it stands in HTML (what maud escapes, and Chromium's DOM keeps).
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The reasons the burn-in's text gives ("    - why" under "verdict: FAIL").
fn text_reasons(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| l.strip_prefix("    - "))
        // The page shows a warning's or a note's severity in a cell of its own.
        .map(|r| {
            r.strip_prefix("warning: ")
                .or_else(|| r.strip_prefix("note: "))
                .unwrap_or(r)
        })
        .collect()
}

/// The batch table's rows: (device, verdict cell's whole text).
fn rows(html: &str) -> Vec<(String, String)> {
    let table = &html[html.find("<table class=\"batch\"").unwrap()..];
    let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    let cell = Regex::new(r#"<td class="verdict[^"]*">([^<]*)</td>"#).unwrap();
    let device = Regex::new(r##"<a href="#drive-\d+">([^<]*)</a>"##).unwrap();
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let d = &device.captures(row).expect(row)[1];
            let v = &cell.captures(row).expect(row)[1];
            (d.to_string(), v.to_string())
        })
        .collect()
}
