//! The rules on combinations of options: for every option clap defines, what it
//! needs beside it on the command line to mean something (a test it applies to, -w,
//! --qualify), checked once, with diskinfo's own rules for -p, -s and -S first.

use crate::cli::Args;
use thiserror::Error;

/// A command line that gives an option without what it applies to, or breaks one of
/// diskinfo's rules.
#[derive(Debug, Error, PartialEq)]
pub enum RuleError {
    /// diskinfo's rule for -p and -s.
    #[error("-p or -s cannot be used with other options")]
    ExclusiveOutput,
    /// diskinfo's rule for -S.
    #[error("-S require also -w")]
    SyncWriteNeedsWrite,
    /// An option given without the test (or option) it applies to.
    #[error("{0}")]
    DoesNotApply(String),
    /// An option without a rule in [`needs`] (a bug, caught by the tests).
    #[error("--{0}: no rule says which tests this option applies to")]
    NoRule(String),
}

/// The tests (clap argument ids).
const TESTS: &[&str] = &[
    "command_overhead",
    "seek_transfer",
    "iops",
    "sync_write",
    "zones",
    "seek_profile",
    "scan",
    "block_sweep",
    "verify",
    "burn_in",
    "capacity_check",
    "smr_check",
];
/// The tests, and the SMART options that read the drive (--smart, --smart-test):
/// what --compare, --qualify, --quiet and --parallel apply to.
const TESTS_OR_SMART: &[&str] = &TESTS_AND_SMART;
const TESTS_AND_SMART: [&str; TESTS.len() + SMART.len()] =
    concat_ids::<{ TESTS.len() + SMART.len() }>(TESTS, SMART);
/// Two lists of ids as one.
const fn concat_ids<const N: usize>(a: &[&'static str], b: &[&'static str]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut i = 0;
    while i < a.len() {
        out[i] = a[i];
        i += 1;
    }
    let mut j = 0;
    while j < b.len() {
        out[i + j] = b[j];
        j += 1;
    }
    out
}
/// The options that read SMART health (what --new and --threshold apply to).
const SMART: &[&str] = &["smart", "smart_test"];
/// The tests that pause before their timed lines (--settle): all but --scan.
const PAUSED: &[&str] = &all_but::<{ TESTS.len() - 1 }>(TESTS, "scan");

/// `list` without `name` (which it must hold once), at compile time.
const fn all_but<const N: usize>(list: &[&'static str], name: &str) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut j) = (0, 0);
    while i < list.len() {
        if !same(list[i], name) {
            out[j] = list[i];
            j += 1;
        }
        i += 1;
    }
    assert!(j == N, "the name must be in the list once");
    out
}

/// String equality in a const fn.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
/// The tests that write with -w.
const WRITING: &[&str] = &[
    "sync_write",
    "zones",
    "block_sweep",
    "verify",
    "capacity_check",
    "smr_check",
    "burn_in",
];
/// What -w applies to: the tests that write, and -p/-s (diskinfo accepts -w there).
const WRITE_APPLIES: [&str; WRITING.len() + 2] =
    concat_ids::<{ WRITING.len() + 2 }>(WRITING, &["physical_path", "ident"]);

/// What an option needs beside it on the command line to mean something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: the disks, the tests themselves, the output form.
    Nothing,
    /// One of `any` (clap argument ids), and every one of `all`.
    AnyOf {
        /// At least one of these.
        any: &'static [&'static str],
        /// And all of these.
        all: &'static [&'static str],
    },
}

/// The options -p and -s accept besides the disks, as diskinfo does.
const ID_OUTPUT_OK: &[&str] = &["physical_path", "ident", "with_name", "write", "disks"];
/// The options whose use with -p or -s diskinfo refuses with its own message
/// (-c, -i, -t, -S and -v all set diskinfo's opt_v).
const DISKINFO_EXCLUSIVE: &[&str] = &[
    "command_overhead",
    "seek_transfer",
    "iops",
    "sync_write",
    "verbose",
];

