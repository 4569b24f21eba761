//! The rules between options that each have what they need beside them
//! (rules.rs): --max-temp without SMART, --burn-in beside --smart-test, --preserve
//! beside a test that writes without restoring, --bad-blocks for several disks.

use super::flags::{flag, list};
use super::rules::{BURN_IN, RuleError, tests_given};
use crate::results::test_kind::{TestKind, Writes};

/// The rules between options that each have what they need: --burn-in beside
/// --smart-test, --preserve beside a test that writes without restoring,
/// --bad-blocks for several disks.
pub(super) fn between_options(given: &dyn Fn(&str) -> bool, disks: usize) -> Result<(), RuleError> {
    // The temperature is read through SMART, which --burn-in reads itself.
    if given("max_temp") && !given(BURN_IN) && !given("smart") {
        return Err(RuleError::DoesNotApply(
            "--max-temp needs the drive's temperature, read through SMART: add --smart (or run --burn-in), or drop --max-temp".into(),
        ));
    }
    if given(BURN_IN) && given("smart_test") {
        return Err(RuleError::DoesNotApply(
            "--burn-in runs the short, conveyance and long self-tests itself; drop --smart-test"
                .into(),
        ));
    }
    if given("preserve") {
        let restoring: Vec<&str> = TestKind::ALL
            .into_iter()
            .filter(|t| t.row().restores)
            .map(TestKind::id)
            .collect();
        let restores = format!("it restores what {} overwrite", list(&restoring, "and"));
        // Every test given must restore what it writes, and so must the burn-in's.
        let unrestored = |t: &TestKind| t.writes(true) && !t.row().restores;
        let culprit = TestKind::ALL
            .into_iter()
            .filter(|t| given(t.id()))
            .find(unrestored)
            .map(|t| {
                let with_w = if t.row().writes == Writes::WithW {
                    " with -w"
                } else {
                    ""
                };
                (flag(t.id()), format!("{} writes{with_w}", flag(t.id())))
            })
            .or_else(|| {
                given(BURN_IN).then(|| {
                    let steps: Vec<&str> = tests_given(given)
                        .iter()
                        .filter(|t| !given(t.id()) && unrestored(t))
                        .map(|t| t.id())
                        .collect();
                    let b = flag(BURN_IN);
                    (
                        b.clone(),
                        format!("{b} writes in its {} steps", list(&steps, "and")),
                    )
                })
            });
        if let Some((drop, writes)) = culprit {
            return Err(RuleError::DoesNotApply(format!(
                "--preserve cannot restore what {writes} ({restores}); drop --preserve or {drop}"
            )));
        }
    }
    if given("bad_blocks") && disks > 1 {
        let b = flag("bad_blocks");
        return Err(RuleError::DoesNotApply(format!(
            "{b} lists the blocks of one disk, and {disks} are given: give one disk per run, or drop {b}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The program's verdict on a command line (the program name and a disk added).
    fn check(args: &[&str]) -> Result<crate::config::Config, String> {
        let line = ["seekprobe"].iter().chain(args).chain(&["x"]).copied();
        crate::config::Config::from_command_line(line)
    }

    #[test]
    fn options_that_clash_are_refused_naming_the_clash() {
        for (args, msg) in [
            // The example: -w and -S are there; the burn-in cannot be restored.
            (
                &["-S", "-w", "--preserve", "--burn-in"][..],
                "--preserve cannot restore what --burn-in writes in its --zones and --verify \
                 steps (it restores what -S and --capacity-check overwrite); drop --preserve \
                 or --burn-in",
            ),
            (
                &["-S", "-w", "--preserve", "--zones=4"],
                "--preserve cannot restore what --zones writes with -w (it restores what -S \
                 and --capacity-check overwrite); drop --preserve or --zones",
            ),
            (
                &["--capacity-check", "-w", "--preserve", "--verify"],
                "--preserve cannot restore what --verify writes (",
            ),
            (
                &["-S", "-w", "--preserve", "--smr-check"],
                "--preserve cannot restore what --smr-check writes (",
            ),
            (
                &["--burn-in", "-w", "--smart-test", "short"],
                "--burn-in runs the short, conveyance and long self-tests itself; drop --smart-test",
            ),
            (
                &["--verify", "-w", "--bad-blocks", "bb.txt", "x"],
                "--bad-blocks lists the blocks of one disk, and 2 are given: give one disk per \
                 run, or drop --bad-blocks",
            ),
        ] {
            let e = check(args).unwrap_err();
            assert!(e.contains(msg), "{args:?}: {e}");
        }
        for fine in [
            &["-S", "-w", "--preserve", "--capacity-check"][..],
            &["-S", "-w", "--preserve", "-t", "--scan"],
            &["--verify", "-w", "--bad-blocks", "bb.txt"],
            // --zones without -w only reads.
            &["--zones=4", "--parallel", "x"],
        ] {
            assert_eq!(check(fine).map(|_| ()), Ok(()), "{fine:?}");
        }
    }
}
