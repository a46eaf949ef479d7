//! Repairs malformed tool-call argument JSON (OpenClaw's
//! `wrapStreamFnRepairMalformedToolCallArguments`, widened): models and proxies send arguments
//! with trailing junk, in a Markdown fence, double-encoded as a JSON string, with trailing
//! commas, or cut off. Each of those still says what the model meant, so the call gets that
//! object instead of failing validation with `{}`.

use std::collections::HashMap;
use std::sync::Arc;

use clawloop_core::message::{ContentBlock, ToolCall};
use clawloop_core::stream_event::parse_streaming_json;
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StreamOptions,
};
use serde_json::{Map, Value};

use super::map_events::map_events;

/// Argument JSON beyond this is not kept for repair: nobody hand-repairs a megabyte of JSON,
/// and the copy would double the memory of a huge call.
const MAX_RAW_BYTES: usize = 1024 * 1024;

/// How many JSON-string layers are unwrapped (`"{\"a\":1}"`, encoded once more, …).
const MAX_ENCODING_DEPTH: usize = 2;

/// The arguments object `raw` most plausibly meant, or `None` when it cannot be told (the
/// caller then keeps what it has, as pi keeps the raw arguments).
///
/// Tried in order: strict JSON (an object as is, a JSON string decoded and tried again); the
/// inside of a Markdown code fence; the first balanced `{…}` (dropping prose before it and junk
/// after it); the same without trailing commas; a cut-off object closed leniently. Empty input
/// is `{}` (a call without arguments).
pub fn repair_tool_arguments(raw: &str) -> Option<Map<String, Value>> {
    repair_at_depth(raw, 0)
}

fn repair_at_depth(raw: &str, depth: usize) -> Option<Map<String, Value>> {
    let text = strip_code_fence(raw.trim());
    if text.is_empty() {
        return Some(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => return Some(map),
        Ok(Value::String(inner)) if depth < MAX_ENCODING_DEPTH => {
            return repair_at_depth(&inner, depth + 1);
        }
        // An array or a number is a different value, not a damaged object.
        Ok(_) => return None,
        Err(_) => {}
    }
    let body = &text[text.find('{')?..];
    if let Some(prefix) = balanced_prefix(body) {
        for candidate in [prefix.to_owned(), without_trailing_commas(prefix)] {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&candidate) {
                return Some(map);
            }
        }
    }
    // Cut off mid-object: close what is open. Only a non-empty result is evidence; the lenient
    // parser answers `{}` for input it cannot read at all.
    match parse_streaming_json(&without_trailing_commas(body)) {
        Value::Object(map) if !map.is_empty() => Some(map),
        _ => None,
    }
}

/// The content of a Markdown code fence (```` ```json … ``` ````), or `text` unchanged.
fn strip_code_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let rest = rest.trim_end();
    let rest = rest.strip_suffix("```").unwrap_or(rest);
    // Skip the info string (`json`): the value starts at its first bracket or quote.
    match rest.find(['{', '[', '"']) {
        Some(start) => rest[start..].trim(),
        None => rest.trim(),
    }
}

