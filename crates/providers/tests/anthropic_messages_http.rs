//! `anthropic-messages` over real HTTP against the scripted server: the request sent, every
//! content kind, usage, each error class, stalls, drops and aborts, the scripted encoder, and
//! every public `wire` scenario and real Anthropic recording (whole, one byte per read and at
//! seeded random splits, all agreeing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/wire_expect.rs"]
mod wire_expect;

use std::time::Duration;

use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall, ToolResultMessage};
use clawloop_core::{
    Api, AssistantMessage, AssistantMessageEvent, Context, FailoverReason, LlmStream, Message,
    Model, StopReason, StreamOptions, ThinkLevel, ToolDefinition, Usage, UserMessage,
};
use clawloop_providers::AnthropicMessages;
use clawloop_providers::anthropic_messages::{CLAUDE_CODE_IDENTITY, REDACTED_THINKING};
use clawloop_testkit::script::anthropic_messages::{self as script, SCRIPTED_SIGNATURE};
use clawloop_testkit::{Chunking, ScriptedReply, ScriptedResponse};
use common::{
    Call, STALL_IDLE, assert_aborted_and_disconnected, assert_connection_refused, assert_contract,
    assert_every_split_agrees, assert_idle_timeout, assert_no_request_when_cancelled,
    assert_rate_limited, call_server, cancel_at_first_delta, cancelled, collect, context,
    model_from, one_write_each, refused_url, start, transport, trickle_cuts, write_ends,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

// --- helpers ----------------------------------------------------------------------------------

fn model(base_url: &str, extra: Value) -> Model {
    model_from(
        json!({
            "id": "claude-sonnet-4-5", "api": "anthropic-messages", "provider": "anthropic",
            "baseUrl": base_url, "reasoning": true, "input": ["text", "image"],
            "contextWindow": 200000, "maxTokens": 64000
        }),
        &extra,
    )
}

fn keyed() -> StreamOptions {
    common::keyed("sk-ant-api03-test")
}

/// One SSE event.
fn ev(name: &str, data: Value) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

fn message_start(input: u64, cache_read: u64, cache_write: u64) -> String {
    ev(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "cache_read_input_tokens": cache_read,
                      "cache_creation_input_tokens": cache_write, "output_tokens": 1}}}),
    )
}

fn block_start(index: u64, block: Value) -> String {
    ev(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn block_delta(index: u64, delta: Value) -> String {
    ev(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn text_delta(index: u64, text: &str) -> String {
    block_delta(index, json!({"type": "text_delta", "text": text}))
}

fn json_delta(index: u64, fragment: &str) -> String {
    block_delta(
        index,
        json!({"type": "input_json_delta", "partial_json": fragment}),
    )
}

fn block_stop(index: u64) -> String {
    ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    )
}

fn message_end(stop_reason: &str, output: u64) -> String {
    ev(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason, "stop_sequence": null},
               "usage": {"output_tokens": output}}),
    ) + &ev("message_stop", json!({"type": "message_stop"}))
}

fn text_body() -> String {
    [
        message_start(100, 60, 40),
        block_start(0, json!({"type": "text", "text": ""})),
        ev("ping", json!({"type": "ping"})),
        text_delta(0, "Hello"),
        text_delta(0, ", wörld 🦞"),
        block_stop(0),
        message_end("end_turn", 12),
    ]
    .concat()
}

/// One call against a fresh server playing `response`.
async fn call_full(
    response: ScriptedResponse,
    model_extra: Value,
    context: &Context,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    call_server(response, |url| {
        start(
            AnthropicMessages::new(transport()),
            idle,
            &model(url, model_extra),
            context,
            options,
            AnthropicMessages::stream_with_diagnostics,
        )
    })
    .await
}

async fn call(response: ScriptedResponse) -> Call {
    call_full(response, json!({}), &context(), keyed(), None).await
}

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
    Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    }
}

// --- content ----------------------------------------------------------------------------------

