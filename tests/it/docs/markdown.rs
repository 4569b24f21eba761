//! A small reader of the docs' markdown: the fenced blocks and the marker before
//! each (`<!-- needs: WHAT -->`, `<!-- output of the command above -->`), the
//! commands of the ```sh blocks, and the inline commands whose output a block shows.

/// The marker before a block that shows the output of the last command above it
/// (a line of a ```sh block, or an inline `seekprobe ...` / `cargo run ...`).
pub const OUTPUT_MARKER: &str = "<!-- output of the command above -->";

/// A command shown in a doc, as written.
#[derive(Debug, Clone)]
pub struct DocCommand {
    /// The doc, relative to the repository (README.md, docs/sim.md).
    pub doc: String,
    /// Its line (1-based; the first line of a command continued with `\`).
    pub line: usize,
    /// The command as written: continued lines joined, its trailing comment dropped.
    pub text: String,
    /// Its block in the doc (the commands of a block share one shell); an inline
    /// command is a block of its own.
    pub block: usize,
    /// What it needs that a simulated drive, an image or a loop device cannot be,
    /// from a `<!-- needs: WHAT -->` before its block or `(needs: WHAT)` in its comment.
    pub needs: Option<String>,
    /// The output the doc shows for it.
    pub shown: Option<Shown>,
}

/// An output a doc shows: its lines (`...` stands for lines left out) and the exit
/// status its last line gives as `(exit status N)`.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The lines, as written.
    pub lines: Vec<String>,
    /// The exit status the output block names.
    pub status: Option<i32>,
}

/// A fenced block being read.
struct Open {
    fence: String,
    info: String,
    line: usize,
    marker: Option<String>,
    body: Vec<(usize, String)>,
}

/// Where the last command shown so far was: a block's command (its index in the
/// list) or an inline one (its line and text).
enum Last {
    Block(usize),
    Inline(usize, String),
}

/// Every command shown in `text` (the markdown of `doc`). Err: a block of commands
/// not marked ```sh (the harness would not see it), or an output marker with no
/// command above it.
pub fn commands(doc: &str, text: &str) -> Result<Vec<DocCommand>, String> {
    let mut out: Vec<DocCommand> = Vec::new();
    let (mut open, mut last, mut marker): (Option<Open>, Option<Last>, Option<String>) =
        (None, None, None);
    let mut blocks = 0;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let trimmed = raw.trim_start();
        if let Some(b) = open.as_mut() {
            if trimmed.trim_end() == b.fence {
                let b = open.take().unwrap();
                blocks += 1;
                close(doc, b, blocks, &mut out, &mut last)?;
            } else {
                b.body.push((n, raw.to_string()));
            }
            continue;
        }
        if trimmed.starts_with("```") {
            let ticks = trimmed.chars().take_while(|&c| c == '`').count();
            open = Some(Open {
                fence: "`".repeat(ticks),
                info: trimmed[ticks..].trim().to_string(),
                line: n,
                marker: marker.take(),
                body: Vec::new(),
            });
            continue;
        }
        if trimmed.is_empty() {
            continue;
        }
        marker = (trimmed.starts_with("<!--") && trimmed.trim_end().ends_with("-->"))
            .then(|| trimmed.trim_end().to_string());
        for span in inline_commands(raw) {
            last = Some(Last::Inline(n, span));
        }
    }
    Ok(out)
}

/// The inline code spans of a prose line that are whole commands (they start with
/// `seekprobe ` or `cargo run `).
fn inline_commands(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| s.starts_with("seekprobe ") || s.starts_with("cargo run "))
        .map(str::to_string)
        .collect()
}

