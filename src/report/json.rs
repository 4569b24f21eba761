//! The run as JSON (docs/json.md), and back.

use crate::results::{Run, SCHEMA_VERSION};

/// The whole run as pretty-printed JSON, with a final newline.
pub fn to_json(run: &Run) -> String {
    let mut s = serde_json::to_string_pretty(run).expect("results always serialise");
    s.push('\n');
    s
}

/// Read a run saved by `--json` or `--json-file`; refuses other schema versions.
pub fn from_json(text: &str) -> Result<Run, String> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    match v.get("schema_version").and_then(|s| s.as_u64()) {
        Some(n) if n == u64::from(SCHEMA_VERSION) => {}
        Some(n) => {
            return Err(format!(
                "schema version {n}; this seekprobe reads version {SCHEMA_VERSION}, and figures of another schema need not mean the same: compare runs of one schema version"
            ));
        }
        None => return Err("no schema_version: not a seekprobe result".into()),
    }
    let writer = v
        .get("tool_version")
        .and_then(|t| t.as_str())
        .map(String::from);
    serde_json::from_value(v).map_err(|e| match writer {
        // A newer seekprobe may add a test or a line without a new schema version.
        Some(w) if w != env!("CARGO_PKG_VERSION") => format!(
            "written by seekprobe {w}, with something this seekprobe {} does not know ({e}); use seekprobe {w} or newer to read it",
            env!("CARGO_PKG_VERSION")
        ),
        _ => format!("not a seekprobe result: {e}"),
    })
}