#[tokio::test]
async fn text_with_cache_usage_and_the_request_sent() {
    let c = call_full(
        ScriptedResponse::sse(text_body()),
        json!({"cost": {"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}}),
        &context(),
        keyed(),
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
    assert_eq!(m.api, Api::AnthropicMessages);
    // Anthropic's input_tokens already excludes the cache; output comes from message_delta.
    let mut expected = usage(100, 12, 60, 40);
    expected.cost = m.usage.cost.clone();
    assert_eq!(m.usage, expected);
    let cost = (100.0 * 3.0 + 12.0 * 15.0 + 60.0 * 0.3 + 40.0 * 3.75) / 1e6;
    assert!((m.usage.cost.total - cost).abs() < 1e-12);

    let requests = c.server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-api03-test"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        request.header("anthropic-beta"),
        Some("fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14")
    );
    assert_eq!(
        c.body(),
        json!({
            "model": "claude-sonnet-4-5",
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}
            ]}],
            "max_tokens": 32000,
            "stream": true,
            "system": [{"type": "text", "text": "You are terse.", "cache_control": {"type": "ephemeral"}}]
        })
    );
    assert_eq!(script::wire_roles(&c.body()), ["user"]);
}

#[tokio::test]
async fn every_split_gives_the_same_message() {
    assert_every_split_agrees(ScriptedResponse::sse(text_body()), call).await;
}

#[tokio::test]
async fn thinking_with_signature_then_text_and_the_budget_sent() {
    let body = [
        message_start(20, 0, 0),
        block_start(
            0,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        ),
        block_delta(0, json!({"type": "thinking_delta", "thinking": "Think"})),
        block_delta(0, json!({"type": "thinking_delta", "thinking": "ing."})),
        block_delta(
            0,
            json!({"type": "signature_delta", "signature": "EqQBCkgIARAB"}),
        ),
        block_stop(0),
        block_start(
            1,
            json!({"type": "redacted_thinking", "data": "EmwKAhgBEgy"}),
        ),
        block_stop(1),
        block_start(2, json!({"type": "text", "text": ""})),
        text_delta(2, "Done."),
        block_stop(2),
        message_end("max_tokens", 30),
    ]
    .concat();
    let options = StreamOptions {
        reasoning: Some(ThinkLevel::Medium),
        temperature: Some(0.7),
        ..keyed()
    };
    let c = call_full(
        ScriptedResponse::sse(body),
        json!({}),
        &context(),
        options,
        None,
    )
    .await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Thinking.".into(),
                thinking_signature: Some("EqQBCkgIARAB".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::Thinking(ThinkingContent {
                thinking: REDACTED_THINKING.into(),
                thinking_signature: Some("EmwKAhgBEgy".into()),
                redacted: Some(true),
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
            "thinking_start",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let body = c.body();
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 8192})
    );
    assert_eq!(body["max_tokens"], 40192);
    assert_eq!(
        body.get("temperature"),
        None,
        "no temperature with thinking"
    );
}

#[tokio::test]
async fn single_tool_call_streamed_in_fragments() {
    let body = [
        message_start(50, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Checking."),
        block_stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "toolu_01", "name": "read", "input": {}}),
        ),
        json_delta(1, ""),
        json_delta(1, "{\"path\": \"sr"),
        json_delta(1, "c/main.rs\", \"lim"),
        json_delta(1, "it\": 20}"),
        block_stop(1),
        message_end("tool_use", 9),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body).chunked(Chunking::Fixed(7))).await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::text("Checking."),
            ContentBlock::ToolCall(ToolCall::new(
                "toolu_01",
                "read",
                json!({"path": "src/main.rs", "limit": 20})
            )),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    let deltas: Vec<&str> = c
        .events
        .iter()
        .filter_map(|e| match e {
            AssistantMessageEvent::ToolcallDelta { delta, .. } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas,
        ["{\"path\": \"sr", "c/main.rs\", \"lim", "it\": 20}"]
    );
}

