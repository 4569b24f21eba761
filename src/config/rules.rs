//! The rules on combinations of options: for every option clap defines, what it
//! needs beside it on the command line to mean something (a test it applies to, -w,
//! --qualify), checked once, with diskinfo's own rules for -p, -s and -S first,
//! then the rules between options that are each fine alone (between.rs). What an option applies
//! to comes from its declaration ([`crate::cli::Opt`]); what a test writes and
//! draws, from the table of tests ([`TestKind::row`]); --burn-in's, from its steps.

use super::flags::{flag, or_list};
use crate::burnin;
use crate::cli::{Applies, Args, BesideId};
use crate::results::test_kind::{Row, TestKind, Writes};
use thiserror::Error;

/// A command line that gives an option without what it applies to, or breaks one of
/// diskinfo's rules.
#[derive(Debug, Error, PartialEq)]
pub enum RuleError {
    /// diskinfo's rule for -p and -s.
    #[error("-p or -s cannot be used with other options")]
    ExclusiveOutput,
    /// diskinfo's rule for -S.
    #[error("-S writes to the disk: add -w to allow writing, or drop -S")]
    SyncWriteNeedsWrite,
    /// An option given without the test (or option) it applies to, or beside one
    /// it cannot work with.
    #[error("{0}")]
    DoesNotApply(String),
    /// An option without a rule in [`needs`] (a bug, caught by the tests).
    #[error("--{0}: no rule says which tests this option applies to")]
    NoRule(String),
}

/// The clap id of --burn-in, which is no test of its own but runs several
/// ([`burnin::tests`]): it writes and draws as they do.
pub(super) const BURN_IN: &str = "burn_in";

/// The options that read SMART health (what the options that run on any test
/// apply to besides the tests).
const SMART: &[&str] = &["smart", "smart_test"];

/// The tests the burn-in runs, on either medium, without the optional --smr-check.
fn burn_in_tests() -> Vec<TestKind> {
    burnin::tests(burnin::Settings::default())
}

/// The clap ids of the tests whose row satisfies `f`, in the table's order, and
/// --burn-in after them when one of its tests does.
fn tests_where(f: impl Fn(Row) -> bool) -> Vec<&'static str> {
    let burn_in = burn_in_tests().into_iter().any(|t| f(t.row()));
    TestKind::ALL
        .into_iter()
        .filter(|t| f(t.row()))
        .map(TestKind::id)
        .chain(burn_in.then_some(BURN_IN))
        .collect()
}

/// The tests (and --burn-in) that write with -w.
fn writing() -> Vec<&'static str> {
    tests_where(|r| r.writes != Writes::No)
}

/// The options that tune test `t` (those declared `Tunes` it), in their
/// declarations' order.
pub fn tuning(t: TestKind) -> Vec<&'static str> {
    Args::declared()
        .into_iter()
        .filter(
            |(_, o)| matches!(o.applies, Applies::Tunes { tests, .. } if tests.contains(&t.id())),
        )
        .map(|(id, _)| id)
        .collect()
}

/// The tests (by id, in the table's order) that the tuning option declared
/// `tests` tunes, and --burn-in after them when `burn_in`.
fn tuned(tests: &[&str], burn_in: bool) -> Vec<&'static str> {
    TestKind::ALL
        .into_iter()
        .map(TestKind::id)
        .filter(|id| tests.contains(id))
        .chain(burn_in.then_some(BURN_IN))
        .collect()
}

/// The test that option `id` selects.
fn test_of(id: &str) -> Option<TestKind> {
    TestKind::ALL.into_iter().find(|t| t.id() == id)
}

/// The tests a command line asks for (`given` says which options it gives), in
/// the table's order, then those --burn-in adds (once each).
pub(super) fn tests_given(given: &dyn Fn(&str) -> bool) -> Vec<TestKind> {
    let mut tests: Vec<TestKind> = TestKind::ALL
        .into_iter()
        .filter(|t| given(t.id()))
        .collect();
    if given(BURN_IN) {
        let settings = burnin::Settings {
            // The optional steps (--smr-check's) run when their test is asked for.
            smr_check: TestKind::ALL
                .into_iter()
                .any(|t| t.row().burn_in.is_some_and(|b| b.optional) && given(t.id())),
            ..burnin::Settings::default()
        };
        for t in burnin::tests(settings) {
            if !tests.contains(&t) {
                tests.push(t);
            }
        }
    }
    tests
}

