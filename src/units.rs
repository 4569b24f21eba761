//! One reading of sizes, for every option and a simulated drive's spec: the units
//! the output prints (KiB, MiB, GiB, TiB, PiB), their one-letter forms (K, M, G, T,
//! P: binary, as before), and their SI forms (kB, MB, GB, TB, PB: powers of 1000,
//! as drive vendors count), each with an optional B.

/// A byte count: a number (fractions allowed, `1.5G`) with an optional unit,
/// `4096`, `4096B`, `64M`, `64MiB` (both 64 × 2^20), `16GB` (16 × 10^9). The
/// unit's letters are read case-insensitively but for the SI forms, which need
/// their B (`MB`; `Mb` would be bits, and is refused).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
    let (num, unit) = (t[..split].trim_end(), &t[split..]);
    let mult = multiplier(unit).ok_or_else(|| {
        format!(
            "{s:?}: unknown unit {unit:?} (use KiB, MiB, GiB, TiB, PiB or K, M, G, T, P for powers of 1024; kB, MB, GB, TB, PB for powers of 1000)"
        )
    })?;
    let v: f64 = num.parse().map_err(|_| {
        format!("{s:?}: not a number of bytes (e.g. 4096, 64M, 16MiB, 1.5GiB, 2TB)")
    })?;
    let bytes = v * mult as f64;
    if !(v.is_finite() && v >= 0.0 && bytes < u64::MAX as f64) {
        return Err(format!("{s:?}: out of range"));
    }
    Ok(bytes as u64)
}

/// What a unit multiplies by: none or `B`, 1; `K`, `KiB` (and the others), a
/// power of 1024; `kB`, `MB` (and the others), a power of 1000; None for another.
fn multiplier(unit: &str) -> Option<u64> {
    const PREFIXES: &str = "KMGTP";
    if unit.is_empty() || unit == "B" {
        return Some(1);
    }
    let mut chars = unit.chars();
    let prefix = chars.next()?.to_ascii_uppercase();
    let power = PREFIXES.find(prefix)? as u32 + 1;
    match chars.as_str() {
        "" | "i" | "iB" | "ib" | "IB" => Some(1024u64.pow(power)),
        "B" => Some(1000u64.pow(power)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_units_the_output_prints_are_read_as_it_prints_them() {
        for (s, v) in [
            ("4096", 4096),
            ("4096B", 4096),
            ("64M", 64 << 20),
            ("64m", 64 << 20),
            ("16MiB", 16 << 20),
            ("16 MiB", 16 << 20),
            ("1.5GiB", 3 << 29),
            ("2TiB", 2 << 40),
            ("1PiB", 1 << 50),
            ("1kB", 1000),
            ("1KB", 1000),
            ("16MB", 16_000_000),
            ("2TB", 2_000_000_000_000),
        ] {
            assert_eq!(parse_bytes(s), Ok(v), "{s}");
        }
        for s in ["16Mb", "16X", "16MiBs", "-1M", "M", ""] {
            assert!(parse_bytes(s).is_err(), "{s}");
        }
        assert!(parse_bytes("16XB").unwrap_err().contains("KiB, MiB, GiB"));
    }
}
