//! Tool argument validation (pi-mono §1.12): pi validates with AJV (`allErrors`, `coerceTypes`)
//! on a copy of the arguments, coercing in place, and hands the coerced copy to the tool. The
//! failure text lists every error and echoes the arguments so the model can fix its call:
//!
//! ```text
//! Validation failed for tool "read":
//!   - path: must be string
//!
//! Received arguments:
//! {
//!   "path": 5
//! }
//! ```
//!
//! This is a JSON Schema validator for the keywords tool schemas use (`type`, `properties`,
//! `required`, `additionalProperties`, `items`, `enum`, `const`, numeric/length/count limits,
//! `pattern`, `anyOf`/`oneOf`/`allOf`/`not`, local `$ref`) with AJV's messages, keyword order
//! and coercion table. `format` is not checked (AJV ignores unknown formats such as schemars'
//! `uint` in pi's non-strict setup).
//!
//! Deviation from pi: a `null` for a property that is not required is removed before
//! validation, i.e. treated as absent. OpenAI strict mode makes the model send `null` for
//! omitted optional properties; AJV would coerce it to `0`/`""`/`false` instead.

use std::fmt;

use serde_json::{Map, Number, Value};

use crate::js_format;

/// Why arguments were rejected; `Display` is pi's exact message.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationError {
    /// The tool called.
    pub tool_name: String,
    /// Each error, in AJV's order.
    pub issues: Vec<ValidationIssue>,
    /// The arguments as the model sent them.
    pub received: Value,
}

/// One validation error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationIssue {
    /// pi's path: the instance path without its leading `/`, else the missing property's
    /// name, else `root`.
    pub path: String,
    /// AJV's message, e.g. `must be string`.
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Validation failed for tool \"{}\":", self.tool_name)?;
        if self.issues.is_empty() {
            f.write_str("Unknown validation error")?;
        }
        let lines: Vec<String> = self
            .issues
            .iter()
            .map(|issue| format!("  - {}: {}", issue.path, issue.message))
            .collect();
        f.write_str(&lines.join("\n"))?;
        // JSON.stringify(args, null, 2); serde_json's pretty printer uses the same layout.
        let received =
            serde_json::to_string_pretty(&self.received).unwrap_or_else(|_| "null".to_owned());
        write!(f, "\n\nReceived arguments:\n{received}")
    }
}

impl std::error::Error for ValidationError {}

/// Validates `args` against `schema`, returning the coerced copy the tool should receive.
pub fn validate_arguments(
    tool_name: &str,
    schema: &Value,
    args: &Value,
) -> Result<Value, ValidationError> {
    let mut data = args.clone();
    let mut validator = Validator {
        root: schema,
        errors: Vec::new(),
        depth: 0,
    };
    validator.check(schema, &mut data, "");
    if validator.errors.is_empty() {
        Ok(data)
    } else {
        Err(ValidationError {
            tool_name: tool_name.to_owned(),
            issues: validator
                .errors
                .into_iter()
                .map(AjvError::into_issue)
                .collect(),
            received: args.clone(),
        })
    }
}

/// How deep `$ref`s may recurse before validation gives up on a branch (a schema cycle that
/// does not consume the instance, e.g. `{"$ref": "#"}`, would recurse forever).
const MAX_DEPTH: usize = 64;

/// A numeric limit's test: `(value, limit) -> ok`.
type NumberTest = fn(f64, f64) -> bool;

/// An AJV error before pi formats its path.
struct AjvError {
    instance_path: String,
    missing_property: Option<String>,
    message: String,
}

impl AjvError {
    fn into_issue(self) -> ValidationIssue {
        let path = if let Some(rest) = self.instance_path.strip_prefix('/') {
            rest.to_owned()
        } else if let Some(missing) = self.missing_property {
            missing
        } else {
            "root".to_owned()
        };
        ValidationIssue {
            path,
            message: self.message,
        }
    }
}

struct Validator<'s> {
    root: &'s Value,
    errors: Vec<AjvError>,
    depth: usize,
}

impl<'s> Validator<'s> {
    fn error(&mut self, path: &str, message: String) {
        self.errors.push(AjvError {
            instance_path: path.to_owned(),
            missing_property: None,
            message,
        });
    }