/// What an option needs beside it on the command line to mean something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Needs {
    /// Nothing: the disks, the tests themselves, the output form.
    Nothing,
    /// One of `any` (clap argument ids), and every one of `all`.
    AnyOf {
        /// At least one of these.
        any: Vec<&'static str>,
        /// And all of these.
        all: Vec<&'static str>,
    },
}

/// How -p and -s take option `id` (its declaration); Refused for an id
/// not declared.
fn beside_id(id: &str) -> BesideId {
    Args::option(id).map_or(BesideId::Refused, |o| o.beside_id)
}

/// What the option with clap id `id` needs, read from its declaration
/// (cli/probe.rs); None for an id not declared (a test fails for every option of
/// the command line without a declaration).
pub fn needs(id: &str) -> Option<Needs> {
    let any = |any: Vec<&'static str>| Needs::AnyOf { any, all: vec![] };
    let with_write = |any| Needs::AnyOf {
        any,
        all: vec!["write"],
    };
    let any_run = || any([tests_where(|_| true), SMART.to_vec()].concat());
    Some(match Args::option(id)?.applies {
        Applies::Alone => Needs::Nothing,
        Applies::Test => match test_of(id)? {
            t if t.row().writes == Writes::NeedsW => with_write(vec![t.id()]),
            _ => Needs::Nothing,
        },
        Applies::Tunes { tests, burn_in } => any(tuned(tests, burn_in)),
        Applies::With {
            any: of,
            write: false,
        } => any(of.to_vec()),
        Applies::With {
            any: of,
            write: true,
        } => with_write(of.to_vec()),
        Applies::AnyRun => any_run(),
        Applies::Writing { or, write: false } => any([writing(), or.to_vec()].concat()),
        Applies::Writing { or, write: true } => with_write([writing(), or.to_vec()].concat()),
        Applies::Restoring => with_write(
            TestKind::ALL
                .into_iter()
                .filter(|t| t.row().restores)
                .map(TestKind::id)
                .collect(),
        ),
        Applies::Plotted => any(tests_where(|r| r.plots)),
    })
}

/// Option `id` given without any of `any` (and with `all` also needed): what it
/// applies to, and what to add or drop.
fn unmet(id: &str, any: &[&str], all: &[&str]) -> RuleError {
    let opt = flag(id);
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
    RuleError::DoesNotApply(format!(
        "{opt} applies to {}{with}; {add} or drop {opt}",
        or_list(any)
    ))
}

/// Option `id` given without what its declaration says it needs (a command whose
/// options are not checked by [`check_rules`], as `compare`'s --qualify group).
pub(super) fn needs_unmet(id: &str) -> RuleError {
    match needs(id) {
        Some(Needs::AnyOf { any, all }) => unmet(id, &any, &all),
        _ => RuleError::NoRule(id.to_string()),
    }
}

