//! The configuration's known keys, derived from the config types so they cannot drift from them.
//!
//! The runner's own tables derive `schemars::JsonSchema`: their keys, types and doc comments come from
//! the types. `[models]` belongs to the providers crate and `[auth]` and `[cliBackends]` are
//! kept as written, so their shape is described here; tests check these descriptions against
//! the types. The schema is turned into a [`KeyNode`] tree that callers walk to tell unknown
//! keys from known ones ([`key_tree`]) or to document every key ([`reference`]).

use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::{Map, Value, json};

use super::Config;

/// The placeholder of an id segment in a documented key (`models.providers.<id>.baseUrl`).
pub const ID_PLACEHOLDER: &str = "<id>";

/// One key of the configuration and what may be below it.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyNode {
    /// The key's doc comment, on one line.
    pub description: String,
    /// What the key holds.
    pub kind: KeyKind,
}

/// What a key holds.
#[derive(Debug, Clone, PartialEq)]
pub enum KeyKind {
    /// A value (no keys below it); `ty` names its type for people, e.g. `integer`.
    Value {
        /// The type, e.g. `number`, `array of string`, ``one of `off`, `low` ``.
        ty: String,
    },
    /// A table with these known keys, in declaration order.
    Table(Vec<(String, KeyNode)>),
    /// A table keyed by ids chosen by the user (`models.providers.<id>`), each entry shaped
    /// like `entry`.
    Map(Box<KeyNode>),
    /// An array of tables, each shaped like the entry (`models.providers.<id>.models`).
    List(Box<KeyNode>),
    /// A table whose keys are free-form (`headers`, `compat`, `cliBackends.<id>`): any key
    /// below it is accepted here and checked, if at all, by the code that reads it.
    FreeForm,
}

impl KeyNode {
    /// The known key `name` of a table.
    pub fn child(&self, name: &str) -> Option<&KeyNode> {
        match &self.kind {
            KeyKind::Table(keys) => keys.iter().find(|(key, _)| key == name).map(|(_, n)| n),
            _ => None,
        }
    }
}

/// One documented key: a row of the configuration reference.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    /// The dotted key, with [`ID_PLACEHOLDER`] for ids and `[]` for array entries.
    pub key: String,
    /// The type, for people.
    pub ty: String,
    /// The built-in default, when the key has one.
    pub default: Option<Value>,
    /// The key's doc comment.
    pub description: String,
}

/// The tree of every known key, rooted at the whole configuration (a table).
pub fn key_tree() -> KeyNode {
    let root = schemars::schema_for!(Config);
    let root = root.as_value();
    let defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    node(root, &defs, String::new(), 0)
}

/// Every key that holds a value or free-form table, depth first in declaration order, with its
/// type, default and description.
pub fn reference() -> Vec<KeyDoc> {
    let defaults = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
    let mut rows = Vec::new();
    collect(&key_tree(), "", Some(&defaults), &mut rows);
    rows
}

fn collect(node: &KeyNode, key: &str, default: Option<&Value>, rows: &mut Vec<KeyDoc>) {
    let join = |name: &str| {
        if key.is_empty() {
            name.to_owned()
        } else {
            format!("{key}.{name}")
        }
    };
    match &node.kind {
        KeyKind::Table(keys) => {
            for (name, child) in keys {
                let child_default = default.and_then(|d| d.get(name));
                collect(child, &join(name), child_default, rows);
            }
        }
        KeyKind::Map(entry) => collect(entry, &join(ID_PLACEHOLDER), None, rows),
        KeyKind::List(entry) => collect(entry, &format!("{key}[]"), None, rows),
        KeyKind::Value { ty } => rows.push(KeyDoc {
            key: key.to_owned(),
            ty: ty.clone(),
            default: default.filter(|d| !d.is_null()).cloned(),
            description: node.description.clone(),
        }),
        KeyKind::FreeForm => rows.push(KeyDoc {
            key: key.to_owned(),
            ty: "table".to_owned(),
            default: None,
            description: node.description.clone(),
        }),
    }
}

/// Schemas nest a few levels; a cycle in `$defs` would be a bug in a type, not a reason to
/// overflow the stack.
const MAX_DEPTH: usize = 32;

