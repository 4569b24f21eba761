//! The one question before a run writes: every drive it will write named at once,
//! before anything runs and before the live view draws (one answer for the batch,
//! --parallel or not), each with its size, model, serial and what it holds, and
//! what the tests will do to it. Without a terminal to ask on, `--yes` is needed:
//! the run does not start (exit 1), nothing is written, no drive is judged.
//!
//! The answer is kept as the drives confirmed (the path opened and the drive's
//! identity): each drive's own check before its first write (`prober::writable`)
//! reads its signatures again, and a drive that is not the one named here (a
//! drive swapped or renamed during a long batch) is not written.

use super::status::Ending;
use crate::burnin::Medium;
use crate::config::Config;
use crate::device::{OpenOptions, Stop};
use crate::results::burnin::Step;
use crate::results::device::{DeviceInfo, Identity, TargetKind};
use crate::results::test_kind::TestKind;
use crate::results::verdict::binary_size;
use crate::safety::Found;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// The drives the answer `yes` (or --yes) lets the run write: the path each was
/// opened at and its identity.
pub(super) type Confirmed = Vec<(String, Identity)>;

/// A drive the run will write, as the question names it.
struct Writable {
    info: DeviceInfo,
    /// Signatures it carries, written over with --force.
    found: Vec<Found>,
    /// Why libblkid did not take part (the built-in check alone looked).
    builtin_only: bool,
    /// The first unreadable byte of its signature areas (--force given).
    unreadable: Option<u64>,
    /// What the tests write on it, a line a test.
    writes: Vec<String>,
}

/// What the question says of a drive named.
enum Seen {
    /// It will be written: asked about.
    Asked(Box<Writable>),
    /// Not asked about, with why (simulated, nothing written on it, refused).
    Aside(String),
}

/// Ask once, before anything runs, whether the drives the run will write may be
/// written. `Ok(drives)`: go on (none needed asking, --yes, or `yes` was typed);
/// `Err(ending)` after saying why on `err`: the run must not start (no terminal
/// to ask on without --yes, any other answer, Ctrl-C).
pub(super) fn confirm(
    cfg: &Config,
    stop: &Stop,
    saved: &[Option<crate::results::DiskResult>],
    err: &mut dyn Write,
) -> io::Result<Result<Confirmed, Ending<'static>>> {
    if cfg.yes || !cfg.writes(None) {
        return Ok(Ok(Confirmed::new()));
    }
    let seen: Vec<Seen> = (cfg.disks.iter().enumerate())
        .map(|(i, d)| survey(d, cfg, stop, saved.get(i).and_then(Option::as_ref)))
        .collect();
    let asked: Vec<&Writable> = seen
        .iter()
        .filter_map(|s| match s {
            Seen::Asked(w) => Some(&**w),
            Seen::Aside(_) => None,
        })
        .collect();
    if asked.is_empty() {
        // Simulated drives only, or every drive refused: each says so as it runs.
        return Ok(Ok(Confirmed::new()));
    }
    let names: Vec<&str> = asked.iter().map(|w| w.info.name.as_str()).collect();
    if !io::stdin().is_terminal() {
        writeln!(
            err,
            "seekprobe: {}: refusing to write: not confirmed: standard input is not a terminal to ask on; give --yes to write without asking (nothing was written, no drive judged)",
            names.join(", ")
        )?;
        return Ok(Err(Ending::Unusable));
    }
    let width = crate::progress::terminal_width().saturating_sub(1);
    err.write_all(wrap(&question(&seen, &asked), width).as_bytes())?;
    err.flush()?;
    let answer = read_answer(stop)?;
    if answer.is_none() || stop.load(Ordering::Relaxed) {
        writeln!(err)?;
        writeln!(
            err,
            "seekprobe: interrupted at the question: nothing was written"
        )?;
        return Ok(Err(Ending::Interrupted(stop.signal())));
    }
    let answer = answer.unwrap_or_default();
    if answer.trim() != "yes" {
        let said = match answer.trim() {
            "" if answer.is_empty() => "no answer (end of input)".to_string(),
            a => format!("the answer was {a:?}, not yes"),
        };
        writeln!(
            err,
            "seekprobe: not confirmed ({said}): nothing was written"
        )?;
        return Ok(Err(Ending::Unusable));
    }
    Ok(Ok(asked
        .iter()
        .map(|w| (w.info.path.clone(), w.info.identity()))
        .collect()))
}

