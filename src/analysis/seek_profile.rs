//! The seek figures of `--seek-profile`, each at its distance and with its
//! uncertainty (docs/methods.md, "Seek profile"). A timed read's access time is
//! the seek, the drive's overheads and a rotational wait uniform over one
//! revolution; the estimators take the wait out from both ends of the
//! distribution instead of averaging it.

use crate::results::{SeekCurveFit, SeekFigure, SeekFloor, SeekSamples, SeekSet};
use crate::test_plans::seek_profile::{self, RadialMap};

/// The relative uncertainty of the revolution measured from the spread (the 1st and
/// 99th percentiles of about 500 waits each move by about 0.45% of it).
pub const REVOLUTION_UNCERTAINTY: f64 = 0.0045;

/// Fewer timed reads than this at a distance: its figure is read from the curve.
pub const MIN_DIRECT: usize = 20;

/// The seek (with the overheads) under access times `lat` whose rotational wait is
/// uniform over `rev` ns: the `k`-th lowest less `rev * k / (n + 1)` and the `k`-th
/// highest less `rev * (n + 1 - k) / (n + 1)` (their expected waits), averaged.
/// Noise that spreads the seek evenly both ways (jitter) cancels; `k = 1 + n / 100`
/// keeps a stray slow read out. The uncertainty adds the two order statistics'
/// spread, half the revolution's and half the gap between the two ends.
pub fn both_ends(lat: &[u64], rev: f64) -> Option<(f64, f64)> {
    both_ends_k(lat, rev, 1 + lat.len() / 100)
}

/// [`both_ends`] from the `k`-th lowest and highest.
pub fn both_ends_k(lat: &[u64], rev: f64, k: usize) -> Option<(f64, f64)> {
    if lat.len() < MIN_DIRECT || k == 0 || 2 * k > lat.len() {
        return None;
    }
    let mut v: Vec<f64> = lat.iter().map(|&x| x as f64).collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let n1 = (n + 1) as f64;
    let lo = v[k - 1] - rev * k as f64 / n1;
    let hi = v[n - k] - rev * (n + 1 - k) as f64 / n1;
    let os = rev * (k as f64 / 2.0).sqrt() / n as f64;
    let unc =
        (os.powi(2) + (rev * REVOLUTION_UNCERTAINTY / 2.0).powi(2) + ((hi - lo) / 2.0).powi(2))
            .sqrt();
    Some(((lo + hi) / 2.0, unc))
}

/// At each place of the track hops, the longest wait of each hop length (the one
/// that stayed on its track) and the hop: `[(d1, w1), (d2, w2)]`, in sectors and ns.
fn hops_at_places(t: &SeekSet) -> Option<Vec<[(f64, f64); 2]>> {
    let hops = seek_profile::TRACK_HOPS_BYTES.len();
    let reps = seek_profile::TRACK_REPEATS as usize;
    let places = seek_profile::TRACK_POSITIONS as usize;
    if t.latencies_ns.len() != hops * reps * places || t.from_sectors.len() != t.latencies_ns.len()
    {
        return None;
    }
    let per_place = hops * reps;
    Some(
        (0..places)
            .map(|i| {
                let at = |j: usize| -> (f64, f64) {
                    let idx = (0..reps).map(|r| i * per_place + r * hops + j);
                    let d = idx
                        .clone()
                        .map(|x| t.from_sectors[x].saturating_sub(t.to_sectors[x]))
                        .max();
                    let w = idx.map(|x| t.latencies_ns[x]).max();
                    (d.unwrap_or(0) as f64, w.unwrap_or(0) as f64)
                };
                [at(0), at(1)]
            })
            .collect(),
    )
}

