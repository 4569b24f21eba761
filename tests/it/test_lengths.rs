//! No function of tests/ is longer than [`crate::lengths::MAX_LINES`] lines, as
//! for src/ (issue 39): a test that reads as one story, its steps in named helpers.
//! Counted by the same counter as src/'s functions (tests/it/lengths.rs).

use std::path::Path;

/// Every `.rs` file under `dir`, with its path relative to the crate.
fn test_sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            test_sources(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
            out.push((rel, std::fs::read_to_string(&p).unwrap()));
        }
    }
}

#[test]
fn no_function_of_tests_is_longer_than_120_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    test_sources(root, &root.join("tests"), &mut files);
    assert!(
        files.iter().any(|(p, _)| p == "tests/it/main.rs"),
        "tests/ was read"
    );
    let mut long: Vec<String> = Vec::new();
    for (path, src) in &files {
        for (name, line, lines) in crate::lengths::functions(src) {
            if lines > crate::lengths::MAX_LINES {
                long.push(format!("{path}:{line} {name}: {lines} lines"));
            }
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "test functions over {} lines (split them into named steps):\n{}",
        crate::lengths::MAX_LINES,
        long.join("\n")
    );
}
