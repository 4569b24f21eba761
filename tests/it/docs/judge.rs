//! Judging what a command did against what its doc shows: its exit status, the
//! lines it printed, the verdicts and the report it promises.

use super::run::Devices;
use super::run::Kind;
use super::run::Places;
use super::run::substitute;
use super::*;

/// Each command's verdict from its steps' outcomes.
pub(super) fn judge(
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
pub(super) fn shows(out: &str, shown: &[String]) -> Result<(), String> {
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
pub(super) fn burn_in_verdicts(text: &str) -> Vec<(String, String, Vec<String>)> {
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
pub(super) fn report(
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
