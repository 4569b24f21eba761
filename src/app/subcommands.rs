//! The subcommands (render, compare, generate, smart) and the command-line parsing
//! they share with the probing command.

use super::inputs::{identity, load_baseline, load_run, load_smart_report};
use super::output::{cannot_write, save_atomically, save_prometheus, terminal_width, write_plot};
use super::status::{Ending, exit_status};
use super::verdicts::comparison_and_verdicts;
use crate::cli::{CompareArgs, GenerateArgs, Generated, RenderArgs};
use crate::config::Qualify;
use crate::report::{self};
use crate::results::{DiskResult, SCHEMA_VERSION};
use clap::Parser;
use std::ffi::OsString;
use std::io::{self, Write};
use std::path::Path;

/// Parse with clap: Ok(value), or the exit status after printing help, the version
/// or the error.
pub(super) fn parse<T: Parser>(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<T, i32> {
    T::try_parse_from(args).map_err(|e| clap_exit(e, out, err))
}

/// Print clap's help, version or error; the exit status it calls for.
pub(super) fn clap_exit(e: clap::Error, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let text = e.render().to_string();
    if e.use_stderr() {
        let _ = write!(err, "{text}");
        exit_status(Ending::Unusable)
    } else {
        let _ = write!(out, "{text}");
        exit_status(Ending::Written)
    }
}

/// `seekprobe render FILE.json`: print a saved run again.
pub(super) fn render_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: RenderArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let files = std::slice::from_ref(&a.file);
    let Ok(mut runs) = super::inputs::read_all_sealed(files, &a.signers, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    let (run, _, seal) = runs.remove(0);
    out.write_all(report::render(&run, a.format).as_bytes())?;
    out.flush()?;
    // On standard error: standard output stays the run's text (or JSON).
    if let Some(seal) = seal {
        let said = seal.describe_for(&a.file);
        writeln!(err, "seekprobe: {}: {said}", a.file.display())?;
    }
    if let Some(path) = &a.prometheus
        && identity(&path.to_string_lossy()).is_some()
        && identity(&path.to_string_lossy()) == identity(&a.file.to_string_lossy())
    {
        writeln!(
            err,
            "seekprobe: --prometheus {}: that is the saved run being read; name another file",
            path.display()
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    if let Some(path) = &a.prometheus
        && let Err(e) = save_prometheus(path, &run)
    {
        cannot_write(err, path, "write the metrics", &e)?;
        return Ok(exit_status(Ending::Unusable));
    }
    match &a.plot {
        Some(path) if !write_plot(path, &run, err)? => Ok(exit_status(Ending::Unusable)),
        _ => Ok(exit_status(Ending::Written)),
    }
}

/// `seekprobe compare A.json B.json ...`: the comparison of saved runs.
pub(super) fn compare_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: CompareArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let q = match Qualify::from_args(a.judge) {
        Ok(q) => q,
        Err(e) => {
            writeln!(err, "seekprobe: {e}")?;
            return Ok(exit_status(Ending::Unusable));
        }
    };
    let mut disks = Vec::new();
    // Per disk: of a burn-in saved without its verdict (stopped before its end).
    let mut unfinished = Vec::new();
    let mut versions: Vec<String> = Vec::new();
    for path in &a.files {
        match load_run(path) {
            Ok(run) => {
                if !versions.contains(&run.tool_version) {
                    versions.push(run.tool_version.clone());
                }
                let stem = path.file_stem().map(|s| s.to_string_lossy().to_string());
                for mut d in run.disks {
                    unfinished.push(run.burn_in.is_some() && d.verdict.is_none());
                    if let Some(stem) = &stem {
                        d.name = format!("{stem}:{}", d.name);
                    }
                    disks.push(d);
                }
            }
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(exit_status(Ending::Unusable));
            }
        }
    }
    if versions.len() > 1 {
        writeln!(
            err,
            "seekprobe: note: runs of seekprobe {} compared: all have schema version {SCHEMA_VERSION}, so their figures (by test and line) mean the same",
            versions.join(", ")
        )?;
    }
    let refs: Vec<&DiskResult> = disks.iter().collect();
    let Ok(baseline) = load_baseline(q.as_ref(), err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    if q.is_some() && refs.is_empty() {
        writeln!(
            err,
            "seekprobe: compare --qualify: nothing to judge: the runs given hold no drives"
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    // One drive is judged on its own findings; its timings get a note.
    let earlier = super::run_history::of_saved(&a.history, &refs, err)?;
    let (cmp, mut verdicts) = comparison_and_verdicts(
        &refs,
        q.as_ref(),
        (baseline.as_ref(), &earlier),
        q.is_some(),
    );
    // A burn-in stopped before its end is not judged whole: INCOMPLETE at best.
    for (v, _) in verdicts.iter_mut().zip(&unfinished).filter(|(_, u)| **u) {
        *v =
            crate::verdict::not_complete(std::mem::replace(v, crate::verdict::judge(vec![])), true);
    }
    let code = exit_status(match q {
        Some(_) => Ending::Judged(&verdicts),
        None => Ending::Written,
    });
    let text = if a.json {
        report::compare::to_json(&cmp, &verdicts)
    } else {
        report::compare::render(&cmp, &verdicts, terminal_width())
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(code)
}

/// `seekprobe report RUN.json... -o FILE.html`: the qualification report of saved
/// runs, one HTML page; each run's drives carry its file's name as their host.
/// Exit status 0 when the page is written, whatever the verdicts in it; 1 when a
/// run cannot be read or the page cannot be written.
pub(super) fn report_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    use crate::cli::ReportArgs;
    let a: ReportArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let target = identity(&a.output.to_string_lossy());
    if (a.files.iter()).any(|p| target.is_some() && identity(&p.to_string_lossy()) == target) {
        writeln!(
            err,
            "seekprobe: report -o {}: that is a saved run being read; name another file",
            a.output.display()
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    let Ok(read) = super::inputs::read_all_sealed(&a.files, &a.signers, err)? else {
        return Ok(exit_status(Ending::Unusable));
    };
    let runs: Vec<_> = a.files.iter().zip(read).collect();
    let sources: Vec<report::html::Source> = runs
        .iter()
        .map(|(path, (run, sha256, seal))| report::html::Source {
            host: match path.file_stem() {
                Some(s) if path.as_path() != Path::new("-") => s.to_string_lossy().into_owned(),
                _ => String::new(),
            },
            run,
            saved: Some(report::html::record::SavedFile {
                name: path.display().to_string(),
                sha256: sha256.clone(),
            }),
            seal: seal.clone(),
        })
        .collect();
    let all: Vec<&crate::results::Run> = runs.iter().map(|(_, (r, _, _))| r).collect();
    let earlier = super::run_history::earlier_runs(&a.history, &all, err)?;
    let page = report::html::render_with(&sources, &earlier);
    if let Err(e) = save_atomically(&a.output, page.as_bytes()) {
        cannot_write(err, &a.output, "write the report", &e)?;
        return Ok(exit_status(Ending::Unusable));
    }
    Ok(exit_status(Ending::Written))
}

/// `seekprobe history ...`: the drive history database (docs/history.md). Exit
/// status 0, or 1 when it cannot be done (the message says why).
pub(super) fn history_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: crate::cli::HistoryArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    match crate::history::show::command(&a, out)? {
        Ok(()) => Ok(exit_status(Ending::Written)),
        Err(msg) => {
            writeln!(err, "seekprobe: {msg}")?;
            Ok(exit_status(Ending::Unusable))
        }
    }
}

/// `seekprobe generate WHAT`: the man page or shell completions.
pub(super) fn generate_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    use clap_complete::Shell;
    let a: GenerateArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let mut cmd = crate::cli::completed();
    let shell = match a.what {
        Generated::Man => return super::man::render(out).map(|_| exit_status(Ending::Written)),
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
        Generated::Elvish => Shell::Elvish,
        Generated::Powershell => Shell::PowerShell,
    };
    clap_complete::generate(shell, &mut cmd, "seekprobe", out);
    Ok(exit_status(Ending::Written))
}

/// `seekprobe smart FILE.json [AFTER.json]`: the SMART health block of a saved
/// smartctl report, the changes when a second one is given, the findings and the
/// verdict. Exit status 0 healthy, 3 failing, 1 when the reports cannot be judged:
/// unreadable input, two drives, a report without SMART (smartctl could not
/// read the drive, or it has none), whose note is printed, or a report whose
/// findings say it cannot be judged (`smart::health_rules::CANNOT_JUDGE`: its
/// structure unreadable, FARM only, `--new` without power-on hours).
pub(super) fn smart_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    use crate::cli::SmartArgs;
    use crate::report::smart as text;
    use crate::smart::{SmartRead, findings, smartctl};
    let a: SmartArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let mut paths = vec![a.file.clone()];
    paths.extend(a.after.clone());
    if paths.len() == 2 && paths.iter().all(|p| p == Path::new("-")) {
        writeln!(
            err,
            "seekprobe: smart: standard input (-) can give only one of the two reports"
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    let mut reads = Vec::new();
    for path in &paths {
        let report = match load_smart_report(path) {
            Ok(r) => r,
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(exit_status(Ending::Unusable));
            }
        };
        match smartctl::classify(report) {
            Ok(read) => reads.push((path.display().to_string(), read)),
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(exit_status(Ending::Unusable));
            }
        }
    }
    let mut healths = Vec::new();
    let mut without = Vec::new();
    for (name, read) in reads {
        match read {
            SmartRead::Health { health, .. } => healths.push(*health),
            SmartRead::NoSmart { note } => {
                out.write_all(text::no_smart_note(&name, &note).as_bytes())?;
                without.push(name);
            }
        }
    }
    out.flush()?;
    if healths.is_empty() {
        // Nothing to judge: smartctl could not read the drive, or it has no SMART.
        return Ok(exit_status(Ending::Unusable));
    }
    if let Some(name) = without.first() {
        writeln!(
            err,
            "seekprobe: smart: {name} holds no SMART data, so the two reports cannot be compared; give two reports of the same drive with SMART"
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    let (before, after) = (&healths[0], healths.get(1));
    if let Some(after) = after
        && let Some(why) = text::different_drives(before, after)
    {
        writeln!(
            err,
            "seekprobe: smart: {} and {} are not the same drive ({why}); give two reports of one drive",
            paths[0].display(),
            paths[1].display()
        )?;
        return Ok(exit_status(Ending::Unusable));
    }
    let now = after.unwrap_or(before);
    let mut s = text::render_health(now);
    if let Some(after) = after
        && let Some(diff) = text::render_diff(before, after)
    {
        s.push_str(&diff);
    }
    if let Some(after) = after {
        s.push_str(&text::render_vanished(before, after));
    }
    let findings = findings(before, after, &a.rules.options());
    let mut history = super::run_history::SmartHistory::open(&a.history, err)?;
    let findings =
        history.acknowledge((now.serial.as_deref(), now.model.as_deref()), findings, err)?;
    s.push_str(&text::render_findings(&findings));
    out.write_all(s.as_bytes())?;
    out.flush()?;
    // The one judge, on the health rules' findings; a report that cannot be
    // judged (and shows no failure) is exit 1, never "healthy".
    let verdict = crate::verdict::judge(crate::verdict::smart_rule_findings(&findings));
    history.record((before, after), &findings, args, err)?;
    let failing = findings
        .iter()
        .any(|f| f.severity == crate::results::Severity::Fail && !f.cannot_judge());
    // A report that cannot be judged is an input that cannot be used (exit 1).
    Ok(exit_status(if verdict.passes() || failing {
        Ending::Judged(std::slice::from_ref(&verdict))
    } else {
        Ending::Unusable
    }))
}
