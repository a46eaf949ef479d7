//! The `streamGenerateContent` request: pi's `buildParams` (pi-mono §1.8) as the REST body the
//! `@google/genai` SDK sends for it.

use clawloop_core::{Context, Model, StreamOptions};
use serde_json::{Map, Value, json};

use super::messages::convert_messages;
use super::thinking::thinking_config;
use crate::transport::HttpRequest;

/// The request body for one streaming call:
/// `{contents, systemInstruction?, tools?, generationConfig}`.
///
/// `generationConfig` always has `maxOutputTokens` (pi's simple options always set a limit),
/// plus `temperature` when given and `thinkingConfig` for reasoning. The system prompt goes in
/// `systemInstruction` as the SDK writes a plain string (a `user` content with one text part);
/// tools as one `functionDeclarations` list with full JSON Schema (`parametersJsonSchema`).
pub fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(convert_messages(model, context)),
    );
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"role": "user", "parts": [{"text": system}]}),
        );
    }
    if !context.tools.is_empty() {
        let declarations: Vec<Value> = context
            .tools
            .iter()
            .map(|tool| {
                json!({
                    "name": tool.name,
                    "description": tool.description,
                    "parametersJsonSchema": tool.parameters,
                })
            })
            .collect();
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
        if let Some(choice) = &options.tool_choice {
            body.insert("toolConfig".into(), crate::tool_choice::gemini(choice));
        }
    }
    let mut generation = Map::new();
    if let Some(t) = options.temperature {
        generation.insert("temperature".into(), Value::from(t));
    }
    generation.insert(
        "maxOutputTokens".into(),
        Value::from(options.base_max_tokens(model)),
    );
    if let Some(thinking) = thinking_config(model, options) {
        generation.insert("thinkingConfig".into(), thinking);
    }
    body.insert("generationConfig".into(), Value::Object(generation));
    Value::Object(body)
}

/// The URL of the streaming call: `<baseUrl>/models/<id>:streamGenerateContent?alt=sse`. The
/// base URL already holds the API version (`…/v1beta`); an id that is already a resource name
/// (`models/…`, `tunedModels/…`) is used as is.
pub fn stream_url(model: &Model) -> String {
    let base = model.base_url.trim_end_matches('/');
    let id = model.id.trim_start_matches('/');
    if id.starts_with("models/") || id.starts_with("tunedModels/") {
        format!("{base}/{id}:streamGenerateContent?alt=sse")
    } else {
        format!("{base}/models/{id}:streamGenerateContent?alt=sse")
    }
}

/// The HTTP request: the key in `x-goog-api-key` (as the SDK sends it, so it never lands in
/// URLs or logs of the query string), then the model's headers and the call's (later ones win).
pub fn build_request(model: &Model, options: &StreamOptions, body: &Value) -> HttpRequest {
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = options.api_key.as_deref().filter(|k| !k.is_empty()) {
        headers.push(("x-goog-api-key".to_owned(), key.to_owned()));
    }
    headers.extend(model.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    HttpRequest {
        url: stream_url(model),
        headers,
        // Serializing a `Value` cannot fail (all keys are strings).
        body: serde_json::to_vec(body).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::{Message, ThinkLevel, ToolDefinition, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(id: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "google-generative-ai", "provider": "google", "reasoning": true,
            "baseUrl": "https://generativelanguage.googleapis.com/v1beta/",
            "contextWindow": 1_048_576, "maxTokens": 65536
        }))
        .unwrap()
    }

    #[test]
    fn body_and_request_follow_pi() {
        let model = model("gemini-2.5-pro");
        let context = Context {
            system_prompt: Some("be brief".into()),
            messages: vec![Message::User(UserMessage::text("hi", 1))],
            tools: vec![ToolDefinition {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object", "properties": {"dir": {"type": "string"}}}),
            }],
        };
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Medium),
            temperature: Some(0.5),
            api_key: Some("AIza-test".into()),
            ..StreamOptions::default()
        };
        let body = build_body(&model, &context, &options);
        assert_eq!(
            body,
            json!({
                "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
                "systemInstruction": {"role": "user", "parts": [{"text": "be brief"}]},
                "tools": [{"functionDeclarations": [{"name": "ls", "description": "list",
                    "parametersJsonSchema": {"type": "object", "properties": {"dir": {"type": "string"}}}}]}],
                "generationConfig": {"temperature": 0.5, "maxOutputTokens": 32000,
                    "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 8192}}
            })
        );
        let request = build_request(&model, &options, &body);
        assert_eq!(
            request.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            request.headers,
            vec![
                ("content-type".to_owned(), "application/json".to_owned()),
                ("x-goog-api-key".to_owned(), "AIza-test".to_owned()),
            ]
        );
    }

    #[test]
    fn minimal_body_and_resource_names() {
        let body = build_body(
            &model("gemini-2.0-flash"),
            &Context::default(),
            &StreamOptions {
                max_tokens: Some(77),
                ..StreamOptions::default()
            },
        );
        assert_eq!(
            body,
            json!({"contents": [], "generationConfig": {"maxOutputTokens": 77}})
        );
        assert_eq!(
            stream_url(&model("tunedModels/mine")),
            "https://generativelanguage.googleapis.com/v1beta/tunedModels/mine:streamGenerateContent?alt=sse"
        );
    }
}
