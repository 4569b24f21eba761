//! The subcommands' arguments (render, compare, report, generate, smart, history,
//! sign, verify-record).

use super::shared::{HistoryFileArgs, JudgeArgs, SmartRuleArgs};
use crate::report::Format;
use clap::Parser;

/// `seekprobe render FILE.json`: print a saved run again, without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe render", bin_name = "seekprobe render", version = super::VERSION)]
pub struct RenderArgs {
    /// A run saved with --json or --json-file (- for standard input)
    #[arg(value_name = "FILE.json")]
    pub file: std::path::PathBuf,

    /// Output format
    #[arg(long, value_enum, default_value = "diskinfo", value_name = "FORMAT")]
    pub format: Format,

    /// Also draw the saved run's plots to an SVG file
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<std::path::PathBuf>,

    /// Also write the saved run's figures in Prometheus' text format to a file
    #[arg(long, value_name = "FILE.prom")]
    pub prometheus: Option<std::path::PathBuf>,

    /// Who may sign the record (--allowed-signers FILE).
    #[command(flatten)]
    pub signers: SignersArgs,
}

/// The allowed signers a record's signature is checked against (docs/record.md).
#[derive(Debug, clap::Args)]
pub struct SignersArgs {
    /// An allowed_signers file, as `ssh-keygen -Y verify -f` reads it: the record's
    /// signature (RUN.json.sig beside it) must be by one of its keys, whose
    /// identity is then named
    #[arg(long, value_name = "FILE")]
    pub allowed_signers: Option<std::path::PathBuf>,
}

/// `seekprobe sign RUN.json --key KEY`: sign a saved run with an SSH key
/// (RUN.json.sig, which `ssh-keygen -Y verify -n seekprobe-record` checks).
#[derive(Debug, Parser)]
#[command(name = "seekprobe sign", bin_name = "seekprobe sign", version)]
pub struct SignArgs {
    /// A run saved with --json-file
    #[arg(value_name = "RUN.json")]
    pub file: std::path::PathBuf,

    /// The ed25519 key to sign with: an OpenSSH private key file, or its .pub
    /// when an ssh-agent (SSH_AUTH_SOCK) holds it; the agent signs when it holds
    /// the key, as with `ssh-keygen -Y sign`
    #[arg(long, value_name = "KEY")]
    pub key: std::path::PathBuf,
}

/// `seekprobe verify-record RUN.json [--allowed-signers FILE]`: check a saved
/// run's signature (RUN.json.sig) and say who signed it, when the run ended and
/// each drive's identity and verdict.
#[derive(Debug, Parser)]
#[command(
    name = "seekprobe verify-record",
    bin_name = "seekprobe verify-record",
    version
)]
#[command(
    after_help = "Exit status: 0 when the signature holds (by an allowed signer, when --allowed-signers is given); 1 otherwise: no signature, a record changed after it was signed, a key not among the allowed signers, a signature of another namespace, or a file that cannot be read."
)]
pub struct VerifyRecordArgs {
    /// A run saved with --json-file, its signature beside it as RUN.json.sig
    #[arg(value_name = "RUN.json")]
    pub file: std::path::PathBuf,

    /// Who may sign the record (--allowed-signers FILE).
    #[command(flatten)]
    pub signers: SignersArgs,
}

/// `seekprobe compare A.json B.json ...`: compare saved runs (each may hold several
/// disks), without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe compare", bin_name = "seekprobe compare", version = super::VERSION)]
pub struct CompareArgs {
    /// Runs saved with --json or --json-file
    #[arg(value_name = "FILE.json", required = true)]
    pub files: Vec<std::path::PathBuf>,

    /// Qualification's options (--qualify, --max-deviation, --baseline).
    #[command(flatten)]
    pub judge: JudgeArgs,

    /// Print the comparison (and verdicts) as JSON, for machines (docs/json.md)
    #[arg(long)]
    pub json: bool,

    /// With --history FILE: judge a model with too few drives here against its
    /// earlier drives in FILE (saved runs are recorded by `history import`, not here).
    #[command(flatten)]
    pub history: HistoryFileArgs,
}

/// `seekprobe report RUN.json... -o report.html`: the qualification report of saved
/// runs, one self-contained HTML page, without touching any disk.
#[derive(Debug, Parser)]
#[command(name = "seekprobe report", bin_name = "seekprobe report", version = super::VERSION)]
pub struct ReportArgs {
    /// Runs saved with --json or --json-file (one host's run, a burn-in, or many
    /// hosts' runs; - for standard input)
    #[arg(value_name = "RUN.json", required = true)]
    pub files: Vec<std::path::PathBuf>,

    /// Where to write the page
    #[arg(short, long, value_name = "FILE.html")]
    pub output: std::path::PathBuf,

    /// With --history FILE: each drive's section lists its earlier runs in FILE.
    #[command(flatten)]
    pub history: HistoryFileArgs,

    /// Who may sign the records (--allowed-signers FILE).
    #[command(flatten)]
    pub signers: SignersArgs,
}

/// What `seekprobe generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Generated {
    /// The man page (roff), e.g. `seekprobe generate man > seekprobe.1`
    Man,
    /// bash completions
    Bash,
    /// zsh completions
    Zsh,
    /// fish completions
    Fish,
    /// elvish completions
    Elvish,
    /// PowerShell completions
    Powershell,
}

