//! Shell completions (`seekprobe generate bash|zsh|fish`): every subcommand and its
//! own options. bash's script is sourced and its function called as bash calls it
//! (COMP_WORDS, COMP_CWORD); zsh's and fish's scripts are read for every
//! subcommand and option (neither shell is needed to run the tests).

use crate::helpers::{run, run_file};

/// The script `seekprobe generate SHELL` prints.
fn script(shell: &str) -> String {
    let (code, out, err) = run(&["generate", shell]);
    assert_eq!(code, 0, "{err}");
    out
}

/// Each subcommand with its own long options (help and version left out).
fn subcommands() -> Vec<(&'static str, Vec<String>)> {
    seekprobe::cli::SUBCOMMANDS
        .into_iter()
        .map(|name| {
            let c = seekprobe::cli::subcommand(name).expect("a subcommand's command");
            let longs = c
                .get_arguments()
                .filter_map(|a| a.get_long())
                .filter(|l| !["help", "version"].contains(l))
                .map(|l| format!("--{l}"))
                .collect();
            (name, longs)
        })
        .collect()
}

/// What bash offers for the words typed so far (the last one being completed).
fn bash(script_file: &std::path::Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let line = words.join(" ");
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\nCOMP_LINE='{line}'\nCOMP_POINT={}\n_seekprobe seekprobe '{}' '{}'\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script_file.display(),
        quoted.join(" "),
        words.len() - 1,
        line.len(),
        words[words.len() - 1],
        words[words.len() - 2],
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "-c", &program])
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(String::from)
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn bash_completes_every_subcommand_and_only_its_own_options() {
    let (_dir, file) = run_file("seekprobe.bash");
    std::fs::write(&file, script("bash")).unwrap();
    assert_eq!(bash(&file, &["seekprobe", "hist"]), ["history"]);
    let first = bash(&file, &["seekprobe", ""]);
    for (name, _) in subcommands() {
        assert!(
            first.iter().any(|w| w == name),
            "{name} not offered: {first:?}"
        );
    }
    for (name, longs) in subcommands() {
        let offered = bash(&file, &["seekprobe", name, "--"]);
        for l in &longs {
            assert!(
                offered.contains(l),
                "seekprobe {name} {l} not offered: {offered:?}"
            );
        }
        for o in &offered {
            assert!(
                longs.contains(o) || o == "--help" || o == "--version",
                "seekprobe {name} offers {o}, which it refuses"
            );
        }
    }
    let compare = bash(&file, &["seekprobe", "compare", "--"]);
    assert!(
        !compare.contains(&"--queue-depth".to_string()),
        "{compare:?}"
    );
    // The probing command keeps its own options; history's actions are completed.
    assert!(bash(&file, &["seekprobe", "--que"]).contains(&"--queue-depth".to_string()));
    let actions = bash(&file, &["seekprobe", "history", "--history", "h.db", ""]);
    for a in ["import", "ack", "unack"] {
        assert!(actions.iter().any(|w| w == a), "{a}: {actions:?}");
    }
}

#[test]
fn zsh_and_fish_name_every_subcommand_and_its_options() {
    for shell in ["zsh", "fish"] {
        let text = script(shell);
        for (name, longs) in subcommands() {
            assert!(text.contains(name), "{shell}: no {name}");
            // zsh: the subcommand's own `(name)` section of _arguments; fish: the
            // lines under `__fish_seekprobe_using_subcommand name`.
            let own: String = match shell {
                "fish" => text
                    .lines()
                    .filter(|l| {
                        let at = format!("__fish_seekprobe_using_subcommand {name}");
                        l.contains(&format!("{at}\"")) || l.contains(&format!("{at};"))
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                _ => {
                    let at = text
                        .find(&format!("({name})\n_arguments"))
                        .unwrap_or_else(|| panic!("zsh: no section of {name}"));
                    let rest = &text[at..];
                    rest[..rest.find("\n;;").unwrap_or(rest.len())].to_string()
                }
            };
            for l in longs {
                let named = match shell {
                    "fish" => own.contains(&format!("-l {} ", &l[2..])),
                    // '--opt[...]', '--opt=[...]' (with prefixes for conflicts and
                    // repeats: '(--other)--opt', '*--opt').
                    _ => own.contains(&format!("{l}[")) || own.contains(&format!("{l}=[")),
                };
                assert!(named, "{shell}: {name} {l} not completed");
            }
        }
    }
}
