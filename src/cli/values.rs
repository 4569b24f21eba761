//! The value parsers the options share: sizes, durations, the --smr-check budget.

/// A byte count with an optional binary suffix: `4096`, `64M`, `1.5G`, `2T`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (num, mult) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let m: u64 = match c.to_ascii_uppercase() {
                'K' => 1 << 10,
                'M' => 1 << 20,
                'G' => 1 << 30,
                'T' => 1 << 40,
                'P' => 1 << 50,
                _ => return Err(format!("{s:?}: unknown suffix {c:?} (use K, M, G, T or P)")),
            };
            (&t[..i], m)
        }
        _ => (t, 1),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?}: not a number of bytes (e.g. 4096, 64M, 1.5G)"))?;
    let bytes = v * mult as f64;
    if !(v.is_finite() && v >= 0.0 && bytes < u64::MAX as f64) {
        return Err(format!("{s:?}: out of range"));
    }
    Ok(bytes as u64)
}

/// The budget of `--smr-check`: comma-separated parts, each a size (`40G`, as
/// [`parse_bytes`]) or a time (`30m`, `90s`, `1.5h`: lowercase s, m or h); a part
/// not given keeps its default.
pub fn parse_smr_budget(s: &str) -> Result<crate::results::smr::Budget, String> {
    let mut b = crate::results::smr::Budget::default();
    let (mut size, mut time) = (false, false);
    for part in s.split(',').map(str::trim) {
        let unit = match part.chars().last() {
            Some('s') => Some(1.0),
            Some('m') => Some(60.0),
            Some('h') => Some(3600.0),
            _ => None,
        };
        if let Some(unit) = unit {
            let v: f64 = part[..part.len() - 1].parse().map_err(|_| {
                format!("{part:?}: not a time (e.g. 30m, 90s, 1.5h) or a size (e.g. 40G)")
            })?;
            let secs = v * unit;
            if time || !(secs.is_finite() && secs > 0.0 && secs <= 7.0 * 86400.0) {
                return Err(format!("{s:?}: one time from 1s to 168h, e.g. 40G,30m"));
            }
            (b.seconds, time) = (secs, true);
        } else {
            let bytes = parse_bytes(part)?;
            if size || bytes < 1 << 20 {
                return Err(format!("{s:?}: one size of at least 1M, e.g. 40G,30m"));
            }
            (b.bytes, size) = (bytes, true);
        }
    }
    Ok(b)
}

/// A time between status lines: seconds (`90`), or with a lowercase s, m or h
/// suffix (`30s`, `10m`, `1h`); from 1 s to a day.
pub fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let (num, unit) = match t.chars().last() {
        Some('s') => (&t[..t.len() - 1], 1.0),
        Some('m') => (&t[..t.len() - 1], 60.0),
        Some('h') => (&t[..t.len() - 1], 3600.0),
        _ => (t, 1.0),
    };
    let secs = num
        .parse::<f64>()
        .ok()
        .map(|v| v * unit)
        .filter(|v| v.is_finite() && (1.0..=86400.0).contains(v))
        .ok_or_else(|| format!("{s:?}: a time from 1s to 24h (e.g. 90s, 10m, 1h)"))?;
    Ok(std::time::Duration::from_secs_f64(secs))
}
