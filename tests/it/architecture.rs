//! docs/architecture.md keeps up with src/: its map names every folder and file of
//! src/ by its path (`device/sim/store.rs`, `device/sim/`), so a file added without
//! saying what it is for fails here. And a concept has one home: one
//! `enum Outcome`, and no mirror of the verdict's types for a reporter.

#[test]
fn the_architecture_names_every_folder_and_file_of_src() {
    let top = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(top.join("docs/architecture.md")).unwrap();
    // Every folder (with its trailing slash) and `.rs` file of src/.
    let all: Vec<String> = (crate::source_tree::entries("src").into_keys())
        .filter(|e| e.ends_with('/') || e.ends_with(".rs"))
        .collect();
    assert!(all.iter().any(|e| e == "engine/queue.rs"), "{all:?}");
    let missing: Vec<&String> = all
        .iter()
        .filter(|e| !doc.contains(&format!("`{e}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md does not name (as `path`): {missing:?}"
    );
}

#[test]
fn a_concept_is_defined_once() {
    // Every `.rs` file of src/, test code included.
    let all = crate::source_tree::rs_files("src");
    let holding = |what: &str| -> Vec<&str> {
        (all.iter())
            .filter(|(_, t)| t.contains(what))
            .map(|(p, _)| p.as_str())
            .collect()
    };
    let outcome = holding("enum Outcome ");
    assert!(
        outcome.len() == 1 && outcome[0].ends_with("results/outcome.rs"),
        "enum Outcome (how a test ended) is results/outcome.rs's alone: {outcome:?}"
    );
    for mirror in ["ViewSeverity", "ViewFinding", "ViewVerdict"] {
        let found = holding(mirror);
        assert!(
            found.is_empty(),
            "{mirror}: reporters show the verdict's own types: {found:?}"
        );
    }
}

/// The traits declared in `code` and how many methods each declares: from a line
/// that opens `trait Name` (maybe `pub`) to its closing brace, the lines at the
/// trait's own depth that start a `fn`. Comment lines are passed over.
fn trait_methods(code: &str) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, i32)> = None;
    for line in code.lines().map(str::trim) {
        if line.starts_with("//") {
            continue;
        }
        if open.is_none() {
            let bare = line.strip_prefix("pub ").unwrap_or(line);
            let bare = ["pub(crate) ", "pub(super) "]
                .iter()
                .fold(bare, |b, p| b.strip_prefix(p).unwrap_or(b));
            if let Some(rest) = bare.strip_prefix("trait ") {
                let name: String = (rest.chars())
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                open = Some((name, 0, 0));
            }
        }
        let Some((name, methods, depth)) = open.as_mut() else {
            continue;
        };
        if *depth == 1 && line.starts_with("fn ") {
            *methods += 1;
        }
        let before = *depth;
        *depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if (before > 0 || line.contains('{')) && *depth == 0 {
            out.push((std::mem::take(name), *methods));
            open = None;
        }
    }
    out
}

#[test]
fn the_burn_in_and_the_prober_hold_at_most_one_trait_of_eight_methods() {
    // The counter itself, on a trait it must read right.
    let sample = "pub trait T: U {\n    /// fn not this\n    fn a(&self);\n    fn b(\n        &self,\n    ) -> u8 {\n        fn inner() {}\n        0\n    }\n}\ntrait V {}\n";
    assert_eq!(
        trait_methods(sample),
        [("T".to_string(), 2), ("V".to_string(), 0)]
    );
    let code = crate::source_tree::src_code();
    let rooms = |f: &str| f.starts_with("burnin/") || f.starts_with("prober/") || f == "prober.rs";
    let files: Vec<&String> = code.keys().filter(|f| rooms(f)).collect();
    assert!(files.iter().any(|f| *f == "prober/sink.rs"), "{files:?}");
    let large: Vec<(String, usize)> = (code.iter())
        .filter(|(f, _)| rooms(f))
        .flat_map(|(_, text)| trait_methods(text))
        .filter(|&(_, n)| n >= 8)
        .collect();
    assert!(
        large.len() <= 1,
        "a burn-in step's end is told once, to one receiver (docs/architecture.md, \
         prober/): at most one trait of eight methods or more in src/burnin/ and \
         src/prober/, found {large:?}"
    );
}

/// The paths docs/architecture.md names (a backquoted `room/file.rs` or `room/`,
/// maybe relative to the room its sentence is about, and `src/...` anywhere): each
/// names a file or folder of src/ (or of the repository), so a renamed file does
/// not live on in the map.
#[test]
fn every_path_the_architecture_names_exists() {
    let top = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(top.join("docs/architecture.md")).unwrap();
    let entries: Vec<String> = crate::source_tree::entries("src").into_keys().collect();
    let names = |p: &str| {
        entries
            .iter()
            .any(|e| e == p || e.ends_with(&format!("/{p}")))
            || top.join(p).exists()
    };
    let mut gone = Vec::new();
    for (n, line) in doc.lines().enumerate() {
        for (i, quoted) in line.split('`').enumerate() {
            let path = quoted.strip_prefix("src/").unwrap_or(quoted);
            let pathlike = i % 2 == 1
                && path.contains('/')
                && (path.ends_with(".rs") || path.ends_with('/'))
                && (path.chars()).all(|c| c.is_ascii_lowercase() || "_/.0123456789".contains(c));
            if pathlike && !names(path) {
                gone.push(format!("docs/architecture.md:{}: {quoted}", n + 1));
            }
        }
    }
    assert!(
        gone.is_empty(),
        "paths named but not in the tree:\n{}",
        gone.join("\n")
    );
}
