//! Typed decoding of one JSON value with the path to the first problem.
//!
//! Scenario files are decoded from an already parsed [`Value`] (so one bad case cannot hide the
//! others), through `serde_path_to_error` so a message can say *where* the problem is. Custom
//! `Deserialize` impls that decode a nested value on their own (tagged steps, messages) pass
//! their inner path outwards through a marker in the error text, which [`decode`] splices back
//! into one dotted path.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Starts an error message that carries a nested path (see [`nested`]).
const NESTED_MARK: char = '\u{1}';
/// Separates the nested path from the message.
const NESTED_SEP: char = '\u{2}';

/// A decoding problem: the JSON path to the offending value and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    /// Dotted path (`input.steps[2].expect`), empty for the decoded value itself.
    pub path: String,
    /// serde's (or our) description of the problem.
    pub message: String,
}

impl DecodeError {
    /// An error at `path` with `message`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        DecodeError {
            path: path.into(),
            message: message.into(),
        }
    }

    /// The same error seen from a parent value: `prefix` is prepended to the path.
    pub fn under(self, prefix: &str) -> Self {
        DecodeError {
            path: join_path(prefix, &self.path),
            message: self.message,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Joins two dotted paths; either may be empty, and an index segment (`[3]`) needs no dot.
pub fn join_path(outer: &str, inner: &str) -> String {
    match (outer.is_empty(), inner.is_empty()) {
        (true, _) => inner.to_owned(),
        (false, true) => outer.to_owned(),
        (false, false) if inner.starts_with('[') => format!("{outer}{inner}"),
        (false, false) => format!("{outer}.{inner}"),
    }
}

/// Decodes `value` as `T`, reporting the path of the first problem.
pub fn decode<T: DeserializeOwned>(value: &Value) -> Result<T, DecodeError> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|err| {
        let outer = err.path().to_string();
        let outer = if outer == "." { String::new() } else { outer };
        let text = err.into_inner().to_string();
        match split_nested(&text) {
            Some((inner, message)) => DecodeError::new(join_path(&outer, inner), message),
            None => DecodeError::new(outer, text),
        }
    })
}

/// Turns an error from decoding a nested value into a serde error that keeps its inner path.
pub fn nested<E: serde::de::Error>(err: DecodeError) -> E {
    E::custom(format!(
        "{NESTED_MARK}{}{NESTED_SEP}{}",
        err.path, err.message
    ))
}

/// A plain error at the current value (no inner path).
pub fn here<E: serde::de::Error>(message: impl fmt::Display) -> E {
    E::custom(message)
}

fn split_nested(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix(NESTED_MARK)?;
    rest.split_once(NESTED_SEP)
}

/// The JSON type name used in messages (`string`, `number`, …), as the validator spells it.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Reads the string field `key` of a tag-carrying object, or explains what is wrong.
pub fn tag<'v>(value: &'v Value, key: &str, allowed: &[&str]) -> Result<&'v str, DecodeError> {
    let Value::Object(map) = value else {
        return Err(DecodeError::new(
            "",
            format!("expected object, got {}", type_name(value)),
        ));
    };
    match map.get(key) {
        Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(s),
        other => Err(DecodeError::new(
            key,
            format!(
                "expected one of {}, got {}",
                allowed.join("|"),
                other.map_or_else(|| "nothing".to_owned(), Value::to_string)
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        a: u32,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Outer {
        items: Vec<Inner>,
    }

    #[test]
    fn reports_path_of_wrong_type() {
        let err = decode::<Outer>(&json!({"items": [{"a": 1}, {"a": "x"}]})).unwrap_err();
        assert_eq!(err.path, "items[1].a");
        assert!(err.message.contains("invalid type"), "{}", err.message);
    }

    #[test]
    fn reports_unknown_field() {
        let err = decode::<Outer>(&json!({"items": [], "extra": 1})).unwrap_err();
        assert!(err.message.contains("unknown field `extra`"), "{err}");
    }

    #[test]
    fn joins_paths() {
        assert_eq!(join_path("", "a"), "a");
        assert_eq!(join_path("a", ""), "a");
        assert_eq!(join_path("a", "[1].b"), "a[1].b");
        assert_eq!(join_path("a", "b"), "a.b");
    }

    #[test]
    fn nested_errors_keep_inner_path() {
        let inner = DecodeError::new("expect.x", "bad");
        let e: serde_json::Error = nested(inner);
        let text = e.to_string();
        let (p, m) = split_nested(&text).unwrap();
        assert_eq!((p, m), ("expect.x", "bad"));
    }
}
