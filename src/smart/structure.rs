//! Whether a report's structure can be read: the parts the health rules stand
//! on (the overall assessment, the ATA attribute table, the SCSI counters, the
//! NVMe health log and each of its fields) must have the types smartctl gives
//! them, and each counter must be a count. A report where one of them cannot be
//! read cannot be judged (the rules say so, never "healthy"); a single ATA
//! attribute with a missing, null or negative raw value is only left out, with
//! a note ([`super::health`]).

use serde_json::Value;

/// The counters read leniently (a value of another type reads as none): each
/// must be a whole number from 0 up when present.
const COUNTERS: &[&str] = &[
    "/scsi_grown_defect_list",
    "/scsi_error_counter_log/read/total_uncorrected_errors",
    "/scsi_error_counter_log/write/total_uncorrected_errors",
    "/scsi_error_counter_log/verify/total_uncorrected_errors",
    "/nvme_smart_health_information_log/critical_warning",
    "/nvme_smart_health_information_log/media_errors",
    "/nvme_smart_health_information_log/num_err_log_entries",
    "/nvme_smart_health_information_log/percentage_used",
    "/nvme_smart_health_information_log/available_spare",
    "/nvme_smart_health_information_log/available_spare_threshold",
    "/nvme_smart_health_information_log/power_on_hours",
    "/nvme_smart_health_information_log/power_cycles",
    "/nvme_smart_health_information_log/data_units_written",
];

/// The blocks the rules stand on, by JSON pointer, and whether each is a list
/// (else an object).
const BLOCKS: &[(&str, bool)] = &[
    ("/smart_status", false),
    ("/ata_smart_attributes", false),
    ("/ata_smart_attributes/table", true),
    ("/scsi_error_counter_log", false),
    ("/nvme_smart_health_information_log", false),
];

/// ATA attribute IDs of the health counters (reallocated 5, reallocation
/// events 196, pending 197, offline uncorrectable 198, reported uncorrectable
/// 187, command timeouts 188, CRC errors 199): their raw value is a count.
pub const COUNTER_IDS: [u8; 7] = [5, 196, 197, 198, 187, 188, 199];

/// Whether a field left out for its type (a JSON path as the model gives it,
/// e.g. `ata_smart_attributes.table`) is one the rules stand on.
pub fn is_structural(path: &str) -> bool {
    let attribute_field = path
        .strip_prefix("ata_smart_attributes.table[")
        .and_then(|rest| rest.split_once(']'))
        .map(|(_, field)| field);
    match attribute_field {
        // The entry itself, or what tells which attribute it is.
        Some(field) => matches!(field, "" | ".id" | ".name"),
        None => [
            "smart_status",
            "ata_smart_attributes",
            "nvme_smart_health_information_log",
            "scsi_error_counter_log",
            "scsi_grown_defect_list",
        ]
        .iter()
        .any(|p| {
            path == *p || path.starts_with(&format!("{p}.")) || path.starts_with(&format!("{p}["))
        }),
    }
}

/// A JSON value's kind in words.
fn kind(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("the boolean {b}"),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => format!("the string {s:?}"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// What a value that should be a count holds instead, in words (None: a
/// count, or missing/null): `the string "x"`, `the number 2.5, a fraction`,
/// `the number 1.1805916207174113e+21, beyond 64 bits` (2^70), `the number -3,
/// negative`.
pub fn not_a_count(v: &Value) -> Option<String> {
    if v.is_null() || super::lenient::value_u64(v).is_some() {
        return None;
    }
    let why = match v.as_f64() {
        Some(f) if f < 0.0 => ", negative",
        Some(f) if f.fract() != 0.0 => ", a fraction",
        Some(_) => ", beyond 64 bits",
        None => "",
    };
    Some(format!("{}{why}", kind(v)))
}

/// The fields read as counts that the rules use beside the health counters
/// (power-on hours, power cycles, the block size), by JSON pointer: one of
/// another type is left out with a note, never silently.
const LEAVES: &[&str] = &[
    "/power_on_time/hours",
    "/power_cycle_count",
    "/logical_block_size",
];

/// The [`LEAVES`] present but not counts, each as its path and what it held
/// (`power_on_time.hours (the string "4994")`).
pub fn unreadable_leaves(original: &Value) -> Vec<String> {
    LEAVES
        .iter()
        .filter_map(|p| {
            let what = not_a_count(original.pointer(p)?)?;
            Some(format!(
                "{} ({what})",
                p.trim_start_matches('/').replace('/', ".")
            ))
        })
        .collect()
}

/// Whether a value is a count: a whole number from 0 to 2^64 − 1.
fn is_count(v: &Value) -> bool {
    v.is_u64()
}

/// The value at a model path (`a.b[3].c`), if any.
fn at<'a>(root: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = root;
    for part in path.split('.') {
        let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            cur = cur.get(key)?;
        }
        for ix in indexes.split('[').filter(|s| !s.is_empty()) {
            cur = cur.get(ix.trim_end_matches(']').parse::<usize>().ok()?)?;
        }
    }
    Some(cur)
}

