//! The model families their vendors published as drive-managed SMR, kept as data
//! (`models.tsv` beside this file, one entry a line with its source), and a matcher
//! against a drive's model string.

/// One published DM-SMR model family.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmrModel {
    /// The start of one word of the model string, e.g. `WD40EFAX`.
    pub pattern: &'static str,
    /// The vendor, e.g. "Western Digital".
    pub vendor: &'static str,
    /// The family and capacity, e.g. "WD Red 4 TB (EFAX)".
    pub family: &'static str,
    /// A model string as a drive reports it, for the table test.
    pub example: &'static str,
    /// Where the vendor published it (a key explained at the top of `models.tsv`).
    pub source: &'static str,
}

/// The list as it is kept in the repository.
const TABLE: &str = include_str!("models.tsv");

/// Every entry of the list, in file order.
pub fn all() -> Vec<SmrModel> {
    TABLE
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some(SmrModel {
                pattern: f.next()?,
                vendor: f.next()?,
                family: f.next()?,
                example: f.next()?,
                source: f.next()?,
            })
        })
        .collect()
}

/// The words of a model string: split at anything but ASCII letters and digits (so
/// "WDC WD40EFAX-68JH4N0", "ATA WDC WD40EFAX-6", "WDC_WD40EFAX-68JH4N0" and
/// "(WD40EFAX-like)" all contain the word "WD40EFAX").
fn words(model: &str) -> impl Iterator<Item = &str> {
    model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
}

/// The published DM-SMR family a model string belongs to, if any: an entry matches
/// when one word of the string starts with its pattern, ignoring case.
pub fn lookup(model: &str) -> Option<SmrModel> {
    all().into_iter().find(|m| {
        words(model).any(|w| {
            w.len() >= m.pattern.len()
                && w.is_char_boundary(m.pattern.len())
                && w[..m.pattern.len()].eq_ignore_ascii_case(m.pattern)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_well_formed_and_matches_its_example() {
        let list = all();
        assert!(list.len() >= 30, "{} entries", list.len());
        let data_lines = TABLE
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .count();
        assert_eq!(list.len(), data_lines, "a line with fewer than 5 fields");
        for m in &list {
            assert!(
                TABLE.lines().any(|l| l
                    .strip_prefix("#   ")
                    .is_some_and(|k| k.starts_with(m.source))),
                "{m:?}: its source key is not explained at the top of models.tsv"
            );
            let got =
                lookup(m.example).unwrap_or_else(|| panic!("{m:?} does not match its example"));
            assert_eq!(
                got.pattern, m.pattern,
                "{} matched another entry",
                m.example
            );
        }
    }

    #[test]
    fn vendor_prefixes_case_and_truncation_do_not_matter() {
        for s in [
            "WDC WD40EFAX-68JH4N0",
            "ATA WDC WD40EFAX-6",
            "wdc_wd40efax-68jh4n0",
            "WD40EFAX",
            "WDC WD40EFAX-68J",
        ] {
            assert_eq!(lookup(s).map(|m| m.pattern), Some("WD40EFAX"), "{s}");
        }
        assert_eq!(
            lookup("ST8000DM004-2CX1").map(|m| m.vendor),
            Some("Seagate")
        );
        assert_eq!(
            lookup("TOSHIBA HDWD240UZSVA").map(|m| m.family),
            Some("P300 4 TB")
        );
    }

    #[test]
    fn conventional_models_do_not_match() {
        for s in [
            "WDC WD40EFRX-68N32N0",
            "WDC WD80EFAX-68KNBN0",
            "WDC WD80EZAZ-11TDBA0",
            "WDC WD40EFZX-68AWUN0",
            "ST4000VN008-2DR166",
            "ST2000DM001-1CH164",
            "ST1000DM010-2EP102",
            "ST16000NM001G-2KK103",
            "TOSHIBA HDWD110",
            "TOSHIBA HDWD120",
            "TOSHIBA HDWG480",
            "Samsung SSD 870 EVO 1TB",
            "Simulated 7200 rpm HDD (ST2000DM001-like)",
            "",
        ] {
            assert_eq!(lookup(s), None, "{s}");
        }
    }
}
