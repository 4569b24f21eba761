//! The command-line program: parse, check, probe each disk, print live, and decide
//! the exit status at the end.

use crate::cli::Args;
use crate::config::{Config, Mode};
use crate::device::{DeviceInfo, TargetKind};
use crate::probe::TestKind;
use crate::progress::Progress;
use crate::report::{self, Format};
use crate::results::{DiskResult, Run, SCHEMA_VERSION, Verdict};
use crate::run::{Flow, probe_disk_resuming};
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

const USAGE: &str = "usage: seekprobe [-citSvw] [OPTIONS] disk ...\n       seekprobe [-l] -p disk ...\n       seekprobe [-l] -s disk ...\n       seekprobe render FILE.json [--format diskinfo|table|json]\n       seekprobe compare A.json B.json ... [--qualify] [--baseline FILE]\n       seekprobe report RUN.json ... -o FILE.html\n       seekprobe generate man|bash|zsh|fish|elvish|powershell";

mod inputs;
mod live;
mod output;
mod status;
mod subcommands;
mod verdicts;

use inputs::*;
use live::*;
use output::*;
pub use status::{EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, EXIT_QUALIFY};
use subcommands::*;
use verdicts::*;

/// Run the program with these arguments; returns the exit status. A closed standard
/// output ends the run quietly with status 0.
pub fn main_with(
    args: impl IntoIterator<Item = OsString>,
    stop: Arc<AtomicBool>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let args: Vec<OsString> = args.into_iter().collect();
    // A subcommand is the first argument; anything else is a disk probe.
    let result = match args.get(1).and_then(|a| a.to_str()) {
        Some("render") => render_main(&args[1..], out, err),
        Some("compare") => compare_main(&args[1..], out, err),
        Some("report") => report_main(&args[1..], out, err),
        Some("generate") => generate_main(&args[1..], out, err),
        Some("smart") => smart_main(&args[1..], out, err),
        _ => probe_main(args, &stop, out, err),
    };
    match result {
        Ok(code) => code,
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => EXIT_OK,
        Err(e) => {
            let _ = writeln!(err, "seekprobe: cannot write the output: {e}");
            EXIT_FAILURE
        }
    }
}

fn probe_main(
    raw: Vec<OsString>,
    stop: &AtomicBool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    use clap::CommandFactory;
    // The matches say which options the user gave, beside their values.
    let matches = match Args::command().try_get_matches_from(&raw) {
        Ok(m) => m,
        Err(e) => return Ok(clap_exit(e, out, err)),
    };
    let mut cfg = match Config::from_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            writeln!(err, "seekprobe: {e}\n{USAGE}")?;
            return Ok(EXIT_FAILURE);
        }
    };
    cfg.command = raw
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    run_all(&cfg, stop, out, err)
}

