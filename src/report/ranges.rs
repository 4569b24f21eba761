//! Lists of ranges of one kind in the text, bounded: up to [`LISTED`] a line each,
//! as before; beyond them one line with their count and span, then the
//! [`WORST`] worst, so that a drive with periodic stalls or a throttled device
//! prints a screenful, not hundreds of lines. The JSON keeps every range.

use std::fmt::Write;

/// The most ranges of one kind the text lists a line each.
pub const LISTED: usize = 32;
/// The ranges a summary names, the worst first.
pub const WORST: usize = 8;

/// Write `items` (ranges of `what` kind) to `s`, each line after `indent`: a
/// line each, `what: ` and the range as `words` says it; or, beyond [`LISTED`],
/// `what` with their count, the sectors they cover (`sectors` gives a range's
/// first sector and count) and their span, then the [`WORST`] worst (by
/// `badness`, the largest first) a line each.
pub fn write<T>(
    s: &mut String,
    (indent, what): (&str, &str),
    items: &[T],
    words: impl Fn(&T) -> String,
    sectors: impl Fn(&T) -> (u64, u64),
    badness: impl Fn(&T) -> u64,
) {
    if items.len() <= LISTED {
        for i in items {
            let _ = writeln!(s, "{indent}{what}: {}", words(i));
        }
        return;
    }
    let first = items.iter().map(|i| sectors(i).0).min().unwrap_or(0);
    let last = (items.iter())
        .map(|i| {
            let (a, n) = sectors(i);
            a + n.max(1) - 1
        })
        .max()
        .unwrap_or(0);
    let total: u64 = items.iter().map(|i| sectors(i).1).sum();
    let _ = writeln!(
        s,
        "{indent}{what}: {} ranges, {total} sectors between sector {first} and {last}; the {WORST} worst (every range is in the JSON):",
        items.len()
    );
    let mut worst: Vec<&T> = items.iter().collect();
    worst.sort_by_key(|i| std::cmp::Reverse(badness(i)));
    for i in worst.into_iter().take(WORST) {
        let _ = writeln!(s, "{indent}\t{}", words(i));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_ranges_are_listed_many_summarised_with_the_worst() {
        let line =
            |r: &(u64, u64, u64)| format!("sectors {}-{}, up to {} ms", r.0, r.0 + r.1 - 1, r.2);
        // Listed: `what: ` and the range; summarised: the worst ranges alone.
        let mut s = String::new();
        let few: Vec<(u64, u64, u64)> = (0..3).map(|i| (i * 100, 8, i)).collect();
        write(&mut s, ("\t", "slow"), &few, line, |r| (r.0, r.1), |r| r.2);
        assert_eq!(s.lines().count(), 3, "{s}");
        assert!(s.starts_with("\tslow: sectors 0-7, up to 0 ms\n"), "{s}");
        let many: Vec<(u64, u64, u64)> = (0..500).map(|i| (i * 100, 8, i % 97)).collect();
        let mut s = String::new();
        write(&mut s, ("\t", "slow"), &many, line, |r| (r.0, r.1), |r| r.2);
        assert_eq!(s.lines().count(), 1 + WORST, "{s}");
        assert!(
            s.starts_with(
                "\tslow: 500 ranges, 4000 sectors between sector 0 and 49907; the 8 worst"
            ),
            "{s}"
        );
        assert_eq!(
            s.lines().nth(1).unwrap(),
            "\t\tsectors 9600-9607, up to 96 ms"
        );
    }
}
