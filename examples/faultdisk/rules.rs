//! The fault rules of faultdisk: what each does, how it is written on the command line
//! or the control file, and the per-request decisions (pure, no I/O).

use std::collections::BTreeMap;
use std::fmt;

/// The sector size the rules work in: addresses are moved (wrap, misdirect) and
/// writes dropped 512 bytes at a time.
pub const SECTOR: u64 = 512;

/// A byte range `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The first byte.
    pub start: u64,
    /// Just past the last byte.
    pub end: u64,
}

impl Span {
    /// Whether `[off, off + len)` touches the span.
    pub fn touches(&self, off: u64, len: u64) -> bool {
        off < self.end && off + len > self.start
    }

    /// Whether the byte at `b` lies in the span.
    pub fn holds(&self, b: u64) -> bool {
        (self.start..self.end).contains(&b)
    }
}

/// One fault, by byte range where it has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Reads touching the range fail with EIO.
    ReadError(Span),
    /// Writes touching the range fail with EIO (nothing of them is stored).
    WriteError(Span),
    /// Writes to the range are acknowledged and not stored, once this many bytes
    /// have been read and written in all (0: from the start): a drive whose writes
    /// stop landing in the middle of a test, at a point the test names exactly.
    DropWrites(Span, u64),
    /// Reads return the range's bytes inverted, without an error.
    CorruptReads(Span),
    /// Writes to the range are stored at `to` + (their offset - start) instead.
    Misdirect(Span, u64),
    /// Every address is taken modulo this many bytes (a fake capacity).
    Wrap(u64),
    /// Only the first this many bytes written are kept, wherever written: later
    /// writes to addresses never written before are acknowledged and dropped, and
    /// read back as zeros (a fake capacity that remaps, [`Kept`]).
    Keeps(u64),
    /// Reads touching the range are answered after this many milliseconds.
    SlowReads(Span, u64),
    /// Requests (reads or writes) touching the range are never answered, until the
    /// connection is aborted or the file system unmounted.
    Hang(Span),
    /// Once this many bytes have been read and written in all, every request fails
    /// with EIO (the drive vanished).
    VanishAfter(u64),
    /// Once this many bytes have been read and written in all, no request is
    /// answered any more (a drive that hangs in the middle of a test).
    HangAfter(u64),
    /// Once this many cache flushes (fsync) were answered in all, no flush is
    /// answered any more (a drive that hangs on FLUSH CACHE); reads and writes
    /// are served.
    HangFlushesAfter(u64),
    /// No fault: counts the requests touching the range.
    Count(Span),
}

/// A rule as given, with its counters of the requests it applied to.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule's text, as given.
    pub text: String,
    /// What it does.
    pub kind: Kind,
    /// Reads it applied to.
    pub reads: u64,
    /// Writes it applied to.
    pub writes: u64,
}

/// A rule's text that does not parse.
#[derive(Debug)]
pub struct BadRule(pub String);

impl fmt::Display for BadRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad rule: {}", self.0)
    }
}

