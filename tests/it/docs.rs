//! The docs run as written (issue 41): every command shown in README.md and
//! docs/*.md runs here, in a fresh temporary directory with `seekprobe` the
//! freshly built binary, its exit status and the lines its text promises checked;
//! commands that need what a simulated drive, an image or a loop device cannot be
//! are marked so in the markdown (`<!-- needs: real drives -->` before the block,
//! or `(needs: ...)` in the command's comment) and counted as left out. Device
//! names become loop devices the harness attaches (detached on drop). The tables
//! (substitutions, setups, expectations, commands left out, fixes awaited) are in
//! docs/cases.rs; docs/testing.md, "The docs harness", says it for readers.

mod cases;
mod markdown;
mod script;

use cases::{Expect, Substitution, To};
use markdown::DocCommand;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Blocks run at once (most of a loop-device burn-in is its path check's timed
/// reads, not CPU).
const WORKERS: usize = 3;

/// The share of the commands that can run here that must run.
const MIN_RAN: f64 = 0.8;

/// Size of each loop device attached.
const LOOP_BYTES: u64 = 64 << 20;

/// What becomes of a doc command.
#[derive(Debug, Clone, PartialEq)]
enum Fate {
    /// It needs what is not here (its marker's words): not counted as runnable.
    Needs(String),
    /// This machine lacks what it needs (root for loop devices, FUSE).
    Missing(&'static str),
    /// It could run here; the harness leaves it out (cases::LEFT_OUT).
    LeftOut(&'static str),
    /// It runs.
    Run,
}

/// How a command that ran ended up.
#[derive(Debug)]
struct Ran {
    secs: f64,
    failure: Option<String>,
}

#[test]
fn the_docs_run_as_written() {
    let t0 = Instant::now();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmds = Vec::new();
    let mut errors = Vec::new();
    for doc in doc_files(repo) {
        let text = std::fs::read_to_string(repo.join(&doc)).unwrap();
        match markdown::commands(&doc, &text) {
            Ok(c) => cmds.extend(c),
            Err(e) => errors.push(e),
        }
    }
    let fates = fates(&cmds, &mut errors);
    let ran = run_all(&cmds, &fates, &mut errors);
    let report = report(&cmds, &fates, &ran, t0.elapsed());
    println!("{report}");
    // The counts, past the test harness's capture, so that every `cargo test` shows them.
    let counts_at = report
        .find(" commands found;")
        .map_or(0, |p| report[..p].rfind('\n').map_or(0, |n| n + 1));
    let summary: String = report[counts_at..]
        .lines()
        .take_while(|l| !l.starts_with("substitutions"))
        .map(|l| format!("docs harness: {l}\n"))
        .collect();
    let _ = std::io::Write::write_all(&mut std::io::stderr(), summary.as_bytes());
    let (runnable, run) = counts(&fates);
    let mut pending_passed = Vec::new();
    for (i, c) in cmds.iter().enumerate() {
        let Some(r) = ran.get(&i) else { continue };
        match (pending(c), &r.failure) {
            (Some(_), None) => pending_passed.push(format!("{}:{}: {}", c.doc, c.line, c.text)),
            (None, Some(why)) => errors.push(format!("{}:{}: `{}`: {why}", c.doc, c.line, c.text)),
            _ => {}
        }
    }
    for p in pending_passed {
        errors.push(format!(
            "{p}: passes now: remove it from cases::PENDING_FIXES"
        ));
    }
    assert!(errors.is_empty(), "{report}\n\n{}", errors.join("\n\n"));
    // The floor holds where everything the docs use is here (root, loop devices,
    // FUSE); elsewhere the account above says what was missing.
    if !fates.iter().any(|f| matches!(f, Fate::Missing(_))) {
        assert!(
            run as f64 >= MIN_RAN * runnable as f64,
            "{report}\n\nonly {run} of the {runnable} commands that can run here ran"
        );
    }
}

/// README.md and docs/*.md, relative to the repository.
fn doc_files(repo: &Path) -> Vec<String> {
    let mut docs: Vec<String> = std::fs::read_dir(repo.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    docs.insert(0, "README.md".to_string());
    docs
}

/// The one command of `cmds` that `doc` and `text` name: equal to it, else the
/// only one containing it.
fn find(cmds: &[DocCommand], doc: &str, text: &str) -> Result<usize, String> {
    let of_doc = || cmds.iter().enumerate().filter(|(_, c)| c.doc == doc);
    if let Some((i, _)) = of_doc().find(|(_, c)| c.text == text) {
        return Ok(i);
    }
    let hits: Vec<usize> = of_doc()
        .filter(|(_, c)| c.text.contains(text))
        .map(|(i, _)| i)
        .collect();
    match hits[..] {
        [i] => Ok(i),
        [] => Err(format!(
            "{doc}: no command `{text}` (a table of docs/cases.rs names it)"
        )),
        _ => Err(format!(
            "{doc}: `{text}` names {} commands: name one",
            hits.len()
        )),
    }
}

/// Each command's fate: its marker, the left-out table, then what this machine has.
fn fates(cmds: &[DocCommand], errors: &mut Vec<String>) -> Vec<Fate> {
    let mut fates: Vec<Fate> = cmds
        .iter()
        .map(|c| c.needs.clone().map_or(Fate::Run, Fate::Needs))
        .collect();
    for (doc, text, why) in cases::LEFT_OUT {
        match find(cmds, doc, text) {
            Ok(i) => fates[i] = Fate::LeftOut(why),
            Err(e) => errors.push(e),
        }
    }
    // Every table entry names a command.
    for (doc, text) in cases::EXPECT
        .iter()
        .map(|e| (e.doc, e.command))
        .chain(cases::SETUPS.iter().map(|s| (s.doc, s.before)))
        .chain(cases::PENDING_FIXES.iter().map(|p| (p.0, p.1)))
    {
        if let Err(e) = find(cmds, doc, text) {
            errors.push(e);
        }
    }
    // A block runs whole or not at all: its commands share a shell.
    let root = nix::unistd::geteuid().is_root();
    let fuse = cfg!(seekprobe_has_fusermount3) && Path::new("/dev/fuse").exists();
    for (i, c) in cmds.iter().enumerate() {
        let block: Vec<&DocCommand> = cmds
            .iter()
            .filter(|o| o.doc == c.doc && o.block == c.block)
            .collect();
        let any = |f: &dyn Fn(&str) -> bool| block.iter().any(|o| f(&o.text));
        let missing = if any(&|t| uses_devices(t)) && !cfg!(seekprobe_loop) {
            Some("root and /dev/loop-control, for loop devices")
        } else if any(&|t| t.contains("faultdisk")) && !(root && fuse) {
            Some("root, /dev/fuse and fusermount3, for examples/faultdisk")
        } else if any(&|t| t.contains("/var/lib/")) && !root {
            Some("root: /var/lib is private to the block only for root")
        } else {
            None
        };
        if let (Some(why), Fate::Run) = (missing, &fates[i]) {
            fates[i] = Fate::Missing(why);
        }
    }
    fates
}

/// Whether a command names a device the harness replaces by a loop device.
fn uses_devices(text: &str) -> bool {
    cases::SUBSTITUTIONS.iter().any(|s| {
        matches!(s.to, To::Loops(_) | To::LoopShort) && !positions(text, s.from).is_empty()
    })
}

/// Where `from` occurs in `text` as a token of its own (no letter or digit just
/// before or after it).
fn positions(text: &str, from: &str) -> Vec<usize> {
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    text.match_indices(from)
        .map(|(p, _)| p)
        .filter(|&p| {
            let before = text[..p].chars().next_back();
            let after = text[p + from.len()..].chars().next();
            let edge_ok = |c: Option<char>, edge: Option<char>| !(alnum(c) && alnum(edge));
            edge_ok(before, from.chars().next()) && edge_ok(after, from.chars().next_back())
        })
        .collect()
}

/// The pending-fix entry of a command, if it is one.
fn pending(c: &DocCommand) -> Option<&'static str> {
    cases::PENDING_FIXES
        .iter()
        .find(|(doc, text, _)| *doc == c.doc && (c.text == *text || c.text.contains(text)))
        .map(|p| p.2)
}

/// The expectation of command `i`.
fn expect_of(cmds: &[DocCommand], i: usize) -> &'static Expect {
    cases::EXPECT
        .iter()
        .find(|e| find(cmds, e.doc, e.command) == Ok(i))
        .unwrap_or(&cases::E)
}

/// (commands that can run here, commands that ran).
fn counts(fates: &[Fate]) -> (usize, usize) {
    let runnable = fates
        .iter()
        .filter(|f| matches!(f, Fate::Run | Fate::LeftOut(_)))
        .count();
    let ran = fates.iter().filter(|f| **f == Fate::Run).count();
    (runnable, ran)
}

/// Run every block with a command to run, `WORKERS` at once, longest first; each
/// command that ran, by its index.
fn run_all(
    cmds: &[DocCommand],
    fates: &[Fate],
    errors: &mut Vec<String>,
) -> std::collections::HashMap<usize, Ran> {
    let mut blocks: Vec<Vec<usize>> = Vec::new();
    for (i, c) in cmds.iter().enumerate() {
        if fates[i] != Fate::Run {
            continue;
        }
        match blocks.iter_mut().find(|b| {
            let f = &cmds[b[0]];
            f.doc == c.doc && f.block == c.block
        }) {
            Some(b) => b.push(i),
            None => blocks.push(vec![i]),
        }
    }
    let cost = |b: &Vec<usize>| b.iter().map(|&i| expect_of(cmds, i).limit_s).sum::<u64>();
    blocks.sort_by_key(|b| std::cmp::Reverse(cost(b)));
    let queue = Mutex::new(blocks.into_iter());
    let results = Mutex::new(std::collections::HashMap::new());
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..WORKERS {
            s.spawn(|| {
                loop {
                    let Some(block) = queue.lock().unwrap().next() else {
                        return;
                    };
                    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_block(cmds, &block)
                    }));
                    match caught {
                        Ok(r) => results.lock().unwrap().extend(r),
                        Err(p) => {
                            let c = &cmds[block[0]];
                            let why = p
                                .downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default();
                            failures.lock().unwrap().push(format!(
                                "{}:{}: the block could not run: {why}",
                                c.doc, c.line
                            ));
                        }
                    }
                }
            });
        }
    });
    errors.extend(failures.into_inner().unwrap());
    results.into_inner().unwrap()
}

