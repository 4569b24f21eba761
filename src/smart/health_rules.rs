//! Health rules: a pure function of the health read before a run, the health read
//! after it (when there is one) and the options, giving findings with reasons.
//! The counters are judged here; the self-test log ([`super::history`]), a new
//! drive's use ([`super::newness`]), FARM ([`super::farm`]) and the error
//! recovery timers ([`super::erc`]) in their own files. docs/smart.md lists every
//! rule with its source.

pub use super::counters::{Counter, Kind, Thresholds};
use crate::results::health::{ExitStatus, Health};
use crate::results::verdict::Figure;
use crate::results::{Finding, Severity};
use serde::{Deserialize, Serialize};

/// The UDMA CRC count (ATA 199) from which a drive gets a warning whatever
/// its rise: each is a frame the link corrupted and the host sent again; a
/// cable fault that is noticed and fixed leaves tens (the real reports here: 12
/// and 24), a hundred thousand takes a bad path under load for a long time.
/// The cut is seekprobe's (docs/smart.md).
pub const CRC_COUNT_WARN_AT: u64 = 100_000;

/// A new drive's power-on hours allowed by default (`--new-max-hours`): factory
/// testing and a burn-in leave a few, a used drive thousands.
pub const DEFAULT_NEW_MAX_HOURS: u64 = 48;

/// What the health rules take from the command line (`--new`, thresholds); the
/// defaults judge a used drive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RuleOptions {
    /// The drive is new (`--new`): damage counts above their threshold, use
    /// beyond factory testing, any wear and any past self-test failure fail it.
    pub new_drive: bool,
    /// Per-counter thresholds.
    pub thresholds: Thresholds,
    /// With `--new`: the power-on hours allowed (`--new-max-hours`).
    pub new_max_hours: u64,
}

impl Default for RuleOptions {
    fn default() -> RuleOptions {
        RuleOptions {
            new_drive: false,
            thresholds: Thresholds::default(),
            new_max_hours: DEFAULT_NEW_MAX_HOURS,
        }
    }
}

/// Judge a drive's health: `before` is the reading before the run (or the only
/// one), `after` the reading after it. The state rules (smartctl says failing,
/// NVMe warnings, wear, the counters, the self-test log) look at the latest
/// reading; a new drive (`--new`) is judged as it came, on `before`; a rise is
/// from `before` to `after`.
pub fn findings(before: &Health, after: Option<&Health>, opts: &RuleOptions) -> Vec<Finding> {
    let now = after.unwrap_or(before);
    let mut out = Vec::new();
    let exit = now.exit_status.unwrap_or(ExitStatus(0));
    cannot_judge(now, "the report", &mut out);
    if after.is_some() {
        cannot_judge(before, "the first report", &mut out);
    }
    super::exit_bits::failing(now, exit, &mut out);
    for a in &now.unreadable {
        out.push(
            Finding::smart(
                Severity::Note,
                "unreadable-counter",
                format!(
                    "ATA attribute {} {}: raw value {} is not a count: left out, the other attributes judged",
                    a.id,
                    a.name,
                    super::health::raw_in_words(a)
                ),
            )
            .with(Figure::new(
                &a.name,
                None,
                &format!("ATA attribute {}, raw", a.id),
            )),
        );
    }
    for a in &now.failed_attributes {
        let (sev, when) = match (a.now, a.prefailure) {
            (true, true) => (Severity::Fail, "is"),
            (true, false) => (Severity::Warning, "is"),
            (false, _) => (Severity::Note, "was once"),
        };
        let kind = if a.prefailure { "pre-failure" } else { "age" };
        out.push(
            Finding::smart(
                sev,
                "attribute-threshold",
                format!(
                    "{kind} attribute {} {} {when} at or below its threshold",
                    a.id, a.name
                ),
            )
            .with(Figure::new(
                &a.name,
                None,
                &format!("ATA attribute {}, normalised value and threshold", a.id),
            )),
        );
    }
    nvme_state(now, &mut out);
    counters(before, after, opts, &mut out);
    super::self_test_log::findings(now, opts.new_drive, &mut out);
    if opts.new_drive {
        super::newness::findings(before, opts.new_max_hours, &opts.thresholds, &mut out);
    } else {
        super::wear::findings(now, &mut out);
    }
    crc_count(now, opts, &mut out);
    super::farm::findings(now, &mut out);
    super::erc::findings(now, &mut out);
    notes(now, exit, &mut out);
    out.sort_by_key(|f| f.severity);
    out
}

