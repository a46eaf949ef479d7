//! `anthropic-messages` over real HTTP against the scripted server: the request sent, every
//! content kind, usage, each error class, stalls, drops and aborts, the scripted encoder, and
//! every public `wire` scenario and real Anthropic recording (whole, one byte per read and at
//! seeded random splits, all agreeing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clawloop_core::classify::{FailoverSignal, failover_reason_from_signal, is_context_overflow};
use clawloop_core::message::{ContentBlock, ThinkingContent, ToolCall, ToolResultMessage};
use clawloop_core::{
    Api, AssistantMessage, AssistantMessageEvent, Context, FailoverReason, LlmStream, Message,
    Model, StopReason, StreamOptions, ThinkLevel, ToolDefinition, Usage, UserMessage,
};
use clawloop_providers::anthropic_messages::script::{self, SCRIPTED_SIGNATURE};
use clawloop_providers::anthropic_messages::{CLAUDE_CODE_IDENTITY, REDACTED_THINKING};
use clawloop_providers::scripted_server::{
    Chunking, ScriptedReply, ScriptedResponse, ScriptedServer, WIRE_SPLIT_SEED, WireBody,
    replay_wire,
};
use clawloop_providers::{AnthropicMessages, CallDiagnostics, TransportError};
use common::{assert_contract, collect, splits, transport};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

// --- helpers ----------------------------------------------------------------------------------

fn model(base_url: &str, extra: Value) -> Model {
    let mut json = json!({
        "id": "claude-sonnet-4-5", "api": "anthropic-messages", "provider": "anthropic",
        "baseUrl": base_url, "reasoning": true, "input": ["text", "image"],
        "contextWindow": 200000, "maxTokens": 64000
    });
    if let (Some(obj), Value::Object(extra)) = (json.as_object_mut(), extra) {
        obj.extend(extra);
    }
    serde_json::from_value(json).unwrap()
}

fn context() -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![Message::User(UserMessage::text("hi", 1))],
        tools: Vec::new(),
    }
}

fn keyed() -> StreamOptions {
    StreamOptions {
        api_key: Some("sk-ant-api03-test".into()),
        ..StreamOptions::default()
    }
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
struct Call {
    events: Vec<AssistantMessageEvent>,
    diagnostics: CallDiagnostics,
    server: ScriptedServer,
}

impl Call {
    fn message(&self) -> &AssistantMessage {
        self.events
            .last()
            .and_then(AssistantMessageEvent::final_message)
            .expect("terminal event")
    }

    fn types(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect()
    }

    fn body(&self) -> Value {
        self.server.requests()[0].json().unwrap()
    }
}

async fn call_full(
    response: ScriptedResponse,
    model_extra: Value,
    context: &Context,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    let server = ScriptedServer::start(vec![response]).await.unwrap();
    let model = model(&server.url(), model_extra);
    let provider = AnthropicMessages::new(transport(idle));
    let (stream, diagnostics) = provider.stream_with_diagnostics(&model, context, options);
    let events = collect(stream).await;
    Call {
        events,
        diagnostics,
        server,
    }
}

async fn call(response: ScriptedResponse) -> Call {
    call_full(response, json!({}), &context(), keyed(), None).await
}

fn reason_of(c: &Call) -> Option<FailoverReason> {
    failover_reason_from_signal(&FailoverSignal {
        status: c.diagnostics.http_status(),
        message: c.message().error_message.as_deref().unwrap_or_default(),
        ..FailoverSignal::default()
    })
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
    let body = text_body();
    let whole = call(ScriptedResponse::sse(body.clone()))
        .await
        .message()
        .clone();
    for seed in 1..=5 {
        for (label, chunking) in splits(body.len(), seed) {
            let c = call(ScriptedResponse::sse(body.clone()).chunked(chunking)).await;
            let mut m = c.message().clone();
            m.timestamp = whole.timestamp;
            assert_eq!(m, whole, "{label}, seed {seed}");
            assert_eq!(c.server.requests().len(), 1);
        }
    }
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
    assert_eq!(c.types(), ["error"]);
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    // As the Anthropic SDK words it: status, then the body as compact JSON.
    assert_eq!(
        m.error_message.as_deref(),
        Some(
            r#"429 {"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#
        )
    );
    assert_eq!(c.diagnostics.retry_after_ms(), Some(7000));
    assert_eq!(c.diagnostics.http_status(), Some(429));
    let Some(TransportError::Http(http)) = c.diagnostics.failure() else {
        panic!("no http failure")
    };
    assert_eq!(http.request_id.as_deref(), Some("req_011CX"));
    assert_eq!(reason_of(&c), Some(FailoverReason::RateLimit));
    assert_eq!(c.server.requests().len(), 1, "never retries");
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
    assert_eq!(reason_of(&c), Some(FailoverReason::Auth));
}

#[tokio::test]
async fn prompt_too_long_400_is_a_context_overflow() {
    let c = call(ScriptedResponse::status(
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"}}"#,
    ))
    .await;
    let m = c.message();
    assert!(is_context_overflow(
        m.stop_reason,
        m.error_message.as_deref(),
        &m.usage,
        None
    ));
    assert_eq!(reason_of(&c), None, "overflow is not a failover reason");
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
    assert_eq!(reason_of(&c), Some(FailoverReason::Timeout));
    let c = call(ScriptedResponse::status(
        529,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ))
    .await;
    assert_eq!(reason_of(&c), Some(FailoverReason::Overloaded));
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
    assert_eq!(reason_of(&c), Some(FailoverReason::Overloaded));
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
        Some(Duration::from_millis(300)),
    )
    .await;
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(
        m.error_message.as_deref(),
        Some("LLM idle timeout (0.3s): no response from model")
    );
    assert_eq!(
        c.diagnostics.failure(),
        Some(TransportError::IdleTimeout(Duration::from_millis(300)))
    );
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
    let mut cuts = vec![head.len()];
    cuts.extend((1..60).map(|i| head.len() + i * 20));
    let server = ScriptedServer::start(vec![
        ScriptedResponse::sse(body)
            .chunked(Chunking::At(cuts))
            .delay(Duration::from_millis(50)),
    ])
    .await
    .unwrap();
    let options = keyed();
    let cancel = options.cancel.clone();
    let mut stream = AnthropicMessages::new(transport(None)).stream(
        &model(&server.url(), json!({})),
        &context(),
        options,
    );
    let mut events = Vec::new();
    while let Some(event) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        if matches!(event, AssistantMessageEvent::TextDelta { .. }) {
            cancel.cancel();
        }
        events.push(event);
    }
    assert_contract(&events);
    let m = events.last().and_then(|e| e.final_message()).unwrap();
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(m.content, vec![ContentBlock::text("Hello")]);
    assert_eq!(m.usage.input, 5, "usage so far is kept");
    for _ in 0..100 {
        if server.client_disconnects() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.client_disconnects(), 1);
}

