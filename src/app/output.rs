//! Files a run writes: the JSON results, the Prometheus metrics, the SVG plot and the
//! bad-block list, each written atomically and durably.

use crate::config::Config;
use crate::report::{self, json};
use crate::results::Run;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

/// Tell `err` that `what` ("write the report", ...) failed at `path`: the path, then
/// the cause as the system words it.
pub fn cannot_write(err: &mut dyn Write, path: &Path, what: &str, e: &io::Error) -> io::Result<()> {
    let why = crate::error::describe_io(e);
    writeln!(err, "seekprobe: {}: cannot {what}: {why}", path.display())
}

/// After the last disk, the files made from the whole run: the bad-block list
/// (--bad-blocks) and the plot (--plot). False (after saying why) when one could
/// not be written.
pub(super) fn write_end_files(cfg: &Config, run: &Run, err: &mut dyn Write) -> io::Result<bool> {
    let mut written = true;
    if let Some(path) = &cfg.beyond.bad_blocks
        && let Err(e) = save_bad_blocks(path, run, cfg.beyond.bad_blocks_size)
    {
        writeln!(err, "seekprobe: {}: {e}", path.display())?;
        written = false;
    }
    if let Some(path) = &cfg.plot
        && !write_plot(path, run, err)?
    {
        written = false;
    }
    Ok(written)
}

/// Draw the run's plots to `path`; false (after saying why) when there is nothing
/// to draw or the file cannot be written.
pub(super) fn write_plot(path: &Path, run: &Run, err: &mut dyn Write) -> io::Result<bool> {
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
            "seekprobe: {}: nothing to plot; --plot draws the results of {}",
            path.display(),
            crate::config::plotted_tests()
        )?;
        return Ok(false);
    };
    match std::fs::write(path, svg) {
        Ok(()) => Ok(true),
        Err(e) => {
            cannot_write(err, path, "write the plot", &e)?;
            Ok(false)
        }
    }
}

/// Write the qualification report of `run` (its drives from this host) to `path`
/// atomically and durably ([`save_atomically`]), so a browser never shows half a
/// page.
/// `seal`: the run file's signature, once the run signed it (`--sign-key`).
pub(super) fn save_html(
    path: &Path,
    run: &Run,
    seal: Option<&crate::sshsig::Seal>,
) -> io::Result<()> {
    let host = nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default();
    let page = report::html::render(&[report::html::Source {
        host,
        run,
        saved: None,
        seal: seal.cloned(),
    }]);
    save_atomically(path, page.as_bytes())
}

/// Write the run to `path` atomically and durably ([`save_atomically`]). A save
/// that fails says what the file still holds: its last save, or nothing yet. A
/// signature beside the file (`RUN.json.sig`) signed the bytes just replaced: it
/// goes with them, so the new run reads as unsigned until `--sign-key` signs it,
/// not as a record changed after it was signed.
pub(super) fn save_json(path: &Path, run: &Run) -> io::Result<()> {
    let before = path.is_file();
    save_atomically(path, json::to_json(run).as_bytes()).map_err(|e| {
        let kept = if before {
            "the file keeps its last save"
        } else {
            "nothing is saved in the file yet"
        };
        io::Error::new(
            e.kind(),
            format!("{}; {kept}", crate::error::describe_io(&e)),
        )
    })?;
    match std::fs::remove_file(crate::sshsig::beside(path)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io::Error::new(
            e.kind(),
            format!(
                "saved, but the signature of the run it replaced cannot be removed: {}",
                crate::error::describe_io(&e)
            ),
        )),
        _ => Ok(()),
    }
}

/// `e` as the system words it, without the temporary file tempfile names in its
/// errors ("... (os error 28) at path \"DIR/.tmpXXXXXX\"": the user never named
/// that file, and tempfile keeps the system's code only in its text).
fn plain(e: io::Error) -> io::Error {
    if e.raw_os_error().is_some() {
        return e;
    }
    let text = e.to_string();
    let Some((cause, _)) = text.split_once(" at path ") else {
        return e;
    };
    let code =
        (cause.rsplit_once("(os error ")).and_then(|(_, n)| n.strip_suffix(')')?.parse().ok());
    match code {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), cause.to_string()),
    }
}

/// Write `bytes` to `path` atomically and durably: a fresh temporary file in the
/// same directory (a unique name, so two runs never share it; `.tmpXXXXXX`, which
/// node_exporter's textfile collector ignores: it reads only `*.prom`), written and
/// synced, renamed over `path`, and the directory synced, so a reader never sees
/// half a file and a crash leaves the old file or the new one.
pub(super) fn save_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::other("not a regular file"));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Said plainly: tempfile's own error would name its temporary file.
    if !dir.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("the directory {} does not exist", dir.display()),
        ));
    }
    // 0666 less the umask, as std::fs::write creates files (tempfile's default,
    // 0600, would hide the metrics from a node_exporter running as another user).
    let mut tmp = tempfile::Builder::new()
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(plain)?;
    tmp.write_all(bytes).map_err(plain)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| plain(e.error))?;
    std::fs::File::open(dir)?.sync_all()
}

/// The width of the terminal on standard output, or None when it is not a terminal
/// (a pipe or file takes tables of any width).
pub(super) fn terminal_width() -> Option<usize> {
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
pub(super) fn save_prometheus(path: &Path, run: &Run) -> io::Result<()> {
    save_atomically(path, report::prometheus::render(run).as_bytes())
}

/// Write the blocks that --verify found bad (every pass, every disk's verify
/// test: one disk per run) to `path` in badblocks' format, atomically and
/// durably as the JSON is ([`save_atomically`]).
pub(super) fn save_bad_blocks(
    path: &Path,
    run: &Run,
    block_size: u32,
) -> Result<(), crate::stamps::badblocks::BadBlocksError> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::other("not a regular file").into());
    }
    let mut spans = Vec::new();
    let mut sector = 512;
    for v in run
        .disks
        .iter()
        .flat_map(|d| &d.tests)
        .filter_map(|t| t.verify())
    {
        sector = v.sector_bytes;
        for p in &v.passes {
            spans.extend(p.failures.covered());
        }
    }
    let mut list = Vec::new();
    crate::stamps::badblocks::write(&mut list, spans, sector, block_size)?;
    save_atomically(path, &list)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_saved_again_drops_the_signature_of_the_bytes_it_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("batch.json");
        let sig = crate::sshsig::beside(&path);
        std::fs::write(&path, "{}").unwrap();
        std::fs::write(&sig, "-----BEGIN SSH SIGNATURE-----\n").unwrap();
        let run = Run {
            schema_version: crate::results::SCHEMA_VERSION,
            tool: "seekprobe".into(),
            tool_version: "0".into(),
            tests: Vec::new(),
            verbose: false,
            settle_s: 0.0,
            disks: Vec::new(),
            started_unix_s: None,
            burn_in: None,
            record: Default::default(),
        };
        save_json(&path, &run).unwrap();
        // A new run in the file is unsigned, not "changed after it was signed".
        assert!(!sig.exists());
    }
}