/// What cannot be read of a report's structure, one line each (the path and
/// what it held): the structural fields left out for their type (`ignored`,
/// the model's paths) and the counters present but not counts.
pub fn problems(original: &Value, ignored: &[String]) -> Vec<String> {
    // The blocks themselves first: a list where an object belongs is named as
    // such, not by what serde made of its first element.
    let mut out = Vec::new();
    let mut whole: Vec<&str> = Vec::new();
    for (key, want_list) in BLOCKS {
        let v = original.pointer(key);
        let wrong = v.filter(|v| {
            if *want_list {
                !v.is_array()
            } else {
                !v.is_object()
            }
        });
        if let Some(v) = wrong {
            let path = key.trim_start_matches('/').replace('/', ".");
            let want = if *want_list { "a list" } else { "an object" };
            out.push(format!("{path} is {}, not {want}", kind(v)));
            whole.push(key);
        }
    }
    let under_whole = |p: &str| {
        whole
            .iter()
            .any(|k| p.starts_with(&k.trim_start_matches('/').replace('/', ".")))
    };
    out.extend(
        ignored
            .iter()
            .filter(|p| is_structural(p) && !under_whole(p))
            .map(|p| match at(original, p) {
                Some(v) => format!("{p} is {}", kind(v)),
                None => format!("{p} has an unexpected type"),
            }),
    );
    for pointer in COUNTERS {
        let path = pointer.trim_start_matches('/').replace('/', ".");
        if under_whole(&path) || ignored.iter().any(|p| path.starts_with(p.as_str())) {
            continue;
        }
        if let Some(v) = original.pointer(pointer).filter(|v| !is_count(v)) {
            out.push(format!("{path} is {}, not a count", kind(v)));
        }
    }
    // Every other field of the NVMe health log is a number too (nvmeprint.cpp
    // writes each as one; `nsid` may be -1), but the list of sensors and the
    // companions lib/json.cpp adds to a 128-bit count (`--json=v`, or one
    // beyond 64 bits): `KEY_s`, its decimal string, and `KEY_le`, its bytes.
    let log = original
        .pointer("/nvme_smart_health_information_log")
        .and_then(Value::as_object);
    for (k, v) in log.into_iter().flatten() {
        let path = format!("nvme_smart_health_information_log.{k}");
        let fine = if k == "temperature_sensors" || k.ends_with("_le") {
            v.is_array()
        } else if k.ends_with("_s") {
            v.is_string()
        } else {
            v.is_number()
        };
        let said = out.iter().any(|p| p.starts_with(&format!("{path} ")))
            || ignored.iter().any(|p| path.starts_with(p.as_str()));
        if !fine && !said {
            out.push(format!("{path} is {}", kind(v)));
        }
    }
    let table = original
        .pointer("/ata_smart_attributes/table")
        .and_then(Value::as_array);
    for (i, a) in table.into_iter().flatten().enumerate() {
        let counter = a
            .get("id")
            .and_then(Value::as_u64)
            .is_some_and(|id| COUNTER_IDS.iter().any(|c| u64::from(*c) == id));
        // Missing, null or a negative number: that attribute is left out
        // with a note; any other non-count is not smartctl's.
        let raw = a.pointer("/raw/value");
        let odd =
            raw.filter(|v| !v.is_null() && !is_count(v) && !v.as_f64().is_some_and(|f| f < 0.0));
        if let (true, Some(v)) = (counter, odd) {
            out.push(format!(
                "ata_smart_attributes.table[{i}].raw.value (attribute {}) is {}, not a count",
                a["id"],
                kind(v)
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parts_the_rules_stand_on_are_structural() {
        for p in [
            "ata_smart_attributes",
            "ata_smart_attributes.table",
            "ata_smart_attributes.table[3]",
            "ata_smart_attributes.table[3].id",
            "nvme_smart_health_information_log",
            "nvme_smart_health_information_log.critical_warning",
            "smart_status.passed",
            "scsi_grown_defect_list",
        ] {
            assert!(is_structural(p), "{p}");
        }
        for p in [
            "ata_smart_attributes.table[3].raw",
            "ata_smart_attributes.table[3].thresh",
            "temperature.current",
            "smart_statusx",
        ] {
            assert!(!is_structural(p), "{p}");
        }
    }

    #[test]
    fn counters_that_are_not_counts_are_named() {
        let v: Value = serde_json::json!({
            "scsi_grown_defect_list": "many",
            "nvme_smart_health_information_log": {"media_errors": 3.4e38},
            "ata_smart_attributes": {"table": [
                {"id": 197, "raw": {"value": "x"}},
                {"id": 198, "raw": {"value": -3}},
                {"id": 5, "raw": {"value": null}},
                {"id": 9, "raw": {"value": "x"}}
            ]}
        });
        let p = problems(&v, &[]);
        assert_eq!(
            p,
            [
                "scsi_grown_defect_list is the string \"many\", not a count",
                "nvme_smart_health_information_log.media_errors is the number 3.4e+38, not a count",
                "ata_smart_attributes.table[0].raw.value (attribute 197) is the string \"x\", not a count",
            ]
        );
        let v: Value = serde_json::json!({"ata_smart_attributes": {"table": {"5": 1}}});
        assert_eq!(
            problems(&v, &["ata_smart_attributes.table".into()]),
            ["ata_smart_attributes.table is an object, not a list"]
        );
        let v: Value = serde_json::json!({"nvme_smart_health_information_log": {
            "nsid": -1, "unsafe_shutdowns": "8", "temperature_sensors": [36, 44],
            "host_reads": 5, "host_reads_s": "5", "host_reads_le": [5]
        }});
        assert_eq!(
            problems(&v, &[]),
            ["nvme_smart_health_information_log.unsafe_shutdowns is the string \"8\""]
        );
        let v: Value =
            serde_json::json!({"nvme_smart_health_information_log": [{"critical_warning": 0}]});
        assert_eq!(
            problems(&v, &["nvme_smart_health_information_log[0]".into()]),
            ["nvme_smart_health_information_log is a list, not an object"]
        );
    }
}
