//! A line of the live view on a terminal, fitted to its width: the parts a person
//! needs most (the drive, its step, the step's progress, the failing count) are
//! kept, the others dropped whole, least needed first, so that nothing is cut in
//! the middle of a word and no line wraps (a wrapped line breaks the redraw).

/// How long a part is kept when the line is too wide: [`MUST`] parts always,
/// the others dropped in rising order.
pub(super) type Keep = u8;

/// A part that is never dropped: the drive, its step, its progress, its
/// failing count. When these alone are too wide, the step (or what replaces
/// it) loses whole words from its end.
pub(super) const MUST: Keep = 10;

/// A part of a line.
pub(super) struct Part {
    text: String,
    keep: Keep,
    /// Spaces after the text, to align the columns of the drives' lines; the
    /// first thing given up when the line is too wide.
    pad: usize,
    /// Whole words may be dropped from its end when the [`MUST`] parts are too
    /// wide (a step's name, a finished drive's reason).
    shortens: bool,
}

impl Part {
    /// `text`, kept as `keep` says.
    pub(super) fn new(text: impl Into<String>, keep: Keep) -> Part {
        Part {
            text: text.into(),
            keep,
            pad: 0,
            shortens: false,
        }
    }

    /// Padded with spaces to `width` columns (when the line has room).
    pub(super) fn padded(mut self, width: usize) -> Part {
        self.pad = width.saturating_sub(columns(&self.text));
        self
    }

    /// One that may lose words from its end.
    pub(super) fn shortens(mut self) -> Part {
        self.shortens = true;
        self
    }
}

/// The columns `s` takes (one a character: the live view's text has no wide
/// characters).
pub(super) fn columns(s: &str) -> usize {
    s.chars().count()
}

/// The parts kept (`on`), in order, two spaces apart, with their padding when
/// `padded`.
fn join(parts: &[Part], on: &[bool], padded: bool) -> String {
    let mut line = String::new();
    for (p, _) in parts.iter().zip(on).filter(|(_, on)| **on) {
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(&p.text);
        if padded {
            line.extend(std::iter::repeat_n(' ', p.pad));
        }
    }
    line.truncate(line.trim_end().len());
    line
}

/// `parts` on one line of at most `width` columns: the parts of lowest keep
/// dropped first, then the padding, then whole words from the end of the parts
/// that shorten (marked "…"); a single word wider than the line (a drive's
/// name on a very narrow terminal) is the only thing ever cut.
pub(super) fn fit(mut parts: Vec<Part>, width: usize) -> String {
    let mut on = vec![true; parts.len()];
    loop {
        let line = join(&parts, &on, true);
        if columns(&line) <= width {
            return line;
        }
        let drop = (0..parts.len())
            .filter(|&i| on[i] && parts[i].keep < MUST)
            .min_by_key(|&i| (parts[i].keep, std::cmp::Reverse(i)));
        match drop {
            Some(i) => on[i] = false,
            None => break,
        }
    }
    loop {
        let line = join(&parts, &on, false);
        let over = columns(&line).saturating_sub(width);
        if over == 0 {
            return line;
        }
        // The longest part that can still lose a word.
        let Some(p) = (0..parts.len())
            .filter(|&i| on[i] && parts[i].shortens && parts[i].text.contains(' '))
            .max_by_key(|&i| columns(&parts[i].text))
        else {
            return line.chars().take(width).collect();
        };
        let text = parts[p].text.trim_end_matches('…').trim_end();
        let cut = text.rfind(' ').unwrap_or(0);
        parts[p].text = format!("{}…", text[..cut].trim_end());
    }
}

/// A bar of `width` columns (its brackets included) `done` (0 to 1) full.
pub(super) fn bar(done: f64, width: usize) -> String {
    let inner = width.saturating_sub(2);
    let full = ((done.clamp(0.0, 1.0) * inner as f64) as usize).min(inner);
    let head = usize::from(full < inner && done > 0.0);
    format!(
        "[{}{}{}]",
        "=".repeat(full),
        ">".repeat(head),
        " ".repeat(inner - full - head)
    )
}

/// The width of the terminal on standard error, in columns (80 when it cannot
/// be read).
pub(super) fn terminal_width() -> usize {
    match rustix::termios::tcgetwinsize(std::io::stderr()) {
        Ok(w) if w.ws_col > 0 => usize::from(w.ws_col),
        _ => 80,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line() -> Vec<Part> {
        vec![
            Part::new("sim:hdd?size=20G", MUST).padded(20),
            Part::new("(SIMH4F857)", 2),
            Part::new("write-verify pass (--verify)", MUST).shortens(),
            Part::new(bar(0.5, 12), 1),
            Part::new(" 50%", MUST),
            Part::new("pass 1 of 1: writing", 3),
            Part::new("158.8 MB/s", 5),
            Part::new("step ETA 1m 40s", 4),
            Part::new("0 failing steps", MUST),
        ]
    }

    #[test]
    fn a_wide_terminal_shows_every_part_in_its_columns() {
        assert_eq!(
            fit(line(), 200),
            "sim:hdd?size=20G      (SIMH4F857)  write-verify pass (--verify)  [=====>    ]   50%  pass 1 of 1: writing  158.8 MB/s  step ETA 1m 40s  0 failing steps"
        );
    }

    #[test]
    fn a_narrow_one_drops_whole_parts_least_needed_first_then_words() {
        // The bar goes first, then the serial, the part, the ETA, the rate.
        let l = fit(line(), 110);
        assert_eq!(
            l,
            "sim:hdd?size=20G      write-verify pass (--verify)   50%  158.8 MB/s  step ETA 1m 40s  0 failing steps"
        );
        let l = fit(line(), 80);
        assert_eq!(
            l,
            "sim:hdd?size=20G      write-verify pass (--verify)   50%  0 failing steps"
        );
        // Without the padding, then without the step's last word.
        let l = fit(line(), 70);
        assert_eq!(
            l,
            "sim:hdd?size=20G  write-verify pass (--verify)   50%  0 failing steps"
        );
        let l = fit(line(), 60);
        assert_eq!(
            l,
            "sim:hdd?size=20G  write-verify pass…   50%  0 failing steps"
        );
        assert!(columns(&l) <= 60);
        for w in 20..220 {
            assert!(columns(&fit(line(), w)) <= w, "{w}");
        }
    }

    #[test]
    fn bars() {
        assert_eq!(bar(0.0, 7), "[     ]");
        assert_eq!(bar(0.5, 7), "[==>  ]");
        assert_eq!(bar(1.0, 7), "[=====]");
    }
}
