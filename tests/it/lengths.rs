//! No function of src/ is longer than [`MAX_LINES`] lines (docs/architecture.md):
//! every `fn` with a body, counted from the line of `fn` to the line of the brace
//! that closes its body, braces matched over the source with its comments, strings
//! and character literals blanked out. Test code is left out: files named tests.rs
//! or `*_tests.rs`, tests/ folders of a module, and any item under `#[cfg(test)]`
//! (the unit-test modules and test-only helpers).
//!
//! And no file of src/ or tests/ is longer than [`MAX_FILE_LINES`] lines, test
//! files and unit-test modules included: a file has one job (docs/architecture.md).

/// The longest a function of src/ may be, in lines.
pub(crate) const MAX_LINES: usize = 120;

/// The longest a file of src/ or tests/ may be, in lines.
const MAX_FILE_LINES: usize = 700;

/// `src` with every comment, string and character literal replaced by spaces (new
/// lines kept, so line numbers hold), leaving only the code's own braces.
pub(crate) fn blank(src: &str) -> Vec<char> {
    let c: Vec<char> = src.chars().collect();
    let mut out = c.clone();
    let wipe = |out: &mut Vec<char>, from: usize, to: usize| {
        for ch in out.iter_mut().take(to.min(c.len())).skip(from) {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
    };
    let ident = |i: usize| i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_');
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            wipe(&mut out, i, end);
            i = end;
        } else if c[i] == '/' && next == Some('*') {
            let (mut depth, mut j) = (1, i + 2);
            while j < c.len() && depth > 0 {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 1;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 1;
                }
                j += 1;
            }
            wipe(&mut out, i, j);
            i = j;
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r'))) && !ident(i) && {
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = (k..c.len()).take_while(|&j| c[j] == '#').count();
            c.get(k + hashes) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let k = if c[i] == 'b' { i + 2 } else { i + 1 };
            let hashes = (k..c.len()).take_while(|&j| c[j] == '#').count();
            let mut j = k + hashes + 1;
            while j < c.len() {
                if c[j] == '"' && (1..=hashes).all(|h| c.get(j + h) == Some(&'#')) {
                    j += hashes + 1;
                    break;
                }
                j += 1;
            }
            wipe(&mut out, i, j);
            i = j;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            wipe(&mut out, i, j + 1);
            i = j + 1;
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{7f}', '{'), or a lifetime ('a).
            let end = if next == Some('\\') {
                (i + 2..c.len()).find(|&j| c[j] == '\'').map(|j| j + 1)
            } else if c.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(e) => {
                    wipe(&mut out, i, e);
                    i = e;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The index just past the item that starts at `from`: its matching closing brace,
/// or its `;` when it has no body (`mod tests;`, a trait's declaration).
fn item_end(c: &[char], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut i = from;
    while i < c.len() {
        match c[i] {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ';' if depth == 0 => return Some(i + 1),
            '{' if depth == 0 => {
                let mut braces = 0;
                for (j, &ch) in c.iter().enumerate().skip(i) {
                    if ch == '{' {
                        braces += 1;
                    } else if ch == '}' {
                        braces -= 1;
                        if braces == 0 {
                            return Some(j + 1);
                        }
                    }
                }
                return None;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every function with a body in `src` outside `#[cfg(test)]` items: its name, its
/// first line (1-based) and its length in lines.
pub(crate) fn functions(src: &str) -> Vec<(String, usize, usize)> {
    let mut c = blank(src);
    // Blank every item under #[cfg(test)] first.
    let text: String = c.iter().collect();
    let starts: Vec<usize> = text
        .match_indices("#[cfg(test)]")
        .map(|(b, _)| text[..b].chars().count())
        .collect();
    for s in starts {
        let from = s + "#[cfg(test)]".len();
        if let Some(end) = item_end(&c, from) {
            for ch in &mut c[s..end] {
                if *ch != '\n' {
                    *ch = ' ';
                }
            }
        }
    }
    let line_of = |i: usize| c[..i].iter().filter(|&&ch| ch == '\n').count() + 1;
    let word = |i: usize| i < c.len() && (c[i].is_alphanumeric() || c[i] == '_');
    let mut out = Vec::new();
    for i in 0..c.len().saturating_sub(3) {
        if c[i] != 'f' || c[i + 1] != 'n' || (i > 0 && word(i - 1)) || !c[i + 2].is_whitespace() {
            continue;
        }
        let mut k = i + 2;
        while k < c.len() && c[k].is_whitespace() {
            k += 1;
        }
        let name: String = c[k..]
            .iter()
            .take_while(|ch| ch.is_alphanumeric() || **ch == '_')
            .collect();
        if name.is_empty() {
            continue; // a fn pointer type
        }
        if let Some(end) = item_end(&c, k)
            && c[end - 1] == '}'
        {
            out.push((name, line_of(i), line_of(end - 1) - line_of(i) + 1));
        }
    }
    out
}

#[test]
fn the_counter_matches_braces_past_strings_comments_and_test_code() {
    let src = "fn a() {\n    let s = \"}}\"; // }\n    let c = '{';\n    let r = r#\"{\"#;\n}\n\
               /* fn hidden() { } */\n\
               #[cfg(test)]\nmod tests {\n    fn t() {\n    }\n}\n\
               trait T {\n    fn decl(&self) -> u32;\n    fn with<'a>(x: &'a str) -> &'a str {\n        x\n    }\n}\n";
    assert_eq!(
        functions(src),
        [("a".to_string(), 1, 5), ("with".to_string(), 14, 3)]
    );
}

#[test]
fn no_function_of_src_is_longer_than_120_lines() {
    let files = crate::source_tree::src_files();
    assert!(files.contains_key("config.rs"), "src/ was read");
    let mut long: Vec<String> = Vec::new();
    for (path, src) in &files {
        for (name, line, lines) in functions(src) {
            if lines > MAX_LINES {
                long.push(format!("src/{path}:{line} {name}: {lines} lines"));
            }
        }
    }
    long.sort();
    assert!(
        long.is_empty(),
        "functions over {MAX_LINES} lines (split them by meaning into named helpers):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_file_of_src_or_tests_is_longer_than_700_lines() {
    let mut long: Vec<String> = Vec::new();
    for dir in ["src", "tests"] {
        let files = crate::source_tree::rs_files(dir);
        let known = if dir == "src" {
            "engine/queue.rs"
        } else {
            "it/main.rs"
        };
        assert!(files.contains_key(known), "{dir}/ was read");
        long.extend(
            (files.iter())
                .map(|(p, text)| (p, text.lines().count()))
                .filter(|(_, n)| *n > MAX_FILE_LINES)
                .map(|(p, n)| format!("{dir}/{p}: {n} lines")),
        );
    }
    long.sort();
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} lines (split them into files with one job each, \
         named for what they hold):\n{}",
        long.join("\n")
    );
}
