//! Small text charts for the terminal: a curve of y over x, drawn with characters.

/// Draw `points` (x, y) as a `width` x `height` character chart with the y range
/// labelled on the left (`unit` after the numbers) and `x_left`/`x_right` under the
/// ends. Each column shows the mean of the points that fall in it. Every line
/// starts with a tab and ends with a newline.
pub fn curve(
    points: &[(f64, f64)],
    width: usize,
    height: usize,
    unit: &str,
    x_left: &str,
    x_right: &str,
) -> String {
    draw(points, (width, height), unit, x_left, x_right, None)
}

/// [`curve`] with the y axis starting at 0 (for rates, whose level matters more
/// than their wiggles).
pub fn curve_from_zero(
    points: &[(f64, f64)],
    width: usize,
    height: usize,
    unit: &str,
    x_left: &str,
    x_right: &str,
) -> String {
    draw(points, (width, height), unit, x_left, x_right, Some(0.0))
}

fn draw(
    points: &[(f64, f64)],
    (width, height): (usize, usize),
    unit: &str,
    x_left: &str,
    x_right: &str,
    y_floor: Option<f64>,
) -> String {
    if points.is_empty() || width < 2 || height < 2 {
        return String::new();
    }
    let (xmin, xmax) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (ymin, ymax) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    let ymin = y_floor.map_or(ymin, |f| ymin.min(f));
    let xspan = (xmax - xmin).max(f64::MIN_POSITIVE);
    let yspan = (ymax - ymin).max(ymax.abs() * 1e-9).max(f64::MIN_POSITIVE);
    let mut sums = vec![(0.0, 0u32); width];
    for &(x, y) in points {
        let c = (((x - xmin) / xspan) * (width - 1) as f64).round() as usize;
        sums[c.min(width - 1)].0 += y;
        sums[c.min(width - 1)].1 += 1;
    }
    let rows: Vec<Option<usize>> = sums
        .iter()
        .map(|&(s, n)| {
            (n > 0).then(|| {
                let y = s / f64::from(n);
                (((y - ymin) / yspan) * (height - 1) as f64).round() as usize
            })
        })
        .collect();
    let top = format!("{ymax:.1} {unit}");
    let bottom = format!("{ymin:.1} {unit}");
    let label_w = top.len().max(bottom.len());
    let mut out = String::new();
    for r in (0..height).rev() {
        let label = if r == height - 1 {
            top.clone()
        } else if r == 0 {
            bottom.clone()
        } else {
            String::new()
        };
        let line: String = rows
            .iter()
            .map(|&row| match row {
                Some(v) if v == r => '*',
                Some(v) if v > r => ':',
                _ => ' ',
            })
            .collect();
        out.push_str(&format!("\t{label:>label_w$} |{}\n", line.trim_end()));
    }
    let gap = width.saturating_sub(x_left.len() + x_right.len()).max(1);
    out.push_str(&format!("\t{:label_w$} +{}\n", "", "-".repeat(width)));
    out.push_str(&format!(
        "\t{:label_w$}  {x_left}{}{x_right}\n",
        "",
        " ".repeat(gap)
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_falling_curve_goes_from_the_top_left_to_the_bottom_right() {
        let pts: Vec<(f64, f64)> = (0..100).map(|i| (i as f64, 200.0 - i as f64)).collect();
        let c = curve(&pts, 20, 5, "MB/s", "0%", "100%");
        let lines: Vec<&str> = c.lines().collect();
        assert_eq!(lines.len(), 7);
        assert!(lines[0].starts_with("\t200.0 MB/s |*"), "{c}");
        assert!(lines[4].starts_with("\t101.0 MB/s |"), "{c}");
        assert!(lines[4].ends_with('*'), "{c}");
        assert!(lines[6].ends_with("100%"));
        assert_eq!(curve(&[], 10, 5, "", "", ""), "");
    }
}
