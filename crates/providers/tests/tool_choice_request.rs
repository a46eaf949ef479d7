//! `StreamOptions::tool_choice` in each API's request body, over real HTTP against the
//! scripted server: every API spells it its own way, and none sends it without tools.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use clawloop_core::{Context, LlmStream, StreamOptions, ToolChoice, ToolDefinition};
use clawloop_providers::{
    AnthropicMessages, GoogleGenerativeAi, OpenAiCompletions, OpenAiResponses,
};
use clawloop_testkit::{ScriptedResponse, ScriptedServer};
use common::{collect, context, model_from, transport};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// The four APIs that take a tool choice, with the base-URL suffix each expects.
const APIS: [(&str, &str); 4] = [
    ("openai-completions", "/v1"),
    ("openai-responses", "/v1"),
    ("anthropic-messages", ""),
    ("google-generative-ai", "/v1beta"),
];

/// The JSON body `api` sends for one call with `choice`, offering the `read` tool or none.
async fn body(api: &str, choice: Option<ToolChoice>, with_tools: bool) -> Value {
    // The answer does not matter; a 400 is not retried, so there is exactly one request.
    let server = ScriptedServer::start(vec![ScriptedResponse::status(400, "{}")])
        .await
        .unwrap();
    let suffix = APIS.iter().find(|(a, _)| *a == api).unwrap().1;
    let model = model_from(
        json!({
            "id": "m", "api": api, "provider": "p", "baseUrl": format!("{}{suffix}", server.url()),
            "contextWindow": 8192, "maxTokens": 1024
        }),
        &json!({}),
    );
    let mut context: Context = context();
    if with_tools {
        context.tools = vec![ToolDefinition {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }];
    }
    let options = StreamOptions {
        api_key: Some("key-test".into()),
        tool_choice: choice,
        ..StreamOptions::default()
    };
    let stream = match api {
        "openai-completions" => {
            OpenAiCompletions::new(transport()).stream(&model, &context, options)
        }
        "openai-responses" => OpenAiResponses::new(transport()).stream(&model, &context, options),
        "anthropic-messages" => {
            AnthropicMessages::new(transport()).stream(&model, &context, options)
        }
        _ => GoogleGenerativeAi::new(transport()).stream(&model, &context, options),
    };
    collect(stream).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "{api}");
    requests[0].json().unwrap()
}

/// The tool-choice field of a body: `tool_choice`, or Gemini's `toolConfig`.
fn field(api: &str, body: &Value) -> Value {
    let key = if api == "google-generative-ai" {
        "toolConfig"
    } else {
        "tool_choice"
    };
    body.get(key).cloned().unwrap_or(Value::Null)
}

#[tokio::test]
async fn each_api_spells_each_choice() {
    let read = ToolChoice::Tool("read".into());
    let expected: [(&str, [Value; 4]); 4] = [
        (
            "openai-completions",
            [
                json!("auto"),
                json!("none"),
                json!("required"),
                json!({"type": "function", "function": {"name": "read"}}),
            ],
        ),
        (
            "openai-responses",
            [
                json!("auto"),
                json!("none"),
                json!("required"),
                json!({"type": "function", "name": "read"}),
            ],
        ),
        (
            "anthropic-messages",
            [
                json!({"type": "auto"}),
                json!({"type": "none"}),
                json!({"type": "any"}),
                json!({"type": "tool", "name": "read"}),
            ],
        ),
        (
            "google-generative-ai",
            [
                json!({"functionCallingConfig": {"mode": "AUTO"}}),
                json!({"functionCallingConfig": {"mode": "NONE"}}),
                json!({"functionCallingConfig": {"mode": "ANY"}}),
                json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read"]}}),
            ],
        ),
    ];
    for (api, wants) in expected {
        let choices = [
            ToolChoice::Auto,
            ToolChoice::None,
            ToolChoice::Required,
            read.clone(),
        ];
        let mut got = Vec::new();
        for choice in choices {
            got.push(field(api, &body(api, Some(choice), true).await));
        }
        assert_eq!(got, wants.to_vec(), "{api}");
    }
}

#[tokio::test]
async fn no_choice_or_no_tools_sends_no_field() {
    for (api, _) in APIS {
        assert_eq!(
            field(api, &body(api, None, true).await),
            Value::Null,
            "{api}"
        );
        assert_eq!(
            field(api, &body(api, Some(ToolChoice::Required), false).await),
            Value::Null,
            "{api} without tools"
        );
    }
}

#[tokio::test]
async fn anthropic_oauth_names_the_tool_in_claude_code_casing() {
    let server = ScriptedServer::start(vec![ScriptedResponse::status(400, "{}")])
        .await
        .unwrap();
    let model = model_from(
        json!({"id": "claude-sonnet-4-5", "api": "anthropic-messages", "provider": "anthropic",
               "baseUrl": server.url(), "contextWindow": 200000, "maxTokens": 64000}),
        &json!({}),
    );
    let mut context = context();
    context.tools = vec![ToolDefinition {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object"}),
    }];
    let options = StreamOptions {
        api_key: Some("sk-ant-oat01-test".into()),
        tool_choice: Some(ToolChoice::Tool("read".into())),
        ..StreamOptions::default()
    };
    collect(AnthropicMessages::new(transport()).stream(&model, &context, options)).await;
    let body = server.requests()[0].json().unwrap();
    assert_eq!(body["tools"][0]["name"], "Read");
    assert_eq!(body["tool_choice"], json!({"type": "tool", "name": "Read"}));
}