fn node(schema: &Value, defs: &Map<String, Value>, description: String, depth: usize) -> KeyNode {
    let schema = resolve(schema, defs);
    let description = if description.is_empty() {
        one_line(schema.get("description"))
    } else {
        description
    };
    if depth > MAX_DEPTH {
        return KeyNode {
            description,
            kind: KeyKind::FreeForm,
        };
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        let keys = properties
            .iter()
            .map(|(name, property)| {
                let text = one_line(property.get("description"));
                (name.clone(), node(property, defs, text, depth + 1))
            })
            .collect();
        return KeyNode {
            description,
            kind: KeyKind::Table(keys),
        };
    }
    let ty = type_names(schema);
    let kind = if ty.iter().any(|t| t == "object") || schema.as_bool() == Some(true) {
        // Tables of tables by id are maps (`models.providers.<id>`, `cliBackends.<id>`);
        // tables of plain values (`headers`) are free-form.
        match schema.get("additionalProperties") {
            Some(entry)
                if resolve(entry, defs).get("properties").is_some()
                    || type_names(resolve(entry, defs))
                        .iter()
                        .any(|t| t == "object") =>
            {
                KeyKind::Map(Box::new(node(entry, defs, String::new(), depth + 1)))
            }
            _ => KeyKind::FreeForm,
        }
    } else if ty.iter().any(|t| t == "array") {
        match schema.get("items") {
            Some(items) if resolve(items, defs).get("properties").is_some() => {
                KeyKind::List(Box::new(node(items, defs, String::new(), depth + 1)))
            }
            Some(items) => KeyKind::Value {
                ty: format!("array of {}", value_type(resolve(items, defs))),
            },
            None => KeyKind::Value {
                ty: "array".to_owned(),
            },
        }
    } else if ty.is_empty() && schema.get("enum").is_none() && !is_const_choice(schema) {
        KeyKind::FreeForm
    } else {
        KeyKind::Value {
            ty: value_type(schema),
        }
    };
    KeyNode { description, kind }
}

/// Follows `$ref` and unwraps `Option` (`anyOf` with `null`).
fn resolve<'a>(schema: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    let mut schema = schema;
    for _ in 0..MAX_DEPTH {
        if let Some(name) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            && let Some(target) = defs.get(name)
        {
            schema = target;
            continue;
        }
        let alternatives = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array);
        if let Some(alternatives) = alternatives {
            let mut not_null = alternatives
                .iter()
                .filter(|alt| alt.get("type").and_then(Value::as_str) != Some("null"));
            if let (Some(only), None) = (not_null.next(), not_null.next()) {
                schema = only;
                continue;
            }
        }
        break;
    }
    schema
}

/// An enum whose variants carry doc comments: `oneOf` of `const`s.
fn is_const_choice(schema: &Value) -> bool {
    schema
        .get("oneOf")
        .and_then(Value::as_array)
        .is_some_and(|variants| {
            !variants.is_empty() && variants.iter().all(|v| v.get("const").is_some())
        })
}

fn type_names(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(ty)) => vec![ty.clone()],
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .filter(|ty| *ty != "null")
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn value_type(schema: &Value) -> String {
    let values: Vec<String> = schema
        .get("enum")
        .and_then(Value::as_array)
        .map(|values| {
            values
                .iter()
                .filter(|v| !v.is_null())
                .map(|v| match v {
                    Value::String(s) => format!("`{s}`"),
                    other => format!("`{other}`"),
                })
                .collect()
        })
        .unwrap_or_default();
    if !values.is_empty() {
        return format!("one of {}", values.join(", "));
    }
    // A one-variant unit enum with a doc comment is `{"const": …}` inside `oneOf`.
    if let Some(variants) = schema.get("oneOf").and_then(Value::as_array) {
        let values: Vec<String> = variants
            .iter()
            .filter_map(|v| v.get("const"))
            .map(|v| match v {
                Value::String(s) => format!("`{s}`"),
                other => format!("`{other}`"),
            })
            .collect();
        if !values.is_empty() {
            return format!("one of {}", values.join(", "));
        }
    }
    let types = type_names(schema);
    if types.is_empty() {
        "any".to_owned()
    } else {
        types.join(" or ")
    }
}

/// A doc comment on one line, rustdoc links (`` [`Type`] ``) as plain code.
fn one_line(description: Option<&Value>) -> String {
    description
        .and_then(Value::as_str)
        .map(|text| {
            text.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace("[`", "`")
                .replace("`]", "`")
        })
        .unwrap_or_default()
}

/// The schema of `thinkingDefault`: the levels of [`clawloop_core::ThinkLevel`].
pub fn think_level(_: &mut SchemaGenerator) -> Schema {
    let levels: Vec<Value> = clawloop_core::ThinkLevel::ALL
        .iter()
        .filter_map(|level| serde_json::to_value(level).ok())
        .collect();
    json_schema!({ "type": "string", "enum": levels })
}

