//! The page's record of its runs: for each run the host, command line, start and
//! end, operator and ticket, seekprobe's and smartctl's versions, and whether its
//! SSH signature holds and by which key (docs/record.md); and the footer's SHA-256
//! of each saved run read, so a copy of the page can be checked against its file
//! (issue 33, "a record").

use super::Source;
use crate::results::Run;
use crate::sshsig::Seal;
use maud::{Markup, html};

/// One run's record, in words, as the page shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunView {
    /// The host name it recorded, or (older runs) its file's name.
    pub host: String,
    /// The command line, shell-quoted ("" when not recorded).
    pub command: String,
    /// Start and end (UTC), "" when not recorded.
    pub started: String,
    /// See `started`.
    pub ended: String,
    /// `--operator`, `--ticket`, as given ("" when not).
    pub operator: String,
    /// See `operator`.
    pub ticket: String,
    /// "seekprobe 0.1.0", with the commit when the build recorded it.
    pub tool: String,
    /// smartctl's versions the drives were read with (SMART), distinct.
    pub smartctl: Vec<String>,
    /// What its signature says, when it was looked for.
    pub seal: Option<Seal>,
}

/// A saved run as read, for the footer: its file's name and the SHA-256 of its bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedFile {
    /// The file as named to `seekprobe report` (`-` for standard input).
    pub name: String,
    /// The SHA-256 of its bytes, lower-case hex.
    pub sha256: String,
}

/// The SHA-256 of `bytes`, lower-case hex (as `sha256sum` prints it).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The host a run's drives are shown under: the host name it recorded, else the
/// source's (its file's name, for runs saved before the host was recorded).
pub fn host<'a>(s: &'a Source) -> &'a str {
    s.run
        .record
        .host
        .as_deref()
        .filter(|h| !h.is_empty())
        .unwrap_or(&s.host)
}

/// The record of one source's run.
pub fn view(s: &Source) -> RunView {
    let run: &Run = s.run;
    let r = &run.record;
    // Runs saved before the record kept the command only for a burn-in.
    let command = if r.command.is_empty() {
        run.burn_in.as_ref().map_or(&[][..], |b| &b.command[..])
    } else {
        &r.command[..]
    };
    let mut smartctl: Vec<String> = Vec::new();
    for d in &run.disks {
        let Some(sm) = &d.smart else { continue };
        for h in [&sm.before, &sm.after].into_iter().flatten() {
            if let Some(v) = &h.smartctl_version
                && !smartctl.contains(v)
            {
                smartctl.push(v.clone());
            }
        }
    }
    RunView {
        host: host(s).to_string(),
        command: command
            .iter()
            .map(|a| quoted(a))
            .collect::<Vec<_>>()
            .join(" "),
        started: run.started_unix_s.map(super::utc).unwrap_or_default(),
        ended: r.ended_unix_s.map(super::utc).unwrap_or_default(),
        operator: r.operator.clone().unwrap_or_default(),
        ticket: r.ticket.clone().unwrap_or_default(),
        tool: match &r.tool_commit {
            Some(c) => format!("{} {} (commit {c})", run.tool, run.tool_version),
            None => format!("{} {}", run.tool, run.tool_version),
        },
        smartctl,
        seal: s.seal.clone(),
    }
}

/// A notice at the top of the page for each run whose signature does not vouch
/// for it (changed after it was signed, another key, another namespace), naming
/// its file: the reader must not miss it in a column.
pub fn seal_notices(sources: &[&Source]) -> Vec<String> {
    sources
        .iter()
        .filter_map(|s| match &s.seal {
            Some(seal) if !seal.holds() && *seal != Seal::Unsigned => {
                let file = s.saved.as_ref().map_or(host(s), |f| f.name.as_str());
                Some(format!("The record {file}: {}.", seal.describe()))
            }
            _ => None,
        })
        .collect()
}

/// The signature cell's class: it holds, or it does not vouch for the record.
fn seal_class(seal: &Seal) -> &'static str {
    match seal {
        Seal::Holds { .. } => "seal holds",
        Seal::Unsigned => "seal unsigned",
        _ => "seal broken",
    }
}

/// The signature cell's words: its state in bold, then what the seal says, the
/// state's words not said twice (`signed by …`, not `signed: signed by …`).
fn seal_words(seal: &Seal) -> Markup {
    let (state, text) = (seal.state(), seal.describe());
    match text.strip_prefix(state) {
        Some(rest) => html! { b { (state) } (rest) },
        None => html! { b { (state) } ": " (text) },
    }
}

/// An argument as a POSIX shell reads it back: bare when it holds only safe
/// characters, else in single quotes (a quote inside written `'\''`).
fn quoted(a: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c);
    if !a.is_empty() && a.chars().all(safe) {
        a.to_string()
    } else {
        format!("'{}'", a.replace('\'', r"'\''"))
    }
}

/// The runs' record: a row per run (one run: one row).
pub fn table(runs: &[RunView]) -> Markup {
    let any = |f: fn(&RunView) -> bool| runs.iter().any(f);
    let (op, ticket, smart, sealed) = (
        any(|r| !r.operator.is_empty()),
        any(|r| !r.ticket.is_empty()),
        any(|r| !r.smartctl.is_empty()),
        any(|r| r.seal.is_some()),
    );
    html! {
        div.scroll {
            table.record {
                thead {
                    tr {
                        th { "host" } th { "command line" } th { "started" } th { "ended" }
                        @if op { th { "operator" } } @if ticket { th { "ticket" } }
                        th { "seekprobe" } @if smart { th { "smartctl" } }
                        @if sealed { th { "signature" } }
                    }
                }
                tbody {
                    @for r in runs {
                        tr {
                            td.host { (r.host) }
                            td { code.command { (or_not(&r.command)) } }
                            td.started { (or_not(&r.started)) }
                            td.ended { (if r.ended.is_empty() { "not yet, or not recorded" } else { &r.ended }) }
                            @if op { td.operator { (r.operator) } }
                            @if ticket { td.ticket { (r.ticket) } }
                            td.tool { (r.tool) }
                            @if smart { td.smartctl { (r.smartctl.join(", ")) } }
                            @if sealed {
                                @match &r.seal {
                                    Some(Seal::Unsigned) => td.seal.unsigned { b { "unsigned" } },
                                    Some(s) => td class=(seal_class(s)) { (seal_words(s)) },
                                    None => td.seal { "not looked for (read from standard input)" },
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn or_not(s: &str) -> &str {
    if s.is_empty() { "not recorded" } else { s }
}

/// The footer: the SHA-256 of each saved run read, and what was hashed.
pub fn footer(saved: &[SavedFile]) -> Markup {
    html! {
        footer.small.muted {
            @if saved.is_empty() {
                p { "Written by the run itself (--html): no saved file was read, so no checksum." }
            } @else {
                p {
                    "SHA-256 of each saved run, its file's bytes exactly as "
                    code { "seekprobe report" } " read them (check a copy with "
                    code { "sha256sum FILE" } "):"
                }
                ul.sha256 {
                    @for f in saved { li { code { (f.sha256) } "  " (f.name) } }
                }
            }
        }
    }
}