#[tokio::test]
async fn parallel_tool_calls_and_end_turn_with_calls_is_tool_use() {
    let body = [
        message_start(50, 0, 0),
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_a", "name": "read", "input": {}}),
        ),
        json_delta(0, "{\"path\":"),
        json_delta(0, "\"a\"}"),
        block_stop(0),
        block_start(
            1,
            json!({"type": "tool_use", "id": "toolu_b", "name": "ls", "input": {}}),
        ),
        json_delta(1, "{\"dir\": \".\"}"),
        block_stop(1),
        // The SPEC §4 fix: a message with tool calls ends as toolUse whatever the server says.
        message_end("end_turn", 20),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body).chunked(Chunking::Fixed(5))).await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::ToolCall(ToolCall::new("toolu_a", "read", json!({"path": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("toolu_b", "ls", json!({"dir": "."}))),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    let types = c.types();
    assert_eq!(types.iter().filter(|t| **t == "toolcall_start").count(), 2);
    assert_eq!(types.iter().filter(|t| **t == "toolcall_end").count(), 2);
}

#[tokio::test]
async fn images_tool_results_and_replay_in_the_request() {
    let user = UserMessage {
        content: clawloop_core::message::UserContent::Blocks(vec![
            ContentBlock::text("What is this?"),
            ContentBlock::image("iVBORw0KGgo=", "image/png"),
        ]),
        ..UserMessage::text("", 1)
    };
    // An earlier turn from another provider: its thinking becomes text, its call id is made
    // Anthropic-safe and the result follows.
    let mut foreign = AssistantMessage::empty("openai-responses", "openai", "gpt-5", 2);
    foreign.content = vec![
        ContentBlock::Thinking(ThinkingContent {
            thinking: "look closer".into(),
            thinking_signature: Some("{\"type\":\"reasoning\"}".into()),
            ..ThinkingContent::default()
        }),
        ContentBlock::ToolCall(ToolCall::new("call_1|fc_2", "zoom", json!({"factor": 2}))),
    ];
    foreign.stop_reason = StopReason::ToolUse;
    let mut result = ToolResultMessage::text("call_1|fc_2", "zoom", "", false, 3);
    result.content = vec![ContentBlock::image("R0lGOD==", "image/gif")];
    let context = Context {
        system_prompt: None,
        messages: vec![
            Message::User(user),
            Message::Assistant(foreign),
            Message::ToolResult(result),
        ],
        tools: vec![ToolDefinition {
            name: "zoom".into(),
            description: "Zoom in".into(),
            parameters: json!({"type": "object", "properties": {"factor": {"type": "number"}},
                               "required": ["factor"], "additionalProperties": false}),
        }],
    };
    let c = call_full(
        ScriptedResponse::sse(text_body()),
        json!({}),
        &context,
        keyed(),
        None,
    )
    .await;
    let body = c.body();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
            ]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "look closer"},
                {"type": "tool_use", "id": "call_1_fc_2", "name": "zoom", "input": {"factor": 2}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_1_fc_2", "content": [
                    {"type": "text", "text": "(see attached image)"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD=="}}
                ], "is_error": false, "cache_control": {"type": "ephemeral"}}
            ]}
        ])
    );
    assert_eq!(
        body["tools"],
        json!([{"name": "zoom", "description": "Zoom in", "input_schema": {"type": "object",
            "properties": {"factor": {"type": "number"}}, "required": ["factor"]}}])
    );
    assert_eq!(body.get("system"), None);
    assert_eq!(script::wire_roles(&body), ["user", "assistant", "tool"]);
}

