//! The record's SSH signature in the program (docs/record.md): `seekprobe sign`,
//! `seekprobe verify-record`, a run's `--sign-key` (the key opened before anything
//! runs, the run file signed once it is final), and what `render` and `report`
//! say of a saved run's signature. The signing and checking are `sshsig`'s.

use super::inputs::{read_allowed, read_input};
use super::output::{cannot_write, save_atomically};
use super::status::{Ending, exit_status};
use super::subcommands::parse;
use crate::cli::{SignArgs, VerifyRecordArgs};
use crate::config::Config;
use crate::report::json;
use crate::results::{Run, Severity};
use crate::sshsig::{self, Seal, signer::Signer};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;

/// `--sign-key`'s key, opened before the run starts (a burn-in that signs at its
/// end learns at its start that the key cannot sign): Ok(None) without one;
/// Err(()) after saying why it cannot sign.
pub(super) fn open_key(
    cfg: &Config,
    err: &mut dyn Write,
) -> io::Result<Result<Option<Signer>, ()>> {
    let Some(path) = &cfg.sign_key else {
        return Ok(Ok(None));
    };
    match Signer::open(path) {
        Ok(s) => Ok(Ok(Some(s))),
        Err(e) => {
            writeln!(err, "seekprobe: --sign-key {e}")?;
            Ok(Err(()))
        }
    }
}

/// Sign the run file `run_file` as it is now with `signer`: its signature written
/// beside it ([`sshsig::beside`]); the seal it makes, or None after saying why
/// it could not be signed.
pub(super) fn sign_saved(
    run_file: &Path,
    signer: &Signer,
    err: &mut dyn Write,
) -> io::Result<Option<Seal>> {
    let record = match std::fs::read(run_file) {
        Ok(b) => b,
        Err(e) => {
            cannot_write(err, run_file, "be signed: it cannot be read", &e)?;
            return Ok(None);
        }
    };
    let sig_path = sshsig::beside(run_file);
    let pem = match signer.sign(&record) {
        Ok(p) => p,
        Err(e) => {
            writeln!(
                err,
                "seekprobe: {}: not signed: {e}; it is saved unsigned (`seekprobe sign {} --key KEY` signs it later)",
                run_file.display(),
                run_file.display()
            )?;
            return Ok(None);
        }
    };
    if let Err(e) = save_atomically(&sig_path, pem.as_bytes()) {
        cannot_write(err, &sig_path, "write the signature", &e)?;
        return Ok(None);
    }
    Ok(Some(Seal::Holds {
        key: signer.fingerprint(),
        signers: None,
    }))
}

/// That the run file `run_file` was signed by `signer` (`--sign-key`), on
/// standard error: where its signature was written, by which key.
pub(super) fn say_signed(run_file: &Path, signer: &Signer, err: &mut dyn Write) -> io::Result<()> {
    writeln!(
        err,
        "seekprobe: {} signed by {} ({}): its signature is {}",
        run_file.display(),
        signer.fingerprint(),
        signer.by(),
        sshsig::beside(run_file).display()
    )
}

/// Before a run that saves over a signed run file (`--json-file` naming one, not
/// resumed): that its signature goes with the run it signed (saving removes it,
/// output.rs), said on `err` so that a signed record is never lost unseen.
pub(super) fn say_signature_replaced(cfg: &Config, err: &mut dyn Write) -> io::Result<()> {
    let Some(file) = cfg.json_file.as_deref().filter(|_| cfg.resume.is_none()) else {
        return Ok(());
    };
    let sig = sshsig::beside(file);
    if !sig.is_file() {
        return Ok(());
    }
    writeln!(
        err,
        "seekprobe: {} holds a signed run ({}); this run replaces it and removes that signature: give another --json-file to keep the signed record",
        file.display(),
        sig.display()
    )
}

/// Whether `file` is standard input (`-`), refused by `cmd` (said): a signature is
/// kept beside a file.
fn stdin_refused(cmd: &str, file: &Path, err: &mut dyn Write) -> io::Result<bool> {
    if file != Path::new("-") {
        return Ok(false);
    }
    writeln!(
        err,
        "seekprobe: {cmd}: give the run file itself, not standard input: its signature is kept beside it (RUN.json.sig)"
    )?;
    Ok(true)
}

