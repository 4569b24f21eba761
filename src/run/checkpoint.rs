//! The write-verify pass's checkpoints on disk: one file per drive beside
//! `--json-file` (`RUN.json.DRIVE.verify-checkpoint`), replaced atomically (written
//! to a temporary file in the same folder, flushed, renamed over the old one, the
//! folder flushed), read back by `--resume`, removed when the pass is complete.

use crate::verify::checkpoint::Checkpoint;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What saves a checkpoint.
pub type SaveFn = Box<dyn FnMut(&Checkpoint)>;

/// The checkpoint file of drive `name` for the run saved to `json`.
pub fn path(json: &Path, name: &str) -> PathBuf {
    let drive: String = name
        .trim_start_matches("/dev/")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let mut p = json.as_os_str().to_owned();
    p.push(format!(".{drive}.verify-checkpoint"));
    PathBuf::from(p)
}

/// Replace the checkpoint at `path` with `cp`, atomically. A checkpoint that cannot
/// be saved is skipped (the previous one stays valid): a failed save never stops
/// the pass.
pub fn save(path: &Path, cp: &Checkpoint) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    let ok = serde_json::to_writer(&mut tmp, cp).is_ok()
        && tmp.flush().is_ok()
        && tmp.as_file().sync_data().is_ok();
    if ok
        && tmp.persist(path).is_ok()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// The checkpoint saved at `path`, if there is a readable one.
pub fn load(path: &Path) -> Option<Checkpoint> {
    serde_json::from_slice(&std::fs::read(path).ok()?).ok()
}

/// Remove the checkpoint at `path` (the pass it covered is complete).
pub fn remove(path: &Path) {
    let _ = std::fs::remove_file(path);
}
