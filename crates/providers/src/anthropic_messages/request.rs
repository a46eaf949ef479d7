//! The Messages request (pi's `buildParams`, pi-mono §1.7).

use clawloop_core::{Context, Model, StreamOptions};
use serde_json::{Map, Value, json};

use super::auth::{AuthKind, request_headers};
use super::cache::cache_control;
use super::claude_code::CLAUDE_CODE_IDENTITY;
use super::messages::convert_messages;
use super::thinking;
use super::tools::convert_tools;
use crate::transport::HttpRequest;

/// The request body for one streaming call, fields in pi's order.
pub fn build_body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let oauth = AuthKind::of(model, options.api_key.as_deref()) == AuthKind::OAuth;
    let cache = cache_control(&model.base_url, options.cache_retention);
    let plan = thinking::plan(model, options);
    let mut body = Map::new();
    body.insert("model".into(), Value::from(model.id.clone()));
    body.insert(
        "messages".into(),
        Value::Array(convert_messages(model, context, oauth, cache.as_ref())),
    );
    body.insert("max_tokens".into(), Value::from(plan.max_tokens));
    body.insert("stream".into(), Value::Bool(true));
    let system_block = |text: &str| {
        let mut block = json!({"type": "text", "text": text});
        if let Some(cache) = &cache {
            block["cache_control"] = cache.clone();
        }
        block
    };
    let prompt = context.system_prompt.as_deref().filter(|p| !p.is_empty());
    let mut system = Vec::new();
    if oauth {
        // An OAuth token is only honoured for requests that introduce themselves as Claude Code.
        system.push(system_block(CLAUDE_CODE_IDENTITY));
    }
    system.extend(prompt.map(system_block));
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    // Anthropic rejects a temperature together with extended thinking.
    if let Some(t) = options.temperature.filter(|_| !plan.is_enabled()) {
        body.insert("temperature".into(), Value::from(t));
    }
    if !context.tools.is_empty() {
        body.insert(
            "tools".into(),
            Value::Array(convert_tools(&context.tools, oauth)),
        );
        if let Some(choice) = &options.tool_choice {
            let wire_name = |name: &str| {
                if oauth {
                    super::claude_code::to_claude_code_name(name)
                } else {
                    name.to_owned()
                }
            };
            body.insert(
                "tool_choice".into(),
                crate::tool_choice::anthropic(choice, wire_name),
            );
        }
    }
    if let Some(thinking) = plan.thinking {
        body.insert("thinking".into(), thinking);
    }
    if let Some(output_config) = plan.output_config {
        body.insert("output_config".into(), output_config);
    }
    Value::Object(body)
}

/// The URL for `base_url`: the SDK appends `/v1/messages` (Anthropic's base URL has no
/// version; compatible providers put their prefix in the base URL, e.g. `…/anthropic`).
pub fn messages_url(base_url: &str) -> String {
    format!("{}/v1/messages", base_url.trim_end_matches('/'))
}

/// The HTTP request for `body`.
pub fn build_request(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    body: &Value,
) -> HttpRequest {
    let kind = AuthKind::of(model, options.api_key.as_deref());
    HttpRequest {
        url: messages_url(&model.base_url),
        headers: request_headers(model, &context.messages, options, kind),
        // Serializing a `Value` cannot fail (all keys are strings).
        body: serde_json::to_vec(body).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::model::CacheRetention;
    use clawloop_core::{Message, ThinkLevel, ToolDefinition, UserMessage};
    use pretty_assertions::assert_eq;

    fn model(id: &str) -> Model {
        serde_json::from_value(json!({
            "id": id, "api": "anthropic-messages", "provider": "anthropic", "reasoning": true,
            "baseUrl": "https://api.anthropic.com/", "contextWindow": 200000, "maxTokens": 64000
        }))
        .unwrap()
    }

    fn context() -> Context {
        Context {
            system_prompt: Some("be brief".into()),
            messages: vec![Message::User(UserMessage::text("hi", 1))],
            tools: vec![ToolDefinition {
                name: "read".into(),
                description: "Read".into(),
                parameters: json!({"type": "object", "properties": {}}),
            }],
        }
    }

    #[test]
    fn body_with_budget_thinking_drops_temperature() {
        let options = StreamOptions {
            reasoning: Some(ThinkLevel::Low),
            temperature: Some(0.2),
            cache_retention: Some(CacheRetention::Long),
            ..StreamOptions::default()
        };
        let body = build_body(&model("claude-sonnet-4-5"), &context(), &options);
        let one_hour = json!({"type": "ephemeral", "ttl": "1h"});
        assert_eq!(
            body,
            json!({
                "model": "claude-sonnet-4-5",
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "hi", "cache_control": one_hour}
                ]}],
                "max_tokens": 34048,
                "stream": true,
                "system": [{"type": "text", "text": "be brief", "cache_control": one_hour}],
                "tools": [{"name": "read", "description": "Read",
                           "input_schema": {"type": "object", "properties": {}, "required": []}}],
                "thinking": {"type": "enabled", "budget_tokens": 2048}
            })
        );
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "model",
                "messages",
                "max_tokens",
                "stream",
                "system",
                "tools",
                "thinking"
            ]
        );
    }

    #[test]
    fn oauth_body_and_adaptive_effort() {
        let options = StreamOptions {
            api_key: Some("sk-ant-oat01-x".into()),
            reasoning: Some(ThinkLevel::High),
            cache_retention: Some(CacheRetention::Disabled),
            temperature: Some(0.5),
            ..StreamOptions::default()
        };
        let body = build_body(&model("claude-opus-4-6"), &context(), &options);
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": CLAUDE_CODE_IDENTITY}, {"type": "text", "text": "be brief"}])
        );
        assert_eq!(body["tools"][0]["name"], "Read");
        assert_eq!(body["thinking"], json!({"type": "adaptive"}));
        assert_eq!(body["output_config"], json!({"effort": "high"}));
        assert_eq!(body.get("temperature"), None);
        assert_eq!(body["max_tokens"], 32000);
    }

    #[test]
    fn plain_request() {
        let options = StreamOptions {
            temperature: Some(0.5),
            max_tokens: Some(100),
            api_key: Some("sk-ant-api03-x".into()),
            ..StreamOptions::default()
        };
        let m = model("claude-3-5-haiku");
        let mut ctx = context();
        ctx.system_prompt = Some(String::new());
        ctx.tools.clear();
        let body = build_body(&m, &ctx, &options);
        assert_eq!(
            body,
            json!({
                "model": "claude-3-5-haiku",
                "messages": [{"role": "user", "content": [
                    {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
                ]}],
                "max_tokens": 100,
                "stream": true,
                "temperature": 0.5
            })
        );
        let request = build_request(&m, &ctx, &options, &body);
        assert_eq!(request.url, "https://api.anthropic.com/v1/messages");
        assert!(
            request
                .headers
                .contains(&("x-api-key".into(), "sk-ant-api03-x".into()))
        );
        assert_eq!(
            serde_json::from_slice::<Value>(&request.body).unwrap(),
            body
        );
    }
}