/// The revolution from the track hops: on the same track a hop of `d` waits
/// `rev * (1 - d / track)`, so two hops give `rev = (w1 * d2 - w2 * d1) / (d2 - d1)`
/// with no seek or overhead in it; the median over the places. None unless three
/// quarters of the places give one and their middle half agrees within 1%.
pub fn revolution_from_hops(t: &SeekSet) -> Option<f64> {
    let mut revs: Vec<f64> = hops_at_places(t)?
        .iter()
        .filter(|[(_, w1), (_, w2)]| w1 > w2 && *w2 > 0.0)
        .map(|[(d1, w1), (d2, w2)]| (w1 * d2 - w2 * d1) / (d2 - d1))
        .collect();
    if revs.len() * 4 < seek_profile::TRACK_POSITIONS as usize * 3 {
        return None;
    }
    revs.sort_by(f64::total_cmp);
    let q = |p: f64| revs[((revs.len() - 1) as f64 * p).round() as usize];
    let mid = q(0.5);
    (q(0.75) - q(0.25) < 0.01 * mid).then_some(mid)
}

/// The track map from the track hops: at each place the longest wait of each hop
/// length (the one that stayed on its track), the track capacity
/// `rev * (d2 - d1) / (wait1 - wait2)`, a median of five neighbouring places.
/// None without a revolution or when more than a quarter of the places disagree.
pub fn track_map(t: &SeekSet, sectors: u64, rev: f64) -> Option<RadialMap> {
    let places = seek_profile::TRACK_POSITIONS as usize;
    let mut tracks: Vec<Option<f64>> = hops_at_places(t)?
        .iter()
        .map(|&[(d1, w1), (d2, w2)]| {
            let track = rev * (d2 - d1) / (w1 - w2);
            (w1 > w2 && w1 < rev * 1.02 && track > d2).then_some(track)
        })
        .collect();
    if tracks.iter().filter(|t| t.is_none()).count() * 4 > places {
        return None;
    }
    // A place that disagreed takes its neighbour's value.
    for i in 0..places {
        if tracks[i].is_none() {
            tracks[i] = tracks[..i]
                .iter()
                .rev()
                .chain(&tracks[i + 1..])
                .find_map(|&t| t);
        }
    }
    let tracks: Vec<f64> = tracks.into_iter().map(|t| t.unwrap_or(1.0)).collect();
    let smooth = (0..places)
        .map(|i| {
            let mut w: Vec<f64> = tracks[i.saturating_sub(2)..(i + 3).min(places)].to_vec();
            w.sort_by(f64::total_cmp);
            w[w.len() / 2]
        })
        .collect();
    RadialMap::new(sectors, smooth)
}

/// How many of its spreads (`rev / (n + 1)`) a hop class's floor may lie below the
/// seek's floor and still join the seeks. A class that mixes head switches with
/// seeks has a floor only a few spreads lower (its head switches are few, so their
/// lowest waits longer than `rev / (n + 1)`): joining it pulls track-to-track down
/// by half the head switch's difference, while leaving out a class of seeks only
/// reads the figure from hops a cylinder or two longer, a few microseconds more.
/// So the bar is high: 1.5 (at 3, `sim:hdd5400` runs read −12%).
pub const JOIN_SPREADS: f64 = 1.5;

/// The track-to-track seek and the head switch (when seen), or why none.
pub type FittedCurve = Result<(SeekFigure, Option<SeekFigure>), String>;

