//! The architecture's one-way flow, checked: the graph of references between the
//! files of src/ (`use crate::…`, `crate::x::…`, `super::…`; a file is a module, a
//! folder's mod.rs its folder's module) has no circle, and no two rooms of src/
//! (a folder, or a file directly in src/) import each other, and results/ (the data
//! model) imports nothing of src/ but itself. Unit-test modules
//! (`#[cfg(test)] mod tests`, tests.rs files, tests/ folders) are left out: a test
//! may drive its module from above.

use std::collections::{BTreeMap, BTreeSet};

/// Every module of src/ (but the binary's main.rs) and its source: a file is a
/// module, a folder's mod.rs its folder's module, lib.rs the crate; tests.rs files
/// and tests/ folders are left out.
fn modules() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (path, text) in crate::source_tree::rs_files("src") {
        let mut parts: Vec<&str> = path.trim_end_matches(".rs").split('/').collect();
        let file = parts.pop().unwrap();
        if parts.contains(&"tests") || file == "tests" || (parts.is_empty() && file == "main") {
            continue;
        }
        let name = match file {
            "lib" if parts.is_empty() => "crate".to_string(),
            "mod" => parts.join("::"),
            f => {
                parts.push(f);
                parts.join("::")
            }
        };
        out.insert(name, text);
    }
    out
}

/// The source without comments and without its unit-test module.
fn code(src: &str) -> String {
    let src = match src.find("#[cfg(test)]\nmod tests") {
        Some(i) => &src[..i],
        None => src,
    };
    src.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module paths `src` (module `me`) refers to with `crate::` or `super::`.
fn references(me: &str, src: &str) -> Vec<String> {
    let ident = |s: &str| -> usize {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len())
    };
    let parent = |m: &str| match m.rfind("::") {
        Some(i) => m[..i].to_string(),
        None => "crate".to_string(),
    };
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < src.len() {
        if !src.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &src[i..];
        let before_ok = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let (base, skip) = if before_ok && rest.starts_with("crate::") {
            ("crate".to_string(), 7)
        } else if before_ok && rest.starts_with("super::") {
            // super of a file module is its folder's module; of crate::a, the crate.
            let mut b = parent(me);
            let mut k = 7;
            while src[i + k..].starts_with("super::") {
                b = parent(&b);
                k += 7;
            }
            (b, k)
        } else {
            i += 1;
            continue;
        };
        let mut path = base;
        let mut j = i + skip;
        loop {
            let r = &src[j..];
            if r.starts_with('{') {
                // `use crate::a::{b, c::d}`: each item's first name.
                let end = r.find('}').unwrap_or(r.len());
                for item in r[1..end].split(',') {
                    let item = item.trim();
                    let n = ident(item);
                    if n > 0 {
                        out.push(format!("{path}::{}", &item[..n]));
                    }
                }
                path.clear();
                break;
            }
            let n = ident(r);
            if n == 0 || !r[..1].chars().all(|c| c.is_ascii_lowercase()) {
                break;
            }
            path = format!("{path}::{}", &r[..n]);
            j += n;
            if src[j..].starts_with("::") {
                j += 2;
            } else {
                break;
            }
        }
        if !path.is_empty() {
            out.push(path);
        }
        i = j.max(i + 1);
    }
    out
}

/// The module a referenced path lands in: its longest prefix that is a module.
fn resolve(path: &str, mods: &BTreeMap<String, String>) -> Option<String> {
    let path = path.strip_prefix("crate::").unwrap_or(path);
    let mut p = path.to_string();
    loop {
        if mods.contains_key(&p) {
            return Some(p);
        }
        match p.rfind("::") {
            Some(i) => p.truncate(i),
            None => return None,
        }
    }
}