/// The rules whose finding says the report cannot be judged (not that the
/// drive is failing): `seekprobe smart` exits 1 on them, the verdict names them
/// `smart_unreadable` (the list is `results::smart`'s, which gives each its code).
use crate::results::smart::CANNOT_JUDGE;

impl Finding {
    /// Whether it says the report cannot be judged ([`CANNOT_JUDGE`]).
    pub fn cannot_judge(&self) -> bool {
        CANNOT_JUDGE.contains(&self.rule.as_str())
    }
}

/// A report whose structure cannot be read, or that holds no SMART health at
/// all (only Seagate's FARM log), cannot be judged: never "healthy".
fn cannot_judge(now: &Health, which: &str, out: &mut Vec<Finding>) {
    for p in &now.unjudgeable {
        out.push(
            Finding::smart(
                Severity::Fail,
                "unjudgeable",
                format!(
                    "{which} cannot be judged: {p}; give the report smartctl --json -x DEVICE wrote"
                ),
            )
            .with(Figure::new(
                "report-structure",
                None,
                p.split(' ').next().unwrap_or(p),
            )),
        );
    }
    if !now.has_health() && now.unjudgeable.is_empty() {
        out.push(
            Finding::smart(
                Severity::Fail,
                "no-health-data",
                format!("{which} holds no SMART health (no overall assessment, no ATA attributes, SCSI counters or NVMe health log), so the drive's health cannot be judged from it; take smartctl --json -x DEVICE (with -l farm for Seagate's FARM log)"),
            )
            .with(Figure::new("smart-health", None, "smart_status, ata_smart_attributes, scsi_error_counter_log, nvme_smart_health_information_log")),
        );
    }
}

/// NVMe's critical warning bits, percentage used and spare.
fn nvme_state(now: &Health, out: &mut Vec<Finding>) {
    let Some(n) = &now.nvme else { return };
    for w in &n.warnings {
        out.push(
            Finding::smart(
                Severity::Fail,
                "nvme-critical-warning",
                format!("NVMe critical warning bit {}: {}", w.bit(), w.describe()),
            )
            .with(Figure::new(
                "critical-warning",
                n.critical_warning.map(u64::from),
                "NVMe SMART / Health log critical_warning",
            )),
        );
    }
    // The NVMe Base Specification: percentage used may exceed 100, and 100 does
    // not mean failure by itself; past it the drive is beyond its rated life.
    if let Some(used) = n.percentage_used.filter(|u| *u >= 100) {
        let (sev, what) = if used > 100 {
            (Severity::Fail, "beyond its rated endurance")
        } else {
            (Severity::Warning, "at its rated endurance")
        };
        out.push(
            Finding::smart(
                sev,
                "worn-out",
                format!("{used}% of the rated endurance used (NVMe percentage used): {what}"),
            )
            .with(Figure::new(
                "percentage-used",
                Some(u64::from(used)),
                "NVMe SMART / Health log percentage_used",
            )),
        );
    }
    if let (Some(spare), Some(thresh)) = (n.available_spare, n.available_spare_threshold)
        && spare < thresh
    {
        out.push(
            Finding::smart(
                Severity::Fail,
                "spare-below-threshold",
                format!("available spare {spare}% is below its threshold {thresh}%"),
            )
            .with(Figure::new(
                "available-spare",
                Some(u64::from(spare)),
                "NVMe SMART / Health log available_spare",
            )),
        );
    }
}

