//! Helpers for the `openai-responses` integration tests: a model and a call against a fresh
//! scripted server, SSE event builders, and FORMAT.md's `wire` runner for this API.

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use clawloop_core::classify::{FailoverSignal, failover_reason_from_signal, is_context_overflow};
use clawloop_core::message::ContentBlock;
use clawloop_core::{
    AssistantMessage, AssistantMessageEvent, Context, Model, StreamOptions, UserMessage,
};
use clawloop_providers::OpenAiResponses;
use clawloop_providers::scripted_server::{ScriptedResponse, ScriptedServer};
use serde_json::{Value, json};

use crate::common::{Call, collect, splits, transport};

/// The shared fixtures and scenarios.
pub fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// An `openai-responses` model at `base_url`, with `extra` fields merged in.
pub fn model(base_url: &str, extra: Value) -> Model {
    let mut json = json!({
        "id": "gpt-5", "api": "openai-responses", "provider": "openai",
        "baseUrl": base_url, "contextWindow": 400000, "maxTokens": 128000
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

/// One call with `context` against a fresh server playing `response`.
pub async fn call_full(
    response: ScriptedResponse,
    model_extra: Value,
    context: &Context,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    let server = ScriptedServer::start(vec![response]).await.unwrap();
    let model = model(&format!("{}/v1", server.url()), model_extra);
    let provider = OpenAiResponses::new(transport(idle));
    let (stream, diagnostics) = provider.stream_with_diagnostics(&model, context, options);
    let events = collect(stream).await;
    Call {
        events,
        diagnostics,
        server,
    }
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

// --- FORMAT.md `wire` runner -----------------------------------------------------------------

/// Runs one `wire` case for `openai-responses`; returns the first difference.
pub async fn run_case(dir: &Path, case: &Value) -> Result<(), String> {
    let input = &case["input"];
    let body: Vec<u8> = match (&input["body"], &input["bodyFile"]) {
        (Value::String(s), _) => s.clone().into_bytes(),
        (_, Value::String(file)) => {
            std::fs::read(dir.join(file)).map_err(|e| format!("{file}: {e}"))?
        }
        _ => Vec::new(),
    };
    let status = input["status"].as_u64().unwrap_or(200) as u16;
    let headers: Vec<(String, String)> = input["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let model_extra = input.get("model").cloned().unwrap_or_else(|| json!({}));
    let mut first: Option<AssistantMessage> = None;
    for (label, chunking) in splits(body.len(), 0x5eed) {
        let mut response = ScriptedResponse::status(status, body.clone()).chunked(chunking);
        response.headers = headers.clone();
        let server = ScriptedServer::start(vec![response]).await.unwrap();
        let model = model(&server.url(), model_extra.clone());
        let (stream, diagnostics) = OpenAiResponses::new(transport(None)).stream_with_diagnostics(
            &model,
            &context(),
            StreamOptions::default(),
        );
        let events = collect(stream).await;
        let fail = |what: String| Err(format!("{label}: {what}"));
        if server.requests().len() != 1 {
            return fail(format!("{} requests", server.requests().len()));
        }
        if events.iter().filter(|e| e.is_terminal()).count() != 1
            || !events
                .last()
                .is_some_and(AssistantMessageEvent::is_terminal)
        {
            return fail("not exactly one terminal event, last".into());
        }
        let message = events
            .last()
            .and_then(AssistantMessageEvent::final_message)
            .unwrap()
            .clone();
        let expect = &case["expect"];
        if let Some(expected) = expect.get("message") {
            check_message(&message, expected).or_else(fail)?;
        }
        if let Some(expected) = expect["events"].as_array() {
            let types: Vec<&str> = events
                .iter()
                .map(AssistantMessageEvent::type_name)
                .collect();
            let mut it = types.iter();
            for e in expected {
                let e = e.as_str().unwrap_or_default();
                if !it.any(|t| *t == e) {
                    return fail(format!("events {types:?} lack subsequence {expected:?}"));
                }
            }
        }
        if let Some(error) = expect.get("error") {
            let text = message.error_message.clone().unwrap_or_default();
            let reason = failover_reason_from_signal(&FailoverSignal {
                status: diagnostics.http_status(),
                message: &text,
                ..FailoverSignal::default()
            });
            let reason = reason.map(|r| json!(r.as_str())).unwrap_or(Value::Null);
            if error.get("reason").is_some_and(|r| *r != reason) {
                return fail(format!("reason {reason} != {}", error["reason"]));
            }
            let overflow = is_context_overflow(
                message.stop_reason,
                message.error_message.as_deref(),
                &message.usage,
                None,
            );
            if error
                .get("contextOverflow")
                .is_some_and(|o| *o != json!(overflow))
            {
                return fail(format!("contextOverflow {overflow}"));
            }
            if let Some(ms) = error.get("retryAfterMs")
                && *ms != json!(diagnostics.retry_after_ms())
            {
                return fail(format!("retryAfterMs {:?}", diagnostics.retry_after_ms()));
            }
        }
        let mut normalized = message.clone();
        normalized.timestamp = 0;
        match &first {
            None => first = Some(normalized),
            Some(m) if *m != normalized => return fail("differs from the whole-body run".into()),
            Some(_) => {}
        }
    }
    Ok(())
}

fn check_message(m: &AssistantMessage, expected: &Value) -> Result<(), String> {
    if let Some(reason) = expected.get("stopReason")
        && *reason != json!(m.stop_reason.as_str())
    {
        return Err(format!(
            "stopReason {} != {reason} ({:?})",
            m.stop_reason, m.error_message
        ));
    }
    if let Some(needle) = expected["errorMessageContains"].as_str() {
        let text = m.error_message.as_deref().unwrap_or_default();
        if !text.contains(needle) {
            return Err(format!("errorMessage {text:?} lacks {needle:?}"));
        }
    }
    if let Some(usage) = expected["usage"].as_object() {
        let actual = serde_json::to_value(&m.usage).unwrap();
        for (k, v) in usage {
            if actual[k] != *v {
                return Err(format!("usage.{k} {} != {v}", actual[k]));
            }
        }
    }
    if let Some(blocks) = expected["content"].as_array() {
        if blocks.len() != m.content.len() {
            return Err(format!("content {:?} != {blocks:?}", m.content));
        }
        for (block, want) in m.content.iter().zip(blocks) {
            check_block(block, want)?;
        }
    }
    Ok(())
}

fn check_block(block: &ContentBlock, want: &Value) -> Result<(), String> {
    let actual = serde_json::to_value(block).unwrap();
    for key in [
        "type",
        "text",
        "thinking",
        "id",
        "name",
        "arguments",
        "redacted",
    ] {
        if let Some(v) = want.get(key)
            && actual.get(key).unwrap_or(&Value::Null) != v
        {
            return Err(format!("block {actual} field {key} != {v}"));
        }
    }
    if let Some(has) = want["hasSignature"].as_bool() {
        let present = ["textSignature", "thinkingSignature", "thoughtSignature"]
            .iter()
            .any(|k| actual.get(*k).is_some_and(|v| !v.is_null()));
        if present != has {
            return Err(format!("block {actual} hasSignature != {has}"));
        }
    }
    Ok(())
}
