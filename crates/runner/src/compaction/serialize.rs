//! The conversation as plain text for the summarizer (pi's `serializeConversation`), so the
//! model reads a transcript instead of continuing a conversation.
//!
//! Each message becomes labelled blocks — `[User]: …`, `[Assistant thinking]: …`,
//! `[Assistant]: …`, `[Assistant tool calls]: name(k=<JSON>, …); …`, `[Tool result]: …` — and
//! all blocks are joined with a blank line. Tool results are cut to
//! [`TOOL_RESULT_MAX_CHARS`] with a `[... N more characters truncated]` notice. Lengths are
//! counted in chars (SPEC §3).

use serde_json::Value;

use clawloop_core::message::{ContentBlock, Message, UserContent};

/// The most chars of one tool result a summary request carries.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// What separates two blocks of the serialized conversation.
pub const BLOCK_SEPARATOR: &str = "\n\n";

/// `text` cut to `max_chars` chars followed by `\n\n[... N more characters truncated]`;
/// unchanged when it is not longer (pi's `truncateForSummary`).
pub fn truncate_for_summary(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => {
            let dropped = text[cut..].chars().count();
            format!(
                "{}\n\n[... {dropped} more characters truncated]",
                &text[..cut]
            )
        }
    }
}

fn text_blocks(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(ContentBlock::as_text).collect()
}

/// `JSON.stringify` of a tool-call argument (compact, keys in their order).
fn json(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// `name(k=<JSON v>, …)`, the entries of the arguments as JavaScript's `Object.entries` lists
/// them (an array by index, anything that is not an object or array has none).
fn tool_call_text(name: &str, arguments: &Value) -> String {
    let entries: Vec<String> = match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", json(v)))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{i}={}", json(v)))
            .collect(),
        _ => Vec::new(),
    };
    format!("{name}({})", entries.join(", "))
}

/// The blocks of one message joined with [`BLOCK_SEPARATOR`]; empty when it has none (an
/// empty user text or tool result, an assistant message without content).
pub fn serialize_message(message: &Message) -> String {
    let mut parts: Vec<String> = Vec::with_capacity(3);
    match message {
        Message::User(m) => {
            let text = match &m.content {
                UserContent::Text(s) => s.clone(),
                UserContent::Blocks(blocks) => text_blocks(blocks),
            };
            if !text.is_empty() {
                parts.push(format!("[User]: {text}"));
            }
        }
        Message::Assistant(m) => {
            let mut texts = Vec::new();
            let mut thinking = Vec::new();
            let mut calls = Vec::new();
            for block in &m.content {
                match block {
                    ContentBlock::Text(t) => texts.push(t.text.as_str()),
                    ContentBlock::Thinking(t) => thinking.push(t.thinking.as_str()),
                    ContentBlock::ToolCall(c) => calls.push(tool_call_text(&c.name, &c.arguments)),
                    ContentBlock::Image(_) | ContentBlock::Other(_) => {}
                }
            }
            if !thinking.is_empty() {
                parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
            }
            if !texts.is_empty() {
                parts.push(format!("[Assistant]: {}", texts.join("\n")));
            }
            if !calls.is_empty() {
                parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
            }
        }
        Message::ToolResult(m) => {
            let text = text_blocks(&m.content);
            if !text.is_empty() {
                parts.push(format!(
                    "[Tool result]: {}",
                    truncate_for_summary(&text, TOOL_RESULT_MAX_CHARS)
                ));
            }
        }
    }
    parts.join(BLOCK_SEPARATOR)
}

/// pi's `serializeConversation`: every message's blocks, joined with [`BLOCK_SEPARATOR`].
/// Convert agent messages with `convert_to_llm` first.
pub fn serialize_conversation(messages: &[Message]) -> String {
    join_blocks(messages.iter().map(serialize_message))
}

/// Non-empty serialized messages joined with [`BLOCK_SEPARATOR`].
pub(crate) fn join_blocks(blocks: impl IntoIterator<Item = impl AsRef<str>>) -> String {
    let mut out = String::new();
    for block in blocks {
        let block = block.as_ref();
        if block.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push_str(BLOCK_SEPARATOR);
        }
        out.push_str(block);
    }
    out
}
