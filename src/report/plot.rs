//! SVG plots (`--plot FILE.svg`): for each disk, the zone transfer curve with the
//! access times of the seek profile over the disk (as GNOME Disks draws them), the
//! seek profile over the distance with its fitted curve, and the surface-scan map. plotters' SVG backend only: no fonts or system libraries.

use crate::results::{DiskResult, Run};
use plotters::prelude::*;

const WIDTH: u32 = 1000;
const PANEL: u32 = 420;

/// The panels a disk gets: (has a zone curve or access times, has a scan).
fn panels(d: &DiskResult) -> (bool, bool) {
    let curve = d.tests.iter().any(|t| {
        t.zone_curve().is_some()
            || t.seek_samples()
                .as_ref()
                .is_some_and(|s| !s.positions_sectors.is_empty())
    });
    let scan = d.tests.iter().any(|t| t.scan().is_some());
    (curve, scan)
}

/// Draw every disk of `run` that has a zone curve, access times or a scan. None
/// when there is nothing to draw.
pub fn svg(run: &Run) -> Option<String> {
    let rows: u32 = run
        .disks
        .iter()
        .map(|d| {
            let (a, b) = panels(d);
            u32::from(a) + u32::from(b) + u32::from(smr_panel(d)) + u32::from(seek_panel(d))
        })
        .sum();
    if rows == 0 {
        return None;
    }
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH, PANEL * rows)).into_drawing_area();
        root.fill(&WHITE).ok()?;
        let areas = root.split_evenly((rows as usize, 1));
        let mut next = areas.iter();
        for d in &run.disks {
            let (curve, scan) = panels(d);
            if curve {
                draw_curve(next.next()?, d).ok()?;
            }
            if scan {
                draw_scan(next.next()?, d).ok()?;
            }
            if smr_panel(d) {
                draw_smr(next.next()?, d).ok()?;
            }
            if seek_panel(d) {
                draw_seek(next.next()?, d).ok()?;
            }
        }
        root.present().ok()?;
    }
    Some(out)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult<'a> =
    Result<(), DrawingAreaErrorKind<<SVGBackend<'a> as DrawingBackend>::ErrorType>>;

fn draw_curve<'a>(area: &Area<'a>, d: &DiskResult) -> DrawResult<'a> {
    let media = d.info.as_ref().map_or(1, |i| i.media_size_bytes.max(1));
    let ss = d.info.as_ref().map_or(512, |i| u64::from(i.sector_size));
    let gb = |bytes: u64| bytes as f64 / 1e9;
    let rate: Vec<(f64, f64)> = d
        .tests
        .iter()
        .filter_map(|t| t.zone_curve())
        .flat_map(|c| {
            c.points
                .iter()
                .map(|p| (gb(p.offset_bytes), p.rate_bytes_per_s / 1e6))
        })
        .collect();
    let access: Vec<(f64, f64)> = d
        .tests
        .iter()
        .filter_map(|t| t.seek_samples())
        .flat_map(|s| {
            s.positions_sectors
                .iter()
                .zip(&s.latencies_ns)
                .map(|(&p, &l)| (gb(p * ss), l as f64 / 1e6))
        })
        .collect();
    let max_rate = rate.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let max_ms = access.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{}: transfer rate and access time", d.name),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .right_y_label_area_size(60)
        .build_cartesian_2d(0f64..gb(media), 0f64..max_rate)?
        .set_secondary_coord(0f64..gb(media), 0f64..max_ms);
    chart
        .configure_mesh()
        .x_desc("position (GB from the start)")
        .y_desc("read rate (MB/s)")
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("access time (ms)")
        .draw()?;
    chart.draw_secondary_series(
        access
            .iter()
            .map(|&p| Circle::new(p, 2, RED.mix(0.5).filled())),
    )?;
    chart.draw_series(LineSeries::new(rate, BLUE.stroke_width(2)))?;
    Ok(())
}

/// Whether a disk gets the --smr-check panel: the write rate over time.
fn smr_panel(d: &DiskResult) -> bool {
    d.tests
        .iter()
        .any(|t| t.smr().is_some_and(|a| !a.windows.is_empty()))
}

/// The write rate of --smr-check over time, a step per 30-s window, with the
/// stalls as points (their length on the right axis) and the verdict as caption.
fn draw_smr<'a>(area: &Area<'a>, d: &DiskResult) -> DrawResult<'a> {
    use crate::smr::behaviour::WINDOW_S;
    let Some(a) = d.tests.iter().find_map(|t| t.smr()) else {
        return Ok(());
    };
    let end = a.windows.last().map_or(WINDOW_S, |w| w.start_s + WINDOW_S);
    let max_rate = a
        .windows
        .iter()
        .map(|w| w.rate_bytes_per_s / 1e6)
        .fold(1.0, f64::max)
        * 1.1;
    let max_stall = a.stalls.iter().map(|s| s.seconds).fold(1.0, f64::max) * 1.1;
    let verdict: String = a.text.chars().take(110).collect();
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{}: random-write rate over time; {verdict}", d.name),
            ("sans-serif", 13),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .right_y_label_area_size(60)
        .build_cartesian_2d(0f64..end, 0f64..max_rate)?
        .set_secondary_coord(0f64..end, 0f64..max_stall);
    chart
        .configure_mesh()
        .x_desc("seconds of writing")
        .y_desc("write rate (MB/s)")
        .draw()?;
    chart
        .configure_secondary_axes()
        .y_desc("stall (s)")
        .draw()?;
    let steps = a.windows.iter().flat_map(|w| {
        let r = w.rate_bytes_per_s / 1e6;
        [(w.start_s, r), (w.start_s + WINDOW_S, r)]
    });
    chart.draw_series(LineSeries::new(steps, BLUE.stroke_width(2)))?;
    chart.draw_secondary_series(
        a.stalls
            .iter()
            .map(|s| Circle::new((s.at_s, s.seconds), 2, RED.mix(0.6).filled())),
    )?;
    Ok(())
}

