//! The page's charts, drawn with plotters' SVG backend: the batch's overlaid zone
//! curves and seek profiles (a colour per drive), and each drive's verify map,
//! scan map, --smr-check write rate and temperatures. No text from a drive goes
//! into an SVG: names and legends are the page's HTML, where they are escaped.

use crate::results::smr::SmrAnalysis;
use crate::results::verify::VerifyResult;
use crate::results::{ScanResult, SeekAnalysis, ZoneCurve};
use plotters::prelude::*;

use super::verdict::TempSample;

/// Width and height of a chart, in CSS pixels (it scales down to the screen).
/// Small, with large text: on a 420-px phone a chart scales to about 0.6 and its
/// labels stay about 10 px high.
const W: u32 = 640;
const H: u32 = 260;

/// A chart colour (plotters' RGB); [`colour`] gives each drive its own.
pub type RGB = RGBColor;

/// The least contrast a line or key must have against the white page: 3:1,
/// WCAG 2.1's success criterion 1.4.11 (non-text contrast) for graphical objects
/// (https://www.w3.org/TR/WCAG21/#non-text-contrast).
pub const MIN_CONTRAST: f64 = 3.0;

/// The colour of drive `i` of `n`: hues spread evenly, alternately darker, each
/// darkened until it has at least [`MIN_CONTRAST`] against white (a lime or a
/// yellow at the lightness of a blue would be 1.5:1).
pub fn colour(i: usize, n: usize) -> RGBColor {
    let h = (i as f64 / n.max(1) as f64 + 0.6).fract();
    let mut l = if i.is_multiple_of(2) { 0.40 } else { 0.50 };
    loop {
        let (r, g, b) = hsl(h, 0.75, l);
        let c = RGBColor(r, g, b);
        if contrast(c, WHITE) >= MIN_CONTRAST + 0.05 || l <= 0.05 {
            return c;
        }
        l -= 0.02;
    }
}

/// The contrast ratio of two colours, (L1 + 0.05) / (L2 + 0.05) of their
/// relative luminances, lighter over darker (WCAG 2.1's definitions of contrast
/// ratio and relative luminance, sRGB; https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio).
pub fn contrast(a: RGBColor, b: RGBColor) -> f64 {
    let lum = |c: RGBColor| {
        let ch = |v: u8| {
            let s = f64::from(v) / 255.0;
            if s <= 0.04045 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * ch(c.0) + 0.7152 * ch(c.1) + 0.0722 * ch(c.2)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// The CSS form of a colour ("#rrggbb").
pub fn css(c: RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

fn hsl(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h * 6.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r), to(g), to(b))
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Draw with `f` on a fresh W x H SVG; the SVG for inline HTML (plotters' XML
/// namespace declaration dropped: HTML needs none), or None when drawing failed.
fn svg(height: u32, f: impl FnOnce(&Area) -> Drawn) -> Option<String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (W, height)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        f(&root).ok()?;
        root.present().ok()?;
    }
    Some(out.replacen(r#" xmlns="http://www.w3.org/2000/svg""#, "", 1))
}

/// One drive's line in an overlay: its colour and whether it failed (drawn
/// beneath the others at the same weight, so a failing drive hides none; the
/// legend and the table say which failed).
pub struct Series<'a, T> {
    /// The drive's data.
    pub data: &'a T,
    /// The drive's colour, the same in every chart and its legend.
    pub colour: RGBColor,
    /// Whether the drive failed.
    pub failed: bool,
}

fn style(s_colour: RGBColor, _failed: bool) -> ShapeStyle {
    s_colour.stroke_width(2)
}

/// The order the lines of an overlay are drawn in: the failing drives first, so
/// that the passing ones are drawn over them and none is hidden by an odd one.
fn failing_first<'s, T>(
    series: impl IntoIterator<Item = &'s Series<'s, T>>,
) -> Vec<&'s Series<'s, T>>
where
    T: 's,
{
    let mut v: Vec<_> = series.into_iter().collect();
    v.sort_by_key(|s| !s.failed);
    v
}

/// A chart builder on `root` with the margins and label areas every line chart of
/// the report shares.
fn framed<'a, 'b>(root: &'a Area<'b>) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.margin(12)
        .margin_right(30)
        .x_label_area_size(44)
        .y_label_area_size(64);
    b
}

fn mesh_style<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    x: &str,
    y: &str,
) -> Drawn
where
    X: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
    Y: Ranged<ValueType = f64> + plotters::coord::ranged1d::ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        // No minor grid: its hundreds of faint lines were half a page's bytes.
        .max_light_lines(0)
        .bold_line_style(RGBColor(220, 220, 220))
        .label_style(("sans-serif", 17))
        .axis_desc_style(("sans-serif", 17))
        .x_label_formatter(&|v| tick(*v))
        .y_label_formatter(&|v| tick(*v))
        .x_desc(x)
        .y_desc(y)
        .draw()?;
    Ok(())
}

