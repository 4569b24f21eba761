//! The command-line program: parse, check, probe each disk, print live, and decide
//! the exit status at the end.

use crate::cli::{Args, CompareArgs, GenerateArgs, Generated, RenderArgs};
use crate::compare::{self, Verdict};
use crate::config::{Config, Mode, Qualify};
use crate::device::{DeviceInfo, TargetKind};
use crate::error::ProbeError;
use crate::probe::TestKind;
use crate::progress::Progress;
use crate::report::humanize::humanize;
use crate::report::{self, Format, diskinfo, json};
use crate::results::{DiskResult, Run, SCHEMA_VERSION, TestResult, Warning};
use crate::run::{Flow, Sink, probe_disk_resuming};
use crate::safety::Found;
use clap::Parser;
use std::ffi::OsString;
use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Exit status: every disk probed.
pub const EXIT_OK: i32 = 0;
/// Exit status: a disk failed, or the command line was wrong.
pub const EXIT_FAILURE: i32 = 1;
/// Exit status: a drive failed qualification (--qualify).
pub const EXIT_QUALIFY: i32 = 3;
/// Exit status after Ctrl-C (128 + SIGINT).
pub const EXIT_INTERRUPTED: i32 = 130;

const USAGE: &str = "usage: seekprobe [-citSvw] [OPTIONS] disk ...\n       seekprobe [-l] -p disk ...\n       seekprobe [-l] -s disk ...\n       seekprobe render FILE.json [--format diskinfo|table|json]\n       seekprobe compare A.json B.json ... [--qualify] [--baseline FILE]\n       seekprobe generate man|bash|zsh|fish|elvish|powershell";

/// Prints diskinfo's text to `out` as results arrive (when that is the format),
/// errors and warnings to `err`, and progress on the terminal.
struct LiveText<'a> {
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    verbose: bool,
    /// Whether diskinfo's text goes to `out` live.
    text: bool,
    /// --yes: writing needs no confirmation.
    yes: bool,
    /// The progress bar on standard error.
    progress: Progress,
    /// Ctrl-C: also ends a confirmation prompt.
    stop: &'a AtomicBool,
    /// Where this disk's results are saved after each test or step (--json-file),
    /// and its place in the run.
    saver: Option<(&'a Saver, usize)>,
}

impl LiveText<'_> {
    /// Write `text` to standard output, out of the progress bar's way.
    fn print(&mut self, text: &str) -> io::Result<()> {
        let out = &mut *self.out;
        self.progress.suspend(|| {
            out.write_all(text.as_bytes())?;
            out.flush()
        })
    }

    /// Write a line to standard error, out of the progress bar's way.
    fn note(&mut self, line: &str) {
        let err = &mut *self.err;
        self.progress.suspend(|| {
            let _ = writeln!(err, "{line}");
        });
    }
}