/// Whether a disk gets the --seek-profile panel: access time over seek distance.
fn seek_panel(d: &DiskResult) -> bool {
    d.tests
        .iter()
        .any(|t| t.seek_analysis().is_some_and(|a| !a.bins.is_empty()))
}

/// The seek profile over the distance (log scale): each bin's mean and minimum
/// access time, and beside them the mean the fitted seek curve gives the bin's
/// reads (the curve plus half a revolution).
fn draw_seek<'a>(area: &Area<'a>, d: &DiskResult) -> DrawResult<'a> {
    let ss = d.info.as_ref().map_or(512, |i| i.sector_size) as f64;
    let Some(a) = d.tests.iter().find_map(|t| t.seek_analysis()) else {
        return Ok(());
    };
    // x: log10 of the bin's middle distance in bytes.
    let x = |b: &crate::results::SeekBin| {
        (((b.from_sectors as f64) * (b.to_sectors as f64)).sqrt() * ss).log10()
    };
    let mean: Vec<(f64, f64)> = a
        .bins
        .iter()
        .map(|b| (x(b), b.summary.mean_ns / 1e6))
        .collect();
    let min: Vec<(f64, f64)> = a
        .bins
        .iter()
        .map(|b| (x(b), b.summary.min_ns as f64 / 1e6))
        .collect();
    let fitted: Vec<(f64, f64)> = a
        .bins
        .iter()
        .filter_map(|b| b.curve_mean_ns.map(|c| (x(b), c / 1e6)))
        .collect();
    let (x0, x1) = mean
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p.0), h.max(p.0)));
    let top = mean.iter().chain(&fitted).map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let fig = |f: Option<&crate::results::SeekFigure>| {
        f.map_or("-".to_string(), |f| {
            format!("{:.2}±{:.2}", f.value_ns / 1e6, f.uncertainty_ns / 1e6)
        })
    };
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "{}: access time over seek distance (blue mean, grey minimum, red fitted curve); seek ms: track-to-track {}, 1/3 {}, full {}",
                d.name,
                fig(a.track_to_track.as_ref()),
                fig(a.average.as_ref()),
                fig(a.full_stroke.as_ref())
            ),
            ("sans-serif", 13),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(x0 - 0.2..x1 + 0.2, 0f64..top)?;
    chart
        .configure_mesh()
        .x_desc("distance (log10 of bytes)")
        .y_desc("access time (ms)")
        .draw()?;
    chart.draw_series(LineSeries::new(
        min,
        RGBColor(150, 150, 150).stroke_width(1),
    ))?;
    chart.draw_series(LineSeries::new(mean.clone(), BLUE.stroke_width(2)))?;
    chart.draw_series(mean.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))?;
    chart.draw_series(LineSeries::new(fitted, RED.stroke_width(2)))?;
    Ok(())
}

fn draw_scan<'a>(area: &Area<'a>, d: &DiskResult) -> DrawResult<'a> {
    let Some(scan) = d.tests.iter().find_map(|t| t.scan()) else {
        return Ok(());
    };
    let cells = scan.map_ns.len().max(1);
    let per_row = 50usize;
    let rows = cells.div_ceil(per_row);
    let mut chart = ChartBuilder::on(area)
                .caption(
            format!(
                "{}: scan map, start to end ({} errors)  green <10 ms, yellow <50, orange <150, red >=150, black error",
                d.name, scan.error_blocks
            ),
            ("sans-serif", 13),
        )
        .margin(12)
        .x_label_area_size(0)
        .y_label_area_size(0)
        .build_cartesian_2d(0..per_row, 0..rows)?;
    chart.configure_mesh().disable_mesh().draw()?;
    let color = |ns: u64| match ns {
        0 => RGBColor(220, 220, 220), // not read
        u64::MAX => BLACK,
        n if n < 10_000_000 => RGBColor(60, 170, 60),
        n if n < 50_000_000 => RGBColor(230, 200, 40),
        n if n < 150_000_000 => RGBColor(240, 130, 30),
        _ => RGBColor(210, 40, 40),
    };
    chart.draw_series(scan.map_ns.iter().enumerate().map(|(i, &ns)| {
        let (x, y) = (i % per_row, rows - 1 - i / per_row);
        Rectangle::new([(x, y), (x + 1, y + 1)], color(ns).filled())
    }))?;
    Ok(())
}
