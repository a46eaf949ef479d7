//! The `openai-responses` API over real HTTP against the scripted server: request shape,
//! text, reasoning, tool calls, images, usage, every error class, idle timeout, dropped
//! connections and abort; then every public `wire` scenario for this API and every real
//! recorded Responses stream, served whole, one byte per read and at seeded random splits.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/openai_responses.rs"]
mod responses;
#[path = "common/wire_expect.rs"]
mod wire_expect;

use std::time::Duration;

use clawloop_core::message::{
    ContentBlock, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserContent,
};
use clawloop_core::model::CacheRetention;
use clawloop_core::{
    Api, AssistantMessage, Context, FailoverReason, LlmStream, Message, StopReason, StreamOptions,
    ThinkLevel, ToolDefinition, UserMessage,
};
use clawloop_providers::OpenAiResponses;
use clawloop_providers::{HttpTransport, TransportConfig};
use clawloop_testkit::script::openai_responses::{CONTENT_TYPE, encode_reply, wire_roles};
use clawloop_testkit::{Chunking, ScriptedReply, ScriptedResponse, ScriptedServer};
use common::{
    STALL_IDLE, assert_aborted_and_disconnected, assert_connection_refused, assert_contract,
    assert_every_split_agrees, assert_idle_timeout, assert_no_request_when_cancelled,
    assert_rate_limited, cancel_at_first_delta, cancelled, collect, context, refused_url,
    transport, trickle_cuts,
};
use pretty_assertions::assert_eq;
use responses::*;
use serde_json::{Value, json};

fn scripted(reply: Value) -> ScriptedResponse {
    let reply: ScriptedReply = serde_json::from_value(reply).unwrap();
    ScriptedResponse::sse(encode_reply(&reply, "gpt-5").concat())
        .header("content-type", CONTENT_TYPE)
}

fn text_body() -> String {
    [
        ev(
            "response.created",
            json!({"response": {"id": "resp_1", "status": "in_progress"}}),
        ),
        added(0, message_item("msg_1", None)),
        ev(
            "response.content_part.added",
            json!({"item_id": "msg_1", "output_index": 0, "content_index": 0,
                   "part": {"type": "output_text", "text": ""}}),
        ),
        text_delta("msg_1", "Hello"),
        text_delta("msg_1", ", wörld 🦞"),
        done(0, message_item("msg_1", Some("Hello, wörld 🦞"))),
        completed("completed", usage(100, 60, 12)),
    ]
    .concat()
}

fn text_block(text: &str, id: &str) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: Some(format!(r#"{{"v":1,"id":"{id}"}}"#)),
        ..TextContent::default()
    })
}

#[tokio::test]
async fn text_with_cached_usage_and_the_request_sent() {
    let c = call_with(
        ScriptedResponse::sse(text_body()),
        json!({"reasoning": true, "cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.5}}),
        StreamOptions {
            api_key: Some("sk-test".into()),
            reasoning: Some(ThinkLevel::Medium),
            session_id: Some("session-1".into()),
            cache_retention: Some(CacheRetention::Long),
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
    assert_eq!(m.content, vec![text_block("Hello, wörld 🦞", "msg_1")]);
    assert_eq!(m.stop_reason, StopReason::Stop);
    // input excludes cached tokens; output is output_tokens without adding reasoning.
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
    assert_eq!(requests[0].path, "/v1/responses");
    assert_eq!(requests[0].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(requests[0].header("accept"), Some("text/event-stream"));
    let body = requests[0].json().unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-5",
            "input": [
                {"role": "developer", "content": "You are terse."},
                {"role": "user", "content": [{"type": "input_text", "text": "hi"}]}
            ],
            "stream": true, "store": false, "prompt_cache_key": "session-1",
            "max_output_tokens": 32000,
            "reasoning": {"effort": "medium", "summary": "auto"},
            "include": ["reasoning.encrypted_content"]
        })
    );
    assert_eq!(wire_roles(&body), ["user"]);
}

#[tokio::test]
async fn every_split_gives_the_same_message() {
    assert_every_split_agrees(ScriptedResponse::sse(text_body()), call).await;
}

#[tokio::test]
async fn reasoning_summary_then_text_keeps_the_item_as_signature() {
    let c = call(scripted(json!({
        "thinking": "Think first.",
        "textChunks": ["Do", "ne."],
        "usage": {"input": 5, "output": 7}
    })))
    .await;
    assert_contract(&c.events);
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
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let item = json!({"id": "rs_0", "type": "reasoning",
                      "summary": [{"type": "summary_text", "text": "Think first."}]});
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Think first.".into(),
                thinking_signature: Some(item.to_string()),
                ..ThinkingContent::default()
            }),
            text_block("Done.", "msg_1"),
        ]
    );
    assert_eq!((c.message().usage.input, c.message().usage.output), (5, 7));
}

