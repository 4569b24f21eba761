//! The page in headless Chromium (Debian's chromium): the DOM, every SVG drawn, no
//! console message, the keyboard, the printed pages; a screenshot kept under
//! target/report/.

use super::*;
use crate::helpers::temp_dir;

/// Run Debian's headless chromium on `page` with `args`; its standard output
/// and error. One Chromium at a time in the whole suite (a lock file in the target
/// directory, so that it holds across the test processes of `cargo nextest` as
/// across the threads of `cargo test`), a fresh profile each time. No deadline
/// guessed from the machine's speed: it runs until it ends (the page loaded and
/// printed), and is given up only when its processes used no CPU for a minute
/// (hung), or after [`crate::helpers::PATIENCE`], saying what it had printed.
pub(crate) fn chromium(page: &Path, args: &[&str]) -> (String, String) {
    let lock = std::fs::File::create(Path::new(env!("CARGO_TARGET_TMPDIR")).join("chromium.lock"))
        .unwrap();
    lock.lock().unwrap();
    let profile = temp_dir();
    let dir = temp_dir();
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