/// The rules on combinations of options, given which were on the command line:
/// diskinfo's, then what each option needs (the rules between options are
/// between.rs's, checked after these).
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
        if ids.iter().any(|id| beside_id(id) == BesideId::Diskinfo) {
            return Err(RuleError::ExclusiveOutput);
        }
        let which = if given("physical_path") { "-p" } else { "-s" };
        if let Some(id) = ids.iter().find(|id| beside_id(id) != BesideId::Accepted) {
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
    // diskinfo's own test that writes (-S), without -w: diskinfo's words.
    let diskinfo_writes = TestKind::ALL
        .into_iter()
        .find(|t| t.row().writes == Writes::NeedsW && beside_id(t.id()) == BesideId::Diskinfo);
    if diskinfo_writes.is_some_and(|t| given(t.id())) && !given("write") {
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
        if !any.iter().any(|t| given(t)) {
            return Err(unmet(id, &any, &all));
        }
        if let Some(missing) = all.iter().find(|t| !given(t)) {
            let opt = flag(id);
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
pub(super) fn looks_like_a_count(disk: &str) -> bool {
    !disk.is_empty()
        && disk.bytes().all(|b| b.is_ascii_digit())
        && !std::path::Path::new(disk).exists()
        && !std::path::Path::new("/dev").join(disk).exists()
}

#[cfg(test)]
mod tests {
    use super::super::flags::plotted_tests;
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

    /// The declarations name tests and options clap defines, each test's id
    /// selects that test alone, every clap option is declared, and --burn-in
    /// passes on only options one of its tests takes.
    #[test]
    fn the_declarations_speak_clap_and_the_table_of_tests() {
        let cmd = Args::command();
        let arg = |id: &str| cmd.get_arguments().find(|a| a.get_id() == id);
        for t in TestKind::ALL {
            let a = arg(t.id()).unwrap_or_else(|| panic!("{t:?}: no option {}", t.id()));
            assert!(a.get_long().is_some(), "{t:?}");
            assert_eq!(
                Args::option(t.id()).unwrap().applies,
                Applies::Test,
                "{t:?}"
            );
            assert_eq!(tests_given(&|id| id == t.id()), [t]);
        }
        let declared = Args::declared();
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            assert!(
                declared.iter().any(|(d, _)| *d == id),
                "--{id} is not declared"
            );
        }
        let runs = burn_in_tests();
        for (id, o) in &declared {
            assert!(
                arg(id).is_some(),
                "{id} is declared but clap does not define it"
            );
            match o.applies {
                Applies::Test => assert!(test_of(id).is_some(), "{id} selects no test"),
                Applies::Tunes { tests, burn_in } => {
                    for t in tests {
                        assert!(test_of(t).is_some(), "{id} tunes {t}, which is no test");
                    }
                    assert!(
                        !burn_in || runs.iter().any(|r| tests.contains(&r.id())),
                        "--burn-in takes {id}, which none of its tests takes"
                    );
                }
                Applies::With { any, .. } | Applies::Writing { or: any, .. } => {
                    for w in any {
                        assert!(
                            arg(w).is_some(),
                            "{id} applies to {w}, which clap does not define"
                        );
                    }
                }
                Applies::Alone | Applies::AnyRun | Applies::Restoring | Applies::Plotted => {}
            }
        }
        assert_eq!(
            tuning(TestKind::RandomReads),
            ["seed", "queue_depth", "duration", "settle"]
        );
        assert!(writing().contains(&BURN_IN) && tests_where(|r| r.plots).contains(&BURN_IN));
        assert_eq!(
            plotted_tests(),
            "--zones, --seek-profile, --scan and --smr-check"
        );
        assert_eq!(
            tests_given(&|id| id == BURN_IN),
            [
                TestKind::SeekTransfer,
                TestKind::Zones,
                TestKind::SyncWrite,
                TestKind::Verify,
                TestKind::CapacityCheck
            ]
        );
    }

    /// The help of -w, --preserve and --plot (clap's doc comments, which cannot be
    /// made from the table) names every test the table says they apply to.
    #[test]
    fn the_help_names_the_tests_of_the_table() {
        let cmd = Args::command();
        let help = |id: &str| {
            let a = cmd.get_arguments().find(|a| a.get_id() == id).unwrap();
            a.get_help().unwrap().to_string()
        };
        let names = |text: String, ids: Vec<&str>| {
            for id in ids {
                let f = flag(id);
                let words: Vec<&str> = text
                    .split(|c: char| !(c.is_alphanumeric() || c == '-'))
                    .collect();
                assert!(words.contains(&f.as_str()), "{text:?} does not name {f}");
            }
        };
        names(help("write"), writing());
        names(help("preserve"), tests_where(|r| r.writes != Writes::No));
        names(help("plot"), tests_where(|r| r.plots));
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
            for a in &all {
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
                        for t in &any {
                            assert!(e.contains(&flag(t)), "{me:?}: {e} does not name {t}");
                        }
                    }
                    for t in &any {
                        let mut args = me.clone();
                        for a in std::iter::once(t).chain(&all) {
                            enable(a, id, &mut args, &opt_of);
                        }
                        if id == "max_temp" && *t != BURN_IN {
                            // The temperature is read through SMART.
                            enable("smart", id, &mut args, &opt_of);
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
            if beside_id(id) == BesideId::Diskinfo || id == "ident" {
                assert_eq!(r, Err(RuleError::ExclusiveOutput), "{with_p:?}");
            } else if beside_id(id) == BesideId::Accepted {
                assert_eq!(r, Ok(()), "{with_p:?}");
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
