//! The write-verify pass's checkpoints on disk: one file per drive beside
//! `--json-file` (`RUN.json.DRIVE.verify-checkpoint`), replaced atomically (written
//! to a temporary file in the same folder, flushed, renamed over the old one, the
//! folder flushed), read back by `--resume`, removed when the pass is complete.
//!
//! A file holds the identity of the drive it was made on (serial, WWN, model and
//! size): a resumed drive goes on from the checkpoint of the saved disk it was
//! matched to (`crate::burnin::resume`, by identity, the name deciding only between
//! twins), under that disk's saved name, and only when the file is of its identity.
//! A drive renamed since (sdb now sdc) thus never takes the checkpoint of the drive
//! that had its new name, and a replaced drive (`--resume-changed`) none at all.

use crate::results::DiskResult;
use crate::results::device::Identity;
use crate::stamps::checkpoint::Checkpoint;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A checkpoint as written: the drive's identity beside the checkpoint's fields.
#[derive(Serialize)]
struct Written<'a> {
    identity: &'a Identity,
    #[serde(flatten)]
    checkpoint: &'a Checkpoint,
}

/// A checkpoint as read (a file without an identity is of no known drive).
#[derive(Deserialize)]
struct Read {
    #[serde(default)]
    identity: Option<Identity>,
    #[serde(flatten)]
    checkpoint: Checkpoint,
}

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

/// The checkpoint file a resumed drive goes on from: that of the saved disk it was
/// matched to (`saved`, empty when none was: a drive the saved run had not reached,
/// or a changed one starting afresh), by its saved name, beside the saved run
/// (`resume`, the --resume file).
pub fn resume_path(resume: Option<&Path>, saved: &[DiskResult]) -> Option<PathBuf> {
    Some(path(resume?, &saved.first()?.name))
}

/// Replace the checkpoint at `path` with `cp`, made on the drive of `identity`,
/// atomically. A checkpoint that cannot be saved is skipped (the previous one stays
/// valid): a failed save never stops the pass.
pub fn save(path: &Path, identity: &Identity, cp: &Checkpoint) {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let Ok(mut tmp) = tempfile::NamedTempFile::new_in(dir) else {
        return;
    };
    let written = Written {
        identity,
        checkpoint: cp,
    };
    let ok = serde_json::to_writer(&mut tmp, &written).is_ok()
        && tmp.flush().is_ok()
        && tmp.as_file().sync_data().is_ok();
    if ok
        && tmp.persist(path).is_ok()
        && let Ok(d) = std::fs::File::open(dir)
    {
        let _ = d.sync_all();
    }
}

/// The checkpoint saved at `path`, if there is a readable one made on the drive of
/// `identity` (a checkpoint of another drive, or of no known drive, is not its own).
pub fn load(path: &Path, identity: &Identity) -> Option<Checkpoint> {
    let read: Read = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let own =
        (read.identity.as_ref()).is_some_and(|i| crate::burnin::resume::same_drive(i, identity));
    own.then_some(read.checkpoint)
}

/// Why the checkpoint saved at `path` for the drive of `identity` cannot be resumed
/// by this seekprobe, if it cannot: it was written by a seekprobe whose stamps
/// differ (another [`crate::stamps::stamp::FORMAT`]), so every sector written
/// before the stop would read back as corrupt, a false FAIL. None when there is no
/// such file, or it is not this drive's (it is not resumed from anyway).
pub fn refusal(path: &Path, identity: &Identity) -> Option<String> {
    let cp = load(path, identity)?;
    let now = crate::stamps::stamp::FORMAT;
    let age = if cp.stamp_format < now {
        "an older"
    } else {
        "a newer"
    };
    (cp.stamp_format != now).then(|| {
        format!(
            "its write-verify checkpoint {} was written by {age} seekprobe whose stamps differ (stamp format {}, this one's is {now}): what it wrote would read back as corrupt",
            path.display(),
            cp.stamp_format
        )
    })
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
    if info.kind != crate::results::device::TargetKind::Simulated || cp.block_bytes == 0 {
        return;
    }
    let ss = u64::from(info.sector_size);
    let Ok(size) = crate::stamps::stamp::StampSize::new(info.sector_size) else {
        return;
    };
    let stamper = crate::stamps::stamp::Stamper::new(cp.nonce, cp.pass, size);
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
        let n = len as usize;
        stamper.stamp(&mut buf[..n], at / ss);
        // A block the drive refuses stays unwritten, as in the interrupted run.
        let _ = target.write_at(buf.for_write(..n), at);
        at += len;
    }
}

