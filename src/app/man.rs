//! The man page (`seekprobe generate man`): clap_mangen's title, name, synopsis,
//! description and options, then the examples kept one a line (troff would fill
//! them into one paragraph), the exit statuses in full (the man page is installed
//! without docs/), and a section per subcommand with its options.

use crate::cli::Args;
use clap::CommandFactory;
use std::io::{self, Write};

/// Text made safe for roff: backslashes and hyphens escaped, a leading dot or
/// quote guarded.
fn roff(s: &str) -> String {
    let s = s.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// The exit statuses, as docs/verdict.md's table gives them.
const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "every drive passes (--qualify, --burn-in, compare --qualify); without --qualify, every disk was probed with no failing finding; smart: healthy; render, report, generate, compare: the output was written; sign: the signature was written; verify-record: the signature holds",
    ),
    (
        "1",
        "a command line or an input file that cannot be used, or an output that cannot be written; without --qualify, a disk with a failing finding (it could not be opened, a test failed, sectors failed, a fake capacity); smart: the report cannot be read or judged; sign: the key or run cannot be used; verify-record: refused (unsigned, changed after it was signed, not an allowed signer, another namespace)",
    ),
    (
        "3",
        "a drive fails its verdict (--qualify, --burn-in, compare --qualify), whatever the reason; smart: failing",
    ),
    (
        "4",
        "no drive failed, but not every drive could be judged (INCOMPLETE: a test interrupted or one the drive is too small for; --qualify, --burn-in, compare --qualify): run it again",
    ),
    ("130", "Ctrl-C (128 + SIGINT); what was measured is kept"),
    ("143", "SIGTERM (128 + SIGTERM); what was measured is kept"),
    (
        "129",
        "SIGHUP (128 + SIGHUP, a closed terminal); what was measured is kept",
    ),
];

/// Write the whole man page. It names the version only, not the commit
/// (`--version` does): the Debian package ships the page as committed in
/// packaging/generated, which cannot name the commit that holds it.
pub(super) fn render(out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(Args::command().version(env!("CARGO_PKG_VERSION")));
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    // The examples and notes of --help, each line as it is.
    writeln!(out, ".SH EXAMPLES\n.nf")?;
    for line in crate::cli::EXAMPLES.lines() {
        if line.starts_with("Exit status:") {
            break;
        }
        if line != "Examples:" {
            writeln!(out, "{}", roff(line))?;
        }
    }
    writeln!(out, ".fi\n.SH \"EXIT STATUS\"")?;
    for (code, what) in EXIT_STATUS {
        writeln!(out, ".TP\n.B {code}\n{}", roff(what))?;
    }
    writeln!(out, ".SH SUBCOMMANDS")?;
    let subs = crate::cli::SUBCOMMANDS
        .into_iter()
        .filter_map(crate::cli::subcommand);
    for mut c in subs {
        let usage = c.render_usage().to_string();
        writeln!(out, ".SS \"seekprobe {}\"", c.get_name())?;
        let usage = usage.trim_start_matches("Usage: ");
        writeln!(out, ".B {}", roff(usage))?;
        if let Some(about) = c.get_about() {
            writeln!(out, ".PP\n{}", roff(&about.to_string()))?;
        }
        for a in c.get_arguments().filter(|a| !a.is_hide_set()) {
            let name = match (a.get_long(), a.get_value_names()) {
                (Some(l), _) => format!("--{l}"),
                (None, Some(v)) => v
                    .iter()
                    .map(|v| v.to_string())
                    .collect::<Vec<_>>()
                    .join(" "),
                (None, None) => a.get_id().to_string(),
            };
            let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
            writeln!(out, ".TP\n\\fB{}\\fR\n{}", roff(&name), roff(&help))?;
        }
    }
    man.render_version_section(out)
}