/// The counters: their value now (a new drive: as it came), their rise.
fn counters(before: &Health, after: Option<&Health>, opts: &RuleOptions, out: &mut Vec<Finding>) {
    let now = after.unwrap_or(before);
    for c in Counter::ALL {
        let limit = opts.thresholds.limit(c);
        let figure = |v: u64| Figure::new(c.key(), Some(v), c.source());
        let (b, a) = (c.value(before), after.and_then(|h| c.value(h)));
        let rose = matches!((b, a), (Some(b), Some(a)) if a > b && a - b > limit);
        if rose && let (Some(b), Some(a)) = (b, a) {
            let sev = match c.kind() {
                Kind::Timeouts | Kind::Interface => Severity::Warning,
                Kind::Use => continue,
                _ => Severity::Fail,
            };
            let why = match c.kind() {
                Kind::Interface => format!(": {}", c.reading()),
                Kind::Timeouts => " (power, cable or controller, or the drive)".to_string(),
                _ => String::new(),
            };
            let rule = if c == Counter::Crc {
                "interface-crc"
            } else {
                c.key()
            };
            out.push(
                Finding::smart(
                    sev,
                    rule,
                    format!(
                        "{} rose from {b} to {a}{}{}{why}",
                        c.describe(),
                        if c.kind() == Kind::Interface {
                            ""
                        } else {
                            " during the run"
                        },
                        limit_text(limit, "rise allowed")
                    ),
                )
                .with(figure(a)),
            );
            continue;
        }
        let (value, sev, whose) = match c.kind() {
            Kind::Unreadable => (c.value(now), Severity::Fail, "now"),
            Kind::Damage | Kind::Timeouts if opts.new_drive => {
                (b, Severity::Fail, "on a drive given as new")
            }
            Kind::Damage | Kind::Timeouts => (c.value(now), Severity::Warning, "on a used drive"),
            Kind::Interface | Kind::Use => continue,
        };
        let Some(v) = value.filter(|v| *v > limit) else {
            continue;
        };
        // A used drive beyond the counts a used drive may have (SCSI
        // uncorrected errors, grown defects): FAIL, not a warning.
        let beyond = c
            .used_fail_above()
            .map(|n| n.max(limit))
            .filter(|n| sev == Severity::Warning && v > *n);
        let (sev, what) = if c.kind() == Kind::Unreadable {
            (
                sev,
                format!("{v}, unreadable {whose}: a pool must not get this drive"),
            )
        } else if let Some(n) = beyond {
            (
                Severity::Fail,
                format!(
                    "{v} {whose}, beyond the {n} a used drive may have: a pool must not get this drive"
                ),
            )
        } else {
            (sev, format!("{v} {whose}"))
        };
        out.push(
            Finding::smart(
                sev,
                c.key(),
                format!(
                    "{}: {what}{} ({})",
                    c.describe(),
                    limit_text(limit, "allowed"),
                    c.reading()
                ),
            )
            .with(figure(v)),
        );
    }
    if let Some(n) = now.nvme.as_ref().and_then(|n| n.error_log_entries)
        && n > 0
    {
        out.push(
            Finding::smart(
                Severity::Note,
                "nvme-error-log",
                format!(
                    "{n} NVMe error information log entries: commands the controller reported as failed (often the host's), not media errors"
                ),
            )
            .with(Figure::new(
                "error-log-entries",
                Some(n),
                "NVMe SMART / Health log num_err_log_entries",
            )),
        );
    }
}

/// A UDMA CRC count (ATA 199) from [`CRC_COUNT_WARN_AT`] (or its
/// `--threshold crc=N`, when higher) up: the path was bad for a long time.
fn crc_count(now: &Health, opts: &RuleOptions, out: &mut Vec<Finding>) {
    let at = CRC_COUNT_WARN_AT.max(opts.thresholds.limit(Counter::Crc));
    let Some(n) = Counter::Crc.value(now).filter(|n| *n >= at) else {
        return;
    };
    out.push(
        Finding::smart(
            Severity::Warning,
            "crc-count",
            format!(
                "{n} UDMA CRC errors (ATA 199): the cable, backplane or controller was bad for a long time, and a count this size takes heavy traffic: the drive may have been used hard ({at} or more warned of)"
            ),
        )
        .with(Figure::new("crc", Some(n), Counter::Crc.source())),
    );
}

/// smartctl's notes: no assessment, no counters, a failed command, the error
/// log, SMART off, fields left out, a written total that cannot fit the hours.
fn notes(now: &Health, exit: ExitStatus, out: &mut Vec<Finding>) {
    if now.passed.is_none() && now.has_health() {
        out.push(Finding::smart(
            Severity::Note,
            "no-assessment",
            "the report holds no overall-health self-assessment (taken without -H, e.g. smartctl -A): the verdict rests on the counters alone".into(),
        ));
    }
    if now.passed.is_some() && !now.has_counters() {
        out.push(Finding::smart(
            Severity::Note,
            "no-counters",
            "the report holds the overall-health self-assessment and no attribute table, SCSI error counters or NVMe health log (taken with smartctl -i -H): no counters were read, the verdict rests on the self-assessment alone; take smartctl -x DEVICE".into(),
        ));
    }
    if let Some(w) = &now.usage.host_writes_unknown {
        out.push(
            Finding::smart(
                Severity::Note,
                "host-writes-unknown",
                format!(
                    "host writes unknown: {} has a raw written total of {}, and {}",
                    w.source, w.raw, w.why
                ),
            )
            .with(Figure::new("host-writes-raw", Some(w.raw), &w.source)),
        );
    }
    super::exit_bits::notes(now, exit, out);
    if now.smart_disabled {
        out.push(Finding::smart(
            Severity::Note,
            "smart-disabled",
            "SMART is switched off on the drive (smartctl -s on switches it on)".into(),
        ));
    }
    for field in &now.ignored_fields {
        out.push(Finding::smart(
            Severity::Note,
            "ignored-field",
            format!("smartctl's field {field} has an unexpected type: left out, the rest of the report read"),
        ));
    }
}

