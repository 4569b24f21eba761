//! An allowed_signers file, as `ssh-keygen -Y verify -f FILE` reads it
//! (ssh-keygen(1), "ALLOWED SIGNERS"): a line per key, `principals [options]
//! keytype base64 [comment]`, blank lines and `#` comments skipped. The key is
//! read by `ssh-key`, the options by its authorized_keys options parser (they
//! come before the key there too); this file splits the fields and applies the
//! options that limit a key: `namespaces="..."` (a pattern list) and
//! `valid-after` / `valid-before` (YYYYMMDD[HHMM[SS]], UTC with a trailing `Z`
//! or `UTC`, else local time), against the time of the check, as ssh-keygen does. A
//! `cert-authority` line names a CA whose certificates sign: seekprobe signs and
//! checks plain keys, so such a line allows none of them.

use ssh_key::PublicKey;
use ssh_key::authorized_keys::ConfigOpts;
use std::path::Path;

/// One key line: who it names, the key, and its options.
#[derive(Debug, Clone)]
struct Line {
    principals: Vec<String>,
    options: ConfigOpts,
    key: PublicKey,
}

/// An allowed_signers file as read.
#[derive(Debug, Clone)]
pub struct AllowedSigners {
    /// The file as named (for the messages).
    pub file: String,
    lines: Vec<Line>,
}

impl AllowedSigners {
    /// Read `path`; Err names the file and the line that cannot be read.
    pub fn read(path: &Path) -> Result<AllowedSigners, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("{}: {}", path.display(), crate::error::describe_io(&e)))?;
        Self::parse(&path.display().to_string(), &text)
    }

    /// The file's `text`, named `file`.
    pub fn parse(file: &str, text: &str) -> Result<AllowedSigners, String> {
        let mut lines = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (principals, rest) = split_principals(line)
                .ok_or_else(|| format!("{file}, line {}: no key after the principals", n + 1))?;
            let (options, key) = key_and_options(rest.trim_start()).map_err(|e| {
                format!(
                    "{file}, line {}: not `principals [options] keytype key` ({e})",
                    n + 1
                )
            })?;
            lines.push(Line {
                principals: principals.split(',').map(str::to_string).collect(),
                options,
                key,
            });
        }
        Ok(AllowedSigners {
            file: file.to_string(),
            lines,
        })
    }

    /// The principals of every line that allows `key` to sign in `namespace` now;
    /// Err when no line does: why each line that lists the key does not allow it
    /// (empty: no line lists it).
    pub fn principals(&self, key: &PublicKey, namespace: &str) -> Result<Vec<String>, Vec<String>> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let (mut who, mut why): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
        for l in self
            .lines
            .iter()
            .filter(|l| l.key.key_data() == key.key_data())
        {
            let admitted = admitted(&l.principals);
            let refused = refusal(l.options.iter(), namespace, now).or_else(|| {
                (admitted.is_empty())
                    .then(|| format!("admits no identity ({})", l.principals.join(",")))
            });
            match refused {
                Some(r) => why.push(r),
                None => {
                    for p in admitted {
                        if !who.contains(p) {
                            who.push(p.clone());
                        }
                    }
                }
            }
        }
        if who.is_empty() { Err(why) } else { Ok(who) }
    }
}

/// The patterns of a line's principals that admit an identity, as `ssh-keygen -Y
/// verify -I ID` matches ID (a pattern list: ID must match one pattern and none of
/// the `!` ones): those not matched, as text, by a `!` pattern of the line (on
/// the safe side: `a*,!a?` admits none, where ssh-keygen admits `abc`). Empty: the
/// line allows its key for no identity.
fn admitted(principals: &[String]) -> Vec<&String> {
    let negated: Vec<&str> = principals
        .iter()
        .filter_map(|p| p.strip_prefix('!'))
        .collect();
    principals
        .iter()
        .filter(|p| !p.is_empty() && !p.starts_with('!'))
        .filter(|p| !negated.iter().any(|n| glob(n.as_bytes(), p.as_bytes())))
        .collect()
}

/// The principals field (in double quotes when it holds spaces) and the rest.
fn split_principals(line: &str) -> Option<(&str, &str)> {
    if let Some(quoted) = line.strip_prefix('"') {
        let end = quoted.find('"')?;
        return Some((&quoted[..end], &quoted[end + 1..]));
    }
    line.split_once([' ', '\t'])
}

