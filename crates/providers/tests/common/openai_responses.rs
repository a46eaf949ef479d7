//! Helpers for the `openai-responses` integration tests: a model and a call against a fresh
//! scripted server, and SSE event builders.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use clawloop_core::{Context, Model, StreamOptions};
use clawloop_providers::OpenAiResponses;
use clawloop_testkit::ScriptedResponse;
use serde_json::{Value, json};

use crate::common::{Call, call_server, context, model_from, start, transport};

/// An `openai-responses` model at `base_url`, with `extra` fields merged in.
pub fn model(base_url: &str, extra: Value) -> Model {
    model_from(
        json!({
            "id": "gpt-5", "api": "openai-responses", "provider": "openai",
            "baseUrl": base_url, "contextWindow": 400000, "maxTokens": 128000
        }),
        &extra,
    )
}

/// One call with `context` against a fresh server playing `response`.
pub async fn call_full(
    response: ScriptedResponse,
    model_extra: Value,
    context: &Context,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    call_server(response, |url| {
        start(
            OpenAiResponses::new(transport()),
            idle,
            &model(&format!("{url}/v1"), model_extra),
            context,
            options,
            OpenAiResponses::stream_with_diagnostics,
        )
    })
    .await
}

pub async fn call_with(
    response: ScriptedResponse,
    model_extra: Value,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    call_full(response, model_extra, &context(), options, idle).await
}

pub async fn call(response: ScriptedResponse) -> Call {
    call_with(response, json!({}), StreamOptions::default(), None).await
}

/// One SSE event as OpenAI sends it: `event:` line, `data:` line with `type` set.
pub fn ev(kind: &str, mut data: Value) -> String {
    data["type"] = json!(kind);
    format!("event: {kind}\ndata: {data}\n\n")
}

pub fn added(index: u64, item: Value) -> String {
    ev(
        "response.output_item.added",
        json!({"output_index": index, "item": item}),
    )
}

pub fn done(index: u64, item: Value) -> String {
    ev(
        "response.output_item.done",
        json!({"output_index": index, "item": item}),
    )
}

pub fn text_delta(item_id: &str, delta: &str) -> String {
    ev(
        "response.output_text.delta",
        json!({"item_id": item_id, "content_index": 0, "delta": delta}),
    )
}

pub fn message_item(id: &str, text: Option<&str>) -> Value {
    match text {
        Some(text) => {
            json!({"id": id, "type": "message", "status": "completed", "role": "assistant",
                             "content": [{"type": "output_text", "annotations": [], "text": text}]})
        }
        None => json!({"id": id, "type": "message", "status": "in_progress", "role": "assistant",
                       "content": []}),
    }
}

pub fn completed(status: &str, usage: Value) -> String {
    let kind = if status == "incomplete" {
        "response.incomplete"
    } else {
        "response.completed"
    };
    ev(
        kind,
        json!({"response": {"id": "resp_1", "object": "response", "status": status, "usage": usage}}),
    )
}

pub fn usage(input: u64, cached: u64, output: u64) -> Value {
    json!({"input_tokens": input, "input_tokens_details": {"cached_tokens": cached},
           "output_tokens": output, "output_tokens_details": {"reasoning_tokens": 3},
           "total_tokens": input + output})
}
