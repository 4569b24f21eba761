//! The findings of the tests that name sectors: the surface scan (`--scan`) and
//! the write-and-verify passes (`--verify`). Each failed kind of sector is one
//! failing finding that lists its ranges as the test's own block does
//! (`verify: corrupt: sectors 100-107 (8)`).

use crate::results::failures::FailureKind;
use crate::results::verdict::{ByteSpan, MAX_RANGES, binary_size};
use crate::results::verify::VerifyResult;
use crate::results::{Code, Finding, ScanResult, SectorRange, Severity};

/// "sector N" or "sectors A-B (N)", as the tests' blocks name them.
pub fn span(first: u64, n: u64) -> String {
    if n == 1 {
        format!("sector {first}")
    } else {
        format!("sectors {first}-{} ({n})", first + n - 1)
    }
}

/// ", of which N inferred, not read one by one" when `inferred` (N) sectors of a
/// finding were reported failed without reading each one (issue 21), else "".
fn inferred_note(inferred: u64) -> String {
    if inferred == 0 {
        String::new()
    } else {
        format!(", of which {inferred} inferred, not read one by one")
    }
}

/// One failing finding naming `ranges` (at most [`MAX_RANGES`] listed, the rest
/// counted), `total` sectors in all.
fn sectors_finding(
    test: &str,
    code: Code,
    what: &str,
    ranges: &[SectorRange],
    total: u64,
    more: Option<String>,
) -> Finding {
    let listed: Vec<String> = ranges
        .iter()
        .take(MAX_RANGES)
        .map(|r| span(r.first_sector, r.sectors))
        .collect();
    let shown: u64 = ranges.iter().take(MAX_RANGES).map(|r| r.sectors).sum();
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let mut reason = format!("{test}: {what}: {}", listed.join(", "));
    if listed.is_empty() {
        reason = format!(
            "{test}: {what}: {total} sector{}{}",
            plural(total),
            more.clone().unwrap_or_default()
        );
    } else if shown < total {
        reason.push_str(&format!(
            ", and {} more sector{}{}",
            total - shown,
            plural(total - shown),
            more.unwrap_or_default()
        ));
    }
    Finding {
        sectors: ranges.iter().take(MAX_RANGES).cloned().collect(),
        ..Finding::new(Severity::Fail, test, code, reason)
    }
}

/// Why the failed blocks of a scan were not (all) located: the drive was given up,
/// or Ctrl-C stopped the locating (at its byte offset).
fn not_located(s: &ScanResult) -> Option<String> {
    if s.unanswered.is_some() {
        Some("the drive stopped answering".to_string())
    } else {
        s.unlocated_from
            .map(|at| format!("Ctrl-C stopped the locating at byte {at}"))
    }
}

/// `--scan`: the unreadable sectors (found by reading each sector of a failed
/// block); a block that failed although each of its sectors then read is named
/// by its count, and blocks not retried (the drive given up, Ctrl-C) are said
/// not located.
pub fn scan(test: &str, s: &ScanResult) -> Vec<Finding> {
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let total: u64 = s.unreadable.iter().map(|r| r.sectors).sum();
    if !s.unreadable.is_empty() {
        let mut f = sectors_finding(
            test,
            Code::UnreadableSectors,
            "unreadable",
            &s.unreadable,
            total,
            None,
        );
        let inferred: u64 = s.inferred.iter().map(|r| r.sectors).sum();
        f.reason.push_str(&inferred_note(inferred));
        f.reason.push_str(&format!(
            " ({} block{} failed to read)",
            s.error_blocks,
            plural(s.error_blocks)
        ));
        if let Some(why) = not_located(s) {
            f.reason
                .push_str(&format!("; the sectors of some were not located: {why}"));
        }
        return vec![f];
    }
    if s.error_blocks > 0
        && let Some(why) = not_located(s)
    {
        return vec![Finding::new(
            Severity::Fail,
            test,
            Code::UnreadableSectors,
            format!(
                "scan: {} block{} of {} bytes failed to read; their sectors were not located: {why}",
                s.error_blocks,
                plural(s.error_blocks),
                s.block_bytes
            ),
        )];
    }
    if s.error_blocks > 0 {
        return vec![Finding::new(
            Severity::Fail,
            test,
            Code::UnreadableSectors,
            format!(
                "scan: {} block{} of {} bytes failed to read, though each of their sectors read when retried one by one",
                s.error_blocks,
                plural(s.error_blocks),
                s.block_bytes
            ),
        )];
    }
    Vec::new()
}