/// The options (none when the line goes on with the key) and the key of what
/// follows the principals; the options end at the first blank outside quotes.
fn key_and_options(rest: &str) -> Result<(ConfigOpts, PublicKey), ssh_key::Error> {
    if let Ok(key) = rest.parse() {
        return Ok((ConfigOpts::default(), key));
    }
    let mut quoted = false;
    let end = rest
        .find(|c: char| {
            quoted ^= c == '"';
            !quoted && c.is_whitespace()
        })
        .unwrap_or(rest.len());
    let options = ConfigOpts::new(&rest[..end])?;
    Ok((options, rest[end..].trim_start().parse()?))
}

/// Why a line with these options does not allow a signature in `namespace` at
/// `now`, in words after "its line there"; None when it allows it.
fn refusal<'a>(
    mut options: impl Iterator<Item = &'a str>,
    namespace: &str,
    now: i64,
) -> Option<String> {
    options.find_map(|opt| {
        let (name, value) = match opt.split_once('=') {
            // ssh-keygen reads a value only in double quotes, else skips the line.
            Some((n, v)) => match v.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
                Some(v) => (n, v),
                None => return Some(format!("has {opt}, a value outside double quotes")),
            },
            None => (opt, ""),
        };
        let name = name.to_ascii_lowercase();
        let time = |ok: fn(i64, i64) -> bool, words: &str| match time_of(value) {
            None => Some(format!("has {opt}, a time ssh-keygen does not read")),
            Some(t) => (!ok(now, t)).then(|| format!("allows it only {words} {value} ({name})")),
        };
        match name.as_str() {
            "cert-authority" => Some(
                "is a cert-authority line (a CA's certificates; seekprobe checks plain keys)"
                    .into(),
            ),
            "namespaces" => (!pattern_list(value, namespace))
                .then(|| format!("allows it only in the namespaces \"{value}\"")),
            "valid-after" => time(|now, t| now >= t, "from"),
            "valid-before" => time(|now, t| now <= t, "until"),
            // ssh-keygen refuses a line with an option it does not know.
            _ => Some(format!("has {opt}, an option ssh-keygen does not know")),
        }
    })
}

/// Whether `word` matches the comma-separated pattern list `list` (ssh_config(5)
/// PATTERNS: `*` and `?` wildcards; a pattern after `!` that matches refuses).
fn pattern_list(list: &str, word: &str) -> bool {
    let mut matched = false;
    for p in list.split(',').map(str::trim) {
        match p.strip_prefix('!') {
            Some(neg) if glob(neg.as_bytes(), word.as_bytes()) => return false,
            Some(_) => {}
            None => matched |= glob(p.as_bytes(), word.as_bytes()),
        }
    }
    matched
}

/// A `*` and `?` wildcard match of the whole of `s`.
fn glob(p: &[u8], s: &[u8]) -> bool {
    match (p.first(), s.first()) {
        (None, None) => true,
        (Some(b'*'), _) => glob(&p[1..], s) || (!s.is_empty() && glob(p, &s[1..])),
        (Some(b'?'), Some(_)) => glob(&p[1..], &s[1..]),
        (Some(a), Some(b)) if a == b => glob(&p[1..], &s[1..]),
        _ => false,
    }
}

/// A `valid-after` / `valid-before` time in Unix seconds as ssh-keygen reads it
/// (misc.c, parse_absolute_time): YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, UTC
/// with a trailing `Z` or `UTC`, else the local time zone's; each field in
/// strptime's range (month 1-12, day 1-31, hour 0-23, minute 0-59, second 0-60),
/// and not 0. None when ssh-keygen would not read it (it then skips the line).
fn time_of(value: &str) -> Option<i64> {
    let value = value.to_ascii_lowercase();
    let (digits, utc) = match value
        .strip_suffix('z')
        .or_else(|| value.strip_suffix("utc"))
    {
        Some(d) => (d, true),
        None => (value.as_str(), false),
    };
    if !matches!(digits.len(), 8 | 12 | 14) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |at: usize, range: std::ops::RangeInclusive<i32>| {
        let v = digits.get(at..at + 2).map_or(Some(0), |f| f.parse().ok())?;
        range.contains(&v).then_some(v)
    };
    let mut tm = libc_tm();
    tm.tm_year = digits[..4].parse::<i32>().ok()? - 1900;
    tm.tm_mon = field(4, 1..=12)? - 1;
    tm.tm_mday = field(6, 1..=31)?;
    tm.tm_hour = field(8, 0..=23)?;
    tm.tm_min = field(10, 0..=59)?;
    tm.tm_sec = field(12, 0..=60)?;
    tm.tm_isdst = -1;
    let t = if utc {
        // SAFETY: `tm` is a valid, exclusively borrowed `struct tm`; timegm only
        // reads and normalises it.
        unsafe { libc::timegm(&mut tm) }
    } else {
        // SAFETY: as above; mktime reads the local time zone as well.
        unsafe { libc::mktime(&mut tm) }
    };
    (t != -1 && t != 0).then_some(t)
}

