//! Each API's spelling of [`ToolChoice`] (pi passes `toolChoice` through to the provider).
//!
//! A choice is sent only when the request offers tools: OpenAI rejects `tool_choice` without
//! `tools`, and a choice over no tools means nothing anyway.

use clawloop_core::ToolChoice;
use serde_json::{Value, json};

/// Chat Completions' `tool_choice`: a mode word, or `{type: "function", function: {name}}`.
pub fn openai_completions(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        mode => Value::from(mode.openai_mode().unwrap_or("auto")),
    }
}

/// Responses' `tool_choice`: a mode word, or `{type: "function", name}`.
pub fn openai_responses(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Tool(name) => json!({"type": "function", "name": name}),
        mode => Value::from(mode.openai_mode().unwrap_or("auto")),
    }
}

/// Anthropic's `tool_choice` object: `{type: auto | none | any}` or `{type: "tool", name}`;
/// `name` is the tool's name as sent in `tools` (Claude Code casing for OAuth tokens).
pub fn anthropic(choice: &ToolChoice, wire_name: impl Fn(&str) -> String) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": wire_name(name)}),
    }
}

/// Gemini's `toolConfig`: `{functionCallingConfig: {mode: AUTO | NONE | ANY}}`, a named tool
/// as `ANY` limited by `allowedFunctionNames`.
pub fn gemini(choice: &ToolChoice) -> Value {
    let config = match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    };
    json!({ "functionCallingConfig": config })
}