fn limit_text(limit: u64, what: &str) -> String {
    if limit == 0 {
        String::new()
    } else {
        format!(" ({limit} {what})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::health::{AtaCounters, CommandTimeouts, NvmeHealth, NvmeWarning};

    fn ata(reallocated: u64, pending: u64, crc: u64) -> Health {
        Health {
            passed: Some(true),
            power_on_hours: Some(10),
            ata: Some(AtaCounters {
                reallocated: Some(reallocated),
                pending: Some(pending),
                udma_crc_errors: Some(crc),
                command_timeouts: Some(CommandTimeouts::from_raw(0)),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Whether the one judge lets the drive pass on these findings.
    fn passes(f: &[Finding]) -> bool {
        crate::verdict::judge(crate::verdict::smart_rule_findings(f)).passes()
    }

    fn rules(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.rule.as_str()).collect()
    }

    fn sev(f: &[Finding], rule: &str) -> Option<Severity> {
        f.iter().find(|f| f.rule == rule).map(|f| f.severity)
    }

    #[test]
    fn a_clean_drive_passes() {
        let f = findings(&ata(0, 0, 0), Some(&ata(0, 0, 0)), &RuleOptions::default());
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn a_used_drive_is_judged_on_its_counters() {
        // PASSED with 8 pending and 8 offline uncorrectable: unreadable now.
        let mut h = ata(1, 8, 0);
        h.ata.as_mut().unwrap().offline_uncorrectable = Some(8);
        let f = findings(&h, None, &RuleOptions::default());
        assert_eq!(
            rules(&f),
            ["pending", "offline-uncorrectable", "reallocated"]
        );
        assert_eq!(
            f[0].reason,
            "pending sectors (ATA 197): 8, unreadable now: a pool must not get this drive (Backblaze investigates any drive whose raw SMART 5, 187, 188, 197 or 198 is above 0: they go with failure)"
        );
        assert_eq!(f[0].severity, Severity::Fail);
        let g = f[0].figure.as_ref().unwrap();
        assert_eq!((g.counter.as_str(), g.count), ("pending", Some(8)));
        assert_eq!(g.source, "ATA attribute 197, raw");
        assert_eq!(
            f[2].severity,
            Severity::Warning,
            "reallocated on a used drive"
        );
        assert!(
            f[2].reason
                .starts_with("reallocated sectors (ATA 5): 1 on a used drive")
        );
    }

    #[test]
    fn counts_fail_a_new_drive() {
        let h = ata(3, 0, 0);
        assert!(passes(&findings(&h, None, &RuleOptions::default())));
        let new = RuleOptions {
            new_drive: true,
            ..Default::default()
        };
        let f = findings(&h, None, &new);
        assert_eq!(rules(&f), ["reallocated"]);
        assert!(
            f[0].reason
                .starts_with("reallocated sectors (ATA 5): 3 on a drive given as new (Backblaze")
        );
        let tolerant = RuleOptions {
            new_drive: true,
            thresholds: Thresholds {
                limits: vec![(Counter::Reallocated, 3)],
            },
            ..Default::default()
        };
        assert!(findings(&h, None, &tolerant).is_empty());
    }

    #[test]
    fn thresholds_move_both_ways() {
        let h = ata(2, 8, 0);
        let opts = |limits| RuleOptions {
            thresholds: Thresholds { limits },
            ..Default::default()
        };
        // pending=8 tolerates the 8; reallocated=2 silences the warning.
        let f = findings(
            &h,
            None,
            &opts(vec![(Counter::Pending, 8), (Counter::Reallocated, 2)]),
        );
        assert!(f.is_empty(), "{f:?}");
        // A new drive's allowance can be tightened below its default.
        let mut used = ata(0, 0, 0);
        used.usage.power_cycles = Some(5);
        let new = RuleOptions {
            new_drive: true,
            thresholds: Thresholds {
                limits: vec![(Counter::PowerCycles, 4)],
            },
            ..Default::default()
        };
        assert_eq!(rules(&findings(&used, None, &new)), ["power-cycles"]);
    }

    #[test]
    fn rising_counts_fail_any_drive() {
        let f = findings(&ata(5, 0, 0), Some(&ata(5, 2, 0)), &RuleOptions::default());
        assert_eq!(rules(&f), ["pending", "reallocated"]);
        assert_eq!(
            f[0].reason,
            "pending sectors (ATA 197) rose from 0 to 2 during the run"
        );
        assert_eq!(sev(&f, "reallocated"), Some(Severity::Warning));
    }

    #[test]
    fn rising_crc_errors_and_timeouts_warn() {
        let f = findings(&ata(0, 0, 1), Some(&ata(0, 0, 4)), &RuleOptions::default());
        assert_eq!(rules(&f), ["interface-crc"]);
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(f[0].reason.contains("not the drive's"));
        let mut after = ata(0, 0, 0);
        after.ata.as_mut().unwrap().command_timeouts = Some(CommandTimeouts::plain(3));
        let f = findings(&ata(0, 0, 0), Some(&after), &RuleOptions::default());
        assert_eq!(rules(&f), ["command-timeouts"]);
        assert!(passes(&f));
    }

    #[test]
    fn nvme_warnings_wear_and_spare() {
        let h = Health {
            passed: Some(false),
            nvme: Some(NvmeHealth {
                critical_warning: Some(17),
                warnings: NvmeWarning::from_bits(17),
                percentage_used: Some(101),
                available_spare: Some(5),
                available_spare_threshold: Some(10),
                media_errors: Some(0),
                ..Default::default()
            }),
            ..Default::default()
        };
        let f = findings(&h, None, &RuleOptions::default());
        assert_eq!(
            rules(&f),
            [
                "smart-failing",
                "nvme-critical-warning",
                "nvme-critical-warning",
                "worn-out",
                "spare-below-threshold"
            ]
        );
        assert_eq!(
            f[2].reason,
            "NVMe critical warning bit 4: volatile memory backup device failed"
        );
    }

    #[test]
    fn nvme_percentage_used_100_warns_above_fails_and_the_error_log_is_a_note() {
        let nvme = |used, media, entries| Health {
            passed: Some(true),
            nvme: Some(NvmeHealth {
                percentage_used: Some(used),
                media_errors: Some(media),
                error_log_entries: Some(entries),
                ..Default::default()
            }),
            ..Default::default()
        };
        let f = findings(&nvme(100, 0, 0), None, &RuleOptions::default());
        assert_eq!(sev(&f, "worn-out"), Some(Severity::Warning));
        let f = findings(&nvme(101, 0, 0), None, &RuleOptions::default());
        assert_eq!(sev(&f, "worn-out"), Some(Severity::Fail));
        let f = findings(&nvme(0, 2, 22), None, &RuleOptions::default());
        assert_eq!(sev(&f, "media-errors"), Some(Severity::Warning));
        assert_eq!(sev(&f, "nvme-error-log"), Some(Severity::Note));
        assert!(passes(&f));
    }

    #[test]
    fn a_report_without_an_assessment_gets_a_note() {
        let mut h = ata(0, 0, 0);
        h.passed = None;
        let f = findings(&h, None, &RuleOptions::default());
        assert_eq!(rules(&f), ["no-assessment"]);
        assert_eq!(f[0].severity, Severity::Note);
    }

    #[test]
    fn a_report_that_cannot_be_read_is_never_healthy() {
        let mut bad = ata(0, 0, 0);
        bad.unjudgeable = vec!["ata_smart_attributes.table is an object, not a list".into()];
        let f = findings(&bad, None, &RuleOptions::default());
        assert_eq!(rules(&f), ["unjudgeable"]);
        assert!(f[0].cannot_judge() && !passes(&f));
        // The first of two reports: its rises cannot be judged either.
        let f = findings(&bad, Some(&ata(0, 0, 0)), &RuleOptions::default());
        assert!(
            f[0].reason
                .starts_with("the first report cannot be judged: ata_smart_attributes.table"),
            "{}",
            f[0].reason
        );
        // No health at all (FARM only).
        let f = findings(&Health::default(), None, &RuleOptions::default());
        assert_eq!(rules(&f), ["no-health-data"]);
    }

    #[test]
    fn thresholds_parse() {
        assert_eq!(
            Counter::parse_threshold("pending=2"),
            Ok((Counter::Pending, 2))
        );
        assert!(Counter::parse_threshold("pending").is_err());
        assert!(
            Counter::parse_threshold("bogus=1")
                .unwrap_err()
                .contains("unknown counter")
        );
        assert!(Counter::parse_threshold("pending=x").is_err());
    }
}