/// `seekprobe sign RUN.json --key KEY`: RUN.json.sig, an SSHSIG signature of the
/// run file's bytes in the namespace `seekprobe-record`. Exit status 0 when it is
/// written; 1 when the run or the key cannot be used or the file not written.
pub(super) fn sign_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: SignArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let file = a.file.display();
    if stdin_refused("sign", &a.file, err)? {
        return Ok(exit_status(Ending::Unusable));
    }
    let run = match read_input(&a.file, "a run saved with --json-file")
        .and_then(|t| json::from_json(&t))
    {
        Ok(r) => r,
        Err(msg) => {
            writeln!(
                err,
                "seekprobe: {file}: {msg}; only a run seekprobe saved is signed"
            )?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    let signer = match Signer::open(&a.key) {
        Ok(s) => s,
        Err(e) => {
            writeln!(err, "seekprobe: sign: --key {e}")?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    let Some(_) = sign_saved(&a.file, &signer, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    writeln!(
        out,
        "{}: {file} signed by {} ({}), namespace {}",
        sshsig::beside(&a.file).display(),
        signer.fingerprint(),
        signer.by(),
        sshsig::NAMESPACE
    )?;
    if run.record.ended_unix_s.is_none() {
        writeln!(
            err,
            "seekprobe: note: {file} records no end: the run may still be going, and its next save will not match this signature"
        )?;
    }
    Ok(exit_status(Ending::Written))
}

/// `seekprobe verify-record RUN.json [--allowed-signers FILE]`: whether the
/// signature beside the run holds, who signed, when the run ended, and each
/// drive's identity and verdict. Exit status 0 when it holds by an allowed signer
/// (--allowed-signers); 1 otherwise, the refusal naming why (without
/// --allowed-signers the record is shown but not accepted: any key's signature holds).
pub(super) fn verify_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: VerifyRecordArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let file = a.file.display();
    if stdin_refused("verify-record", &a.file, err)? {
        return Ok(exit_status(Ending::Unusable));
    }
    let Ok(allowed) = read_allowed(&a.signers, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    let text = match read_input(&a.file, "a run saved with --json-file") {
        Ok(t) => t,
        Err(msg) => {
            writeln!(err, "seekprobe: {file}: {msg}")?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    let seal =
        sshsig::check_file(&a.file, text.as_bytes(), allowed.as_ref()).unwrap_or(Seal::Unsigned);
    if !seal.holds() {
        let sig = sshsig::beside(&a.file);
        let why = match &seal {
            Seal::Unsigned => format!(
                "unsigned: no signature {} beside it (`seekprobe sign {file} --key KEY` signs it)",
                sig.display()
            ),
            other => other.describe(),
        };
        writeln!(err, "seekprobe: verify-record: {file}: refused: {why}")?;
        return Ok(exit_status(Ending::Unusable));
    }
    let run = match json::from_json(&text) {
        Ok(r) => r,
        Err(msg) => {
            writeln!(
                err,
                "seekprobe: verify-record: {file}: {}, but the record cannot be read: {msg}",
                seal.describe()
            )?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    out.write_all(summary(&a.file, &seal, &run).as_bytes())?;
    if allowed.is_none() {
        // Any key makes a signature that holds: a forger signs with their own.
        // Without the signers the reader trusts, the record is shown, not accepted
        // (ssh-keygen -Y verify and git's verify-commit need the file too).
        writeln!(
            err,
            "seekprobe: verify-record: {file}: not accepted: no --allowed-signers file says whether {} may sign; compare it with the signer's key, or give --allowed-signers FILE",
            seal.key().unwrap_or("the key")
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    Ok(exit_status(Ending::Written))
}

/// What a record whose signature holds says: the signer, the run's host, tool,
/// command, start and end, and each drive's identity and verdict.
fn summary(path: &Path, seal: &Seal, run: &Run) -> String {
    use std::fmt::Write as _;
    let r = &run.record;
    let time = |t: Option<u64>| t.map_or("not recorded".into(), crate::report::html::utc);
    let mut s = format!("{}: {}\n", path.display(), seal.describe());
    let commit = r
        .tool_commit
        .as_ref()
        .map_or(String::new(), |c| format!(", commit {c}"));
    let _ = writeln!(s, "  host: {}", r.host.as_deref().unwrap_or("not recorded"));
    let _ = writeln!(s, "  tool: {} {}{commit}", run.tool, run.tool_version);
    let _ = writeln!(s, "  command: {}", crate::burnin::shell_line(&r.command));
    let _ = writeln!(s, "  started: {}", time(run.started_unix_s));
    let _ = writeln!(s, "  ended: {}", time(r.ended_unix_s));
    for (label, v) in [("operator", &r.operator), ("ticket", &r.ticket)] {
        if let Some(v) = v {
            let _ = writeln!(s, "  {label}: {v}");
        }
    }
    for d in &run.disks {
        let v = crate::verdict::in_run(run, d);
        // Its first failing reason, else its first warning.
        let first = (v.of(Severity::Fail).chain(v.of(Severity::Warning)))
            .next()
            .map_or(String::new(), |f| format!(": {}", f.reason));
        let _ = writeln!(s, "  {}: {}{first}", d.name, v.word());
        let _ = writeln!(s, "    {}", identity(d));
    }
    s
}

/// A drive's identity in one line: model, serial, WWN and size.
fn identity(d: &crate::results::DiskResult) -> String {
    let Some(i) = &d.info else {
        return "not opened: no identity recorded".into();
    };
    let or = |v: &Option<String>| v.clone().unwrap_or_else(|| "not reported".into());
    format!(
        "model {}, serial {}, WWN {}, {} bytes ({})",
        or(&i.descr),
        or(&i.ident),
        or(&i.wwn),
        i.media_size_bytes,
        crate::results::verdict::binary_size(i.media_size_bytes)
    )
}
