//! Numbers written the way JavaScript's `JSON.stringify` writes them.
//!
//! pi stores costs as JS numbers, so a zero cost is `0`, not `0.0`. Serializing integral `f64`
//! values as integers keeps our files byte-comparable with pi's.

use serde::Serializer;

/// Largest integer a JS number (an `f64`) holds exactly: 2^53 - 1.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Serializes an `f64` as an integer when it is integral and exactly representable, otherwise
/// as a float. For `#[serde(serialize_with = "crate::js_number::serialize")]`.
pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    let v = *value;
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= MAX_SAFE_INTEGER {
        // Proof of exactness: |v| <= 2^53 - 1 and integral, so the cast is lossless.
        #[allow(clippy::cast_possible_truncation)]
        serializer.serialize_i64(v as i64)
    } else {
        serializer.serialize_f64(v)
    }
}

/// Formats a number as JavaScript's `String(n)` does for ordinary values (`5`, `3.75`).
pub fn format_js_number(value: f64) -> String {
    const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER {
        // Integral and within 2^53, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation)]
        let int = value as i64;
        int.to_string()
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[derive(serde::Serialize)]
    struct N(#[serde(serialize_with = "super::serialize")] f64);

    #[test]
    fn integral_values_have_no_fraction() {
        assert_eq!(serde_json::to_string(&N(0.0)).unwrap(), "0");
        assert_eq!(serde_json::to_string(&N(-3.0)).unwrap(), "-3");
        assert_eq!(serde_json::to_string(&N(0.25)).unwrap(), "0.25");
        assert_eq!(serde_json::to_string(&N(1e300)).unwrap(), "1e+300");
    }
}