#[tokio::test]
async fn single_tool_call_streams_argument_fragments() {
    let item = |args: &str| {
        json!({"id": "fc_1", "type": "function_call", "status": "completed", "arguments": args,
               "call_id": "call_1", "name": "read"})
    };
    let args = |delta: &str| {
        ev(
            "response.function_call_arguments.delta",
            json!({"item_id": "fc_1", "output_index": 0, "delta": delta}),
        )
    };
    let body = [
        added(0, item("")),
        args("{\"path\": \"src/"),
        args("main.rs\"}"),
        ev(
            "response.function_call_arguments.done",
            json!({"item_id": "fc_1", "output_index": 0, "arguments": "{\"path\": \"src/main.rs\"}"}),
        ),
        done(0, item("{\"path\": \"src/main.rs\"}")),
        completed("completed", usage(10, 0, 5)),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body).chunked(Chunking::Fixed(7))).await;
    assert_contract(&c.events);
    assert_eq!(
        c.types(),
        [
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    assert_eq!(
        c.message().content,
        vec![ContentBlock::ToolCall(ToolCall::new(
            "call_1|fc_1",
            "read",
            json!({"path": "src/main.rs"})
        ))]
    );
    // SPEC §4: a `completed` response with tool calls ends as toolUse.
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
}

#[tokio::test]
async fn parallel_tool_calls_after_text() {
    let c = call(scripted(json!({
        "text": "Checking.",
        "toolCalls": [
            {"id": "call_a", "name": "read", "arguments": {"path": "a"}},
            {"id": "call_b", "name": "ls", "argumentsRaw": "{\"dir\": \".\"}"}
        ]
    })))
    .await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![
            text_block("Checking.", "msg_0"),
            ContentBlock::ToolCall(ToolCall::new("call_a|fc_1", "read", json!({"path": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("call_b|fc_2", "ls", json!({"dir": "."}))),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    let types = c.types();
    assert_eq!(types.iter().filter(|t| **t == "toolcall_start").count(), 2);
    assert_eq!(types.iter().filter(|t| **t == "toolcall_end").count(), 2);
}

#[tokio::test]
async fn images_history_and_tools_in_the_request() {
    let model = model("unused", json!({"input": ["text", "image"]}));
    let mut assistant = AssistantMessage::for_model(&model, 2);
    assistant.content = vec![
        text_block("Looking.", "msg_prev"),
        ContentBlock::ToolCall(ToolCall::new("call_1|fc_1", "screenshot", json!({}))),
    ];
    assistant.stop_reason = StopReason::ToolUse;
    let mut result = ToolResultMessage::text("call_1|fc_1", "screenshot", "shot", false, 3);
    result
        .content
        .push(ContentBlock::image("QUJD", "image/png"));
    let mut user = UserMessage::text("What is this?", 1);
    user.content = UserContent::Blocks(vec![
        ContentBlock::text("What is this?"),
        ContentBlock::image("REVG", "image/jpeg"),
    ]);
    let context = Context {
        system_prompt: None,
        messages: vec![
            Message::User(user),
            Message::Assistant(assistant),
            Message::ToolResult(result),
        ],
        tools: vec![ToolDefinition {
            name: "screenshot".into(),
            description: "Take one".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }],
    };
    let c = call_full(
        scripted(json!({"text": "A cat."})),
        json!({"input": ["text", "image"]}),
        &context,
        StreamOptions {
            temperature: Some(0.3),
            max_tokens: Some(500),
            ..StreamOptions::default()
        },
        None,
    )
    .await;
    assert_eq!(c.message().text(), "A cat.");
    let body = c.server.requests()[0].json().unwrap();
    assert_eq!(
        body,
        json!({
            "model": "gpt-5",
            "input": [
                {"role": "user", "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {"type": "input_image", "detail": "auto", "image_url": "data:image/jpeg;base64,REVG"}
                ]},
                {"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
                 "status": "completed", "id": "msg_prev"},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "screenshot",
                 "arguments": "{}"},
                {"type": "function_call_output", "call_id": "call_1", "output": [
                    {"type": "input_text", "text": "shot"},
                    {"type": "input_image", "detail": "auto", "image_url": "data:image/png;base64,QUJD"}
                ]}
            ],
            "stream": true, "store": false, "max_output_tokens": 500, "temperature": 0.3,
            "tools": [{"type": "function", "name": "screenshot", "description": "Take one",
                       "parameters": {"type": "object", "properties": {}}, "strict": false}]
        })
    );
    assert_eq!(wire_roles(&body), ["user", "assistant", "tool"]);
}

#[tokio::test]
async fn rate_limit_with_retry_after() {
    let c = call(
        ScriptedResponse::status(
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-5 on tokens per min (TPM)","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "7")
        .header("x-request-id", "req_429"),
    )
    .await;
    assert_rate_limited(
        &c,
        "429 Rate limit reached for gpt-5 on tokens per min (TPM)",
        7000,
        Some("req_429"),
    );
}

#[tokio::test]
async fn unauthorized_401() {
    let c = call(ScriptedResponse::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
    ))
    .await;
    let m = c.message();
    assert!(
        m.error_message
            .as_deref()
            .unwrap()
            .starts_with("401 Incorrect API key provided"),
        "{m:?}"
    );
    assert!(matches!(
        c.reason(),
        Some(FailoverReason::Auth | FailoverReason::AuthPermanent)
    ));
}

#[tokio::test]
async fn context_overflow_400() {
    let c = call(ScriptedResponse::status(
        400,
        r#"{"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
    ))
    .await;
    assert!(c.is_context_overflow());
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
    assert_eq!(c.diagnostics.http_status(), Some(502));
}

#[tokio::test]
async fn in_stream_errors_keep_partial_text() {
    let body = [
        added(0, message_item("msg_1", None)),
        text_delta("msg_1", "Partial"),
        ev(
            "error",
            json!({"code": "server_error", "message": "The server had an error while processing your request.", "param": null}),
        ),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Partial")]);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Error Code server_error: The server had an error while processing your request.")
    );
    let failed = [
        added(0, message_item("msg_1", None)),
        text_delta("msg_1", "Half"),
        ev(
            "response.failed",
            json!({"response": {"status": "failed", "error": {"code": "rate_limit_exceeded", "message": "Too many requests"}}}),
        ),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(failed)).await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("rate_limit_exceeded: Too many requests")
    );
    assert_eq!(c.message().text(), "Half");
    assert_eq!(c.reason(), Some(FailoverReason::RateLimit));
    let scripted_error = call(scripted(
        json!({"text": "so far", "streamError": "Upstream overloaded"}),
    ))
    .await;
    assert_eq!(
        scripted_error.message().error_message.as_deref(),
        Some("Upstream overloaded")
    );
    assert_eq!(scripted_error.message().text(), "so far");
}

