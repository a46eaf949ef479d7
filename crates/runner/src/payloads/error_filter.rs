//! The errored assistant message as the payload builder sees it (OpenClaw
//! `resolveAssistantErrorState` and `createRawErrorSuppressor`): the user-facing error copy,
//! and which answer texts merely repeat the raw error and must not reach the user.

use clawloop_core::StopReason;
use clawloop_core::classify::{format_raw_assistant_error_for_ui, parse_api_error_payload};
use clawloop_core::error_text::{ErrorTextContext, format_assistant_error_text};
use clawloop_core::js_text::js_trim;
use clawloop_core::message::AssistantMessage;
use clawloop_subscribe::messaging_dedupe::normalize_text_for_comparison;
use serde_json::Value;

/// OpenClaw's generic copy for a failed request, which a model sometimes echoes.
pub(super) const GENERIC_ERROR_TEXT: &str = "The AI service returned an error. Please try again.";

/// What an errored assistant message means for the payloads.
#[derive(Debug, Default)]
pub(super) struct AssistantErrorState {
    /// The copy shown to the user (`formatAssistantErrorText`).
    pub(super) error_text: Option<String>,
    raw: Option<String>,
    raw_fingerprint: Option<String>,
    formatted_raw: Option<String>,
    normalized_raw: Option<String>,
    normalized_formatted_raw: Option<String>,
    /// The copy, normalized for comparison.
    pub(super) normalized_error_text: Option<String>,
}

impl AssistantErrorState {
    /// The state of `assistant` when it ended with `stopReason: "error"`; empty otherwise.
    pub(super) fn of(assistant: &AssistantMessage, ctx: &ErrorTextContext<'_>) -> Self {
        if assistant.stop_reason != StopReason::Error {
            return Self::default();
        }
        let raw = assistant
            .error_message
            .as_deref()
            .map(js_trim)
            .filter(|r| !r.is_empty())
            .map(str::to_owned);
        let error_text =
            format_assistant_error_text(StopReason::Error, assistant.error_message.as_deref(), ctx);
        let formatted_raw = raw.as_deref().map(format_raw_assistant_error_for_ui);
        AssistantErrorState {
            raw_fingerprint: raw.as_deref().and_then(api_error_payload_fingerprint),
            normalized_raw: raw.as_deref().map(normalize_text_for_comparison),
            normalized_formatted_raw: formatted_raw.as_deref().map(normalize_text_for_comparison),
            normalized_error_text: error_text.as_deref().map(normalize_text_for_comparison),
            error_text,
            raw,
            formatted_raw,
        }
    }

    /// Whether `text` repeats the raw error: equal to it or to its UI form (as is or
    /// normalized), the same provider error payload, or any raw provider error payload.
    pub(super) fn repeats_raw_error(&self, text: &str) -> bool {
        let trimmed = js_trim(text);
        if trimmed.is_empty() {
            return false;
        }
        if self.raw.as_deref() == Some(trimmed) || self.formatted_raw.as_deref() == Some(trimmed) {
            return true;
        }
        let normalized = normalize_text_for_comparison(trimmed);
        let same = |known: &Option<String>| known.as_deref() == Some(normalized.as_str());
        if !normalized.is_empty()
            && (same(&self.normalized_raw) || same(&self.normalized_formatted_raw))
        {
            return true;
        }
        let fingerprint = api_error_payload_fingerprint(trimmed);
        if self.raw_fingerprint.is_some() && fingerprint == self.raw_fingerprint {
            return true;
        }
        fingerprint.is_some()
    }
}

/// OpenClaw `getApiErrorPayloadFingerprint`: the provider error payload in `text`, written with
/// its object keys sorted, so that the same error in another key order or spacing matches.
pub(super) fn api_error_payload_fingerprint(text: &str) -> Option<String> {
    let payload = parse_api_error_payload(text)?;
    let mut out = String::new();
    write_stable(&Value::Object(payload), &mut out);
    Some(out)
}

/// JSON with every object's keys in sorted order (serde_json keeps insertion order here).
fn write_stable(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(v) = map.get(key) {
                    write_stable(v, out);
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_stable(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn fingerprint_ignores_key_order_and_spacing() {
        let a = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
        let b = r#"Error: { "error": { "message": "Overloaded", "type": "overloaded_error" }, "type": "error" }"#;
        assert_eq!(
            api_error_payload_fingerprint(a).as_deref(),
            Some(r#"{"error":{"message":"Overloaded","type":"overloaded_error"},"type":"error"}"#)
        );
        assert_eq!(
            api_error_payload_fingerprint(a),
            api_error_payload_fingerprint(b)
        );
        assert_eq!(api_error_payload_fingerprint("plain words"), None);
    }
}
