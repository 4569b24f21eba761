//! The files of src/ as the house's own tests read them (lengths, the registry's
//! ids, the statics, docs/architecture.md's map): every folder and file under a
//! folder of the crate, by its path relative to that folder ('/'-separated). Test
//! code is left out by name: tests.rs, `*_tests.rs` and the tests/ folders of a
//! module. The tests' one walker of the source tree (tests/it/test_lengths.rs
//! keeps it the only one).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every folder and file under the crate's folder `dir` (`"src"`, `"tests"`), by
/// its path relative to `dir` ('/'-separated; a folder's with a trailing '/'), in
/// order, with its path on disk.
pub fn entries(dir: &str) -> BTreeMap<String, PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if p.is_dir() {
                walk(root, &p, out);
                out.insert(format!("{rel}/"), p);
            } else {
                out.insert(rel, p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut out = BTreeMap::new();
    walk(&root, &root, &mut out);
    out
}

/// Every `.rs` file under the crate's folder `dir` (`"src"`, `"tests"`), test code
/// included, by its path relative to `dir` ('/'-separated), with its whole text.
pub fn rs_files(dir: &str) -> BTreeMap<String, String> {
    (entries(dir).into_iter())
        .filter(|(rel, _)| rel.ends_with(".rs"))
        .map(|(rel, p)| (rel, std::fs::read_to_string(p).unwrap()))
        .collect()
}

/// Whether the file at `path` (relative to src/) is test code by its name: a
/// tests.rs, a `*_tests.rs`, or a file in a module's tests/ folder.
fn is_test_file(path: &str) -> bool {
    let (dirs, name) = path.rsplit_once('/').unwrap_or(("", path));
    name == "tests.rs" || name.ends_with("_tests.rs") || dirs.split('/').any(|d| d == "tests")
}

/// Every non-test source file of src/, with its whole text.
pub fn src_files() -> BTreeMap<String, String> {
    let mut files = rs_files("src");
    files.retain(|path, _| !is_test_file(path));
    files
}

/// Every non-test source file of src/, cut at the unit-test module at its end
/// (`#[cfg(test)]` followed by `mod tests`).
pub fn src_code() -> BTreeMap<String, String> {
    let mut files = src_files();
    for text in files.values_mut() {
        if let Some(at) = text.find("#[cfg(test)]\nmod tests") {
            text.truncate(at);
        }
    }
    files
}
