//! Keys no config type knows: each is a warning with the closest known key, never an error
//! (a config written for a newer clawloop still loads).

use clawloop_runner::config::schema::{KeyKind, KeyNode};
use serde_json::Value;

/// An unknown key and the known key it most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKey {
    /// The dotted key as written.
    pub key: String,
    /// The closest known key at the same place, when one is close enough.
    pub suggestion: Option<String>,
}

/// How alike (Jaro-Winkler, 0..1) a known key must be to an unknown one to be suggested.
const SUGGESTION_THRESHOLD: f64 = 0.8;

/// Every key of `value` (a layer of the configuration) that `tree` does not know. Keys below
/// an unknown key are not listed again; free-form tables accept any key.
pub fn unknown_keys(tree: &KeyNode, value: &Value) -> Vec<UnknownKey> {
    let mut found = Vec::new();
    walk(tree, value, "", &mut found);
    found
}

fn walk(node: &KeyNode, value: &Value, path: &str, found: &mut Vec<UnknownKey>) {
    let join = |name: &str| {
        if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        }
    };
    match (&node.kind, value) {
        (KeyKind::Table(keys), Value::Object(table)) => {
            for (name, child) in table {
                match node.child(name) {
                    Some(known) => walk(known, child, &join(name), found),
                    None => found.push(UnknownKey {
                        key: join(name),
                        suggestion: closest(name, keys.iter().map(|(k, _)| k.as_str())).map(&join),
                    }),
                }
            }
        }
        (KeyKind::Map(entry), Value::Object(table)) => {
            for (name, child) in table {
                walk(entry, child, &join(name), found);
            }
        }
        (KeyKind::List(entry), Value::Array(items)) => {
            for (index, item) in items.iter().enumerate() {
                walk(entry, item, &format!("{path}[{index}]"), found);
            }
        }
        // Free-form tables, values, and values of the wrong type (the loader reports those).
        _ => {}
    }
}

fn closest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    // Case and separators are ignored, so `timeout_seconds` finds `timeoutSeconds`.
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = fold(name);
    known
        .map(|candidate| (strsim::jaro_winkler(&wanted, &fold(candidate)), candidate))
        .filter(|(score, _)| *score >= SUGGESTION_THRESHOLD)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_runner::config::known_keys::known_key_tree as key_tree;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn typos_get_the_closest_key_and_free_form_tables_pass() {
        let value = json!({
            "agents": {"defaults": {"timeoutSecond": 3, "model": {"primary": "a/b"}}},
            "agent": {"x": 1},
            "models": {"providers": {"acme": {
                "baseURL": "http://x", "headers": {"X-Anything": "1"}, "compat": {"any": 1},
                "models": [{"id": "m", "maxToken": 1}]
            }}},
            "cliBackends": {"mine": {"command": "x", "whatever": 1}},
            "zzzzzz": 1
        });
        let found = unknown_keys(&key_tree(), &value);
        let suggestion = |key: &str, s: Option<&str>| UnknownKey {
            key: key.to_owned(),
            suggestion: s.map(str::to_owned),
        };
        assert_eq!(
            found,
            vec![
                suggestion(
                    "agents.defaults.timeoutSecond",
                    Some("agents.defaults.timeoutSeconds")
                ),
                suggestion("agent", Some("agents")),
                suggestion(
                    "models.providers.acme.baseURL",
                    Some("models.providers.acme.baseUrl")
                ),
                suggestion(
                    "models.providers.acme.models[0].maxToken",
                    Some("models.providers.acme.models[0].maxTokens")
                ),
                suggestion("zzzzzz", None),
            ]
        );
    }
}
