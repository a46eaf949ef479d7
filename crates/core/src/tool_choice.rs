//! Which tools a model call may or must use (pi's `toolChoice` option, passed through to the
//! provider's own field: `tool_choice` for OpenAI and Anthropic, `toolConfig` for Gemini).
//!
//! In configuration and JSON it is written as `"auto"`, `"none"`, `"required"` (alias
//! `"any"`, Anthropic's word) or `{ "name": "<tool>" }` for one named tool.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The tool-use constraint of one model call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (every provider's default).
    Auto,
    /// The model must not call a tool.
    None,
    /// The model must call at least one tool (Anthropic and Gemini call it "any").
    Required,
    /// The model must call this tool.
    Tool(String),
}

impl ToolChoice {
    /// The key of a model's `extra` map that holds its configured tool choice.
    pub const MODEL_KEY: &'static str = "toolChoice";

    /// The tool choice configured for `model` (`models.providers.<id>.models[].toolChoice`),
    /// `None` when there is none or it is not a valid choice (the catalog rejects those).
    pub fn configured(model: &crate::Model) -> Option<ToolChoice> {
        model
            .extra
            .get(Self::MODEL_KEY)
            .and_then(|value| ToolChoice::from_value(value).ok())
    }

    /// Reads the configuration form: a mode string or `{ "name": "<tool>" }`.
    ///
    /// The error says what was expected, for a message naming the config key.
    pub fn from_value(value: &Value) -> Result<ToolChoice, String> {
        const EXPECTED: &str =
            "expected \"auto\", \"none\", \"required\" or a table { name = \"<tool>\" }";
        match value {
            Value::String(mode) => match mode.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" | "any" => Ok(ToolChoice::Required),
                other => Err(format!("unknown tool choice {other:?}; {EXPECTED}")),
            },
            Value::Object(map) => match (map.get("name"), map.len()) {
                (Some(Value::String(name)), 1) if !name.trim().is_empty() => {
                    Ok(ToolChoice::Tool(name.clone()))
                }
                _ => Err(format!("invalid tool choice table; {EXPECTED}")),
            },
            _ => Err(EXPECTED.to_owned()),
        }
    }

    /// The mode word OpenAI's APIs use (`auto`, `none`, `required`); `None` for a named tool,
    /// which each API spells as an object of its own.
    pub fn openai_mode(&self) -> Option<&'static str> {
        match self {
            ToolChoice::Auto => Some("auto"),
            ToolChoice::None => Some("none"),
            ToolChoice::Required => Some("required"),
            ToolChoice::Tool(_) => None,
        }
    }
}

impl fmt::Display for ToolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChoice::Tool(name) => write!(f, "tool {name}"),
            other => f.write_str(other.openai_mode().unwrap_or_default()),
        }
    }
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolChoice::Tool(name) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("name", name)?;
                map.end()
            }
            other => serializer.serialize_str(other.openai_mode().unwrap_or_default()),
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ToolChoice::from_value(&value).map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn config_forms_round_trip() {
        for (value, choice) in [
            (json!("auto"), ToolChoice::Auto),
            (json!("none"), ToolChoice::None),
            (json!("required"), ToolChoice::Required),
            (json!({"name": "read"}), ToolChoice::Tool("read".into())),
        ] {
            let parsed: ToolChoice = serde_json::from_value(value.clone()).unwrap();
            assert_eq!(parsed, choice);
            assert_eq!(serde_json::to_value(&parsed).unwrap(), value);
        }
        assert_eq!(
            ToolChoice::from_value(&json!("any")),
            Ok(ToolChoice::Required)
        );
    }

    #[test]
    fn bad_forms_say_what_was_expected() {
        for value in [
            json!("always"),
            json!(true),
            json!({"name": ""}),
            json!({"name": "read", "type": "tool"}),
            json!({"tool": "read"}),
        ] {
            let err = ToolChoice::from_value(&value).unwrap_err();
            assert!(err.contains("expected \"auto\""), "{value}: {err}");
        }
    }
}
