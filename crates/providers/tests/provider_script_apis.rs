//! One script, five wire formats: the endpoint-aware scripted server encodes the same reply for
//! whichever API's endpoint is called, and each real client decodes it back.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use clawloop_core::message::ContentBlock;
use clawloop_core::{Api, AssistantEventStream, Model, StopReason, StreamOptions};
use clawloop_providers::{
    AnthropicMessages, CallDiagnostics, GoogleGenerativeAi, Ollama, OpenAiCompletions,
    OpenAiResponses,
};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange, collect_events};
use common::{context, transport};
use serde_json::{Value, json};

/// Provider id, API, model id and the base-URL suffix each client expects under the root.
const APIS: [(&str, Api, &str, &str); 5] = [
    ("acme", Api::OpenaiCompletions, "m-chat", "/v1"),
    ("resp", Api::OpenaiResponses, "m-resp", "/v1"),
    ("bolt", Api::AnthropicMessages, "claude-x", ""),
    ("gem", Api::GoogleGenerativeAi, "gemini-x", "/v1beta"),
    ("ol", Api::Ollama, "qwen-x", ""),
];

fn stream(
    api: &Api,
    model: &Model,
    options: StreamOptions,
) -> (AssistantEventStream, CallDiagnostics) {
    let t = transport();
    let ctx = context();
    match api {
        Api::OpenaiCompletions => {
            OpenAiCompletions::new(t).stream_with_diagnostics(model, &ctx, options)
        }
        Api::OpenaiResponses => {
            OpenAiResponses::new(t).stream_with_diagnostics(model, &ctx, options)
        }
        Api::AnthropicMessages => {
            AnthropicMessages::new(t).stream_with_diagnostics(model, &ctx, options)
        }
        Api::GoogleGenerativeAi => {
            GoogleGenerativeAi::new(t).stream_with_diagnostics(model, &ctx, options)
        }
        Api::Ollama => Ollama::new(t).stream_with_diagnostics(model, &ctx, options),
        Api::Other(_) => unreachable!(),
    }
}

fn model(
    server: &ProviderScriptServer,
    provider: &str,
    api: &Api,
    id: &str,
    suffix: &str,
) -> Model {
    serde_json::from_value(json!({
        "id": id, "api": api.as_str(), "provider": provider,
        "baseUrl": format!("{}{suffix}", server.provider_url(provider)),
        "contextWindow": 128000, "maxTokens": 4096, "reasoning": true
    }))
    .unwrap()
}

fn exchange(json: Value) -> ScriptedExchange {
    serde_json::from_value(json).unwrap()
}

#[tokio::test]
async fn the_same_reply_round_trips_through_every_api() {
    let server = ProviderScriptServer::start().await.unwrap();
    let mut script = Vec::new();
    for (provider, api, id, _) in &APIS {
        script.push(exchange(json!({
            "expectRequest": {"provider": provider, "api": api.as_str(), "model": id,
                              "apiKey": format!("key-{provider}"), "roles": ["user"],
                              "messageCount": 1, "lastUserTextContains": "hi",
                              "systemContains": ["terse"]},
            "reply": {"thinking": "Let me think.", "textChunks": ["Hel", "lo"],
                      "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}],
                      "usage": {"input": 12, "output": 7}}
        })));
    }
    server.begin_turn(script);
    for (provider, api, id, suffix) in &APIS {
        let options = StreamOptions {
            api_key: Some(format!("key-{provider}")),
            ..StreamOptions::default()
        };
        let (events, _) = stream(api, &model(&server, provider, api, id, suffix), options);
        let events = collect_events(events).await;
        let message = events.last().unwrap().final_message().unwrap();
        assert_eq!(
            message.stop_reason,
            StopReason::ToolUse,
            "{api}: {message:?}"
        );
        assert_eq!(message.text(), "Hello", "{api}");
        let thinking = message.content.iter().find_map(|b| match b {
            ContentBlock::Thinking(t) => Some(t.thinking.as_str()),
            _ => None,
        });
        assert_eq!(thinking, Some("Let me think."), "{api}");
        let call = message.content.iter().find_map(|b| match b {
            ContentBlock::ToolCall(c) => Some((c.name.as_str(), c.arguments.clone())),
            _ => None,
        });
        assert_eq!(call, Some(("read", json!({"path": "a.txt"}))), "{api}");
        assert_eq!(
            (message.usage.input, message.usage.output),
            (12, 7),
            "{api}"
        );
    }
    let report = server.end_turn();
    assert!(report.is_clean(), "{:#?}", report.problems());
    let taken: Vec<_> = report.requests.iter().map(|r| r.response).collect();
    assert_eq!(taken, vec![Some(0), Some(1), Some(2), Some(3), Some(4)]);
}

