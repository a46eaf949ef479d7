//! The configuration's layers and where each value came from: built-in defaults <
//! the config file < environment keys < `--config KEY=VALUE` arguments.

use std::fmt;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::mask::is_secret_key;

/// The environment variables that set configuration keys, and the key each sets. Their values
/// are read like a `--config` value: a TOML value, or a bare word taken as a string.
pub const ENV_KEYS: [(&str, &str); 4] = [
    ("CLAWLOOP_MODEL", "agents.defaults.model.primary"),
    ("CLAWLOOP_THINKING", "agents.defaults.thinkingDefault"),
    ("CLAWLOOP_TIMEOUT", "agents.defaults.timeoutSeconds"),
    ("CLAWLOOP_LOG", "logging.level"),
];

/// Where a layer of the configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The config file.
    File(PathBuf),
    /// An environment variable of [`ENV_KEYS`].
    Env(&'static str),
    /// A `--config KEY=VALUE` argument, as given.
    Arg(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File(path) => write!(f, "{}", path.display()),
            Origin::Env(name) => write!(f, "environment variable {name}"),
            Origin::Arg(arg) => {
                // The argument is echoed back, but never a secret it carries.
                match arg.split_once('=') {
                    Some((key, _)) if key.split('.').any(is_secret_key) => {
                        write!(f, "--config `{key}=****`")
                    }
                    _ => write!(f, "--config `{arg}`"),
                }
            }
        }
    }
}

/// One layer: the keys it sets, as a JSON-shaped table.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// Where it came from.
    pub origin: Origin,
    /// What it sets.
    pub value: Value,
}

/// Parses a dotted key (`agents.defaults.timeoutSeconds`, `auth.profiles."openai:a".mode`) into
/// its segments.
pub fn parse_key(key: &str) -> Result<Vec<String>, String> {
    // The key is parsed by the TOML parser itself, so quoting rules are TOML's.
    let table: toml::Table = toml::from_str(&format!("{key} = 0"))
        .map_err(|_| format!("`{key}` is not a dotted key like agents.defaults.timeoutSeconds"))?;
    let mut segments = Vec::new();
    let mut current = &table;
    while let Some((name, value)) = current.iter().next() {
        segments.push(name.clone());
        match value {
            toml::Value::Table(inner) if current.len() == 1 => current = inner,
            _ => break,
        }
    }
    if segments.is_empty() {
        return Err(format!("`{key}` is not a dotted key"));
    }
    Ok(segments)
}

/// Parses a `--config`/environment value: a TOML value (`30`, `true`, `"x"`, `["a"]`), else a bare
/// word taken as a string (`openai/gpt-5-mini`).
pub fn parse_value(text: &str) -> Result<Value, String> {
    let trimmed = text.trim();
    if let Ok(table) = toml::from_str::<toml::Table>(&format!("v = {trimmed}"))
        && let Some(value) = table.get("v")
    {
        // A date is kept as written: no config key is a TOML datetime.
        if let toml::Value::Datetime(_) = value {
            return Ok(Value::String(text.to_owned()));
        }
        return serde_json::to_value(value).map_err(|err| err.to_string());
    }
    // A value that starts like a string, array or table but does not parse is a mistake, not
    // a word.
    match trimmed.chars().next() {
        Some('"' | '\'' | '[' | '{') => Err(format!(
            "`{trimmed}` is not a valid TOML value (quote a string with \"…\")"
        )),
        _ => Ok(Value::String(text.to_owned())),
    }
}

/// The layer of one `--config KEY=VALUE` argument.
pub fn override_layer(arg: &str) -> Result<Layer, (Origin, String)> {
    let origin = Origin::Arg(arg.to_owned());
    let Some((key, value)) = arg.split_once('=') else {
        return Err((
            origin,
            "expected KEY=VALUE, e.g. --config agents.defaults.timeoutSeconds=30".to_owned(),
        ));
    };
    let segments = parse_key(key.trim()).map_err(|err| (origin.clone(), err))?;
    let value = parse_value(value).map_err(|err| {
        if segments.iter().any(|segment| is_secret_key(segment)) {
            // The parser's message quotes the value.
            (
                origin.clone(),
                "the value is not a valid TOML value".to_owned(),
            )
        } else {
            (origin.clone(), err)
        }
    })?;
    Ok(Layer {
        value: nest(&segments, value),
        origin,
    })
}