/// The floors of the hop classes (1–2, 2–4 … 32–64 tracks) and the figures read
/// from them. A class's floor is its lowest access less the expected lowest wait
/// (`rev / (n + 1)`). The lower of the two longest classes' floors (16 to 64
/// tracks: more than a cylinder on a drive of up to 16 heads) is the seek's;
/// going down, a class whose floor is not more than [`JOIN_SPREADS`] of its
/// spreads below it joins the seeks, and the first that is lower holds head
/// switches: its floor is the head switch. The track-to-track seek is the mean of the two shortest joined
/// classes' seeks, each estimated from both ends ([`both_ends`] with `k = 1`): a
/// seek of one cylinder or two, which the square root makes nearly equal. Or why none.
pub fn floors(adj: &SeekSet, map: &RadialMap, rev: f64) -> (Vec<SeekFloor>, FittedCurve) {
    let n_classes = seek_profile::FLOOR_CLASSES as usize;
    let mut classes: Vec<Vec<u64>> = vec![Vec::new(); n_classes];
    for ((&f, &t), &l) in adj
        .from_sectors
        .iter()
        .zip(&adj.to_sectors)
        .zip(&adj.latencies_ns)
    {
        let tracks = f.abs_diff(t) as f64 / map.track_at(t);
        let c = tracks.log2().floor();
        if (0.0..n_classes as f64).contains(&c) {
            classes[c as usize].push(l);
        }
    }
    let lowest = |lat: &[u64]| -> (f64, f64) {
        let min = lat.iter().min().copied().unwrap_or(0) as f64;
        let n1 = (lat.len() + 1) as f64;
        (min - rev / n1, rev / n1)
    };
    let out: Vec<SeekFloor> = classes
        .iter()
        .enumerate()
        .filter(|(_, lat)| lat.len() >= MIN_DIRECT)
        .map(|(c, lat)| SeekFloor {
            from_tracks: 2f64.powi(c as i32),
            to_tracks: 2f64.powi(c as i32 + 1),
            samples: lat.len() as u32,
            floor_ns: lowest(lat).0,
            both_ends_ns: both_ends_k(lat, rev, 1).map_or(0.0, |b| b.0),
        })
        .collect();
    if out.len() < n_classes {
        return (out, Err("too few hops of 1 to 64 tracks".into()));
    }
    let plateau = out[n_classes - 2].floor_ns.min(out[n_classes - 1].floor_ns);
    let mut first = n_classes - 2;
    let mut head = None;
    for c in (0..n_classes - 2).rev() {
        let (fl, sd) = lowest(&classes[c]);
        if fl >= plateau - JOIN_SPREADS * sd {
            first = c;
        } else {
            head = Some(SeekFigure::new(fl, sd, classes[c].len() as u32, false));
            break;
        }
    }
    let (Some((a, ua)), Some((b, ub))) = (
        both_ends_k(&classes[first], rev, 1),
        both_ends_k(&classes[first + 1], rev, 1),
    ) else {
        return (out, Err("too few hops of 1 to 64 tracks".into()));
    };
    let unc = ((ua.powi(2) + ub.powi(2)) / 4.0 + ((a - b) / 2.0).powi(2)).sqrt();
    let n = (classes[first].len() + classes[first + 1].len()) as u32;
    (
        out,
        Ok((SeekFigure::new((a + b) / 2.0, unc, n, false), head)),
    )
}

/// The lowest access times of the zero-distance reads that the fixed cost's step
/// is measured from.
pub const FIXED_COST_LOWEST: usize = 4;

/// The fixed cost of a read that misses the cache, from the zero-distance reads
/// (`SeekSamples::zero`, planned by `seek_profile::zero_distance`): their angles
/// step evenly through a window round the floor, so a read whose sector comes
/// round before the fixed cost `c` is spent waits a whole revolution more and the
/// others wait their angle: the access times below half a revolution (`rev`)
/// start at the floor and climb a step `g` apart. The lowest, `L(1)`, is `c + a·g`
/// with `a` in `[0, 1)`; the estimate is `L(1) − g/2`, `g` measured as the mean
/// gap of the [`FIXED_COST_LOWEST`] lowest. Its uncertainty is `g/√12` and `g/2`
/// more (if a real host's pauses scatter the angles at random, the lowest lies a
/// step above the floor on average). None with fewer than [`MIN_DIRECT`] reads or
/// unless the window held the floor: as many reads waited a revolution more as
/// did not, within a factor of ten.
pub fn fixed_cost(zero: &SeekSet, rev: f64) -> Option<SeekFigure> {
    let n = zero.latencies_ns.len();
    if n < MIN_DIRECT {
        return None;
    }
    let mut low: Vec<f64> = (zero.latencies_ns.iter().map(|&x| x as f64))
        .filter(|&x| x < rev / 2.0)
        .collect();
    let m = FIXED_COST_LOWEST;
    if low.len() < m || (n - low.len()) * 10 < low.len() || low.len() * 10 < n - low.len() {
        return None;
    }
    low.sort_by(f64::total_cmp);
    let g = (low[m - 1] - low[0]) / (m - 1) as f64;
    let unc = g * (1.0 / 12.0 + 0.25f64).sqrt();
    Some(SeekFigure::new(low[0] - g / 2.0, unc, n as u32, false))
}

