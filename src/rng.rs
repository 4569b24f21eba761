//! The one seeded random generator of seekprobe, shared by every random stream: the
//! offsets of `-i` and `-S`, the pairs of `--seek-profile` and the simulated drive's
//! platter angle and jitter.
//!
//! The generator is PCG XSL-RR 128/64 in its multiplicative form (`Pcg64Mcg` of the
//! `rand_pcg` crate; O'Neill, "PCG: A family of simple fast space-efficient
//! statistically good algorithms for random number generation", 2014): a named
//! algorithm whose output is fixed by its definition, unlike `rand`'s `StdRng`, which
//! may change between releases. A `u64` seed becomes its 128-bit state through
//! `rand_core`'s `SeedableRng::seed_from_u64` (a PCG32 expansion, which spreads
//! neighbouring seeds such as 0, 1, 2 over unrelated states; changing it is a
//! value-breaking change for `rand_core`). Ranges are sampled with
//! [`rand::distr::Uniform`] (Lemire's widening multiply with rejection: exactly
//! uniform), fractions with `rand`'s `StandardUniform` (53 random bits, in [0, 1)).
//! A test pins the first outputs, so a release of these crates that changed them
//! would be caught.
//!
//! # Sub-streams
//!
//! A run has one seed (`--seed`, or `seed=` of a simulated drive) and several
//! independent streams: one per request size of `-i` and `-S`, one per request of
//! such a stream, the jitter and the serial number of a simulated drive.
//! [`derive()`]`(seed, index)` is the seed of sub-stream `index`: the first output of
//! [`seeded`]`(seed)` plus `index` (wrapping). Because [`seeded`] spreads neighbouring
//! seeds, the sub-streams `0, 1, 2, …` of a seed are unrelated to each other and to
//! those of any other seed.

use rand::distr::{Distribution, Uniform};
use rand::{Rng as _, RngExt, SeedableRng};

/// The generator: PCG XSL-RR 128/64 (MCG), see the module documentation.
pub type Rng = rand_pcg::Pcg64Mcg;

/// The generator for `seed` (the same outputs on every platform and every run).
pub fn seeded(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// The seed of sub-stream `index` of `seed` (see the module documentation).
pub fn derive(seed: u64, index: u64) -> u64 {
    seeded(seed).next_u64().wrapping_add(index)
}

/// A number uniform in `[0, n)`, exactly (no modulo bias); 0 when `n` is 0.
pub fn below(rng: &mut Rng, n: u64) -> u64 {
    match Uniform::new(0, n) {
        Ok(u) => u.sample(rng),
        Err(_) => 0,
    }
}

/// A fraction uniform in `[0, 1)`.
pub fn unit(rng: &mut Rng) -> f64 {
    rng.random()
}

/// A fair coin: true or false with equal odds, from `rng`'s stream.
pub fn coin(rng: &mut Rng) -> bool {
    rng.random()
}

/// A seed for a run that names none, from the operating system's entropy (through
/// `rand`'s thread-local generator).
pub fn fresh_seed() -> u64 {
    rand::random()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_pinned() {
        // Every recorded seed's offsets, seek pairs and simulated figures depend on
        // these outputs: a change here is a change of every stream.
        let mut g = seeded(0);
        let got: Vec<u64> = (0..3).map(|_| g.next_u64()).collect();
        assert_eq!(got, PINNED_SEED_0);
        assert_eq!(derive(1, 0), PINNED_DERIVE_1);
        assert_eq!(derive(1, 5), PINNED_DERIVE_1.wrapping_add(5));
    }

    // Computed independently (a few lines of Python following the definitions of
    // rand_core's PCG32 seed expansion and of PCG XSL-RR 128/64 MCG).
    const PINNED_SEED_0: [u64; 3] = [
        0x5603_f242_407d_eca2,
        0xd684_5f75_e9e2_1acd,
        0x5a22_d8b7_6f39_f418,
    ];
    const PINNED_DERIVE_1: u64 = 0xdb51_d062_deef_2483;

    #[test]
    fn neighbouring_seeds_give_unrelated_streams() {
        let firsts: Vec<u64> = (0..64).map(|s| seeded(s).next_u64()).collect();
        for (i, a) in firsts.iter().enumerate() {
            for b in &firsts[i + 1..] {
                // Unrelated 64-bit numbers differ in about 32 bits.
                let d = (a ^ b).count_ones();
                assert!((12..=52).contains(&d), "{a:#x} {b:#x}: {d} bits");
            }
        }
    }

    #[test]
    fn below_is_inside_and_uniform() {
        let mut g = seeded(3);
        assert_eq!(below(&mut g, 0), 0);
        assert_eq!(below(&mut g, 1), 0);
        let mut bins = [0u32; 10];
        for _ in 0..100_000 {
            let x = below(&mut g, 10);
            bins[x as usize] += 1;
        }
        for b in bins {
            assert!((9_400..=10_600).contains(&b), "{bins:?}");
        }
        let big = u64::MAX - 7;
        assert!((0..10_000).all(|_| below(&mut g, big) < big));
        assert!((0..10_000).all(|_| (0.0..1.0).contains(&unit(&mut g))));
    }
}
