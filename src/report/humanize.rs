//! FreeBSD's humanize_number as diskinfo calls it: a 5-byte buffer, automatic scale,
//! binary divisor, no space, decimal point allowed.

/// Render `bytes` as diskinfo does in "mediasize in bytes (1.8T)".
pub fn humanize(bytes: u64) -> String {
    const PREFIX: [&str; 7] = ["B", "K", "M", "G", "T", "P", "E"];
    let (mut q, mut r, mut i) = (bytes, 0u64, 0usize);
    while (q >= 1000 || (q == 999 && r >= 512)) && i < 6 {
        r = q % 1024;
        q /= 1024;
        i += 1;
    }
    if i > 0 && (q < 9 || (q == 9 && r < 973)) {
        let t = (r * 10 + 512) / 1024;
        format!("{}.{}{}", q + t / 10, t % 10, PREFIX[i])
    } else {
        format!("{}{}", q + (r + 512) / 1024, PREFIX[i])
    }
}

#[cfg(test)]
mod tests {
    use super::humanize;
    use crate::results::verdict::binary_size;

    #[test]
    fn binary_sizes_take_one_decimal() {
        assert_eq!(binary_size(1000), "1000 B");
        assert_eq!(binary_size(64 << 30), "64.0 GiB");
        assert_eq!(binary_size(3 << 19), "1.5 MiB");
    }

    #[test]
    fn matches_the_reference_examples() {
        for (n, s) in [
            (2_000_398_934_016u64, "1.8T"),
            (1_073_741_824, "1.0G"),
            (536_870_912, "512M"),
            (10_737_418_240, "10G"),
            (500_107_862_016, "466G"),
            (1000, "1.0K"),
            (999, "999B"),
            (512, "512B"),
            (0, "0B"),
            (268_435_456, "256M"),
        ] {
            assert_eq!(humanize(n), s, "{n}");
        }
    }

    #[test]
    fn never_longer_than_four_characters() {
        for n in (0..64)
            .map(|s| 1u64 << s)
            .chain([u64::MAX, 9 * 1024 + 972, 1023 * 1024])
        {
            assert!(humanize(n).len() <= 4, "{n} -> {}", humanize(n));
        }
    }
}