    /// Checks `data` against `schema`, coercing it in place, in AJV's keyword order: type (with
    /// coercion), then keywords for any type, then the keywords of the data's type.
    fn check(&mut self, schema: &'s Value, data: &mut Value, path: &str) {
        let map = match schema {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                self.error(path, "boolean schema is false".to_owned());
                return;
            }
            Value::Object(map) => map,
            _ => return,
        };
        if let Some(types) = map.get("type") {
            self.check_type(types, data, path);
        }
        if let Some(Value::String(reference)) = map.get("$ref") {
            self.check_ref(reference, data, path);
        }
        if let Some(constant) = map.get("const")
            && !json_equal(data, constant)
        {
            self.error(path, "must be equal to constant".to_owned());
        }
        if let Some(Value::Array(allowed)) = map.get("enum")
            && !allowed.iter().any(|v| json_equal(data, v))
        {
            self.error(
                path,
                "must be equal to one of the allowed values".to_owned(),
            );
        }
        if let Some(not) = map.get("not") {
            let mut probe = self.probe();
            probe.check(not, &mut data.clone(), path);
            if probe.errors.is_empty() {
                self.error(path, "must NOT be valid".to_owned());
            }
        }
        if let Some(Value::Array(variants)) = map.get("anyOf") {
            self.check_any_of(variants, data, path);
        }
        if let Some(Value::Array(variants)) = map.get("oneOf") {
            self.check_one_of(variants, data, path);
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            for part in parts {
                self.check(part, data, path);
            }
        }
        match data {
            Value::Number(n) => self.check_number(map, n.as_f64().unwrap_or(f64::NAN), path),
            Value::String(s) => self.check_string(map, s, path),
            Value::Array(items) => self.check_array(map, items, path),
            Value::Object(object) => self.check_object(map, object, path),
            _ => {}
        }
    }

    /// A validator for a sub-check whose errors may be discarded.
    fn probe(&self) -> Validator<'s> {
        Validator {
            root: self.root,
            errors: Vec::new(),
            depth: self.depth,
        }
    }

    fn check_type(&mut self, types: &Value, data: &mut Value, path: &str) {
        let names: Vec<&str> = match types {
            Value::String(name) => vec![name.as_str()],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            _ => return,
        };
        if names.iter().any(|name| has_type(data, name)) {
            normalize_integer(data, &names);
            return;
        }
        if let Some(coerced) = names.iter().find_map(|name| coerce(data, name)) {
            *data = coerced;
            return;
        }
        self.error(path, format!("must be {}", names.join(",")));
    }

    fn check_ref(&mut self, reference: &str, data: &mut Value, path: &str) {
        let Some(target) = reference
            .strip_prefix('#')
            .and_then(|pointer| self.root.pointer(pointer))
        else {
            // AJV refuses to compile such a schema; the tool's schema is at fault, not the
            // model, so the reference is not held against the arguments.
            return;
        };
        if self.depth >= MAX_DEPTH {
            return;
        }
        self.depth += 1;
        self.check(target, data, path);
        self.depth -= 1;
    }

    fn check_any_of(&mut self, variants: &'s [Value], data: &mut Value, path: &str) {
        let mut branch_errors = Vec::new();
        for variant in variants {
            let mut probe = self.probe();
            let mut candidate = data.clone();
            probe.check(variant, &mut candidate, path);
            if probe.errors.is_empty() {
                *data = candidate;
                return;
            }
            branch_errors.extend(probe.errors);
        }
        self.errors.extend(branch_errors);
        self.error(path, "must match a schema in anyOf".to_owned());
    }

    fn check_one_of(&mut self, variants: &'s [Value], data: &mut Value, path: &str) {
        let mut branch_errors = Vec::new();
        let mut passing = Vec::new();
        for variant in variants {
            let mut probe = self.probe();
            let mut candidate = data.clone();
            probe.check(variant, &mut candidate, path);
            if probe.errors.is_empty() {
                passing.push(candidate);
            } else {
                branch_errors.extend(probe.errors);
            }
        }
        match passing.len() {
            1 => {
                if let Some(candidate) = passing.pop() {
                    *data = candidate;
                }
            }
            0 => {
                self.errors.extend(branch_errors);
                self.error(path, "must match exactly one schema in oneOf".to_owned());
            }
            _ => self.error(path, "must match exactly one schema in oneOf".to_owned()),
        }
    }

    fn check_number(&mut self, map: &Map<String, Value>, n: f64, path: &str) {
        let limits: [(&str, &str, NumberTest); 4] = [
            ("maximum", "<=", |n, l| n <= l),
            ("minimum", ">=", |n, l| n >= l),
            ("exclusiveMaximum", "<", |n, l| n < l),
            ("exclusiveMinimum", ">", |n, l| n > l),
        ];
        for (keyword, op, ok) in limits {
            if let Some(limit) = map.get(keyword).and_then(Value::as_f64)
                && !ok(n, limit)
            {
                self.error(path, format!("must be {op} {}", js_format::number(limit)));
            }
        }
        if let Some(divisor) = map.get("multipleOf").and_then(Value::as_f64)
            && divisor > 0.0
            && (n / divisor).fract() != 0.0
        {
            self.error(
                path,
                format!("must be multiple of {}", js_format::number(divisor)),
            );
        }
    }

    fn check_string(&mut self, map: &Map<String, Value>, s: &str, path: &str) {
        // AJV counts Unicode code points, not UTF-16 units.
        let length = s.chars().count();
        if let Some(max) = map.get("maxLength").and_then(Value::as_u64)
            && length as u64 > max
        {
            self.error(path, format!("must NOT have more than {max} characters"));
        }
        if let Some(min) = map.get("minLength").and_then(Value::as_u64)
            && (length as u64) < min
        {
            self.error(path, format!("must NOT have fewer than {min} characters"));
        }
        if let Some(Value::String(pattern)) = map.get("pattern")
            // A pattern Rust's regex cannot compile (JS-only syntax) is not enforced.
            && let Ok(regex) = regex::Regex::new(pattern)
            && !regex.is_match(s)
        {
            self.error(path, format!("must match pattern \"{pattern}\""));
        }
    }

    fn check_array(&mut self, map: &'s Map<String, Value>, items: &mut [Value], path: &str) {
        let count = items.len() as u64;
        if let Some(max) = map.get("maxItems").and_then(Value::as_u64)
            && count > max
        {
            self.error(path, format!("must NOT have more than {max} items"));
        }
        if let Some(min) = map.get("minItems").and_then(Value::as_u64)
            && count < min
        {
            self.error(path, format!("must NOT have fewer than {min} items"));
        }
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            self.check_unique(items, path);
        }
        let prefix: &[Value] = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), _) => prefix,
            // Draft-07 tuple form.
            (None, Some(Value::Array(prefix))) => prefix,
            _ => &[],
        };
        let rest = match map.get("items") {
            Some(schema @ (Value::Object(_) | Value::Bool(_))) => Some(schema),
            _ => None,
        };
        for (index, item) in items.iter_mut().enumerate() {
            let item_path = format!("{path}/{index}");
            match prefix.get(index) {
                Some(schema) => self.check(schema, item, &item_path),
                None => {
                    if let Some(schema) = rest {
                        self.check(schema, item, &item_path);
                    }
                }
            }
        }
    }

    fn check_unique(&mut self, items: &[Value], path: &str) {
        for later in (0..items.len()).rev() {
            if let Some(earlier) = (0..later)
                .rev()
                .find(|&e| json_equal(&items[e], &items[later]))
            {
                self.error(
                    path,
                    format!(
                        "must NOT have duplicate items (items ## {earlier} and {later} are identical)"
                    ),
                );
                return;
            }
        }
    }

    fn check_object(
        &mut self,
        map: &'s Map<String, Value>,
        object: &mut Map<String, Value>,
        path: &str,
    ) {
        let properties = map.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(properties) = properties {
            // See the module docs: `null` for an optional property means "not given".
            object.retain(|key, value| {
                !(value.is_null()
                    && properties.contains_key(key)
                    && !required.contains(&key.as_str()))
            });
        }
        let count = object.len() as u64;
        if let Some(max) = map.get("maxProperties").and_then(Value::as_u64)
            && count > max
        {
            self.error(path, format!("must NOT have more than {max} properties"));
        }
        if let Some(min) = map.get("minProperties").and_then(Value::as_u64)
            && count < min
        {
            self.error(path, format!("must NOT have fewer than {min} properties"));
        }
        for name in &required {
            if !object.contains_key(*name) {
                self.errors.push(AjvError {
                    instance_path: path.to_owned(),
                    missing_property: Some((*name).to_owned()),
                    message: format!("must have required property '{name}'"),
                });
            }
        }
        let patterns: Vec<(regex::Regex, &'s Value)> = map
            .get("patternProperties")
            .and_then(Value::as_object)
            .map(|patterns| {
                patterns
                    .iter()
                    .filter_map(|(p, s)| regex::Regex::new(p).ok().map(|r| (r, s)))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(additional) = map.get("additionalProperties") {
            for (key, value) in object.iter_mut() {
                let declared = properties.is_some_and(|p| p.contains_key(key))
                    || patterns.iter().any(|(regex, _)| regex.is_match(key));
                if declared {
                    continue;
                }
                match additional {
                    Value::Bool(false) => {
                        self.error(path, "must NOT have additional properties".to_owned());
                    }
                    schema @ Value::Object(_) => {
                        self.check(schema, value, &child_path(path, key));
                    }
                    _ => {}
                }
            }
        }
        if let Some(properties) = properties {
            for (key, schema) in properties {
                if let Some(value) = object.get_mut(key) {
                    self.check(schema, value, &child_path(path, key));
                }
            }
        }
        for (regex, schema) in &patterns {
            for (key, value) in object.iter_mut() {
                if regex.is_match(key) {
                    self.check(schema, value, &child_path(path, key));
                }
            }
        }
    }
}

/// `path` + `/` + `key` as a JSON pointer (`~` → `~0`, `/` → `~1`).
fn child_path(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// Whether `data` is of JSON Schema type `name`.
fn has_type(data: &Value, name: &str) -> bool {
    match name {
        "string" => data.is_string(),
        "number" => data.is_number(),
        "integer" => data.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => data.is_boolean(),
        "object" => data.is_object(),
        "array" => data.is_array(),
        "null" => data.is_null(),
        _ => false,
    }
}

/// An integer-typed value written as `5.0` becomes `5`: JS does not tell them apart, but a
/// Rust tool deserializing into an integer type would refuse the float.
fn normalize_integer(data: &mut Value, names: &[&str]) {
    if names.contains(&"integer")
        && !names.contains(&"number")
        && let Value::Number(n) = data
        && n.is_f64()
        && let Some(int) = n.as_f64().and_then(integral_value)
    {
        *data = int;
    }
}

/// AJV's `coerceTypes: true` table: the value `data` becomes as type `name`, if it can.
fn coerce(data: &Value, name: &str) -> Option<Value> {
    match (name, data) {
        ("string", Value::Number(n)) => Some(Value::String(number_to_js_string(n))),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("number" | "integer", Value::Bool(b)) => Some(Value::from(u8::from(*b))),
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number", Value::String(s)) => js_string_to_number(s).and_then(number_value),
        ("integer", Value::String(s)) => js_string_to_number(s)
            .filter(|n| n.fract() == 0.0)
            .and_then(number_value),
        ("boolean", Value::String(s)) if s == "true" => Some(Value::Bool(true)),
        ("boolean", Value::String(s)) if s == "false" => Some(Value::Bool(false)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(1.0) => Some(Value::Bool(true)),
        ("boolean", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Bool(false)),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("null", Value::String(s)) if s.is_empty() => Some(Value::Null),
        ("null", Value::Number(n)) if n.as_f64() == Some(0.0) => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}

/// JS `String(n)` for a JSON number.
fn number_to_js_string(n: &Number) -> String {
    if n.is_f64() {
        js_format::number(n.as_f64().unwrap_or(f64::NAN))
    } else {
        n.to_string()
    }
}

/// AJV's test `data && data == +data` with `+data` (JS `ToNumber` of a string): `None` when
/// the string is empty or not numeric. Infinity is numeric in JS but has no JSON form, so it
/// is refused too.
fn js_string_to_number(s: &str) -> Option<f64> {
    if s.is_empty() {
        return None;
    }
    let trimmed = clawloop_core::js_text::js_trim(s);
    if trimmed.is_empty() {
        return Some(0.0);
    }
    let radix = [
        ("0x", 16),
        ("0X", 16),
        ("0o", 8),
        ("0O", 8),
        ("0b", 2),
        ("0B", 2),
    ]
    .into_iter()
    .find_map(|(prefix, radix)| trimmed.strip_prefix(prefix).map(|digits| (digits, radix)));
    if let Some((digits, radix)) = radix {
        if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
            return None;
        }
        let mut value = 0f64;
        for c in digits.chars() {
            value = value * f64::from(radix) + f64::from(c.to_digit(radix)?);
        }
        return Some(value);
    }
    // JS decimal literal: sign, digits, point, exponent; Rust's parser would also take `inf`,
    // `NaN` and `infinity`, which JS spells differently.
    let decimal = trimmed
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'));
    if !decimal || !trimmed.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    trimmed.parse::<f64>().ok().filter(|n| n.is_finite())
}

/// A finite number as a JSON value: integral values as integers (JS has one number type).
fn number_value(n: f64) -> Option<Value> {
    integral_value(n).or_else(|| Number::from_f64(n).map(Value::Number))
}

/// An integral `n` within ±2^53 as an integer JSON value.
fn integral_value(n: f64) -> Option<Value> {
    const SAFE: f64 = 9_007_199_254_740_992.0;
    if n.fract() == 0.0 && n.abs() <= SAFE {
        // In range and integral, so the conversion is exact.
        #[allow(clippy::cast_possible_truncation)]
        let int = n as i64;
        Some(Value::from(int))
    } else {
        None
    }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`), as AJV's `equal` does.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn read_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path"},
                "offset": {"type": "number"},
                "limit": {"type": "integer", "minimum": 1},
                "flag": {"type": "boolean"}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    #[test]
    fn valid_arguments_are_coerced_like_ajv() {
        let out = validate_arguments(
            "read",
            &read_schema(),
            &json!({"path": 5, "offset": "10", "limit": "3", "flag": "true"}),
        );
        assert_eq!(
            out,
            Ok(json!({"path": "5", "offset": 10, "limit": 3, "flag": true}))
        );
        let out = validate_arguments(
            "read",
            &read_schema(),
            &json!({"path": true, "offset": " 0x10 ", "limit": 2.0, "flag": 0}),
        );
        assert_eq!(
            out,
            Ok(json!({"path": "true", "offset": 16, "limit": 2, "flag": false}))
        );
        let out = validate_arguments(
            "read",
            &read_schema(),
            &json!({"path": "a", "offset": "1.5"}),
        );
        assert_eq!(out, Ok(json!({"path": "a", "offset": 1.5})));
    }

    #[test]
    fn optional_nulls_count_as_absent() {
        let out = validate_arguments(
            "read",
            &read_schema(),
            &json!({"path": "a", "offset": null, "limit": null}),
        );
        assert_eq!(out, Ok(json!({"path": "a"})));
        // A required property's null is coerced as AJV does.
        let out = validate_arguments("read", &read_schema(), &json!({"path": null}));
        assert_eq!(out, Ok(json!({"path": ""})));
    }

    #[test]
    fn failure_text_is_pis() {
        let args = json!({"offset": "ten", "limit": 0, "flag": "yes", "extra": 1});
        let err = validate_arguments("read", &read_schema(), &args).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Validation failed for tool \"read\":\n\
             \x20 - path: must have required property 'path'\n\
             \x20 - root: must NOT have additional properties\n\
             \x20 - offset: must be number\n\
             \x20 - limit: must be >= 1\n\
             \x20 - flag: must be boolean\n\
             \n\
             Received arguments:\n\
             {\n  \"offset\": \"ten\",\n  \"limit\": 0,\n  \"flag\": \"yes\",\n  \"extra\": 1\n}"
        );
    }

    #[test]
    fn nested_paths_enums_and_unions() {
        let schema = json!({
            "type": "object",
            "properties": {
                "edits": {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}}, "required": ["old"]}, "maxItems": 2},
                "action": {"type": "string", "enum": ["send", "thread-reply"]},
                "mode": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]},
                "kind": {"$ref": "#/$defs/Kind"}
            },
            "$defs": {"Kind": {"const": "x"}}
        });
        let err = validate_arguments(
            "t",
            &schema,
            &json!({"edits": [{"old": "a"}, {}, [] ], "action": "shout", "mode": [], "kind": "y"}),
        )
        .unwrap_err();
        let issues: Vec<(String, String)> = err
            .issues
            .into_iter()
            .map(|i| (i.path, i.message))
            .collect();
        let expected: Vec<(String, String)> = [
            ("edits", "must NOT have more than 2 items"),
            ("edits/1", "must have required property 'old'"),
            ("edits/2", "must be object"),
            ("action", "must be equal to one of the allowed values"),
            ("mode", "must be integer"),
            ("mode", "must be boolean"),
            ("mode", "must match a schema in anyOf"),
            ("kind", "must be equal to constant"),
        ]
        .into_iter()
        .map(|(p, m)| (p.to_owned(), m.to_owned()))
        .collect();
        assert_eq!(issues, expected);
        assert_eq!(
            validate_arguments("t", &schema, &json!({"mode": "7"})),
            Ok(json!({"mode": 7}))
        );
    }

    #[test]
    fn root_type_errors_say_root() {
        let err = validate_arguments("t", &read_schema(), &json!([1])).unwrap_err();
        assert_eq!(
            err.issues,
            vec![ValidationIssue {
                path: "root".into(),
                message: "must be object".into()
            }]
        );
    }

    #[test]
    fn js_number_parsing() {
        assert_eq!(js_string_to_number("1e3"), Some(1000.0));
        assert_eq!(js_string_to_number(" -2.5 "), Some(-2.5));
        assert_eq!(js_string_to_number("  "), Some(0.0));
        assert_eq!(js_string_to_number(""), None);
        assert_eq!(js_string_to_number("Infinity"), None);
        assert_eq!(js_string_to_number("inf"), None);
        assert_eq!(js_string_to_number("1a"), None);
        assert_eq!(js_string_to_number("0b101"), Some(5.0));
        assert_eq!(js_string_to_number("-0x10"), None);
    }
}