/// What the option with clap id `id` needs; None for an id this table does not
/// know (a test fails for every option of the command line without a rule).
pub fn needs(id: &str) -> Option<Needs> {
    let any = |any| Needs::AnyOf { any, all: &[] };
    Some(match id {
        "disks" | "help" | "version" | "physical_path" | "ident" | "verbose" | "format"
        | "json" | "json_file" | "html" | "prometheus" => Needs::Nothing,
        "command_overhead" | "seek_transfer" | "iops" | "zones" | "seek_profile" | "scan"
        | "block_sweep" => Needs::Nothing,
        "sync_write" => Needs::AnyOf {
            any: &["sync_write"],
            all: &["write"],
        },
        "verify" => Needs::AnyOf {
            any: &["verify"],
            all: &["write"],
        },
        "passes" => any(&["verify", "burn_in"]),
        "bad_blocks" | "bad_blocks_size" => any(&["verify"]),
        "capacity_check" => Needs::AnyOf {
            any: &["capacity_check"],
            all: &["write"],
        },
        "write" => any(&WRITE_APPLIES),
        "force" | "yes" => Needs::AnyOf {
            any: WRITING,
            all: &["write"],
        },
        "preserve" => Needs::AnyOf {
            any: &["sync_write", "capacity_check"],
            all: &["write"],
        },
        "with_name" => any(&["physical_path", "ident"]),
        "seed" => any(&["iops", "sync_write", "seek_profile", "smr_check"]),
        "write_duration" => any(&["sync_write"]),
        "queue_depth" => any(&["iops", "block_sweep"]),
        "duration" => any(&["iops"]),
        "settle" => any(PAUSED),
        "zone_size" => any(&["zones", "burn_in"]),
        "seek_samples" => any(&["seek_profile"]),
        "block_size" | "start" | "end" | "slow_ms" => any(&["scan", "verify"]),
        "io_timeout" => any(&["scan", "verify", "burn_in"]),
        "sweep_duration" => any(&["block_sweep"]),
        "plot" => any(&["zones", "seek_profile", "scan", "smr_check", "burn_in"]),
        "compare" | "qualify" | "quiet" | "parallel" => any(TESTS_OR_SMART),
        "smart" | "smart_test" => Needs::Nothing,
        // --burn-in reads SMART too.
        "new" | "new_max_hours" | "thresholds" => any(&["smart", "smart_test", "burn_in"]),
        "max_temp" => any(&["burn_in", "verify", "smr_check"]),
        "max_deviation" | "baseline" => any(&["qualify"]),
        "smr_check" => Needs::AnyOf {
            any: &["smr_check"],
            all: &["write"],
        },
        "smr_budget" | "smr_idle" => any(&["smr_check"]),
        // The burn-in: it implies -t and --zones (accepted beside it, with their
        // options), and writes, so it needs -w.
        "burn_in" => Needs::AnyOf {
            any: &["burn_in"],
            all: &["write"],
        },
        "resume" => Needs::AnyOf {
            any: &["burn_in"],
            all: &["write"],
        },
        _ => return None,
    })
}

/// How an option is written on the command line: `-c` where it has a short form,
/// else `--long`.
fn flag(id: &str) -> String {
    use clap::CommandFactory;
    let cmd = Args::command();
    let arg = cmd.get_arguments().find(|a| a.get_id() == id);
    match (
        arg.and_then(|a| a.get_short()),
        arg.and_then(|a| a.get_long()),
    ) {
        (Some(c), _) => format!("-{c}"),
        (None, Some(l)) => format!("--{l}"),
        (None, None) => id.to_string(),
    }
}