/// Open drive `name` as the run will, and find whether it will be written and
/// what it holds (its signatures, read as before its first write): held to the
/// run's limit from the open's first read on, given up after `stop` as the run's.
/// A resumed drive (`saved`: the saved run's) is asked about the steps still to
/// run only.
fn survey(
    name: &str,
    cfg: &Config,
    stop: &Stop,
    saved: Option<&crate::results::DiskResult>,
) -> Seen {
    let opts = OpenOptions {
        io: true,
        write: true,
        limit: cfg.beyond.io_timeout,
        stop: stop.clone(),
    };
    let mut target = match crate::device::open(name, &opts) {
        Ok(t) => t,
        Err(e) => return Seen::Aside(format!("not written: {e}")),
    };
    let info = target.info().clone();
    if info.kind == TargetKind::Simulated {
        return Seen::Aside(format!("{name}: simulated, holds no data"));
    }
    if !cfg.writes(Some(&info)) {
        return Seen::Aside(format!("{name}: no test given writes on this drive"));
    }
    let refused = |why: String| {
        Seen::Aside(format!(
            "{name}: refused, not written: {why}; if its data may be destroyed, wipe it (wipefs -a) or pass --force"
        ))
    };
    let (d, unreadable) = match crate::prober::read_signatures(target.as_mut()) {
        Ok(r) => r,
        Err(e) => {
            return Seen::Aside(format!(
                "{name}: not written: {e} while looking for signatures"
            ));
        }
    };
    if !cfg.force {
        if let Some((offset, e)) = &unreadable {
            return refused(format!(
                "byte {offset} is unreadable ({e}) where signatures are kept"
            ));
        }
        if let Some(why) = &d.libblkid_outside {
            return refused(why.clone());
        }
        if !d.found.is_empty() {
            return refused(crate::safety::describe(&d.found));
        }
    }
    let writes = writes_on(cfg, &info, &crate::burnin::done_steps(saved));
    if writes.is_empty() {
        return Seen::Aside(format!(
            "{name}: not written: the steps that write on it are done (kept from the saved run)"
        ));
    }
    Seen::Asked(Box::new(Writable {
        info,
        found: d.found,
        builtin_only: d.libblkid_unavailable.is_some(),
        unreadable: unreadable.map(|(o, _)| o),
        writes,
    }))
}

/// What the tests of `cfg` write on the drive `info`, a line a test, in the
/// order they run; a resumed burn-in's steps `done` (kept from the saved run) are
/// left out.
fn writes_on(cfg: &Config, info: &DeviceInfo, done: &[Step]) -> Vec<String> {
    let here = |t: TestKind| !t.row().skips_flash || crate::smr::behaviour::applies(info);
    let Some(settings) = cfg.burn_in else {
        return (cfg.tests.iter().copied())
            .filter(|&t| t.writes(cfg.write) && here(t))
            .map(|t| test_writes(t, cfg, info))
            .collect();
    };
    crate::burnin::steps(Medium::of(info.rotation), settings)
        .into_iter()
        .filter(|s| !done.contains(s))
        .filter_map(|s| match s {
            Step::Test(t) if t.writes(true) && here(t) => {
                let line = test_writes(t, cfg, info);
                Some(line.replacen(t.name(), s.name(), 1))
            }
            Step::Discard => Some(format!(
                "{}: the whole drive discarded, where the device offers it",
                s.name()
            )),
            _ => None,
        })
        .collect()
}