/// The shortest prefix of `text` (which starts with `{` or `[`) whose brackets balance,
/// ignoring brackets inside strings.
fn balanced_prefix(text: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(&text[..i + c.len_utf8()]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` without commas that directly precede `}` or `]` (outside strings).
fn without_trailing_commas(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut pending_comma: Option<String> = None;
    for c in text.chars() {
        if in_string {
            out.push(c);
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        if let Some(held) = pending_comma.as_mut() {
            if c.is_whitespace() {
                held.push(c);
                continue;
            }
            let held = pending_comma.take().unwrap_or_default();
            if c == '}' || c == ']' {
                // Drop the comma, keep the whitespace after it.
                out.push_str(&held[1..]);
            } else {
                out.push_str(&held);
            }
        }
        match c {
            ',' => pending_comma = Some(String::from(",")),
            '"' => {
                in_string = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    if let Some(held) = pending_comma {
        out.push_str(&held);
    }
    out
}

/// Whether the streamed `raw` arguments are not already a proper object.
fn needs_repair(raw: &str) -> bool {
    !raw.trim().is_empty() && !matches!(serde_json::from_str::<Value>(raw), Ok(Value::Object(_)))
}

/// Repairs tool-call arguments in the response: `toolcall_end` gets the repaired call, and the
/// final message (of `done` or `error`) the same arguments, so every consumer agrees. Calls
/// whose arguments cannot be repaired are left exactly as the provider gave them.
#[derive(Clone)]
pub struct RepairToolCallArguments {
    inner: Arc<dyn LlmStream>,
}

impl RepairToolCallArguments {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn LlmStream>) -> Self {
        RepairToolCallArguments { inner }
    }
}

impl LlmStream for RepairToolCallArguments {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        let mut state = RepairState::default();
        map_events(self.inner.stream(model, context, options), move |event| {
            state.on_event(event)
        })
    }
}

/// One tool call being streamed.
struct PendingCall {
    id: String,
    name: String,
    raw: String,
    /// Set when the arguments outgrew [`MAX_RAW_BYTES`]; the call is then left alone.
    too_large: bool,
}

#[derive(Default)]
struct RepairState {
    pending: HashMap<usize, PendingCall>,
    /// Repaired arguments by content index, applied again to the final message.
    repaired: HashMap<usize, Map<String, Value>>,
}

impl RepairState {
    fn on_event(&mut self, event: AssistantMessageEvent) -> AssistantMessageEvent {
        use AssistantMessageEvent as E;
        match event {
            E::ToolcallStart {
                content_index,
                id,
                tool_name,
            } => {
                self.repaired.remove(&content_index);
                self.pending.insert(
                    content_index,
                    PendingCall {
                        id: id.clone(),
                        name: tool_name.clone(),
                        raw: String::new(),
                        too_large: false,
                    },
                );
                E::ToolcallStart {
                    content_index,
                    id,
                    tool_name,
                }
            }
            E::ToolcallDelta {
                content_index,
                delta,
            } => {
                if let Some(call) = self.pending.get_mut(&content_index)
                    && !call.too_large
                {
                    if call.raw.len() + delta.len() > MAX_RAW_BYTES {
                        call.too_large = true;
                        call.raw = String::new();
                    } else {
                        call.raw.push_str(&delta);
                    }
                }
                E::ToolcallDelta {
                    content_index,
                    delta,
                }
            }
            E::ToolcallEnd {
                content_index,
                tool_call,
            } => {
                let pending = self.pending.remove(&content_index);
                let tool_call = self.end_call(content_index, pending, tool_call);
                E::ToolcallEnd {
                    content_index,
                    tool_call,
                }
            }
            E::Done {
                reason,
                mut message,
            } => {
                self.repair_message(&mut message);
                E::Done { reason, message }
            }
            E::Error { reason, mut error } => {
                self.repair_message(&mut error);
                E::Error { reason, error }
            }
            other => other,
        }
    }

    fn end_call(
        &mut self,
        content_index: usize,
        pending: Option<PendingCall>,
        tool_call: Option<ToolCall>,
    ) -> Option<ToolCall> {
        let raw = pending
            .as_ref()
            .filter(|p| !p.too_large)
            .map(|p| p.raw.as_str());
        let fixed = match (&tool_call, raw) {
            // The provider handed over arguments that are not an object (often the raw string).
            (Some(call), _) if !call.arguments.is_object() => call
                .arguments
                .as_str()
                .or(raw)
                .and_then(repair_tool_arguments),
            (_, Some(raw)) if needs_repair(raw) => repair_tool_arguments(raw),
            _ => None,
        };
        let Some(arguments) = fixed else {
            return tool_call;
        };
        self.repaired.insert(content_index, arguments.clone());
        let mut call = match (tool_call, pending) {
            (Some(call), _) => call,
            (None, Some(p)) => ToolCall::new(p.id, p.name, Value::Null),
            (None, None) => return None,
        };
        call.arguments = Value::Object(arguments);
        Some(call)
    }

    fn repair_message(&self, message: &mut AssistantMessage) {
        for (index, block) in message.content.iter_mut().enumerate() {
            let ContentBlock::ToolCall(call) = block else {
                continue;
            };
            if let Some(arguments) = self.repaired.get(&index) {
                call.arguments = Value::Object(arguments.clone());
            } else if let Some(arguments) = call.arguments.as_str().and_then(repair_tool_arguments)
            {
                call.arguments = Value::Object(arguments);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Option<Map<String, Value>> {
        v.as_object().cloned()
    }

    #[test]
    fn repairs() {
        let cases = [
            (r#"{"a":1}"#, obj(json!({"a":1}))),
            ("", obj(json!({}))),
            (r#"{"a":1}xyz"#, obj(json!({"a":1}))),
            ("Arguments: {\"a\":1} done", obj(json!({"a":1}))),
            ("```json\n{\"a\":[1,2]}\n```", obj(json!({"a":[1,2]}))),
            (r#""{\"a\":1}""#, obj(json!({"a":1}))),
            (
                r#"{"a":[1,2,],"b":{"c":"}",},}"#,
                obj(json!({"a":[1,2],"b":{"c":"}"}})),
            ),
            (
                r#"{"path":"/tmp/x","content":"hel"#,
                obj(json!({"path":"/tmp/x","content":"hel"})),
            ),
            ("[1,2]", None),
            ("{'a': 1}", None),
            ("not json at all", None),
            ("}{", None),
        ];
        for (raw, expected) in cases {
            assert_eq!(repair_tool_arguments(raw), expected, "{raw}");
        }
    }

    #[test]
    fn trailing_commas_only_outside_strings() {
        assert_eq!(
            without_trailing_commas(r#"{"a":"x,}", "b":[1 , ] ,}"#),
            r#"{"a":"x,}", "b":[1  ] }"#
        );
    }
}
