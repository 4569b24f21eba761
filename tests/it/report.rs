//! `seekprobe report` and `--html`: the qualification report of a burn-in of
//! simulated drives (two healthy, one with bad sectors, one fake, one SMR; and a
//! burn-in stopped as Ctrl-C stops it: INCOMPLETE), checked as text and in headless
//! Chromium (Debian's chromium: the DOM, every SVG drawn,
//! no console message, a screenshot kept under target/report/).

use crate::helpers::chromium_tests;
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
    let dir = tempfile::tempdir().unwrap();
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
    let dir = tempfile::tempdir().unwrap();
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
    let dir = tempfile::tempdir().unwrap();
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

/// Run Debian's headless chromium on `page` with `args`; its standard output
/// and error. One Chromium at a time in the whole suite (a lock file in the target
/// directory, so that it holds across the test processes of `cargo nextest` as
/// across the threads of `cargo test`), a fresh profile each time. No deadline
/// guessed from the machine's speed: it runs until it ends (the page loaded and
/// printed), and is given up only when its processes used no CPU for a minute
/// (hung), or after [`crate::helpers::PATIENCE`], saying what it had printed.
pub fn chromium(page: &Path, args: &[&str]) -> (String, String) {
    let lock = std::fs::File::create(Path::new(env!("CARGO_TARGET_TMPDIR")).join("chromium.lock"))
        .unwrap();
    lock.lock().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut child = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(["--enable-logging=stderr", "--v=0"])
        .args(args)
        .arg(format!("file://{}", page.display()))
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .expect("chromium runs");
    let group = child.id() as i32;
    let _group = KillGroup(group);
    let (mut cpu, mut busy_at) = (cpu_ticks(group), Instant::now());
    let ended = crate::helpers::wait_for(
        "chromium to end",
        Duration::from_millis(50),
        || child.try_wait().unwrap(),
        || {
            let now = cpu_ticks(group);
            if now != cpu {
                (cpu, busy_at) = (now, Instant::now());
            }
            let idle = busy_at.elapsed();
            (idle > Duration::from_secs(60)).then(|| format!("no CPU used for {idle:?}"))
        },
        || {
            let text = std::fs::read_to_string(&err).unwrap_or_default();
            format!("{} on {}: {text}", args.join(" "), page.display())
        },
    );
    eprintln!("chromium {}: {ended}", args.join(" "));
    (
        std::fs::read_to_string(out).unwrap(),
        std::fs::read_to_string(err).unwrap(),
    )
}

/// Chromium's process group, killed when the wait ends (its helpers, the
/// renderer and the GPU process, left by a Chromium given up or ended).
struct KillGroup(i32);

