//! Inlining of local `$ref`s, for providers that accept no references (Gemini).

use serde_json::{Map, Value};

/// How deep references may nest on one path before a recursive type is cut off.
const MAX_REF_DEPTH: usize = 8;

/// Replaces every local `$ref` (`#/$defs/X`, `#/definitions/X`, any JSON pointer into the
/// root) with the schema it points to, and removes the definition tables. Keys next to a
/// `$ref` (e.g. `description`) win over the target's. A recursive type is cut off after
/// [`MAX_REF_DEPTH`] levels with a bare `{"type": "object"}`; an unresolvable reference becomes
/// `{}` (any value), so the provider never sees a dangling pointer.
pub(crate) fn inline_refs(schema: Value) -> Value {
    let root = schema.clone();
    let mut out = inline(schema, &root, 0);
    if let Some(map) = out.as_object_mut() {
        map.shift_remove("$defs");
        map.shift_remove("definitions");
    }
    out
}

fn inline(schema: Value, root: &Value, depth: usize) -> Value {
    match schema {
        Value::Object(mut map) => {
            if let Some(Value::String(pointer)) = map.shift_remove("$ref") {
                let target = if depth >= MAX_REF_DEPTH {
                    Some(Value::Object(Map::from_iter([(
                        "type".to_owned(),
                        Value::from("object"),
                    )])))
                } else {
                    resolve(root, &pointer).cloned()
                };
                let resolved = match target {
                    Some(target) => inline(target, root, depth + 1),
                    None => Value::Object(Map::new()),
                };
                let mut merged = match resolved {
                    Value::Object(target) => target,
                    _ => Map::new(),
                };
                for (key, value) in map {
                    merged.insert(key, inline(value, root, depth));
                }
                return Value::Object(merged);
            }
            Value::Object(
                map.into_iter()
                    .map(|(key, value)| {
                        // Definition tables are dropped at the root; inlining them is wasted work.
                        if key == "$defs" || key == "definitions" {
                            (key, value)
                        } else {
                            (key, inline(value, root, depth))
                        }
                    })
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|item| inline(item, root, depth))
                .collect(),
        ),
        other => other,
    }
}

/// The value a local reference (`#` + JSON pointer) points to.
fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn refs_are_inlined_with_sibling_keys_winning() {
        let schema = json!({
            "type": "object",
            "properties": {"mode": {"$ref": "#/$defs/Mode", "description": "How."}},
            "$defs": {"Mode": {"type": "string", "enum": ["a", "b"], "description": "Mode."}}
        });
        assert_eq!(
            inline_refs(schema),
            json!({
                "type": "object",
                "properties": {"mode": {"type": "string", "enum": ["a", "b"], "description": "How."}}
            })
        );
    }

    #[test]
    fn recursion_is_cut_and_dangling_refs_become_any() {
        let schema = json!({
            "$ref": "#/$defs/Node",
            "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "x": {"$ref": "#/$defs/Gone"}}}}
        });
        let out = inline_refs(schema);
        let mut node = &out;
        for _ in 0..MAX_REF_DEPTH - 1 {
            node = &node["properties"]["next"];
        }
        assert_eq!(node["properties"]["next"], json!({"type": "object"}));
        assert_eq!(out["properties"]["x"], json!({}));
        assert!(out.get("$defs").is_none());
    }
}
