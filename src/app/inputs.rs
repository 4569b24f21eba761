//! Files a run or a subcommand reads: saved runs (a baseline, a burn-in to resume;
//! with their signature for render and report), allowed_signers files and smartctl
//! reports, from a path or standard input.

use crate::cli::SignersArgs;
use crate::compare::{self};
use crate::config::{Config, Qualify};
use crate::report::json;
use crate::results::Run;
use crate::sshsig::{self, Seal, allowed::AllowedSigners};
use std::io::{self, Write};
use std::path::Path;

/// Load the baseline of `qualify`, if any, before anything is probed: Err (after
/// saying why) when it cannot be read.
pub(super) fn load_baseline(
    qualify: Option<&Qualify>,
    err: &mut dyn Write,
) -> io::Result<Result<Option<compare::Comparison>, ()>> {
    let Some(path) = qualify.and_then(|q| q.baseline.as_ref()) else {
        return Ok(Ok(None));
    };
    match load_run(path) {
        Ok(b) => Ok(Ok(Some(compare::compare(
            &b.disks.iter().collect::<Vec<_>>(),
        )))),
        Err(msg) => {
            writeln!(err, "seekprobe: {}: {msg}", path.display())?;
            Ok(Err(()))
        }
    }
}

/// Read a saved run: `-` is standard input; otherwise only a regular file is opened
/// (a FIFO without a writer would block).
pub(super) fn load_run(path: &Path) -> Result<Run, String> {
    json::from_json(&read_input(path, "a run saved with --json-file")?)
}

/// The allowed signers `--allowed-signers` names, read; Err(()) after saying why
/// they cannot be.
pub(super) fn read_allowed(
    args: &SignersArgs,
    err: &mut dyn Write,
) -> io::Result<Result<Option<AllowedSigners>, ()>> {
    let Some(path) = &args.allowed_signers else {
        return Ok(Ok(None));
    };
    match AllowedSigners::read(path) {
        Ok(a) => Ok(Ok(Some(a))),
        Err(e) => {
            writeln!(err, "seekprobe: --allowed-signers {e}")?;
            Ok(Err(()))
        }
    }
}

/// A saved run read for a report: the run, the SHA-256 of its bytes, and what its
/// signature says (None for standard input); Err says why it cannot be read.
pub(super) type Sealed = (Run, String, Option<Seal>);

/// Read the saved run at `path` with its signature ([`Sealed`]).
pub(super) fn read_sealed(path: &Path, allowed: Option<&AllowedSigners>) -> Result<Sealed, String> {
    let text = read_input(path, "a run saved with --json-file")?;
    let sha = crate::report::html::record::sha256_hex(text.as_bytes());
    let seal = sshsig::check_file(path, text.as_bytes(), allowed);
    Ok((json::from_json(&text)?, sha, seal))
}

/// The runs `paths` names, each [`read_sealed`] with the allowed signers of
/// `args`; Err(()) after naming the file that cannot be read.
pub(super) fn read_all_sealed(
    paths: &[std::path::PathBuf],
    args: &SignersArgs,
    err: &mut dyn Write,
) -> io::Result<Result<Vec<Sealed>, ()>> {
    let Ok(allowed) = read_allowed(args, err)? else {
        return Ok(Err(()));
    };
    let mut runs = Vec::new();
    for path in paths {
        match read_sealed(path, allowed.as_ref()) {
            Ok(r) => runs.push(r),
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(Err(()));
            }
        }
    }
    Ok(Ok(runs))
}

/// The text of `path`, or of standard input for `-`. Only a regular file is opened
/// (a FIFO without a writer would block); otherwise the error says to give `what`.
pub(super) fn read_input(path: &Path, what: &str) -> Result<String, String> {
    if path == Path::new("-") {
        let mut text = String::new();
        io::Read::read_to_string(&mut io::stdin(), &mut text)
            .map_err(|e| crate::error::describe_io(&e))?;
        return Ok(text);
    }
    let meta = std::fs::metadata(path).map_err(|e| crate::error::describe_io(&e))?;
    if !meta.is_file() {
        return Err(format!("not a regular file; give {what}"));
    }
    std::fs::read_to_string(path).map_err(|e| crate::error::describe_io(&e))
}

