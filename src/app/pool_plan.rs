//! `seekprobe plan RUN.json... --layout L`: read the saved runs, make the pool
//! plan ([`crate::pool`]) and print it, as text or JSON. Nothing is run. Exit
//! status 0 when a command is printed, 3 when the drives make no pool (each
//! drive's reason printed), 1 when a run cannot be read or the options cannot be
//! used.

use super::inputs::load_run;
use super::status::{Ending, exit_status};
use super::subcommands::parse;
use crate::pool::args::PlanArgs;
use std::ffi::OsString;
use std::io::{self, Write};

/// The exit status of a plan that makes no pool, as of a batch whose drives
/// fail their verdict.
const NO_POOL: i32 = super::EXIT_QUALIFY;

/// `seekprobe plan`: print the plan of the runs named.
pub(super) fn plan_main(
    args: &[OsString],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> io::Result<i32> {
    let a: PlanArgs = match parse(args, out, err) {
        Ok(a) => a,
        Err(code) => return Ok(code),
    };
    if let Err(msg) = crate::pool::check(&a) {
        writeln!(err, "seekprobe: plan: {msg}")?;
        return Ok(exit_status(Ending::Unusable));
    }
    let mut runs = Vec::new();
    for path in &a.files {
        match load_run(path) {
            Ok(run) => runs.push((path.display().to_string(), run)),
            Err(msg) => {
                writeln!(err, "seekprobe: {}: {msg}", path.display())?;
                return Ok(exit_status(Ending::Unusable));
            }
        }
    }
    let plan = crate::pool::plan(&runs, &a);
    let text = if a.json {
        let mut j = serde_json::to_string_pretty(&plan).map_err(io::Error::other)?;
        j.push('\n');
        j
    } else {
        crate::pool::command::render(&plan)
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(match plan.command {
        Some(_) => exit_status(Ending::Written),
        None => NO_POOL,
    })
}
