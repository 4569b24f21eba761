//! What a drive's history adds to its verdict, from plain data the caller hands
//! in (the history database is read elsewhere, so a verdict stays a pure function
//! of its inputs, and a missing database changes nothing): the earlier drives of
//! its model as the reference of a batch too small to judge timings, its own
//! earlier qualification (drift), and the findings a user acknowledged
//! (docs/history.md).

use crate::compare::Comparable;
use crate::results::{Code, Finding, Severity};

/// An earlier drive of a model: who it was and the figures of its latest
/// passing qualification.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EarlierDrive {
    /// Its serial number.
    pub serial: String,
    /// Its figures, by the key of [`crate::compare::Comparable`], with their values.
    pub figures: Vec<(String, f64)>,
}

/// The earlier drives of one model that passed a qualification: the reference
/// of a batch with fewer than three comparable drives of that model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelHistory {
    /// The model, as the batch rules name it.
    pub model: String,
    /// The drives (none of them in the batch being judged).
    pub drives: Vec<EarlierDrive>,
}

/// A finding a user accepted at its figure (`seekprobe history ack`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Acknowledgement {
    /// The finding's code.
    pub code: Code,
    /// Its reason when it was acknowledged (the figure is in it).
    pub reason: String,
    /// Who acknowledged it (the user name).
    pub who: String,
    /// When, as UTC text (e.g. "2026-12-01 15:40 UTC").
    pub at: String,
}

/// A drive's qualification: when (UTC text) and its figures by key.
pub type Qualification = (String, Vec<(String, f64)>);

/// What the history knows of one drive of the run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DriveHistory {
    /// The figures of its own first passing qualification, and when it was.
    pub first_qualification: Option<Qualification>,
    /// Its findings acknowledged and not undone.
    pub acknowledged: Vec<Acknowledgement>,
}

/// Everything the history hands the judge for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// The earlier passing drives of each model of the run.
    pub models: Vec<ModelHistory>,
    /// Each drive of the run, in order (empty: nothing known of any).
    pub drives: Vec<DriveHistory>,
}

impl History {
    /// The earlier drives of `model` that can serve as a reference: at least
    /// `fewest` of them.
    pub fn reference(&self, model: Option<&str>, fewest: usize) -> Option<&ModelHistory> {
        let model = model?;
        self.models
            .iter()
            .find(|m| m.model == model && m.drives.len() >= fewest)
    }

    /// What is known of drive `i` of the run.
    pub fn drive(&self, i: usize) -> Option<&DriveHistory> {
        self.drives.get(i)
    }
}

/// A drive measurably worse than its own first passing qualification: a warning
/// per figure worse beyond `max` (a drive's figures move with its temperature, its
/// host and its controller, so drift alone is worth a look, not a failure).
pub fn drift(figs: &[Comparable], earlier: &Qualification, max: f64) -> Vec<Finding> {
    let (when, figures) = earlier;
    let mut out = Vec::new();
    for f in figs {
        let Some(&(_, then)) = figures.iter().find(|(k, _)| *k == f.key) else {
            continue;
        };
        let d = crate::compare::deviation(f.value, then);
        let worse = (d < 0.0) == f.higher_is_better;
        if d.abs() > max && worse {
            out.push(Finding::new(
                Severity::Warning,
                "comparison",
                Code::Drift,
                format!(
                    "{}: {} is {:.1}% worse than at its own qualification on {when} ({}; tolerance {:.0}%)",
                    f.label,
                    crate::compare::fmt_value(f.value),
                    d.abs() * 100.0,
                    crate::compare::fmt_value(then),
                    max * 100.0
                ),
            ));
        }
    }
    out
}

/// Whether a finding may be acknowledged: Ok, or Err saying why not. Only a
/// finding that is a known, watched figure can be: a SMART counter's finding of
/// the health rules whose rule read a count (`rules`: the drive's rule findings,
/// the verdict's reason is "SMART: " and the rule's), or a timing compared with
/// its reference or its own qualification. A finding that says the drive could
/// not be judged, or is fake or broken, carries no figure that could change, so
/// an acknowledgement of it would silence it for good (docs/history.md).
pub fn ackable(f: &Finding, rules: &[Finding]) -> Result<(), String> {
    match f.code {
        Code::Smart => {
            let counted = rules.iter().any(|r| {
                f.reason.strip_prefix("SMART: ") == Some(r.reason.as_str())
                    && r.figure.as_ref().is_some_and(|g| g.count.is_some())
            });
            if counted {
                Ok(())
            } else {
                Err("this SMART finding counts nothing (no figure that could change): it is judged every time".into())
            }
        }
        Code::WorseThanReference | Code::BetterThanReference | Code::Drift => Ok(()),
        c => Err(format!(
            "a {} finding says the drive could not be judged, or is fake or broken, and carries no count that could change: only a SMART counter's or a timing's finding can be acknowledged",
            code_name(c)
        )),
    }
}

