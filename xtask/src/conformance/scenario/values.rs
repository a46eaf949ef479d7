//! Small validated value types shared by many kinds: counts, HTTP statuses, non-empty strings,
//! required-but-nullable fields, generated text and post-decode checks.

use std::ops::Deref;

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::decode::{decode, here, nested, type_name};

/// A JSON object whose content is free-form (clawloop config, tool schemas, raw bodies).
pub type Object = Map<String, Value>;

/// A number that must be a non-negative integer (`3.0` is accepted, as in JSON).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Count(pub u64);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = f64::deserialize(d)?;
        integer_at_least(n, 0).map(Count).map_err(here)
    }
}

/// A number that must be an integer >= 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PosCount(pub u64);

impl<'de> Deserialize<'de> for PosCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = f64::deserialize(d)?;
        integer_at_least(n, 1).map(PosCount).map_err(here)
    }
}

/// An HTTP status code, 100 to 599.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HttpStatus(pub u16);

impl<'de> Deserialize<'de> for HttpStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = f64::deserialize(d)?;
        match integer_at_least(n, 100) {
            Ok(v) if v <= 599 => u16::try_from(v).map(HttpStatus).map_err(here),
            _ => Err(here(format!("expected an HTTP status 100-599, got {n}"))),
        }
    }
}

fn integer_at_least(n: f64, min: u64) -> Result<u64, String> {
    // JSON numbers arrive as f64; only exact integers in range are counts.
    if n.is_finite() && n.fract() == 0.0 && n >= min as f64 && n <= u64::MAX as f64 {
        Ok(n as u64)
    } else {
        Err(format!("expected an integer >= {min}, got {n}"))
    }
}

/// A string that must not be empty.
#[derive(Debug, Clone, PartialEq)]
pub struct NonEmptyString(pub String);

impl<'de> Deserialize<'de> for NonEmptyString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s.is_empty() {
            Err(here("expected non-empty string, got empty string"))
        } else {
            Ok(NonEmptyString(s))
        }
    }
}

impl Deref for NonEmptyString {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

/// A field that must be present but may be `null` ("must be absent or null" in an expect).
///
/// Unlike `Option<T>`, a missing field is an error.
#[derive(Debug, Clone, PartialEq)]
pub enum Nullable<T> {
    /// The value was `null`.
    Null,
    /// A real value.
    Value(T),
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Nullable<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Through `Value` on purpose: serde feeds a missing field to `deserialize_option` as
        // `None`, but to `deserialize_any` as a "missing field" error, which is what we want.
        match Value::deserialize(d)? {
            Value::Null => Ok(Nullable::Null),
            v => decode::<T>(&v).map(Nullable::Value).map_err(nested),
        }
    }
}

/// Text given literally or as a generator `{"repeat": s, "count": n, "then"?: t}`.
#[derive(Debug, Clone, PartialEq)]
pub enum TextOrGen {
    /// A literal string.
    Text(String),
    /// `repeat` repeated `count` times, then `then`.
    Gen(Generator),
}

/// The `{"repeat","count","then"?}` text generator of FORMAT.md.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Generator {
    /// The unit that is repeated.
    pub repeat: String,
    /// How many times.
    pub count: Count,
    /// Appended once at the end.
    pub then: Option<String>,
}

impl TextOrGen {
    /// The text this stands for.
    pub fn render(&self) -> String {
        match self {
            TextOrGen::Text(s) => s.clone(),
            TextOrGen::Gen(g) => render_generator(g),
        }
    }
}

/// Expands a generator into its text.
pub fn render_generator(g: &Generator) -> String {
    let count = usize::try_from(g.count.0).unwrap_or(usize::MAX);
    let mut out = g.repeat.repeat(count);
    if let Some(then) = &g.then {
        out.push_str(then);
    }
    out
}

impl<'de> Deserialize<'de> for TextOrGen {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v {
            Value::String(s) => Ok(TextOrGen::Text(s)),
            Value::Object(_) => decode::<Generator>(&v).map(TextOrGen::Gen).map_err(nested),
            other => Err(here(format!(
                "expected string or {{\"repeat\",\"count\",\"then\"?}}, got {}",
                type_name(&other)
            ))),
        }
    }
}

