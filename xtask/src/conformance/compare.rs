//! The comparison rules of FORMAT.md: an expected JSON value against an actual one.
//!
//! * scalars compare exactly, except by field-name suffix: `…Contains` (substring; an array
//!   means every element), `…NotContains` (none), `…Matches` (regex), `…Prefix`, `…Suffix`,
//!   `…Include` (every expected element is in the actual list), `…Max` / `…Min` (bounds);
//!   a suffixed field with no actual value of its own is checked against its base field
//!   (`textContains` against `text`), so runners report plain facts once;
//! * arrays compare element-wise with equal length, except the documented subsequence fields;
//! * objects in expect match partially (only present keys);
//! * `null` in expect means absent or null; a missing counter (`…Count`) compares as 0.
//!
//! The first difference is reported with its JSON path.

use std::fmt;

use regex::Regex;
use serde_json::{Map, Value};

/// Fields whose expected array is an ordered subsequence of the actual one.
const SUBSEQUENCE_FIELDS: [&str; 2] = ["events", "appendedTypes"];

/// Longest rendering of a value inside a message.
const MAX_RENDER: usize = 300;

/// The first difference between expected and actual.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// JSON path of the difference (`expect.reason`).
    pub path: String,
    /// What differs.
    pub message: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// Compares a whole expect object against the actual result; paths start at `expect`.
pub fn compare(expected: &Value, actual: &Value) -> Result<(), Mismatch> {
    compare_at("expect", expected, actual)
}

/// Compares with an explicit root path (for expects nested in steps or turns).
pub fn compare_at(root: &str, expected: &Value, actual: &Value) -> Result<(), Mismatch> {
    value(root, None, expected, Some(actual))
}

/// How a field's name says it must be compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    NotContains,
    Contains,
    Matches,
    Prefix,
    Suffix,
    Include,
    Max,
    Min,
}

/// Longer suffixes first: `NotContains` ends in `Contains`.
const RULES: [(&str, Rule); 8] = [
    ("NotContains", Rule::NotContains),
    ("Contains", Rule::Contains),
    ("Matches", Rule::Matches),
    ("Prefix", Rule::Prefix),
    ("Suffix", Rule::Suffix),
    ("Include", Rule::Include),
    ("Max", Rule::Max),
    ("Min", Rule::Min),
];

/// The rule for a field name and the base field it falls back to.
fn rule_for(key: &str) -> Option<(Rule, &str)> {
    RULES.iter().find_map(|(suffix, rule)| {
        let base = key.strip_suffix(suffix)?;
        // A bare `Contains` or a name like `contains` is an ordinary field.
        (!base.is_empty()).then_some((*rule, base))
    })
}

fn is_counter(key: &str) -> bool {
    key.ends_with("Count")
}

fn child(path: &str, key: &str) -> String {
    format!("{path}.{key}")
}

/// Renders a value for a message, shortened.
pub fn render(v: Option<&Value>) -> String {
    let Some(v) = v else {
        return "nothing".to_owned();
    };
    let text = v.to_string();
    if text.chars().count() > MAX_RENDER {
        let cut: String = text.chars().take(MAX_RENDER).collect();
        format!("{cut}…")
    } else {
        text
    }
}

fn fail<T>(path: &str, message: String) -> Result<T, Mismatch> {
    Err(Mismatch {
        path: path.to_owned(),
        message,
    })
}

fn value(path: &str, key: Option<&str>, e: &Value, a: Option<&Value>) -> Result<(), Mismatch> {
    if e.is_null() {
        return match a {
            None | Some(Value::Null) => Ok(()),
            Some(_) => fail(path, format!("expected null or absent, got {}", render(a))),
        };
    }
    if let Some(k) = key {
        if let Some((rule, _)) = rule_for(k)
            && let Some(result) = by_rule(path, rule, e, a)
        {
            return result;
        }
        if SUBSEQUENCE_FIELDS.contains(&k)
            && let Value::Array(want) = e
        {
            return subsequence(path, want, a);
        }
        if is_counter(k) && e.is_number() && matches!(a, None | Some(Value::Null)) {
            return value(path, None, e, Some(&Value::from(0)));
        }
    }
    match e {
        Value::Object(want) => object(path, want, a),
        Value::Array(want) => {
            let Some(Value::Array(got)) = a else {
                return fail(path, format!("expected an array, got {}", render(a)));
            };
            if want.len() != got.len() {
                return fail(
                    path,
                    format!(
                        "expected {} elements, got {}: {}",
                        want.len(),
                        got.len(),
                        render(a)
                    ),
                );
            }
            for (i, (ev, av)) in want.iter().zip(got).enumerate() {
                value(&format!("{path}[{i}]"), None, ev, Some(av))?;
            }
            Ok(())
        }
        _ => scalar(path, e, a),
    }
}

