//! Whether a resumed burn-in measures as the run it continues did: the options that
//! change what a step measures (the checked plans' options, the burn-in's own
//! settings, `--max-temp`), compared between the saved run's command line and this
//! one, and each option that differs named as it was given.

use super::Config;
use crate::cli::{Applies, Args};
use clap::CommandFactory;

/// The options of the command line `now` that change what a burn-in step measures
/// and differ from the saved run's command line `saved` (both with the program's
/// name first), each as `--passes (2 here, 1 in the saved run)`; empty when the
/// two measure the same (`--block-size 1M` and `--block-size 1048576` do). Err
/// (why) when the saved command line cannot be read by this seekprobe.
pub fn differing(saved: &[String], now: &[String]) -> Result<Vec<String>, String> {
    let parse = |line: &[String]| {
        let m = Args::command()
            .try_get_matches_from(line)
            .map_err(|e| e.kind().to_string())?;
        let c = Config::from_matches(&m).map_err(|e| e.to_string())?;
        Ok::<_, String>((m, c))
    };
    let (was_m, was) = parse(saved)?;
    let (now_m, now) = parse(now)?;
    if measures(&was) == measures(&now) {
        return Ok(Vec::new());
    }
    let named: Vec<String> = Args::declared()
        .into_iter()
        .filter(|(id, o)| measuring(o.applies) && !PICK_THE_RUN.contains(id))
        .filter_map(|(id, _)| {
            let (a, b) = (as_given(&now_m, id), as_given(&was_m, id));
            (a != b).then(|| format!("--{} ({a} here, {b} in the saved run)", long(id)))
        })
        .collect();
    // The values are the same as given, yet measure otherwise: a default of this
    // seekprobe is not the one the saved run had.
    Ok(if named.is_empty() {
        vec!["a default of this seekprobe differs from the one the saved run had".into()]
    } else {
        named
    })
}

/// What a configuration measures with, beside the drive: the plans' options but
/// the write-verify nonce and the random streams' seed (drawn afresh by every run
/// unless --seed is given; a resumed pass keeps its checkpoint's nonce, and a seed
/// picks other random offsets of the same measure), the burn-in's own settings,
/// and the temperature that pauses writes.
fn measures(c: &Config) -> impl PartialEq + use<> {
    let options = crate::test_plans::Options {
        verify_nonce: 0,
        seed: 0,
        ..c.options.clone()
    };
    (options, c.burn_in, c.smart.max_temp)
}

/// The options that go with --burn-in and pick which run it is (new, or going on
/// with a saved one), not what it measures.
const PICK_THE_RUN: [&str; 4] = ["burn_in", "resume", "resume_changed", "new_run"];

/// Whether an option of this kind may change what a step measures: the tests it
/// selects or tunes, and the options that go with --burn-in (--no-discard); not
/// the outputs, the limits or the judging.
fn measuring(a: Applies) -> bool {
    match a {
        Applies::Test | Applies::Tunes { .. } => true,
        Applies::With { any, .. } => any.contains(&"burn_in"),
        _ => false,
    }
}

/// Option `id`'s values as given on the command line `m` (joined by commas), its
/// default's, or "not given".
fn as_given(m: &clap::ArgMatches, id: &str) -> String {
    let Ok(Some(raw)) = m.try_get_raw(id) else {
        return "not given".into();
    };
    let values: Vec<String> = raw.map(|v| v.to_string_lossy().into_owned()).collect();
    match m.value_source(id) {
        Some(clap::parser::ValueSource::CommandLine) => match values.as_slice() {
            [one] if one == "true" => "given".into(),
            _ => values.join(","),
        },
        _ => "not given".into(),
    }
}

/// Option `id`'s long name, as a person types it.
fn long(id: &str) -> String {
    Args::command()
        .get_arguments()
        .find(|a| a.get_id() == id)
        .and_then(|a| a.get_long().map(str::to_string))
        .unwrap_or_else(|| id.replace('_', "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn what_a_step_measures_is_compared_and_each_difference_named() {
        let base = "seekprobe --burn-in -w --yes sim:hdd";
        let same = |a: &str, b: &str| differing(&line(a), &line(b)).unwrap();
        // Outputs, confirmations, the resume itself: not compared.
        assert!(
            same(
                base,
                "seekprobe --burn-in -w -q --json-file x.json sim:hdd --resume x.json"
            )
            .is_empty()
        );
        assert_eq!(
            same(base, &format!("{base} --passes 2 --resume")),
            ["--passes (2 here, not given in the saved run)"]
        );
        assert_eq!(
            same(&format!("{base} --passes 2"), &format!("{base} --passes 3")),
            ["--passes (3 here, 2 in the saved run)"]
        );
        assert_eq!(
            same(base, &format!("{base} --smr-check")),
            ["--smr-check (given here, not given in the saved run)"]
        );
        assert_eq!(
            same(&format!("{base} --no-discard"), base),
            ["--no-discard (not given here, given in the saved run)"]
        );
        // The same value in other words measures the same.
        assert!(
            same(
                &format!("{base} --zone-size 1M"),
                &format!("{base} --zone-size 1048576")
            )
            .is_empty()
        );
        assert!(differing(&line("seekprobe --no-such-option"), &line(base)).is_err());
    }
}