/// A block just closed: its commands when it is a ```sh block, the output of the
/// command above when it is marked so.
fn close(
    doc: &str,
    b: Open,
    id: usize,
    out: &mut Vec<DocCommand>,
    last: &mut Option<Last>,
) -> Result<(), String> {
    let needs = b.marker.as_deref().and_then(|m| {
        let inner = m.trim_start_matches("<!--").trim_end_matches("-->").trim();
        inner.strip_prefix("needs:").map(|w| w.trim().to_string())
    });
    let lang = b.info.split_whitespace().next().unwrap_or("");
    if matches!(lang, "sh" | "bash" | "shell") {
        for (line, text, comment) in shell_lines(&b.body) {
            let own = comment
                .split_once("(needs:")
                .map(|(_, w)| w.trim_end_matches(')').trim().to_string());
            out.push(DocCommand {
                doc: doc.to_string(),
                line,
                text,
                block: id,
                needs: own.or_else(|| needs.clone()),
                shown: None,
            });
            *last = Some(Last::Block(out.len() - 1));
        }
        return Ok(());
    }
    let first = b.body.iter().map(|(_, l)| l.trim()).find(|l| !l.is_empty());
    if lang.is_empty()
        && first.is_some_and(|l| {
            ["seekprobe ", "cargo ", "sqlite3 "]
                .iter()
                .any(|c| l.starts_with(c))
        })
    {
        return Err(format!(
            "{doc}:{}: a block of commands without ```sh: mark it ```sh so that the docs harness runs it",
            b.line
        ));
    }
    if b.marker.as_deref() == Some(OUTPUT_MARKER) {
        let shown = shown(&b.body);
        match last.take() {
            Some(Last::Block(k)) => out[k].shown = Some(shown),
            Some(Last::Inline(line, text)) => out.push(DocCommand {
                doc: doc.to_string(),
                line,
                text,
                block: id,
                needs: None,
                shown: Some(shown),
            }),
            None => {
                return Err(format!(
                    "{doc}:{}: {OUTPUT_MARKER} with no command above it",
                    b.line
                ));
            }
        }
    }
    Ok(())
}

/// An output block's lines and the exit status of its `(exit status N)` line.
fn shown(body: &[(usize, String)]) -> Shown {
    let mut lines: Vec<String> = body.iter().map(|(_, l)| l.trim_end().to_string()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let status = lines.last().and_then(|l| {
        l.strip_prefix("(exit status ")
            .and_then(|s| s.strip_suffix(')'))
            .and_then(|s| s.parse().ok())
    });
    if status.is_some() {
        lines.pop();
    }
    Shown { lines, status }
}

/// The commands of a shell block: (line, command, trailing comment), comment lines
/// and blank lines left out, lines ending in `\` joined with the next.
fn shell_lines(body: &[(usize, String)]) -> Vec<(usize, String, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (n, raw) in body {
        let (code, comment) = split_comment(raw);
        let code = code.trim();
        if pending.is_none() && code.is_empty() {
            continue;
        }
        let (start, mut text) = pending.take().unwrap_or((*n, String::new()));
        if let Some(head) = code.strip_suffix('\\') {
            text.push_str(head.trim_end());
            text.push(' ');
            pending = Some((start, text));
            continue;
        }
        text.push_str(code);
        out.push((start, text, comment.to_string()));
    }
    out
}

/// A shell line split at its comment: a `#` outside quotes, at the start or after
/// white space.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => {
                return (&line[..i], line[i + 1..].trim());
            }
            _ => {}
        }
        prev = c;
    }
    (line, "")
}

#[test]
fn the_reader_finds_commands_markers_and_shown_outputs() {
    let md = "Intro `seekprobe -t sim:hdd` reads:\n\n<!-- output of the command above -->\n```\nSeek times:\n...\n(exit status 0)\n```\n\n<!-- needs: real drives -->\n```sh\nseekprobe -S /dev/sdb   # a comment with a # in it\n```\n\n```sh\nseekprobe --scan 'a#b' \\\n    --json-file x.json\nseekprobe -l /dev/sd?   # serials (needs: serials)\n```\n";
    let c = commands("t.md", md).unwrap();
    assert_eq!(c.len(), 4, "{c:#?}");
    assert_eq!(c[0].text, "seekprobe -t sim:hdd");
    let shown = c[0].shown.as_ref().unwrap();
    assert_eq!(shown.lines, ["Seek times:", "..."]);
    assert_eq!(shown.status, Some(0));
    assert_eq!(c[1].needs.as_deref(), Some("real drives"));
    assert_eq!(c[1].text, "seekprobe -S /dev/sdb");
    assert_eq!(c[2].text, "seekprobe --scan 'a#b' --json-file x.json");
    assert_eq!((c[2].line, c[2].needs.as_deref()), (16, None));
    assert_eq!(c[3].needs.as_deref(), Some("serials"));
    assert_eq!(c[2].block, c[3].block);
    let bare = "```\nseekprobe -tv sim:hdd\n```\n";
    assert!(commands("t.md", bare).unwrap_err().contains("t.md:1"));
}
