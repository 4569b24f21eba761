//! The time left of a step, on the drive's clock (a simulated drive's virtual
//! one): an estimate that holds within 20% from the step's first tenth on, or
//! none (tests/it/eta.rs holds it to that on simulated drives, exactly).
//!
//! A step's progress comes in steps of equal bytes; on a rotating drive they do not
//! take equal time: its outer zones move more bytes a second than its inner ones.
//! Each step is weighed by the time a byte takes where it lies ([`RateCurve`]):
//! the curve this run measured of the drive (--zones, or -t's outside, middle and
//! inside), else flat; a pass after the first (a --verify's read half) by the
//! time the first took at each of its steps. What lies ahead goes at the pace of
//! the last tenth of a pass done, so a pass adapts as it reaches slower zones; a
//! pass after the one under way takes as long as the one two before it (a
//! --verify half of its kind), or as this one. Nothing is said before a step's
//! first tenth, during the first of several passes (a write half says nothing of
//! the reading: flash reads faster than it writes, and its cache flush at the
//! half's end is not known before), before a pass's own first tenth, nor in the
//! last second. A step that is not a pass over the drive (its lines of unequal,
//! unknown cost) has no estimate. A rotating drive whose zones this run did not
//! measure may be promised its inner zones too soon early in a single pass (a
//! scan): the pace of its outer zones, where it is now.

/// How fast a drive moves its bytes at each position, from its start (0) to its
/// end (1): points `(position, bytes per second)` in order, read between them in
/// straight lines. Only its shape matters to an estimate (the step's own time
/// gives the scale).
#[derive(Debug, Clone, PartialEq)]
pub struct RateCurve {
    points: Vec<(f64, f64)>,
}

impl RateCurve {
    /// Flat: every position as fast (flash, a drive that does not say it rotates).
    pub fn flat() -> RateCurve {
        RateCurve {
            points: vec![(0.0, 1.0), (1.0, 1.0)],
        }
    }

    /// The curve of measured points `(position, bytes per second)`; None when
    /// fewer than two are usable (a rate of zero, a position outside 0..=1).
    pub fn measured(points: impl IntoIterator<Item = (f64, f64)>) -> Option<RateCurve> {
        let mut points: Vec<(f64, f64)> = points
            .into_iter()
            .filter(|&(p, r)| (0.0..=1.0).contains(&p) && r.is_finite() && r > 0.0)
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        (points.len() >= 2).then_some(RateCurve { points })
    }

    /// The rate at position `p` (0 to 1), between the points in a straight line,
    /// the end points' beyond them.
    fn rate(&self, p: f64) -> f64 {
        let pts = &self.points;
        let i = pts.partition_point(|&(q, _)| q <= p);
        match i {
            0 => pts[0].1,
            i if i == pts.len() => pts[i - 1].1,
            i => {
                let ((p0, r0), (p1, r1)) = (pts[i - 1], pts[i]);
                r0 + (r1 - r0) * (p - p0) / (p1 - p0)
            }
        }
    }
}

/// One step's progress on the drive's clock, and the time left it gives.
#[derive(Debug, Clone)]
pub struct Estimate {
    /// The step's progress steps, and how many make one pass over the drive
    /// (a half of a --verify pass; the step is then several such halves).
    total: usize,
    per_pass: usize,
    /// Each progress step's weight in the first pass: the time a byte takes
    /// where it lies, by the curve.
    weights: Vec<f64>,
    /// When each progress step was first reached, on the drive's clock (the
    /// step's start first).
    reached: Vec<Option<u64>>,
    /// When each pass started: its first step told last (a --verify half is
    /// told at its first step again once the half before it flushed).
    pass_starts: Vec<Option<u64>>,
    /// The progress steps done.
    done: usize,
}