/// An all-zero `struct tm` (its fields are integers and one nullable pointer).
fn libc_tm() -> libc::tm {
    // SAFETY: every field of `struct tm` is an integer or a pointer for which zero
    // (null) is a valid value.
    unsafe { std::mem::zeroed() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a line with these options allows a signature in `namespace` at `now`.
    fn allows<'a>(options: impl Iterator<Item = &'a str>, namespace: &str, now: i64) -> bool {
        refusal(options, namespace, now).is_none()
    }

    #[test]
    fn options_limit_a_key_by_namespace_and_time() {
        let now = time_of("20260101Z").unwrap();
        assert_eq!(now, 1_767_225_600);
        let opts = |s: &'static str| s.split(',').filter(|o| !o.is_empty());
        assert!(allows(opts(""), "seekprobe-record", now));
        assert!(allows(
            opts("namespaces=\"seekprobe-*\""),
            "seekprobe-record",
            now
        ));
        assert!(!allows(opts("namespaces=\"git\""), "seekprobe-record", now));
        assert!(!allows(
            opts("namespaces=\"*,!seekprobe-record\""),
            "seekprobe-record",
            now
        ));
        assert!(allows(opts("valid-after=\"20251231Z\""), "x", now));
        assert!(!allows(opts("valid-before=\"202512312359Z\""), "x", now));
        assert!(!allows(opts("cert-authority"), "x", now));
        assert!(!allows(opts("valid-after=\"tomorrow\""), "x", now));
        assert_eq!(time_of("20260101000001Z"), Some(now + 1));
    }

    #[test]
    fn an_option_s_value_outside_double_quotes_allows_nothing() {
        // ssh-keygen reads a value only in double quotes (opt_dequote: "missing
        // start quote") and skips the line: its key is not allowed.
        let now = time_of("20260101Z").unwrap();
        let opts = |s: &'static str| s.split(',').filter(|o| !o.is_empty());
        assert!(!allows(
            opts("namespaces=seekprobe-record"),
            "seekprobe-record",
            now
        ));
        assert!(!allows(opts("valid-after=20251231Z"), "x", now));
        assert!(!allows(opts("valid-before=\"20271231Z"), "x", now));
        assert!(allows(opts("valid-before=\"20271231Z\""), "x", now));
    }

    #[test]
    fn a_time_ssh_keygen_cannot_read_allows_nothing_and_utc_may_be_spelled_out() {
        // strptime refuses a month 13, a day 32, an hour 24 or a minute 60:
        // ssh-keygen skips the line, where mktime would carry them into a later date.
        for bad in ["20261301Z", "20261232Z", "202612312400Z", "202612312360Z"] {
            assert_eq!(time_of(bad), None, "{bad}");
        }
        // 0 is not a time to ssh-keygen ("invalid \"valid-after\" time").
        assert_eq!(time_of("19700101Z"), None);
        // A trailing "UTC" is UTC, as a trailing Z (parse_absolute_time).
        assert_eq!(time_of("20260101UTC"), time_of("20260101Z"));
        assert_eq!(time_of("20260101utc"), Some(1_767_225_600));
        // February 30th is March 2nd to strptime and mktime alike.
        assert_eq!(time_of("20260230Z"), time_of("20260302Z"));
    }

    #[test]
    fn principals_may_be_quoted_and_lines_name_their_fault() {
        assert_eq!(
            split_principals("\"a b@x,c\" ssh-ed25519 AAAA"),
            Some(("a b@x,c", " ssh-ed25519 AAAA"))
        );
        let bad = AllowedSigners::parse("f", "# c\n\nalice@x ssh-ed25519 @@@\n").unwrap_err();
        assert!(bad.starts_with("f, line 3: "), "{bad}");
        assert!(AllowedSigners::parse("f", "alice@x\n").is_err());
    }
}