/// What test `t` writes on the drive `info`, in words.
fn test_writes(t: TestKind, cfg: &Config, info: &DeviceInfo) -> String {
    let o = &cfg.options;
    let what = match t {
        TestKind::SyncWrite => format!(
            "random writes of {} B to 8 MiB, each flushed, {} s a size, anywhere on the drive",
            info.sector_size,
            o.write_duration.as_secs_f64()
        ),
        TestKind::Zones => format!(
            "{} ranges of {} over the whole drive, each written after it is read",
            o.zones,
            binary_size(crate::test_plans::zones::sample_bytes(
                info.media_size_bytes,
                info.sector_size,
                o.zones,
                o.zone_size
            ))
        ),
        TestKind::BlockSweep => {
            "64 MiB from the start of each 128 MiB region it reads, near the start of the drive"
                .to_string()
        }
        TestKind::Verify => {
            let span = match (cfg.burn_in, o.scan_span.start(), o.scan_span.end()) {
                (None, Some(_), _) | (None, _, Some(_)) => format!(
                    "every sector from byte {} to byte {}",
                    o.scan_span.start().unwrap_or(0),
                    o.scan_span.end().unwrap_or(info.media_size_bytes)
                ),
                _ => "every sector of the drive".to_string(),
            };
            let passes = o.verify_passes.get();
            let s = if passes == 1 { "" } else { "es" };
            format!("{span} written with stamps and read back, {passes} pass{s}")
        }
        TestKind::CapacityCheck => {
            "a few hundred stamped 1 MiB blocks over the whole reported size".to_string()
        }
        TestKind::SmrCheck => format!(
            "random 128 KiB to 1 MiB writes over the whole drive, up to {} or {} s",
            binary_size(o.smr_budget.bytes),
            o.smr_budget.seconds
        ),
        _ => "writes to the drive".to_string(),
    };
    let restored = if o.preserve && t.row().restores {
        " (--preserve: each block read first and written back)"
    } else {
        ""
    };
    format!("{}: {what}{restored}", t.name())
}

/// What a drive holds, in the question's words.
fn holds(w: &Writable) -> String {
    let mut parts: Vec<String> = w
        .found
        .iter()
        .map(|f| format!("{} at byte {} (--force)", f.what, f.offset))
        .collect();
    if let Some(o) = w.unreadable {
        parts.push(format!("unreadable at byte {o}, not all checked (--force)"));
    }
    if parts.is_empty() {
        parts.push(match w.builtin_only {
            true => "no signature found (the built-in check only: libblkid unavailable)".into(),
            false => "no signature found".into(),
        });
    }
    parts.join(", ")
}

/// The question, whole: a line per drive to be written (name, size, model,
/// serial, what it holds), what the tests write on them, the drives not asked
/// about and why, and the question that `yes` answers.
fn question(seen: &[Seen], asked: &[&Writable]) -> String {
    let n = asked.len();
    let drives = if n == 1 { "drive" } else { "drives" };
    let mut s = format!(
        "seekprobe: the write tests will destroy everything on {} {drives}:\n\n",
        if n == 1 {
            "this".to_string()
        } else {
            format!("these {n}")
        }
    );
    let mut rows = vec![["drive", "size", "model", "serial", "holds"].map(String::from)];
    for w in asked {
        let i = &w.info;
        rows.push([
            i.name.clone(),
            format!(
                "{} ({} bytes)",
                binary_size(i.media_size_bytes),
                i.media_size_bytes
            ),
            i.descr.clone().unwrap_or_else(|| "-".into()),
            i.ident.clone().unwrap_or_else(|| "-".into()),
            holds(w),
        ]);
    }
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let cells: Vec<String> = (0..4)
            .map(|c| format!("{:<w$}", r[c], w = widths[c]))
            .chain(std::iter::once(r[4].clone()))
            .collect();
        s.push_str(&format!("  {}\n", cells.join("  ")));
    }
    // What the tests write, once for the drives it is the same for.
    let mut groups: Vec<(&Vec<String>, Vec<&str>)> = Vec::new();
    for w in asked {
        match groups.iter_mut().find(|(l, _)| **l == w.writes) {
            Some((_, names)) => names.push(&w.info.name),
            None => groups.push((&w.writes, vec![&w.info.name])),
        }
    }
    for (lines, names) in &groups {
        let on = match (groups.len(), n) {
            (1, 1) => String::new(),
            (1, _) => " on each".to_string(),
            _ => format!(" on {}", names.join(", ")),
        };
        s.push_str(&format!("\n  the tests write{on}:\n"));
        for l in *lines {
            s.push_str(&format!("    {l}\n"));
        }
    }
    let aside: Vec<&str> = seen
        .iter()
        .filter_map(|x| match x {
            Seen::Aside(why) => Some(why.as_str()),
            Seen::Asked(_) => None,
        })
        .collect();
    if !aside.is_empty() {
        s.push_str("\n  not asked about:\n");
        for a in aside {
            s.push_str(&format!("    {a}\n"));
        }
    }
    let which = if n <= 4 {
        asked
            .iter()
            .map(|w| w.info.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        format!("these {n} drives")
    };
    s.push_str(&format!(
        "\nDestroy everything on {which}? Type yes to go on, anything else to stop: "
    ));
    s
}

