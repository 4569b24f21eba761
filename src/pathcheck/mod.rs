//! The path check (`--path-check`, docs/methods.md "Path check"): whether drives
//! that lose rate together lose it to their shared path (a controller, an
//! expander, a link) or on their own (vibration, a slot).
//!
//! Read-only, and the check runs its drives together itself: it opens every drive
//! of the run, measures each one's sequential read rate alone at a few positions
//! and its seek stress (several random readers), then the same with every drive
//! at once, groups the drives by their path ([`path_of`]) and hands the figures to
//! the judge's rules ([`crate::verdict::path`]). Measurement only: nothing here
//! prints or decides.

pub mod measure;

use crate::device::{OpenOptions, Stop, Target, Together};
use crate::results::path::{PathDrive, PathGroup, PositionRate};
use std::sync::Barrier;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// How long each measurement runs, on each drive's own clock.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// Sequential reads at each position.
    pub position: Duration,
    /// The seek stress.
    pub seek: Duration,
    /// How long a request may go unanswered (`--io-timeout`): a drive that hangs
    /// is given up, and the others go on.
    pub io_timeout: Option<Duration>,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            position: Duration::from_secs(2),
            seek: Duration::from_secs(2),
            io_timeout: None,
        }
    }
}

/// Where the sequential reads start, as fractions of the drive (its outer, middle
/// and inner part on a rotating disk).
pub const POSITIONS: [f64; 3] = [0.0, 0.5, 0.9];

/// The seed of the seek stress's offsets: the same alone and together, so that
/// both read the same places.
const SEED: u64 = 1;

/// What the check tells as it goes: its phase `done` of `of` (each drive's
/// positions and seek stress alone, then every drive's together, each as long as
/// `Timing` says), and what the phase does, in words.
pub type Told<'a> = &'a (dyn Fn(usize, usize, &str) + Sync);

/// Run the path check on the drives named `names` (as on the command line); one
/// result a drive, in order (a drive that could not be opened has its error).
/// `told` hears each phase as it starts: never silent for long.
pub fn run(names: &[String], timing: Timing, stop: &Stop, told: Told<'_>) -> Vec<PathDrive> {
    let opts = OpenOptions {
        io: true,
        write: false,
        limit: (timing.io_timeout).unwrap_or(Duration::from_secs_f64(
            crate::device::watched::DEFAULT_TIMEOUT_S,
        )),
        stop: stop.clone(),
    };
    let mut opened: Vec<Result<Box<dyn Target>, String>> = names
        .iter()
        .map(|n| crate::device::open(n, &opts).map_err(|e| e.to_string()))
        .collect();
    let mut drives: Vec<PathDrive> = opened
        .iter_mut()
        .map(|t| PathDrive {
            group: t.as_mut().map(|t| path_of(t.as_mut())).unwrap_or_default(),
            drives_together: 0,
            positions: Vec::new(),
            seek_alone_iops: 0.0,
            seek_together_iops: 0.0,
            error: t.as_ref().err().cloned(),
            unanswered: false,
            interrupted: false,
            findings: Vec::new(),
        })
        .collect();
    let mut live: Vec<(&mut Box<dyn Target>, &mut PathDrive)> = opened
        .iter_mut()
        .zip(drives.iter_mut())
        .filter_map(|(t, d)| t.as_mut().ok().map(|t| (t, d)))
        .collect();
    let n = live.len();
    // Each drive's phases alone, then theirs together.
    let phases = POSITIONS.len() + 1;
    let of = (n + 1) * phases;
    for (i, (t, d)) in live.iter_mut().enumerate() {
        d.drives_together = n;
        let name = t.info().name.clone();
        let told =
            |k: usize, what: &str| told(i * phases + k, of, &format!("{name} alone: {what}"));
        alone(t.as_mut(), d, (timing, stop), &told);
    }
    let told = |k: usize, what: &str| {
        told(
            n * phases + k,
            of,
            &format!("the {n} drives together: {what}"),
        )
    };
    together(&mut live, timing, stop, &told);
    let named: Vec<(&str, &PathDrive)> = names
        .iter()
        .map(String::as_str)
        .zip(drives.iter())
        .collect();
    let findings = crate::verdict::path::findings(&named);
    for (d, f) in drives.iter_mut().zip(findings) {
        d.findings = f;
    }
    drives
}