#[tokio::test]
async fn incomplete_is_length() {
    let c = call(scripted(json!({"text": "Cut sho", "stopReason": "length"}))).await;
    assert_eq!(c.message().stop_reason, StopReason::Length);
    assert_eq!(c.message().text(), "Cut sho");
}

#[tokio::test]
async fn garbage_bodies_are_clear_errors() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            [added(0, message_item("m", None)), text_delta("m", "x")]
                .concat()
                .into_bytes()
                .into_iter()
                .chain(b"data: {\"type\":\"response.outp".iter().copied())
                .collect(),
            "Invalid JSON in stream",
        ),
        (b"data: \xff\xfe\n\n".to_vec(), "not valid UTF-8"),
        (b"data: not json\n\n".to_vec(), "Invalid JSON in stream"),
        (b"".to_vec(), "stream ended before completion"),
        (
            added(0, message_item("m", None)).into_bytes(),
            "stream ended before completion",
        ),
    ];
    for (body, expected) in cases {
        let c = call(ScriptedResponse::sse(body)).await;
        assert_contract(&c.events);
        let message = c.message().error_message.clone().unwrap_or_default();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
        assert_eq!(c.message().stop_reason, StopReason::Error);
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
async fn non_streaming_json_answer() {
    let body = json!({"id": "resp_1", "object": "response", "status": "completed", "output": [
        {"id": "msg_1", "type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Plain JSON.", "annotations": []}]}
    ], "usage": usage(3, 0, 2)});
    let c =
        call(ScriptedResponse::sse(body.to_string()).header("content-type", "application/json"))
            .await;
    assert_contract(&c.events);
    assert_eq!(
        c.message().content,
        vec![text_block("Plain JSON.", "msg_1")]
    );
    assert_eq!(c.message().usage.total_tokens, 5);
}

