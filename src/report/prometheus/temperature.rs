//! The drive's temperatures during long work (a burn-in, --verify, --smr-check
//! with SMART read): the lowest and highest reading, the limit, the number of
//! samples and the time its writes were paused.

use super::{Exposition, Family};
use crate::results::smart::SmartResult;

/// The families of this file, written after the qualification tests' ones.
pub(super) const FAMILIES: &[Family] = &[
    Family {
        name: "seekprobe_smart_temperature_min_celsius",
        kind: "gauge",
        help: "The lowest temperature the drive reported during long work (a burn-in, --verify, --smr-check).",
    },
    Family {
        name: "seekprobe_smart_temperature_max_celsius",
        kind: "gauge",
        help: "The highest temperature the drive reported during long work.",
    },
    Family {
        name: "seekprobe_smart_temperature_limit_celsius",
        kind: "gauge",
        help: "The temperature limit of the run (--max-temp, else the drive's own, else 60).",
    },
    Family {
        name: "seekprobe_smart_temperature_samples",
        kind: "gauge",
        help: "How many temperature readings were taken during long work.",
    },
    Family {
        name: "seekprobe_smart_temperature_paused_seconds",
        kind: "gauge",
        help: "How long the drive's writes were paused because it was above the limit (the drive's clock).",
    },
];

/// The temperature figures of a drive's SMART result, when it was watched.
pub(super) fn render(x: &mut Exposition, labels: &[(&'static str, String)], smart: &SmartResult) {
    let Some(t) = &smart.temperature else { return };
    if let Some(c) = t.min_c() {
        x.add(
            "seekprobe_smart_temperature_min_celsius",
            "",
            labels,
            c as f64,
        );
    }
    if let Some(c) = t.max_c() {
        x.add(
            "seekprobe_smart_temperature_max_celsius",
            "",
            labels,
            c as f64,
        );
    }
    x.add(
        "seekprobe_smart_temperature_limit_celsius",
        "",
        labels,
        t.limit_c as f64,
    );
    x.add(
        "seekprobe_smart_temperature_samples",
        "",
        labels,
        t.samples.len() as f64,
    );
    x.add(
        "seekprobe_smart_temperature_paused_seconds",
        "",
        labels,
        t.paused_s() as f64,
    );
}
