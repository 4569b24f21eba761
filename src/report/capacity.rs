//! The capacity check's block of text (`--capacity-check`): the conclusion in one
//! sentence, then the probes' tally. Reads the result only; measures nothing.

use crate::results::TestResult;
use crate::results::capacity::{Capacity, CapacityOutcome};
use crate::results::verdict::binary_size as size;

/// The conclusion in one sentence (no final period).
pub fn conclusion(c: &Capacity) -> String {
    let within = if c.uncertainty > 0 {
        format!(" (to within {})", size(c.uncertainty))
    } else {
        String::new()
    };
    let (n, of) = (c.failed, c.probes);
    match c.finding {
        // What the probes rule out, and what they cannot: a drive that remaps
        // what it is written keeps the few probe blocks wherever they land.
        CapacityOutcome::Full => format!(
            "all {of} probe blocks over the {} reported read back as written: no write \
             wrapped to another address and none was lost at a probed address; the probes \
             cannot rule out a drive that remaps what it is written and keeps only part of \
             it (they write less than such a drive keeps): --verify, writing and reading \
             back every block, does",
            size(c.reported)
        ),
        CapacityOutcome::Wraps {
            modulus,
            example_at,
            example_found,
        } => {
            let land = match modulus {
                Some(m) => format!("their address modulo {}", size(m)),
                None => "other addresses".to_string(),
            };
            let within = if modulus.is_some() { "" } else { &within };
            format!(
                "only the first {}{within} store data; writes beyond it land at {land} \
                 ({n} of {of} probe blocks read back another block's stamp, e.g. the block at {} held the one written at {})",
                size(c.real),
                size(example_at),
                size(example_found)
            )
        }
        CapacityOutcome::WritesLost => format!(
            "only the first {}{within} store data; writes beyond it are lost \
             ({n} of {of} probe blocks read back other content)",
            size(c.real)
        ),
        CapacityOutcome::ReadsFail => format!(
            "only the first {}{within} can be read back; reads beyond it fail \
             ({n} of {of} probe blocks unreadable)",
            size(c.real)
        ),
        CapacityOutcome::Scattered => format!(
            "no sign of a smaller drive, but {n} of {of} probe blocks failed, the first at {}: \
             damaged sectors (run --verify)",
            size(c.first_failed.unwrap_or(0))
        ),
    }
}

/// The test's block: "Capacity check: ..." and a blank line (empty without a
/// result).
pub fn block(t: &TestResult) -> String {
    let Some(r) = &t.capacity() else {
        return String::new();
    };
    let c = &r.conclusion;
    let verdict = if c.is_fake() {
        "FAKE: the drive stores less than it reports"
    } else if c.failed > 0 {
        "FAILED: written data did not read back"
    } else {
        "ok"
    };
    let mut s = format!("Capacity check: {}.\n", conclusion(c));
    s.push_str(&format!(
        "\t{} reported, {} probe blocks in {} round(s){}: {verdict}\n\n",
        size(c.reported),
        c.probes,
        r.rounds,
        if r.failed_writes > 0 {
            format!(", {} writes failed", r.failed_writes)
        } else {
            String::new()
        }
    ));
    s
}