#[tokio::test]
async fn oversized_event_is_an_error() {
    let server = ScriptedServer::start(vec![
        ScriptedResponse::sse(format!("data: {}\n\n", "x".repeat(10_000)))
            .chunked(Chunking::Fixed(512)),
    ])
    .await
    .unwrap();
    let transport = HttpTransport::new(TransportConfig {
        max_event_bytes: 4096,
        ..Default::default()
    })
    .unwrap();
    let events = collect(OpenAiResponses::new(transport).stream(
        &model(&server.url(), json!({})),
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
    let body = text_body();
    let cut = body.find("Hello").unwrap() + 60;
    let c = call(
        ScriptedResponse::sse(body)
            .chunked(Chunking::At(vec![cut]))
            .drop_after(1),
    )
    .await;
    assert_contract(&c.events);
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.text(), "Hello");
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
async fn completes_on_the_terminal_event_even_if_the_body_stays_open() {
    let body = text_body();
    // The server stalls after the whole stream without closing it; the client must not wait.
    let c = call_with(
        ScriptedResponse::sse(body.clone())
            .chunked(Chunking::At(vec![body.len() - 1]))
            .stall(2, Duration::from_secs(30)),
        json!({}),
        StreamOptions::default(),
        Some(Duration::from_secs(10)),
    )
    .await;
    assert_eq!(c.message().stop_reason, StopReason::Stop);
    assert_eq!(c.message().text(), "Hello, wörld 🦞");
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_partial_text_and_closes_the_connection() {
    let first = [
        added(0, message_item("msg_1", None)),
        text_delta("msg_1", "Hello"),
    ]
    .concat();
    let body = first.clone()
        + &text_delta("msg_1", " there")
        + &": keepalive\n\n".repeat(50)
        + &completed("completed", usage(1, 0, 1));
    let cuts = trickle_cuts(first.len(), 20, body.len());
    let response = ScriptedResponse::sse(body).chunked(Chunking::At(cuts));
    let (events, server) = cancel_at_first_delta(response, |url, options| {
        OpenAiResponses::new(transport()).stream(&model(url, json!({})), &context(), options)
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
    let events = collect(OpenAiResponses::new(transport()).stream(
        &model(&refused_url(), json!({})),
        &context(),
        StreamOptions::default(),
    ))
    .await;
    assert_connection_refused(&events);
}

// --- conformance `wire` scenarios and real fixtures -----------------------------------------

/// Error shapes and stream endings no public scenario covers, as `wire` cases.
fn own_cases() -> Vec<Value> {
    let partial = [
        added(0, message_item("msg_1", None)),
        text_delta("msg_1", "Part"),
    ]
    .concat();
    let incomplete = [
        added(0, message_item("msg_1", None)),
        text_delta("msg_1", "Trunc"),
        completed("incomplete", usage(4, 0, 16)),
    ]
    .concat();
    vec![
        json!({"kind": "wire", "name": "in_stream_error_event",
               "input": {"api": "openai-responses", "body": partial.clone()
                   + &ev("error", json!({"code": "server_error", "message": "The server had an error"}))},
               "expect": {"message": {"content": [{"type": "text", "text": "Part"}], "stopReason": "error",
                                      "errorMessageContains": "The server had an error"},
                          "events": ["start", "text_start", "text_delta", "error"]}}),
        json!({"kind": "wire", "name": "response_failed",
               "input": {"api": "openai-responses", "body": partial.clone()
                   + &ev("response.failed", json!({"response": {"status": "failed",
                         "error": {"code": "server_error", "message": "Something went wrong"}}}))},
               "expect": {"message": {"stopReason": "error", "errorMessageContains": "server_error: Something went wrong"}}}),
        json!({"kind": "wire", "name": "cut_without_terminal_event",
               "input": {"api": "openai-responses", "body": partial},
               "expect": {"message": {"content": [{"type": "text", "text": "Part"}], "stopReason": "error",
                                      "errorMessageContains": "stream ended before completion"}}}),
        json!({"kind": "wire", "name": "incomplete_max_output_tokens",
               "input": {"api": "openai-responses", "body": incomplete},
               "expect": {"message": {"stopReason": "length", "usage": {"input": 4, "output": 16}}}}),
        json!({"kind": "wire", "name": "error_429_retry_after", "input": {"api": "openai-responses",
               "status": 429, "headers": {"retry-after-ms": "1500", "content-type": "application/json"},
               "body": "{\"error\":{\"message\":\"Rate limit reached for gpt-5\",\"type\":\"tokens\",\"code\":\"rate_limit_exceeded\"}}"},
               "expect": {"message": {"stopReason": "error", "errorMessageContains": "429 Rate limit reached"},
                          "error": {"reason": "rate_limit", "retryAfterMs": 1500}}}),
        json!({"kind": "wire", "name": "error_400_context_window", "input": {"api": "openai-responses",
               "status": 400, "body": "{\"error\":{\"message\":\"Your input exceeds the context window of this model. Please adjust your input and try again.\",\"type\":\"invalid_request_error\",\"param\":\"input\",\"code\":\"context_length_exceeded\"}}"},
               "expect": {"message": {"stopReason": "error"}, "error": {"contextOverflow": true}}}),
        json!({"kind": "wire", "name": "error_503_html", "input": {"api": "openai-responses",
               "status": 503, "headers": {"content-type": "text/html"},
               "body": "<!DOCTYPE html><html><head><title>503 Service Unavailable</title></head></html>"},
               "expect": {"message": {"stopReason": "error", "errorMessageContains": "503 Service Unavailable"},
                          "events": ["error"]}}),
    ]
}

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let start = |url: &str, extra: &Value| {
        OpenAiResponses::new(transport()).stream_with_diagnostics(
            &model(url, extra.clone()),
            &context(),
            StreamOptions::default(),
        )
    };
    let outcome = wire_expect::run_public_scenarios(
        &Api::OpenaiResponses,
        Some("openai-responses"),
        &own_cases(),
        &start,
    )
    .await;
    let public = outcome
        .passed
        .iter()
        .chain(&outcome.failures)
        .filter(|name| !name.starts_with("own#"))
        .count();
    outcome.assert_all_passed();
    assert!(public >= 7, "only {public} public cases ran");
}

#[tokio::test]
async fn real_fixtures_decode_into_full_messages() {
    // Beyond the scenarios' summaries: the exact reasoning signature of a real stream is the
    // item JSON from `output_item.done`, and text signatures carry the phase.
    let dir = wire_expect::shared().join("fixtures/real/openai-responses");
    let body = std::fs::read(dir.join("phase_on_part_start_reasoning_fc.sse")).unwrap();
    let c = call(ScriptedResponse::sse(body.clone())).await;
    let m = c.message();
    let item_done = String::from_utf8(body)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str::<Value>(d).unwrap())
        .find(|e| e["type"] == "response.output_item.done" && e["item"]["type"] == "reasoning")
        .unwrap();
    let ContentBlock::Thinking(thinking) = &m.content[0] else {
        panic!("{m:?}")
    };
    assert_eq!(
        serde_json::from_str::<Value>(thinking.thinking_signature.as_deref().unwrap()).unwrap(),
        item_done["item"]
    );
    let ContentBlock::Text(text) = &m.content[1] else {
        panic!("{m:?}")
    };
    assert_eq!(
        text.text_signature.as_deref(),
        Some(
            r#"{"v":1,"id":"msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce","phase":"commentary"}"#
        )
    );
    // Replaying the decoded message sends the reasoning item and ids back unchanged.
    let model = model("unused", json!({"reasoning": true}));
    let mut replay = m.clone();
    replay.model = model.id.clone();
    let context = Context {
        system_prompt: None,
        messages: vec![
            Message::User(UserMessage::text("capital?", 1)),
            Message::Assistant(replay),
            Message::ToolResult(ToolResultMessage::text(
                "call_LabG58Uhrq9kZvR52BYKjToD|fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb",
                "get_capital",
                "Potatoville",
                false,
                2,
            )),
        ],
        tools: Vec::new(),
    };
    let body = clawloop_providers::openai_responses::build_body(
        &model,
        &context,
        &StreamOptions {
            reasoning: Some(ThinkLevel::Low),
            ..StreamOptions::default()
        },
    );
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[1], item_done["item"]);
    assert_eq!(
        input[2]["id"],
        "msg_0fabc13af1ee0049006a691dfebdc881a1ae18d027c313d8ce"
    );
    assert_eq!(input[2]["phase"], "commentary");
    assert_eq!(
        input[3]["id"],
        "fc_0fabc13af1ee0049006a691dff0c1481a1b4a0eec7e3c753bb"
    );
    assert_eq!(
        input[4],
        json!({"type": "function_call_output", "call_id": "call_LabG58Uhrq9kZvR52BYKjToD", "output": "Potatoville"})
    );
    assert_eq!(wire_roles(&body), ["user", "assistant", "tool"]);
}
