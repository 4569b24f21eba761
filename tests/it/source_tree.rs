//! The files of src/ as the house's own tests read them (lengths, the registry's
//! ids, the statics): every `.rs` file that is not test code, by its path relative
//! to src/ ('/'-separated). Test code is left out by name: tests.rs, `*_tests.rs`
//! and the tests/ folders of a module.

use std::collections::BTreeMap;
use std::path::Path;

/// Every non-test source file of src/, with its whole text.
pub fn src_files() -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                if name != "tests" {
                    walk(root, &p, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy();
                let text = std::fs::read_to_string(&p).unwrap();
                out.insert(rel.replace('\\', "/"), text);
            }
        }
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    walk(&src, &src, &mut out);
    out
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