/// `f` less the fixed cost `c`, their uncertainties added in quadrature.
fn less(f: SeekFigure, c: &SeekFigure) -> SeekFigure {
    SeekFigure::new(
        f.value_ns - c.value_ns,
        f.uncertainty_ns.hypot(c.uncertainty_ns),
        f.samples,
        f.from_curve,
    )
}

/// Every timed read but the track hops as (fraction of the stroke, access time less
/// half a revolution), the fraction on the map when there is one.
fn points(s: &SeekSamples, map: Option<&RadialMap>, rev: f64) -> Vec<(f64, f64)> {
    let frac = |x: u64| match map {
        Some(m) => m.fraction(x),
        None => x as f64 / s.sectors.max(1) as f64,
    };
    let mut pts = Vec::new();
    if s.from_sectors.len() == s.latencies_ns.len() {
        for ((&f, &t), &l) in s
            .from_sectors
            .iter()
            .zip(&s.positions_sectors)
            .zip(&s.latencies_ns)
        {
            pts.push(((frac(f) - frac(t)).abs(), l as f64 - rev / 2.0));
        }
    }
    for set in [&s.full_stroke, &s.third, &s.adjacent] {
        for ((&f, &t), &l) in set
            .from_sectors
            .iter()
            .zip(&set.to_sectors)
            .zip(&set.latencies_ns)
        {
            pts.push(((frac(f) - frac(t)).abs(), l as f64 - rev / 2.0));
        }
    }
    pts
}

/// The square-root-then-linear curve through the points, least squares for each
/// knee from 2% to 98% of the stroke; None with fewer than 20 points.
pub fn fit_curve(pts: &[(f64, f64)], radial: bool) -> Option<SeekCurveFit> {
    if pts.len() < MIN_DIRECT {
        return None;
    }
    let mut best: Option<(f64, SeekCurveFit)> = None;
    for step in 1..50 {
        let k = f64::from(step) * 0.02;
        let basis = |f: f64| [1.0, f.min(k).sqrt(), (f - k).max(0.0)];
        let mut a = [[0.0f64; 3]; 3];
        let mut b = [0.0f64; 3];
        for &(f, y) in pts {
            let x = basis(f);
            for r in 0..3 {
                b[r] += x[r] * y;
                for c in 0..3 {
                    a[r][c] += x[r] * x[c];
                }
            }
        }
        let Some(p) = solve3(a, b) else { continue };
        let fit = SeekCurveFit {
            min_ns: p[0],
            sqrt_ns: p[1],
            knee_fraction: k,
            linear_ns_per_stroke: p[2],
            rms_ns: 0.0,
            radial,
        };
        let sse: f64 = pts.iter().map(|&(f, y)| (y - fit.at(f)).powi(2)).sum();
        if best.as_ref().is_none_or(|(e, _)| sse < *e) {
            best = Some((
                sse,
                SeekCurveFit {
                    rms_ns: (sse / pts.len() as f64).sqrt(),
                    ..fit
                },
            ));
        }
    }
    best.map(|(_, f)| f)
}