#[tokio::test]
async fn already_cancelled_makes_no_request() {
    let options = keyed();
    options.cancel.cancel();
    let c = call_full(
        ScriptedResponse::sse(text_body()),
        json!({}),
        &context(),
        options,
        None,
    )
    .await;
    assert_eq!(c.types(), ["error"]);
    assert_eq!(c.message().stop_reason, StopReason::Aborted);
    assert!(c.server.requests().is_empty());
}

#[tokio::test]
async fn connection_refused_is_an_error_event() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let events = collect(AnthropicMessages::new(transport(None)).stream(
        &model(&url, json!({})),
        &context(),
        keyed(),
    ))
    .await;
    assert_contract(&events);
    let m = events[0].final_message().unwrap();
    assert!(
        m.error_message
            .as_deref()
            .unwrap()
            .starts_with("Connection error:"),
        "{m:?}"
    );
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
        let chunks = script::encode_reply(&reply, "claude-sonnet-4-5");
        let mut cuts = Vec::new();
        let mut at = 0;
        for chunk in &chunks {
            at += chunk.len();
            cuts.push(at);
        }
        let body = chunks.concat();
        for chunking in [Chunking::At(cuts.clone()), Chunking::Fixed(3)] {
            let c = call(
                ScriptedResponse::sse(body.clone())
                    .header("content-type", script::CONTENT_TYPE)
                    .chunked(chunking),
            )
            .await;
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
                clawloop_providers::scripted_server::ScriptedStopReason::Stop => StopReason::Stop,
                clawloop_providers::scripted_server::ScriptedStopReason::Length => {
                    StopReason::Length
                }
                clawloop_providers::scripted_server::ScriptedStopReason::ToolUse => {
                    StopReason::ToolUse
                }
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
    assert_eq!(reason_of(&c), Some(FailoverReason::Overloaded));
    // Dropped after the first text delta: an error with that text.
    let cuts: Vec<usize> = chunks
        .iter()
        .scan(0, |at, chunk| {
            *at += chunk.len();
            Some(*at)
        })
        .collect();
    let c = call(
        ScriptedResponse::sse(chunks.concat())
            .chunked(Chunking::At(cuts))
            .drop_after(3),
    )
    .await;
    assert_eq!(
        (c.message().stop_reason, c.message().text()),
        (StopReason::Error, "Let me ".to_owned())
    );
}

// --- public wire scenarios and real recordings ------------------------------------------------

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared")
}

