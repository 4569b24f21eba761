//! How options are written in messages: an option's flag as a person types it
//! (from its clap declaration), and lists of them.

use crate::cli::Args;
use crate::results::test_kind::TestKind;

/// How an option is written on the command line: `-c` where it has a short form,
/// else `--long`.
pub(super) fn flag(id: &str) -> String {
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

/// "a", "a or b", "a, b or c" (with `last` "or"), of the options' flags.
pub(super) fn list(ids: &[&str], last: &str) -> String {
    let flags: Vec<String> = ids.iter().map(|i| flag(i)).collect();
    match flags.split_last() {
        Some((only, [])) => only.clone(),
        Some((end, rest)) => format!("{} {last} {end}", rest.join(", ")),
        None => String::new(),
    }
}

/// The options of the tests whose results --plot draws, as "--zones, ... and
/// --smr-check" (for the message of a run with nothing to draw).
pub fn plotted_tests() -> String {
    let ids: Vec<&str> = TestKind::ALL
        .into_iter()
        .filter(|t| t.row().plots)
        .map(TestKind::id)
        .collect();
    list(&ids, "and")
}

/// "a", "a or b", "a, b or c".
pub(super) fn or_list(ids: &[&str]) -> String {
    list(ids, "or")
}
