//! The text exposition itself: the metric families of every file of this
//! reporter in the order they are written, the samples gathered per family, and
//! the format's escapes and number syntax.

use super::{path, qualify, temperature};
use std::collections::HashSet;
use std::fmt::Write;

/// A metric family: its name, type and help text.
pub(super) struct Family {
    pub(super) name: &'static str,
    pub(super) kind: &'static str,
    pub(super) help: &'static str,
}

/// Every family seekprobe writes, in the order they appear: these, then
/// [`qualify::FAMILIES`].
pub(super) fn families() -> impl Iterator<Item = &'static Family> {
    super::FAMILIES
        .iter()
        .chain(qualify::FAMILIES)
        .chain(temperature::FAMILIES)
        .chain(path::FAMILIES)
}

/// Samples gathered per family, written out in [`families`] order.
pub(super) struct Exposition {
    samples: Vec<Vec<String>>,
    seen: HashSet<String>,
}

impl Exposition {
    pub(super) fn new() -> Self {
        Exposition {
            samples: vec![Vec::new(); families().count()],
            seen: HashSet::new(),
        }
    }

    /// Add a sample of `family` (a name in [`families`]); `suffix` is `_sum`,
    /// `_count`, `_bucket` or empty. A series given twice keeps its first value.
    pub(super) fn add(
        &mut self,
        family: &str,
        suffix: &str,
        labels: &[(&str, String)],
        value: f64,
    ) {
        let i = families()
            .position(|f| f.name == family)
            .expect("every family is declared");
        let mut series = format!("{family}{suffix}");
        if !labels.is_empty() {
            series.push('{');
            for (n, (k, v)) in labels.iter().enumerate() {
                if n > 0 {
                    series.push(',');
                }
                let _ = write!(series, "{k}=\"{}\"", escape_label(v));
            }
            series.push('}');
        }
        if self.seen.insert(series.clone()) {
            self.samples[i].push(format!("{series} {}", number(value)));
        }
    }

    /// The exposition's text: each family with samples, its help and type first.
    pub(super) fn finish(self) -> String {
        let mut out = String::new();
        for (f, samples) in families().zip(self.samples) {
            if samples.is_empty() {
                continue;
            }
            let _ = writeln!(out, "# HELP {} {}", f.name, escape_help(f.help));
            let _ = writeln!(out, "# TYPE {} {}", f.name, f.kind);
            for s in samples {
                out.push_str(&s);
                out.push('\n');
            }
        }
        out
    }
}

/// A label value as the format wants it: backslash, double quote and line feed
/// escaped.
pub fn escape_label(v: &str) -> String {
    let mut s = String::with_capacity(v.len());
    for c in v.chars() {
        match c {
            '\\' => s.push_str("\\\\"),
            '"' => s.push_str("\\\""),
            '\n' => s.push_str("\\n"),
            c => s.push(c),
        }
    }
    s
}

/// Help text: backslash and line feed escaped.
fn escape_help(v: &str) -> String {
    v.replace('\\', "\\\\").replace('\n', "\\n")
}

/// A sample value: Go's float syntax (`NaN`, `+Inf`, `-Inf` for the special ones).
pub(super) fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// The snake_case name the JSON results give a test kind or phase.
pub(super) fn id(v: impl serde::Serialize) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape_label("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    }

    #[test]
    fn special_values_use_go_syntax() {
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(0.0225), "0.0225");
    }
}