#[test]
fn the_files_of_src_import_each_other_without_a_circle() {
    let mods = modules();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, src) in &mods {
        let edges = graph.entry(m.clone()).or_default();
        for r in references(m, &code(src)) {
            if let Some(to) = resolve(&r, &mods)
                && &to != m
            {
                edges.insert(to);
            }
        }
    }
    assert!(
        graph["prober"].contains("executor") && graph["test_plans::plan"].contains("test_plans"),
        "the reader of references is broken: {graph:?}"
    );
    // Depth-first search; a module met again on the current path closes a circle.
    fn visit(
        m: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut circle = path[i..].to_vec();
            circle.push(m.to_string());
            return Some(circle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for to in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(to, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(c) = visit(m, &graph, &mut Vec::new(), &mut done) {
            panic!("an import circle: {}", c.join(" -> "));
        }
    }
}

#[test]
fn the_reader_finds_crate_and_super_paths_and_braced_lists() {
    let src = "use super::{Phase, zones::X};\nuse crate::engine::queued::{self, QueuedParams};\nlet x = super::super::clock::now(); // crate::ignored\n";
    let r = references("test_plans::plan", &code(src));
    assert_eq!(
        r,
        [
            "test_plans::Phase",
            "test_plans::zones",
            "crate::engine::queued::self",
            "crate::engine::queued::QueuedParams",
            "crate::clock::now",
        ]
    );
}

/// The room of a module: its folder under src/, or the file itself for a file
/// directly in src/ (`engine::queue` is in `engine`, `results` is `results`).
fn room(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

#[test]
fn no_two_rooms_of_src_import_each_other() {
    let mods = modules();
    let mut rooms: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (m, src) in &mods {
        if m == "crate" {
            continue;
        }
        for r in references(m, &code(src)) {
            if let Some(to) = resolve(&r, &mods) {
                let (a, b) = (room(m), room(&to).to_string());
                if a != b && to != "crate" {
                    rooms.entry(a).or_default().insert(b);
                }
            }
        }
    }
    let both: Vec<String> = rooms
        .iter()
        .flat_map(|(a, tos)| {
            tos.iter()
                .filter(|b| {
                    *a < b.as_str() && rooms.get(b.as_str()).is_some_and(|t| t.contains(*a))
                })
                .map(move |b| format!("{a} <-> {b}"))
        })
        .collect();
    assert!(both.is_empty(), "rooms that import each other: {both:?}");
}

#[test]
fn results_imports_nothing_but_itself() {
    let mods = modules();
    assert!(
        mods.contains_key("results::smart") && mods.contains_key("results::verdict"),
        "the results' files are not where this test looks: {:?}",
        mods.keys().collect::<Vec<_>>()
    );
    let mut outside = Vec::new();
    for (m, src) in mods.iter().filter(|(m, _)| room(m) == "results") {
        for r in references(m, &code(src)) {
            match resolve(&r, &mods) {
                Some(to) if room(&to) == "results" => {}
                _ => outside.push(format!("{m} -> {r}")),
            }
        }
    }
    assert!(
        outside.is_empty(),
        "results/ is the data model at the bottom of src/: it may import itself, std \
         and external crates only, not {outside:?}"
    );
}

/// Where `word` is written in the code of src/ (tests and comments left out), as
/// a whole word: the modules, once per time.
fn written(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (m, src) in modules() {
        let c = code(&src);
        let mut from = 0;
        while let Some(i) = c[from..].find(word) {
            let at = from + i;
            let before = c[..at].chars().next_back();
            let after = c[at + word.len()..].chars().next();
            let part = |ch: Option<char>| ch.is_some_and(|ch| ch.is_alphanumeric() || ch == '_');
            if !part(before) && !part(after) {
                out.push(m.clone());
            }
            from = at + word.len();
        }
    }
    out
}

#[test]
fn no_room_re_exports_the_results() {
    // Importers name `crate::results::...` (issue 28): a type of the data model
    // has one path, whichever room computes it.
    let mut found = written("pub use crate::results");
    found.extend(written("pub(crate) use crate::results"));
    found.retain(|m| room(m) != "results");
    assert!(
        found.is_empty(),
        "re-exports of results/ types outside results/ (import them from crate::results): {found:?}"
    );
}

#[test]
fn one_word_for_one_thing() {
    // One Severity, one Finding, one Verdict and one judge in the program
    // (issue 28): SMART's rules make findings, a read-back is a ReadBack, the
    // SMR check ends in an SmrConclusion, the capacity check in a
    // CapacityOutcome.
    for (what, words) in [
        ("Severity", &["enum Severity", "struct Severity"][..]),
        ("Finding", &["enum Finding", "struct Finding"][..]),
        ("Verdict", &["enum Verdict", "struct Verdict"][..]),
        ("judge", &["fn judge"][..]),
    ] {
        let found: Vec<String> = words.iter().flat_map(|w| written(w)).collect();
        assert_eq!(
            found.len(),
            1,
            "{what} is defined in {found:?}: one of each"
        );
    }
    assert_eq!(
        written("fn judge"),
        ["verdict"],
        "the one judge is verdict::judge"
    );
}
