//! Summaries of latency samples: exact from the samples when they are kept, and a
//! bounded log-linear histogram for runs with millions of operations.

use crate::results::stats::{Histogram, Summary};

/// The nearest-rank percentile `q` (0..=1) of sorted samples.
fn rank(sorted_len: u64, q: f64) -> u64 {
    ((q * sorted_len as f64).ceil() as u64).clamp(1, sorted_len.max(1)) - 1
}

impl Summary {
    /// The exact summary of `samples`; None when there are none.
    pub fn of(samples: &[u64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_unstable();
        let n = s.len() as u64;
        let mean = s.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
        let var = s.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n as f64;
        let p = |q| s[rank(n, q) as usize];
        Some(Summary {
            count: n,
            mean_ns: mean,
            stddev_ns: var.sqrt(),
            min_ns: s[0],
            p50_ns: p(0.5),
            p90_ns: p(0.9),
            p99_ns: p(0.99),
            p999_ns: p(0.999),
            max_ns: s[s.len() - 1],
        })
    }
}

/// Sub-buckets per power of two: values are kept to within 1/64 (1.6%).
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

impl Histogram {
    /// An empty histogram: no buckets allocated, no samples counted.
    pub fn new() -> Self {
        Self::default()
    }

    fn index(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let msb = 63 - v.leading_zeros(); // >= SUB_BITS
        let shift = msb - SUB_BITS;
        let sub = (v >> shift) - SUB; // 0..SUB
        ((u64::from(shift) + 1) * SUB + sub) as usize
    }

    /// The smallest value that falls in bucket `i`.
    pub fn bucket_low(i: usize) -> u64 {
        let i = i as u64;
        if i < SUB {
            return i;
        }
        let shift = i / SUB - 1;
        (SUB + i % SUB) << shift
    }

    /// Add one sample.
    pub fn record(&mut self, v: u64) {
        let i = Self::index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        if self.count == 0 || v < self.min_ns {
            self.min_ns = v;
        }
        self.max_ns = self.max_ns.max(v);
        self.count += 1;
        self.sum_ns += u128::from(v);
        self.sum_sq_ns += (v as f64) * (v as f64);
    }

    /// Add every sample of `other`.
    pub fn merge(&mut self, other: &Histogram) {
        if other.count == 0 {
            return;
        }
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.min_ns = if self.count == 0 {
            other.min_ns
        } else {
            self.min_ns.min(other.min_ns)
        };
        self.max_ns = self.max_ns.max(other.max_ns);
        self.count += other.count;
        self.sum_ns += other.sum_ns;
        self.sum_sq_ns += other.sum_sq_ns;
    }

    /// The value at quantile `q`: the middle of the bucket holding the nearest-rank
    /// sample, clamped to the exact minimum and maximum.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let target = rank(self.count, q) + 1;
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= target {
                let lo = Self::bucket_low(i);
                let hi = Self::bucket_low(i + 1);
                return (lo + (hi - lo) / 2).clamp(self.min_ns, self.max_ns);
            }
        }
        self.max_ns
    }

    /// The summary; percentiles are within 1.6% of the exact ones.
    pub fn summary(&self) -> Option<Summary> {
        if self.count == 0 {
            return None;
        }
        let n = self.count as f64;
        let mean = self.sum_ns as f64 / n;
        let var = (self.sum_sq_ns / n - mean * mean).max(0.0);
        Some(Summary {
            count: self.count,
            mean_ns: mean,
            stddev_ns: var.sqrt(),
            min_ns: self.min_ns,
            p50_ns: self.quantile(0.5),
            p90_ns: self.quantile(0.9),
            p99_ns: self.quantile(0.99),
            p999_ns: self.quantile(0.999),
            max_ns: self.max_ns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_summary_of_known_samples() {
        let s = Summary::of(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]).unwrap();
        assert_eq!(
            (s.min_ns, s.p50_ns, s.p90_ns, s.p99_ns, s.max_ns),
            (1, 5, 9, 10, 10)
        );
        assert_eq!(s.mean_ns, 5.5);
        assert!((s.stddev_ns - 2.8722813).abs() < 1e-6);
        assert!(Summary::of(&[]).is_none());
    }

    proptest! {
        #[test]
        fn buckets_hold_their_values_within_1_6_percent(v in 0u64..u64::MAX / 2) {
            let i = Histogram::index(v);
            let lo = Histogram::bucket_low(i);
            let hi = Histogram::bucket_low(i + 1);
            prop_assert!(lo <= v && v < hi, "{} in [{}, {})", v, lo, hi);
            prop_assert!((hi - lo) as f64 <= (lo as f64 / 64.0).max(1.0));
        }

        #[test]
        fn histogram_percentiles_agree_with_exact_ones(
            samples in proptest::collection::vec(1u64..50_000_000, 1..2000)
        ) {
            let mut h = Histogram::new();
            for &s in &samples {
                h.record(s);
            }
            let exact = Summary::of(&samples).unwrap();
            let approx = h.summary().unwrap();
            prop_assert_eq!(approx.count, exact.count);
            prop_assert_eq!(approx.min_ns, exact.min_ns);
            prop_assert_eq!(approx.max_ns, exact.max_ns);
            prop_assert!((approx.mean_ns - exact.mean_ns).abs() <= exact.mean_ns * 1e-9);
            for (a, e) in [(approx.p50_ns, exact.p50_ns), (approx.p99_ns, exact.p99_ns)] {
                prop_assert!((a as f64 - e as f64).abs() <= e as f64 / 64.0 + 1.0, "{} vs {}", a, e);
            }
        }
    }

    #[test]
    fn merging_equals_recording_everything() {
        let (mut a, mut b, mut all) = (Histogram::new(), Histogram::new(), Histogram::new());
        for v in 0..5000u64 {
            let x = v * v % 100_003;
            if v % 2 == 0 {
                a.record(x)
            } else {
                b.record(x)
            }
            all.record(x);
        }
        a.merge(&b);
        assert_eq!(a, all);
    }
}