#[tokio::test]
async fn oauth_token_speaks_as_claude_code_and_maps_tool_names_back() {
    let body = [
        message_start(10, 0, 0),
        block_start(
            0,
            json!({"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}),
        ),
        json_delta(0, "{\"path\": \"a\"}"),
        block_stop(0),
        message_end("tool_use", 5),
    ]
    .concat();
    let mut ctx = context();
    ctx.tools = vec![ToolDefinition {
        name: "read".into(),
        description: "Read".into(),
        parameters: json!({"type": "object"}),
    }];
    let options = StreamOptions {
        api_key: Some("sk-ant-oat01-secret".into()),
        ..StreamOptions::default()
    };
    let c = call_full(ScriptedResponse::sse(body), json!({}), &ctx, options, None).await;
    let request = &c.server.requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some("Bearer sk-ant-oat01-secret")
    );
    assert_eq!(request.header("x-api-key"), None);
    assert_eq!(request.header("x-app"), Some("cli"));
    assert!(
        request
            .header("anthropic-beta")
            .unwrap()
            .starts_with("claude-code-20250219,oauth-2025-04-20,")
    );
    let sent = c.body();
    assert_eq!(sent["system"][0]["text"], CLAUDE_CODE_IDENTITY);
    assert_eq!(sent["tools"][0]["name"], "Read");
    assert_eq!(c.message().tool_calls().next().unwrap().name, "read");
}

#[tokio::test]
async fn a_non_streaming_json_answer_is_decoded() {
    let body = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "thinking", "thinking": "hm", "signature": "sig"},
                    {"type": "text", "text": "Hi!"},
                    {"type": "tool_use", "id": "toolu_9", "name": "ls", "input": {"dir": "/"}}],
        "stop_reason": "tool_use", "stop_sequence": null,
        "usage": {"input_tokens": 9, "output_tokens": 4, "cache_read_input_tokens": 2}});
    let c =
        call(ScriptedResponse::sse(body.to_string()).header("content-type", "application/json"))
            .await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(
        m.content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "hm".into(),
                thinking_signature: Some("sig".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Hi!"),
            ContentBlock::ToolCall(ToolCall::new("toolu_9", "ls", json!({"dir": "/"}))),
        ]
    );
    assert_eq!(
        (m.stop_reason, m.usage.total_tokens),
        (StopReason::ToolUse, 15)
    );
}

// --- errors -----------------------------------------------------------------------------------

#[tokio::test]
async fn rate_limit_429_with_retry_after() {
    let c = call(
        ScriptedResponse::status(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
        )
        .header("retry-after", "7")
        .header("request-id", "req_011CX"),
    )
    .await;
    // As the Anthropic SDK words it: status, then the body as compact JSON.
    assert_rate_limited(
        &c,
        r#"429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
        7000,
        Some("req_011CX"),
    );
}

#[tokio::test]
async fn unauthorized_401() {
    let c = call(ScriptedResponse::status(
        401,
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
    ))
    .await;
    assert_eq!(c.message().stop_reason, StopReason::Error);
    assert!(
        c.message()
            .error_message
            .as_deref()
            .unwrap()
            .starts_with("401 {")
    );
    assert_eq!(c.reason(), Some(FailoverReason::Auth));
}

#[tokio::test]
async fn prompt_too_long_400_is_a_context_overflow() {
    let c = call(ScriptedResponse::status(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"}}"#,
    ))
    .await;
    assert!(c.is_context_overflow());
    assert_eq!(c.reason(), None, "overflow is not a failover reason");
}

#[tokio::test]
async fn server_errors_html_page_and_overloaded() {
    let c = call(
        ScriptedResponse::status(
            502,
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>cloudflare</body></html>",
        )
        .header("content-type", "text/html"),
    )
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("502 Bad Gateway (HTML error page)")
    );
    assert_eq!(c.reason(), Some(FailoverReason::Timeout));
    let c = call(ScriptedResponse::status(
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ))
    .await;
    assert_eq!(c.reason(), Some(FailoverReason::Overloaded));
}