impl Sink for LiveText<'_> {
    fn opened(&mut self, info: &DeviceInfo, warnings: &[Warning]) -> io::Result<()> {
        for w in warnings {
            self.warning(w)?;
        }
        if !self.text {
            return Ok(());
        }
        let text = if self.verbose {
            diskinfo::verbose_header(info)
        } else {
            diskinfo::one_line(info)
        };
        self.print(&text)
    }

    fn warning(&mut self, w: &Warning) -> io::Result<()> {
        self.note(&format!("seekprobe: warning: {}; {}", w.message, w.advice));
        Ok(())
    }

    fn confirm_write(&mut self, info: &DeviceInfo, found: &[Found]) -> io::Result<bool> {
        if self.yes {
            return Ok(true);
        }
        if !io::stdin().is_terminal() {
            return Ok(false);
        }
        let model = info
            .descr
            .as_deref()
            .map(|d| format!(", {d}"))
            .unwrap_or_default();
        let forced: Vec<&str> = found.iter().map(|f| f.what.as_str()).collect();
        let forced = if forced.is_empty() {
            String::new()
        } else {
            format!(" It carries {} (--force given).", forced.join(", "))
        };
        write!(
            self.err,
            "seekprobe: the write tests will destroy data on {} ({} bytes, {}{model}): -S overwrites random blocks, --zones and --block-sweep with -w whole ranges from the start, --burn-in the whole drive.{forced} Type yes to go on: ",
            info.path,
            info.media_size_bytes,
            humanize(info.media_size_bytes)
        )?;
        self.err.flush()?;
        Ok(read_answer(self.stop)?.is_some_and(|a| a.trim() == "yes"))
    }

    fn line_started(&mut self, test: TestKind, index: usize, total: usize, label: &str) {
        self.progress.line(test.name(), index, total, label);
    }

    fn phase_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()> {
        if !self.text {
            return Ok(());
        }
        let last = test.phases.len() - 1;
        let mut text = String::new();
        if test.phases.iter().filter(|p| p.complete()).count() == 1 {
            text.push_str(diskinfo::test_start(test.test));
        }
        text.push_str(&diskinfo::phase_line(test, last, info.sector_size));
        self.print(&text)
    }

    fn test_done(&mut self, info: &DeviceInfo, test: &TestResult) -> io::Result<()> {
        self.progress.done();
        if self.text && diskinfo::end_printed(test) {
            self.print(&diskinfo::test_end(test, info))?;
        }
        Ok(())
    }

    fn failed(&mut self, _name: &str, error: &ProbeError) -> io::Result<()> {
        self.progress.done();
        self.note(&format!("seekprobe: {error}"));
        Ok(())
    }

    fn step_done(
        &mut self,
        info: &DeviceInfo,
        record: &crate::burnin::StepRecord,
    ) -> io::Result<()> {
        let line = report::burnin::step_line(record);
        self.note(&format!(
            "seekprobe: {}: burn-in: {}",
            info.name,
            line.trim()
        ));
        Ok(())
    }

    fn checkpoint(&mut self, disk: &DiskResult) -> io::Result<()> {
        if let Some((saver, i)) = self.saver
            && let Err(e) = saver.put(i, disk.clone())
        {
            let why = crate::error::describe_io(&e);
            self.note(&format!(
                "seekprobe: {}: cannot save the results: {why}",
                saver.path.display()
            ));
        }
        Ok(())
    }

    fn self_test_progress(&mut self, p: &crate::smart::source::SelfTestProgress) {
        let name = format!("SMART {} self-test", p.kind.arg());
        self.progress.self_test(&name, p.done_percent, p.eta);
    }

    fn smart_done(
        &mut self,
        info: &DeviceInfo,
        smart: &crate::smart::record::SmartResult,
    ) -> io::Result<()> {
        self.progress.done();
        if let Some(e) = &smart.error {
            self.note(&format!("seekprobe: {}: SMART: {e}", info.path));
        }
        if self.text {
            self.print(&report::smart::render_result(smart, &info.path))?;
        }
        Ok(())
    }
}

/// The run as saved to --json-file while it goes on: the run's header and a slot
/// per disk (a resumed burn-in's slots start as the saved disks, so a drive not
/// reached yet keeps its steps in the file).
struct Saver {
    path: std::path::PathBuf,
    run: std::sync::Mutex<(Run, Vec<Option<DiskResult>>)>,
}

impl Saver {
    /// Put disk `i`'s results in its slot and save the run.
    fn put(&self, i: usize, disk: DiskResult) -> io::Result<()> {
        let mut g = self.run.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(slot) = g.1.get_mut(i) {
            *slot = Some(disk);
        }
        Self::write(&self.path, &g)
    }

    /// Save the run with these verdicts.
    fn finish(&self, verdicts: &[crate::results::Verdict]) -> io::Result<()> {
        let mut g = self.run.lock().unwrap_or_else(|p| p.into_inner());
        g.0.verdicts = verdicts.to_vec();
        Self::write(&self.path, &g)
    }

    fn write(path: &Path, g: &(Run, Vec<Option<DiskResult>>)) -> io::Result<()> {
        let mut run = g.0.clone();
        run.disks = g.1.iter().flatten().cloned().collect();
        save_json(path, &run)
    }
}

