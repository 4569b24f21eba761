//! The fill's word loops: a sector's fill written as, and compared with, pool
//! words XOR a key, a whole word at a time on aligned buffers so that the compiler
//! vectorises them (AVX2 when the CPU has it, SSE2 otherwise), byte by byte on
//! others. The stamp layout they fill is [`super::stamp`]'s.

/// Whether the CPU runs AVX2 (std detects it once and caches it): the fill loops
/// then move four words per instruction instead of SSE2's two. The same loops,
/// compiled twice: the bytes written and the answers are the same either way.
#[inline(always)]
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `dst` = each word of `words` XOR `k`, little-endian.
///
/// An index loop over slices cut to one length, not a `zip`: the optimiser
/// vectorises both alike (the release build's time is the same), but in the
/// unoptimised build `cargo test` runs every iterator adapter is a call, and the
/// `zip` loops here took 45% of a simulated drive's burn-in (12 s of CPU for
/// 1 GiB, 8 s with these loops; perf, docs/testing.md).
#[inline(always)]
fn xor_words(dst: &mut [u64], words: &[u64], k: u64) {
    let n = dst.len().min(words.len());
    let (dst, words) = (&mut dst[..n], &words[..n]);
    let mut i = 0;
    while i < n {
        dst[i] = (words[i] ^ k).to_le();
        i += 1;
    }
}

/// The OR of every word of `src`'s difference from `words` XOR `k` (an index
/// loop, as [`xor_words`] says why).
#[inline(always)]
fn diff_words(src: &[u64], words: &[u64], k: u64) -> u64 {
    let n = src.len().min(words.len());
    let (src, words) = (&src[..n], &words[..n]);
    let (mut d, mut i) = (0, 0);
    while i < n {
        d |= u64::from_le(src[i]) ^ words[i] ^ k;
        i += 1;
    }
    d
}

/// [`xor_words`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn xor_words_avx2(dst: &mut [u64], words: &[u64], k: u64) {
    xor_words(dst, words, k);
}

/// [`diff_words`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn diff_words_avx2(src: &[u64], words: &[u64], k: u64) -> u64 {
    diff_words(src, words, k)
}

/// Write the fill: each word of `words` XOR `k`, little-endian. On an 8-byte
/// aligned buffer (every engine's buffers are) it is a loop over whole words that
/// the compiler vectorises (AVX2 when the CPU has it); otherwise byte by byte.
#[inline(always)]
pub(super) fn write_fill(fill: &mut [u8], words: &[u64], k: u64) {
    // SAFETY: any bit pattern is a valid u64, and align_to keeps the bytes.
    let (pre, mid, post) = unsafe { fill.align_to_mut::<u64>() };
    if pre.is_empty() && post.is_empty() {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU runs AVX2 (checked just above).
            unsafe { xor_words_avx2(mid, words, k) };
            return;
        }
        xor_words(mid, words, k);
    } else {
        for (dst, &w) in fill.chunks_exact_mut(8).zip(words) {
            dst.copy_from_slice(&(w ^ k).to_le_bytes());
        }
    }
}

/// The OR of every fill word's difference from `words` XOR `k` (0: the fill is
/// exactly that), vectorised as [`write_fill`] is.
#[inline(always)]
pub(super) fn fill_diff(fill: &[u8], words: &[u64], k: u64) -> u64 {
    // SAFETY: any bit pattern is a valid u64, and align_to keeps the bytes.
    let (pre, mid, post) = unsafe { fill.align_to::<u64>() };
    if pre.is_empty() && post.is_empty() {
        #[cfg(target_arch = "x86_64")]
        if avx2() {
            // SAFETY: the CPU runs AVX2 (checked just above).
            return unsafe { diff_words_avx2(mid, words, k) };
        }
        diff_words(mid, words, k)
    } else {
        fill.chunks_exact(8).zip(words).fold(0, |d, (src, &w)| {
            d | (u64::from_le_bytes(src.try_into().expect("8 bytes")) ^ w ^ k)
        })
    }
}

/// Word `i` of `bytes`, little-endian.
#[inline(always)]
pub(super) fn word(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
}
