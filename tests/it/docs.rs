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
mod judge;
mod markdown;
mod run;
mod script;

use cases::{Expect, Substitution, To};
use judge::{burn_in_verdicts, report, shows};
use markdown::DocCommand;
use run::{needs_terminal, run_all};
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
