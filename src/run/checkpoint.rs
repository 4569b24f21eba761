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

/// A simulated drive's store does not outlive the process, but what a checkpoint
/// says was written is a function of the run's nonce and pass: write those stamps
/// again through the drive's own writes (so its faults apply as they did), before
/// the pass goes on from the checkpoint as it does on a real drive. Nothing for
/// any other target, whose medium kept what was written.
pub fn replay_on_simulated(target: &mut dyn crate::device::Target, cp: &Checkpoint) {
    use crate::results::verify::HalfKind;
    let info = target.info();
    if info.kind != crate::device::TargetKind::Simulated || cp.block_bytes == 0 {
        return;
    }
    let ss = u64::from(info.sector_size);
    let Ok(stamper) = crate::verify::stamp::Stamper::new(cp.nonce, cp.pass, info.sector_size)
    else {
        return;
    };
    // A write half wrote up to its checkpoint; a read half's pass wrote it all.
    let end = match cp.half {
        HalfKind::Write => cp.done_to,
        HalfKind::Read => cp.end_bytes,
    }
    .min(info.media_size_bytes);
    let mut buf = crate::device::AlignedBuf::new(cp.block_bytes as usize);
    let mut at = cp.start_bytes;
    while at < end {
        let len = (end - at).min(cp.block_bytes);
        let block = &mut buf[..len as usize];
        stamper.stamp(block, at / ss);
        // A block the drive refuses stays unwritten, as in the interrupted run.
        let _ = target.write_at(block, at);
        at += len;
    }
}

/// Where a write-verify pass went on from, when it went on from `cp` (the pass
/// `result` ran with its nonce and range), in words: "resumed at byte B".
pub fn resumed_line(
    cp: &Checkpoint,
    result: Option<&crate::results::TestResult>,
) -> Option<String> {
    use crate::results::verify::HalfKind;
    let r = result?.verify.as_ref()?;
    let used =
        r.nonce == cp.nonce && cp.fits(r.start_bytes, r.end_bytes, r.block_bytes, r.passes_planned);
    if !used {
        return None;
    }
    let kept = match cp.half {
        HalfKind::Write => format!(
            "its writes below byte {} kept from the interrupted run, written again from there",
            cp.done_to
        ),
        HalfKind::Read => format!(
            "its writes and the read-back below byte {} kept from the interrupted run ({} failed sectors found there)",
            cp.done_to,
            cp.failures.total()
        ),
    };
    let half = match cp.half {
        HalfKind::Write => "writing",
        HalfKind::Read => "reading back",
    };
    Some(format!(
        "write-verify pass resumed at byte {} of pass {}, {half}: {kept}",
        cp.done_to,
        cp.pass + 1
    ))
}
