//! Token counters as servers send them: read leniently, so an odd counter never costs the
//! reply.
//!
//! A counter is taken from its raw JSON text rather than parsed by serde_json first: serde_json
//! refuses a number out of `f64` range (`1e999`) with an error that would fail the whole event,
//! while skipping a value into [`RawValue`] only scans its characters. An integer is taken as
//! is; a float (`17.0`, `1e30`) saturates into `u64`; anything unusable (negative, infinite,
//! `null`, a string, an object) is absent. Sums of counters saturate ([`saturating_sum`]), so
//! a counter near `u64::MAX` cannot overflow either.

use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

/// A counter field: `#[serde(default, deserialize_with = "crate::usage_count::count")]`.
pub(crate) fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let raw = Box::<RawValue>::deserialize(d)?;
    Ok(parse_count(raw.get()))
}

/// The counter in one raw JSON value, if it is a usable non-negative number.
fn parse_count(raw: &str) -> Option<u64> {
    let text = raw.trim();
    if let Ok(n) = text.parse::<u64>() {
        return Some(n);
    }
    // Only JSON numbers: Rust's float parser also reads `inf` and `NaN`, which JSON has not.
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return None;
    }
    let value: f64 = text.parse().ok()?;
    // `as` saturates: 1e30 is u64::MAX, 17.9 is 17.
    (value.is_finite() && value >= 0.0).then_some(value as u64)
}

/// `a + b + …`, saturating at `u64::MAX`.
pub(crate) fn saturating_sum(counts: impl IntoIterator<Item = u64>) -> u64 {
    counts.into_iter().fold(0, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[derive(Debug, Deserialize)]
    struct Counter {
        #[serde(default, deserialize_with = "count")]
        n: Option<u64>,
    }

    fn read(json: &str) -> Option<u64> {
        serde_json::from_str::<Counter>(json).unwrap().n
    }

    #[test]
    fn usable_numbers_and_the_rest() {
        let cases = [
            (r#"{"n": 42}"#, Some(42)),
            (r#"{"n": 17.0}"#, Some(17)),
            (r#"{"n": 18446744073709551615}"#, Some(u64::MAX)),
            (r#"{"n": 18446744073709551616}"#, Some(u64::MAX)),
            (r#"{"n": 1e30}"#, Some(u64::MAX)),
            (r#"{"n": 1e999}"#, None),
            (r#"{"n": -1e999}"#, None),
            (r#"{"n": -3}"#, None),
            (r#"{"n": null}"#, None),
            (r#"{"n": "12"}"#, None),
            (r#"{"n": {"a": 1e999}}"#, None),
            (r#"{}"#, None),
        ];
        for (json, expected) in cases {
            assert_eq!(read(json), expected, "{json}");
        }
        let from_value: Counter = serde_json::from_value(serde_json::json!({"n": 7})).unwrap();
        assert_eq!(from_value.n, Some(7));
    }

    #[test]
    fn sums_saturate() {
        assert_eq!(saturating_sum([1, 2, 3]), 6);
        assert_eq!(saturating_sum([u64::MAX, 1, u64::MAX]), u64::MAX);
    }
}
