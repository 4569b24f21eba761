//! The command-line program: parse, check, probe each disk, print live, and decide
//! the exit status at the end.

use crate::cli::Args;
use crate::config::Config;
use crate::device::Stop;
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;

mod disks;
mod ending;
mod inputs;
mod live;
mod man;
mod output;
mod path;
mod pool_plan;
mod prompt;
mod run_file;
mod run_history;
mod signing;
mod start;
mod status;
mod subcommands;
mod verdicts;

use disks::probe_disks;
use ending::{print_run, save_again, say_interrupted};
use inputs::*;
use output::write_end_files;
use start::{Start, start};
pub use status::{EXIT_FAILURE, EXIT_INCOMPLETE, EXIT_INTERRUPTED, EXIT_OK, EXIT_QUALIFY};
use status::{Ending, exit_status};
use subcommands::*;
use verdicts::{Conclusion, conclude};

/// Run the program with these arguments; returns the exit status. A closed standard
/// output drops the rest of the text quietly; the run goes on to its end and its
/// status is that of its verdicts, as with the output open. `stop` is the
/// process's (Ctrl-C raises it): the drives opened keep it, and an interrupted
/// run ends with 128 plus the signal it records.
pub fn main_with(
    args: impl IntoIterator<Item = OsString>,
    stop: Stop,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut args: Vec<OsString> = args.into_iter().collect();
    // `seekprobe help [SUBCOMMAND]` and `seekprobe version` are --help and
    // --version, not disks; a misspelled subcommand is named, not probed.
    match args.get(1).and_then(|a| a.to_str()) {
        Some("help")
            if let Some(w) = args.get(2).map(|a| a.to_string_lossy().into_owned())
                && !crate::cli::SUBCOMMANDS.contains(&w.as_str()) =>
        {
            let _ = writeln!(
                err,
                "seekprobe: help {w}: no such subcommand (the subcommands: {}); `seekprobe help` is the main help",
                crate::cli::SUBCOMMANDS.join(", ")
            );
            return exit_status(Ending::Unusable);
        }
        Some("help") => {
            args.remove(1);
            args.insert(args.len().min(2), "--help".into());
        }
        Some("version") => args[1] = "--version".into(),
        Some(w)
            if let Some(meant) = crate::cli::meant_subcommand(w)
                && !std::path::Path::new(w).exists()
                && !std::path::Path::new("/dev").join(w).exists() =>
        {
            let _ = writeln!(
                err,
                "seekprobe: {w}: no such disk or subcommand; did you mean `seekprobe {meant}`?"
            );
            return exit_status(Ending::Unusable);
        }
        _ => {}
    }
    let out = &mut Closable {
        inner: out,
        closed: false,
    };
    // A subcommand is the first argument; anything else is a disk probe.
    let result = match args.get(1).and_then(|a| a.to_str()) {
        Some("render") => render_main(&args[1..], out, err),
        Some("compare") => compare_main(&args[1..], out, err),
        Some("report") => report_main(&args[1..], out, err),
        Some("generate") => generate_main(&args[1..], out, err),
        Some("smart") => smart_main(&args[1..], out, err),
        Some("history") => history_main(&args[1..], out, err),
        Some("plan") => pool_plan::plan_main(&args[1..], out, err),
        Some("sign") => signing::sign_main(&args[1..], out, err),
        Some("verify-record") => signing::verify_main(&args[1..], out, err),
        _ => probe_main(args, &stop, out, err),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            let _ = writeln!(err, "seekprobe: cannot write the output: {e}");
            exit_status(Ending::Unusable)
        }
    }
}

/// Standard output that a reader may close (`| head -1`): once it is closed, what
/// is written is dropped, so the run, its files and its exit status are those of a
/// run whose output was read to the end.
struct Closable<'a> {
    inner: &'a mut dyn Write,
    closed: bool,
}

impl Write for Closable<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.closed {
            return Ok(buf.len());
        }
        match self.inner.write(buf) {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(buf.len())
            }
            r => r,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        match self.inner.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => {
                self.closed = true;
                Ok(())
            }
            r => r,
        }
    }
}