/// What a step of a block's script is.
enum Kind {
    /// A setup step of command `cmd`: (exit status, lines).
    Setup(usize, i32, &'static [&'static str]),
    /// Command `cmd` itself.
    Doc(usize),
    /// The check after command `cmd`.
    Check(usize),
}

/// The loop devices of a block, by the text they replace, in the order attached.
struct Devices {
    by_text: Vec<(&'static str, Vec<String>)>,
    _held: Vec<(crate::helpers::LoopDev, tempfile::TempDir)>,
}

impl Devices {
    /// Attach the loop devices `texts` name, in the order they name them.
    fn attach(texts: &[&str]) -> Devices {
        let mut d = Devices {
            by_text: Vec::new(),
            _held: Vec::new(),
        };
        for text in texts {
            let mut named: Vec<(usize, &Substitution)> = cases::SUBSTITUTIONS
                .iter()
                .filter(|s| matches!(s.to, To::Loops(_) | To::LoopShort))
                .filter_map(|s| positions(text, s.from).first().map(|&p| (p, s)))
                .collect();
            named.sort_by_key(|(p, _)| *p);
            for (_, s) in named {
                if d.by_text.iter().any(|(f, _)| *f == s.from) {
                    continue;
                }
                let n = if let To::Loops(n) = s.to { n } else { 1 };
                let devs = (0..n)
                    .map(|_| {
                        let dir = crate::helpers::scratch_dir();
                        let dev = crate::helpers::LoopDev::new(dir.path(), LOOP_BYTES, true, None);
                        let name = dev.dev.clone();
                        d._held.push((dev, dir));
                        name
                    })
                    .collect();
                d.by_text.push((s.from, devs));
            }
        }
        d
    }

