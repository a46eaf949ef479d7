//! `openai-completions` over real HTTP against the scripted server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall};
use clawloop_core::{LlmStream, StopReason, StreamOptions, ThinkLevel};
use clawloop_providers::OpenAiCompletions;
use clawloop_testkit::{Chunking, ScriptedResponse};
use common::*;
use pretty_assertions::assert_eq;
use serde_json::json;

fn text_body() -> String {
    [
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": "Hello"}), None),
        chunk(json!({"content": ", wörld 🦞"}), None),
        chunk(json!({}), Some("stop")),
        usage_chunk(100, 60, 12),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
}

#[tokio::test]
async fn text_with_cached_usage_and_the_request_sent() {
    let c = call_with(
        ScriptedResponse::sse(text_body()),
        json!({"reasoning": true, "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.5}}),
        StreamOptions {
            api_key: Some("sk-test".into()),
            reasoning: Some(ThinkLevel::Medium),
            ..StreamOptions::default()
        },
        None,
    )
    .await;
    assert_contract(&c.events);
    assert_eq!(
        c.types(),
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Hello, wörld 🦞")]);
    assert_eq!(m.stop_reason, StopReason::Stop);
    // input excludes cached tokens; output is completion_tokens without adding reasoning.
    assert_eq!(
        (
            m.usage.input,
            m.usage.cache_read,
            m.usage.output,
            m.usage.total_tokens
        ),
        (40, 60, 12, 112)
    );
    assert!((m.usage.cost.total - (40.0 + 30.0 + 24.0) / 1e6).abs() < 1e-12);
    let requests = c.server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test"));
    let body = requests[0].json().unwrap();
    assert_eq!(
        body["messages"][0],
        json!({"role": "developer", "content": "You are terse."})
    );
    assert_eq!(body["reasoning_effort"], "medium");
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn every_split_gives_the_same_message() {
    assert_every_split_agrees(ScriptedResponse::sse(text_body()), call).await;
}

#[tokio::test]
async fn reasoning_then_text() {
    let body = [
        chunk(json!({"role": "assistant", "reasoning": "Think"}), None),
        chunk(json!({"reasoning": "ing."}), None),
        chunk(json!({"content": "Done."}), None),
        chunk(json!({}), Some("length")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Thinking.".into(),
                thinking_signature: Some("reasoning".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Done."),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::Length);
    assert_eq!(
        c.types(),
        [
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "done"
        ]
    );
}

#[tokio::test]
async fn parallel_tool_calls_by_index_and_stop_becomes_tool_use() {
    let call_delta = |index: u64, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut function = json!({"arguments": args});
        if let Some(name) = name {
            function["name"] = json!(name);
        }
        let mut tc = json!({"index": index, "function": function});
        if let Some(id) = id {
            tc["id"] = json!(id);
            tc["type"] = json!("function");
        }
        chunk(json!({"tool_calls": [tc]}), None)
    };
    let body = [
        chunk(json!({"role": "assistant", "content": "Checking."}), None),
        call_delta(0, Some("call_a"), Some("read"), ""),
        call_delta(0, None, None, "{\"path\": \"src/"),
        call_delta(0, None, None, "main.rs\"}"),
        call_delta(1, Some("call_b"), Some("ls"), "{\"dir\""),
        call_delta(1, None, None, ": \".\"}"),
        // The SPEC §4 fix: `stop` with tool calls ends as toolUse.
        chunk(json!({}), Some("stop")),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body).chunked(Chunking::Fixed(7))).await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::text("Checking."),
            ContentBlock::ToolCall(ToolCall::new(
                "call_a",
                "read",
                json!({"path": "src/main.rs"})
            )),
            ContentBlock::ToolCall(ToolCall::new("call_b", "ls", json!({"dir": "."}))),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    let types = c.types();
    assert_eq!(types.iter().filter(|t| **t == "toolcall_start").count(), 2);
    assert_eq!(types.iter().filter(|t| **t == "toolcall_end").count(), 2);
    assert_eq!(types.iter().filter(|t| **t == "toolcall_delta").count(), 4);
}

#[tokio::test]
async fn rate_limit_with_retry_after() {
    let c = call(
        ScriptedResponse::status(
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "7")
        .header("x-request-id", "req_429"),
    )
    .await;
    assert_rate_limited(
        &c,
        "429 Rate limit reached for gpt-4o-mini",
        7000,
        Some("req_429"),
    );
}

#[tokio::test]
async fn context_overflow_400() {
    let c = call(
        ScriptedResponse::status(
            400,
            r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","code":"context_length_exceeded"}}"#,
        )
        .header("retry-after-ms", "1500"),
    )
    .await;
    assert!(c.is_context_overflow());
    assert_eq!(c.diagnostics.retry_after_ms(), Some(1500));
}

#[tokio::test]
async fn html_502_page() {
    let c = call(
        ScriptedResponse::status(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>",
        )
        .header("content-type", "text/html"),
    )
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("502 Bad Gateway (HTML error page)")
    );
}

#[tokio::test]
async fn in_stream_error_keeps_partial_text() {
    let body = [
        chunk(json!({"content": "Partial"}), None),
        "data: {\"error\":{\"message\":\"Upstream overloaded\",\"code\":502}}\n\n".to_owned(),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Partial")]);
    assert_eq!(m.error_message.as_deref(), Some("Upstream overloaded"));
    // An SSE `event: error` is an error too.
    let c = call(ScriptedResponse::sse(
        "event: error\ndata: {\"message\":\"boom\"}\n\n",
    ))
    .await;
    assert_eq!(c.message().error_message.as_deref(), Some("boom"));
}

#[tokio::test]
async fn garbage_bodies_are_clear_errors() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            b"data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"choi".to_vec(),
            "Invalid JSON in stream",
        ),
        (b"data: \xff\xfe\n\n".to_vec(), "not valid UTF-8"),
        (b"data: not json\n\n".to_vec(), "Invalid JSON in stream"),
        (b"".to_vec(), "stream ended before completion"),
    ];
    for (body, expected) in cases {
        let c = call(ScriptedResponse::sse(body)).await;
        assert_contract(&c.events);
        let message = c.message().error_message.clone().unwrap_or_default();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
    let c =
        call(ScriptedResponse::sse("<html>hi</html>").header("content-type", "text/html")).await;
    assert!(
        c.message()
            .error_message
            .as_deref()
            .unwrap()
            .contains("HTML")
    );
}

#[tokio::test]
async fn oversized_event_is_an_error() {
    let server = clawloop_testkit::ScriptedServer::start(vec![
        ScriptedResponse::sse(format!("data: {}\n\n", "x".repeat(10_000)))
            .chunked(Chunking::Fixed(512)),
    ])
    .await
    .unwrap();
    let transport = clawloop_providers::HttpTransport::new(clawloop_providers::TransportConfig {
        max_event_bytes: 4096,
        ..Default::default()
    })
    .unwrap();
    let model = model(&server.url(), json!({}));
    let events = collect(clawloop_core::LlmStream::stream(
        &OpenAiCompletions::new(transport),
        &model,
        &context(),
        StreamOptions::default(),
    ))
    .await;
    let m = events.last().and_then(|e| e.final_message()).unwrap();
    assert_eq!(
        m.error_message.as_deref(),
        Some("stream event exceeds the 4096-byte limit")
    );
}

#[tokio::test]
async fn drop_mid_stream_is_an_error_with_partial_text() {
    let c = call(
        ScriptedResponse::sse(text_body())
            .chunked(Chunking::At(vec![200, 400]))
            .drop_after(2),
    )
    .await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert!(m.text().starts_with("Hello"), "{m:?}");
    assert!(m.error_message.is_some());
}

#[tokio::test]
async fn stall_hits_the_idle_timeout() {
    let c = call_with(
        ScriptedResponse::sse(text_body())
            .chunked(Chunking::At(vec![200]))
            .stall(1, Duration::from_secs(30)),
        json!({}),
        StreamOptions::default(),
        Some(STALL_IDLE),
    )
    .await;
    assert_idle_timeout(&c);
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_partial_text_and_closes_the_connection() {
    let body = [
        chunk(json!({"content": "Hello"}), None),
        chunk(json!({"content": " there"}), None),
        "data: [DONE]\n\n".to_owned(),
    ]
    .concat()
        + &": keepalive\n\n".repeat(50);
    let first = chunk(json!({"content": "Hello"}), None).len();
    let cuts = trickle_cuts(first, 20, body.len());
    let response = ScriptedResponse::sse(body).chunked(Chunking::At(cuts));
    let (events, server) = cancel_at_first_delta(response, |url, options| {
        OpenAiCompletions::new(transport()).stream(&model(url, json!({})), &context(), options)
    })
    .await;
    assert_aborted_and_disconnected(&events, "Hello", &server).await;
}

#[tokio::test]
async fn already_cancelled_makes_no_request() {
    let c = call_with(
        ScriptedResponse::sse(text_body()),
        json!({}),
        cancelled(),
        None,
    )
    .await;
    assert_no_request_when_cancelled(&c);
}

#[tokio::test]
async fn connection_refused_is_an_error_event() {
    let events = collect(OpenAiCompletions::new(transport()).stream(
        &model(&refused_url(), json!({})),
        &context(),
        StreamOptions::default(),
    ))
    .await;
    assert_connection_refused(&events);
}
