//! Temperatures during long work (a burn-in, `--verify`, `--smr-check`, long
//! self-tests): what the samples say ([`TemperatureLog`], plain data in the
//! results), the limit
//! (`--max-temp`, else the drive's own `temperature.op_limit_max`, else 60 °C)
//! and the pure decisions of the sampler ([`Sampler`]): when a sample is due,
//! when a reading above the limit pauses the drive's writes, and when it has
//! cooled 5 °C below the limit to resume them. The sampling itself (reading the
//! drive, letting time pass) is the watcher's (prober/smart_watch.rs).

use crate::results::smart::{Pause, Sample, TemperatureLog};

/// The limit without `--max-temp` or a drive's own, °C.
pub const DEFAULT_MAX_C: i64 = 60;
/// How far below the limit a paused drive must cool before its writes resume, °C
/// (nwipe users' request: pause hot drives, resume when cooler).
pub const RESUME_BELOW_C: i64 = 5;
/// How often a real drive is sampled (smartctl), seconds.
pub const EVERY_REAL_S: f64 = 300.0;
/// How often a simulated drive is sampled, seconds of its virtual clock.
pub const EVERY_SIMULATED_S: f64 = 600.0;
/// While writes are paused, how often the drive is read again, seconds.
pub const PAUSED_EVERY_S: f64 = 60.0;

impl TemperatureLog {
    /// The lowest reading in °C; None when nothing was read.
    pub fn min_c(&self) -> Option<i64> {
        self.samples.iter().map(|s| s.celsius).min()
    }

    /// The highest reading in °C; None when nothing was read.
    pub fn max_c(&self) -> Option<i64> {
        self.samples.iter().map(|s| s.celsius).max()
    }

    /// Seconds the writes were paused (an open pause counts to the last sample).
    pub fn paused_s(&self) -> u64 {
        let end = self.samples.last().map_or(0, |s| s.at_s);
        self.pauses
            .iter()
            .map(|p| p.to_s.unwrap_or(end).saturating_sub(p.from_s))
            .sum()
    }
}

/// The limit and where it comes from: `--max-temp` wins, else the drive's own
/// highest operating temperature, else [`DEFAULT_MAX_C`].
pub fn limit(given: Option<i64>, drive: Option<i64>) -> (i64, &'static str) {
    match (given, drive) {
        (Some(c), _) => (c, "--max-temp"),
        (None, Some(c)) => (c, "the drive's temperature.op_limit_max"),
        (None, None) => (DEFAULT_MAX_C, "seekprobe's default"),
    }
}

/// What to do after a reading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Go on.
    Continue,
    /// Above the limit: pause the writes.
    Pause,
    /// Paused and cooled 5 °C below the limit: resume them.
    Resume,
}

/// The sampler's state: the log it fills and when the next reading is due.
#[derive(Debug, Clone)]
pub struct Sampler {
    /// What was read.
    pub log: TemperatureLog,
    every_s: f64,
    next_s: f64,
}

impl Sampler {
    /// A sampler reading every `every_s` seconds, the first reading at once.
    pub fn new(limit_c: i64, limit_source: &str, every_s: f64) -> Sampler {
        Sampler {
            log: TemperatureLog {
                limit_c,
                limit_source: limit_source.into(),
                ..Default::default()
            },
            every_s,
            next_s: 0.0,
        }
    }

    /// Whether writes are paused now.
    pub fn paused(&self) -> bool {
        self.log.pauses.last().is_some_and(|p| p.to_s.is_none())
    }

    /// Whether a reading is due at `now_s` (seconds since the start).
    pub fn due(&self, now_s: f64) -> bool {
        now_s >= self.next_s
    }

    /// Record a reading at `now_s` (None: the drive did not say) and decide.
    pub fn record(&mut self, now_s: f64, celsius: Option<i64>) -> Action {
        self.next_s = now_s + self.every_s;
        let Some(c) = celsius else {
            self.log.unread += 1;
            return Action::Continue;
        };
        let at_s = now_s as u64;
        self.log.samples.push(Sample { at_s, celsius: c });
        let limit = self.log.limit_c;
        if self.paused() {
            if c <= limit.saturating_sub(RESUME_BELOW_C) {
                if let Some(p) = self.log.pauses.last_mut() {
                    p.to_s = Some(at_s);
                    p.cooled = true;
                }
                return Action::Resume;
            }
            return Action::Continue;
        }
        if c > limit {
            self.log.pauses.push(Pause {
                from_s: at_s,
                to_s: None,
                celsius: c,
                cooled: false,
            });
            return Action::Pause;
        }
        Action::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_given_wins_then_the_drives_then_60() {
        assert_eq!(limit(Some(50), Some(70)), (50, "--max-temp"));
        assert_eq!(limit(None, Some(70)).0, 70);
        assert_eq!(limit(None, None), (60, "seekprobe's default"));
    }

    #[test]
    fn a_hot_drive_pauses_until_5_degrees_below_the_limit() {
        let mut s = Sampler::new(50, "--max-temp", 600.0);
        assert!(s.due(0.0));
        assert_eq!(s.record(0.0, Some(40)), Action::Continue);
        assert!(!s.due(599.0) && s.due(600.0));
        assert_eq!(s.record(600.0, Some(51)), Action::Pause);
        assert!(s.paused());
        assert_eq!(s.record(660.0, Some(46)), Action::Continue, "46 > 45");
        assert_eq!(s.record(720.0, Some(45)), Action::Resume);
        assert!(!s.paused());
        assert_eq!(s.record(780.0, None), Action::Continue);
        let log = &s.log;
        assert_eq!(
            log.pauses,
            [Pause {
                from_s: 600,
                to_s: Some(720),
                celsius: 51,
                cooled: true
            }]
        );
        assert_eq!((log.min_c(), log.max_c()), (Some(40), Some(51)));
        assert_eq!((log.paused_s(), log.unread, log.samples.len()), (120, 1, 4));
    }
}