fn object(path: &str, want: &Map<String, Value>, a: Option<&Value>) -> Result<(), Mismatch> {
    let got = match a {
        Some(Value::Object(m)) => m,
        _ => return fail(path, format!("expected an object, got {}", render(a))),
    };
    for (k, ev) in want {
        let av = got.get(k).or_else(|| {
            // A suffixed check without its own actual value reads its base field.
            rule_for(k).and_then(|(_, base)| got.get(base))
        });
        value(&child(path, k), Some(k), ev, av)?;
    }
    Ok(())
}

fn numbers_equal(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1.0)
}

fn scalar(path: &str, e: &Value, a: Option<&Value>) -> Result<(), Mismatch> {
    let same = match (e, a) {
        (Value::Number(x), Some(Value::Number(y))) => match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) => numbers_equal(x, y),
            _ => x == y,
        },
        (_, Some(av)) => e == av,
        (_, None) => false,
    };
    if same {
        Ok(())
    } else {
        fail(
            path,
            format!("expected {}, got {}", render(Some(e)), render(a)),
        )
    }
}

/// The text a string rule looks into: a string, or an array of strings joined with `\n`.
fn haystack(a: Option<&Value>) -> Option<String> {
    match a? {
        Value::String(s) => Some(s.clone()),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(|parts| parts.join("\n")),
        _ => None,
    }
}

/// Expected needles: one string or an array of strings.
fn needles(e: &Value) -> Option<Vec<&str>> {
    match e {
        Value::String(s) => Some(vec![s.as_str()]),
        Value::Array(items) => items.iter().map(Value::as_str).collect(),
        _ => None,
    }
}

/// Applies a name rule; `None` when the expected value's type does not fit the rule, so the
/// field is compared like any other.
fn by_rule(path: &str, rule: Rule, e: &Value, a: Option<&Value>) -> Option<Result<(), Mismatch>> {
    match rule {
        Rule::Contains | Rule::NotContains => {
            let wanted = needles(e)?;
            Some(contains(path, rule == Rule::Contains, &wanted, a))
        }
        Rule::Matches | Rule::Prefix | Rule::Suffix => {
            let pattern = e.as_str()?;
            Some(string_rule(path, rule, pattern, a))
        }
        Rule::Include => {
            let Value::Array(want) = e else { return None };
            Some(include(path, want, a))
        }
        Rule::Max | Rule::Min => {
            let bound = e.as_f64()?;
            let Some(got) = a.and_then(Value::as_f64) else {
                return Some(fail(path, format!("expected a number, got {}", render(a))));
            };
            let ok = if rule == Rule::Max {
                got <= bound
            } else {
                got >= bound
            };
            Some(if ok {
                Ok(())
            } else {
                let word = if rule == Rule::Max {
                    "at most"
                } else {
                    "at least"
                };
                fail(path, format!("expected {word} {bound}, got {got}"))
            })
        }
    }
}

fn contains(
    path: &str,
    positive: bool,
    wanted: &[&str],
    a: Option<&Value>,
) -> Result<(), Mismatch> {
    let Some(text) = haystack(a) else {
        return fail(path, format!("expected a string, got {}", render(a)));
    };
    for needle in wanted {
        if text.contains(needle) != positive {
            let how = if positive {
                "containing"
            } else {
                "not containing"
            };
            return fail(
                path,
                format!(
                    "expected a string {how} {}, got {}",
                    render(Some(&Value::from(*needle))),
                    render(Some(&Value::from(text)))
                ),
            );
        }
    }
    Ok(())
}

