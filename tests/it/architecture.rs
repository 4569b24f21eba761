//! docs/architecture.md keeps up with src/: its map names every folder and file of
//! src/ by its path (`device/sim/store.rs`, `device/sim/`), so a file added without
//! saying what it is for fails here.

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