#[tokio::test]
async fn in_stream_error_keeps_partial_text_and_usage() {
    let body = [
        message_start(412, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Partial"),
        ev(
            "error",
            json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        ),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Partial")]);
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(
        m.error_message.as_deref(),
        Some(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#)
    );
    assert_eq!((m.usage.input, m.usage.output), (412, 1));
    assert_eq!(c.reason(), Some(FailoverReason::Overloaded));
}

#[tokio::test]
async fn garbage_bodies_are_clear_errors() {
    let start = message_start(1, 0, 0);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!("{start}event: content_block_start\ndata: {{\"type\":\"content_bl")
                .into_bytes(),
            "Invalid JSON in stream",
        ),
        (
            [
                start.as_bytes(),
                b"event: content_block_start\ndata: \xff\xfe\n\n",
            ]
            .concat(),
            "not valid UTF-8",
        ),
        (
            format!("{start}event: message_delta\ndata: not json\n\n").into_bytes(),
            "Invalid JSON in stream",
        ),
        (b"".to_vec(), "stream ended before completion"),
        (start.clone().into_bytes(), "stream ended before completion"),
        (
            format!("{start}{}", message_end("mystery", 1)).into_bytes(),
            "Unhandled stop reason: mystery",
        ),
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
async fn refusal_ends_in_an_error_with_the_content_kept() {
    let body = [
        message_start(5, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "I can't"),
        block_stop(0),
        message_end("refusal", 3),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    let m = c.message();
    assert_eq!(
        (m.stop_reason, m.error_message.as_deref(), m.text()),
        (
            StopReason::Error,
            Some("An unknown error occurred"),
            "I can't".to_owned()
        )
    );
}

// --- transport --------------------------------------------------------------------------------

#[tokio::test]
async fn drop_mid_stream_is_an_error_with_partial_text() {
    let body = text_body();
    let cut = body.find("event: content_block_stop").unwrap();
    let c = call(
        ScriptedResponse::sse(body)
            .chunked(Chunking::At(vec![cut]))
            .drop_after(1),
    )
    .await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.text(), "Hello, wörld 🦞");
    assert!(m.error_message.is_some());
}

#[tokio::test]
async fn stall_hits_the_idle_timeout() {
    let body = text_body();
    let cut = body.find("event: content_block_delta").unwrap();
    let c = call_full(
        ScriptedResponse::sse(body)
            .chunked(Chunking::At(vec![cut]))
            .stall(1, Duration::from_secs(30)),
        json!({}),
        &context(),
        keyed(),
        Some(STALL_IDLE),
    )
    .await;
    assert_idle_timeout(&c);
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_partial_text_and_closes_the_connection() {
    let head = [
        message_start(5, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Hello"),
    ]
    .concat();
    let body = head.clone() + &ev("ping", json!({"type": "ping"})).repeat(60) + &block_stop(0);
    let cuts = trickle_cuts(head.len(), 20, body.len());
    let response = ScriptedResponse::sse(body).chunked(Chunking::At(cuts));
    let (events, server) = cancel_at_first_delta(response, |url, options| {
        let options = StreamOptions {
            api_key: keyed().api_key,
            ..options
        };
        AnthropicMessages::new(transport()).stream(&model(url, json!({})), &context(), options)
    })
    .await;
    assert_aborted_and_disconnected(&events, "Hello", &server).await;
    let m = events.last().and_then(|e| e.final_message()).unwrap();
    assert_eq!(m.usage.input, 5, "usage so far is kept");
}

#[tokio::test]
async fn already_cancelled_makes_no_request() {
    let options = StreamOptions {
        api_key: keyed().api_key,
        ..cancelled()
    };
    let c = call_full(
        ScriptedResponse::sse(text_body()),
        json!({}),
        &context(),
        options,
        None,
    )
    .await;
    assert_no_request_when_cancelled(&c);
}

#[tokio::test]
async fn connection_refused_is_an_error_event() {
    let events = collect(AnthropicMessages::new(transport()).stream(
        &model(&refused_url(), json!({})),
        &context(),
        keyed(),
    ))
    .await;
    assert_connection_refused(&events);
}

// --- the scripted encoder over HTTP -----------------------------------------------------------

#[tokio::test]
async fn scripted_replies_round_trip_over_http() {
    let replies: Vec<ScriptedReply> = vec![
        serde_json::from_value(json!({
            "thinking": "Plan it.", "textChunks": ["Sure", ", writing ", "now."],
            "toolCalls": [{"id": "toolu_01", "name": "write", "arguments": {"path": "notes/todo.txt", "content": "buy milk\n"}},
                          {"name": "ls", "argumentsRaw": "{\"dir\":\".\"}"}],
            "usage": {"input": 25, "output": 3, "cacheRead": 1800, "cacheWrite": 60}
        }))
        .unwrap(),
        serde_json::from_value(json!({"text": "7 is prime.", "stopReason": "length"})).unwrap(),
    ];
    for reply in replies {
        let scripted = one_write_each(
            &script::encode_reply(&reply, "claude-sonnet-4-5"),
            script::CONTENT_TYPE,
        );
        for response in [scripted.clone(), scripted.chunked(Chunking::Fixed(3))] {
            let c = call(response).await;
            assert_contract(&c.events);
            let m = c.message();
            let mut expected = Vec::new();
            if let Some(thinking) = &reply.thinking {
                expected.push(ContentBlock::Thinking(ThinkingContent {
                    thinking: thinking.clone(),
                    thinking_signature: Some(SCRIPTED_SIGNATURE.into()),
                    ..ThinkingContent::default()
                }));
            }
            expected.push(ContentBlock::text(reply.text_deltas().concat()));
            for (id, call) in reply.tool_calls_with_ids() {
                let arguments: Value = serde_json::from_str(&call.arguments_text()).unwrap();
                expected.push(ContentBlock::ToolCall(ToolCall::new(
                    id, &call.name, arguments,
                )));
            }
            assert_eq!(m.content, expected);
            let u = reply.usage.unwrap_or_default();
            assert_eq!(
                (
                    m.usage.input,
                    m.usage.output,
                    m.usage.cache_read,
                    m.usage.cache_write
                ),
                (u.input, u.output, u.cache_read, u.cache_write)
            );
            let stop = match reply.effective_stop_reason() {
                clawloop_testkit::ScriptedStopReason::Stop => StopReason::Stop,
                clawloop_testkit::ScriptedStopReason::Length => StopReason::Length,
                clawloop_testkit::ScriptedStopReason::ToolUse => StopReason::ToolUse,
            };
            assert_eq!(m.stop_reason, stop);
        }
    }
}

#[tokio::test]
async fn scripted_stream_error_and_drop() {
    let reply: ScriptedReply = serde_json::from_value(
        json!({"textChunks": ["Let me ", "look"], "streamError": "Overloaded"}),
    )
    .unwrap();
    let chunks = script::encode_reply(&reply, "claude-sonnet-4-5");
    let c = call(ScriptedResponse::sse(chunks.concat())).await;
    assert_contract(&c.events);
    assert_eq!(c.message().text(), "Let me look");
    assert_eq!(c.reason(), Some(FailoverReason::Overloaded));
    // Dropped after the first text delta: an error with that text.
    let c = call(
        ScriptedResponse::sse(chunks.concat())
            .chunked(Chunking::At(write_ends(&chunks)))
            .drop_after(3),
    )
    .await;
    assert_eq!(
        (c.message().stop_reason, c.message().text()),
        (StopReason::Error, "Let me ".to_owned())
    );
}

// --- public wire scenarios and real recordings ------------------------------------------------

/// Real recordings no public scenario uses as a `bodyFile`, with their expectations.
fn own_fixture_cases() -> Vec<Value> {
    // Only the data payload of a real in-stream error was recorded; it is played inside the
    // stream it came from: a started text block, then `event: error`, then the connection
    // closes without message_stop.
    let fixture = "error_midstream_event_overloaded_data.json";
    let payload = std::fs::read_to_string(
        wire_expect::shared()
            .join("fixtures/real/anthropic")
            .join(fixture),
    )
    .unwrap();
    let body = [
        message_start(33, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Working on"),
        format!("event: error\ndata: {}\n\n", payload.trim_end()),
    ]
    .concat();
    vec![json!({
        "kind": "wire",
        "name": "own_error_midstream_event_overloaded_data",
        "fixture": fixture,
        "input": {"api": "anthropic-messages", "body": body,
                  "headers": {"content-type": "text/event-stream; charset=utf-8"}},
        "expect": {
            "message": {"content": [{"type": "text", "text": "Working on"}], "stopReason": "error",
                        "errorMessageContains": "\"type\":\"overloaded_error\"",
                        "usage": {"input": 33, "output": 1, "totalTokens": 34}},
            "events": ["start", "text_start", "text_delta", "error"],
            "error": {"reason": "overloaded", "contextOverflow": false}
        }
    })]
}

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let start = |url: &str, extra: &Value| {
        AnthropicMessages::new(transport()).stream_with_diagnostics(
            &model(url, extra.clone()),
            &context(),
            keyed(),
        )
    };
    let outcome = wire_expect::run_public_scenarios(
        &Api::AnthropicMessages,
        Some("anthropic"),
        &own_fixture_cases(),
        &start,
    )
    .await;
    outcome.assert_all_passed();
    // 12 in anthropic.json, 3 synthetic, 1 own.
    assert!(
        outcome.passed.len() >= 16,
        "only {} cases ran: {:#?}",
        outcome.passed.len(),
        outcome.passed
    );
}
