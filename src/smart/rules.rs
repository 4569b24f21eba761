//! Health rules: a pure function of the health read before a run, the health read
//! after it (when there is one) and the options, giving findings with reasons.

use super::health::{ExitStatus, Health};
use super::selftest::Outcome;
use serde::{Deserialize, Serialize};

/// A counter the rules watch, with the name its threshold option uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Counter {
    /// ATA 5: reallocated sectors.
    Reallocated,
    /// ATA 196: reallocation events.
    ReallocationEvents,
    /// ATA 197: sectors pending reallocation.
    Pending,
    /// ATA 198: offline uncorrectable sectors.
    OfflineUncorrectable,
    /// ATA 187: reported uncorrectable errors.
    ReportedUncorrectable,
    /// SCSI: the grown defect list.
    GrownDefects,
    /// SCSI: uncorrected read, write and verify errors.
    Uncorrected,
    /// NVMe: media and data integrity errors.
    MediaErrors,
}

impl Counter {
    /// Every counter, in the order findings are given.
    pub const ALL: [Counter; 8] = [
        Counter::Reallocated,
        Counter::ReallocationEvents,
        Counter::Pending,
        Counter::OfflineUncorrectable,
        Counter::ReportedUncorrectable,
        Counter::GrownDefects,
        Counter::Uncorrected,
        Counter::MediaErrors,
    ];

    /// The name used by `--threshold NAME=N`.
    pub fn key(self) -> &'static str {
        match self {
            Counter::Reallocated => "reallocated",
            Counter::ReallocationEvents => "reallocation-events",
            Counter::Pending => "pending",
            Counter::OfflineUncorrectable => "offline-uncorrectable",
            Counter::ReportedUncorrectable => "reported-uncorrectable",
            Counter::GrownDefects => "grown-defects",
            Counter::Uncorrected => "uncorrected",
            Counter::MediaErrors => "media-errors",
        }
    }

    /// What it counts, in words (plural).
    pub fn describe(self) -> &'static str {
        match self {
            Counter::Reallocated => "reallocated sectors (ATA 5)",
            Counter::ReallocationEvents => "reallocation events (ATA 196)",
            Counter::Pending => "pending sectors (ATA 197)",
            Counter::OfflineUncorrectable => "offline uncorrectable sectors (ATA 198)",
            Counter::ReportedUncorrectable => "reported uncorrectable errors (ATA 187)",
            Counter::GrownDefects => "grown defects (SCSI)",
            Counter::Uncorrected => "uncorrected read/write/verify errors (SCSI)",
            Counter::MediaErrors => "media and data integrity errors (NVMe)",
        }
    }

    /// Its value in a health reading, when the drive reports it.
    pub fn value(self, h: &Health) -> Option<u64> {
        let ata = h.ata.as_ref();
        let scsi = h.scsi.as_ref();
        match self {
            Counter::Reallocated => ata?.reallocated,
            Counter::ReallocationEvents => ata?.reallocation_events,
            Counter::Pending => ata?.pending,
            Counter::OfflineUncorrectable => ata?.offline_uncorrectable,
            Counter::ReportedUncorrectable => ata?.reported_uncorrectable,
            Counter::GrownDefects => scsi?.grown_defects,
            Counter::Uncorrected => {
                let s = scsi?;
                let parts = [
                    s.read_uncorrected,
                    s.write_uncorrected,
                    s.verify_uncorrected,
                ];
                parts
                    .iter()
                    .any(Option::is_some)
                    .then(|| parts.iter().flatten().sum())
            }
            Counter::MediaErrors => h.nvme.as_ref()?.media_errors,
        }
    }

    /// Parse `NAME=N` (a `--threshold` value).
    pub fn parse_threshold(s: &str) -> Result<(Counter, u64), String> {
        let names: Vec<&str> = Counter::ALL.iter().map(|c| c.key()).collect();
        let (name, n) = s
            .split_once('=')
            .ok_or_else(|| format!("{s:?}: give NAME=N, NAME one of {}", names.join(", ")))?;
        let c = Counter::ALL
            .into_iter()
            .find(|c| c.key() == name)
            .ok_or_else(|| format!("{name:?}: unknown counter; use one of {}", names.join(", ")))?;
        let n = n
            .parse()
            .map_err(|_| format!("{s:?}: {n:?} is not a whole number"))?;
        Ok((c, n))
    }
}

/// How many of each counter are tolerated: on a new drive, at most this many;
/// during a run, a rise of at most this many. Zero (the default) tolerates none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Counters with a limit other than zero.
    pub limits: Vec<(Counter, u64)>,
}

