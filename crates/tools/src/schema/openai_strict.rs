//! OpenAI strict mode (`strict: true` function tools): every object is closed and lists every
//! property as required; a property that was optional becomes nullable so the model can still
//! leave it out (by sending `null`, which validation treats as absent).

use serde_json::{Map, Value, json};

/// The `format` values strict mode accepts; others are dropped (schemars writes e.g. `uint`).
const SUPPORTED_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Rewrites `schema` (already without root metadata) for strict mode.
pub(crate) fn normalize(mut schema: Value) -> Value {
    close(&mut schema);
    schema
}

/// Applies the strict rules to this schema node and every subschema below it.
fn close(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(Value::String(format)) = map.get("format")
        && !SUPPORTED_FORMATS.contains(&format.as_str())
    {
        map.shift_remove("format");
    }
    // Strict mode knows `anyOf` only.
    if let Some(one_of) = map.shift_remove("oneOf") {
        map.insert("anyOf".into(), one_of);
    }
    if is_object_schema(map) {
        close_object(map);
    }
    for (key, child) in map.iter_mut() {
        match key.as_str() {
            "properties" | "$defs" | "definitions" | "patternProperties" => {
                if let Value::Object(children) = child {
                    children.values_mut().for_each(close);
                }
            }
            "items" | "additionalItems" | "contains" | "not" => close(child),
            "anyOf" | "allOf" | "prefixItems" => {
                if let Value::Array(children) = child {
                    children.iter_mut().for_each(close);
                }
            }
            _ => {}
        }
    }
}

/// Whether the node describes an object (by `type` or by having `properties`).
fn is_object_schema(map: &Map<String, Value>) -> bool {
    map.contains_key("properties")
        || match map.get("type") {
            Some(Value::String(t)) => t == "object",
            Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
            _ => false,
        }
}

/// `additionalProperties: false` and every property required, the optional ones nullable.
fn close_object(map: &mut Map<String, Value>) {
    let required: Vec<Value> = map
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if !required.iter().any(|r| r == name.as_str()) {
                make_nullable(property);
            }
        }
        let all: Vec<Value> = properties.keys().map(|k| Value::from(k.as_str())).collect();
        map.insert("required".into(), Value::Array(all));
    }
    // A free-form map (`additionalProperties: {schema}`) cannot be expressed in strict mode;
    // closing it is the only schema the API accepts.
    map.insert("additionalProperties".into(), Value::Bool(false));
}

/// Lets `schema` also accept `null`.
fn make_nullable(schema: &mut Value) {
    let Value::Object(map) = schema else {
        return;
    };
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            if t != "null" {
                let single = std::mem::take(t);
                map.insert("type".into(), json!([single, "null"]));
            }
            add_null_to_enum(map);
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(Value::from("null"));
            }
            add_null_to_enum(map);
        }
        _ => {
            if let Some(Value::Array(variants)) = map.get_mut("anyOf") {
                if !variants.iter().any(|v| v == &json!({"type": "null"})) {
                    variants.push(json!({"type": "null"}));
                }
                return;
            }
            // No type to extend (a `$ref`, an `enum`, `{}`): wrap it, keeping the description
            // where the model reads it.
            let description = map.shift_remove("description");
            let inner = std::mem::take(map);
            map.insert(
                "anyOf".into(),
                json!([Value::Object(inner), {"type": "null"}]),
            );
            if let Some(description) = description {
                map.insert("description".into(), description);
            }
        }
    }
}

/// An `enum` next to a nullable `type` must list `null` too, or `null` fails it.
fn add_null_to_enum(map: &mut Map<String, Value>) {
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn objects_are_closed_and_optionals_nullable() {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "integer", "format": "uint", "minimum": 0},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "inner": {"$ref": "#/$defs/Inner", "description": "Nested."},
                "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "number"}}}}
            },
            "required": ["path"],
            "$defs": {"Inner": {"type": "object", "properties": {"y": {"type": "boolean"}}, "required": ["y"]}}
        });
        assert_eq!(
            normalize(schema),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "limit": {"type": ["integer", "null"], "minimum": 0},
                    "mode": {"type": ["string", "null"], "enum": ["a", "b", null]},
                    "inner": {"anyOf": [{"$ref": "#/$defs/Inner"}, {"type": "null"}], "description": "Nested."},
                    "list": {
                        "type": ["array", "null"],
                        "items": {"type": "object", "properties": {"x": {"type": ["number", "null"]}}, "required": ["x"], "additionalProperties": false}
                    }
                },
                "required": ["path", "limit", "mode", "inner", "list"],
                "$defs": {"Inner": {"type": "object", "properties": {"y": {"type": "boolean"}}, "required": ["y"], "additionalProperties": false}},
                "additionalProperties": false
            })
        );
    }
}
