//! Reading one scenario file into its raw case objects.
//!
//! Only file-level structure is checked here (valid JSON, one case or a `{"cases": [...]}`
//! wrapper with nothing else); each case is parsed on its own later so one bad case does not
//! hide the others.

use std::fs;
use std::path::Path;

use serde_json::Value;

use super::scenario::decode::type_name;
use super::strict_json;

/// The raw cases of a file and whether they came from a `cases` wrapper.
#[derive(Debug, Clone, PartialEq)]
pub struct FileCases {
    /// Raw case objects, in file order.
    pub cases: Vec<Value>,
    /// `true` for a `{"cases": [...]}` file.
    pub wrapped: bool,
}

/// Reads and splits a scenario file; the error is a one-line reason the file cannot be used.
pub fn load(path: &Path) -> Result<FileCases, String> {
    let bytes = fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    if text.starts_with('\u{feff}') {
        return Err("starts with a byte-order mark".to_owned());
    }
    let data = strict_json::parse(&text).map_err(|e| format!("invalid JSON: {e}"))?;
    split(data)
}

/// Splits parsed file content into cases.
pub fn split(data: Value) -> Result<FileCases, String> {
    let Value::Object(mut map) = data else {
        return Err(format!(
            "top level must be a case object or {{\"cases\": [...]}}, got {}",
            type_name(&data)
        ));
    };
    let Some(cases) = map.remove("cases") else {
        return Ok(FileCases {
            cases: vec![Value::Object(map)],
            wrapped: false,
        });
    };
    if !map.is_empty() {
        let extra: Vec<String> = map.keys().map(|k| format!("`{k}`")).collect();
        return Err(format!(
            "a {{\"cases\": [...]}} file may hold no other field, found {}",
            extra.join(", ")
        ));
    }
    match cases {
        Value::Array(cases) if cases.is_empty() => Err("cases: empty array".to_owned()),
        Value::Array(cases) => Ok(FileCases {
            cases,
            wrapped: true,
        }),
        other => Err(format!("cases: expected array, got {}", type_name(&other))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn single_and_wrapped() {
        let one = split(json!({"kind": "tags", "name": "a"})).unwrap();
        assert_eq!((one.cases.len(), one.wrapped), (1, false));
        let many = split(json!({"cases": [{"name": "a"}, {"name": "b"}]})).unwrap();
        assert_eq!((many.cases.len(), many.wrapped), (2, true));
    }

    #[test]
    fn wrapper_rules() {
        let e = split(json!({"cases": [], "extra": 1})).unwrap_err();
        assert_eq!(
            e,
            "a {\"cases\": [...]} file may hold no other field, found `extra`"
        );
        assert_eq!(
            split(json!({"cases": {}})).unwrap_err(),
            "cases: expected array, got object"
        );
        assert_eq!(
            split(json!({"cases": []})).unwrap_err(),
            "cases: empty array"
        );
        assert!(
            split(json!([1]))
                .unwrap_err()
                .starts_with("top level must be")
        );
    }
}