/// The findings with the acknowledged ones set aside: a failing finding or a
/// warning whose code and reason (its figure) match an acknowledgement becomes a
/// note saying who accepted it and when; one whose code was acknowledged at
/// another figure is judged as usual and says that it changed since. A finding
/// that cannot be acknowledged ([`ackable`], with the drive's SMART rule findings
/// `rules`) is judged as usual whatever the database holds (an imported or
/// older acknowledgement).
pub fn acknowledge(
    findings: Vec<Finding>,
    acks: &[Acknowledgement],
    rules: &[Finding],
) -> Vec<Finding> {
    findings
        .into_iter()
        .map(|mut f| {
            if f.severity == Severity::Note || ackable(&f, rules).is_err() {
                return f;
            }
            if let Some(a) = acks
                .iter()
                .find(|a| a.code == f.code && a.reason == f.reason)
            {
                f.severity = Severity::Note;
                f.reason = format!(
                    "acknowledged by {} on {} ({}), not judged until it changes: {}",
                    a.who,
                    a.at,
                    code_name(f.code),
                    f.reason
                );
                f.code = Code::Acknowledged;
            } else if let Some(a) = acks.iter().find(|a| a.code == f.code) {
                f.reason = format!(
                    "{}; changed since acknowledged by {} on {} (then: {})",
                    f.reason, a.who, a.at, a.reason
                );
            }
            f
        })
        .collect()
}

/// A code's name as docs/verdict.md lists it (`smart`, `worse_than_reference`).
pub fn code_name(c: Code) -> String {
    serde_json::to_value(c)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The code docs/verdict.md names so, if there is one.
pub fn code_named(name: &str) -> Option<Code> {
    serde_json::from_value(serde_json::Value::String(name.to_string())).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(key: &str, value: f64, higher: bool) -> Comparable {
        Comparable {
            key: key.into(),
            label: format!("{key} (x)"),
            value,
            higher_is_better: higher,
        }
    }

    #[test]
    fn drift_warns_only_when_worse_beyond_the_tolerance() {
        let then = (
            "2026-11-01".to_string(),
            vec![("r".to_string(), 100.0), ("t".into(), 10.0)],
        );
        let f = drift(&[fig("r", 80.0, true), fig("t", 9.0, false)], &then, 0.15);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].code, f[0].severity), (Code::Drift, Severity::Warning));
        assert!(
            f[0].reason
                .contains("20.0% worse than at its own qualification on 2026-11-01")
        );
        assert!(drift(&[fig("r", 120.0, true)], &then, 0.15).is_empty());
    }

    #[test]
    fn an_acknowledged_finding_is_a_note_until_its_figure_changes() {
        let a = Acknowledgement {
            code: Code::Smart,
            reason: "SMART: reallocated sectors: 8".into(),
            who: "root".into(),
            at: "2026-12-01 15:00 UTC".into(),
        };
        let f = |r: &str| Finding::new(Severity::Fail, "smart", Code::Smart, r.into());
        let rule = |n: u64| Finding {
            figure: Some(crate::results::verdict::Figure {
                counter: "reallocated".into(),
                count: Some(n),
                source: "ATA attribute 5, raw".into(),
            }),
            ..Finding::smart(
                Severity::Fail,
                "reallocated",
                format!("reallocated sectors: {n}"),
            )
        };
        let out = acknowledge(
            vec![f("SMART: reallocated sectors: 8")],
            std::slice::from_ref(&a),
            &[rule(8)],
        );
        assert_eq!(
            (out[0].code, out[0].severity),
            (Code::Acknowledged, Severity::Note)
        );
        assert!(
            out[0]
                .reason
                .starts_with("acknowledged by root on 2026-12-01 15:00 UTC (smart)")
        );
        let out = acknowledge(vec![f("SMART: reallocated sectors: 9")], &[a], &[rule(9)]);
        assert_eq!(
            (out[0].code, out[0].severity),
            (Code::Smart, Severity::Fail)
        );
        assert!(
            out[0].reason.contains("changed since acknowledged by root"),
            "{out:?}"
        );
    }

    #[test]
    fn a_finding_with_no_count_is_judged_whatever_the_acknowledgements_say() {
        let ack = |code: Code, reason: &str| Acknowledgement {
            code,
            reason: reason.into(),
            who: "root".into(),
            at: "2026-12-01 15:00 UTC".into(),
        };
        let unreadable = "SMART: smartctl could not read the drive";
        let health = "SMART: overall-health self-assessment: FAILED";
        let findings = vec![
            Finding::new(
                Severity::Fail,
                "smart",
                Code::SmartUnreadable,
                unreadable.into(),
            ),
            Finding::new(Severity::Fail, "smart", Code::Smart, health.into()),
            Finding::new(
                Severity::Fail,
                "capacity_check",
                Code::FakeCapacity,
                "fake".into(),
            ),
        ];
        let no_count = Finding {
            figure: Some(crate::results::verdict::Figure {
                counter: "smart-health".into(),
                count: None,
                source: "smart_status".into(),
            }),
            ..Finding::smart(
                Severity::Fail,
                "smart-failing",
                health.trim_start_matches("SMART: ").into(),
            )
        };
        let acks = [
            ack(Code::SmartUnreadable, unreadable),
            ack(Code::Smart, health),
            ack(Code::FakeCapacity, "fake"),
        ];
        let out = acknowledge(findings.clone(), &acks, std::slice::from_ref(&no_count));
        assert_eq!(out, findings);
        for f in &findings {
            assert!(
                ackable(f, std::slice::from_ref(&no_count)).is_err(),
                "{f:?}"
            );
        }
    }

    #[test]
    fn codes_are_named_as_the_docs_name_them() {
        assert_eq!(code_name(Code::WorseThanReference), "worse_than_reference");
        assert_eq!(code_named("smart"), Some(Code::Smart));
        assert_eq!(code_named("nonsense"), None);
    }
}