impl Thresholds {
    /// The limit of a counter (the last one given wins).
    pub fn limit(&self, c: Counter) -> u64 {
        self.limits
            .iter()
            .rev()
            .find(|(k, _)| *k == c)
            .map_or(0, |(_, n)| *n)
    }
}

/// The options of the rules.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RuleOptions {
    /// The drive is new (`--new`): any reallocated, pending, uncorrectable,
    /// grown-defect or media-error count above its threshold fails it.
    pub new_drive: bool,
    /// Per-counter thresholds.
    pub thresholds: Thresholds,
}

/// How much a finding weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// For information; the drive is not judged by it.
    Note,
    /// Worth a look, but not the drive's failure (e.g. a cable fault).
    Warn,
    /// The drive fails.
    Fail,
}

impl Severity {
    /// The word printed before the reason.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warn => "warning",
            Severity::Fail => "FAIL",
        }
    }
}

/// One finding: how much it weighs and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Its weight.
    pub severity: Severity,
    /// A short stable name for the rule, e.g. "smart-failing", "pending".
    pub rule: String,
    /// The reason, in words, with the figures.
    pub reason: String,
}

impl Finding {
    fn new(severity: Severity, rule: &str, reason: String) -> Finding {
        Finding {
            severity,
            rule: rule.into(),
            reason,
        }
    }
}

/// Whether findings let the drive pass (nothing of severity Fail).
pub fn passes(findings: &[Finding]) -> bool {
    findings.iter().all(|f| f.severity != Severity::Fail)
}