impl Estimate {
    /// A step of `total` progress steps, `per_pass` of them over the whole drive
    /// in order (a --verify half: 100; a scan: its lines; 0: not a pass, no
    /// estimate), started at `now_ns` on the drive's clock, weighed by `curve`.
    pub fn new(total: usize, per_pass: usize, curve: &RateCurve, now_ns: u64) -> Estimate {
        let weights = (0..per_pass)
            .map(|i| 1.0 / curve.rate((i as f64 + 0.5) / per_pass as f64))
            .collect();
        let mut reached = vec![None; total + 1];
        reached[0] = Some(now_ns);
        let mut pass_starts = vec![None; total.div_ceil(per_pass.max(1)).max(1)];
        pass_starts[0] = Some(now_ns);
        Estimate {
            total,
            per_pass,
            weights,
            reached,
            pass_starts,
            done: 0,
        }
    }

    /// Progress step `index` reached at `now_ns` (told again as it moves).
    pub fn tell(&mut self, index: usize, now_ns: u64) {
        let index = index.min(self.total);
        if let Some(r) = self.reached.get_mut(index) {
            r.get_or_insert(now_ns);
        }
        if self.per_pass > 0
            && index.is_multiple_of(self.per_pass)
            && let Some(s) = self.pass_starts.get_mut(index / self.per_pass)
        {
            *s = Some(now_ns);
        }
        self.done = index;
    }

    /// Follow a step's progress in `slot`: step `index` of `total`, `per_pass`
    /// of them a pass over the drive, at `now_ns`; a new estimate from here when
    /// its steps are others than before (a test's announcement of one line, then
    /// its pass's hundreds of steps).
    pub fn follow(
        slot: &mut Option<Estimate>,
        (index, total, per_pass): (usize, usize, usize),
        curve: &RateCurve,
        now_ns: u64,
    ) {
        if slot.as_ref().is_none_or(|e| e.total != total) {
            *slot = Some(Estimate::new(total, per_pass, curve, now_ns));
        }
        if let Some(e) = slot {
            e.tell(index, now_ns);
        }
    }

    /// The time a step of the pass takes where it lies, as a share: the first
    /// pass's own time at each of its steps once it is done (the drive's real
    /// curve, as this step's requests see it), the curve's weights before.
    fn shape(&self) -> Vec<f64> {
        let n = self.per_pass;
        if self.done <= n {
            return self.weights.clone();
        }
        // Steps told together (a block of several) share their time evenly.
        let mut first = vec![0.0; n];
        let mut last = (0, self.reached[0].unwrap_or(0));
        for k in 1..=n {
            if let Some(t) = self.reached[k] {
                let each = t.saturating_sub(last.1) as f64 / (k - last.0) as f64;
                first[last.0..k].fill(each);
                last = (k, t);
            }
        }
        match first.iter().sum::<f64>() > 0.0 {
            true => first,
            false => self.weights.clone(),
        }
    }

    /// The last step at or before `i`, and no earlier than `floor`, that was
    /// reached, with when.
    fn reached_by(&self, i: usize, floor: usize) -> Option<(usize, u64)> {
        (floor..=i).rev().find_map(|j| Some((j, self.reached[j]?)))
    }

    /// How long pass `p` took, when it is done: from its start to its end.
    fn took(&self, p: usize) -> Option<f64> {
        let end = self
            .reached
            .get((p + 1) * self.per_pass)
            .copied()
            .flatten()?;
        Some(end.saturating_sub(self.pass_starts[p]?) as f64)
    }

