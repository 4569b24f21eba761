//! How the health rules write a finding (its weight's word, a finding with or
//! without its [`Figure`]). The finding is the program's one `Finding`
//! (`results::verdict`, made for a rule with `Finding::smart`); one judge
//! (`crate::verdict::judge`) turns a drive's findings into its verdict.

use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};

impl Severity {
    /// The word printed before the reason.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Fail => "FAIL",
        }
    }
}

impl Figure {
    /// A figure of `count` for `counter`, read from `source` (None: not a number).
    pub fn new(counter: &str, count: Option<u64>, source: &str) -> Figure {
        Figure {
            counter: counter.into(),
            count,
            source: source.into(),
        }
    }
}

impl Finding {
    /// The same finding, naming its figure (a SMART rule's, made with
    /// [`Finding::smart`]).
    pub fn with(mut self, figure: Figure) -> Finding {
        self.figure = Some(figure);
        self
    }
}