/// Judge a drive's health: `before` is the reading before the run (or the only
/// one), `after` the reading after it. The state rules (smartctl says failing,
/// NVMe warnings, wear, the last self-test) look at the latest reading; the
/// counters are judged on a new drive by their value and on any drive by their
/// rise from `before` to `after`.
pub fn judge(before: &Health, after: Option<&Health>, opts: &RuleOptions) -> Vec<Finding> {
    let now = after.unwrap_or(before);
    let mut out = Vec::new();
    let exit = now.exit_status.unwrap_or(ExitStatus(0));
    if now.passed == Some(false) || exit.has(ExitStatus::DISK_FAILING) {
        out.push(Finding::new(
            Severity::Fail,
            "smart-failing",
            "smartctl says the drive is failing (SMART overall-health self-assessment: FAILED)"
                .into(),
        ));
    }
    for a in &now.unreadable {
        out.push(Finding::new(
            Severity::Fail,
            "unreadable-counter",
            format!(
                "ATA attribute {} {}: raw value {:?} is not a count, so it cannot be judged",
                a.id, a.name, a.raw
            ),
        ));
    }
    for a in &now.failed_attributes {
        let (sev, when) = match (a.now, a.prefailure) {
            (true, true) => (Severity::Fail, "is"),
            (true, false) => (Severity::Warn, "is"),
            (false, _) => (Severity::Note, "was once"),
        };
        let kind = if a.prefailure { "pre-failure" } else { "age" };
        out.push(Finding::new(
            sev,
            "attribute-threshold",
            format!(
                "{kind} attribute {} {} {when} at or below its threshold",
                a.id, a.name
            ),
        ));
    }
    if let Some(n) = &now.nvme {
        for w in &n.warnings {
            out.push(Finding::new(
                Severity::Fail,
                "nvme-critical-warning",
                format!("NVMe critical warning bit {}: {}", w.bit(), w.describe()),
            ));
        }
        if let Some(used) = n.percentage_used.filter(|u| *u >= 100) {
            out.push(Finding::new(
                Severity::Fail,
                "worn-out",
                format!("{used}% of the rated endurance used (NVMe percentage used)"),
            ));
        }
        if let (Some(spare), Some(thresh)) = (n.available_spare, n.available_spare_threshold)
            && spare < thresh
        {
            out.push(Finding::new(
                Severity::Fail,
                "spare-below-threshold",
                format!("available spare {spare}% is below its threshold {thresh}%"),
            ));
        }
    }
    for c in Counter::ALL {
        let limit = opts.thresholds.limit(c);
        let b = c.value(before);
        if opts.new_drive
            && let Some(v) = b.filter(|v| *v > limit)
        {
            out.push(Finding::new(
                Severity::Fail,
                c.key(),
                format!(
                    "{}: {v} on a drive given as new{}",
                    c.describe(),
                    limit_text(limit, "allowed")
                ),
            ));
        }
        if let (Some(b), Some(a)) = (b, after.and_then(|h| c.value(h)))
            && a > b
            && a - b > limit
        {
            out.push(Finding::new(
                Severity::Fail,
                c.key(),
                format!(
                    "{} rose from {b} to {a} during the run{}",
                    c.describe(),
                    limit_text(limit, "rise allowed")
                ),
            ));
        }
    }
    let ata = |h: &Health| h.ata.clone().unwrap_or_default();
    if let Some(after) = after {
        if let (Some(b), Some(a)) = (ata(before).udma_crc_errors, ata(after).udma_crc_errors)
            && a > b
        {
            out.push(Finding::new(
                Severity::Warn,
                "interface-crc",
                format!(
                    "UDMA CRC errors (ATA 199) rose from {b} to {a}: a cable, backplane or controller fault, not the drive's"
                ),
            ));
        }
        if let (Some(b), Some(a)) = (ata(before).command_timeouts, ata(after).command_timeouts)
            && a.total > b.total
        {
            out.push(Finding::new(
                Severity::Warn,
                "command-timeouts",
                format!(
                    "command timeouts (ATA 188) rose from {} to {} during the run (power, cable or controller)",
                    b.total, a.total
                ),
            ));
        }
    }
    if let Some(t) = &now.last_self_test
        && t.outcome == Outcome::Failed
    {
        let lba = t
            .first_error_lba
            .map(|l| format!(", first error at LBA {l}"))
            .unwrap_or_default();
        out.push(Finding::new(
            Severity::Fail,
            "self-test",
            format!("the last self-test ({}) failed: {}{lba}", t.test, t.status),
        ));
    }
    if exit.has(ExitStatus::COMMAND_FAILED) {
        out.push(Finding::new(
            Severity::Note,
            "smartctl-command-failed",
            "smartctl: a SMART or other command to the disk failed (exit status bit 2); some values may be missing".into(),
        ));
    }
    if exit.has(ExitStatus::ERROR_LOG) {
        let count = now
            .ata_error_log_count
            .map(|n| format!(" ({n} logged over the drive's life)"))
            .unwrap_or_default();
        out.push(Finding::new(
            Severity::Note,
            "error-log",
            format!("the drive's error log holds errors{count} (exit status bit 6)"),
        ));
    }
    if now.smart_disabled {
        out.push(Finding::new(
            Severity::Note,
            "smart-disabled",
            "SMART is switched off on the drive (smartctl -s on switches it on)".into(),
        ));
    }
    out.sort_by_key(|f| std::cmp::Reverse(f.severity));
    out
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
    use crate::smart::health::{AtaCounters, CommandTimeouts, NvmeHealth, NvmeWarning};

    fn ata(reallocated: u64, pending: u64, crc: u64) -> Health {
        Health {
            passed: Some(true),
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

    fn rules(f: &[Finding]) -> Vec<&str> {
        f.iter().map(|f| f.rule.as_str()).collect()
    }

    #[test]
    fn a_clean_drive_passes() {
        let f = judge(&ata(0, 0, 0), Some(&ata(0, 0, 0)), &RuleOptions::default());
        assert!(f.is_empty(), "{f:?}");
    }

    #[test]
    fn counts_fail_a_new_drive_only() {
        let h = ata(3, 0, 0);
        assert!(passes(&judge(&h, None, &RuleOptions::default())));
        let new = RuleOptions {
            new_drive: true,
            ..Default::default()
        };
        let f = judge(&h, None, &new);
        assert_eq!(rules(&f), ["reallocated"]);
        assert_eq!(
            f[0].reason,
            "reallocated sectors (ATA 5): 3 on a drive given as new"
        );
        let tolerant = RuleOptions {
            new_drive: true,
            thresholds: Thresholds {
                limits: vec![(Counter::Reallocated, 3)],
            },
        };
        assert!(passes(&judge(&h, None, &tolerant)));
    }

    #[test]
    fn rising_counts_fail_any_drive() {
        let f = judge(&ata(5, 0, 0), Some(&ata(5, 2, 0)), &RuleOptions::default());
        assert_eq!(rules(&f), ["pending"]);
        assert_eq!(
            f[0].reason,
            "pending sectors (ATA 197) rose from 0 to 2 during the run"
        );
    }

    #[test]
    fn rising_crc_errors_blame_the_cable() {
        let f = judge(&ata(0, 0, 1), Some(&ata(0, 0, 4)), &RuleOptions::default());
        assert_eq!(rules(&f), ["interface-crc"]);
        assert_eq!(f[0].severity, Severity::Warn);
        assert!(f[0].reason.contains("not the drive's"));
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
        let f = judge(&h, None, &RuleOptions::default());
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
