//! The terminal as a person sees it: seekprobe run in a real terminal (tmux, on
//! a private socket per test), its screen read with `capture-pane`, answered with
//! `send-keys`, at 80 and 200 columns: the question before writing, whole and
//! alone on the screen, and the live view of a parallel burn-in, every drive's
//! line kept and fitted to the width. Image files and simulated drives: no root.

use crate::helpers::temp_dir;
use crate::helpers::{runs_dir, seekprobe_command};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a test waits for what it expects on the screen before it gives up
/// (and prints the screen): generous, the machine is shared.
const GIVE_UP: Duration = Duration::from_secs(240);

/// A tmux server of its own running one command in a terminal of a given size;
/// killed on drop, also when the test fails.
struct Screen {
    socket: String,
}

impl Screen {
    /// Run `command` (a shell command line) in `dir` in a new `cols`×`rows`
    /// terminal; after it ends, the pane shows `EXIT=<status>` and stays.
    fn start(cols: u16, rows: u16, dir: &Path, command: &str) -> Screen {
        static N: AtomicUsize = AtomicUsize::new(0);
        let socket = format!(
            "seekprobe-test-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        );
        let screen = Screen { socket };
        let line = format!("{command}; echo EXIT=$?; sleep 3600");
        let ok = screen
            .tmux()
            .args(["new-session", "-d", "-x", &cols.to_string()])
            .args(["-y", &rows.to_string(), "-c"])
            .arg(dir)
            .arg(line)
            .status()
            .expect("tmux runs")
            .success();
        assert!(ok, "tmux could not start a session");
        screen
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        // The server this starts runs the session's command in its environment.
        c.args(["-L", &self.socket, "-f", "/dev/null"])
            .env("SEEKPROBE_RUNS_DIR", runs_dir());
        c
    }

    /// What the terminal shows now, a row a line (the visible screen).
    fn shown(&self) -> String {
        let out = self.tmux().args(["capture-pane", "-p"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Everything written so far, wrapped rows joined into their lines.
    fn written(&self) -> String {
        let out = (self.tmux())
            .args(["capture-pane", "-p", "-J", "-S", "-"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Everything written so far, a row a line (as the screen showed it).
    fn history(&self) -> String {
        let out = (self.tmux())
            .args(["capture-pane", "-p", "-S", "-"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen once `seen` says it shows what is awaited; the test fails with
    /// the screen when it does not within [`GIVE_UP`].
    fn wait_for(&self, what: &str, seen: impl Fn(&str) -> bool) -> String {
        let t0 = Instant::now();
        loop {
            let text = self.shown();
            if seen(&text) {
                return text;
            }
            if t0.elapsed() > GIVE_UP {
                panic!(
                    "gave up waiting for {what}; the screen showed:\n{text}\n(all of it: {})",
                    self.written()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The exit status the command ended with.
    fn exit_status(&self) -> i32 {
        let text = self.wait_for("the command's end", |t| t.contains("EXIT="));
        let at = text.find("EXIT=").unwrap() + 5;
        let digits: String = text[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    }

    /// Press Ctrl-C.
    fn ctrl_c(&self) {
        let ok = (self.tmux())
            .args(["send-keys", "-t", "0", "C-c"])
            .status()
            .unwrap()
            .success();
        assert!(ok, "tmux send-keys failed");
    }

    /// Type `text` and Enter.
    fn answer(&self, text: &str) {
        let ok = (self.tmux())
            .args(["send-keys", "-t", "0", "-l", text])
            .status()
            .unwrap()
            .success();
        let enter = (self.tmux())
            .args(["send-keys", "-t", "0", "Enter"])
            .status()
            .unwrap()
            .success();
        assert!(ok && enter, "tmux send-keys failed");
    }
}

impl Drop for Screen {
    /// The server killed, and its socket file removed (tmux leaves it).
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
        let dir = std::env::var("TMUX_TMPDIR").unwrap_or_else(|_| "/tmp".into());
        let uid = nix::unistd::getuid();
        let _ = std::fs::remove_file(Path::new(&dir).join(format!("tmux-{uid}/{}", self.socket)));
    }
}

fn binary() -> String {
    assert_cmd::cargo::cargo_bin("seekprobe")
        .display()
        .to_string()
}

/// Two blank image files of 64 MiB in `dir`, a.img and b.img; with `signed`,
/// b.img carries an MBR's boot signature (55 AA at byte 510), which only
/// --force writes over.
fn images(dir: &Path, signed: bool) {
    for name in ["a.img", "b.img"] {
        let f = std::fs::File::create(dir.join(name)).unwrap();
        f.set_len(64 << 20).unwrap();
    }
    if !signed {
        return;
    }
    use std::os::unix::fs::FileExt;
    let b = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join("b.img"))
        .unwrap();
    b.write_all_at(&[0x55, 0xAA], 510).unwrap();
}

/// `text` with every run of white space one space: the words a person reads,
/// wherever the lines were broken.
fn words(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rows of a screen that hold something.
fn rows(screen: &str) -> Vec<&str> {
    screen.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// A spinner frame of the live view (indicatif's braille dots).
fn spinner(l: &str) -> bool {
    l.chars().any(|c| ('\u{2800}'..='\u{28ff}').contains(&c))
}

/// The question at `cols` columns; with `run`, "yes" and the tests run to their
/// end (once is enough: what "yes" starts does not depend on the width, and the
/// -S of two images on disk is most of the test's time), else "no".
fn the_question_is_whole_and_alone_and_yes_runs_the_tests(cols: u16, run: bool) {
    let dir = temp_dir();
    images(dir.path(), true);
    let cmd = format!(
        "{} -Sw --force --write-duration 0.05 a.img b.img 'sim:hdd?size=1G'",
        binary()
    );
    let s = Screen::start(cols, 40, dir.path(), &cmd);
    let screen = s.wait_for("the question", |t| t.contains("Type yes to go on"));
    // Still on the screen a moment later: nothing draws over it.
    std::thread::sleep(Duration::from_millis(700));
    let again = s.shown();
    assert_eq!(screen, again, "the screen changed while asking");
    let rows = rows(&screen);
    let text = rows.join("\n");
    // Alone: it starts the screen, nothing of the live view is drawn, and the
    // question is its last row.
    assert!(
        rows[0].starts_with("seekprobe: the write tests will destroy everything on these 2 drives"),
        "{text}"
    );
    assert!(!rows.iter().any(|l| spinner(l)), "{text}");
    assert!(
        rows.last().unwrap().ends_with("anything else to stop:"),
        "{text}"
    );
    // Whole: no row wider than the terminal (the question wraps between words).
    assert!(
        rows.iter().all(|l| l.chars().count() < usize::from(cols)),
        "{text}"
    );
    let joined = words(&s.written());
    for want in [
        "drive size model serial holds",
        "a.img 64.0 MiB (67108864 bytes) - - no signature found",
        "no signature found",
        "at byte 510 (--force)",
        "synchronous writes (-S): random writes of 512 B to 8 MiB, each flushed",
        "sim:hdd?size=1G: simulated, holds no data",
        "Destroy everything on a.img, b.img? Type yes to go on",
    ] {
        assert!(joined.contains(&words(want)), "{want}: {joined}");
    }
    if !run {
        s.answer("no");
        assert_eq!(s.exit_status(), 1, "{}", s.written());
        return;
    }
    s.answer("yes");
    assert_eq!(s.exit_status(), 0, "{}", s.written());
    let all = s.written();
    assert_eq!(
        all.matches("Synchronous random writes:").count(),
        3,
        "{all}"
    );
}

#[test]
fn the_question_at_80_columns() {
    the_question_is_whole_and_alone_and_yes_runs_the_tests(80, true);
}

#[test]
fn the_question_at_200_columns() {
    the_question_is_whole_and_alone_and_yes_runs_the_tests(200, false);
}

#[test]
fn any_other_answer_writes_nothing_and_is_exit_1() {
    let dir = temp_dir();
    images(dir.path(), false);
    let before = std::fs::read(dir.path().join("a.img")).unwrap();
    let cmd = format!("{} --verify -w --json-file run.json a.img", binary());
    let s = Screen::start(80, 30, dir.path(), &cmd);
    s.wait_for("the question", |t| t.contains("Type yes to go on"));
    s.answer("no");
    assert_eq!(s.exit_status(), 1, "{}", s.written());
    assert!(
        s.written().contains(
            "seekprobe: not confirmed (the answer was \"no\", not yes): nothing was written"
        ),
        "{}",
        s.written()
    );
    assert_eq!(std::fs::read(dir.path().join("a.img")).unwrap(), before);
    assert!(!dir.path().join("run.json").exists());
}

#[test]
fn the_readme_s_parallel_burn_in_asks_once_for_the_batch_and_passes() {
    // README's `seekprobe --burn-in -w --qualify --parallel --json-file
    // burnin.json /dev/sd[b-e]`, on two image files.
    let dir = temp_dir();
    images(dir.path(), false);
    let cmd = format!(
        "{} --burn-in -w --qualify --parallel --json-file burnin.json a.img b.img",
        binary()
    );
    let s = Screen::start(120, 40, dir.path(), &cmd);
    let screen = s.wait_for("the question", |t| t.contains("Type yes to go on"));
    let joined = words(&s.written());
    assert!(joined.contains("the tests write on each:"), "{joined}");
    assert!(
        joined.contains("write-verify pass (--verify): every sector of the drive written with stamps and read back, 1 pass"),
        "{joined}"
    );
    assert_eq!(screen.matches("Type yes").count(), 1, "{screen}");
    s.answer("yes");
    assert_eq!(s.exit_status(), 0, "{}", s.written());
    let all = s.written();
    // Asked once, and both drives burnt in.
    assert_eq!(all.matches("Type yes to go on").count(), 1, "{all}");
    assert_eq!(all.matches("  verdict: PASS").count(), 2, "{all}");
}

/// The rows of the live view on `screen`: the batch's line and the drives'.
fn live_rows(screen: &str) -> Vec<&str> {
    rows(screen)
        .into_iter()
        .filter(|l| l.contains("sim:") || l.starts_with("3 drives:"))
        .collect()
}

fn a_parallel_burn_in_keeps_every_drive_s_line(cols: u16) {
    let dir = temp_dir();
    let drives = [
        "sim:hdd?size=512M",
        "sim:hdd?size=512M&seed=3",
        "sim:ssd?size=512M&fake=128M",
    ];
    let cmd = format!(
        "{} --burn-in -w --yes --qualify --parallel {} >out.txt",
        binary(),
        drives.map(|d| format!("'{d}'")).join(" ")
    );
    let s = Screen::start(cols, 30, dir.path(), &cmd);
    // The fake drive fails early; the others go on, and its line stays.
    let screen = s.wait_for("the fake drive's verdict beside the others' steps", |t| {
        t.contains("FAIL: capacity check") && t.contains("write-verify pass")
    });
    let live = live_rows(&screen);
    let text = screen.clone();
    assert!(
        live[0].starts_with("3 drives: 2 running, 1 finished, 1 failing"),
        "{text}"
    );
    assert_eq!(live.len(), 4, "{text}");
    for d in drives {
        assert!(live.iter().any(|l| l.contains(d)), "{d}: {text}");
    }
    for l in &live {
        // Fitted: no row wider than the terminal, none broken in the middle
        // of a word (a cut part ends with "…").
        assert!(l.chars().count() < usize::from(cols), "{l}: {text}");
    }
    let running: Vec<&&str> = live.iter().filter(|l| spinner(l)).collect();
    assert_eq!(running.len(), 2, "{text}");
    for l in running {
        // In a step, its progress; between two, the step just done.
        assert!(l.contains('%') || l.contains(": done"), "{l}");
        assert!(l.trim_end().ends_with("0 failing steps"), "{l}");
    }
    // Between steps or not, never a bare empty bar.
    assert!(
        !screen.contains("[                        ]   0%"),
        "{text}"
    );
    assert_eq!(s.exit_status(), 3, "{}", s.written());
    // Every drive's line stays to the end, the finished ones with their words,
    // above the text written after them.
    let all = s.history();
    let end = &all[all.rfind("3 drives:").expect("the batch's line")..];
    let live: Vec<&str> = live_rows(end).into_iter().take(4).collect();
    assert!(
        live.iter()
            .any(|l| l.starts_with("3 drives: 0 running, 3 finished, 1 failing")),
        "{end}"
    );
    let done = live
        .iter()
        .filter(|l| l.contains("done: no failing finding"))
        .count();
    assert_eq!(done, 2, "{end}");
    if cols >= 200 {
        assert!(
            end.contains("stores only the first 128.0 MiB of the 512.0 MiB it reports"),
            "{end}"
        );
    }
}

#[test]
fn the_live_view_at_80_columns() {
    a_parallel_burn_in_keeps_every_drive_s_line(80);
}

#[test]
fn the_live_view_at_200_columns() {
    a_parallel_burn_in_keeps_every_drive_s_line(200);
}

#[test]
fn without_a_terminal_and_without_yes_nothing_runs_and_the_exit_is_1() {
    // `--burn-in -w --json-file b.json /dev/loop0 </dev/null`, on an image file:
    // a command line that cannot be carried out, not a drive that failed.
    let dir = temp_dir();
    images(dir.path(), false);
    let img = dir.path().join("a.img");
    let before = std::fs::read(&img).unwrap();
    let json = dir.path().join("b.json");
    let out = seekprobe_command()
        .args(["--burn-in", "-w", "--json-file"])
        .arg(&json)
        .arg(&img)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("refusing to write: not confirmed"), "{err}");
    assert!(err.contains("give --yes"), "{err}");
    // No drive judged, nothing written, no run file.
    assert!(!String::from_utf8_lossy(&out.stdout).contains("verdict"));
    assert!(!err.contains("verdict"), "{err}");
    assert_eq!(std::fs::read(&img).unwrap(), before);
    assert!(!json.exists());
}

#[test]
fn the_readme_s_resume_line_asks_nothing_of_drives_done_and_ends_as_any_burn_in() {
    // README's burn-in, stopped with Ctrl-C once the two images are done (a
    // simulated drive keeps it going), then its `--resume` line as written.
    let dir = temp_dir();
    images(dir.path(), false);
    let drives = "a.img b.img 'sim:hdd?size=1G'";
    let burn_in = format!(
        "{} --burn-in -w --qualify --parallel --json-file burnin.json {drives}",
        binary()
    );
    let s = Screen::start(120, 40, dir.path(), &burn_in);
    s.wait_for("the question", |t| t.contains("Type yes to go on"));
    s.answer("yes");
    s.wait_for("both images done, the simulated drive running", |t| {
        t.matches("done: no failing finding").count() == 2 && t.contains("1 running")
    });
    s.ctrl_c();
    assert_eq!(s.exit_status(), 130, "{}", s.written());
    let said = words(&s.written());
    assert!(said.contains("--resume burnin.json"), "{said}");
    drop(s);
    // The images' writing steps are done: nothing is written on them, so nothing
    // is asked (the simulated drive holds no data).
    let s = Screen::start(
        120,
        40,
        dir.path(),
        &format!("{burn_in} --resume burnin.json"),
    );
    assert_eq!(s.exit_status(), 0, "{}", s.written());
    let all = s.written();
    assert!(!all.contains("Type yes to go on"), "{all}");
    assert_eq!(all.matches("  verdict: PASS").count(), 3, "{all}");
}

#[test]
fn the_question_on_resume_names_only_the_steps_still_to_run() {
    // A burn-in of an image stopped after its zone curve (which wrote on it): the
    // resume asks about the write-verify pass alone.
    let dir = temp_dir();
    images(dir.path(), false);
    let burn_in = format!("{} --burn-in -w --json-file b.json a.img", binary());
    let stopped = Command::new("sh")
        .arg("-c")
        .arg(format!("{burn_in} --yes -q >/dev/null 2>&1"))
        .current_dir(dir.path())
        .env("SEEKPROBE_BURN_IN_STOP_AFTER", "zones")
        .status()
        .unwrap();
    assert_eq!(stopped.code(), Some(130));
    let s = Screen::start(120, 40, dir.path(), &format!("{burn_in} --resume b.json"));
    s.wait_for("the question", |t| t.contains("Type yes to go on"));
    let asked = words(&s.written());
    assert!(asked.contains("write-verify pass (--verify):"), "{asked}");
    assert!(!asked.contains("zone curve (--zones):"), "{asked}");
    s.answer("yes");
    assert_eq!(s.exit_status(), 0, "{}", s.written());
}

#[test]
fn ctrl_c_in_a_two_drive_burn_in_leaves_both_incomplete_and_nothing_failing() {
    // Both drives stopped mid-pass by Ctrl-C: not judged (INCOMPLETE on the
    // screen and in the saved run's report), never FAIL or failing.
    let dir = temp_dir();
    let cmd = format!(
        "{} --burn-in -w --yes --qualify --parallel --json-file two.json 'sim:hdd?size=64G' 'sim:hdd?size=64G&seed=2' >out.txt",
        binary()
    );
    let s = Screen::start(160, 20, dir.path(), &cmd);
    s.wait_for("both drives in their write-verify pass", |t| {
        t.matches("write-verify pass (--verify)").count() == 2
    });
    s.ctrl_c();
    assert_eq!(s.exit_status(), 130, "{}", s.written());
    let all = s.history();
    let end = &all[all.rfind("2 drives:").expect("the batch's line")..];
    let last: Vec<&str> = rows(end).into_iter().take(3).collect();
    assert!(
        last[0].starts_with("2 drives: 0 running, 2 finished, 2 incomplete  (INCOMPLETE: "),
        "{end}"
    );
    for l in &last[1..] {
        assert!(
            l.contains("interrupted; INCOMPLETE: write and verify (--verify)"),
            "{end}"
        );
    }
    let shown = s.shown();
    assert!(
        !shown.contains("FAIL") && !shown.contains("failing"),
        "{shown}"
    );
    // The saved run, as its report and `compare --qualify` read it.
    let json = dir.path().join("two.json");
    let out = seekprobe_command()
        .args(["compare", "--qualify", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    let cmp: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for d in cmp["disks"].as_array().unwrap() {
        assert_eq!(d["state"], "incomplete", "{cmp}");
    }
    assert_eq!(out.status.code(), Some(4), "{cmp}");
}