/// Gaussian elimination with partial pivoting; None when singular.
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for c in 0..3 {
        let p = (c..3).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        b.swap(c, p);
        for r in c + 1..3 {
            let m = a[r][c] / a[c][c];
            let pivot = a[c];
            for (x, p) in a[r].iter_mut().zip(pivot).skip(c) {
                *x -= m * p;
            }
            b[r] -= m * b[c];
        }
    }
    let mut x = [0.0; 3];
    for r in (0..3).rev() {
        let s: f64 = (r + 1..3).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}

/// The figures of a seek profile whose revolution is `rev` ns.
#[derive(Debug, Clone, Default)]
pub struct Figures {
    /// To the adjacent cylinder.
    pub track_to_track: Option<SeekFigure>,
    /// A head switch.
    pub head_switch: Option<SeekFigure>,
    /// Why there is no track-to-track figure.
    pub track_to_track_missing: Option<String>,
    /// The fixed cost of a read that misses the cache, taken out of the others.
    pub fixed_cost: Option<SeekFigure>,
    /// Across a third of the stroke.
    pub average: Option<SeekFigure>,
    /// Across the whole stroke.
    pub full_stroke: Option<SeekFigure>,
    /// The floors of the hop classes.
    pub floors: Vec<SeekFloor>,
    /// The fitted curve.
    pub curve: Option<SeekCurveFit>,
    /// The measured track capacity: (sector, sectors per track).
    pub track_sectors: Vec<(u64, f64)>,
    /// The random-distance samples' distances as fractions of the stroke, in their order.
    pub profile_fractions: Vec<f64>,
}

/// A figure read from the curve at `f` of the stroke: its uncertainty is the
/// residuals' spread over the points near `f` (within a tenth of the stroke).
fn from_curve(c: &SeekCurveFit, pts: &[(f64, f64)], f: f64) -> SeekFigure {
    let near = pts.iter().filter(|p| (p.0 - f).abs() < 0.1).count().max(1);
    SeekFigure::new(c.at(f), c.rms_ns / (near as f64).sqrt(), near as u32, true)
}

/// Every seek figure of the samples, with a measured revolution of `rev` ns.
pub fn figures(s: &SeekSamples, rev: f64) -> Figures {
    let map = track_map(&s.tracks, s.sectors, rev);
    let pts = points(s, map.as_ref(), rev);
    let curve = fit_curve(&pts, map.is_some());
    let direct = |set: &SeekSet| {
        both_ends(&set.latencies_ns, rev)
            .map(|(v, u)| SeekFigure::new(v, u, set.latencies_ns.len() as u32, false))
    };
    let by_curve = |f: f64| curve.as_ref().map(|c| from_curve(c, &pts, f));
    let frac = |x: u64| match &map {
        Some(m) => m.fraction(x),
        None => x as f64 / s.sectors.max(1) as f64,
    };
    let profile_fractions = if s.from_sectors.len() == s.latencies_ns.len() {
        (s.from_sectors.iter().zip(&s.positions_sectors))
            .map(|(&f, &t)| (frac(f) - frac(t)).abs())
            .collect()
    } else {
        Vec::new()
    };
    let mut out = Figures {
        profile_fractions,
        full_stroke: direct(&s.full_stroke).or_else(|| by_curve(1.0)),
        average: direct(&s.third).or_else(|| by_curve(1.0 / 3.0)),
        curve,
        ..Figures::default()
    };
    match &map {
        Some(m) => {
            let (floors, found) = floors(&s.adjacent, m, rev);
            out.floors = floors;
            match found {
                Ok((t2t, hs)) => {
                    out.track_to_track = Some(t2t);
                    out.head_switch = hs;
                }
                Err(why) => out.track_to_track_missing = Some(why),
            }
            let band = s.sectors / m.track_sectors.len() as u64;
            out.track_sectors = (0..m.track_sectors.len() as u64)
                .map(|i| (i * band + band / 2, m.track_sectors[i as usize]))
                .collect();
        }
        None => {
            out.track_to_track_missing = Some(
                "the track capacity could not be measured (the short backward hops did not wait \
                 as a rotating disk's do), so no hop is known to reach the adjacent cylinder"
                    .into(),
            );
        }
    }
    out.fixed_cost = fixed_cost(&s.zero, rev);
    if let Some(c) = &out.fixed_cost {
        for f in [
            &mut out.track_to_track,
            &mut out.head_switch,
            &mut out.average,
            &mut out.full_stroke,
        ] {
            *f = f.take().map(|f| less(f, c));
        }
    }
    out
}

