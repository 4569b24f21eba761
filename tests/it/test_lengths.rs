//! No function of tests/ is longer than [`crate::lengths::MAX_LINES`] lines, as
//! for src/ (issue 39): a test that reads as one story, its steps in named helpers.
//! Counted by the same counter as src/'s functions (tests/it/lengths.rs).

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
