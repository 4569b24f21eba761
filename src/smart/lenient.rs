//! Reading smartctl's JSON leniently: the `{"value", "string"}` pairs and counts
//! that may be too large or of another type (a leaf the model files share).

use serde::{Deserialize, Deserializer, Serialize};

/// A `{"value": N, "string": "..."}` pair.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ValueString {
    /// smartctl's numeric code; its meaning depends on the field.
    pub value: u32,
    /// smartctl's text for it.
    pub string: String,
}

/// A count that may be written as a number beyond 64 bits or a float: Some when
/// it fits a u64, None otherwise (smartctl prints 128-bit NVMe counters exactly,
/// which serde_json reads as floats when they are too large).
pub fn lenient_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(value_u64(&v))
}

/// An LBA written as a number or as `{"value": N}`.
pub fn lenient_lba<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = serde_json::Value::deserialize(d)?;
    Ok(value_u64(&v).or_else(|| v.get("value").and_then(value_u64)))
}

/// A JSON number as a u64, when it is a whole number in range.
pub fn value_u64(v: &serde_json::Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.is_finite() && *f >= 0.0 && *f < u64::MAX as f64 && f.fract() == 0.0)
            .map(|f| f as u64)
    })
}