/// Read a saved smartctl report: `-` is standard input; otherwise only a regular
/// file is opened. Reports saved by Windows tools are read too: UTF-8 with a
/// byte-order mark, UTF-16 LE or BE with one ([`decode_report`]).
pub(super) fn load_smart_report(path: &Path) -> Result<crate::smart::Report, String> {
    use crate::smart::model::MAX_REPORT_BYTES;
    let what = "a report saved with smartctl --json -x DEVICE";
    let bytes = if path == Path::new("-") {
        read_bytes_limited(io::stdin())?
    } else {
        let meta = std::fs::metadata(path).map_err(|e| crate::error::describe_io(&e))?;
        if !meta.is_file() {
            return Err(format!("not a regular file; give {what}"));
        }
        // Even in UTF-16 (two bytes a character) a real report is under 2 MiB.
        if meta.len() > MAX_REPORT_BYTES {
            return Err(format!(
                "{} bytes: {}",
                meta.len(),
                crate::smart::model::too_big()
            ));
        }
        read_bytes_limited(std::fs::File::open(path).map_err(|e| crate::error::describe_io(&e))?)?
    };
    let text = decode_report(&bytes)?;
    crate::smart::Report::from_json(&text)
        .map_err(|e| format!("{e}; give a report saved with smartctl --json -x DEVICE"))
}

/// At most [`crate::smart::model::MAX_REPORT_BYTES`] of `r`, refusing more
/// before it is held whole.
fn read_bytes_limited(r: impl io::Read) -> Result<Vec<u8>, String> {
    let limit = crate::smart::model::MAX_REPORT_BYTES;
    let mut bytes = Vec::new();
    io::Read::read_to_end(&mut r.take(limit + 1), &mut bytes)
        .map_err(|e| crate::error::describe_io(&e))?;
    if bytes.len() as u64 > limit {
        return Err(crate::smart::model::too_big());
    }
    Ok(bytes)
}

/// A report's text from its bytes: UTF-8, with or without a byte-order mark
/// (Windows PowerShell 5's `Out-File -Encoding utf8` writes one), or UTF-16 LE
/// or BE with one (PowerShell 5's `>` and `Out-File` default). UTF-32 and text
/// that is none of these are refused, naming the encoding.
pub(super) fn decode_report(bytes: &[u8]) -> Result<String, String> {
    let utf16 = |body: &[u8], name: &str, word: fn([u8; 2]) -> u16| {
        if !body.len().is_multiple_of(2) {
            return Err(format!(
                "{name} text (it starts with a {name} byte-order mark) with an odd number of bytes: cut short; save the report again"
            ));
        }
        let units: Vec<u16> = body.chunks_exact(2).map(|c| word([c[0], c[1]])).collect();
        String::from_utf16(&units)
            .map_err(|_| format!("{name} text (by its byte-order mark) that is not valid {name}; save the report as UTF-8"))
    };
    match bytes {
        [0x00, 0x00, 0xfe, 0xff, ..] => Err("UTF-32 BE text (by its byte-order mark): not read; save the report as UTF-8 (smartctl --json -x DEVICE > report.json)".into()),
        [0xff, 0xfe, 0x00, 0x00, ..] => Err("UTF-32 LE text (by its byte-order mark): not read; save the report as UTF-8 (smartctl --json -x DEVICE > report.json)".into()),
        [0xef, 0xbb, 0xbf, rest @ ..] => String::from_utf8(rest.to_vec())
            .map_err(|_| "UTF-8 text (by its byte-order mark) that is not valid UTF-8; save the report again".into()),
        [0xff, 0xfe, rest @ ..] => utf16(rest, "UTF-16 LE", u16::from_le_bytes),
        [0xfe, 0xff, rest @ ..] => utf16(rest, "UTF-16 BE", u16::from_be_bytes),
        _ if bytes.len() >= 2 && (bytes[0] == 0 || bytes[1] == 0) => Err(format!(
            "UTF-16 {} text without a byte-order mark (a NUL in its first two bytes): not read; save the report as UTF-8 (smartctl --json -x DEVICE > report.json)",
            if bytes[0] == 0 { "BE" } else { "LE" }
        )),
        _ => String::from_utf8(bytes.to_vec()).map_err(|e| {
            format!(
                "not UTF-8 text (an invalid byte at offset {}) and no byte-order mark names another encoding; save the report as UTF-8",
                e.utf8_error().valid_up_to()
            )
        }),
    }
}