fn string_rule(path: &str, rule: Rule, pattern: &str, a: Option<&Value>) -> Result<(), Mismatch> {
    let Some(text) = haystack(a) else {
        return fail(path, format!("expected a string, got {}", render(a)));
    };
    let (ok, how) = match rule {
        Rule::Prefix => (text.starts_with(pattern), "starting with"),
        Rule::Suffix => (text.ends_with(pattern), "ending with"),
        _ => match Regex::new(pattern) {
            Ok(re) => (re.is_match(&text), "matching"),
            Err(err) => return fail(path, format!("invalid regular expression: {err}")),
        },
    };
    if ok {
        Ok(())
    } else {
        fail(
            path,
            format!(
                "expected a string {how} {}, got {}",
                render(Some(&Value::from(pattern))),
                render(Some(&Value::from(text)))
            ),
        )
    }
}

fn include(path: &str, want: &[Value], a: Option<&Value>) -> Result<(), Mismatch> {
    let Some(Value::Array(got)) = a else {
        return fail(path, format!("expected an array, got {}", render(a)));
    };
    match want.iter().find(|w| !got.contains(w)) {
        None => Ok(()),
        Some(missing) => fail(
            path,
            format!(
                "expected {} to include {}",
                render(a),
                render(Some(missing))
            ),
        ),
    }
}