#[tokio::test]
async fn stream_errors_and_error_statuses_in_every_api() {
    let server = ProviderScriptServer::start().await.unwrap();
    let mut script = Vec::new();
    for _ in &APIS {
        script.push(exchange(
            json!({"reply": {"text": "partial", "streamError": "Service overloaded now"}}),
        ));
        script.push(exchange(json!({"reply": {"status": 503,
            "body": {"error": {"message": "upstream busy", "type": "overloaded_error"}}}})));
    }
    server.begin_turn(script);
    for (provider, api, id, suffix) in &APIS {
        for expected in ["Service overloaded now", "upstream busy"] {
            let model = model(&server, provider, api, id, suffix);
            let (events, diagnostics) = stream(api, &model, StreamOptions::default());
            let events = collect_events(events).await;
            let message = events.last().unwrap().final_message().unwrap();
            assert_eq!(message.stop_reason, StopReason::Error, "{api}");
            let error = message.error_message.as_deref().unwrap_or_default();
            assert!(error.contains(expected), "{api}: {error}");
            if expected == "upstream busy" {
                assert_eq!(diagnostics.http_status(), Some(503), "{api}");
            } else {
                assert_eq!(message.text(), "partial", "{api}");
            }
        }
    }
    assert!(server.end_turn().is_clean());
}

#[tokio::test]
async fn tool_call_arguments_past_the_bound_are_refused_by_every_api() {
    use clawloop_core::AssistantMessageEvent;
    let server = ProviderScriptServer::start().await.unwrap();
    let big = "x".repeat(clawloop_providers::MAX_TOOL_CALL_ARGUMENT_BYTES);
    let mut script = Vec::new();
    for (provider, api, id, _) in &APIS {
        script.push(exchange(json!({
            "expectRequest": {"provider": provider, "api": api.as_str(), "model": id},
            "reply": {"toolCalls": [
                {"id": "call_1", "name": "write", "arguments": {"content": big}},
                {"id": "call_2", "name": "read", "arguments": {"path": "a.txt"}}
            ]}
        })));
    }
    server.begin_turn(script);
    for (provider, api, id, suffix) in &APIS {
        let options = StreamOptions {
            api_key: Some(format!("key-{provider}")),
            ..StreamOptions::default()
        };
        let (events, _) = stream(api, &model(&server, provider, api, id, suffix), options);
        let events = collect_events(events).await;
        let forwarded: usize = events
            .iter()
            .map(|e| match e {
                AssistantMessageEvent::ToolcallDelta { delta, .. } => delta.len(),
                _ => 0,
            })
            .sum();
        assert!(
            forwarded < 1024,
            "{api}: {forwarded} argument bytes forwarded"
        );
        let message = events.last().unwrap().final_message().unwrap();
        let calls: Vec<_> = message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(calls.len(), 2, "{api}: {message:?}");
        let error = calls[0].arguments_error().unwrap_or_default();
        assert!(
            error.starts_with("tool call arguments exceed 4194304 bytes ("),
            "{api}: {error}"
        );
        assert_eq!(calls[0].arguments, json!({}), "{api}");
        assert_eq!(calls[1].arguments, json!({"path": "a.txt"}), "{api}");
        assert_eq!(calls[1].arguments_error(), None, "{api}");
    }
    assert!(server.end_turn().is_clean());
}