/// The schema of `[models]` (the providers crate's `ModelsConfig`).
pub fn models(_: &mut SchemaGenerator) -> Schema {
    let headers = json!({
        "type": "object",
        "additionalProperties": { "type": "string" },
        "description": "Extra HTTP headers for every request, by header name."
    });
    let api = json!({
        "type": "string",
        "enum": ["openai-completions", "openai-responses", "anthropic-messages",
                 "google-generative-ai", "ollama"],
    });
    let model = json!({
        "type": "object",
        "properties": {
            "id": { "type": "string", "description": "Model id as the provider knows it (required)." },
            "name": { "type": "string", "description": "Display name (default: the id)." },
            "api": with_description(&api, "Wire API, when it differs from the provider's."),
            "baseUrl": { "type": "string", "description": "Base URL, when it differs from the provider's." },
            "contextWindow": { "type": "integer", "description": "Context window in tokens (default for a new model: 128000)." },
            "contextTokens": { "type": "integer", "description": "Tokens to actually use of the window (wins over `contextWindow`)." },
            "maxTokens": { "type": "integer", "description": "Maximum output tokens (default for a new model: 16384)." },
            "reasoning": { "type": "boolean", "description": "Whether the model reasons (default: false)." },
            "input": {
                "type": "array", "items": { "type": "string", "enum": ["text", "image"] },
                "description": "Accepted inputs (default: `[\"text\"]`)."
            },
            "cost": {
                "type": "object",
                "description": "Prices in USD per million tokens (default: zero).",
                "properties": {
                    "input": { "type": "number", "description": "Price per million non-cached input tokens." },
                    "output": { "type": "number", "description": "Price per million output tokens." },
                    "cacheRead": { "type": "number", "description": "Price per million cache-read tokens." },
                    "cacheWrite": { "type": "number", "description": "Price per million cache-write tokens." }
                }
            },
            "headers": with_description(&headers, "Extra HTTP headers, over the provider's."),
            "compat": { "type": "object", "description": "Compat flags, merged over the provider's." },
            "toolChoice": {
                "description": "Tool choice sent on the call that answers a user prompt: `auto`, `none`, `required` (or `any`), or `{ name = \"<tool>\" }` (default: not sent)."
            }
        }
    });
    let provider = json!({
        "type": "object",
        "properties": {
            "api": with_description(&api, "Wire API of the provider's models."),
            "baseUrl": { "type": "string", "description": "Base URL of the API." },
            "apiKey": {
                "type": "string",
                "description": "API key: an environment variable name, a literal key, or `!command` (its output). Masked by `clawloop config show`."
            },
            "headers": headers,
            "compat": { "type": "object", "description": "pi's OpenAI-compat flags, merged under each model's own." },
            "models": {
                "type": "array", "items": model,
                "description": "Models added, or built-in models overridden, by id."
            }
        }
    });
    json_schema!({
        "type": "object",
        "description": "Custom providers and overrides of built-in ones.",
        "properties": {
            "providers": {
                "type": "object",
                "additionalProperties": provider,
                "description": "A provider, by id."
            }
        }
    })
}

/// The schema of `[cliBackends]`: one free-form table per backend id, checked when read.
pub fn cli_backends(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "description": "External agent CLIs run as providers, by id.",
        "additionalProperties": {
            "type": "object",
            "description": "An external agent CLI run as a provider (`command` and its settings; the presets are `claude-cli` and `codex-cli`).",
        }
    })
}

