//! Where the failed sectors of failed blocks are, in reads proportional to the
//! edges of each failed area, not to its size: the approach of GNU ddrescue's
//! phases after its first copying pass (docs/methods.md, "Locating failed
//! sectors").
//!
//! The pass already moved on past each failed block (ddrescue's copying phase). For
//! each area of consecutive failed blocks: *trimming* finds its leading edge (the
//! first bad sector of its first block) and its trailing edge (the last bad sector of
//! its last block), each by halving the good side with reads that may span many
//! sectors; *splitting* then halves what lies between the edges, reading each half
//! whole, down to single sectors, within a budget of reads. What the budget leaves
//! unread between two bad sectors is reported failed without reading each sector
//! (`inferred`), as ddrescue leaves such areas "non-scraped".

use std::collections::BinaryHeap;

/// Reads spent on splitting the inside of one failed area before what is left is
/// inferred: 8 unreadable sectors of a 1 MiB block are told apart in about 40 reads
/// with the edges (tests/it/faulty.rs asserts at most 64).
pub const SPLIT_BUDGET: u32 = 48;

/// What one probe of `[offset, offset + len)` gave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocateRead {
    /// The whole span worked (the caller judged its content).
    Ok,
    /// It failed with an error.
    Failed,
    /// Ctrl-C: stop now.
    EngineStop,
}

/// Failed sectors found in failed areas.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Located {
    /// Failed sector spans `(first, end)`, each sector of them read and failed, or
    /// lying between failed ones and inferred (then also in `inferred`); sorted.
    pub failed: Vec<(u64, u64)>,
    /// The spans of `failed` not read sector by sector; sorted.
    pub inferred: Vec<(u64, u64)>,
    /// Spans read (one read each, of any length), for the cost of locating.
    pub probes: u64,
    /// Ctrl-C stopped it before this byte offset's area was done (the first byte not
    /// located).
    pub cut: Option<u64>,
}

fn push(spans: &mut Vec<(u64, u64)>, first: u64, end: u64) {
    if first >= end {
        return;
    }
    if let Some(last) = spans.last_mut()
        && last.1 == first
    {
        last.1 = end;
        return;
    }
    spans.push((first, end));
}

/// Push the failed block `(offset, len)` onto `areas`, joined to the last area
/// when it follows it: one entry per run of consecutive failed blocks.
pub fn push_block(areas: &mut Vec<(u64, u64)>, offset: u64, len: u64) {
    match areas.last_mut() {
        Some(last) if last.0 + last.1 == offset => last.1 += len,
        _ => areas.push((offset, len)),
    }
}

/// Locate the failed sectors of `areas` (runs of failed blocks `(offset, len)` in
/// bytes, sorted, each made of blocks of `block` bytes from its offset, the last
/// one maybe shorter, aligned to sectors of `ss` bytes). `probe(offset, len)`
/// tries a span, never longer than `block`, and judges what it read or wrote;
/// `told` hears how many of the given areas are done ([`PassProgress::Locating`]).
pub fn locate(
    areas: &[(u64, u64)],
    block: u64,
    ss: u64,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
    told: &mut dyn FnMut(super::PassProgress),
) -> Located {
    let mut out = Located::default();
    let mut i = 0;
    let of = areas.len() as u64;
    while i < areas.len() {
        told(super::PassProgress::Locating { done: i as u64, of });
        // One area: the given areas that follow one another.
        let mut j = i + 1;
        while j < areas.len() && areas[j].0 == areas[j - 1].0 + areas[j - 1].1 {
            j += 1;
        }
        let (at, end) = (areas[i].0, areas[j - 1].0 + areas[j - 1].1);
        if let Err(()) = area(at, end, block, ss, probe, &mut out) {
            out.cut = Some(at);
            break;
        }
        i = j;
    }
    out
}