/// `text` with each line longer than `width` columns broken between words,
/// its continuation indented under the line's own text (the terminal would
/// break it anywhere); a word wider than the line is left whole.
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let indent = line.len() - line.trim_start().len();
        let mut col = 0;
        for (j, word) in line.trim_start().split(' ').enumerate() {
            let w = word.chars().count();
            if j == 0 {
                out.push_str(&line[..indent]);
                col = indent;
            } else if col + 1 + w > width && col > indent {
                out.push('\n');
                out.push_str(&" ".repeat(indent + 4));
                col = indent + 4;
            } else {
                out.push(' ');
                col += 1;
            }
            out.push_str(word);
            col += w;
        }
    }
    out
}

/// A line from standard input, or None when Ctrl-C comes first (the signal handler
/// restarts a blocked read, so the input is polled with the stop flag in view).
fn read_answer(stop: &AtomicBool) -> io::Result<Option<String>> {
    use nix::poll::{PollFd, PollFlags, poll};
    use std::os::fd::AsFd;
    let stdin = io::stdin();
    loop {
        if stop.load(Ordering::Relaxed) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn drive(name: &str, serial: Option<&str>, found: Vec<Found>) -> Writable {
        let mut info = DeviceInfo::new(name, name, TargetKind::Disk);
        info.media_size_bytes = 2_000_398_934_016;
        info.descr = Some("ST2000DM001-1ER164".into());
        info.ident = serial.map(str::to_string);
        Writable {
            info,
            found,
            builtin_only: false,
            unreadable: None,
            writes: vec!["write-verify pass (--verify): every sector".into()],
        }
    }

    #[test]
    fn the_question_names_each_drive_in_a_row_and_ends_with_what_yes_answers() {
        let ext4 = Found {
            what: "ext4 file system (libblkid TYPE=ext4)".into(),
            offset: 1080,
            by: crate::safety::Prober::Builtin,
        };
        let (b, c) = (
            drive("/dev/sdb", Some("Z1E22F0N"), Vec::new()),
            drive("/dev/sdc", None, vec![ext4]),
        );
        let seen = [Seen::Aside("sim:hdd: simulated, holds no data".into())];
        let q = question(&seen, &[&b, &c]);
        assert_eq!(
            q,
            "seekprobe: the write tests will destroy everything on these 2 drives:\n\n\
             \x20 drive     size                           model               serial    holds\n\
             \x20 /dev/sdb  1.8 TiB (2000398934016 bytes)  ST2000DM001-1ER164  Z1E22F0N  no signature found\n\
             \x20 /dev/sdc  1.8 TiB (2000398934016 bytes)  ST2000DM001-1ER164  -         ext4 file system (libblkid TYPE=ext4) at byte 1080 (--force)\n\
             \n  the tests write on each:\n    write-verify pass (--verify): every sector\n\
             \n  not asked about:\n    sim:hdd: simulated, holds no data\n\
             \nDestroy everything on /dev/sdb, /dev/sdc? Type yes to go on, anything else to stop: "
        );
    }

    #[test]
    fn long_lines_break_between_words_under_their_own_text() {
        assert_eq!(
            wrap("    one two three four\nshort", 14),
            "    one two\n        three\n        four\nshort"
        );
        // The question's last space stays: the answer is typed after it.
        assert_eq!(wrap("Type yes: ", 40), "Type yes: ");
    }
}