/// Runs one `wire` case through the shared replay (whole, one byte per read, random splits,
/// all agreeing, one request each); returns the first difference.
async fn run_case(dir: &Path, case: &Value) -> Result<(), String> {
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
    let wire = WireBody::new(&Api::AnthropicMessages, status, headers, body);
    let run = replay_wire(&wire, WIRE_SPLIT_SEED, |url| {
        AnthropicMessages::new(transport(None)).stream_with_diagnostics(
            &model(url, model_extra.clone()),
            &context(),
            keyed(),
        )
    })
    .await?;
    let message = &run.message;
    let expect = &case["expect"];
    if let Some(expected) = expect.get("message") {
        check_message(message, expected)?;
    }
    if let Some(expected) = expect["events"].as_array() {
        let types = run.types();
        let mut it = types.iter();
        for e in expected {
            let e = e.as_str().unwrap_or_default();
            if !it.any(|t| *t == e) {
                return Err(format!("events {types:?} lack subsequence {expected:?}"));
            }
        }
    }
    if let Some(error) = expect.get("error") {
        let text = message.error_message.clone().unwrap_or_default();
        let reason = failover_reason_from_signal(&FailoverSignal {
            status: run.diagnostics.http_status(),
            message: &text,
            ..FailoverSignal::default()
        });
        let reason = reason.map(|r| json!(r.as_str())).unwrap_or(Value::Null);
        if error.get("reason").is_some_and(|r| *r != reason) {
            return Err(format!("reason {reason} != {}", error["reason"]));
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
            return Err(format!("contextOverflow {overflow}"));
        }
        if let Some(ms) = error.get("retryAfterMs")
            && *ms != json!(run.diagnostics.retry_after_ms())
        {
            return Err(format!(
                "retryAfterMs {:?}",
                run.diagnostics.retry_after_ms()
            ));
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

/// Real recordings no public scenario uses as a `bodyFile`, with their expectations.
fn own_fixture_cases(fixture_dir: &Path) -> Vec<(String, Value)> {
    // Only the data payload of a real in-stream error was recorded; it is played inside the
    // stream it came from: a started text block, then `event: error`, then the connection
    // closes without message_stop.
    let payload =
        std::fs::read_to_string(fixture_dir.join("error_midstream_event_overloaded_data.json"))
            .unwrap();
    let body = [
        message_start(33, 0, 0),
        block_start(0, json!({"type": "text", "text": ""})),
        text_delta(0, "Working on"),
        format!("event: error\ndata: {}\n\n", payload.trim_end()),
    ]
    .concat();
    vec![(
        "error_midstream_event_overloaded_data.json".to_owned(),
        json!({
            "kind": "wire",
            "name": "own_error_midstream_event_overloaded_data",
            "input": {"api": "anthropic-messages", "body": body,
                      "headers": {"content-type": "text/event-stream; charset=utf-8"}},
            "expect": {
                "message": {"content": [{"type": "text", "text": "Working on"}], "stopReason": "error",
                            "errorMessageContains": "\"type\":\"overloaded_error\"",
                            "usage": {"input": 33, "output": 1, "totalTokens": 34}},
                "events": ["start", "text_start", "text_delta", "error"],
                "error": {"reason": "overloaded", "contextOverflow": false}
            }
        }),
    )]
}

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let dir = shared().join("conformance/scenarios/wire");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut passed = Vec::new();
    let mut failures = Vec::new();
    let mut fixtures_seen = BTreeSet::new();
    for file in files {
        let json: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
        let cases = json["cases"]
            .as_array()
            .cloned()
            .unwrap_or_else(|| vec![json.clone()]);
        for case in cases {
            if case["kind"] != "wire" || case["input"]["api"] != "anthropic-messages" {
                continue;
            }
            if let Some(f) = case["input"]["bodyFile"].as_str() {
                fixtures_seen.insert(
                    Path::new(f)
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .into_owned(),
                );
            }
            let name = format!(
                "{}#{}",
                file.file_name().unwrap().to_string_lossy(),
                case["name"].as_str().unwrap_or("?")
            );
            match run_case(&dir, &case).await {
                Ok(()) => passed.push(name),
                Err(e) => failures.push(format!("{name}: {e}")),
            }
        }
    }
    let fixture_dir = shared().join("fixtures/real/anthropic");
    for (fixture, case) in own_fixture_cases(&fixture_dir) {
        fixtures_seen.insert(fixture);
        let name = format!("own#{}", case["name"].as_str().unwrap_or("?"));
        match run_case(&fixture_dir, &case).await {
            Ok(()) => passed.push(name),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let all: BTreeSet<String> = std::fs::read_dir(&fixture_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let missing: Vec<_> = all.difference(&fixtures_seen).collect();
    eprintln!("{} passed, {} failed", passed.len(), failures.len());
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(missing.is_empty(), "fixtures without a case: {missing:?}");
    // 12 in anthropic.json, 3 synthetic, 1 own.
    assert!(
        passed.len() >= 16,
        "only {} cases ran: {passed:#?}",
        passed.len()
    );
}