/// Every expected element, in order, at increasing positions of the actual array.
fn subsequence(path: &str, want: &[Value], a: Option<&Value>) -> Result<(), Mismatch> {
    let Some(Value::Array(got)) = a else {
        return fail(path, format!("expected an array, got {}", render(a)));
    };
    let mut rest = got.iter();
    for (i, w) in want.iter().enumerate() {
        let found = rest.any(|g| value("", None, w, Some(g)).is_ok());
        if !found {
            return fail(
                &format!("{path}[{i}]"),
                format!(
                    "expected {} (in order, as a subsequence), not found in {}",
                    render(Some(w)),
                    render(a)
                ),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(e: Value, a: Value) -> String {
        compare(&e, &a).unwrap_err().to_string()
    }

    #[test]
    fn scalars_exact() {
        compare(
            &json!({"reason": "auth"}),
            &json!({"reason": "auth", "other": 1}),
        )
        .unwrap();
        assert_eq!(
            err(json!({"reason": "rate_limit"}), json!({"reason": null})),
            "expect.reason: expected \"rate_limit\", got null"
        );
        assert_eq!(
            err(json!({"reason": "rate_limit"}), json!({})),
            "expect.reason: expected \"rate_limit\", got nothing"
        );
        assert!(compare(&json!({"ok": true}), &json!({"ok": false})).is_err());
    }

    #[test]
    fn numbers_compare_by_value() {
        compare(&json!({"n": 277403}), &json!({"n": 277403.0})).unwrap();
        assert!(compare(&json!({"n": 1}), &json!({"n": 2})).is_err());
        assert!(compare(&json!({"n": 1}), &json!({"n": "1"})).is_err());
    }

    #[test]
    fn null_means_absent_or_null() {
        compare(&json!({"x": null}), &json!({})).unwrap();
        compare(&json!({"x": null}), &json!({"x": null})).unwrap();
        assert_eq!(
            err(json!({"x": null}), json!({"x": 3})),
            "expect.x: expected null or absent, got 3"
        );
    }

    #[test]
    fn objects_partial_recursive() {
        compare(&json!({"m": {"a": 1}}), &json!({"m": {"a": 1, "b": 2}})).unwrap();
        assert_eq!(
            err(json!({"m": {"a": 1}}), json!({"m": {"a": 2}})),
            "expect.m.a: expected 1, got 2"
        );
        assert!(err(json!({"m": {"a": 1}}), json!({"m": 5})).contains("expected an object"));
    }

    #[test]
    fn arrays_same_length_elementwise() {
        compare(&json!({"c": ["a", "b"]}), &json!({"c": ["a", "b"]})).unwrap();
        assert!(
            err(json!({"c": ["a"]}), json!({"c": ["a", "b"]}))
                .starts_with("expect.c: expected 1 elements, got 2")
        );
        assert_eq!(
            err(json!({"c": [{"t": "x"}]}), json!({"c": [{"t": "y"}]})),
            "expect.c[0].t: expected \"x\", got \"y\""
        );
    }

    #[test]
    fn contains_rules() {
        compare(
            &json!({"textContains": "ell"}),
            &json!({"textContains": "hello"}),
        )
        .unwrap();
        compare(
            &json!({"textContains": ["he", "lo"]}),
            &json!({"text": "hello"}),
        )
        .unwrap();
        assert!(
            compare(
                &json!({"textContains": ["he", "zz"]}),
                &json!({"text": "hello"})
            )
            .is_err()
        );
        compare(
            &json!({"textNotContains": ["zz", "qq"]}),
            &json!({"text": "hello"}),
        )
        .unwrap();
        assert!(
            err(json!({"textNotContains": ["ll"]}), json!({"text": "hello"}))
                .contains("not containing")
        );
        compare(
            &json!({"errorMessageContains": "boom"}),
            &json!({"errorMessage": "a boom"}),
        )
        .unwrap();
        assert!(compare(&json!({"errorMessageContains": "boom"}), &json!({})).is_err());
    }

    #[test]
    fn matches_prefix_suffix_include_max() {
        compare(&json!({"textMatches": "^h.*o$"}), &json!({"text": "hello"})).unwrap();
        assert!(compare(&json!({"textMatches": "^x"}), &json!({"text": "hello"})).is_err());
        assert!(
            err(json!({"textMatches": "("}), json!({"text": "x"}))
                .contains("invalid regular expression")
        );
        compare(&json!({"textPrefix": "he"}), &json!({"text": "hello"})).unwrap();
        assert!(compare(&json!({"textPrefix": "lo"}), &json!({"text": "hello"})).is_err());
        compare(&json!({"textSuffix": "lo"}), &json!({"text": "hello"})).unwrap();
        compare(
            &json!({"toolNamesInclude": ["read"]}),
            &json!({"toolNames": ["exec", "read"]}),
        )
        .unwrap();
        assert!(
            compare(
                &json!({"toolNamesInclude": ["write"]}),
                &json!({"toolNames": ["read"]})
            )
            .is_err()
        );
        compare(&json!({"lengthMax": 10}), &json!({"length": 10})).unwrap();
        assert!(err(json!({"lengthMax": 10}), json!({"length": 11})).contains("at most 10"));
    }

    #[test]
    fn subsequence_fields() {
        let actual = json!({"events": ["start", "text_start", "text_delta", "text_end", "done"]});
        compare(&json!({"events": ["start", "text_end", "done"]}), &actual).unwrap();
        compare(&json!({"events": []}), &actual).unwrap();
        let e = err(json!({"events": ["done", "start"]}), actual.clone());
        assert!(e.starts_with("expect.events[1]:"), "{e}");
        compare(
            &json!({"s": {"appendedTypes": ["message"]}}),
            &json!({"s": {"appendedTypes": ["custom", "message"]}}),
        )
        .unwrap();
        // Other arrays are not subsequences.
        assert!(compare(&json!({"chunks": ["a"]}), &json!({"chunks": ["b", "a"]})).is_err());
    }

    #[test]
    fn missing_counters_are_zero() {
        compare(&json!({"errorCount": 0}), &json!({})).unwrap();
        compare(&json!({"errorCount": 0}), &json!({"errorCount": null})).unwrap();
        assert!(compare(&json!({"errorCount": 1}), &json!({})).is_err());
        // Non-counters stay strict.
        assert!(compare(&json!({"tokens": 0}), &json!({})).is_err());
    }

    #[test]
    fn long_values_are_shortened() {
        let long = "x".repeat(1000);
        let e = err(json!({"t": "y"}), json!({"t": long}));
        assert!(e.len() < 400, "{}", e.len());
        assert!(e.ends_with('…'));
    }
}
