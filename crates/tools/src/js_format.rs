//! Numbers written the way JavaScript's template literals write them.
//!
//! pi's messages interpolate the model's numbers (`Offset 100 is beyond end of file`, `500
//! entries limit reached. Use limit=1000 for more`); arguments arrive as JSON numbers (`f64`),
//! so an integral value must print as `100`, not `100.0`.

/// Largest magnitude JS prints without an exponent.
const PLAIN_LIMIT: f64 = 1e21;

/// JS `String(n)` for the values tools meet: integers without a fraction, other finite
/// values in Rust's shortest round-trip form (the same digits JS picks), `NaN`/`Infinity` as JS.
pub(crate) fn number(value: f64) -> String {
    if value.is_nan() {
        return "NaN".to_owned();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    if value.fract() == 0.0 && value.abs() < PLAIN_LIMIT {
        // `{:.0}` prints the integral value exactly, without a fraction; `-0` prints as `0`.
        let text = format!("{value:.0}");
        return if text == "-0" { "0".to_owned() } else { text };
    }
    format!("{value}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn numbers_print_like_js() {
        assert_eq!(number(100.0), "100");
        assert_eq!(number(-3.0), "-3");
        assert_eq!(number(-0.0), "0");
        assert_eq!(number(2.5), "2.5");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(f64::INFINITY), "Infinity");
    }
}
