//! A test is one spec (issue 28): for each kind of test, at most four files of
//! src/ (test code left out: `tests.rs` files, `tests/` folders, `*_tests.rs` and
//! the `#[cfg(test)] mod tests` at a file's end) name its variant `TestKind::X`:
//! the registry (results/test_kind.rs), its plan (test_plans/plan.rs), the end of its
//! text (report/diskinfo.rs's `test_end`, which matches every kind) and one
//! other. Everything else reads the registry's row or the result's payload
//! (docs/architecture.md, "Adding a test"); and the registry's ids are written
//! in the registry alone.

/// The variants of `enum TestKind`, read from the registry.
fn kinds(registry: &str) -> Vec<String> {
    let start = registry.find("pub enum TestKind {").unwrap();
    let body = &registry[start..start + registry[start..].find("\n}").unwrap()];
    body.lines()
        .skip(1)
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.starts_with('#') && !l.is_empty())
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// Whether `code` names `TestKind::kind` (not a longer name that starts with it).
fn names(code: &str, kind: &str) -> bool {
    let pat = format!("TestKind::{kind}");
    code.match_indices(&pat).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let after = code[i + pat.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn each_kind_of_test_is_named_by_at_most_four_files_of_src() {
    let src = crate::source_tree::src_code();
    let kinds = kinds(&src["results/test_kind.rs"]);
    assert!(kinds.len() >= 11, "{kinds:?}");
    let mut over = Vec::new();
    for k in &kinds {
        let files: Vec<&str> = (src.iter())
            .filter(|(_, code)| names(code, k))
            .map(|(f, _)| f.as_str())
            .collect();
        eprintln!("{k}: {} {files:?}", files.len());
        for home in [
            "results/test_kind.rs",
            "test_plans/plan.rs",
            "report/diskinfo.rs",
        ] {
            assert!(files.contains(&home), "{k}: not in {home}: {files:?}");
        }
        if files.len() > 4 {
            over.push(format!("{k}: {files:?}"));
        }
    }
    assert!(over.is_empty(), "named by more than four files: {over:#?}");
}

/// The count reads `TestKind::X`: a variant imported by a glob, by name or under
/// another name would escape it.
#[test]
fn no_file_of_src_names_a_kind_another_way() {
    for (f, code) in crate::source_tree::src_code() {
        for hidden in ["TestKind::*", "TestKind::{", "TestKind as "] {
            assert!(!code.contains(hidden), "{f} holds `{hidden}`");
        }
    }
}

/// Every id of the registry (`id: "..."` in results/test_kind.rs: the tests' and
/// the burn-in steps').
fn ids(registry: &str) -> Vec<String> {
    let mut out: Vec<String> = (registry.match_indices("id: \""))
        .map(|(i, m)| {
            let rest = &registry[i + m.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .filter(|id| !id.is_empty())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Files that write a registry id as a literal besides the registry, each with
/// why; nothing may be added.
const IDS_BEING_MOVED: &[(&str, &str)] = &[
    // The one place options are declared (issue 39): an option that tunes a test
    // names it by the clap id of the option that selects it, which is its id.
    ("cli/probe.rs", "the options' declarations"),
];

/// A test's id is written once, in the registry: every other file of src/ reads
/// it from there (`TestKind::id`, a result's `test`, a row's `burn_in`), so that
/// an id cannot drift from its test (as `iops` did from `random_reads`).
#[test]
fn each_id_of_the_registry_is_written_in_the_registry_alone() {
    let src = crate::source_tree::src_code();
    let ids = ids(&src["results/test_kind.rs"]);
    assert!(ids.len() >= 12, "{ids:?}");
    let mut over = Vec::new();
    for id in &ids {
        let lit = format!("\"{id}\"");
        let files: Vec<&str> = (src.iter())
            .filter(|(f, code)| f.as_str() != "results/test_kind.rs" && code.contains(&lit))
            .map(|(f, _)| f.as_str())
            .filter(|f| !IDS_BEING_MOVED.iter().any(|(g, _)| g == f))
            .collect();
        if !files.is_empty() {
            over.push(format!("{lit}: {files:?}"));
        }
    }
    assert!(
        over.is_empty(),
        "registry ids written outside the registry: {over:#?}"
    );
}
