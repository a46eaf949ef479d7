//! The commented starter `config.toml` written by `clawloop config init`: every key that has
//! a built-in default, set to it, with its description; examples for the rest.
//!
//! It is generated from the config types' key schema, so it lists exactly the keys the types
//! know, and it parses back to the defaults.

use clawloop_runner::config::schema::{ID_PLACEHOLDER, KeyDoc, reference};
use serde_json::Value;

use super::layers::ENV_KEYS;
use crate::model_choice::effective_model;
use clawloop_runner::config::Config;

/// The key whose unset value the starter spells out.
const PRIMARY_KEY: &str = "agents.defaults.model.primary";

/// The starter file's text.
pub fn starter_toml() -> String {
    let mut out = String::from(
        "# clawloop configuration (SPEC §2). Every key is optional; the values below are the\n\
         # built-in defaults. Layers, lowest first: defaults < this file < environment keys\n\
         # < `clawloop --config KEY=VALUE`. Environment keys:\n",
    );
    for (name, key) in ENV_KEYS {
        out.push_str(&format!("#   {name} -> {key}\n"));
    }
    out.push_str(
        "# Provider API keys come from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, … or\n\
         # from `apiKey` below. `clawloop config show` prints the effective configuration.\n",
    );

    // Tables in the order their first key appears; each written once with all its keys.
    let mut tables: Vec<(String, Vec<KeyDoc>)> = Vec::new();
    for row in reference() {
        if row.key.contains(ID_PLACEHOLDER) || row.key.contains("[]") || row.ty == "table" {
            continue;
        }
        let Some((table, _)) = row.key.rsplit_once('.') else {
            continue;
        };
        match tables.iter_mut().find(|(name, _)| name == table) {
            Some((_, rows)) => rows.push(row),
            None => tables.push((table.to_owned(), vec![row])),
        }
    }
    for (table, rows) in tables {
        // `[auth]` has no defaults in the typed config: it is written as an example below.
        if table.starts_with("auth") {
            continue;
        }
        out.push_str(&format!("\n[{table}]\n"));
        for row in rows {
            let name = row.key.rsplit('.').next().unwrap_or_default();
            out.push_str(&format!("# {}\n", row.description));
            match &row.default {
                Some(value) => out.push_str(&format!("{name} = {}\n", toml_value(value))),
                // Unset, the primary still has a value in effect: say which, as doctor does.
                None if row.key == PRIMARY_KEY => out.push_str(&format!(
                    "# {name} = \"{}\"  (not set: the only provider under models.providers gives its first model, else this built-in default)\n",
                    effective_model(&Config::default()).reference
                )),
                None => out.push_str(&format!("# {name} = …  ({}; not set by default)\n", row.ty)),
            }
        }
    }
    out.push_str(EXAMPLES);
    out
}

const EXAMPLES: &str = r#"
# A provider of your own, or settings over a built-in one:
# [models.providers.ollama]
# api = "ollama"                      # openai-completions|openai-responses|anthropic-messages|google-generative-ai|ollama
# baseUrl = "http://localhost:11434/v1"
# apiKey = "OLLAMA_API_KEY"           # an environment variable name, a literal key, or "!command"
# models = [{ id = "llama3.1", contextWindow = 128000, maxTokens = 16384 }]

# Auth profile order and cooldowns:
# [auth]
# order = { openai = ["openai:a", "openai:b"] }
# [auth.cooldowns]
# scheduleMs = [10000, 60000, 300000]

# An external agent CLI run as a provider:
# [cliBackends.claude-cli]
# command = ["claude", "-p", "--output-format", "json"]
"#;

/// A JSON value as a TOML value (the defaults are strings, numbers, booleans and arrays).
fn toml_value(value: &Value) -> String {
    match value {
        // JSON's string escapes are valid in a TOML basic string.
        Value::String(_) | Value::Bool(_) => value.to_string(),
        // A float default stays a float (`600.0`), as its type reads it.
        Value::Number(number) => number.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(table) => {
            let entries: Vec<String> = table
                .iter()
                .map(|(key, value)| {
                    format!("{} = {}", Value::String(key.clone()), toml_value(value))
                })
                .collect();
            format!("{{ {} }}", entries.join(", "))
        }
        Value::Null => "\"\"".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_starter_parses_back_to_the_defaults() -> Result<(), String> {
        let text = starter_toml();
        let value: Value = toml::from_str(&text).map_err(|e| format!("{e}\n{text}"))?;
        let config = Config::from_value(value).map_err(|e| e.to_string())?;
        assert_eq!(config, Config::default());
        for key in [
            "timeoutSeconds = 600.0",
            "maxConcurrent = 4",
            "break = \"text_end\"",
            "level = \"info\"",
            "# primary = \"openai/gpt-5.4\"  (not set: ",
        ] {
            assert!(text.contains(key), "{key}\n{text}");
        }
        Ok(())
    }
}