/// Whether the write-verify pass `test` plans on the drive of `info` with `opts`
/// goes on from `cp` (its range, block and passes are the checkpoint's), as the
/// engine decides when it starts.
pub fn fits_plan(
    cp: &Checkpoint,
    test: crate::results::test_kind::TestKind,
    info: &crate::results::device::DeviceInfo,
    opts: &crate::test_plans::Options,
) -> bool {
    let Some(ss) = crate::results::settings::SectorSize::new(info.sector_size) else {
        return false;
    };
    let Ok(plan) = crate::test_plans::plan(test, info.media_size_bytes, ss, opts) else {
        return false;
    };
    plan.lines.iter().flat_map(|l| &l.steps).any(|s| {
        matches!(s, crate::test_plans::PlanStep::Verify { range, passes, .. }
            if cp.fits(range.start, range.end, range.block, passes.get()))
    })
}

/// Where a write-verify pass goes on from `cp`, in words: "resumed at byte B",
/// said before it writes further.
pub fn resumed_line(cp: &Checkpoint) -> String {
    use crate::results::verify::HalfKind;
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
    format!(
        "write-verify pass resumed at byte {} of pass {}, {half}: {kept}",
        cp.done_to,
        cp.pass + 1
    )
}

/// Where `--resume` goes on with a write-verify pass Ctrl-C stopped, its last
/// checkpoint `last` (None: none was saved), in words.
pub fn stopped_line(last: Option<&Checkpoint>) -> String {
    use crate::results::verify::HalfKind;
    match last {
        Some(cp) => format!(
            "write-verify pass: its last checkpoint is at byte {} of pass {}, {}: --resume goes on from there",
            cp.done_to,
            cp.pass + 1,
            match cp.half {
                HalfKind::Write => "writing",
                HalfKind::Read => "reading back",
            }
        ),
        None => {
            "write-verify pass: no checkpoint was saved yet: --resume starts it again at byte 0"
                .into()
        }
    }
}

/// What a resumed drive's write-verify pass goes on from when it has no
/// checkpoint of its own to go on from (`why`), in words.
pub fn fresh_line(why: &str) -> String {
    format!("write-verify pass: {why}: it starts again at byte 0 of pass 1")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::failures::Failures;
    use crate::results::verify::HalfKind;

    fn id(serial: &str) -> Identity {
        Identity {
            serial: Some(serial.into()),
            wwn: None,
            model: Some("M".into()),
            size_bytes: 1 << 20,
        }
    }

    fn cp() -> Checkpoint {
        Checkpoint {
            nonce: 7,
            start_bytes: 0,
            end_bytes: 1 << 20,
            block_bytes: 65536,
            passes_planned: 1,
            passes: Vec::new(),
            pass: 0,
            half: HalfKind::Read,
            done_to: 131072,
            failures: Failures::new(),
            unwritable: Vec::new(),
            failed_blocks: Vec::new(),
            keeps_only: None,
            stamp_format: crate::stamps::stamp::FORMAT,
        }
    }

    #[test]
    fn a_checkpoint_is_read_back_only_for_the_drive_it_was_made_on() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.json.sdc.verify-checkpoint");
        save(&p, &id("Y"), &cp());
        assert_eq!(load(&p, &id("Y")), Some(cp()));
        // Drive X, renamed to sdc, does not take drive Y's checkpoint.
        assert_eq!(load(&p, &id("X")), None);
        // A file of no known drive is no drive's.
        std::fs::write(&p, serde_json::to_vec(&cp()).unwrap()).unwrap();
        assert_eq!(load(&p, &id("Y")), None);
    }

    #[test]
    fn a_checkpoint_of_another_stamp_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.json.sdc.verify-checkpoint");
        assert_eq!(refusal(&p, &id("Y")), None, "no file, nothing to refuse");
        save(&p, &id("Y"), &cp());
        assert_eq!(refusal(&p, &id("Y")), None);
        // A file saved before the field existed: format 1.
        let mut v = serde_json::to_value(Written {
            identity: &id("Y"),
            checkpoint: &cp(),
        })
        .unwrap();
        v.as_object_mut().unwrap().remove("stamp_format");
        std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
        assert_eq!(load(&p, &id("Y")).unwrap().stamp_format, 1);
        let why = refusal(&p, &id("Y")).unwrap();
        assert!(why.contains(&p.display().to_string()), "{why}");
        assert!(
            why.contains("written by an older seekprobe whose stamps differ (stamp format 1"),
            "{why}"
        );
        // Another drive's file is not this drive's to refuse.
        assert_eq!(refusal(&p, &id("X")), None);
    }

    #[test]
    fn a_resumed_drive_goes_on_from_its_saved_disks_checkpoint_by_its_saved_name() {
        let run = Path::new("/r/run.json");
        // Drive X was sdb in the saved run and is sdc now: sdb's checkpoint.
        let x = [DiskResult::new("/dev/sdb")];
        assert_eq!(resume_path(Some(run), &x), Some(path(run, "/dev/sdb")),);
        // A drive matched to no saved disk (a replaced one) starts afresh.
        assert_eq!(resume_path(Some(run), &[]), None);
        assert_eq!(resume_path(None, &x), None);
    }
}