/// A byte count: digits with an optional K, M, G or T suffix (KiB, MiB, GiB, TiB) or
/// `s` (512-byte sectors).
pub fn bytes(s: &str) -> Result<u64, BadRule> {
    let bad = || BadRule(format!("{s:?} is not a byte count (e.g. 4096, 96M, 2048s)"));
    let (digits, mult) = match s.chars().last() {
        Some('K') => (&s[..s.len() - 1], 1 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        Some('T') => (&s[..s.len() - 1], 1 << 40),
        Some('s') => (&s[..s.len() - 1], SECTOR),
        _ => (s, 1),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(bad)
}

fn span(s: &str) -> Result<Span, BadRule> {
    let (a, b) = s
        .split_once('-')
        .ok_or_else(|| BadRule(format!("{s:?} is not a range START-END")))?;
    let span = Span {
        start: bytes(a)?,
        end: bytes(b)?,
    };
    if span.start >= span.end {
        return Err(BadRule(format!("the range {s:?} is empty")));
    }
    Ok(span)
}

impl Rule {
    /// Parse `KIND=ARGS`: `read-error=A-B`, `write-error=A-B`,
    /// `drop-writes=A-B[,AFTER]`,
    /// `corrupt-reads=A-B`, `misdirect=A-B,TO`, `wrap=N`, `slow-reads=A-B,MS`,
    /// `hang=A-B`, `vanish-after=N`, `hang-after=N`, `hang-flushes-after=N`,
    /// `count=A-B`, `keeps=N`.
    pub fn parse(text: &str) -> Result<Rule, BadRule> {
        let (name, args) = text
            .split_once('=')
            .ok_or_else(|| BadRule(format!("{text:?} is not KIND=ARGS")))?;
        let two = || {
            args.split_once(',')
                .ok_or_else(|| BadRule(format!("{name} takes RANGE,VALUE: {args:?}")))
        };
        let kind = match name {
            "read-error" => Kind::ReadError(span(args)?),
            "write-error" => Kind::WriteError(span(args)?),
            "drop-writes" => match args.split_once(',') {
                Some((r, after)) => Kind::DropWrites(span(r)?, bytes(after)?),
                None => Kind::DropWrites(span(args)?, 0),
            },
            "corrupt-reads" => Kind::CorruptReads(span(args)?),
            "misdirect" => {
                let (r, to) = two()?;
                Kind::Misdirect(span(r)?, bytes(to)?)
            }
            "wrap" => match bytes(args)? {
                0 => return Err(BadRule("wrap=0".into())),
                n => Kind::Wrap(n),
            },
            "slow-reads" => {
                let (r, ms) = two()?;
                let ms = ms
                    .parse()
                    .map_err(|_| BadRule(format!("{ms:?} is not milliseconds")))?;
                Kind::SlowReads(span(r)?, ms)
            }
            "keeps" => Kind::Keeps(bytes(args)?),
            "hang" => Kind::Hang(span(args)?),
            "vanish-after" => Kind::VanishAfter(bytes(args)?),
            "hang-after" => Kind::HangAfter(bytes(args)?),
            "hang-flushes-after" => Kind::HangFlushesAfter(
                args.parse()
                    .map_err(|_| BadRule(format!("{args:?} is not a count of flushes")))?,
            ),
            "count" => Kind::Count(span(args)?),
            _ => return Err(BadRule(format!("unknown kind {name:?}"))),
        };
        Ok(Rule {
            text: text.to_string(),
            kind,
            reads: 0,
            writes: 0,
        })
    }
}

/// What to do with a request, decided before any I/O.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Serve it (with the address rules and the data rules applied).
    Serve,
    /// Fail it with EIO.
    Fail,
    /// Never answer it.
    Hang,
}

/// Decide a request of `len` bytes at `off` (a read unless `write`), counting it in
/// the rules it touches. `moved` is the bytes served before it (for vanish-after).
/// Returns the answer and, for a read, the delay in milliseconds.
pub fn decide(rules: &mut [Rule], off: u64, len: u64, write: bool, moved: u64) -> (Answer, u64) {
    let mut answer = Answer::Serve;
    let mut delay = 0;
    for r in rules.iter_mut() {
        let applies = match r.kind {
            Kind::ReadError(s) if !write && s.touches(off, len) => {
                answer = answer.max_with(Answer::Fail);
                true
            }
            Kind::WriteError(s) if write && s.touches(off, len) => {
                answer = answer.max_with(Answer::Fail);
                true
            }
            Kind::DropWrites(s, after) => write && moved >= after && s.touches(off, len),
            Kind::Misdirect(s, _) => write && s.touches(off, len),
            Kind::CorruptReads(s) => !write && s.touches(off, len),
            Kind::Wrap(n) => off + len > n,
            Kind::Keeps(_) => write,
            Kind::SlowReads(s, ms) if !write && s.touches(off, len) => {
                delay = delay.max(ms);
                true
            }
            Kind::Hang(s) if s.touches(off, len) => {
                answer = Answer::Hang;
                true
            }
            Kind::VanishAfter(n) if moved >= n => {
                answer = answer.max_with(Answer::Fail);
                true
            }
            Kind::HangAfter(n) if moved >= n => {
                answer = Answer::Hang;
                true
            }
            Kind::Count(s) => s.touches(off, len),
            _ => false,
        };
        if applies {
            if write {
                r.writes += 1;
            } else {
                r.reads += 1;
            }
        }
    }
    (answer, delay)
}

impl Answer {
    /// The stronger of two answers: a hang over a failure over serving.
    fn max_with(self, other: Answer) -> Answer {
        match (self, other) {
            (Answer::Hang, _) | (_, Answer::Hang) => Answer::Hang,
            (Answer::Fail, _) | (_, Answer::Fail) => Answer::Fail,
            _ => Answer::Serve,
        }
    }
}

/// Where the sector at logical byte `at` is stored: wrapped, then (for writes)
/// misdirected. `None` for a write that is dropped. `moved` is the bytes served
/// before the request (for a `drop-writes` that starts later).
pub fn place(rules: &[Rule], at: u64, write: bool, moved: u64) -> Option<u64> {
    let mut p = at;
    for r in rules {
        if let Kind::Wrap(n) = r.kind {
            p %= n;
        }
    }
    if write {
        for r in rules {
            match r.kind {
                Kind::DropWrites(s, after) if moved >= after && s.holds(p) => return None,
                Kind::Misdirect(s, to) if s.holds(p) => p = to + (p - s.start),
                _ => {}
            }
        }
    }
    Some(p)
}

/// The bytes a `keeps=N` rule keeps, if one is given (the smallest of several).
pub fn keeps(rules: &[Rule]) -> Option<u64> {
    rules
        .iter()
        .filter_map(|r| match r.kind {
            Kind::Keeps(n) => Some(n),
            _ => None,
        })
        .min()
}

/// The addresses a counterfeit that remaps (`keeps=N`) gave its flash to: each
/// address written for the first time takes flash while some is left, and keeps
/// it. Merged byte spans, so a long sequential write is one span.
#[derive(Debug, Default)]
pub struct Kept {
    /// Bytes given flash so far.
    used: u64,
    /// First byte → just past the last, disjoint, touching spans merged.
    spans: BTreeMap<u64, u64>,
}

impl Kept {
    /// A write of `[a, b)` with `limit` bytes of flash: its addresses not mapped
    /// yet are mapped while flash is left, lowest first. The parts stored, sorted.
    pub fn write(&mut self, limit: u64, a: u64, b: u64) -> Vec<(u64, u64)> {
        let mut at = a;
        let mut gaps = Vec::new();
        for (s, e) in self.mapped(a, b) {
            if s > at {
                gaps.push((at, s));
            }
            at = e;
        }
        if at < b {
            gaps.push((at, b));
        }
        for (x, y) in gaps {
            let end = y.min(x + limit.saturating_sub(self.used));
            if end == x {
                break;
            }
            self.used += end - x;
            self.insert(x, end);
        }
        self.mapped(a, b)
    }

    /// Every part that holds data, sorted: `[first byte, just past the last]`.
    pub fn spans(&self) -> Vec<[u64; 2]> {
        self.spans.iter().map(|(&a, &b)| [a, b]).collect()
    }

    /// The parts of `[a, b)` that hold data, sorted.
    pub fn mapped(&self, a: u64, b: u64) -> Vec<(u64, u64)> {
        let from = self.spans.range(..=a).next_back().map_or(a, |(&s, _)| s);
        self.spans
            .range(from..b)
            .filter(|&(_, &e)| e > a)
            .map(|(&s, &e)| (s.max(a), e.min(b)))
            .collect()
    }

    fn insert(&mut self, mut a: u64, mut b: u64) {
        if let Some((&s, &e)) = self.spans.range(..=a).next_back()
            && e == a
        {
            self.spans.remove(&s);
            a = s;
        }
        if let Some(e) = self.spans.remove(&b) {
            b = e;
        }
        self.spans.insert(a, b);
    }
}
