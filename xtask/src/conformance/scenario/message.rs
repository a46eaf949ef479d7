//! Input messages: a full pi v3 message or FORMAT.md's shorthand, and the expected summary form.
//!
//! Full messages stay free-form JSON (pi keeps unknown fields), checked only as far as the
//! format defines them; shorthand objects are closed structs. The raw JSON is kept so the
//! runner can expand it with [`crate::conformance::shorthand`].

use clawloop_core::StopReason;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::decode::{DecodeError, decode, nested, type_name};
use super::values::{Object, TextOrGen};
use super::vocab::SummaryRole;

/// A message given as scenario input (full or shorthand), validated, kept as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct InputMessage(pub Value);

/// Roles of pi-coding-agent messages: only full objects, checked loosely.
const CODING_AGENT_ROLES: [&str; 4] = [
    "bashExecution",
    "custom",
    "branchSummary",
    "compactionSummary",
];

impl<'de> Deserialize<'de> for InputMessage {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        validate_message(&v).map_err(nested)?;
        Ok(InputMessage(v))
    }
}

/// Partial `Usage` of a shorthand message; missing fields are 0.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UsagePartial {
    /// Non-cached input tokens.
    pub input: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Cache-read tokens.
    pub cache_read: Option<f64>,
    /// Cache-write tokens.
    pub cache_write: Option<f64>,
    /// Total tokens.
    pub total_tokens: Option<f64>,
    /// Costs in USD.
    pub cost: Option<CostPartial>,
}

/// Partial cost object.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CostPartial {
    /// Input cost.
    pub input: Option<f64>,
    /// Output cost.
    pub output: Option<f64>,
    /// Cache-read cost.
    pub cache_read: Option<f64>,
    /// Cache-write cost.
    pub cache_write: Option<f64>,
    /// Total cost.
    pub total: Option<f64>,
}

/// `{"role":"user","text":T}` shorthand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // decoded to validate; the raw JSON is what gets expanded
struct UserShorthand {
    role: String,
    text: TextOrGen,
    thinking: Option<String>,
    usage: Option<UsagePartial>,
    provider: Option<String>,
    model: Option<String>,
    api: Option<String>,
    timestamp: Option<f64>,
}

/// A tool call inside assistant shorthand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct ToolCallShorthand {
    id: String,
    name: String,
    arguments: Option<Object>,
}

/// Assistant shorthand: `text`, `toolCalls` or `error`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct AssistantShorthand {
    role: String,
    text: Option<TextOrGen>,
    tool_calls: Option<Vec<ToolCallShorthand>>,
    error: Option<String>,
    thinking: Option<String>,
    usage: Option<UsagePartial>,
    provider: Option<String>,
    model: Option<String>,
    api: Option<String>,
    timestamp: Option<f64>,
}

/// Tool-result shorthand.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[allow(dead_code)]
struct ToolResultShorthand {
    role: String,
    tool_call_id: String,
    tool_name: String,
    text: TextOrGen,
    is_error: Option<bool>,
    thinking: Option<String>,
    usage: Option<UsagePartial>,
    provider: Option<String>,
    model: Option<String>,
    api: Option<String>,
    timestamp: Option<f64>,
}

/// Checks one input message the way FORMAT.md (and `validate.py`'s `t_message`) define it.
pub fn validate_message(v: &Value) -> Result<(), DecodeError> {
    let Value::Object(map) = v else {
        return Err(DecodeError::new(
            "",
            format!("expected message object, got {}", type_name(v)),
        ));
    };
    let Some(Value::String(role)) = map.get("role") else {
        return Err(DecodeError::new("", "message without a string 'role'"));
    };
    if CODING_AGENT_ROLES.contains(&role.as_str()) {
        return Ok(());
    }
    if map.contains_key("content") {
        return validate_full(role, map);
    }
    match role.as_str() {
        "user" => decode::<UserShorthand>(v).map(drop),
        "assistant" => {
            let a = decode::<AssistantShorthand>(v)?;
            if a.text.is_none() && a.tool_calls.is_none() && a.error.is_none() {
                return Err(DecodeError::new(
                    "",
                    "assistant shorthand needs 'text', 'toolCalls' or 'error'",
                ));
            }
            if a.error.is_some() && (a.text.is_some() || a.tool_calls.is_some()) {
                return Err(DecodeError::new(
                    "",
                    "assistant 'error' shorthand has empty content; it cannot be combined with 'text'/'toolCalls'",
                ));
            }
            Ok(())
        }
        "toolResult" => decode::<ToolResultShorthand>(v).map(drop),
        other => Err(DecodeError::new(
            "role",
            format!(
                "unknown message role {other:?} (shorthand roles: user, assistant, toolResult)"
            ),
        )),
    }
}

