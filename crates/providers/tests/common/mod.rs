//! Helpers shared by the integration tests.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use clawloop_core::{
    AssistantMessage, AssistantMessageEvent, Context, Model, StreamOptions, UserMessage,
};
use clawloop_providers::scripted_server::{Chunking, ScriptedResponse, ScriptedServer};
use clawloop_providers::{CallDiagnostics, HttpTransport, OpenAiCompletions, TransportConfig};
use futures_core::Stream;
use serde_json::{Value, json};
use std::pin::Pin;

/// The three ways FORMAT.md's `wire` kind serves a body (the crate's shared helper).
pub fn splits(len: usize, seed: u64) -> Vec<(&'static str, Chunking)> {
    clawloop_providers::scripted_server::wire_splits(len, seed)
}

pub fn model(base_url: &str, extra: Value) -> Model {
    let mut json = json!({
        "id": "gpt-4o-mini", "api": "openai-completions", "provider": "openai",
        "baseUrl": base_url, "contextWindow": 128000, "maxTokens": 16384
    });
    if let (Some(obj), Value::Object(extra)) = (json.as_object_mut(), extra) {
        obj.extend(extra);
    }
    serde_json::from_value(json).unwrap()
}

pub fn context() -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![clawloop_core::Message::User(UserMessage::text("hi", 1))],
        tools: Vec::new(),
    }
}

pub fn transport(idle: Option<Duration>) -> HttpTransport {
    HttpTransport::new(TransportConfig {
        idle_timeout: idle,
        ..TransportConfig::default()
    })
    .unwrap()
}

pub async fn collect(
    stream: Pin<Box<dyn Stream<Item = AssistantMessageEvent> + Send>>,
) -> Vec<AssistantMessageEvent> {
    clawloop_providers::scripted_server::collect_events(stream).await
}

/// One call against a fresh server playing `response`.
pub struct Call {
    pub events: Vec<AssistantMessageEvent>,
    pub diagnostics: CallDiagnostics,
    pub server: ScriptedServer,
}

impl Call {
    pub fn message(&self) -> &AssistantMessage {
        self.events
            .last()
            .and_then(AssistantMessageEvent::final_message)
            .expect("terminal event")
    }

    pub fn types(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect()
    }
}

pub async fn call_with(
    response: ScriptedResponse,
    model_extra: Value,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    let server = ScriptedServer::start(vec![response]).await.unwrap();
    let model = model(&format!("{}/v1", server.url()), model_extra);
    let provider = OpenAiCompletions::new(transport(idle));
    let (stream, diagnostics) = provider.stream_with_diagnostics(&model, &context(), options);
    let events = collect(stream).await;
    Call {
        events,
        diagnostics,
        server,
    }
}

pub async fn call(response: ScriptedResponse) -> Call {
    call_with(response, json!({}), StreamOptions::default(), None).await
}

/// The contract every stream keeps: exactly one terminal event, last.
pub fn assert_contract(events: &[AssistantMessageEvent]) {
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1, "{events:#?}");
    assert!(events.last().unwrap().is_terminal());
}

/// A Chat Completions chunk with `delta` (and optional finish reason).
pub fn chunk(delta: Value, finish: Option<&str>) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o-mini",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

pub fn usage_chunk(prompt: u64, cached: u64, completion: u64) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
               "total_tokens": prompt + completion, "prompt_tokens_details": {"cached_tokens": cached},
               "completion_tokens_details": {"reasoning_tokens": 5}}})
    )
}