/// The first failed sector's byte offset in the failed span `[at, at + len)` (the
/// leading edge alone, by halving: about log2(len / ss) probes), or None when
/// Ctrl-C stopped it or the span reads now.
pub fn first_failed(
    at: u64,
    len: u64,
    ss: u64,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
) -> Option<u64> {
    let mut out = Located::default();
    let (mut lo, mut hi) = (at, at + len);
    while hi - lo > ss {
        let mid = lo + (hi - lo) / ss / 2 * ss;
        if try_span(&mut out, probe, lo, mid).ok()? {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // [lo, hi) is one sector; it holds the failure unless every probe read.
    (!try_span(&mut out, probe, lo, hi).ok()?).then_some(lo)
}

/// LocateRead and count.
fn try_span(
    out: &mut Located,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
    a: u64,
    b: u64,
) -> Result<bool, ()> {
    out.probes += 1;
    match probe(a, b - a) {
        LocateRead::Ok => Ok(true),
        LocateRead::Failed => Ok(false),
        LocateRead::EngineStop => Err(()),
    }
}

/// One area `[start, end)` of consecutive failed blocks of `block` bytes (the
/// last maybe shorter). Neither halving assumes a block still fails: the
/// one-sector span each settles on is read too, and a block whose error was
/// transient (it reads now) gets no failed sector.
fn area(
    start: u64,
    end: u64,
    block: u64,
    ss: u64,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
    out: &mut Located,
) -> Result<(), ()> {
    // The blocks i..j are still to be looked at.
    let blk = |k: u64| {
        let at = start + k * block;
        (at, block.min(end - at))
    };
    let (mut i, mut j) = (0, (end - start).div_ceil(block));
    // Leading edge, in the first block still failing: the good prefix [at, lo)
    // grows; [lo, hi) holds a failed sector if any does.
    let lead = loop {
        if i == j {
            return Ok(()); // every block reads now
        }
        let (at, len) = blk(i);
        let (mut lo, mut hi) = (at, at + len);
        while hi - lo > ss {
            let mid = lo + (hi - lo) / ss / 2 * ss;
            if try_span(out, probe, lo, mid)? {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        if !try_span(out, probe, lo, hi)? {
            break lo;
        }
        i += 1;
    };
    // Trailing edge, in the last block still failing (from the leading edge in
    // the lead's block): the last failed sector.
    let l = loop {
        let (at, len) = blk(j - 1);
        let (l, _) = trail(out, probe, at.max(lead), at + len, ss)?;
        if l == lead || !try_span(out, probe, l, l + ss)? {
            break l;
        }
        if j - 1 == i {
            break lead; // the lead is the block's only failed sector found
        }
        j -= 1;
    };
    inside(lead, l + ss, block, ss, probe, out)
}

/// The last failed sector of `[lo, hi)` if it holds one (the caller reads the
/// sector returned, which no probe read alone): returns it and the start of the
/// good suffix.
fn trail(
    out: &mut Located,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
    mut lo: u64,
    mut hi: u64,
    ss: u64,
) -> Result<(u64, u64), ()> {
    while hi - lo > ss {
        let mid = hi - (hi - lo) / ss / 2 * ss;
        if try_span(out, probe, mid, hi)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok((lo, hi))
}

/// `[a, b)` starts and ends with a failed sector: split what lies between them.
fn inside(
    a: u64,
    b: u64,
    block: u64,
    ss: u64,
    probe: &mut dyn FnMut(u64, u64) -> LocateRead,
    out: &mut Located,
) -> Result<(), ()> {
    let mut failed = vec![(a, a + ss)];
    if b - a > ss {
        failed.push((b - ss, b));
    }
    // Unknown spans, largest first; each known to hold a failed sector or not known.
    let mut todo = BinaryHeap::new();
    if b - a > 2 * ss {
        todo.push((b - a - 2 * ss, a + ss));
    }
    let mut inferred = Vec::new();
    let mut budget = SPLIT_BUDGET;
    let max = block; // no probe longer than a block (the probe's buffer)
    while let Some((len, at)) = todo.pop() {
        if budget == 0 || len > max * 64 {
            inferred.push((at, at + len));
            continue;
        }
        if len > max {
            // Too long to read whole: split without reading.
            let h = len / ss / 2 * ss;
            todo.push((h, at));
            todo.push((len - h, at + h));
            continue;
        }
        budget -= 1;
        if try_span(out, probe, at, at + len)? {
            continue;
        }
        if len == ss {
            failed.push((at, at + ss));
            continue;
        }
        let h = len / ss / 2 * ss;
        todo.push((h, at));
        todo.push((len - h, at + h));
    }
    failed.extend(inferred.iter().copied());
    failed.sort_unstable();
    inferred.sort_unstable();
    for (f, e) in failed {
        push(&mut out.failed, f / ss, e / ss);
    }
    for (f, e) in inferred {
        push(&mut out.inferred, f / ss, e / ss);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Locate on a device whose `bad` sectors fail; (located, probes of each sector).
    fn run(blocks: &[(u64, u64)], bad: &[(u64, u64)]) -> Located {
        run_in(blocks, 1 << 20, bad)
    }

    /// As `run`, in blocks of `block` bytes.
    fn run_in(blocks: &[(u64, u64)], block: u64, bad: &[(u64, u64)]) -> Located {
        let is_bad = |s: u64| bad.iter().any(|&(a, b)| (a..b).contains(&s));
        let probe = &mut |off: u64, len: u64| {
            assert!(off.is_multiple_of(512) && len.is_multiple_of(512) && len > 0 && len <= block);
            if (off / 512..(off + len) / 512).any(is_bad) {
                LocateRead::Failed
            } else {
                LocateRead::Ok
            }
        };
        locate(blocks, block, 512, probe, &mut |_| {})
    }

    #[test]
    fn eight_bad_sectors_of_a_1_mib_block_in_under_64_probes() {
        for start in [2048, 2100, 4088, 3000] {
            let l = run(&[(2048 * 512, 1 << 20)], &[(start, start + 8)]);
            assert_eq!(l.failed, [(start, start + 8)], "{start}");
            assert!(l.inferred.is_empty());
            assert!(l.probes <= 64, "{start}: {} probes", l.probes);
        }
    }

    #[test]
    fn scattered_sectors_are_each_found() {
        let bad = [(2050, 2051), (2500, 2502), (4000, 4001)];
        let l = run(&[(2048 * 512, 1 << 20)], &bad);
        assert_eq!(l.failed, bad);
        let l = run(&[(2048 * 512, 1 << 20)], &[(2049, 2050)]);
        assert_eq!(l.failed, [(2049, 2050)]);
        assert!(l.probes <= 24, "{}", l.probes);
    }

    #[test]
    fn a_long_unreadable_area_is_bounded_by_exact_edges_in_few_probes() {
        // 900 MiB unreadable from sector 254,000 (not block aligned) to the end of
        // a 1 GiB device in 1 MiB blocks.
        let first = 254_000u64;
        let blocks: Vec<_> = (((first * 512) >> 20)..1024)
            .map(|b| (b << 20, 1 << 20))
            .collect();
        let l = run(&blocks, &[(first, 2_097_152)]);
        assert_eq!(l.failed, [(first, 2_097_152)]);
        assert!(!l.inferred.is_empty());
        assert!(l.probes <= 100, "{}", l.probes);
        // A whole failed block: edges exact, the inside inferred.
        let l = run(&[(0, 1 << 20)], &[(0, 2048)]);
        assert_eq!(l.failed, [(0, 2048)]);
        assert!(l.probes <= 100, "{}", l.probes);
    }

    #[test]
    fn the_first_failed_sector_alone_costs_log2_probes() {
        let mut n = 0;
        let first = first_failed(0, 1 << 20, 512, &mut |off, len| {
            n += 1;
            if off + len > 1000 * 512 {
                LocateRead::Failed
            } else {
                LocateRead::Ok
            }
        });
        assert_eq!(first, Some(1000 * 512));
        assert_eq!(n, 12);
    }

    #[test]
    fn ctrl_c_cuts_at_the_area_being_located() {
        let mut n = 0;
        let mut told = Vec::new();
        let probe = &mut |off: u64, _| {
            n += 1;
            if off >= 1 << 20 {
                LocateRead::EngineStop
            } else {
                LocateRead::Failed
            }
        };
        let l = locate(&[(0, 4096), (1 << 20, 4096)], 4096, 512, probe, &mut |p| {
            told.push(p)
        });
        // Each area is told as it starts.
        let at = |done| super::super::PassProgress::Locating { done, of: 2 };
        assert_eq!(told, [at(0), at(1)]);
        assert_eq!(l.cut, Some(1 << 20));
        assert_eq!(l.failed, [(0, 8)]);
    }

    #[test]
    fn a_block_that_reads_on_retry_has_no_failed_sector() {
        // The pass saw the block fail; every probe of it reads now.
        let l = run(&[(2048 * 512, 1 << 20)], &[]);
        assert!(l.failed.is_empty(), "{:?}", l.failed);
        assert!(l.inferred.is_empty());
        // Of an area of three blocks, only the middle one still fails, at one sector.
        let blocks = [(0, 1 << 20), (1 << 20, 1 << 20), (2 << 20, 1 << 20)];
        let l = run(&blocks, &[(3000, 3001)]);
        assert_eq!(l.failed, [(3000, 3001)]);
        // A transient first block and a last block failing at its last sector.
        let l = run(&blocks, &[(6143, 6144)]);
        assert_eq!(l.failed, [(6143, 6144)]);
    }

    #[test]
    fn a_block_failing_at_one_sector_has_exactly_that_one() {
        for bad in [2048, 2049, 3000, 4094, 4095] {
            let l = run(&[(2048 * 512, 1 << 20)], &[(bad, bad + 1)]);
            assert_eq!(l.failed, [(bad, bad + 1)], "{bad}");
            assert!(l.inferred.is_empty());
        }
    }

    #[test]
    fn areas_of_joined_blocks_are_located_with_probes_no_longer_than_a_block() {
        // Four 64 KiB blocks as one area, or as four: the same sectors, and no
        // probe longer than a block (the probe asserts it).
        let bad = [(130, 131), (300, 302), (500, 501)];
        let mut areas = Vec::new();
        for b in 1..5u64 {
            push_block(&mut areas, b << 16, 1 << 16);
        }
        assert_eq!(areas, [(1 << 16, 4 << 16)]);
        let l = run_in(&areas, 1 << 16, &bad);
        assert_eq!(l.failed, bad);
        let blocks: Vec<_> = (1..5u64).map(|b| (b << 16, 1 << 16)).collect();
        assert_eq!(run_in(&blocks, 1 << 16, &bad).failed, bad);
        // A short last block (the range's end) ends the area.
        let l = run_in(&[(0, (1 << 16) + 1024)], 1 << 16, &[(129, 130)]);
        assert_eq!(l.failed, [(129, 130)]);
        // Apart blocks stay apart areas.
        push_block(&mut areas, 9 << 16, 1 << 16);
        assert_eq!(areas, [(1 << 16, 4 << 16), (9 << 16, 1 << 16)]);
    }
}
