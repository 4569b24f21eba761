//! docs/architecture.md keeps up with src/: its map names every folder and file of
//! src/ by its path (`device/sim/store.rs`, `device/sim/`), so a file added without
//! saying what it is for fails here. And a concept has one home: one
//! `enum Outcome`, and no mirror of the verdict's types for a reporter.

use std::path::Path;

/// Every folder (with a trailing slash) and `.rs` file under `dir`, relative to `root`.
fn entries(root: &Path, dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let rel = p.strip_prefix(root).unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            out.push(format!("{rel}/"));
            entries(root, &p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(rel);
        }
    }
}

#[test]
fn the_architecture_names_every_folder_and_file_of_src() {
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(top.join("docs/architecture.md")).unwrap();
    let src = top.join("src");
    let mut all = Vec::new();
    entries(&src, &src, &mut all);
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

/// Every `.rs` file under `dir` and its text.
fn texts(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            texts(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push((
                p.display().to_string(),
                std::fs::read_to_string(&p).unwrap(),
            ));
        }
    }
}

#[test]
fn a_concept_is_defined_once() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = Vec::new();
    texts(&src, &mut all);
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
