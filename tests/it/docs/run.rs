//! Running the docs' commands: each block in a fresh directory, device names
//! replaced by the loop devices the harness attaches, blocks spread over workers.

use super::judge::judge;
use super::*;
use crate::helpers::scratch_dir;

/// Run every block with a command to run, `WORKERS` at once, longest first; each
/// command that ran, by its index.
pub(super) fn run_all(
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
pub(super) enum Kind {
    /// A setup step of command `cmd`: (exit status, lines).
    Setup(usize, i32, &'static [&'static str]),
    /// Command `cmd` itself.
    Doc(usize),
    /// The check after command `cmd`.
    Check(usize),
}

/// The loop devices of a block, by the text they replace, in the order attached.
pub(super) struct Devices {
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
                        let dir = scratch_dir();
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
pub(super) struct Places {
    tmp: PathBuf,
    target_debug: PathBuf,
}

/// `text` with the substitutions made and the placeholders filled.
pub(super) fn substitute(text: &str, devices: &Devices, places: &Places) -> String {
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
pub(super) fn needs_terminal(text: &str) -> bool {
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
    let dir = scratch_dir();
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
