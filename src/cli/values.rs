//! The value parsers the options share: sizes, durations, the --smr-check budget.

/// A byte count with an optional unit, as every size option takes it
/// ([`crate::units::parse_bytes`]: `4096`, `64M`, `16MiB`, `1.5GiB`, `2TB`).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    crate::units::parse_bytes(s)
}

/// The budget of `--smr-check`: comma-separated parts, each a size (`40G`, as
/// [`parse_bytes`]) or a time (`30m`, `90s`, `1.5h`, as [`parse_seconds`] with
/// its unit written); a part not given keeps its default.
pub fn parse_smr_budget(s: &str) -> Result<crate::results::smr::Budget, String> {
    let mut b = crate::results::smr::Budget::default();
    let (mut size, mut time) = (false, false);
    for part in s.split(',').map(str::trim) {
        if let Some(secs) = time_unit(part).map(|_| seconds_in(part, 1.0)) {
            let secs = secs?;
            if time || !(1.0..=7.0 * 86400.0).contains(&secs) {
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

/// The unit a time ends with, in seconds: ms, s, m (minutes) or h.
fn time_unit(t: &str) -> Option<(usize, f64)> {
    [("ms", 0.001), ("s", 1.0), ("m", 60.0), ("h", 3600.0)]
        .into_iter()
        .find(|(u, _)| t.ends_with(u))
        .map(|(u, f)| (u.len(), f))
}

/// A time in seconds: a number with an optional unit (ms, s, m, h); a bare
/// number is in `bare` seconds. Its range (a negative one too) is the option's,
/// checked where each option's range is (config), so the message names both ends.
fn seconds_in(s: &str, bare: f64) -> Result<f64, String> {
    let t = s.trim();
    let (num, unit) = match time_unit(t) {
        Some((len, f)) => (&t[..t.len() - len], f),
        None => (t, bare),
    };
    num.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(|v| v * unit)
        .ok_or_else(|| format!("{s:?}: not a time (e.g. 90, 90s, 500ms, 10m, 1h)"))
}

/// Every option that takes a time, in seconds (`--duration`, `--settle`,
/// `--io-timeout`...): a number of seconds (`90`, `0.5`) or one with a unit
/// (`500ms`, `30s`, `10m`, `1h`); each option's range is checked with the others
/// (config).
pub fn parse_seconds(s: &str) -> Result<f64, String> {
    seconds_in(s, 1.0)
}

/// A time in milliseconds (`--slow-ms`): a bare number is milliseconds, a unit
/// as [`parse_seconds`] (`50`, `50ms`, `0.2s`).
pub fn parse_millis(s: &str) -> Result<f64, String> {
    seconds_in(s, 0.001).map(|v| v * 1000.0)
}

/// A time between status lines, as [`parse_seconds`]; from 1 s to a day.
pub fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let secs = parse_seconds(s)?;
    if !(1.0..=86400.0).contains(&secs) {
        return Err(format!(
            "{s:?}: expected a time from 1s to 24h (e.g. 90s, 10m, 1h)"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}