fn probe_main(
    raw: Vec<OsString>,
    stop: &Stop,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    use clap::CommandFactory;
    // `--resume sim:hdd`: a bare --resume before a drive's name, not its file.
    let parsed = run_file::resume_before_a_drive(&raw);
    // The matches say which options the user gave, beside their values.
    let matches = match Args::command().try_get_matches_from(&parsed) {
        Ok(m) => m,
        Err(e) => return Ok(clap_exit(e, out, err)),
    };
    let mut cfg = match Config::from_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            writeln!(err, "seekprobe: {e}\nusage: {}", crate::cli::SYNOPSIS)?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    // As clap read it: a resume command rebuilt from it keeps every drive.
    cfg.command = parsed
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // Every burn-in is saved: without --json-file in a file of its own.
    let Some(fresh) = run_file::choose(&mut cfg, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    run_all(
        &cfg,
        (&run_history::place(&matches), fresh.as_deref()),
        stop,
        out,
        err,
    )
}

/// Probe every disk (in order, or all at once with --parallel); then the comparison
/// and verdicts when asked for. The exit status is decided at the end. `fresh`:
/// the burn-in's file of its own, if [`run_file::choose`] made one.
fn run_all(
    cfg: &Config,
    (place, fresh): (&crate::history::Place, Option<&Path>),
    stop: &Stop,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let Ok(baseline) = load_baseline(cfg.qualify.as_ref(), err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    let Ok(signer) = signing::open_key(cfg, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    if let Err(msg) = check_paths(cfg) {
        writeln!(err, "seekprobe: {msg}")?;
        return Ok(exit_status(Ending::Unusable));
    }
    let Start {
        mut run,
        saved,
        saver,
        confirmed,
    } = match start(cfg, stop, err)? {
        Ok(s) => s,
        Err(ending) => return Ok(exit_status(ending)),
    };
    // Once nothing refuses the run: it is going to save over the file.
    signing::say_signature_replaced(cfg, err)?;
    let saver = saver.as_ref();
    let mut probed = probe_disks(cfg, (stop, &confirmed), (&mut run, &saved, saver), out, err)?;
    if !probed.interrupted {
        let path = path::path_phase(cfg, &mut run, stop);
        probed.failed |= path.failed;
        probed.interrupted |= path.interrupted;
    }
    // The run's end, for its record: the disks are done (or Ctrl-C stopped them).
    run.record.ended_unix_s = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs());
    for line in disks::twin_serials(&run) {
        writeln!(err, "seekprobe: warning: {line}")?;
    }
    let mut history = run_history::RunHistory::open(place, &run, err)?;
    let earlier = history.earlier(&run, err)?;
    // After Ctrl-C the disks are not compared, and their verdicts (a --qualify
    // run's, saved with it) do not decide the exit status.
    let mut end = match probed.interrupted {
        false => conclude(cfg, &mut run, baseline.as_ref(), &earlier),
        true => {
            let judging = (baseline.as_ref(), &earlier);
            verdicts::judge_stopped(cfg, &mut run, judging, &probed.stopped);
            Conclusion {
                text: String::new(),
                compared: false,
                judged: false,
            }
        }
    };
    if cfg.format == crate::report::Format::Diskinfo {
        end.text.insert_str(0, &crate::report::path::render(&run));
    }
    let signing = (signer.as_ref(), probed.interrupted);
    let signed = save_again(cfg, &run, saver, end.compared, signing, err)?;
    if let Some(fresh) = fresh {
        run_file::drop_untested(fresh, &run, err)?;
    }
    print_run(cfg, &run, &end.text, out)?;
    let written = write_end_files(cfg, &run, err)? && signed;
    out.flush()?;
    history.record(&run, &cfg.command, err)?;
    if probed.interrupted {
        say_interrupted(cfg, err)?;
    }
    let verdicts: Vec<crate::results::Verdict> =
        run.disks.iter().filter_map(|d| d.verdict.clone()).collect();
    Ok(exit_status(Ending::Run {
        signal: probed.interrupted.then(|| stop.signal()),
        written,
        failed: probed.failed,
        verdicts: end.judged.then_some(&verdicts[..]),
    }))
}

/// Before anything runs: no disk named twice (two probes of one disk would measure
/// each other, and two --preserve runs would restore each other's writes), and the
/// output files (--json-file, --plot) are new or regular files, in an existing
/// directory, and none of the disks.
fn check_paths(cfg: &Config) -> Result<(), String> {
    let ids: Vec<Option<(u64, u64)>> = cfg.disks.iter().map(|d| identity(d)).collect();
    for (i, a) in ids.iter().enumerate() {
        if let Some(j) = ids[..i].iter().position(|b| a.is_some() && b == a) {
            return Err(format!(
                "{} and {} are the same disk; name each disk once",
                cfg.disks[j], cfg.disks[i]
            ));
        }
    }
    // --resume FILE saves to FILE too, unless --json-file names another file.
    let json_option = if cfg.resume.is_some() && cfg.json_file == cfg.resume {
        "--resume"
    } else {
        "--json-file"
    };
    let outputs = [
        (json_option, &cfg.json_file),
        ("--plot", &cfg.plot),
        ("--html", &cfg.html),
        ("--prometheus", &cfg.prometheus),
        ("--bad-blocks", &cfg.beyond.bad_blocks),
    ];
    let given: Vec<(&str, &std::path::PathBuf)> = outputs
        .iter()
        .filter_map(|(o, p)| p.as_ref().map(|p| (*o, p)))
        .collect();
    for (i, (a, pa)) in given.iter().enumerate() {
        if let Some((b, _)) = given[..i].iter().find(|(_, pb)| pb == pa) {
            return Err(format!(
                "{b} and {a} both name {}; give each output its own file",
                pa.display()
            ));
        }
    }
    for (opt, path) in outputs {
        let Some(path) = path else { continue };
        let shown = path.display();
        if let Ok(m) = std::fs::metadata(path) {
            if !m.is_file() {
                return Err(format!(
                    "{opt} {shown}: not a regular file; seekprobe writes its results only to new or regular files"
                ));
            }
            if ids
                .iter()
                .flatten()
                .any(|id| Some(*id) == identity(&path.to_string_lossy()))
            {
                return Err(format!(
                    "{opt} {shown}: that is one of the disks being probed"
                ));
            }
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        if !std::fs::metadata(dir).is_ok_and(|m| m.is_dir()) {
            return Err(format!(
                "{opt} {shown}: the directory {} does not exist",
                dir.display()
            ));
        }
    }
    Ok(())
}