/// Structural rules that types alone cannot express (mutually exclusive fields and the like).
pub trait Check {
    /// `Err` with a message when the decoded value breaks a rule.
    fn check(&self) -> Result<(), String>;
}

/// A value decoded as `T` and then [`Check`]ed, so the error keeps the value's path.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked<T>(pub T);

impl<'de, T: Deserialize<'de> + Check> Deserialize<'de> for Checked<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let inner = T::deserialize(d)?;
        inner.check().map_err(here)?;
        Ok(Checked(inner))
    }
}

impl<T> Deref for Checked<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// An object that must have at least one key, decoded as `T` (an expect that checks something).
#[derive(Debug, Clone, PartialEq)]
pub struct NonEmpty<T>(pub T);

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for NonEmpty<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        if matches!(&v, Value::Object(m) if m.is_empty()) {
            return Err(here("empty object: nothing would be checked"));
        }
        decode::<T>(&v).map(NonEmpty).map_err(nested)
    }
}

impl<T> Deref for NonEmpty<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// An array that must hold at least one element.
#[derive(Debug, Clone, PartialEq)]
pub struct NonEmptyVec<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for NonEmptyVec<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<T>::deserialize(d)?;
        if v.is_empty() {
            Err(here("expected a non-empty array"))
        } else {
            Ok(NonEmptyVec(v))
        }
    }
}

impl<T> Deref for NonEmptyVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.0
    }
}

/// A value that must be a JSON object or a string (a scripted raw body).
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectOrString(pub Value);

impl<'de> Deserialize<'de> for ObjectOrString {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        match v {
            Value::Object(_) | Value::String(_) => Ok(ObjectOrString(v)),
            other => Err(here(format!(
                "expected object or string, got {}",
                type_name(&other)
            ))),
        }
    }
}

/// A line of a session file: written verbatim when a string, serialized when an object.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// Written as is.
    Raw(String),
    /// Serialized as one JSON line.
    Object(Object),
}

impl<'de> Deserialize<'de> for Line {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(Line::Raw(s)),
            Value::Object(m) => Ok(Line::Object(m)),
            other => Err(here(format!(
                "expected string or object, got {}",
                type_name(&other)
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_accept_integral_floats_only() {
        assert_eq!(decode::<Count>(&json!(3.0)).unwrap(), Count(3));
        assert!(decode::<Count>(&json!(-1)).is_err());
        assert!(decode::<Count>(&json!(1.5)).is_err());
        assert!(decode::<PosCount>(&json!(0)).is_err());
    }

    #[test]
    fn http_status_range() {
        assert_eq!(decode::<HttpStatus>(&json!(429)).unwrap(), HttpStatus(429));
        assert!(decode::<HttpStatus>(&json!(600)).is_err());
        assert!(decode::<HttpStatus>(&json!(99)).is_err());
    }

    #[test]
    fn text_generator_renders() {
        let t: TextOrGen = decode(&json!({"repeat": "ab", "count": 3, "then": "!"})).unwrap();
        assert_eq!(t.render(), "ababab!");
        let err = decode::<TextOrGen>(&json!({"repeat": "a", "count": 1, "x": 1})).unwrap_err();
        assert!(err.message.contains("unknown field `x`"), "{err}");
        assert!(decode::<TextOrGen>(&json!(5)).is_err());
    }

    #[test]
    fn nullable_requires_presence() {
        #[derive(Deserialize)]
        #[allow(dead_code)]
        struct S {
            v: Nullable<bool>,
        }
        assert!(decode::<S>(&json!({})).is_err());
        assert!(matches!(
            decode::<S>(&json!({"v": null})).unwrap().v,
            Nullable::Null
        ));
    }

    #[test]
    fn non_empty_rejects_empty_object() {
        let err = decode::<NonEmpty<Object>>(&json!({})).unwrap_err();
        assert!(err.message.contains("empty"), "{err}");
    }
}
