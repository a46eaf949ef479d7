//! Gemini function declarations: an OpenAPI 3.0 subset. The API rejects unknown keywords with
//! `Invalid JSON payload received. Unknown name …`, so only the keywords every Gemini endpoint
//! (including Cloud Code Assist, which is stricter than the public API) accepts are kept, after
//! turning the common JSON Schema forms into ones it understands.

use serde_json::{Map, Value};

use super::refs::inline_refs;

/// Keywords kept on a schema node; everything else (`$ref`/`$defs` after inlining,
/// `additionalProperties`, `format`, `minimum`, `pattern`, `title`, `default`, `examples`,
/// `const` after conversion, …) is removed. This is stricter than OpenClaw's deny list
/// (`clean-for-gemini.ts`) on purpose: a keyword Gemini does not know fails the whole request.
const KEPT_KEYWORDS: [&str; 8] = [
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "anyOf",
    "nullable",
];

/// Rewrites `schema` (already without root metadata) for Gemini.
pub(crate) fn normalize(schema: Value) -> Value {
    let mut out = inline_refs(schema);
    clean(&mut out);
    out
}

/// Applies the Gemini rules to this node and its subschemas.
fn clean(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(constant) = map.shift_remove("const") {
        map.insert("enum".into(), Value::Array(vec![constant]));
    }
    if let Some(one_of) = map.shift_remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    fold_any_of(map);
    if let Some(Value::Array(types)) = map.get("type") {
        // One type per node: the first that is not `null`.
        let first = types.iter().find(|t| *t != "null").cloned();
        match first {
            Some(t) => {
                map.insert("type".into(), t);
            }
            None => {
                map.shift_remove("type");
            }
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    map.retain(|key, _| KEPT_KEYWORDS.contains(&key.as_str()));
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(clean);
    }
    let names: Vec<String> = match map.get("properties") {
        Some(Value::Object(properties)) => properties.keys().cloned().collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Array(required)) = map.get_mut("required") {
        // Gemini rejects a required name that is not a declared property.
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
        if required.is_empty() {
            map.shift_remove("required");
        }
    }
    if let Some(items) = map.get_mut("items") {
        clean(items);
    }
    if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
        variants.iter_mut().for_each(clean);
    }
}

/// Simplifies `anyOf`: `null` variants go; a union of literals becomes one `enum`; a single
/// remaining variant is merged into the node.
fn fold_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(variants)) = map.get_mut("anyOf") else {
        return;
    };
    variants.retain(|v| !is_null_schema(v));
    if let Some((kind, values)) = literal_union(variants) {
        map.shift_remove("anyOf");
        map.entry("type").or_insert(Value::from(kind));
        map.insert("enum".into(), Value::Array(values));
        return;
    }
    if variants.len() == 1 {
        let only = variants.remove(0);
        map.shift_remove("anyOf");
        if let Value::Object(inner) = only {
            for (key, value) in inner {
                map.entry(key).or_insert(value);
            }
        }
        // The merged node may itself hold a `const` or `oneOf`.
        if let Some(constant) = map.shift_remove("const") {
            map.insert("enum".into(), Value::Array(vec![constant]));
        }
    } else if variants.is_empty() {
        map.shift_remove("anyOf");
    }
}

/// If every variant is one literal (`const` or a one-value `enum`) of the same JSON type, that
/// type and the literals.
fn literal_union(variants: &[Value]) -> Option<(&'static str, Vec<Value>)> {
    if variants.len() < 2 {
        return None;
    }
    let mut kind = None;
    let mut values = Vec::new();
    for variant in variants {
        let map = variant.as_object()?;
        let value = match (map.get("const"), map.get("enum")) {
            (Some(constant), _) => constant.clone(),
            (None, Some(Value::Array(one))) if one.len() == 1 => one[0].clone(),
            _ => return None,
        };
        let this = match &value {
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            _ => return None,
        };
        if kind.is_some_and(|k| k != this) {
            return None;
        }
        kind = Some(this);
        values.push(value);
    }
    kind.map(|k| (k, values))
}

/// Whether `schema` is `{"type": "null"}` (possibly with a description).
fn is_null_schema(schema: &Value) -> bool {
    schema
        .as_object()
        .is_some_and(|m| m.get("type").is_some_and(|t| t == "null"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn refs_inlined_and_unsupported_keywords_removed() {
        let schema = json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "format": {"type": "string", "format": "email", "minLength": 1, "pattern": "x", "title": "T"},
                "limit": {"type": ["integer", "null"], "format": "uint", "minimum": 0, "default": 5},
                "action": {"oneOf": [{"const": "send", "description": "Send."}, {"const": "thread-reply"}], "description": "What."},
                "kind": {"$ref": "#/$defs/Kind"},
                "maybe": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}], "description": "Maybe."}
            },
            "required": ["format", "ghost"],
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}}
        });
        assert_eq!(
            normalize(schema),
            json!({
                "type": "object",
                "properties": {
                    "format": {"type": "string"},
                    "limit": {"type": "integer"},
                    "action": {"description": "What.", "type": "string", "enum": ["send", "thread-reply"]},
                    "kind": {"type": "string", "enum": ["a", "b"]},
                    "maybe": {"description": "Maybe.", "type": "string", "enum": ["a", "b"]}
                },
                "required": ["format"]
            })
        );
    }
}
