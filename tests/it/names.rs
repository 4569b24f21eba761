//! One name, one thing (issue 57): no public type name of src/ means two things, and
//! no file name of src/ is used twice unless docs/architecture.md says the files are
//! one concept's parts in different layers ("File names shared by layers").

use crate::source_tree::{src_code, src_files};
use std::collections::BTreeMap;

/// Every `pub` or `pub(crate)` struct, enum, trait and type alias of src/'s non-test
/// code, by name, with the files that define it.
fn public_types() -> BTreeMap<String, Vec<String>> {
    types_of(&["pub(crate) ", "pub "])
}

/// The structs, enums, traits and type aliases of src/'s non-test code declared
/// with one of the visibilities `vis` (`"pub "`, `"pub(super) "`...), by name, with
/// the files that define them.
fn types_of(vis: &[&str]) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, text) in src_code() {
        for line in text.lines() {
            let l = line.trim_start();
            let rest = vis.iter().find_map(|v| l.strip_prefix(v));
            let Some(rest) = rest else { continue };
            for kw in ["struct ", "enum ", "trait ", "type "] {
                if let Some(name) = rest.strip_prefix(kw) {
                    let name: String = (name.chars())
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    // A macro's `pub struct $name` defines no name of its own.
                    if !name.is_empty() {
                        out.entry(name).or_default().push(path.clone());
                    }
                }
            }
        }
    }
    out
}

#[test]
fn a_public_type_name_is_defined_once() {
    let types = public_types();
    assert!(types.contains_key("TestResult"), "{types:?}");
    let twice: Vec<_> = types.iter().filter(|(_, files)| files.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "public types defined twice in src/: {twice:?}"
    );
}

/// The file names docs/architecture.md allows in several rooms: the backquoted
/// `NAME.rs` opening each item of its "File names shared by layers" list.
fn shared_names() -> Vec<String> {
    let top = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(top.join("docs/architecture.md")).unwrap();
    let section = doc
        .split("## File names shared by layers")
        .nth(1)
        .expect("docs/architecture.md has a \"File names shared by layers\" section");
    let section = section.split("\n## ").next().unwrap();
    (section.lines())
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split('`').next())
        .filter(|n| n.ends_with(".rs") && !n.contains('/'))
        .map(String::from)
        .collect()
}

/// The files of src/ (test code left out) by their file name, mod.rs aside.
fn by_file_name() -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for path in src_files().into_keys() {
        let name = path.rsplit('/').next().unwrap().to_string();
        if name != "mod.rs" {
            out.entry(name).or_default().push(path);
        }
    }
    out
}

#[test]
fn a_file_name_is_one_concept() {
    let allowed = shared_names();
    assert!(allowed.iter().any(|n| n == "path.rs"), "{allowed:?}");
    let files = by_file_name();
    let unexplained: Vec<_> = (files.iter())
        .filter(|(name, paths)| paths.len() > 1 && !allowed.contains(name))
        .collect();
    assert!(
        unexplained.is_empty(),
        "file names used twice in src/ that docs/architecture.md does not list as one \
         concept's layers: {unexplained:?}"
    );
    let stale: Vec<_> = (allowed.iter())
        .filter(|n| files.get(*n).is_none_or(|p| p.len() < 2))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as shared but not shared: {stale:?}"
    );
}

#[test]
fn at_most_two_record_rs() {
    let files = by_file_name();
    let records = files.get("record.rs").cloned().unwrap_or_default();
    assert!(records.len() <= 2, "record.rs means one thing: {records:?}");
}

/// The `pub(super)` type names also defined elsewhere in src/ (at issue 57: five,
/// `Confirmed`, `Sampler`, `Saver`, `State`, `Stream`); a repeat is mended by a
/// new name, not by narrowing a public one to `pub(super)`.
#[test]
fn the_pub_super_names_repeated_do_not_grow() {
    let all = types_of(&["pub(crate) ", "pub(super) ", "pub "]);
    let local = types_of(&["pub(super) "]);
    let repeated: Vec<_> = (local.keys())
        .filter(|n| all.get(*n).is_some_and(|f| f.len() > 1))
        .collect();
    assert!(
        repeated.len() <= 5,
        "pub(super) names defined twice: {repeated:?}"
    );
}