/// Whether a saved run is an unfinished burn-in, one that --resume could go on
/// with: a drive it names without results or without a verdict.
pub(super) fn unfinished(run: &Run) -> bool {
    run.burn_in.as_ref().is_some_and(|b| {
        b.disks.len() > run.disks.len() || run.disks.iter().any(|d| d.verdict.is_none())
    })
}

/// The saved burn-in that `--resume` continues: an unfinished run saved by
/// --burn-in (a finished one is never resumed), run with the options this command
/// measures with (`config::measures`: every difference named). Err says why not.
pub(super) fn load_resumable(path: &Path, cfg: &Config) -> Result<Run, String> {
    let run = load_run(path)?;
    let Some(b) = &run.burn_in else {
        return Err("not a burn-in: give the --json-file of a --burn-in run".into());
    };
    if !unfinished(&run) {
        return Err(format!(
            "that burn-in of {} is finished (each drive has its verdict), so nothing is resumed and the file is kept as it is: start a new burn-in without --resume, with another --json-file",
            b.disks.join(", ")
        ));
    }
    let differ = crate::config::measures::differing(&b.command, &cfg.command).map_err(|e| {
        format!(
            "the options it was run with cannot be read ({e}); start a new burn-in without --resume"
        )
    })?;
    if !differ.is_empty() {
        return Err(format!(
            "that burn-in was run with other options: {}; resume it with the options it was run with (its command line is in the file), or start a new one without --resume",
            differ.join(", ")
        ));
    }
    Ok(run)
}

/// The file identity of a disk argument (device and inode, following the /dev/
/// retry), or None for a simulated drive or a path that does not exist.
pub(super) fn identity(name: &str) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    if name.starts_with("sim:") {
        return None;
    }
    let m = std::fs::metadata(name)
        .or_else(|_| std::fs::metadata(format!("/dev/{name}")))
        .ok()?;
    // A device node is the device it names, whatever path reaches it.
    Some(if m.rdev() != 0 {
        (u64::MAX, m.rdev())
    } else {
        (m.dev(), m.ino())
    })
}

#[cfg(test)]
mod tests {
    use super::decode_report;

    #[test]
    fn windows_encodings_are_read_or_named() {
        let json = "{\"smartctl\":{\"exit_status\":0}}";
        let mut bom8 = vec![0xef, 0xbb, 0xbf];
        bom8.extend_from_slice(json.as_bytes());
        assert_eq!(decode_report(&bom8).unwrap(), json);
        let mut le = vec![0xff, 0xfe];
        le.extend(json.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(decode_report(&le).unwrap(), json);
        let mut be = vec![0xfe, 0xff];
        be.extend(json.encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(decode_report(&be).unwrap(), json);
        le.pop();
        assert!(decode_report(&le).unwrap_err().contains("UTF-16 LE"));
        let bare: Vec<u8> = json.encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(
            decode_report(&bare)
                .unwrap_err()
                .starts_with("UTF-16 LE text without a byte-order mark")
        );
        assert!(
            decode_report(&[0xff, 0xfe, 0, 0, b'{', 0, 0, 0])
                .unwrap_err()
                .starts_with("UTF-32 LE")
        );
        assert!(
            decode_report(&[b'{', 0xff, b'}'])
                .unwrap_err()
                .contains("offset 1")
        );
    }
}
