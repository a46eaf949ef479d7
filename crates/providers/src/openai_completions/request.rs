//! The Chat Completions request (pi's `buildParams`, pi-mono §1.5).

use clawloop_core::message::{ContentBlock, Message};
use clawloop_core::{Context, Model, StreamOptions, ThinkLevel};
use serde_json::{Map, Value, json};

use super::compat::{MaxTokensField, OpenAiCompat, ThinkingFormat};
use super::messages::convert_messages;
use crate::transport::HttpRequest;

/// The request body for one streaming call.
pub fn build_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    compat: &OpenAiCompat,
) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model.id.clone()));
    body.insert(
        "messages".into(),
        Value::Array(convert_messages(model, context, compat)),
    );
    body.insert("stream".into(), Value::Bool(true));
    if compat.supports_usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        body.insert("store".into(), Value::Bool(false));
    }
    let max_tokens_field = match compat.max_tokens_field {
        MaxTokensField::MaxCompletionTokens => "max_completion_tokens",
        MaxTokensField::MaxTokens => "max_tokens",
    };
    body.insert(
        max_tokens_field.into(),
        Value::from(options.base_max_tokens(model)),
    );
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), Value::from(t));
    }
    if !context.tools.is_empty() {
        let tools = context
            .tools
            .iter()
            .map(|tool| {
                let mut function = json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                });
                if compat.supports_strict_mode {
                    function["strict"] = Value::Bool(false);
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &options.tool_choice {
            body.insert(
                "tool_choice".into(),
                crate::tool_choice::openai_completions(choice),
            );
        }
    } else if history_has_tools(&context.messages) {
        // LiteLLM and Anthropic-backed proxies reject tool history without a `tools` field.
        body.insert("tools".into(), Value::Array(Vec::new()));
    }
    if model.reasoning {
        add_reasoning(&mut body, model, options.reasoning, compat);
    }
    if model.base_url.contains("openrouter.ai")
        && let Some(routing) = &compat.open_router_routing
    {
        body.insert("provider".into(), routing.clone());
    }
    Value::Object(body)
}

/// The effort to request: none for `off`; `xhigh` only where the model supports it; our
/// `adaptive` (not a Chat Completions value) as `medium`.
fn effort(model: &Model, level: Option<ThinkLevel>) -> Option<&'static str> {
    match level? {
        ThinkLevel::Off => None,
        ThinkLevel::Xhigh if !model.supports_xhigh() => Some("high"),
        ThinkLevel::Adaptive => Some("medium"),
        other => Some(other.as_str()),
    }
}

fn add_reasoning(
    body: &mut Map<String, Value>,
    model: &Model,
    level: Option<ThinkLevel>,
    compat: &OpenAiCompat,
) {
    let effort = effort(model, level);
    match compat.thinking_format {
        ThinkingFormat::Zai | ThinkingFormat::Qwen => {
            body.insert("enable_thinking".into(), Value::Bool(effort.is_some()));
        }
        ThinkingFormat::QwenChatTemplate => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": effort.is_some()}),
            );
        }
        ThinkingFormat::Openai => {
            if let Some(effort) = effort.filter(|_| compat.supports_reasoning_effort) {
                let value = compat
                    .reasoning_effort_map
                    .get(effort)
                    .cloned()
                    .unwrap_or_else(|| Value::from(effort));
                body.insert("reasoning_effort".into(), value);
            }
        }
    }
}

fn history_has_tools(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::ToolResult(_) => true,
        Message::Assistant(a) => a
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::ToolCall(_))),
        Message::User(_) => false,
    })
}

/// The HTTP request: `<baseUrl>/chat/completions`, bearer auth, the model's headers and then
/// the call's (later ones win).
pub fn build_request(model: &Model, options: &StreamOptions, body: &Value) -> HttpRequest {
    let mut headers = vec![
        ("content-type".to_owned(), "application/json".to_owned()),
        ("accept".to_owned(), "text/event-stream".to_owned()),
    ];
    if let Some(key) = options.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    headers.extend(model.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    HttpRequest {
        url: format!("{}/chat/completions", model.base_url.trim_end_matches('/')),
        headers,
        // Serializing a `Value` cannot fail (all keys are strings).
        body: serde_json::to_vec(body).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::ToolDefinition;

    fn model(compat: Option<Value>) -> Model {
        let mut m: Model = serde_json::from_value(json!({
            "id": "o4", "api": "openai-completions", "provider": "openai", "reasoning": true,
            "baseUrl": "https://api.openai.com/v1/", "contextWindow": 1000, "maxTokens": 50000
        }))
        .unwrap();
        m.compat = compat;
        m
    }

    #[test]
    fn body_follows_pi() {
        let model = model(None);
        let context = Context {
            system_prompt: None,
            messages: vec![Message::User(clawloop_core::UserMessage::text("hi", 1))],
            tools: vec![ToolDefinition {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
        };
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Xhigh),
            temperature: Some(0.5),
            ..StreamOptions::default()
        };
        let body = build_body(&model, &context, &options, &OpenAiCompat::for_model(&model));
        assert_eq!(
            body,
            json!({
                "model": "o4", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "stream": true,
                "stream_options": {"include_usage": true}, "store": false,
                "max_completion_tokens": 32000, "temperature": 0.5,
                "tools": [{"type": "function", "function": {"name": "ls", "description": "list",
                           "parameters": {"type": "object"}, "strict": false}}],
                "reasoning_effort": "high"
            })
        );
        let request = build_request(
            &model,
            &StreamOptions {
                api_key: Some("sk".into()),
                ..StreamOptions::default()
            },
            &body,
        );
        assert_eq!(request.url, "https://api.openai.com/v1/chat/completions");
        assert!(
            request
                .headers
                .contains(&("authorization".into(), "Bearer sk".into()))
        );
    }

    #[test]
    fn compat_variants() {
        let model = model(Some(
            json!({"maxTokensField": "max_tokens", "supportsUsageInStreaming": false,
                                      "supportsStore": false, "thinkingFormat": "qwen-chat-template"}),
        ));
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Low),
            max_tokens: Some(77),
            ..StreamOptions::default()
        };
        let body = build_body(
            &model,
            &Context::default(),
            &options,
            &OpenAiCompat::for_model(&model),
        );
        assert_eq!(
            body,
            json!({"model": "o4", "messages": [], "stream": true, "max_tokens": 77,
                   "chat_template_kwargs": {"enable_thinking": true}})
        );
    }
}
