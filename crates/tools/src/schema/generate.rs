//! Schema generation from a typed argument struct.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The plain parameters schema of `T`, shaped like pi's TypeBox schemas: draft 2020-12 as
/// schemars writes it with subschemas inlined (only recursive types keep a `$ref`), except that
/// an optional (not required) property neither admits `null` nor defaults to it (schemars adds
/// both for an `Option` with `#[serde(default)]`; pi's `Type.Optional` does neither), and
/// without `$schema` or the struct's root `title`/`description` (Rust docs, not model docs).
pub fn generate<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let mut value = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    strip_root_metadata(&mut value);
    if let Some(root) = value.as_object_mut() {
        root.shift_remove("description");
    }
    drop_optional_nulls(&mut value);
    value
}

/// Removes the root keys no provider wants: `$schema` (some reject it) and `title` (the Rust
/// type's name, meaningless to the model).
pub fn strip_root_metadata(schema: &mut Value) {
    if let Some(root) = schema.as_object_mut() {
        root.shift_remove("$schema");
        root.shift_remove("title");
    }
}

/// In every object schema, takes `null` out of the types of properties that are not required.
fn drop_optional_nulls(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let required: Vec<String> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| {
                    names
                        .iter()
                        .filter_map(|n| n.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(Value::Object(properties)) = map.get_mut("properties") {
                for (name, property) in properties.iter_mut() {
                    if !required.contains(name) {
                        remove_null_variant(property);
                    }
                }
            }
            for child in map.values_mut() {
                drop_optional_nulls(child);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(drop_optional_nulls),
        _ => {}
    }
}

/// `{"type": ["T", "null"]}` → `{"type": "T"}`; `{"anyOf": [S, {"type": "null"}]}` → `S`;
/// `"default": null` removed.
fn remove_null_variant(schema: &mut Value) {
    let Some(map) = schema.as_object_mut() else {
        return;
    };
    if map.get("default").is_some_and(Value::is_null) {
        map.shift_remove("default");
    }
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let single = types.remove(0);
            map.insert("type".into(), single);
        }
        if let Some(Value::Array(values)) = map.get_mut("enum") {
            values.retain(|v| !v.is_null());
        }
        return;
    }
    for keyword in ["anyOf", "oneOf"] {
        let Some(Value::Array(variants)) = map.get_mut(keyword) else {
            continue;
        };
        variants.retain(|v| !is_null_schema(v));
        if variants.len() == 1 {
            let only = variants.remove(0);
            map.shift_remove(keyword);
            if let Value::Object(inner) = only {
                merge_missing(map, inner);
            }
        }
        return;
    }
}

/// Whether `schema` is exactly `{"type": "null"}`.
fn is_null_schema(schema: &Value) -> bool {
    schema
        .as_object()
        .is_some_and(|m| m.len() == 1 && m.get("type").is_some_and(|t| t == "null"))
}

/// Copies `inner`'s keys into `outer` where `outer` has none (the outer `description` wins).
fn merge_missing(outer: &mut Map<String, Value>, inner: Map<String, Value>) {
    for (key, value) in inner {
        outer.entry(key).or_insert(value);
    }
}
