//! What a simulated drive shares with the drives beside it, for the path check
//! (`--path-check`, docs/sim.md "Drives together: a shared controller, vibration"):
//! a controller of a given bandwidth (`controller=NAME:RATE`) and a loss of rate
//! that shows only when other drives run at once (`vibration=FRACTION`).
//!
//! Each simulated drive has its own virtual clock, so drives never see each other's
//! operations. What they share is told to each drive by the path check's engine
//! ([`Together`]): how many drives run at once, and how many of them sit on this
//! drive's controller. The model is then deterministic: while `n` drives of a
//! controller of rate `R` read together, each operation of this drive takes at
//! least its bytes over `R / n` (so the drive gets min(own rate, R / n)), and with
//! vibration `v` and any other drive running its service time is divided by
//! `1 - v` (the drive keeps `1 - v` of its rate).

use crate::device::Together;

/// The keys accepted after `?`, for error messages.
pub(super) const ACCEPTED_KEYS: &str = "controller=NAME:RATE (a shared controller, RATE in bytes/s \
with an optional decimal suffix k, M or G, e.g. hba0:300M), \
vibration=FRACTION (0 to 0.9: the rate lost only while other drives run)";

/// The largest vibration loss accepted (a drive keeps at least a tenth of its rate).
const MAX_VIBRATION: f64 = 0.9;

/// What a spec says the drive shares, as written.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct SharedSpec {
    /// The controller the drive sits on: its name and bandwidth in bytes/s.
    pub(super) controller: Option<(String, u64)>,
    /// The fraction of its rate the drive loses while other drives run.
    pub(super) vibration: f64,
}

impl SharedSpec {
    /// Take `key=value` if it is one of ours: Ok(true) when taken, Ok(false) when
    /// the key is not ours, Err(what is wrong with the value).
    pub(super) fn parse_key(&mut self, key: &str, value: &str) -> Result<bool, String> {
        match key {
            "controller" => {
                let (name, rate) = value
                    .rsplit_once(':')
                    .ok_or("expected NAME:RATE, e.g. hba0:300M")?;
                let name_ok = !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
                if !name_ok {
                    return Err("the controller's name is letters, digits, '-', '_' or '.'".into());
                }
                let rate = parse_rate(rate)
                    .filter(|&r| r > 0)
                    .ok_or("RATE is bytes per second, optionally with k, M or G (10^3, 10^6, 10^9), more than 0")?;
                self.controller = Some((name.to_string(), rate));
            }
            "vibration" => {
                self.vibration = value
                    .parse::<f64>()
                    .ok()
                    .filter(|v| (0.0..=MAX_VIBRATION).contains(v))
                    .ok_or("expected a fraction of the rate from 0 to 0.9, e.g. 0.4")?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The clause of the drive's one-line description, empty when it shares nothing.
    pub(super) fn describe(&self, d: &mut String) {
        if let Some((name, rate)) = &self.controller {
            d.push_str(&format!(
                ", on controller {name} of {:.0} MB/s",
                *rate as f64 / 1e6
            ));
        }
        if self.vibration > 0.0 {
            d.push_str(&format!(
                ", loses {:.0}% of its rate while other drives run",
                self.vibration * 100.0
            ));
        }
    }

    /// The service time of an operation of `len` bytes that takes `svc_ns` alone,
    /// while `together` holds (see the module's documentation).
    pub(super) fn stretch(&self, svc_ns: f64, len: u64, together: Together) -> f64 {
        let mut t = svc_ns;
        if together.drives > 1 && self.vibration > 0.0 {
            t /= 1.0 - self.vibration;
        }
        if let Some((_, rate)) = &self.controller {
            let n = together.on_controller.max(1) as f64;
            t = t.max(len as f64 * 1e9 * n / *rate as f64);
        }
        t
    }
}

/// Bytes per second with an optional decimal suffix k/K, M, G (rates are decimal,
/// as MB/s are).
fn parse_rate(v: &str) -> Option<u64> {
    super::parse_scaled(v, 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pairs: &[(&str, &str)]) -> Result<SharedSpec, String> {
        let mut s = SharedSpec::default();
        for (k, v) in pairs {
            assert!(s.parse_key(k, v)?);
        }
        Ok(s)
    }

    #[test]
    fn controller_and_vibration_parse_and_refuse() {
        let s = spec(&[("controller", "hba0:300M"), ("vibration", "0.4")]).unwrap();
        assert_eq!(s.controller, Some(("hba0".to_string(), 300_000_000)));
        assert_eq!(s.vibration, 0.4);
        assert!(spec(&[("controller", "hba0")]).is_err());
        assert!(spec(&[("controller", ":300M")]).is_err());
        assert!(spec(&[("controller", "hba0:0")]).is_err());
        assert!(spec(&[("controller", "hba0:3X")]).is_err());
        assert!(spec(&[("vibration", "1")]).is_err());
        assert!(spec(&[("vibration", "-0.1")]).is_err());
        assert!(!SharedSpec::default().parse_key("rpm", "5400").unwrap());
    }

    #[test]
    fn a_controller_shares_its_rate_among_the_drives_running_on_it() {
        let s = spec(&[("controller", "hba0:300M")]).unwrap();
        let alone = Together::default();
        let four = Together {
            drives: 4,
            on_controller: 4,
        };
        // 1 MB in 5 ms is 200 MB/s: alone the controller does not limit it.
        assert_eq!(s.stretch(5e6, 1_000_000, alone), 5e6);
        // Four on 300 MB/s: 75 MB/s each, 1 MB in 13.33 ms.
        let t = s.stretch(5e6, 1_000_000, four);
        assert!((t - 1e9 / 75.0).abs() < 1e-3, "{t}");
    }

    #[test]
    fn vibration_costs_only_while_other_drives_run() {
        let s = spec(&[("vibration", "0.5")]).unwrap();
        assert_eq!(s.stretch(4e6, 1 << 20, Together::default()), 4e6);
        let two = Together {
            drives: 2,
            on_controller: 1,
        };
        assert_eq!(s.stretch(4e6, 1 << 20, two), 8e6);
    }
}