/// Probe every disk (in order, or all at once with --parallel); then the comparison
/// and verdicts when asked for. The exit status is decided at the end.
fn run_all(
    cfg: &Config,
    stop: &AtomicBool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let mut run = Run {
        schema_version: SCHEMA_VERSION,
        tool: "seekprobe".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        tests: cfg.tests.clone(),
        verbose: cfg.verbose,
        settle_s: cfg.options.settle.as_secs_f64(),
        disks: Vec::new(),
        started_unix_s: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs()),
        burn_in: cfg.burn_in.map(|b| crate::burnin::RunInfo {
            command: cfg.command.clone(),
            disks: cfg.disks.clone(),
            smr_check: b.smr_check,
        }),
    };
    let Ok(baseline) = load_baseline(cfg.qualify.as_ref(), err)? else {
        return Ok(EXIT_FAILURE);
    };
    if let Err(msg) = check_paths(cfg) {
        writeln!(err, "seekprobe: {msg}")?;
        return Ok(EXIT_FAILURE);
    }
    // --resume: the saved burn-in, checked to be the same burn-in of as many drives.
    // Slot i starts as the saved disk that was named i-th.
    let mut slots: Vec<Option<DiskResult>> = vec![None; cfg.disks.len()];
    let saved: Vec<DiskResult> = match &cfg.resume {
        None => Vec::new(),
        Some(path) => match load_resumable(path, cfg) {
            Ok(r) => {
                run.started_unix_s = r.started_unix_s.or(run.started_unix_s);
                let named = r
                    .burn_in
                    .as_ref()
                    .map(|b| b.disks.clone())
                    .unwrap_or_default();
                for (slot, name) in slots.iter_mut().zip(&named) {
                    *slot = r.disks.iter().find(|d| &d.name == name).cloned();
                }
                r.disks
            }
            Err(msg) => {
                writeln!(err, "seekprobe: --resume {}: {msg}", path.display())?;
                return Ok(EXIT_FAILURE);
            }
        },
    };
    let saver = cfg.json_file.as_ref().map(|path| Saver {
        path: path.clone(),
        run: std::sync::Mutex::new((run.clone(), slots)),
    });
    let saver = saver.as_ref();
    if let Err(e) = crate::run::smart_session::preflight(&cfg.disks, &cfg.smart) {
        writeln!(
            err,
            "seekprobe: --smart and --smart-test read the drives through smartctl: {e}"
        )?;
        return Ok(EXIT_FAILURE);
    }
    if cfg.mode == Mode::Describe && cfg.tests.contains(&TestKind::SmrCheck) {
        let b = &cfg.options;
        writeln!(
            err,
            "seekprobe: {}",
            smr_budget_note(&b.smr_budget, b.smr_idle)
        )?;
    }
    let text = cfg.mode == Mode::Describe && cfg.format == Format::Diskinfo;
    let judged = cfg.mode == Mode::Describe && (cfg.qualify.is_some() || cfg.burn_in.is_some());
    let mut failed = false;
    let mut interrupted = false;
    let mut finish_disk = |run: &mut Run,
                           disk: DiskResult,
                           out: &mut dyn Write,
                           err: &mut dyn Write|
     -> io::Result<()> {
        // Judged runs (--qualify, --burn-in) end with the verdicts' status; the
        // others fail (status 1) with a disk whose own findings fail it.
        if !judged {
            failed |= !crate::verdict::of(&disk).pass;
        }
        if let (Some(info), Mode::PhysicalPath | Mode::Ident) = (&disk.info, cfg.mode)
            && let Err(msg) = print_id(info, cfg, out)?
        {
            writeln!(err, "seekprobe: {}: {msg}", info.path)?;
            failed = true;
        }
        let i = run.disks.len();
        run.disks.push(disk);
        if let Some(saver) = saver
            && let Err(e) = saver.put(i, run.disks[i].clone())
        {
            let why = crate::error::describe_io(&e);
            writeln!(
                err,
                "seekprobe: {}: cannot save the results: {why}",
                saver.path.display()
            )?;
            failed = true;
        }
        if let Some(path) = &cfg.html
            && let Err(e) = save_html(path, run)
        {
            let why = crate::error::describe_io(&e);
            writeln!(
                err,
                "seekprobe: {}: cannot write the report: {why}",
                path.display()
            )?;
            failed = true;
        }
        if let Some(path) = &cfg.prometheus
            && let Err(e) = save_prometheus(path, run)
        {
            let why = crate::error::describe_io(&e);
            writeln!(
                err,
                "seekprobe: {}: cannot write the metrics: {why}",
                path.display()
            )?;
            failed = true;
        }
        Ok(())
    };
    if cfg.parallel && cfg.disks.len() > 1 {
        // Each disk prints into its own buffers; they are written out in order.
        let outcomes = std::thread::scope(|s| {
            let handles: Vec<_> = cfg
                .disks
                .iter()
                .enumerate()
                .map(|(i, name)| {
                    let saved = &saved;
                    s.spawn(move || {
                        let (mut o, mut e) = (Vec::new(), Vec::new());
                        let mut sink = LiveText {
                            out: &mut o,
                            err: &mut e,
                            verbose: cfg.verbose,
                            text,
                            yes: cfg.yes,
                            progress: Progress::off(),
                            stop,
                            saver: saver.map(|s| (s, i)),
                        };
                        let r = probe_disk_resuming(name, cfg, stop, &mut sink, saved);
                        (r, o, e)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a probing thread panicked"))
                .collect::<Vec<_>>()
        });
        for (r, o, e) in outcomes {
            err.write_all(&e)?;
            out.write_all(&o)?;
            let (disk, flow) = r?;
            interrupted |= flow == Flow::Interrupted;
            finish_disk(&mut run, disk, out, err)?;
        }
    } else {
        for (i, name) in cfg.disks.iter().enumerate() {
            let mut sink = LiveText {
                out: &mut *out,
                err: &mut *err,
                verbose: cfg.verbose,
                text,
                yes: cfg.yes,
                progress: Progress::new(!cfg.quiet),
                stop,
                saver: saver.map(|s| (s, i)),
            };
            let (disk, flow) = probe_disk_resuming(name, cfg, stop, &mut sink, &saved)?;
            finish_disk(&mut run, disk, out, err)?;
            if flow == Flow::Interrupted {
                interrupted = true;
                break;
            }
        }
    }
    let mut code = if failed { EXIT_FAILURE } else { EXIT_OK };
    let mut comparison = String::new();
    if cfg.mode == Mode::Describe && (cfg.compare || judged) && !interrupted {
        let disks: Vec<&DiskResult> = run.disks.iter().collect();
        let (cmp, verdicts) = judge(&disks, cfg.qualify.as_ref(), baseline.as_ref(), judged);
        if cfg.compare {
            // A burn-in shows its verdicts, with every finding, in its own block.
            let shown: &[Verdict] = if cfg.burn_in.is_some() {
                &[]
            } else {
                &verdicts
            };
            comparison = format!(
                "\n{}",
                report::compare::render(&cmp, shown, terminal_width())
            );
        }
        if judged && code == EXIT_OK {
            code = status(&verdicts);
        }
        for (d, v) in run.disks.iter_mut().zip(verdicts) {
            d.verdict = Some(v);
        }
        if let Some(path) = &cfg.prometheus {
            let _ = save_prometheus(path, &run);
        }
    }
    if cfg.mode == Mode::Describe && cfg.burn_in.is_some() && !interrupted {
        comparison.push_str(&report::burnin::render(&run));
    }
    if let Some(saver) = saver {
        let _ = saver.finish(&run.disks);
    }
    // The page again with the verdicts (a failure to write it was said above).
    if let Some(path) = &cfg.html {
        let _ = save_html(path, &run);
    }
    if cfg.mode == Mode::Describe && cfg.format != Format::Diskinfo {
        out.write_all(report::render(&run, cfg.format).as_bytes())?;
    }
    if cfg.format != Format::Json {
        out.write_all(comparison.as_bytes())?;
    }
    if let Some(path) = &cfg.beyond.bad_blocks
        && let Err(e) = save_bad_blocks(path, &run, cfg.beyond.bad_blocks_size)
    {
        writeln!(err, "seekprobe: {}: {e}", path.display())?;
        code = EXIT_FAILURE;
    }
    if let Some(path) = &cfg.plot
        && !write_plot(path, &run, err)?
    {
        code = EXIT_FAILURE;
    }
    out.flush()?;
    if interrupted {
        writeln!(
            err,
            "seekprobe: interrupted; the figures printed above were measured before it"
        )?;
        if cfg.burn_in.is_some() {
            match &cfg.json_file {
                Some(path) => {
                    let cmd = crate::burnin::resume_command(&cfg.command, &path.to_string_lossy());
                    writeln!(
                        err,
                        "seekprobe: the burn-in's completed steps are saved in {}; to go on where it stopped:\n  {}",
                        path.display(),
                        crate::burnin::shell_line(&cmd)
                    )?;
                }
                None => writeln!(
                    err,
                    "seekprobe: no --json-file was given, so the burn-in cannot be resumed; give --json-file FILE.json next time"
                )?,
            }
        }
        return Ok(EXIT_INTERRUPTED);
    }
    Ok(code)
}

/// What --smr-check will do, with its budget, said on standard error before
/// anything is written.
fn smr_budget_note(b: &crate::probe::smr::Budget, idle: std::time::Duration) -> String {
    use crate::probe::smr::{PROBE_SPACING_S, PROBES};
    let idle = idle.as_secs_f64();
    let spacing = PROBE_SPACING_S.min(idle);
    let time = if b.seconds >= 60.0 && b.seconds % 60.0 == 0.0 {
        format!("{:.0} min", b.seconds / 60.0)
    } else {
        format!("{} s", b.seconds)
    };
    format!(
        "--smr-check writes random 128 KiB to 1 MiB requests over each rotating disk, one \
         at a time, until the write rate collapses or the budget runs out: {:.1} GiB or {time}, \
         whichever comes first (--smr-budget SIZE,TIME changes it); then {idle} s idle \
         and {PROBES} reads {spacing} s apart (--smr-idle). Flash is not written",
        b.bytes as f64 / f64::from(1u32 << 30)
    )
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

/// -p / -s: print the physical path or the ident alone on a line.
fn print_id(
    info: &DeviceInfo,
    cfg: &Config,
    out: &mut dyn Write,
) -> io::Result<Result<(), String>> {
    if info.kind == TargetKind::File {
        return Ok(Err("-p or -s cannot be used on a regular file".into()));
    }
    let (value, what) = match cfg.mode {
        Mode::PhysicalPath => (&info.physical_path, "physical path"),
        _ => (&info.ident, "ident (serial number)"),
    };
    let Some(v) = value else {
        return Ok(Err(format!("the device reports no {what}")));
    };
    if cfg.with_name {
        writeln!(out, "{}\t{v}", info.name)?;
    } else {
        writeln!(out, "{v}")?;
    }
    out.flush()?;
    Ok(Ok(()))
}