/// The path `t` sits on: a simulated drive's controller, else what the system
/// says (Linux: sysfs), else unknown.
pub fn path_of(t: &mut dyn Target) -> PathGroup {
    if let Some((name, rate)) = t.simulated().and_then(|s| s.controller()) {
        return PathGroup {
            name: format!("controller {name}"),
            detail: String::new(),
            bandwidth: Some(rate as f64),
        };
    }
    #[cfg(target_os = "linux")]
    if let Some(fd) = t.raw_fd() {
        return crate::device::linux::path::group(fd);
    }
    PathGroup::default()
}

/// Tell `t` how many drives run at once: only a simulated drive needs to hear it
/// (a real one feels it).
fn tell_together(t: &mut dyn Target, now: Together) {
    if let Some(s) = t.simulated() {
        s.set_together(now);
    }
}

/// What a phase is, in words: the sequential reads at each position, then the
/// seek stress.
fn phase(k: usize) -> String {
    match POSITIONS.get(k) {
        Some(p) => format!("sequential reads from {:.0}%", p * 100.0),
        None => "seek stress".into(),
    }
}

/// Each position's sequential rate and the seek stress with the drive alone;
/// `told` hears each phase as it starts.
fn alone(
    t: &mut dyn Target,
    d: &mut PathDrive,
    (timing, stop): (Timing, &AtomicBool),
    told: &dyn Fn(usize, &str),
) {
    tell_together(t, Together::default());
    let size = t.info().media_size_bytes;
    for (k, p) in POSITIONS.into_iter().enumerate() {
        told(k, &phase(k));
        let at = (size as f64 * p) as u64;
        match measure::sequential(t, at, timing.position, stop) {
            Ok(rate) => d.positions.push(PositionRate {
                offset_bytes: at,
                alone: rate,
                together: 0.0,
            }),
            Err(cut) => {
                cut.record(d, &format!("sequential reads alone from byte {at}"));
                return;
            }
        }
    }
    told(POSITIONS.len(), &phase(POSITIONS.len()));
    match measure::seek_stress(t, (timing.seek, timing.io_timeout), SEED, stop) {
        Ok(iops) => d.seek_alone_iops = iops,
        Err(cut) => cut.record(d, "seek stress alone"),
    }
}

/// Every drive at once: each position together (the drives start each position at
/// the same moment), then the seek stress together; `told` hears each phase as
/// it starts (from the first drive's thread).
fn together(
    live: &mut [(&mut Box<dyn Target>, &mut PathDrive)],
    timing: Timing,
    stop: &AtomicBool,
    told: &(dyn Fn(usize, &str) + Sync),
) {
    let n = live.len();
    // The paths of the drives that read together (one stopped alone does not).
    let groups: Vec<Option<PathGroup>> = live
        .iter()
        .map(|(_, d)| d.complete().then(|| d.group.clone()))
        .collect();
    let reading = groups.iter().flatten().count();
    let barrier = Barrier::new(n);
    if measure::stop_hook("together") {
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    std::thread::scope(|s| {
        for (i, (t, d)) in live.iter_mut().enumerate() {
            let on_controller = match &groups[i] {
                Some(g) if g.known() => groups.iter().flatten().filter(|h| *h == g).count(),
                _ => 1,
            };
            let barrier = &barrier;
            s.spawn(move || {
                tell_together(
                    t.as_mut(),
                    Together {
                        drives: reading,
                        on_controller,
                    },
                );
                // Every thread waits at every barrier, whatever its drive did.
                for k in 0..POSITIONS.len() {
                    barrier.wait();
                    if i == 0 {
                        told(k, &phase(k));
                    }
                    if !d.complete() {
                        continue;
                    }
                    let Some(p) = d.positions.get_mut(k) else {
                        continue;
                    };
                    match measure::sequential(t.as_mut(), p.offset_bytes, timing.position, stop) {
                        Ok(rate) => p.together = rate,
                        Err(cut) => {
                            let at = p.offset_bytes;
                            cut.record(d, &format!("sequential reads together from byte {at}"));
                        }
                    }
                }
                barrier.wait();
                if i == 0 {
                    told(POSITIONS.len(), &phase(POSITIONS.len()));
                }
                if d.complete() {
                    match measure::seek_stress(
                        t.as_mut(),
                        (timing.seek, timing.io_timeout),
                        SEED,
                        stop,
                    ) {
                        Ok(iops) => d.seek_together_iops = iops,
                        Err(cut) => cut.record(d, "seek stress together"),
                    }
                }
                tell_together(t.as_mut(), Together::default());
            });
        }
    });
}