/// The layers of the environment keys that are set, in [`ENV_KEYS`] order.
pub fn env_layers(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Vec<Layer>, (Origin, String)> {
    let mut layers = Vec::new();
    for (name, key) in ENV_KEYS {
        let Some(text) = lookup(name).filter(|text| !text.trim().is_empty()) else {
            continue;
        };
        let origin = Origin::Env(name);
        let value = parse_value(&text).map_err(|err| (origin.clone(), err))?;
        let segments: Vec<String> = key.split('.').map(str::to_owned).collect();
        layers.push(Layer {
            value: nest(&segments, value),
            origin,
        });
    }
    Ok(layers)
}

fn nest(segments: &[String], value: Value) -> Value {
    segments.iter().rev().fold(value, |inner, segment| {
        let mut table = Map::new();
        table.insert(segment.clone(), inner);
        Value::Object(table)
    })
}

/// The layers merged: tables merge key by key, anything else is replaced by the later layer.
/// Also returns, for every key a layer set, the index of the last layer that set it.
pub fn merge(layers: &[Layer]) -> (Value, Vec<(String, usize)>) {
    let mut merged = Value::Object(Map::new());
    let mut provenance = Vec::new();
    for (index, layer) in layers.iter().enumerate() {
        merge_into(&mut merged, &layer.value, "", index, &mut provenance);
    }
    (merged, provenance)
}

fn merge_into(
    base: &mut Value,
    layer: &Value,
    path: &str,
    index: usize,
    provenance: &mut Vec<(String, usize)>,
) {
    match (base, layer) {
        (Value::Object(base), Value::Object(layer)) => {
            for (key, value) in layer {
                let child = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                let slot = base.entry(key.clone()).or_insert(Value::Null);
                if value.is_object() && !slot.is_object() {
                    // A table over a value (or nothing) starts empty and records each key.
                    *slot = Value::Object(Map::new());
                }
                merge_into(slot, value, &child, index, provenance);
            }
        }
        (base, layer) => {
            *base = layer.clone();
            let below = format!("{path}.");
            provenance.retain(|(key, _)| key != path && !key.starts_with(&below));
            provenance.push((path.to_owned(), index));
        }
    }
}

/// The layer that set `key` (a serde error path such as `agents.defaults.model.fallbacks[0]`):
/// the key itself, else the table holding it, else the last layer that set a key below it.
pub fn origin_of(key: &str, provenance: &[(String, usize)]) -> Option<usize> {
    let key: String = {
        // `fallbacks[0]` is set as a whole by `fallbacks`.
        let mut out = String::new();
        let mut depth = 0;
        for c in key.chars() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ if depth == 0 => out.push(c),
                _ => {}
            }
        }
        out
    };
    let mut prefix = key.as_str();
    loop {
        if let Some((_, index)) = provenance.iter().rev().find(|(k, _)| k == prefix) {
            return Some(*index);
        }
        match prefix.rsplit_once('.') {
            Some((head, _)) => prefix = head,
            None => break,
        }
    }
    let below = format!("{key}.");
    provenance
        .iter()
        .filter(|(k, _)| k.starts_with(&below) || key == "." || key.is_empty())
        .map(|(_, index)| *index)
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn values_are_toml_or_bare_words() {
        assert_eq!(parse_value("30"), Ok(json!(30)));
        assert_eq!(parse_value("1.5"), Ok(json!(1.5)));
        assert_eq!(parse_value("true"), Ok(json!(true)));
        assert_eq!(parse_value("\"openai/x\""), Ok(json!("openai/x")));
        assert_eq!(
            parse_value("openai/gpt-5-mini"),
            Ok(json!("openai/gpt-5-mini"))
        );
        assert_eq!(parse_value("[\"a\", \"b\"]"), Ok(json!(["a", "b"])));
        assert_eq!(parse_value("2024-01-02"), Ok(json!("2024-01-02")));
        assert!(parse_value("[1,").is_err());
        assert!(parse_value("\"open").is_err());
    }

    #[test]
    fn keys_follow_toml_quoting() {
        assert_eq!(
            parse_key("auth.profiles.\"openai:a\".mode"),
            Ok(vec![
                "auth".to_owned(),
                "profiles".to_owned(),
                "openai:a".to_owned(),
                "mode".to_owned()
            ])
        );
        assert!(parse_key("a..b").is_err());
        assert!(parse_key("").is_err());
    }

    #[test]
    fn later_layers_win_and_provenance_names_them() -> Result<(), String> {
        let file = Layer {
            origin: Origin::File("/c.toml".into()),
            value: json!({"agents": {"defaults": {"timeoutSeconds": 5, "maxConcurrent": 2}}}),
        };
        let arg = override_layer("agents.defaults.timeoutSeconds=30").map_err(|e| e.1)?;
        let (merged, provenance) = merge(&[file, arg]);
        assert_eq!(
            merged,
            json!({"agents": {"defaults": {"timeoutSeconds": 30, "maxConcurrent": 2}}})
        );
        assert_eq!(
            origin_of("agents.defaults.timeoutSeconds", &provenance),
            Some(1)
        );
        assert_eq!(
            origin_of("agents.defaults.maxConcurrent", &provenance),
            Some(0)
        );
        assert_eq!(origin_of("agents.defaults", &provenance), Some(1));
        assert_eq!(origin_of("models", &provenance), None);
        Ok(())
    }

    #[test]
    fn the_readme_documents_every_environment_key() -> Result<(), String> {
        // `cargo xtask docs` writes this list into the README by hand-kept text; this keeps
        // the two from drifting apart.
        let readme = concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md");
        let text = std::fs::read_to_string(readme).map_err(|e| e.to_string())?;
        for (name, key) in ENV_KEYS {
            let entry = format!("`{name}` → `{key}`");
            assert!(text.contains(&entry), "README.md lacks {entry}");
        }
        Ok(())
    }

    #[test]
    fn a_secret_argument_is_not_echoed() {
        let origin = Origin::Arg("models.providers.a.apiKey=sk-live".to_owned());
        assert_eq!(
            origin.to_string(),
            "--config `models.providers.a.apiKey=****`"
        );
        let err = override_layer("models.providers.a.apiKey=\"sk-live").err();
        assert_eq!(
            err.map(|(origin, message)| format!("{origin}: {message}")),
            Some(
                "--config `models.providers.a.apiKey=****`: the value is not a valid TOML value"
                    .to_owned()
            )
        );
    }
}
