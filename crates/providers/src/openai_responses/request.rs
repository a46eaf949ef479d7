//! The Responses request (pi's `buildParams`, pi-mono §1.6).

use clawloop_core::model::CacheRetention;
use clawloop_core::{Context, Model, StreamOptions, ThinkLevel};
use serde_json::{Map, Value, json};

use super::input::convert_input;
use crate::transport::HttpRequest;

/// Developer message pi appends for `gpt-5` models when no reasoning is requested: the API has
/// no "reasoning off" switch, and this is the prompt-level one OpenAI's forum recommends.
pub const JUICE_ZERO: &str = "# Juice: 0 !important";

/// The reasoning effort to request: none for `off` (or no level); `xhigh` only where the
/// model supports it (pi's clamp); our `adaptive`, which the API does not know, as `medium`.
pub fn reasoning_effort(model: &Model, level: Option<ThinkLevel>) -> Option<&'static str> {
    match level? {
        ThinkLevel::Off => None,
        ThinkLevel::Xhigh if !model.supports_xhigh() => Some("high"),
        ThinkLevel::Adaptive => Some("medium"),
        other => Some(other.as_str()),
    }
}

/// Whether pi's "juice 0" hack applies: its test is on the model's display name, which pi
/// fills from the id when a configured model has none.
fn wants_juice_zero(model: &Model) -> bool {
    let name = if model.name.is_empty() {
        &model.id
    } else {
        &model.name
    };
    name.starts_with("gpt-5")
}

/// The request body for one streaming call.
pub fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let mut input = convert_input(model, context);
    let retention = options.cache_retention.unwrap_or_default();
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model.id.clone()));
    // `input` is inserted below, after the juice message may have been appended; reserving
    // its slot keeps pi's key order.
    body.insert("input".into(), Value::Null);
    body.insert("stream".into(), Value::Bool(true));
    body.insert("store".into(), Value::Bool(false));
    if retention != CacheRetention::Disabled
        && let Some(session) = &options.session_id
    {
        body.insert("prompt_cache_key".into(), Value::from(session.clone()));
    }
    // Only OpenAI itself knows the extended retention; compatible servers reject the field.
    if retention == CacheRetention::Long && model.base_url.contains("api.openai.com") {
        body.insert("prompt_cache_retention".into(), Value::from("24h"));
    }
    body.insert(
        "max_output_tokens".into(),
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
                json!({
                    "type": "function",
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                    "strict": false,
                })
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = &options.tool_choice {
            body.insert(
                "tool_choice".into(),
                crate::tool_choice::openai_responses(choice),
            );
        }
    }
    if model.reasoning {
        match reasoning_effort(model, options.reasoning) {
            Some(effort) => {
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort, "summary": "auto"}),
                );
                // Without the encrypted item the reasoning cannot be replayed with `store: false`.
                body.insert("include".into(), json!(["reasoning.encrypted_content"]));
            }
            None if wants_juice_zero(model) => input.push(json!({
                "role": "developer",
                "content": [{"type": "input_text", "text": JUICE_ZERO}],
            })),
            None => {}
        }
    }
    body.insert("input".into(), Value::Array(input));
    Value::Object(body)
}

/// The HTTP request: `<baseUrl>/responses`, bearer auth, the model's headers and then the
/// call's (later ones win).
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
        url: format!("{}/responses", model.base_url.trim_end_matches('/')),
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

    fn model(id: &str, reasoning: bool, base_url: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "openai-responses", "provider": "openai", "reasoning": reasoning,
            "baseUrl": base_url, "contextWindow": 400000, "maxTokens": 128000
        }))
        .unwrap()
    }

    fn context() -> Context {
        Context {
            system_prompt: Some("sys".into()),
            messages: vec![Message::User(UserMessage::text("hi", 1))],
            tools: vec![ToolDefinition {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
        }
    }

    #[test]
    fn body_with_reasoning_cache_and_tools() {
        let model = model("gpt-5", true, "https://api.openai.com/v1/");
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Xhigh),
            temperature: Some(0.2),
            session_id: Some("sess".into()),
            cache_retention: Some(CacheRetention::Long),
            ..StreamOptions::default()
        };
        let body = build_body(&model, &context(), &options);
        assert_eq!(
            body,
            json!({
                "model": "gpt-5",
                "input": [
                    {"role": "developer", "content": "sys"},
                    {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
                ],
                "stream": true, "store": false, "prompt_cache_key": "sess",
                "prompt_cache_retention": "24h", "max_output_tokens": 32000, "temperature": 0.2,
                "tools": [{"type": "function", "name": "ls", "description": "list",
                           "parameters": {"type": "object"}, "strict": false}],
                "reasoning": {"effort": "high", "summary": "auto"},
                "include": ["reasoning.encrypted_content"]
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
        assert_eq!(request.url, "https://api.openai.com/v1/responses");
        assert!(
            request
                .headers
                .contains(&("authorization".into(), "Bearer sk".into()))
        );
    }

    #[test]
    fn no_reasoning_on_gpt5_appends_juice_and_retention_rules() {
        let gpt5 = model("gpt-5-mini", true, "http://localhost:1234/v1");
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Off),
            session_id: Some("sess".into()),
            cache_retention: Some(CacheRetention::Long),
            max_tokens: Some(50),
            ..StreamOptions::default()
        };
        let body = build_body(&gpt5, &Context::default(), &options);
        assert_eq!(
            body,
            json!({
                "model": "gpt-5-mini",
                "input": [{"role": "developer", "content": [{"type": "input_text", "text": JUICE_ZERO}]}],
                "stream": true, "store": false, "prompt_cache_key": "sess", "max_output_tokens": 50
            })
        );
        let none = StreamOptions {
            session_id: Some("sess".into()),
            cache_retention: Some(CacheRetention::Disabled),
            ..StreamOptions::default()
        };
        let body = build_body(&model("o4-mini", true, ""), &Context::default(), &none);
        assert_eq!(body.get("prompt_cache_key"), None);
        assert_eq!(body["input"], json!([]));
    }
}