/// `--verify` found that the drive keeps only the first bytes written (its
/// read-back as it goes, `engine::verify`): one failing finding, a fake capacity,
/// with the part it does not keep as its bytes. The sectors past what it kept were
/// not read back, so no sector finding stands in for it.
fn keeps_only(test: &str, v: &VerifyResult) -> Option<Finding> {
    let k = v.keeps_only?;
    let reason = format!(
        "verify: a fake capacity: keeps only the first {} written, wherever written, of the {} \
         range (nothing written from byte {} on read back; the pass stopped writing at byte {})",
        binary_size(k.kept_bytes),
        binary_size(v.end_bytes - v.start_bytes),
        k.lost_from,
        k.written_to
    );
    Some(Finding {
        bytes: Some(ByteSpan {
            start_bytes: k.lost_from,
            end_bytes: v.end_bytes,
        }),
        ..Finding::new(Severity::Fail, test, Code::KeepsOnlyFirstWritten, reason)
    })
}

/// The code of a kind of failed sector.
fn code(kind: FailureKind) -> Code {
    match kind {
        FailureKind::Unwritable => Code::UnwritableSectors,
        FailureKind::Unreadable => Code::UnreadableSectors,
        FailureKind::Corrupt => Code::CorruptSectors,
        FailureKind::Misdirected => Code::MisdirectedSectors,
        FailureKind::Stale => Code::StaleSectors,
    }
}