    /// Every device, in the order attached ({dev1}, {dev2}...).
    fn all(&self) -> Vec<&str> {
        self.by_text
            .iter()
            .flat_map(|(_, v)| v.iter().map(String::as_str))
            .collect()
    }
}

/// Where the harness's substitutions point.
struct Places {
    tmp: PathBuf,
    target_debug: PathBuf,
}

/// `text` with the substitutions made and the placeholders filled.
fn substitute(text: &str, devices: &Devices, places: &Places) -> String {
    let mut t = text.to_string();
    for s in cases::SUBSTITUTIONS {
        let by: String = match s.to {
            To::Text(x) => x.to_string(),
            To::Tmp(p) => {
                places.tmp.join(p).display().to_string() + if p.ends_with('/') { "/" } else { "" }
            }
            To::Loops(_) | To::LoopShort => {
                let Some((_, devs)) = devices.by_text.iter().find(|(f, _)| *f == s.from) else {
                    continue;
                };
                match s.to {
                    To::LoopShort => devs[0].trim_start_matches("/dev/").to_string(),
                    _ => devs.join(" "),
                }
            }
        };
        for p in positions(&t, s.from).into_iter().rev() {
            t.replace_range(p..p + s.from.len(), &by);
        }
    }
    let mut t = t
        .replace("{repo}", env!("CARGO_MANIFEST_DIR"))
        .replace("{cargo}", env!("CARGO"))
        .replace("{profile}", &crate::helpers::cargo_profile())
        .replace("{target_debug}", &places.target_debug.display().to_string());
    for (k, d) in devices.all().iter().enumerate() {
        t = t.replace(&format!("{{dev{}}}", k + 1), d);
    }
    t
}

/// Whether a command runs on the terminal: a seekprobe write test without `--yes`
/// asks there, and its reader answers.
fn needs_terminal(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let writes = words.iter().any(|w| {
        *w == "--write" || (w.starts_with('-') && !w.starts_with("--") && w.contains('w'))
    });
    text.contains("seekprobe") && writes && !words.iter().any(|w| *w == "--yes" || *w == "-y")
}

/// Run one block: its setups, commands and checks in one shell; each command's
/// wall time and what went wrong.
fn run_block(cmds: &[DocCommand], block: &[usize]) -> Vec<(usize, Ran)> {
    let mut kinds: Vec<(Kind, &str)> = Vec::new();
    let mut prepare: Vec<fn(&Path)> = Vec::new();
    for &i in block {
        for s in cases::SETUPS
            .iter()
            .filter(|s| find(cmds, s.doc, s.before) == Ok(i))
        {
            prepare.extend(s.prepare);
            for (text, status, lines) in s.steps {
                kinds.push((Kind::Setup(i, *status, lines), text));
            }
        }
        kinds.push((Kind::Doc(i), &cmds[i].text));
        if let Some(check) = expect_of(cmds, i).check {
            kinds.push((Kind::Check(i), check));
        }
    }
    let texts: Vec<&str> = kinds.iter().map(|(_, t)| *t).collect();
    let devices = Devices::attach(&texts);
    let dir = crate::helpers::scratch_dir();
    let places = Places {
        tmp: dir.path().to_path_buf(),
        target_debug: crate::helpers::profile_dir(),
    };
    for p in prepare {
        p(dir.path());
    }
    let steps: Vec<script::Step> = kinds
        .iter()
        .map(|(k, t)| {
            let text = substitute(t, &devices, &places);
            let terminal = needs_terminal(&text);
            // A setup on the terminal is a burn-in.
            let limit = match k {
                Kind::Doc(i) => expect_of(cmds, *i).limit_s,
                _ if terminal => cases::BURN_IN_S,
                _ => cases::E.limit_s,
            };
            script::Step {
                terminal,
                text,
                limit: Duration::from_secs(limit),
            }
        })
        .collect();
    let bin = assert_cmd::cargo::cargo_bin("seekprobe");
    let path = format!(
        "{}:{}:/usr/sbin:/sbin",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = script::Env {
        dir: dir.path().to_path_buf(),
        vars: vec![
            ("PATH".into(), path),
            (
                "XDG_DATA_HOME".into(),
                dir.path().join(".local/share").display().to_string(),
            ),
        ],
        private_var_lib: nix::unistd::geteuid().is_root(),
    };
    let outcomes = script::run(&env, &steps);
    judge(cmds, block, &kinds, &steps, &outcomes, &devices, &places)
}

/// Each command's verdict from its steps' outcomes.
fn judge(
    cmds: &[DocCommand],
    block: &[usize],
    kinds: &[(Kind, &str)],
    steps: &[script::Step],
    outcomes: &[script::Outcome],
    devices: &Devices,
    places: &Places,
) -> Vec<(usize, Ran)> {
    let mut out = Vec::new();
    for &i in block {
        let mut failure: Option<String> = None;
        let mut secs = 0.0;
        let e = expect_of(cmds, i);
        for (k, (kind, _)) in kinds.iter().enumerate() {
            let (o, step) = (&outcomes[k], &steps[k]);
            let why = match *kind {
                Kind::Setup(c, status, lines) if c == i => {
                    let lines: Vec<String> = lines
                        .iter()
                        .map(|l| substitute(l, devices, places))
                        .collect();
                    ended(o, step, status)
                        .and_then(|()| printed(o, &lines))
                        .map_err(|w| format!("its setup `{}`: {w}", step.text))
                }
                Kind::Doc(c) if c == i => {
                    secs = o.secs;
                    let shown = cmds[i].shown.as_ref();
                    let status = shown.and_then(|s| s.status).unwrap_or(e.status);
                    let lines: Vec<String> = e
                        .lines
                        .iter()
                        .map(|l| substitute(l, devices, places))
                        .collect();
                    ended(o, step, status)
                        .and_then(|()| printed(o, &lines))
                        .and_then(|()| shown.map_or(Ok(()), |s| shows(&o.out, &s.lines)))
                        .and_then(|()| verdicts(o, e, devices, places))
                        .map_err(|w| format!("ran as `{}`: {w}", step.text))
                }
                Kind::Check(c) if c == i => ended(o, step, 0)
                    .map_err(|w| format!("the check `{}` after it: {w}", step.text)),
                _ => Ok(()),
            };
            if let Err(w) = why {
                failure = Some(w);
                break;
            }
        }
        out.push((i, Ran { secs, failure }));
    }
    out
}

/// The step ended, with `status`; else what happened, with its output.
fn ended(o: &script::Outcome, step: &script::Step, status: i32) -> Result<(), String> {
    let tail = |s: &str| {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(25)..].join("\n")
    };
    let output = format!(
        "\n--- stdout (end):\n{}\n--- stderr (end):\n{}",
        tail(&o.out),
        tail(&o.err)
    );
    match o.status {
        _ if !o.note.is_empty() => Err(format!("stopped: {}{output}", o.note)),
        _ if o.timed_out => Err(format!(
            "did not end within {} s{output}",
            step.limit.as_secs()
        )),
        None => Err("never ran: the block's shell ended before it".to_string()),
        Some(s) if s != status => Err(format!("exit status {s}, not {status}{output}")),
        Some(_) => Ok(()),
    }
}

/// A pattern (`[..]` stands for any text) as a regex matching inside a line.
fn pattern(p: &str) -> regex::Regex {
    let parts: Vec<String> = p.split("[..]").map(regex::escape).collect();
    regex::Regex::new(&parts.join(".*")).unwrap()
}

/// Every pattern matches a line of what the step printed.
fn printed(o: &script::Outcome, lines: &[String]) -> Result<(), String> {
    let text = format!("{}\n{}", o.out, o.err);
    for l in lines {
        let re = pattern(l);
        if !text.lines().any(|t| re.is_match(t)) {
            return Err(format!("no line `{l}` in its output:\n{}", text.trim_end()));
        }
    }
    Ok(())
}

/// The output shown in the doc is in `out`: its runs of lines in order, each run
/// contiguous, `...` standing for any lines between them.
fn shows(out: &str, shown: &[String]) -> Result<(), String> {
    let actual: Vec<&str> = out.lines().map(str::trim_end).collect();
    let mut from = 0;
    for run in shown.split(|l| l.trim() == "...") {
        if run.is_empty() {
            continue;
        }
        let res: Vec<regex::Regex> = run
            .iter()
            .map(|l| regex::Regex::new(&format!("^{}$", pattern(l).as_str())).unwrap())
            .collect();
        let at = (from..actual.len().saturating_sub(run.len() - 1)).find(|&k| {
            res.iter()
                .enumerate()
                .all(|(j, re)| re.is_match(actual[k + j]))
        });
        match at {
            Some(k) => from = k + run.len(),
            None => {
                return Err(format!(
                    "the output the doc shows is not in its output: the doc shows\n{}\nit printed\n{}",
                    run.join("\n"),
                    out.trim_end()
                ));
            }
        }
    }
    Ok(())
}

/// The burn-in verdicts `e` asks for, from the "Burn-in of DRIVE:" blocks.
fn verdicts(
    o: &script::Outcome,
    e: &Expect,
    devices: &Devices,
    places: &Places,
) -> Result<(), String> {
    let text = format!("{}\n{}", o.out, o.err);
    let blocks = burn_in_verdicts(&text);
    for (drive, state, reasons) in e.verdicts {
        let drive = substitute(drive, devices, places);
        let Some((_, got, why)) = blocks.iter().find(|(d, _, _)| *d == drive) else {
            return Err(format!(
                "no \"Burn-in of {drive}:\" block with a verdict in:\n{text}"
            ));
        };
        let state_re = regex::Regex::new(&format!("^{}$", pattern(state).as_str())).unwrap();
        if !state_re.is_match(got) {
            return Err(format!("{drive}: verdict {got}, not {state}: {why:?}"));
        }
        for r in *reasons {
            if !why.iter().any(|w| pattern(r).is_match(w)) {
                return Err(format!("{drive}: no reason `{r}` among {why:?}"));
            }
        }
    }
    Ok(())
}

/// (drive, state, reasons) of each "Burn-in of DRIVE:" block's verdict.
fn burn_in_verdicts(text: &str) -> Vec<(String, String, Vec<String>)> {
    let mut out: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut drive: Option<String> = None;
    let mut open = false;
    for line in text.lines() {
        if let Some(d) = line
            .strip_prefix("Burn-in of ")
            .and_then(|l| l.strip_suffix(':'))
        {
            drive = Some(d.to_string());
            open = false;
        } else if let (Some(state), Some(d)) = (line.strip_prefix("  verdict: "), &drive) {
            out.push((d.clone(), state.trim().to_string(), Vec::new()));
            open = true;
        } else if let (Some(r), true) = (line.strip_prefix("    - "), open) {
            out.last_mut().unwrap().2.push(r.to_string());
        } else {
            open = false;
        }
    }
    out
}

/// The harness's account: every command with what became of it, then the counts.
fn report(
    cmds: &[DocCommand],
    fates: &[Fate],
    ran: &std::collections::HashMap<usize, Ran>,
    took: Duration,
) -> String {
    let mut s = String::from("docs harness: the commands of README.md and docs/*.md\n");
    let mut why_left: std::collections::BTreeMap<String, usize> = Default::default();
    let mut pending_failed = 0;
    for (i, c) in cmds.iter().enumerate() {
        let what = match (&fates[i], ran.get(&i)) {
            (Fate::Run, Some(r)) => match (&r.failure, pending(c)) {
                (None, _) => format!("ok ({:.1} s)", r.secs),
                (Some(_), Some(fix)) => {
                    pending_failed += 1;
                    format!("FAILS, expected to pass once the fix lands ({fix})")
                }
                (Some(_), None) => "FAILED".to_string(),
            },
            (Fate::Run, None) => "FAILED: the block could not run".to_string(),
            (f, _) => {
                let why = match f {
                    Fate::Needs(w) => format!("needs {w}"),
                    Fate::Missing(w) => format!("not here: needs {w}"),
                    Fate::LeftOut(w) => format!("left out: {w}"),
                    Fate::Run => unreachable!(),
                };
                *why_left.entry(why.clone()).or_default() += 1;
                why
            }
        };
        s += &format!("  {}:{}: {}\n      {what}\n", c.doc, c.line, c.text);
    }
    let (runnable, run) = counts(fates);
    s += &format!(
        "{} commands found; {} can run here, {} ran ({:.0}%, at least {:.0}% must), {} of them awaiting a fix; {} left out:\n",
        cmds.len(),
        runnable,
        run,
        100.0 * run as f64 / runnable.max(1) as f64,
        100.0 * MIN_RAN,
        pending_failed,
        cmds.len() - run
    );
    for (why, n) in why_left {
        s += &format!("  {n} {why}\n");
    }
    if fates.iter().any(|f| matches!(f, Fate::Missing(_))) {
        s += &format!(
            "  (the {:.0}% floor is checked only where root, loop devices and FUSE are here)\n",
            100.0 * MIN_RAN
        );
    }
    s += "substitutions made (cases::SUBSTITUTIONS, docs/testing.md):\n";
    for sub in cases::SUBSTITUTIONS {
        s += &format!("  `{}`: {}\n", sub.from, sub.why);
    }
    s += &format!("in {:.1} s", took.as_secs_f64());
    s
}

#[test]
fn the_harness_matches_shown_outputs_devices_and_prompts() {
    let out = "a\nQualification:\n\tx: PASS\n\ty: FAIL\n\t\twhy 1.5\nz\n";
    let shown = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(
        shows(
            out,
            &shown(&["Qualification:", "\tx: PASS", "...", "\t\twhy [..]"])
        )
        .is_ok()
    );
    assert!(shows(out, &shown(&["Qualification:", "\ty: FAIL"])).is_err());
    assert_eq!(positions("seekprobe -ctv da0 /dev/sdb", "da0"), [15]);
    assert!(positions("seekprobe /dev/sdba", "/dev/sdb").is_empty());
    assert!(positions("seekprobe -t panda0", "da0").is_empty());
    assert!(needs_terminal(
        "seekprobe --burn-in -w --qualify /dev/loop0"
    ));
    assert!(needs_terminal("seekprobe -Sw disk.img"));
    assert!(!needs_terminal("seekprobe --burn-in -w --yes /dev/loop0"));
    assert!(!needs_terminal("seekprobe -ctv /dev/loop0"));
    let v = burn_in_verdicts(
        "Burn-in of sim:a:\n  x\n  verdict: FAIL\n    - r1\n    - r2\n\nBurn-in of b:\n  verdict: PASS\n",
    );
    assert_eq!(
        v[0],
        (
            "sim:a".into(),
            "FAIL".into(),
            vec!["r1".into(), "r2".into()]
        )
    );
    assert_eq!(v[1], ("b".into(), "PASS".into(), vec![]));
}