/// The schema of `[auth]` (the runner's `AuthConfig`, which refuses unknown keys itself).
pub fn auth(_: &mut SchemaGenerator) -> Schema {
    let number = |text: &str| json!({ "type": "number", "description": text });
    let integer = |text: &str| json!({ "type": "integer", "description": text });
    json_schema!({
        "type": "object",
        "description": "Auth profiles: order, required modes, cooldowns.",
        "properties": {
            "order": {
                "type": "object",
                "additionalProperties": { "type": "array", "items": { "type": "string" } },
                "description": "Profile order per provider id (`openai = [\"openai:a\", \"openai:b\"]`); an order stored in `auth-state.json` wins."
            },
            "profiles": {
                "type": "object",
                "description": "Profiles by id.",
                "additionalProperties": {
                    "type": "object",
                    "properties": {
                        "provider": { "type": "string", "description": "The provider the profile must belong to." },
                        "mode": {
                            "type": "string", "enum": ["api_key", "oauth", "token", "aws-sdk"],
                            "description": "The credential type the profile must have."
                        },
                        "email": { "type": "string", "description": "Account e-mail (informational)." },
                        "displayName": { "type": "string", "description": "Display name (informational)." }
                    }
                }
            },
            "cooldowns": {
                "type": "object",
                "description": "Cooldown and backoff settings.",
                "properties": {
                    "scheduleMs": {
                        "type": "array", "items": { "type": "integer" },
                        "description": "Cooldown after the 1st, 2nd, … failure, ms; the last step repeats (default `[10000, 60000, 300000]`)."
                    },
                    "billingBackoffHours": number("Base of the billing disable window, hours (default 5)."),
                    "billingBackoffHoursByProvider": {
                        "type": "object", "additionalProperties": { "type": "number" },
                        "description": "Per-provider override of `billingBackoffHours`."
                    },
                    "billingMaxHours": number("Cap of the billing disable window, hours (default 24)."),
                    "authPermanentBackoffMinutes": number("Base of the auth_permanent disable window, minutes (default 10)."),
                    "authPermanentMaxMinutes": number("Cap of the auth_permanent disable window, minutes (default 60)."),
                    "failureWindowHours": number("Failures older than this no longer count toward the next window, hours (default 24)."),
                    "rateLimitedProfileRotations": integer("Profile rotations on rate limits before model fallback (default 1)."),
                    "overloadedProfileRotations": integer("Profile rotations on overload before model fallback (default 1)."),
                    "overloadedBackoffMs": integer("Pause before retrying after an overload, ms (default 0).")
                }
            }
        }
    })
}

