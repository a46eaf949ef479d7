//! The Ollama `/api/chat` request (Ollama's documented format, as OpenClaw's
//! `createOllamaStreamFn` builds it).

use clawloop_core::{Context, Model, StreamOptions, ThinkLevel};
use serde_json::{Map, Value, json};

use super::messages::convert_messages;
use crate::transport::HttpRequest;

/// Ollama's default address, used when the model has no base URL.
pub const DEFAULT_BASE_URL: &str = "http://127.0.0.1:11434";

/// Context window sent as `num_ctx` when the model declares none (OpenClaw's fallback).
const DEFAULT_NUM_CTX: u64 = 65_536;

/// The request body: `{model, messages, stream: true, tools?, options, think?}`.
///
/// `options.num_ctx` is the model's context window: Ollama's own default is small and it
/// silently drops what does not fit, so the window must be asked for. `num_predict` is the
/// output limit, `temperature` when given. `think` is sent for reasoning models when a level
/// is requested (`off` → `false`, any other → `true`). A model id written `ollama/<id>` loses
/// the prefix.
pub fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let mut body = Map::new();
    let id = model.id.trim();
    body.insert(
        "model".into(),
        Value::from(id.strip_prefix("ollama/").unwrap_or(id)),
    );
    body.insert(
        "messages".into(),
        Value::Array(convert_messages(model, context)),
    );
    body.insert("stream".into(), Value::Bool(true));
    if !context.tools.is_empty() {
        let tools = context
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    let mut ollama_options = Map::new();
    let num_ctx = if model.context_window > 0 {
        model.context_window
    } else {
        DEFAULT_NUM_CTX
    };
    ollama_options.insert("num_ctx".into(), Value::from(num_ctx));
    if let Some(t) = options.temperature {
        ollama_options.insert("temperature".into(), Value::from(t));
    }
    ollama_options.insert(
        "num_predict".into(),
        Value::from(options.base_max_tokens(model)),
    );
    body.insert("options".into(), Value::Object(ollama_options));
    if model.reasoning
        && let Some(level) = options.reasoning
    {
        body.insert("think".into(), Value::Bool(level != ThinkLevel::Off));
    }
    Value::Object(body)
}

/// `<baseUrl>/api/chat`; a base URL ending in `/v1` (the OpenAI-compatible endpoint people
/// often configure) is reduced to the server root first.
pub fn chat_url(model: &Model) -> String {
    let base = model.base_url.trim().trim_end_matches('/');
    let base = match base.len().checked_sub(3) {
        Some(at) if base.is_char_boundary(at) && base[at..].eq_ignore_ascii_case("/v1") => {
            &base[..at]
        }
        _ => base,
    };
    let base = if base.is_empty() {
        DEFAULT_BASE_URL
    } else {
        base
    };
    format!("{base}/api/chat")
}

/// The HTTP request. Local Ollama needs no key; a key (Ollama's cloud, an authenticating
/// proxy) goes in `Authorization: Bearer`. The model's headers and then the call's follow
/// (later ones win).
pub fn build_request(model: &Model, options: &StreamOptions, body: &Value) -> HttpRequest {
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = options.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    headers.extend(model.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    HttpRequest {
        url: chat_url(model),
        headers,
        // Serializing a `Value` cannot fail (all keys are strings).
        body: serde_json::to_vec(body).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::{Message, ToolDefinition, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(base_url: &str, reasoning: bool) -> Model {
        serde_json::from_value(json!({
            "id": "ollama/qwen3:8b", "api": "ollama", "provider": "ollama", "reasoning": reasoning,
            "baseUrl": base_url, "contextWindow": 32768, "maxTokens": 8192
        }))
        .unwrap()
    }

    #[test]
    fn body_follows_ollama() {
        let context = Context {
            system_prompt: Some("be brief".into()),
            messages: vec![Message::User(UserMessage::text("hi", 1))],
            tools: vec![ToolDefinition {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
        };
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::High),
            temperature: Some(0.2),
            ..StreamOptions::default()
        };
        let body = build_body(&model("", true), &context, &options);
        assert_eq!(
            body,
            json!({
                "model": "qwen3:8b",
                "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}],
                "stream": true,
                "tools": [{"type": "function", "function": {"name": "ls", "description": "list",
                           "parameters": {"type": "object"}}}],
                "options": {"num_ctx": 32768, "temperature": 0.2, "num_predict": 8192},
                "think": true
            })
        );
        let off = StreamOptions {
            reasoning: Some(ThinkLevel::Off),
            max_tokens: Some(100),
            ..StreamOptions::default()
        };
        let body = build_body(&model("", true), &Context::default(), &off);
        assert_eq!(body["think"], false);
        assert_eq!(body["options"]["num_predict"], 100);
        let body = build_body(&model("", false), &Context::default(), &options);
        assert_eq!(body.get("think"), None);
    }

    #[test]
    fn urls_and_headers() {
        assert_eq!(
            chat_url(&model("", false)),
            "http://127.0.0.1:11434/api/chat"
        );
        assert_eq!(
            chat_url(&model("http://gpu:11434/v1/", false)),
            "http://gpu:11434/api/chat"
        );
        assert_eq!(
            chat_url(&model("https://ollama.com", false)),
            "https://ollama.com/api/chat"
        );
        let request = build_request(
            &model("", false),
            &StreamOptions {
                api_key: Some("k".into()),
                ..StreamOptions::default()
            },
            &json!({}),
        );
        assert!(
            request
                .headers
                .contains(&("authorization".into(), "Bearer k".into()))
        );
        let request = build_request(&model("", false), &StreamOptions::default(), &json!({}));
        assert_eq!(
            request.headers,
            vec![("content-type".to_owned(), "application/json".to_owned())]
        );
    }
}