    /// Nanoseconds left of the step at `now_ns` on the drive's clock; None for a
    /// step that is not a pass, before its first tenth, in its last second,
    /// during the first of its
    /// passes when it has several (a write half says nothing of how long the
    /// reading will take: flash reads faster than it writes), or when what it has
    /// left by its recent pace has passed (a stall: not known how long it lasts).
    ///
    /// The pace is the drive time per share of the shape over the last tenth of
    /// a pass done (in the pass under way): what lies ahead of this pass takes
    /// its shape's share at that pace; each pass after it as long as the one two
    /// before it (a --verify pass's half of the same kind) took, else as this one
    /// will have taken in all.
    pub fn left_ns(&self, now_ns: u64) -> Option<u64> {
        let (n, d) = (self.per_pass, self.done);
        let first_of_several = self.total > n && d < n;
        let window = (n / 10).max(1);
        // A tenth of the pass under way done: its own pace is known.
        if n == 0 || d * 10 < self.total || d >= self.total || first_of_several || d % n < window {
            return None;
        }
        let shape = self.shape();
        let (pass, at) = (d / n, d % n);
        // The pace: over the last tenth of a pass of this pass.
        let start = pass * n;
        let started = self.pass_starts[pass]?;
        let (j, t0) = match self.reached_by(start + at - window, start) {
            Some((j, _)) if j == start => (start, started),
            Some(found) => found,
            None => (start, started),
        };
        let (from, spent) = (j - start, self.reached[d]?.saturating_sub(t0) as f64);
        let weight: f64 = shape[from..at].iter().sum();
        if weight <= 0.0 || spent <= 0.0 {
            return None;
        }
        let pace = spent / weight;
        // This pass's rest at the pace; each pass after it as long as this one
        // will have taken in all (it covers every position, fast and slow).
        let rest = pace * shape[at..].iter().sum::<f64>();
        let this_pass = self.reached[d]?.saturating_sub(self.pass_starts[pass]?) as f64 + rest;
        let after: f64 = (pass + 1..self.total.div_ceil(n))
            .map(|p| {
                p.checked_sub(2)
                    .and_then(|q| self.took(q))
                    .unwrap_or(this_pass)
            })
            .sum();
        let since = now_ns.saturating_sub(self.reached[d]?) as f64;
        let left = rest + after - since;
        // In its last second nothing is said (too soon for a pace to hold).
        (left >= 1e9).then_some(left as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_is_weighed_by_where_its_bytes_lie() {
        // A drive twice as fast outside as inside, in a straight line.
        let curve = RateCurve::measured([(0.0, 200.0), (1.0, 100.0)]).unwrap();
        // Time over a byte at p: 1 / (200 - 100 p), in ns (scaled by 1e13).
        let time = |a: f64, b: f64| ((200.0 - 100.0 * a) / (200.0 - 100.0 * b)).ln() / 100.0 * 1e13;
        let mut e = Estimate::new(100, 100, &curve, 0);
        // Before its first tenth: nothing said.
        e.tell(5, time(0.0, 0.05) as u64);
        assert_eq!(e.left_ns(time(0.0, 0.05) as u64), None);
        // Half the pass done, as the drive took it: the rest as it will.
        for i in 1..=50 {
            e.tell(i, time(0.0, i as f64 / 100.0) as u64);
        }
        let now = time(0.0, 0.5) as u64;
        let left = e.left_ns(now).unwrap() as f64;
        assert!((left / time(0.5, 1.0) - 1.0).abs() < 0.01, "{left}");
        // What it has left goes as the time passes; past it, nothing is said.
        let later = e.left_ns(now + 1_000_000).unwrap() as f64;
        assert!((left - later - 1e6).abs() < 2.0, "{left} {later}");
        assert_eq!(e.left_ns(now + left as u64 + 1), None);
        // Two passes (a --verify's halves): nothing said in the first; in the
        // second, its rest at its own pace.
        const S: u64 = 1_000_000_000;
        let mut f = Estimate::new(200, 100, &RateCurve::flat(), S);
        for i in 1..=100 {
            f.tell(i, S + 5 * S * i as u64);
        }
        f.tell(100, 600 * S);
        assert_eq!(f.left_ns(600 * S), None);
        for i in 101..=150 {
            f.tell(i, 600 * S + 2 * S * (i as u64 - 100));
        }
        assert_eq!(f.left_ns(700 * S), Some(100 * S));
        // In its last second: nothing said.
        assert_eq!(f.left_ns(799 * S + 1), None);
        // Not a pass: never.
        let mut n = Estimate::new(10, 0, &RateCurve::flat(), 0);
        n.tell(5, 50);
        assert_eq!(n.left_ns(100), None);
    }

    #[test]
    fn a_curve_needs_two_usable_points() {
        assert!(RateCurve::measured([(0.5, 1.0)]).is_none());
        assert!(RateCurve::measured([(0.5, 1.0), (2.0, 1.0), (0.7, 0.0)]).is_none());
        assert!(RateCurve::measured([(0.5, 1.0), (0.7, 2.0)]).is_some());
    }
}
