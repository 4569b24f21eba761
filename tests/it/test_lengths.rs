//! tests/ held to src/'s rules (issues 39 and 57): no function of tests/ is longer
//! than [`crate::lengths::MAX_LINES`] lines, counted by the same counter as src/'s
//! (tests/it/lengths.rs): a test that reads as one story, its steps in named
//! helpers. And one maker of temporary directories (tests/it/helpers.rs's
//! `scratch_dir` and `temp_dir`) and one walker of the source tree
//! (tests/it/source_tree.rs), so a test does not grow its own of either.

#[test]
fn no_function_of_tests_is_longer_than_120_lines() {
    let files = crate::source_tree::rs_files("tests");
    assert!(files.contains_key("it/main.rs"), "tests/ was read");
    let mut long: Vec<String> = Vec::new();
    for (path, src) in &files {
        for (name, line, lines) in crate::lengths::functions(src) {
            if lines > crate::lengths::MAX_LINES {
                long.push(format!("tests/{path}:{line} {name}: {lines} lines"));
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

/// `src` with its comments and literals blanked ([`crate::lengths::blank`]): only
/// the code's own words, so a name in a string or a comment is no call.
fn code(src: &str) -> String {
    crate::lengths::blank(src).into_iter().collect()
}

/// The lines of `src` that call tempfile's `tempdir()` (by its path or imported),
/// as `line: text`. `tempdir_in` is not it: it names its place.
fn tempdir_calls(src: &str) -> Vec<String> {
    let code = code(src);
    (code.lines().zip(src.lines()).enumerate())
        .filter(|(_, (c, _))| {
            c.contains("tempdir()")
                || (c.match_indices("tempfile::tempdir"))
                    .any(|(i, m)| !c[i + m.len()..].starts_with('_'))
        })
        .map(|(i, (_, line))| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

/// The functions of `src` that walk a folder tree with `read_dir`: one that calls
/// `read_dir` and itself (a recursive walk), or `read_dir` and a loop over a work
/// list (`while let Some(…) = ….pop()`, a walk without recursion). A function
/// that lists one folder is not.
fn walkers(src: &str) -> Vec<String> {
    let code = code(src);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (name, line, count) in crate::lengths::functions(src) {
        let body = lines[line - 1..(line - 1 + count).min(lines.len())].join("\n");
        let after_head = &body[body.find('{').unwrap_or(0)..];
        let recurses = after_head.contains(&format!("{name}("));
        let work_list =
            (body.lines()).any(|l| l.contains("while let Some(") && l.contains(".pop()"));
        if body.contains("read_dir") && (recurses || work_list) {
            out.push(format!("{name} (line {line})"));
        }
    }
    out
}

#[test]
fn only_helpers_rs_makes_temp_dirs_and_only_source_tree_rs_walks_folders() {
    // The checks themselves, on code they must catch and code they must pass.
    let sample = "fn walk(d: &Path) {\n    for e in std::fs::read_dir(d).unwrap() {\n        walk(&e.unwrap().path());\n    }\n}\n\
                  fn list(d: &Path) -> usize {\n    std::fs::read_dir(d).unwrap().count()\n}\n\
                  fn stack(d: PathBuf) {\n    let mut todo = vec![d];\n    while let Some(d) = todo.pop() {\n        let _ = std::fs::read_dir(d);\n    }\n}\n\
                  fn dirs() {\n    let a = tempfile::tempdir().unwrap();\n    let b = tempdir();\n    let c = tempfile::tempdir_in(\"/x\");\n    // tempdir() in a comment\n    let d = \"tempdir()\";\n}\n";
    assert_eq!(walkers(sample), ["walk (line 1)", "stack (line 9)"]);
    assert_eq!(
        tempdir_calls(sample),
        [
            "16: let a = tempfile::tempdir().unwrap();",
            "17: let b = tempdir();"
        ]
    );

    let files = crate::source_tree::rs_files("tests");
    assert!(files.contains_key("it/helpers.rs"), "tests/ was read");
    let mut found = Vec::new();
    for (path, src) in &files {
        if path != "it/helpers.rs" {
            for call in tempdir_calls(src) {
                found.push(format!(
                    "tests/{path}:{call} (use helpers::temp_dir or scratch_dir)"
                ));
            }
        }
        if path != "it/source_tree.rs" {
            for walker in walkers(src) {
                found.push(format!(
                    "tests/{path}: {walker} walks folders (use source_tree::entries)"
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "temporary directories are made by tests/it/helpers.rs, the source tree walked \
         by tests/it/source_tree.rs:\n{}",
        found.join("\n")
    );
    // The one walker and the one maker are still seen as such.
    assert_eq!(walkers(&files["it/source_tree.rs"]).len(), 1);
    assert_eq!(tempdir_calls(&files["it/helpers.rs"]).len(), 1);
}