fn validate_full(role: &str, map: &Map<String, Value>) -> Result<(), DecodeError> {
    if !matches!(role, "user" | "assistant" | "toolResult") {
        return Err(DecodeError::new(
            "role",
            format!("full message role must be user|assistant|toolResult, got {role:?}"),
        ));
    }
    match map.get("content") {
        Some(Value::String(_)) if role == "user" => {}
        Some(Value::Array(blocks)) => {
            for (i, b) in blocks.iter().enumerate() {
                validate_block(b).map_err(|e| e.under(&format!("content[{i}]")))?;
            }
        }
        other => {
            let want = if role == "user" {
                "array or string"
            } else {
                "array"
            };
            let got = other.map_or("nothing", type_name);
            return Err(DecodeError::new(
                "content",
                format!("expected {want}, got {got}"),
            ));
        }
    }
    if role == "toolResult" {
        for key in ["toolCallId", "toolName"] {
            if !map.contains_key(key) {
                return Err(DecodeError::new(
                    "",
                    format!("toolResult message missing {key:?}"),
                ));
            }
        }
    }
    if role == "assistant"
        && let Some(sr) = map.get("stopReason")
    {
        decode::<StopReason>(sr).map_err(|e| e.under("stopReason"))?;
    }
    Ok(())
}

fn validate_block(b: &Value) -> Result<(), DecodeError> {
    let Value::Object(map) = b else {
        return Err(DecodeError::new(
            "",
            format!("expected content block object, got {}", type_name(b)),
        ));
    };
    let ty = map.get("type").and_then(Value::as_str).unwrap_or("");
    let need: &[&str] = match ty {
        "text" => &["text"],
        "thinking" => &["thinking"],
        "image" => &["data", "mimeType"],
        "toolCall" => &["id", "name", "arguments"],
        _ => {
            return Err(DecodeError::new(
                "type",
                format!(
                    "content block type must be one of text|thinking|image|toolCall, got {}",
                    map.get("type")
                        .map_or_else(|| "nothing".to_owned(), Value::to_string)
                ),
            ));
        }
    };
    for key in need {
        if !map.contains_key(*key) {
            return Err(DecodeError::new("", format!("{ty} block missing {key:?}")));
        }
    }
    if ty == "text"
        && let Some(text) = map.get("text")
    {
        decode::<TextOrGen>(text).map_err(|e| e.under("text"))?;
    }
    Ok(())
}

/// An expected message in summary form; every key optional and nullable.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MessageSummary {
    /// Role.
    pub role: Option<SummaryRole>,
    /// Text blocks joined with `\n`.
    pub text: Option<String>,
    /// Tool call ids.
    pub tool_calls: Option<Vec<String>>,
    /// Tool result's call id.
    pub tool_call_id: Option<String>,
    /// Tool result's error flag.
    pub is_error: Option<bool>,
    /// Assistant stop reason.
    pub stop_reason: Option<StopReason>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(v: Value) -> Result<(), DecodeError> {
        validate_message(&v)
    }

    #[test]
    fn accepts_shorthand_and_full() {
        check(json!({"role": "user", "text": "hi"})).unwrap();
        check(json!({"role": "assistant", "toolCalls": [{"id": "c1", "name": "read", "arguments": {}}]})).unwrap();
        check(json!({"role": "assistant", "error": "boom", "usage": {"input": 3}})).unwrap();
        check(json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "text": {"repeat": "x", "count": 3}})).unwrap();
        check(json!({"role": "user", "content": "plain", "timestamp": 0, "extra": true})).unwrap();
        check(json!({"role": "compactionSummary", "summary": "s"})).unwrap();
    }

    #[test]
    fn rejects_bad_shorthand() {
        let e = check(json!({"role": "user", "text": "hi", "bogus": 1})).unwrap_err();
        assert!(e.message.contains("unknown field `bogus`"), "{e}");
        let e = check(json!({"role": "assistant", "error": "x", "text": "y"})).unwrap_err();
        assert!(e.message.contains("cannot be combined"), "{e}");
        let e = check(json!({"role": "assistant"})).unwrap_err();
        assert!(e.message.contains("needs"), "{e}");
        let e = check(json!({"role": "system", "text": "x"})).unwrap_err();
        assert_eq!(e.path, "role");
    }

    #[test]
    fn rejects_bad_full_blocks() {
        let e = check(json!({"role": "assistant", "content": [{"type": "toolCall", "id": "a"}]}))
            .unwrap_err();
        assert_eq!(e.path, "content[0]");
        let e =
            check(json!({"role": "assistant", "content": [], "stopReason": "nope"})).unwrap_err();
        assert_eq!(e.path, "stopReason");
    }
}