fn with_description(schema: &Value, text: &str) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.insert("description".to_owned(), Value::String(text.to_owned()));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// Every key path of a JSON value, down to values and empty tables.
    fn paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) if !map.is_empty() => {
                for (key, child) in map {
                    let path = if prefix.is_empty() {
                        key.clone()
                    } else {
                        format!("{prefix}.{key}")
                    };
                    paths(child, &path, out);
                }
            }
            _ => out.push(prefix.to_owned()),
        }
    }

    /// Whether `path` (ids in place of placeholders) names a known key or lies in a free-form table.
    fn known(tree: &KeyNode, path: &str) -> bool {
        let mut node = tree;
        for segment in path.split('.') {
            node = match &node.kind {
                KeyKind::Table(_) => match node.child(segment) {
                    Some(child) => child,
                    None => return false,
                },
                KeyKind::Map(entry) => entry,
                KeyKind::FreeForm => return true,
                KeyKind::List(_) | KeyKind::Value { .. } => return false,
            };
        }
        true
    }

    #[test]
    fn every_key_of_the_defaults_is_known_and_documented() {
        let tree = key_tree();
        let mut all = Vec::new();
        let defaults = serde_json::to_value(Config::default()).unwrap_or(Value::Null);
        paths(&defaults, "", &mut all);
        let unknown: Vec<&String> = all.iter().filter(|p| !known(&tree, p)).collect();
        assert_eq!(unknown, Vec::<&String>::new());
        let undocumented: Vec<String> = reference()
            .into_iter()
            .filter(|row| row.description.is_empty())
            .map(|row| row.key)
            .collect();
        assert_eq!(undocumented, Vec::<String>::new());
    }

    #[test]
    fn every_key_of_a_full_provider_is_known() {
        use clawloop_providers::catalog::{ModelConfig, ProviderConfig};
        let model = ModelConfig {
            id: "m".into(),
            name: Some("n".into()),
            base_url: Some("http://x".into()),
            context_window: Some(1),
            context_tokens: Some(1),
            max_tokens: Some(1),
            reasoning: Some(true),
            input: Some(vec![clawloop_core::model::InputKind::Text]),
            cost: Some(clawloop_core::ModelCost::default()),
            headers: [("h".to_owned(), "v".to_owned())].into(),
            compat: Some(json!({"x": 1})),
            tool_choice: Some(clawloop_core::ToolChoice::Required),
            ..ModelConfig::default()
        };
        let provider = ProviderConfig {
            base_url: Some("http://x".into()),
            api_key: Some("K".into()),
            headers: [("h".to_owned(), "v".to_owned())].into(),
            compat: Some(json!({"x": 1})),
            models: vec![model.clone()],
            ..ProviderConfig::default()
        };
        let tree = key_tree();
        let mut all = Vec::new();
        let mut value = serde_json::to_value(&provider).unwrap_or(Value::Null);
        if let Some(object) = value.as_object_mut() {
            object.remove("models");
        }
        paths(&value, "models.providers.p", &mut all);
        let model_node = tree
            .child("models")
            .and_then(|m| m.child("providers"))
            .map(|p| match &p.kind {
                KeyKind::Map(entry) => entry.child("models").cloned(),
                _ => None,
            });
        let Some(Some(KeyNode {
            kind: KeyKind::List(model_entry),
            ..
        })) = model_node
        else {
            panic!("models.providers.<id>.models is not a list of tables: {model_node:?}");
        };
        let mut model_paths = Vec::new();
        paths(
            &serde_json::to_value(&model).unwrap_or(Value::Null),
            "",
            &mut model_paths,
        );
        let mut unknown: Vec<String> = all.into_iter().filter(|p| !known(&tree, p)).collect();
        unknown.extend(
            model_paths
                .into_iter()
                .filter(|p| !known(&model_entry, p))
                .map(|p| format!("models[].{p}")),
        );
        assert_eq!(unknown, Vec::<String>::new());
    }

    #[test]
    fn every_documented_auth_key_is_accepted_by_the_auth_table() {
        // `AuthConfig` refuses unknown keys, so a documented key it does not know fails here.
        let tree = key_tree();
        let auth_rows: Vec<KeyDoc> = reference()
            .into_iter()
            .filter(|row| row.key.starts_with("auth."))
            .collect();
        assert!(auth_rows.len() >= 10, "{auth_rows:?}");
        for row in auth_rows {
            let sample = match row.ty.as_str() {
                "number" => json!(1.0),
                "integer" => json!(1),
                "array of integer" => json!([1]),
                "array of string" => json!(["p:a"]),
                "table" => json!({}),
                ty if ty.starts_with("one of") => json!("api_key"),
                _ => json!("p"),
            };
            let mut value = sample;
            let segments: Vec<&str> = row.key.split('.').skip(1).collect();
            for segment in segments.iter().rev() {
                let segment = if *segment == ID_PLACEHOLDER {
                    "p:a"
                } else {
                    segment
                };
                value = json!({ segment: value });
            }
            if row.key.starts_with("auth.profiles.") {
                value = json!({"profiles": {"p:a": {"provider": "p", "mode": "api_key"}}});
                let field = segments.last().copied().unwrap_or_default();
                if let Some(profile) = value.pointer_mut("/profiles/p:a") {
                    profile[field] = json!(if field == "mode" { "api_key" } else { "p" });
                }
            }
            let result = crate::auth::AuthConfig::from_json(&value);
            assert!(result.is_ok(), "{}: {result:?}", row.key);
        }
        assert!(known(&tree, "auth.cooldowns.scheduleMs"));
    }

    #[test]
    fn the_tree_has_the_specs_tables() {
        let tree = key_tree();
        let timeout = tree
            .child("agents")
            .and_then(|a| a.child("defaults"))
            .and_then(|d| d.child("timeoutSeconds"))
            .cloned();
        assert_eq!(
            timeout,
            Some(KeyNode {
                description: "The whole run's time limit in seconds; `0` = none.".to_owned(),
                kind: KeyKind::Value {
                    ty: "number".to_owned()
                },
            })
        );
        let rows = reference();
        let thinking = rows
            .iter()
            .find(|row| row.key == "agents.defaults.thinkingDefault");
        assert_eq!(
            thinking.map(|row| (row.ty.as_str(), row.default.clone())),
            Some((
                "one of `off`, `minimal`, `low`, `medium`, `high`, `xhigh`, `adaptive`",
                Some(json!("off"))
            ))
        );
        let ty = |key: &str| {
            rows.iter()
                .find(|row| row.key == key)
                .map(|row| row.ty.clone())
        };
        assert_eq!(
            (
                ty("agents.defaults.blockStreaming.break"),
                ty("agents.defaults.contextPruning.mode")
            ),
            (
                Some("one of `text_end`, `message_end`".to_owned()),
                Some("one of `off`, `cache-ttl`".to_owned())
            )
        );
        assert_eq!(ty("cliBackends.<id>"), Some("table".to_owned()), "{rows:?}");
        assert!(known(&tree, "cliBackends.mine.command"));
        assert!(known(&tree, "models.providers.acme.headers.X-Any"));
        assert!(!known(&tree, "agents.defaults.timeoutSecond"));
    }
}