impl Drop for KillGroup {
    fn drop(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// The CPU time (clock ticks) the processes of `group` used so far, the reaped
/// children of each included: it grows while Chromium works, however slowly a
/// busy machine lets it.
fn cpu_ticks(group: i32) -> u64 {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return 0;
    };
    procs
        .flatten()
        .filter_map(|p| std::fs::read_to_string(p.path().join("stat")).ok())
        .filter_map(|stat| {
            // After the command's ")": state, ppid, pgrp, ... utime is the 14th
            // field, stime, cutime and cstime the next three.
            let f: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            (f.get(2)?.parse::<i32>().ok()? == group).then(|| {
                f[11..15]
                    .iter()
                    .filter_map(|n| n.parse::<u64>().ok())
                    .sum::<u64>()
            })
        })
        .sum()
}

/// A script that measures each SVG as Chromium drew it, appended to a copy of
/// the page only (the page itself needs no script to be read).
const MEASURE: &str = r#"<script>
var m=[];document.querySelectorAll("svg").forEach(function(s,i){var r=s.getBoundingClientRect(),b=s.getBBox();
m.push([i,Math.round(r.width),Math.round(r.height),Math.round(b.width),Math.round(b.height),s.querySelectorAll("*").length].join(" "));});
var p=document.createElement("pre");p.id="svg-check";p.textContent=m.join("\n");document.body.appendChild(p);
</script>"#;

chromium_tests! {
    fn chromium_renders_the_report_of_a_burn_in() {
        let b = burn_in();
        let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/report");
        std::fs::create_dir_all(&shots).unwrap();
        let page = shots.join("report.html");
        assert_eq!(report(&[&b.json], &page).0, 0);
        let html = std::fs::read_to_string(&page).unwrap();
        let (dom, log) = chromium(&page, &["--dump-dom"]);
        // A row per drive, each verdict cell its state's words as its whole text.
        let got = rows(&dom);
        assert_eq!(got.len(), DRIVES.len(), "{dom}");
        for (name, verdict) in DRIVES {
            assert!(
                got.contains(&(escaped(name), verdict.to_string())),
                "{name}: {got:?}"
            );
        }
        // The zone curves overlaid, a chart per model: a legend entry per drive
        // with a curve (the one with bad sectors has none: its zone test failed).
        let keys: usize = dom
            .match_indices("<h3>Zone curves")
            .map(|(at, _)| {
                let legend = &dom[at..];
                let legend = &legend[..legend.find("</div>").unwrap()];
                legend.matches("<span class=\"key\" style=").count()
            })
            .sum();
        assert_eq!(keys, 4, "{dom}");
        // Three models: three zone charts (an SSD does not squeeze the disks').
        assert_eq!(dom.matches("<h3>Zone curves").count(), 3);
        the_record_is_on_the_page(&dom, &[&b.json]);
        let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE")).collect();
        assert!(console.is_empty(), "console messages: {console:?}");
        assert!(!dom.contains("http:") && !dom.contains("https:"));
        // Every SVG drawn: a size on the page and content with a size.
        let svgs = html.matches("<svg").count();
        assert!(svgs >= 5, "{svgs} charts");
        let probe = shots.join("report-measured.html");
        std::fs::write(
            &probe,
            html.replace("</body>", &format!("{MEASURE}</body>")),
        )
        .unwrap();
        let (dom, _) = chromium(&probe, &["--dump-dom"]);
        let open = "<pre id=\"svg-check\">";
        let at = dom.find(open).expect("the measuring script ran") + open.len();
        let measured: Vec<Vec<u64>> = dom[at..at + dom[at..].find("</pre>").unwrap()]
            .lines()
            .map(|l| l.split(' ').map(|n| n.parse().unwrap()).collect())
            .collect();
        assert_eq!(measured.len(), svgs, "{measured:?}");
        for m in &measured {
            assert!(m[1..].iter().all(|&n| n > 0), "an SVG not drawn: {m:?}");
        }
        // Screenshots for a person to look at: a desktop and a phone.
        for (name, size) in [
            ("report.png", "1100,2600"),
            ("report-phone.png", "390,1600"),
        ] {
            let shot = shots.join(name);
            let _ = std::fs::remove_file(&shot);
            chromium(
                &page,
                &[
                    &format!("--window-size={size}"),
                    &format!("--screenshot={}", shot.display()),
                ],
            );
            assert!(std::fs::metadata(&shot).unwrap().len() > 10_000, "{name}");
        }
    }
}

/// The record, read from the DOM: this machine's host name, the command line,
/// the operator's fields, each burn-in step's duration, and the SHA-256 of the
/// saved run in the footer.
fn the_record_is_on_the_page(dom: &str, jsons: &[&Path]) {
    let host = nix::unistd::gethostname().unwrap();
    let host = host.to_string_lossy();
    assert!(
        dom.contains(&format!("<td class=\"host\">{}</td>", escaped(&host))),
        "{host}: {dom}"
    );
    let command = Regex::new(r#"<code class="command">([^<]*)</code>"#).unwrap();
    let command = &command.captures(dom).expect("a command line")[1];
    assert!(
        command.contains("--burn-in -w --yes --zones=20"),
        "{command}"
    );
    assert!(
        command.contains("--operator 'Ada L.' --ticket RMA-12"),
        "{command}"
    );
    assert!(dom.contains("<td class=\"operator\">Ada L.</td>"));
    assert!(dom.contains("<td class=\"ticket\">RMA-12</td>"));
    assert!(!dom.contains("do not record the steps"));
    // Every step of every drive has its duration, in seconds, minutes or hours.
    let steps: usize = jsons
        .iter()
        .map(|json| {
            let saved: Value =
                serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
            saved["disks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["burn_in"].as_array().unwrap().len())
                .sum::<usize>()
        })
        .sum();
    let duration =
        Regex::new(r#"<td class="num duration">(\d+\.\d s|\d+ min \d+ s|\d+ h \d+ min)</td>"#)
            .unwrap();
    assert_eq!(duration.find_iter(dom).count(), steps, "{dom}");
    assert!(steps >= 5 * 6, "{steps} steps");
    // The footer's SHA-256 is each file's, as sha256sum prints it.
    for json in jsons {
        let out = Command::new("sha256sum").arg(json).output().unwrap();
        let out = String::from_utf8(out.stdout).unwrap();
        let sha = out.split_whitespace().next().unwrap();
        assert_eq!(sha.len(), 64, "{out}");
        assert!(dom.contains(&format!("<code>{sha}</code>")), "{sha}");
    }
}

/// A script that focuses each sort button as the Tab key would and says whether
/// it took the focus, appended to a copy of the page.
const FOCUS: &str = r#"<script>
var f=[];document.querySelectorAll("th[aria-sort] > button").forEach(function(b){b.focus();
f.push([b.textContent,document.activeElement===b,b.tabIndex,b.parentNode.getAttribute("aria-sort")].join(" "));});
var p=document.createElement("pre");p.id="focus-check";p.textContent=f.join("\n");document.body.appendChild(p);
</script>"#;

chromium_tests! {
    fn the_sort_headers_are_buttons_the_keyboard_reaches() {
        let b = burn_in();
        let (dir, page) = run_file("report.html");
        assert_eq!(report(&[&b.json], &page).0, 0);
        let html = std::fs::read_to_string(&page).unwrap();
        let probe = dir.path().join("focus.html");
        std::fs::write(&probe, html.replace("</body>", &format!("{FOCUS}</body>"))).unwrap();
        let (dom, _) = chromium(&probe, &["--dump-dom"]);
        let open = "<pre id=\"focus-check\">";
        let at = dom.find(open).expect("the focusing script ran") + open.len();
        let got: Vec<&str> = dom[at..at + dom[at..].find("</pre>").unwrap()]
            .lines()
            .collect();
        assert_eq!(
            got,
            [
                "host true 0 none",
                "device true 0 none",
                "model true 0 none",
                "serial true 0 none",
                "capacity true 0 none",
                "verdict true 0 none"
            ]
        );
    }
}

/// The pages of a PDF, as poppler's pdfinfo counts them.
fn pdf_pages(pdf: &Path) -> usize {
    let out = Command::new("pdfinfo")
        .arg(pdf)
        .output()
        .expect("pdfinfo runs (Debian's poppler-utils; .ci/run installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    let pages = text.lines().find_map(|l| l.strip_prefix("Pages:"));
    pages.expect(&text).trim().parse().unwrap()
}

chromium_tests! {
    fn a_printed_burn_in_takes_a_page_a_drive_plus_one() {
        let b = burn_in();
        let (dir, page) = run_file("report.html");
        assert_eq!(report(&[&b.json], &page).0, 0);
        let html = std::fs::read_to_string(&page).unwrap();
        for paper in ["A4", "letter"] {
            let sized = dir.path().join(format!("report-{paper}.html"));
            let css = format!("<style>@page{{size:{paper}}}</style></head>");
            std::fs::write(&sized, html.replacen("</head>", &css, 1)).unwrap();
            let pdf = dir.path().join(format!("report-{paper}.pdf"));
            chromium(
                &sized,
                &[
                    "--no-pdf-header-footer",
                    &format!("--print-to-pdf={}", pdf.display()),
                ],
            );
            let pages = pdf_pages(&pdf);
            eprintln!("{paper}: {pages} pages");
            assert!(
                pages <= DRIVES.len() + 1,
                "{pages} {paper} pages for {} drives",
                DRIVES.len()
            );
        }
    }

    fn chromium_shows_the_four_states_of_a_burn_in_and_its_record() {
        let (b, stopped) = (burn_in(), &stopped().json);
        let (dir, page) = run_file("report.html");
        assert_eq!(report(&[&b.json, stopped], &page).0, 0);
        let html = std::fs::read_to_string(&page).unwrap();
        let drives = DRIVES.len() + 1;
        let (dom, _) = chromium(&page, &["--dump-dom"]);
        // Each drive's state in words, as its batch cell's whole text: the stopped
        // drive INCOMPLETE, one with only warnings PASS with warnings.
        let got = rows(&dom);
        assert_eq!(got.len(), drives, "{got:?}");
        for (name, state) in DRIVES.iter().chain([&(STOPPED, "INCOMPLETE")]) {
            assert!(
                got.contains(&(escaped(name), state.to_string())),
                "{name}: {got:?}"
            );
        }
        let warned = got
            .iter()
            .find(|r| r.1 == "PASS with warnings")
            .expect("a drive with warnings");
        // Its row gives its first warning; the stopped drive's says why.
        let row = |name: &str| {
            let at = dom.find(&format!(">{name}</a>")).unwrap();
            dom[at..at + dom[at..].find("</tr>").unwrap()].to_string()
        };
        assert!(row(&warned.0).contains("<div>"), "{}", row(&warned.0));
        assert!(
            row(&escaped(STOPPED)).contains("stopped before its end"),
            "{}",
            row(&escaped(STOPPED))
        );
        // Failing drives first, then the incomplete one, then the passes.
        let order: Vec<&str> = got.iter().map(|r| r.1.as_str()).collect();
        assert_eq!(&order[..3], ["FAIL", "FAIL", "INCOMPLETE"], "{order:?}");
        assert!(
            dom.contains("1 INCOMPLETE") && dom.contains("2 FAIL"),
            "counts"
        );
        // The machine's host name, the command lines, each step's duration.
        the_record_is_on_the_page(&dom, &[&b.json, stopped]);
        // Sort buttons the keyboard reaches (focus: the_sort_headers_are_buttons...).
        assert_eq!(
            dom.matches("<button class=\"sort\" type=\"button\">")
                .count(),
            6
        );
        // At most 35 KB a drive, a printed page a drive plus one.
        let per_drive = html.len() / drives;
        assert!(per_drive <= 35_000, "{per_drive} bytes a drive");
        let pdf = dir.path().join("report.pdf");
        chromium(
            &page,
            &[
                "--no-pdf-header-footer",
                &format!("--print-to-pdf={}", pdf.display()),
            ],
        );
        let pages = pdf_pages(&pdf);
        assert!(pages <= drives + 1, "{pages} pages for {drives} drives");
        eprintln!(
            "{drives} drives: {} bytes, {per_drive} a drive, {pages} pages",
            html.len()
        );
    }
}