/// A tick's label: whole numbers without a decimal point, others as short as
/// they are exact to three places.
fn tick(v: f64) -> String {
    if v.fract() == 0.0 || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The read rate over each drive's position (in percent of the drive, so drives
/// of different sizes line up), one line per drive.
pub fn zone_overlay(curves: &[(Series<ZoneCurve>, u64)]) -> Option<String> {
    if curves.is_empty() {
        return None;
    }
    let max = curves
        .iter()
        .map(|(s, _)| s.data.max_bytes_per_s / 1e6)
        .fold(1.0, f64::max)
        * 1.1;
    svg(H, |root| {
        let mut chart = framed(root).build_cartesian_2d(0f64..100f64, 0f64..max)?;
        mesh_style(
            &mut chart,
            "position (% of the drive, outer to inner)",
            "read rate (MB/s)",
        )?;
        let pct = |off: u64, media: u64| 100.0 * off as f64 / media.max(1) as f64;
        let median = median_curve(curves);
        if !median.is_empty() {
            chart.draw_series(LineSeries::new(
                median,
                RGBColor(0, 0, 0).mix(0.13).stroke_width(10),
            ))?;
        }
        let mut order: Vec<&(Series<ZoneCurve>, u64)> = curves.iter().collect();
        order.sort_by_key(|(s, _)| !s.failed);
        for (s, media) in order {
            let pts = s
                .data
                .points
                .iter()
                .map(|p| (pct(p.offset_bytes, *media), p.rate_bytes_per_s / 1e6));
            chart.draw_series(LineSeries::new(pts, style(s.colour, s.failed)))?;
        }
        Ok(())
    })
}

/// The batch's median zone curve, sample by sample, when there are three curves
/// or more of the same samples (the same count at the same relative positions):
/// the grey band the odd drive departs from. Empty otherwise.
pub fn median_curve(curves: &[(Series<ZoneCurve>, u64)]) -> Vec<(f64, f64)> {
    let n = curves.first().map_or(0, |c| c.0.data.points.len());
    let pct = |off: u64, media: u64| 100.0 * off as f64 / media.max(1) as f64;
    let same = curves.iter().all(|(s, media)| {
        s.data.points.len() == n
            && s.data
                .points
                .iter()
                .zip(&curves[0].0.data.points)
                .all(|(p, q)| {
                    (pct(p.offset_bytes, *media) - pct(q.offset_bytes, curves[0].1)).abs() < 0.5
                })
    });
    if curves.len() < 3 || !same {
        return Vec::new();
    }
    (0..n)
        .map(|i| {
            let rates: Vec<f64> = curves
                .iter()
                .map(|(s, _)| s.data.points[i].rate_bytes_per_s / 1e6)
                .collect();
            let x = pct(curves[0].0.data.points[i].offset_bytes, curves[0].1);
            (x, crate::compare::median(&rates).unwrap_or(0.0))
        })
        .collect()
}

/// The mean access time by seek distance (a log axis), one line per drive.
pub fn seek_overlay(profiles: &[Series<SeekAnalysis>]) -> Option<String> {
    let bins = || profiles.iter().flat_map(|s| &s.data.bins);
    let lo = bins().map(|b| b.from_sectors.max(1)).min()? as f64;
    let hi = bins().map(|b| b.to_sectors).max()? as f64;
    let max = bins().map(|b| b.summary.mean_ns / 1e6).fold(1.0, f64::max) * 1.1;
    svg(H, |root| {
        let mut chart =
            framed(root).build_cartesian_2d((lo..hi.max(lo * 2.0)).log_scale(), 0f64..max)?;
        mesh_style(
            &mut chart,
            "seek distance (sectors, log scale)",
            "mean access time (ms)",
        )?;
        for s in failing_first(profiles) {
            let pts = s.data.bins.iter().map(|b| {
                let mid = ((b.from_sectors.max(1) as f64) * (b.to_sectors.max(1) as f64)).sqrt();
                (mid, b.summary.mean_ns / 1e6)
            });
            chart.draw_series(LineSeries::new(pts, style(s.colour, s.failed)))?;
        }
        Ok(())
    })
}

/// The verify map: each pass's write and read rate over the range, with the
/// failed sectors as red bands.
pub fn verify_map(v: &VerifyResult) -> Option<String> {
    let span = v.end_bytes.saturating_sub(v.start_bytes).max(1) as f64;
    let mut lines: Vec<(Vec<(f64, f64)>, RGBColor)> = Vec::new();
    for p in &v.passes {
        let halves = [(Some(&p.write), WRITE), (p.read.as_ref(), READ)];
        for (h, c) in halves {
            let Some(h) = h else { continue };
            let curve = h.curve();
            let n = curve.len().max(1) as f64;
            let pts = curve
                .iter()
                .enumerate()
                .filter(|&(_, &r)| r > 0.0)
                .map(|(i, &r)| (100.0 * (i as f64 + 0.5) / n, r / 1e6))
                .collect();
            lines.push((pts, c));
        }
    }
    if lines.iter().all(|(l, _)| l.is_empty()) {
        return None;
    }
    let sector = f64::from(v.sector_bytes.max(1));
    let bands: Vec<(f64, f64)> = v
        .passes
        .iter()
        .flat_map(|p| p.failures.ranges())
        .map(|f| {
            let a = (f.start_lba as f64 * sector - v.start_bytes as f64) / span * 100.0;
            let b =
                ((f.start_lba + f.sectors) as f64 * sector - v.start_bytes as f64) / span * 100.0;
            (a, b.max(a + 0.8))
        })
        .collect();
    let max = lines
        .iter()
        .flat_map(|(l, _)| l.iter().map(|p| p.1))
        .fold(1.0, f64::max)
        * 1.15;
    svg(H, |root| {
        let mut chart = framed(root).build_cartesian_2d(0f64..100f64, 0f64..max)?;
        mesh_style(
            &mut chart,
            "position (% of the verified range)",
            "rate (MB/s)",
        )?;
        chart.draw_series(bands.iter().map(|&(a, b)| {
            Rectangle::new(
                [(a, 0.0), (b, max)],
                RGBColor(220, 30, 30).mix(0.6).filled(),
            )
        }))?;
        for (pts, c) in lines {
            chart.draw_series(LineSeries::new(pts, c.stroke_width(2)))?;
        }
        Ok(())
    })
}

/// The verify map's write rate.
pub const WRITE: RGBColor = RGBColor(200, 110, 20);
/// The verify map's read-back rate, and --smr-check's write rate.
pub const READ: RGBColor = RGBColor(30, 90, 200);
/// The temperature's line.
pub const TEMPERATURE: RGBColor = RGBColor(200, 60, 30);
/// The scan map's colours by the slowest block: < 10 ms, < 50, < 150, more.
pub const SCAN: [RGBColor; 4] = [
    RGBColor(46, 125, 50),
    RGBColor(150, 110, 0),
    RGBColor(200, 85, 0),
    RGBColor(210, 40, 40),
];
/// The scan map's cell not read (a background, not a mark).
pub const NOT_READ: RGBColor = RGBColor(220, 220, 220);

/// The scan map's colour of a cell: grey not read, black failed, then by the
/// slowest block: green < 10 ms, amber < 50, orange < 150, red.
fn scan_colour(ns: u64) -> RGBColor {
    match ns {
        0 => NOT_READ,
        u64::MAX => BLACK,
        n if n < 10_000_000 => SCAN[0],
        n if n < 50_000_000 => SCAN[1],
        n if n < 150_000_000 => SCAN[2],
        _ => SCAN[3],
    }
}

/// The surface-scan map, start to end in rows of 50 cells of at most 500 (the
/// slowest of neighbouring cells, so an error or a slow run always shows), runs
/// of one colour drawn as one rectangle: a drive's map stays small.
pub fn scan_map(s: &ScanResult) -> Option<String> {
    const PER_ROW: usize = 50;
    const MOST: usize = 500;
    let map: Vec<u64> = s
        .map_ns
        .chunks(s.map_ns.len().div_ceil(MOST).max(1))
        .map(|c| c.iter().copied().max().unwrap_or(0))
        .collect();
    let cells = map.len();
    if cells == 0 {
        return None;
    }
    let rows = cells.div_ceil(PER_ROW);
    let height = (rows as u32 * 14 + 24).min(H);
    svg(height, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .build_cartesian_2d(0usize..PER_ROW, 0usize..rows)?;
        let mut runs = Vec::new();
        for row in 0..rows {
            let line = &map[row * PER_ROW..((row + 1) * PER_ROW).min(cells)];
            let mut start = 0;
            for i in 1..=line.len() {
                if i == line.len() || scan_colour(line[i]) != scan_colour(line[start]) {
                    runs.push((row, start, i, scan_colour(line[start])));
                    start = i;
                }
            }
        }
        chart.draw_series(runs.into_iter().map(|(row, a, b, c)| {
            let y = rows - 1 - row;
            Rectangle::new([(a, y), (b, y + 1)], c.filled())
        }))?;
        Ok(())
    })
}