/// `seekprobe generate man|bash|zsh|fish|...`: the man page or shell completions,
/// generated from these definitions.
#[derive(Debug, Parser)]
#[command(name = "seekprobe generate", bin_name = "seekprobe generate", version = super::VERSION)]
pub struct GenerateArgs {
    /// What to print
    #[arg(value_enum)]
    pub what: Generated,
}

/// `seekprobe smart FILE.json [AFTER.json]`: judge a saved smartctl report
/// without a drive.
#[derive(Debug, Parser)]
#[command(name = "seekprobe smart", bin_name = "seekprobe smart", version = super::VERSION)]
#[command(
    after_help = "Exit status: 0 healthy, 3 failing, 1 when a report cannot be read or judged (it holds no SMART data, or smartctl could not read the drive)."
)]
pub struct SmartArgs {
    /// A report saved with `smartctl --json -x DEVICE` (- for standard input)
    #[arg(value_name = "FILE.json")]
    pub file: std::path::PathBuf,

    /// A second report of the same drive, taken after a run: the changes are shown
    /// and counters that rose fail the drive
    #[arg(value_name = "AFTER.json")]
    pub after: Option<std::path::PathBuf>,

    /// The SMART health rules' options (--new, --threshold).
    #[command(flatten)]
    pub rules: SmartRuleArgs,

    /// The drive history database (--history FILE, --no-history; docs/history.md).
    #[command(flatten)]
    pub history: HistoryFileArgs,
}

/// How `seekprobe history` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HistoryFormat {
    /// A text table.
    Table,
    /// JSON, for machines (docs/history.md).
    Json,
}

/// `seekprobe history [SERIAL]`: the drives the history database knows, or one
/// drive's runs; `import`, `ack` and `unack`.
#[derive(Debug, Parser)]
#[command(name = "seekprobe history", bin_name = "seekprobe history", version = super::VERSION)]
pub struct HistoryArgs {
    /// What to do (without one: list the drives, or SERIAL's runs).
    #[command(subcommand)]
    pub action: Option<HistoryAction>,

    /// A drive's serial number: its runs, oldest first (verdicts, key figures,
    /// SMART counters, temperatures)
    #[arg(value_name = "SERIAL")]
    pub serial: Option<String>,

    /// How the listing and a drive's runs are printed (table by default; import,
    /// ack and unack print a line each)
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<HistoryFormat>,

    /// The drive history database (--history FILE, --no-history).
    #[command(flatten)]
    pub file: HistoryFileArgs,
}

/// The actions of `seekprobe history`.
#[derive(Debug, clap::Subcommand)]
pub enum HistoryAction {
    /// Import runs saved with --json-file and other hosts' history databases (a
    /// run already there is skipped)
    Import {
        /// Saved runs (FILE.json) or history databases
        #[arg(value_name = "FILE", required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Accept the findings with CODE (as docs/verdict.md names it, e.g. smart) of
    /// the drive's last run at their current figures: later runs show them
    /// acknowledged and do not judge them until the figure changes
    Ack {
        /// The drive's serial number
        serial: String,
        /// The finding's code
        code: String,
    },
    /// Undo `ack`: the findings with CODE are judged again
    Unack {
        /// The drive's serial number
        serial: String,
        /// The finding's code
        code: String,
    },
}

impl HistoryAction {
    /// The action's name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            HistoryAction::Import { .. } => "import",
            HistoryAction::Ack { .. } => "ack",
            HistoryAction::Unack { .. } => "unack",
        }
    }
}

/// The clap command of the subcommand `name` (one of [`super::SUBCOMMANDS`]),
/// under its own name; None for a name this list does not know yet.
pub fn subcommand(name: &'static str) -> Option<clap::Command> {
    use clap::CommandFactory;
    let c = match name {
        "render" => RenderArgs::command(),
        "compare" => CompareArgs::command(),
        "report" => ReportArgs::command(),
        "generate" => GenerateArgs::command(),
        "smart" => SmartArgs::command(),
        "history" => HistoryArgs::command(),
        "plan" => crate::pool::args::PlanArgs::command(),
        "sign" => SignArgs::command(),
        "verify-record" => VerifyRecordArgs::command(),
        _ => return None,
    };
    Some(c.name(name).bin_name(format!("seekprobe {name}")))
}

/// The whole command line as the shells' completions see it: the probing
/// command's options and disks, and each subcommand (its own options only:
/// `compare --<TAB>` offers compare's), `help` and `version`.
pub fn completed() -> clap::Command {
    use clap::CommandFactory;
    // The probing command's --history is its own here: each subcommand that
    // takes one has its own (render, generate take none).
    let mut c = super::Args::command()
        .args_conflicts_with_subcommands(true)
        .mut_arg("history", |a| a.global(false))
        .mut_arg("no_history", |a| a.global(false));
    for name in super::SUBCOMMANDS {
        let sub = subcommand(name).unwrap_or_else(|| clap::Command::new(name));
        c = c.subcommand(sub);
    }
    c.subcommand(clap::Command::new("version").about("Print the version"))
}