/// A line from standard input, or None when Ctrl-C comes first (the signal handler
/// restarts a blocked read, so the input is polled with the stop flag in view).
fn read_answer(stop: &AtomicBool) -> io::Result<Option<String>> {
    use nix::poll::{PollFd, PollFlags, poll};
    use std::os::fd::AsFd;
    let stdin = io::stdin();
    loop {
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(None);
        }
        let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
        match poll(&mut fds, 100u16) {
            Ok(0) | Err(nix::errno::Errno::EINTR) => continue,
            Ok(_) => break,
            Err(e) => return Err(e.into()),
        }
    }
    let mut line = String::new();
    stdin.read_line(&mut line)?;
    Ok(Some(line))
}

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

/// Parse with clap: Ok(value), or the exit status after printing help, the version
/// or the error.
fn parse<T: Parser>(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> Result<T, i32> {
    T::try_parse_from(args).map_err(|e| clap_exit(e, out, err))
}

/// Print clap's help, version or error; the exit status it calls for.
fn clap_exit(e: clap::Error, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let text = e.render().to_string();
    if e.use_stderr() {
        let _ = write!(err, "{text}");
        EXIT_FAILURE
    } else {
        let _ = write!(out, "{text}");
        EXIT_OK
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

/// `seekprobe render FILE.json`: print a saved run again.
fn render_main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let a: RenderArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let run = match load_run(&a.file) {
        Ok(r) => r,
        Err(msg) => {
            writeln!(err, "seekprobe: {}: {msg}", a.file.display())?;
            return Ok(EXIT_FAILURE);
        }
    };
    out.write_all(report::render(&run, a.format).as_bytes())?;
    out.flush()?;
    if let Some(path) = &a.prometheus
        && identity(&path.to_string_lossy()).is_some()
        && identity(&path.to_string_lossy()) == identity(&a.file.to_string_lossy())
    {
        writeln!(
            err,
            "seekprobe: --prometheus {}: that is the saved run being read; name another file",
            path.display()
        )?;
        return Ok(EXIT_FAILURE);
    }
    if let Some(path) = &a.prometheus
        && let Err(e) = save_prometheus(path, &run)
    {
        let why = crate::error::describe_io(&e);
        writeln!(
            err,
            "seekprobe: {}: cannot write the metrics: {why}",
            path.display()
        )?;
        return Ok(EXIT_FAILURE);
    }
    match &a.plot {
        Some(path) if !write_plot(path, &run, err)? => Ok(EXIT_FAILURE),
        _ => Ok(EXIT_OK),
    }
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
        settle_s: cfg.settle.as_secs_f64(),
        disks: Vec::new(),
        verdicts: Vec::new(),
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
    if let Err(e) = crate::smart::session::preflight(&cfg.disks, &cfg.smart) {
        writeln!(
            err,
            "seekprobe: --smart and --smart-test read the drives through smartctl: {e}"
        )?;
        return Ok(EXIT_FAILURE);
    }
    if cfg.mode == Mode::Describe && cfg.tests.contains(&TestKind::SmrCheck) {
        let b = &cfg.beyond;
        writeln!(
            err,
            "seekprobe: {}",
            smr_budget_note(&b.smr_budget, b.smr_idle)
        )?;
    }
    let text = cfg.mode == Mode::Describe && cfg.format == Format::Diskinfo;
    let mut failed = false;
    let mut interrupted = false;
    let mut finish_disk = |run: &mut Run,
                           disk: DiskResult,
                           out: &mut dyn Write,
                           err: &mut dyn Write|
     -> io::Result<()> {
        // A burn-in's failed steps are reasons of its verdict (exit status 3); a
        // disk that could not be probed is a failure.
        failed |= if cfg.burn_in.is_some() {
            disk.error.is_some()
        } else {
            disk.failed()
        };
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
    if cfg.mode == Mode::Describe && (cfg.compare || cfg.qualify.is_some()) && !interrupted {
        let disks: Vec<&DiskResult> = run.disks.iter().collect();
        let (cmp, verdicts, c) = judge(&disks, cfg.qualify.as_ref(), baseline.as_ref());
        // A burn-in shows its verdicts, with every reason, in its own block.
        let shown: &[Verdict] = if cfg.burn_in.is_some() {
            &[]
        } else {
            &verdicts
        };
        comparison = format!(
            "\n{}",
            report::compare::render(&cmp, shown, terminal_width())
        );
        run.verdicts = verdicts;
        if c == EXIT_FAILURE || (c == EXIT_QUALIFY && code == EXIT_OK) {
            code = c;
        }
        if let Some(path) = &cfg.prometheus {
            let _ = save_prometheus(path, &run);
        }
    }
    if cfg.mode == Mode::Describe && cfg.burn_in.is_some() && !interrupted {
        run.verdicts = burn_in_verdicts(&run.disks, std::mem::take(&mut run.verdicts));
        if !run.verdicts.iter().all(|v| v.pass) && code == EXIT_OK {
            code = EXIT_QUALIFY;
        }
        comparison.push_str(&report::burnin::render(&run));
    }
    if let Some(saver) = saver {
        let _ = saver.finish(&run.verdicts);
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

/// The burn-in's verdict of each disk: the timing verdicts of --qualify (when
/// given) with the reasons of every failed step added; a disk that could not be
/// probed fails.
fn burn_in_verdicts(disks: &[DiskResult], timing: Vec<Verdict>) -> Vec<Verdict> {
    disks
        .iter()
        .map(|d| {
            let mut reasons: Vec<String> = Vec::new();
            if let Some(e) = &d.error {
                reasons.push(format!("not probed: {e}"));
            }
            reasons.extend(d.burn_in.iter().filter_map(crate::burnin::reason));
            let mut warnings = Vec::new();
            compare::smart_reasons(d.smart.as_ref(), &mut reasons, &mut warnings);
            if let Some(t) = timing.iter().find(|v| v.disk == d.name) {
                for r in &t.reasons {
                    if !reasons.iter().any(|x| x.ends_with(r.as_str())) {
                        reasons.push(r.clone());
                    }
                }
                for w in &t.warnings {
                    if !warnings.contains(w) {
                        warnings.push(w.clone());
                    }
                }
            }
            Verdict {
                disk: d.name.clone(),
                pass: reasons.is_empty(),
                reasons,
                warnings,
            }
        })
        .collect()
}

/// The saved burn-in that `--resume` continues: a run saved by --burn-in, with the
/// same SMR setting and as many drives as this command names. Err says why not.
fn load_resumable(path: &Path, cfg: &Config) -> Result<Run, String> {
    let run = load_run(path)?;
    let Some(b) = &run.burn_in else {
        return Err("not a burn-in: give the --json-file of a --burn-in run".into());
    };
    let settings = cfg.burn_in.unwrap_or_default();
    if b.smr_check != settings.smr_check {
        return Err(format!(
            "that burn-in was run {} --smr-check; resume it with the same options",
            if b.smr_check { "with" } else { "without" }
        ));
    }
    if b.disks.len() != cfg.disks.len() {
        return Err(format!(
            "that burn-in ran on {} drive(s) ({}); name the same drives",
            b.disks.len(),
            b.disks.join(", ")
        ));
    }
    Ok(run)
}

/// Compare disks and, with qualification settings (and a baseline already loaded),
/// judge them: the comparison, the verdicts, and the exit status they call for (0
/// or 3).
fn judge(
    disks: &[&DiskResult],
    qualify: Option<&Qualify>,
    baseline: Option<&compare::Comparison>,
) -> (compare::Comparison, Vec<Verdict>, i32) {
    let cmp = compare::compare(disks);
    let Some(q) = qualify else {
        return (cmp, Vec::new(), EXIT_OK);
    };
    let verdicts = compare::qualify(&cmp, disks, baseline, q.max_deviation);
    let code = if verdicts.iter().all(|v| v.pass) {
        EXIT_OK
    } else {
        EXIT_QUALIFY
    };
    (cmp, verdicts, code)
}

/// Load the baseline of `qualify`, if any, before anything is probed: Err (after
/// saying why) when it cannot be read.
fn load_baseline(
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
fn load_run(path: &Path) -> Result<Run, String> {
    json::from_json(&read_input(path, "a run saved with --json-file")?)
}

/// The text of `path`, or of standard input for `-`. Only a regular file is opened
/// (a FIFO without a writer would block); otherwise the error says to give `what`.
fn read_input(path: &Path, what: &str) -> Result<String, String> {
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

/// `seekprobe compare A.json B.json ...`: the comparison of saved runs.
fn compare_main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    let a: CompareArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let q = match Qualify::from_args(a.judge) {
        Ok(q) => q,
        Err(e) => {
            writeln!(err, "seekprobe: {e}")?;
            return Ok(EXIT_FAILURE);
        }
    };
    let mut disks = Vec::new();
    let mut versions: Vec<String> = Vec::new();
    for path in &a.files {
        match load_run(path) {
            Ok(run) => {
                if !versions.contains(&run.tool_version) {
                    versions.push(run.tool_version.clone());
                }
                let stem = path.file_stem().map(|s| s.to_string_lossy().to_string());
                for mut d in run.disks {
                    if let Some(stem) = &stem {
                        d.name = format!("{stem}:{}", d.name);
                    }
                    disks.push(d);
                }
            }
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(EXIT_FAILURE);
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
        return Ok(EXIT_FAILURE);
    };
    if q.is_some() && refs.is_empty() {
        writeln!(
            err,
            "seekprobe: compare --qualify: nothing to judge: the runs given hold no drives"
        )?;
        return Ok(EXIT_FAILURE);
    }
    if q.is_some() && refs.len() == 1 && baseline.is_none() {
        writeln!(
            err,
            "seekprobe: compare --qualify: one drive ({}): nothing to compare with: give more runs or --baseline",
            refs[0].name
        )?;
        return Ok(EXIT_FAILURE);
    }
    let (cmp, verdicts, code) = judge(&refs, q.as_ref(), baseline.as_ref());
    let text = if a.json {
        report::compare::to_json(&cmp, &verdicts)
    } else {
        report::compare::render(&cmp, &verdicts, terminal_width())
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(code)
}

/// `seekprobe generate WHAT`: the man page or shell completions.
fn generate_main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    use clap::CommandFactory;
    use clap_complete::Shell;
    let a: GenerateArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    let mut cmd = Args::command();
    let shell = match a.what {
        Generated::Man => return clap_mangen::Man::new(cmd).render(out).map(|_| EXIT_OK),
        Generated::Bash => Shell::Bash,
        Generated::Zsh => Shell::Zsh,
        Generated::Fish => Shell::Fish,
        Generated::Elvish => Shell::Elvish,
        Generated::Powershell => Shell::PowerShell,
    };
    clap_complete::generate(shell, &mut cmd, "seekprobe", out);
    Ok(EXIT_OK)
}

/// The file identity of a disk argument (device and inode, following the /dev/
/// retry), or None for a simulated drive or a path that does not exist.
fn identity(name: &str) -> Option<(u64, u64)> {
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
    let outputs = [
        ("--json-file", &cfg.json_file),
        ("--plot", &cfg.plot),
        ("--prometheus", &cfg.prometheus),
        ("--bad-blocks", &cfg.beyond.bad_blocks),
    ];
    if cfg.beyond.bad_blocks.is_some() && cfg.disks.len() > 1 {
        return Err(
            "--bad-blocks lists the blocks of one device: give one disk per run".to_string(),
        );
    }
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

/// Draw the run's plots to `path`; false (after saying why) when there is nothing
/// to draw or the file cannot be written.
fn write_plot(path: &Path, run: &Run, err: &mut dyn Write) -> io::Result<bool> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        writeln!(
            err,
            "seekprobe: {}: not a regular file; the plot is not written",
            path.display()
        )?;
        return Ok(false);
    }
    let Some(svg) = report::plot::svg(run) else {
        writeln!(
            err,
            "seekprobe: {}: nothing to plot; --plot draws the results of --zones, --seek-profile, --scan and --smr-check",
            path.display()
        )?;
        return Ok(false);
    };
    match std::fs::write(path, svg) {
        Ok(()) => Ok(true),
        Err(e) => {
            let why = crate::error::describe_io(&e);
            writeln!(
                err,
                "seekprobe: {}: cannot write the plot: {why}",
                path.display()
            )?;
            Ok(false)
        }
    }
}

/// Write the run to `path` atomically and durably ([`save_atomically`]).
fn save_json(path: &Path, run: &Run) -> io::Result<()> {
    save_atomically(path, json::to_json(run).as_bytes())
}

/// Write `bytes` to `path` atomically and durably: a fresh temporary file in the
/// same directory (a unique name, so two runs never share it; `.tmpXXXXXX`, which
/// node_exporter's textfile collector ignores: it reads only `*.prom`), written and
/// synced, renamed over `path`, and the directory synced, so a reader never sees
/// half a file and a crash leaves the old file or the new one.
fn save_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::other("not a regular file"));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // 0666 less the umask, as std::fs::write creates files (tempfile's default,
    // 0600, would hide the metrics from a node_exporter running as another user).
    let mut tmp = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    std::fs::File::open(dir)?.sync_all()
}

/// The width of the terminal on standard output, or None when it is not a terminal
/// (a pipe or file takes tables of any width).
fn terminal_width() -> Option<usize> {
    let stdout = io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    match rustix::termios::tcgetwinsize(&stdout) {
        Ok(ws) if ws.ws_col > 0 => Some(usize::from(ws.ws_col)),
        _ => None,
    }
}

/// Write the run's Prometheus metrics to `path` atomically and durably
/// ([`save_atomically`]), so node_exporter never reads half a file.
fn save_prometheus(path: &Path, run: &Run) -> io::Result<()> {
    save_atomically(path, report::prometheus::render(run).as_bytes())
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

/// `seekprobe smart FILE.json [AFTER.json]`: the SMART health block of a saved
/// smartctl report, the changes when a second one is given, the findings and the
/// verdict. Exit status 0 healthy (or no SMART in a lone report), 3 failing, 1
/// unreadable input, two drives, or one report of two without SMART.
fn smart_main(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> io::Result<i32> {
    use crate::cli::SmartArgs;
    use crate::report::smart as text;
    use crate::smart::{SmartRead, judge, rules, smartctl};
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
        return Ok(EXIT_FAILURE);
    }
    let mut reads = Vec::new();
    for path in &paths {
        let report = match load_smart_report(path) {
            Ok(r) => r,
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(EXIT_FAILURE);
            }
        };
        reads.push((path.display().to_string(), smartctl::classify(report)));
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
        return Ok(EXIT_OK);
    }
    if let Some(name) = without.first() {
        writeln!(
            err,
            "seekprobe: smart: {name} holds no SMART data, so the two reports cannot be compared; give two reports of the same drive with SMART"
        )?;
        return Ok(EXIT_FAILURE);
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
        return Ok(EXIT_FAILURE);
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
    let findings = judge(before, after, &a.rules.options());
    s.push_str(&text::render_findings(&findings));
    out.write_all(s.as_bytes())?;
    out.flush()?;
    Ok(if rules::passes(&findings) {
        EXIT_OK
    } else {
        EXIT_QUALIFY
    })
}

/// Read a saved smartctl report: `-` is standard input; otherwise only a regular
/// file is opened.
fn load_smart_report(path: &Path) -> Result<crate::smart::Report, String> {
    let text = read_input(path, "a report saved with smartctl --json -x DEVICE")?;
    crate::smart::Report::from_json(&text)
        .map_err(|e| format!("{e}; give a report saved with smartctl --json -x DEVICE"))
}

/// Write the blocks that --verify found bad (every pass, every disk's verify
/// test: one disk per run) to `path` in badblocks' format, atomically and
/// durably as the JSON is ([`save_atomically`]).
fn save_bad_blocks(
    path: &Path,
    run: &Run,
    block_size: u32,
) -> Result<(), crate::verify::badblocks::BadBlocksError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::other("not a regular file").into());
    }
    let mut spans = Vec::new();
    let mut sector = 512;
    for v in run
        .disks
        .iter()
        .flat_map(|d| &d.tests)
        .filter_map(|t| t.verify.as_ref())
    {
        sector = v.sector_bytes;
        for p in &v.passes {
            spans.extend(p.failures.covered());
        }
    }
    let mut list = Vec::new();
    crate::verify::badblocks::write(&mut list, spans, sector, block_size)?;
    save_atomically(path, &list)?;
    Ok(())
}