/// --smr-check's write rate over time, a step per window, with the stalls as
/// red points at the top.
pub fn smr_chart(a: &SmrAnalysis) -> Option<String> {
    use crate::smr::behaviour::WINDOW_S;
    if a.windows.is_empty() {
        return None;
    }
    let end = a.windows.last().map_or(WINDOW_S, |w| w.start_s + WINDOW_S);
    let max = a
        .windows
        .iter()
        .map(|w| w.rate_bytes_per_s / 1e6)
        .fold(1.0, f64::max)
        * 1.15;
    svg(H, |root| {
        let mut chart = framed(root).build_cartesian_2d(0f64..end, 0f64..max)?;
        mesh_style(&mut chart, "seconds of writing", "write rate (MB/s)")?;
        let steps = a.windows.iter().flat_map(|w| {
            let r = w.rate_bytes_per_s / 1e6;
            [(w.start_s, r), (w.start_s + WINDOW_S, r)]
        });
        chart.draw_series(LineSeries::new(steps, READ.stroke_width(2)))?;
        chart.draw_series(
            a.stalls
                .iter()
                .map(|s| Circle::new((s.at_s, max * 0.97), 3, RGBColor(210, 40, 40).filled())),
        )?;
        Ok(())
    })
}

/// The temperature in °C over the run's seconds as an SVG; None with fewer than
/// two samples (one reading is a figure, not a curve).
pub fn temperature_chart(samples: &[TempSample]) -> Option<String> {
    if samples.len() < 2 {
        return None;
    }
    let (first, last) = (samples.first()?, samples.last()?);
    let end = (last.at_s - first.at_s).max(1.0);
    let lo = samples.iter().map(|s| s.celsius).fold(f64::MAX, f64::min) - 5.0;
    let hi = samples.iter().map(|s| s.celsius).fold(f64::MIN, f64::max) + 5.0;
    svg(H, |root| {
        let mut chart = framed(root).build_cartesian_2d(0f64..end / 60.0, lo..hi)?;
        mesh_style(&mut chart, "minutes into the run", "temperature (°C)")?;
        let pts = samples
            .iter()
            .map(|s| ((s.at_s - first.at_s) / 60.0, s.celsius));
        chart.draw_series(LineSeries::new(pts, TEMPERATURE.stroke_width(2)))?;
        Ok(())
    })
}