/// "a", "a or b", "a, b or c".
fn or_list(ids: &[&str]) -> String {
    let flags: Vec<String> = ids.iter().map(|i| flag(i)).collect();
    match flags.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The rules on combinations of options, given which were on the command line.
pub(super) fn check_rules(given: &dyn Fn(&str) -> bool) -> Result<(), RuleError> {
    use clap::CommandFactory;
    let cmd = Args::command();
    let ids: Vec<&str> = cmd
        .get_arguments()
        .map(|a| a.get_id().as_str())
        .filter(|id| given(id))
        .collect();
    // diskinfo's rules first, with its words.
    if given("physical_path") || given("ident") {
        if given("physical_path") && given("ident") {
            return Err(RuleError::ExclusiveOutput);
        }
        if ids.iter().any(|id| DISKINFO_EXCLUSIVE.contains(id)) {
            return Err(RuleError::ExclusiveOutput);
        }
        let which = if given("physical_path") { "-p" } else { "-s" };
        if let Some(id) = ids.iter().find(|id| !ID_OUTPUT_OK.contains(id)) {
            return Err(RuleError::DoesNotApply(format!(
                "{} cannot be used with {which}, which only prints the disk's {}; drop {}",
                flag(id),
                if which == "-p" {
                    "physical path"
                } else {
                    "ident"
                },
                flag(id)
            )));
        }
    }
    if given("sync_write") && !given("write") {
        return Err(RuleError::SyncWriteNeedsWrite);
    }
    if given("json") && given("format") {
        return Err(RuleError::DoesNotApply(
            "--json is --format json: give one of them".into(),
        ));
    }
    for id in &ids {
        let Needs::AnyOf { any, all } = needs(id).ok_or(RuleError::NoRule(id.to_string()))? else {
            continue;
        };
        let opt = flag(id);
        if !any.iter().any(|t| given(t)) {
            let add = if any.len() == 1 {
                format!("add {}", flag(any[0]))
            } else {
                "add one of them".to_string()
            };
            let with = if all.is_empty() {
                String::new()
            } else {
                format!(" with {}", or_list(all))
            };
            return Err(RuleError::DoesNotApply(format!(
                "{opt} applies to {}{with}; {add} or drop {opt}",
                or_list(any)
            )));
        }
        if let Some(missing) = all.iter().find(|t| !given(t)) {
            let m = flag(missing);
            return Err(RuleError::DoesNotApply(format!(
                "{opt} applies only with {m}; add {m} or drop {opt}"
            )));
        }
    }
    Ok(())
}

/// A disk argument that is really the value of `--zones 50` (written without `=`,
/// so clap took it for a disk): all digits, and no such file or device.
pub(super) fn looks_like_zone_count(disk: &str) -> bool {
    !disk.is_empty()
        && disk.bytes().all(|b| b.is_ascii_digit())
        && !std::path::Path::new(disk).exists()
        && !std::path::Path::new("/dev").join(disk).exists()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The rules' verdict on a command line (the program name and a disk added).
    fn check<S: AsRef<str>>(args: &[S]) -> Result<(), RuleError> {
        let mut v = vec!["seekprobe"];
        v.extend(args.iter().map(AsRef::as_ref));
        v.push("x");
        let m = Args::command().try_get_matches_from(v).unwrap();
        check_rules(&|id: &str| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    }

    #[test]
    fn examples_of_the_issue_are_refused_naming_the_test() {
        for (args, msg) in [
            (
                &["-p", "--settle", "1", "x"][..],
                "--settle cannot be used with -p, which only prints the disk's physical path; drop --settle",
            ),
            (
                &["-p", "--parallel", "x"],
                "--parallel cannot be used with -p",
            ),
            (
                &["-s", "--max-deviation", "5", "x"],
                "--max-deviation cannot be used with -s",
            ),
            (
                &["-t", "--max-deviation", "5", "x"],
                "--max-deviation applies to --qualify; add --qualify or drop --max-deviation",
            ),
            (
                &["-t", "--baseline", "b.json", "x"],
                "--baseline applies to --qualify; add --qualify or drop --baseline",
            ),
            (
                &["--slow-ms", "10", "x"],
                "--slow-ms applies to --scan or --verify; add one of them or drop --slow-ms",
            ),
            (
                &["-t", "--queue-depth", "8", "x"],
                "--queue-depth applies to -i or --block-sweep; add one of them or drop --queue-depth",
            ),
            (
                &["-t", "-w", "x"],
                // The list of write tests grows with the tests; its start and end are fixed.
                "-w applies to -S, --zones, --block-sweep, ",
            ),
            (
                &["--zones=4", "--force", "x"],
                "--force applies only with -w; add -w or drop --force",
            ),
            (
                &["-l", "x"],
                "-l applies to -p or -s; add one of them or drop -l",
            ),
            (
                &["--json", "--format", "table", "x"],
                "--json is --format json: give one of them",
            ),
        ] {
            let e = check(args).unwrap_err().to_string();
            assert!(e.contains(msg), "{args:?}: {e}");
        }
    }

    /// The option as given on a command line, with an example value.
    fn given(arg: &clap::Arg) -> Vec<String> {
        let id = arg.get_id().as_str();
        let opt = match (arg.get_short(), arg.get_long()) {
            (Some(c), _) => format!("-{c}"),
            (None, Some(l)) => format!("--{l}"),
            (None, None) => unreachable!("positional"),
        };
        if !arg.get_action().takes_values() {
            return vec![opt];
        }
        let value = match id {
            "zones" => return vec!["--zones=4".into()],
            "format" => "table",
            "json_file" => "run.json",
            "html" => "report.html",
            "plot" => "run.svg",
            "prometheus" => "run.prom",
            "baseline" => "base.json",
            "zone_size" | "block_size" => "64K",
            "end" => "1M",
            "smr_budget" => "1G,1m",
            "smart_test" => "short",
            "thresholds" => "pending=1",
            _ => "1",
        };
        vec![opt, value.into()]
    }

    /// Add option `id` to `args` (unless it is `me` or already there), with what it
    /// needs in turn.
    fn enable(id: &str, me: &str, args: &mut Vec<String>, opt_of: &dyn Fn(&str) -> Vec<String>) {
        let o = opt_of(id);
        if id == me || args.contains(&o[0]) {
            return;
        }
        args.extend(o);
        if let Some(Needs::AnyOf { any, all }) = needs(id) {
            if !any.iter().any(|t| t == &me || args.contains(&opt_of(t)[0])) {
                enable(any[0], me, args, opt_of);
            }
            for a in all {
                enable(a, me, args, opt_of);
            }
        }
    }

    /// Every option of the command line, as clap defines them: each has a rule;
    /// given alone it is refused naming what it applies to, unless it needs nothing;
    /// given with each test it applies to it is accepted; given with -p it is
    /// refused unless diskinfo accepts it there. An option added without a rule
    /// fails here.
    #[test]
    fn every_option_is_checked_against_the_tests_given() {
        let cmd = Args::command();
        let opt_of = |id: &str| {
            cmd.get_arguments()
                .find(|a| a.get_id() == id)
                .map(given)
                .unwrap()
        };
        let mut covered = Vec::new();
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if arg.is_positional() {
                assert_eq!(needs(id), Some(Needs::Nothing), "{id}");
                continue;
            }
            let rule = needs(id).unwrap_or_else(|| panic!("--{id} has no rule in needs()"));
            let me = given(arg);
            covered.push(me[0].clone());
            let alone = check(&me);
            match rule {
                Needs::Nothing => assert_eq!(alone, Ok(()), "{me:?} alone"),
                Needs::AnyOf { any, all } => {
                    let e = alone.expect_err(&format!("{me:?} alone")).to_string();
                    let without = any == ["sync_write"] && id == "sync_write";
                    if !without {
                        assert!(e.contains(&format!("{} applies", flag(id))), "{e}");
                        assert!(e.contains(&format!("drop {}", flag(id))), "{e}");
                        for t in any {
                            assert!(e.contains(&flag(t)), "{me:?}: {e} does not name {t}");
                        }
                    }
                    for t in any {
                        let mut args = me.clone();
                        for a in std::iter::once(t).chain(all) {
                            enable(a, id, &mut args, &opt_of);
                        }
                        if WRITING.contains(t) {
                            // A write test with --parallel needs --yes.
                            enable("yes", id, &mut args, &opt_of);
                        }
                        let r = check(&args);
                        assert_eq!(r, Ok(()), "{args:?}");
                    }
                }
            }
            let mut with_p = vec!["-p".to_string()];
            if id != "physical_path" {
                with_p.extend(me.clone());
            }
            let r = check(&with_p);
            if DISKINFO_EXCLUSIVE.contains(&id) || id == "ident" {
                assert_eq!(r, Err(RuleError::ExclusiveOutput), "{with_p:?}");
            } else if ID_OUTPUT_OK.contains(&id) {
                assert_eq!(r, Ok(()), "{with_p:?}");
            } else if false {
                assert_eq!(r, Err(RuleError::ExclusiveOutput), "{with_p:?}");
            } else {
                let e = r.expect_err(&format!("{with_p:?}")).to_string();
                assert!(
                    e.contains(&format!("{} cannot be used with -", flag(id))),
                    "{e}"
                );
            }
        }
        assert!(covered.len() >= 38, "{covered:?}");
        eprintln!("options covered: {}", covered.join(" "));
    }
}