/// `--verify`: a failing finding per pass and kind of failed sector
/// (unwritable, unreadable, corrupt, misdirected, stale), naming its ranges; the
/// sectors past the listed ranges (the bounded list's overflow span) are counted
/// with where they lie.
pub fn verify(test: &str, v: &VerifyResult) -> Vec<Finding> {
    let mut out: Vec<Finding> = keeps_only(test, v).into_iter().collect();
    let passes = v.passes.len();
    for p in &v.passes {
        let f = &p.failures;
        for kind in FailureKind::ALL {
            let total = f.count(kind);
            if total == 0 {
                continue;
            }
            let ranges: Vec<SectorRange> = f
                .ranges()
                .iter()
                .filter(|r| r.kind == kind)
                .map(|r| SectorRange {
                    first_sector: r.start_lba,
                    sectors: r.sectors,
                })
                .collect();
            let more = f.overflow().map(|o| {
                format!(
                    " between sector {} and {}",
                    o.start_lba,
                    o.end_lba.saturating_sub(1)
                )
            });
            let what = if passes > 1 {
                format!("pass {}: {}", p.pass + 1, kind.name())
            } else {
                kind.name().to_string()
            };
            // The located spans not read one by one: the write half's are
            // unwritable, the read half's unreadable.
            let half = match kind {
                FailureKind::Unwritable => Some(&p.write),
                FailureKind::Unreadable => p.read.as_ref(),
                _ => None,
            };
            let inferred: u64 = half.map_or(0, |h| h.inferred.iter().map(|r| r[1]).sum());
            let mut finding = sectors_finding(test, code(kind), &what, &ranges, total, more);
            finding.reason.push_str(&inferred_note(inferred));
            out.push(finding);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::QueuedEngine;
    use crate::results::failures::Failures;
    use crate::results::verify::{Half, Pass};

    fn verify_with(failures: Failures) -> VerifyResult {
        VerifyResult {
            nonce: 1,
            start_bytes: 0,
            end_bytes: 1 << 30,
            block_bytes: 1 << 20,
            sector_bytes: 512,
            queue_depth: 4,
            passes_planned: 1,
            slow_ms: 50.0,
            engine: QueuedEngine::Virtual,
            passes: vec![Pass {
                pass: 0,
                write: Half::new(1, 0),
                read: Some(Half::new(1, 0)),
                failures,
            }],
            stopped: None,
            unanswered: None,
            keeps_only: None,
            size_changed: None,
        }
    }

    #[test]
    fn a_drive_keeping_only_the_first_bytes_written_is_one_fake_capacity_finding() {
        let mut v = verify_with(Failures::new());
        v.keeps_only = Some(crate::results::verify::KeepsOnly {
            pass: 0,
            lost_from: 256 << 20,
            kept_bytes: 256 << 20,
            written_to: 266 << 20,
        });
        let found = verify("verify", &v);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, Code::KeepsOnlyFirstWritten);
        assert_eq!(found[0].severity, Severity::Fail);
        assert_eq!(
            found[0].reason,
            "verify: a fake capacity: keeps only the first 256.0 MiB written, wherever written, \
             of the 1.0 GiB range (nothing written from byte 268435456 on read back; the pass \
             stopped writing at byte 278921216)"
        );
        assert_eq!(
            found[0].bytes,
            Some(ByteSpan {
                start_bytes: 256 << 20,
                end_bytes: 1 << 30
            })
        );
    }

    #[test]
    fn each_kind_of_failed_sector_is_one_failing_finding_naming_its_ranges() {
        let mut f = Failures::new();
        f.record_span(100, 8, FailureKind::Corrupt);
        f.record_span(7, 1, FailureKind::Unwritable);
        f.record_span(300, 2, FailureKind::Corrupt);
        let found = verify("verify", &verify_with(f));
        let reasons: Vec<&str> = found.iter().map(|f| f.reason.as_str()).collect();
        assert_eq!(
            reasons,
            [
                "verify: unwritable: sector 7",
                "verify: corrupt: sectors 100-107 (8), sectors 300-301 (2)"
            ]
        );
        assert_eq!(found[1].code, Code::CorruptSectors);
        assert_eq!(found[1].sectors.len(), 2);
        assert!(found.iter().all(|f| f.severity == Severity::Fail));
    }

    #[test]
    fn sectors_beyond_the_listed_ranges_are_counted_with_where_they_lie() {
        // A bound of 1 range: the first run is exact, the rest widens one span.
        let mut f = Failures::with_limit(1);
        f.record_span(10, 2, FailureKind::Unreadable);
        f.record_span(50, 1, FailureKind::Unreadable);
        f.record_span(90, 3, FailureKind::Unreadable);
        let found = verify("verify", &verify_with(f));
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].reason,
            "verify: unreadable: sectors 10-11 (2), and 4 more sectors between sector 50 and 92"
        );
    }

    #[test]
    fn a_scan_names_its_unreadable_sectors_or_counts_its_failed_blocks() {
        let mut s = ScanResult {
            start_bytes: 0,
            end_bytes: 1 << 30,
            block_bytes: 1 << 20,
            blocks_read: 1024,
            bytes_read: 1 << 30,
            elapsed_ns: 1,
            buckets: vec![0; 6],
            error_blocks: 0,
            unreadable: Vec::new(),
            slow_ms: 50.0,
            slow: Vec::new(),
            unconfirmed: 0,
            redone_bytes: 0,
            map_ns: Vec::new(),
            inferred: Vec::new(),
            unanswered: None,
            unlocated_from: None,
        };
        assert!(scan("scan", &s).is_empty());
        s.error_blocks = 1;
        let f = scan("scan", &s);
        assert!(
            f[0].reason
                .contains("1 block of 1048576 bytes failed to read"),
            "{f:?}"
        );
        s.unreadable.push(SectorRange {
            first_sector: 100,
            sectors: 8,
        });
        let f = scan("scan", &s);
        assert_eq!(
            f[0].reason,
            "scan: unreadable: sectors 100-107 (8) (1 block failed to read)"
        );
        assert_eq!(f[0].code, Code::UnreadableSectors);
    }

    #[test]
    fn a_finding_says_how_many_of_its_sectors_were_inferred() {
        let mut s = ScanResult {
            start_bytes: 0,
            end_bytes: 1 << 30,
            block_bytes: 1 << 20,
            blocks_read: 1024,
            bytes_read: 1 << 30,
            elapsed_ns: 1,
            buckets: vec![0; 6],
            error_blocks: 2,
            unreadable: vec![SectorRange {
                first_sector: 2048,
                sectors: 4096,
            }],
            slow_ms: 50.0,
            slow: Vec::new(),
            unconfirmed: 0,
            redone_bytes: 0,
            map_ns: Vec::new(),
            inferred: vec![SectorRange {
                first_sector: 2100,
                sectors: 3000,
            }],
            unanswered: None,
            unlocated_from: None,
        };
        assert_eq!(
            scan("scan", &s)[0].reason,
            "scan: unreadable: sectors 2048-6143 (4096), of which 3000 inferred, not read one by one (2 blocks failed to read)"
        );
        s.inferred.clear();
        assert!(!scan("scan", &s)[0].reason.contains("inferred"));
        // --verify: the write half's inferred sectors are unwritable, the read
        // half's unreadable.
        let mut f = Failures::new();
        f.record_span(100, 50, FailureKind::Unwritable);
        f.record_span(300, 20, FailureKind::Unreadable);
        f.record_span(400, 2, FailureKind::Corrupt);
        let mut v = verify_with(f);
        v.passes[0].write.inferred = vec![[101, 48]];
        v.passes[0].read.as_mut().unwrap().inferred = vec![[301, 10], [311, 8]];
        let reasons: Vec<String> = verify("verify", &v).into_iter().map(|f| f.reason).collect();
        assert_eq!(
            reasons,
            [
                "verify: unwritable: sectors 100-149 (50), of which 48 inferred, not read one by one",
                "verify: unreadable: sectors 300-319 (20), of which 18 inferred, not read one by one",
                "verify: corrupt: sectors 400-401 (2)",
            ]
        );
    }

    #[test]
    fn failed_blocks_not_retried_are_said_not_located() {
        let mut s = ScanResult {
            start_bytes: 0,
            end_bytes: 1 << 30,
            block_bytes: 1 << 20,
            blocks_read: 1024,
            bytes_read: 1 << 30,
            elapsed_ns: 1,
            buckets: vec![0; 6],
            error_blocks: 3,
            unreadable: Vec::new(),
            slow_ms: 50.0,
            slow: Vec::new(),
            unconfirmed: 0,
            redone_bytes: 0,
            map_ns: Vec::new(),
            inferred: Vec::new(),
            unanswered: None,
            unlocated_from: Some(5 << 20),
        };
        assert_eq!(
            scan("scan", &s)[0].reason,
            "scan: 3 blocks of 1048576 bytes failed to read; their sectors were not located: Ctrl-C stopped the locating at byte 5242880"
        );
        s.unlocated_from = None;
        s.unanswered = Some(crate::results::scan::Unanswered::stopped(
            7 << 20,
            1,
            "the device is gone".into(),
        ));
        let f = scan("scan", &s);
        assert_eq!(
            f[0].reason,
            "scan: 3 blocks of 1048576 bytes failed to read; their sectors were not located: the drive stopped answering"
        );
        assert!(!f[0].reason.contains("retried"));
        // Some located before Ctrl-C: named, and the rest said not located.
        s.unanswered = None;
        s.unlocated_from = Some(5 << 20);
        s.unreadable.push(SectorRange {
            first_sector: 100,
            sectors: 1,
        });
        assert_eq!(
            scan("scan", &s)[0].reason,
            "scan: unreadable: sector 100 (3 blocks failed to read); the sectors of some were not located: Ctrl-C stopped the locating at byte 5242880"
        );
    }
}