/// The revolution of the samples: the spread of the rotation samples says whether
/// the drive rotates (their waits spread evenly over a revolution) and gives it
/// within about 1%; the track hops, when they agree with it within 5%, give it
/// more exactly.
pub fn revolution(s: &SeekSamples) -> Option<f64> {
    let spread = super::revolution_from_spread(&s.rotation_latencies_ns)?;
    Some(
        revolution_from_hops(&s.tracks)
            .filter(|h| (h / spread - 1.0).abs() < 0.05)
            .unwrap_or(spread),
    )
}

/// The track map of saved samples, with their revolution.
pub fn radial_map(s: &SeekSamples) -> Option<RadialMap> {
    track_map(&s.tracks, s.sectors, revolution(s)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_ends_remove_a_uniform_wait() {
        let rev = 8_333_333.0;
        let lat: Vec<u64> = (0..200)
            .map(|i| 3_000_000 + (rev * (i as f64 + 0.5) / 200.0) as u64)
            .collect();
        let (v, u) = both_ends(&lat, rev).unwrap();
        assert!((v - 3e6).abs() < 30e3, "{v}");
        assert!(u < 100e3, "{u}");
        assert_eq!(both_ends(&lat[..10], rev), None);
    }

    #[test]
    fn the_fixed_cost_is_the_floor_where_the_stepped_waits_wrap() {
        // Angles stepping 20 µs from 0.5 ms behind the head: those that come round
        // before the 0.17 ms cost is spent wait a revolution more.
        let (rev, c) = (8_333_333.0, 170_000.0);
        let lat: Vec<u64> = (0..100)
            .map(|i| {
                let ahead = -500_000.0 + 20_000.0 * (f64::from(i) + 0.5);
                (if ahead < c { ahead + rev } else { ahead }) as u64
            })
            .collect();
        let set = |lat: Vec<u64>| SeekSet {
            from_sectors: vec![0; lat.len()],
            to_sectors: vec![0; lat.len()],
            latencies_ns: lat,
        };
        let f = fixed_cost(&set(lat.clone()), rev).unwrap();
        assert!((f.value_ns - c).abs() <= 10_000.0, "{f:?}");
        assert!(
            f.uncertainty_ns > 5_000.0 && f.uncertainty_ns < 12_000.0,
            "{f:?}"
        );
        // A window that missed the floor (every read waited a revolution more) or
        // too few reads: no figure.
        let wrapped: Vec<u64> = lat.iter().map(|&x| x.max(rev as u64)).collect();
        assert_eq!(fixed_cost(&set(wrapped), rev), None);
        assert_eq!(fixed_cost(&set(lat[..10].to_vec()), rev), None);
    }

    #[test]
    fn the_curve_fit_finds_a_square_root_then_a_line() {
        let truth = SeekCurveFit {
            min_ns: 1e6,
            sqrt_ns: 8e6,
            knee_fraction: 0.3,
            linear_ns_per_stroke: 9e6,
            rms_ns: 0.0,
            radial: true,
        };
        let pts: Vec<(f64, f64)> = (1..400)
            .map(|i| {
                let f = f64::from(i) / 400.0;
                (f, truth.at(f))
            })
            .collect();
        let c = fit_curve(&pts, true).unwrap();
        for f in [0.01, 0.2, 1.0 / 3.0, 0.7, 1.0] {
            assert!((c.at(f) / truth.at(f) - 1.0).abs() < 0.01, "{f}");
        }
    }
}
