//! `google-generative-ai` over real HTTP against the scripted server: the request sent, text,
//! thinking with thought signatures, single and parallel function calls, images, usage, each
//! error class, stalls, drops and aborts, the scripted encoder, and every public `wire` scenario
//! and real Gemini recording (whole, one byte per read and at seeded random splits, all
//! agreeing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/wire_expect.rs"]
mod wire_expect;

use std::time::Duration;

use clawloop_core::classify::is_context_overflow_error;
use clawloop_core::message::{
    ContentBlock, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserContent,
};
use clawloop_core::{
    Api, AssistantMessage, AssistantMessageEvent, Context, FailoverReason, LlmStream, Message,
    Model, StopReason, StreamOptions, ThinkLevel, ToolDefinition, UserMessage,
};
use clawloop_providers::GoogleGenerativeAi;
use clawloop_testkit::script::google_generative_ai as script;
use clawloop_testkit::{Chunking, ScriptedReply, ScriptedResponse};
use common::{
    Call, STALL_IDLE, assert_aborted_and_disconnected, assert_connection_refused, assert_contract,
    assert_every_split_agrees, assert_idle_timeout, assert_no_request_when_cancelled,
    assert_rate_limited, call_server, cancel_at_first_delta, cancelled, collect, context,
    model_from, one_write_each, refused_url, start, transport, trickle_cuts,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

// --- helpers ----------------------------------------------------------------------------------

fn model(base_url: &str, extra: &Value) -> Model {
    model_from(
        json!({
            "id": "gemini-2.5-flash", "api": "google-generative-ai", "provider": "google",
            "baseUrl": format!("{base_url}/v1beta"), "reasoning": true, "input": ["text", "image"],
            "contextWindow": 1_048_576, "maxTokens": 65536
        }),
        extra,
    )
}

fn keyed() -> StreamOptions {
    common::keyed("AIza-test")
}

/// One SSE event as Google frames it (CRLF).
fn event(chunk: Value) -> String {
    format!("data: {chunk}\r\n\r\n")
}

/// A chunk with `parts` of the first candidate, and optional finish reason and usage.
fn chunk(parts: Value, finish: Option<&str>, usage: Option<Value>) -> String {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(finish) = finish {
        candidate["finishReason"] = json!(finish);
    }
    let mut chunk = json!({"candidates": [candidate], "modelVersion": "gemini-2.5-flash",
                           "responseId": "resp-1"});
    if let Some(usage) = usage {
        chunk["usageMetadata"] = usage;
    }
    event(chunk)
}

fn text_body() -> String {
    [
        chunk(json!([{"text": "Hello"}]), None, None),
        chunk(json!([{"text": ", wörld 🦞"}]), None, None),
        chunk(
            json!([{"text": "!"}]),
            Some("STOP"),
            Some(
                json!({"promptTokenCount": 100, "cachedContentTokenCount": 60,
                        "candidatesTokenCount": 12, "totalTokenCount": 112}),
            ),
        ),
    ]
    .concat()
}

/// One call against a fresh server playing `response`.
async fn call_full(
    response: ScriptedResponse,
    extra: Value,
    context: Context,
    options: StreamOptions,
    idle: Option<Duration>,
) -> Call {
    let c = call_server(response, |url| {
        start(
            GoogleGenerativeAi::new(transport()),
            idle,
            &model(url, &extra),
            &context,
            options,
            GoogleGenerativeAi::stream_with_diagnostics,
        )
    })
    .await;
    assert_contract(&c.events);
    c
}

async fn call(response: ScriptedResponse) -> Call {
    call_full(response, json!({}), context(), keyed(), None).await
}

/// Generated ids (`<name>_<hash>_<n>`) with the hash replaced by `#`, for whole comparisons.
fn masked(message: &AssistantMessage) -> AssistantMessage {
    let mut message = message.clone();
    for block in &mut message.content {
        if let ContentBlock::ToolCall(call) = block {
            let pieces: Vec<&str> = call.id.rsplitn(3, '_').collect();
            if let [n, hash, name] = pieces[..]
                && name == call.name
                && hash
                    .bytes()
                    .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
            {
                call.id = format!("{name}_#_{n}");
            }
        }
    }
    message
}

// --- content ----------------------------------------------------------------------------------

#[tokio::test]
async fn text_with_cached_usage_and_the_request_sent() {
    let c = call_full(
        ScriptedResponse::sse(text_body()),
        json!({"cost": {"input": 1.0, "output": 2.0, "cacheRead": 0.5}}),
        context(),
        StreamOptions {
            temperature: Some(0.3),
            ..keyed()
        },
        None,
    )
    .await;
    assert_eq!(
        c.types(),
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Hello, wörld 🦞!")]);
    assert_eq!(m.stop_reason, StopReason::Stop);
    assert_eq!(m.api, Api::GoogleGenerativeAi);
    // `input` excludes the cached tokens Gemini counts inside `promptTokenCount`.
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
    assert_eq!(
        requests[0].path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(requests[0].header("x-goog-api-key"), Some("AIza-test"));
    assert_eq!(requests[0].header("authorization"), None);
    assert_eq!(
        c.body(),
        json!({
            "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
            "systemInstruction": {"role": "user", "parts": [{"text": "You are terse."}]},
            "generationConfig": {"temperature": 0.3, "maxOutputTokens": 32000}
        })
    );
    assert_eq!(
        script::wire_roles(&c.body()),
        vec!["user".to_owned()],
        "the system instruction is not a role"
    );
}

#[tokio::test]
async fn every_split_gives_the_same_message() {
    assert_every_split_agrees(ScriptedResponse::sse(text_body()), call).await;
}

#[tokio::test]
async fn thoughts_with_signatures_then_text_and_the_budget_sent() {
    let body = [
        chunk(
            json!([{"text": "**Planning**\n", "thought": true}]),
            None,
            None,
        ),
        chunk(
            json!([{"text": "Think harder.", "thought": true, "thoughtSignature": "c2lnMQ=="}]),
            None,
            None,
        ),
        chunk(
            json!([{"text": "Done.", "thoughtSignature": "c2lnMg=="}]),
            Some("MAX_TOKENS"),
            Some(json!({"promptTokenCount": 10, "candidatesTokenCount": 3,
                        "thoughtsTokenCount": 20, "totalTokenCount": 33})),
        ),
    ]
    .concat();
    let c = call_full(
        ScriptedResponse::sse(body),
        json!({}),
        context(),
        StreamOptions {
            reasoning: Some(ThinkLevel::Medium),
            ..keyed()
        },
        None,
    )
    .await;
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "**Planning**\nThink harder.".into(),
                thinking_signature: Some("c2lnMQ==".into()),
                ..ThinkingContent::default()
            }),
            ContentBlock::Text(TextContent {
                text: "Done.".into(),
                text_signature: Some("c2lnMg==".into()),
                ..TextContent::default()
            }),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::Length);
    // Thoughts count as output.
    assert_eq!(
        (c.message().usage.output, c.message().usage.total_tokens),
        (23, 33)
    );
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
    assert_eq!(
        c.body()["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": 8192})
    );
}

#[tokio::test]
async fn single_function_call_gets_an_id_and_stop_becomes_tool_use() {
    let body = chunk(
        json!([{"functionCall": {"name": "read", "args": {"path": "src/main.rs"}},
                "thoughtSignature": "Y2FsbA=="}]),
        Some("STOP"),
        Some(json!({"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55})),
    );
    let c = call(ScriptedResponse::sse(body)).await;
    let mut read = ToolCall::new("read_#_1", "read", json!({"path": "src/main.rs"}));
    read.thought_signature = Some("Y2FsbA==".into());
    assert_eq!(
        masked(c.message()).content,
        vec![ContentBlock::ToolCall(read)]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    assert_eq!(
        c.types(),
        [
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    let delta = c.events.iter().find_map(|e| match e {
        AssistantMessageEvent::ToolcallDelta { delta, .. } => Some(delta.clone()),
        _ => None,
    });
    assert_eq!(delta.as_deref(), Some(r#"{"path":"src/main.rs"}"#));
}

#[tokio::test]
async fn parallel_function_calls_after_text_with_distinct_ids() {
    let body = [
        chunk(json!([{"text": "Checking both."}]), None, None),
        chunk(
            json!([
                {"functionCall": {"name": "ls", "args": {"dir": "a"}}},
                {"functionCall": {"name": "ls", "args": {"dir": "b"}}},
                {"functionCall": {"id": "fc-given", "name": "read"}}
            ]),
            Some("STOP"),
            None,
        ),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body).chunked(Chunking::Fixed(7))).await;
    assert_eq!(
        masked(c.message()).content,
        vec![
            ContentBlock::text("Checking both."),
            ContentBlock::ToolCall(ToolCall::new("ls_#_1", "ls", json!({"dir": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("ls_#_2", "ls", json!({"dir": "b"}))),
            ContentBlock::ToolCall(ToolCall::new("fc-given", "read", json!({}))),
        ]
    );
    let ids: Vec<_> = c.message().tool_calls().map(|t| t.id.clone()).collect();
    assert_ne!(ids[0], ids[1]);
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    let types = c.types();
    assert_eq!(types.iter().filter(|t| **t == "toolcall_start").count(), 3);
    assert_eq!(types.iter().filter(|t| **t == "toolcall_end").count(), 3);
}

#[tokio::test]
async fn images_tools_tool_results_and_replay_in_the_request() {
    let server_model = model("http://unused", &json!({}));
    let mut call_block = ToolCall::new("shot_x_1", "shot", json!({"url": "a"}));
    call_block.thought_signature = Some("Y2FsbA==".into());
    let mut assistant = AssistantMessage::for_model(&server_model, 2);
    assistant.content = vec![
        ContentBlock::Thinking(ThinkingContent {
            thinking: "look first".into(),
            thinking_signature: Some("dGhpbms=".into()),
            ..ThinkingContent::default()
        }),
        ContentBlock::ToolCall(call_block),
    ];
    assistant.stop_reason = StopReason::ToolUse;
    let mut result = ToolResultMessage::text("shot_x_1", "shot", "", false, 3);
    result.content = vec![ContentBlock::image("SU1H", "image/png")];
    let mut user = UserMessage::text("what is this?", 1);
    user.content = UserContent::Blocks(vec![
        ContentBlock::text("what is this?"),
        ContentBlock::image("QUJD", "image/jpeg"),
    ]);
    let context = Context {
        system_prompt: None,
        messages: vec![
            Message::User(user),
            Message::Assistant(assistant),
            Message::ToolResult(result),
        ],
        tools: vec![ToolDefinition {
            name: "shot".into(),
            description: "Take a screenshot".into(),
            parameters: json!({"type": "object", "properties": {"url": {"type": "string"}},
                               "required": ["url"]}),
        }],
    };
    let body = chunk(json!([{"text": "A cat."}]), Some("STOP"), None);
    let c = call_full(
        ScriptedResponse::sse(body),
        json!({}),
        context,
        keyed(),
        None,
    )
    .await;
    assert_eq!(c.message().text(), "A cat.");
    assert_eq!(
        c.body(),
        json!({
            "contents": [
                {"role": "user", "parts": [
                    {"text": "what is this?"},
                    {"inlineData": {"mimeType": "image/jpeg", "data": "QUJD"}}
                ]},
                {"role": "model", "parts": [
                    {"thought": true, "text": "look first", "thoughtSignature": "dGhpbms="},
                    {"functionCall": {"name": "shot", "args": {"url": "a"}}, "thoughtSignature": "Y2FsbA=="}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "shot", "response": {"output": "(see attached image)"}}}
                ]},
                {"role": "user", "parts": [
                    {"text": "Tool result image:"},
                    {"inlineData": {"mimeType": "image/png", "data": "SU1H"}}
                ]}
            ],
            "tools": [{"functionDeclarations": [{"name": "shot", "description": "Take a screenshot",
                "parametersJsonSchema": {"type": "object", "properties": {"url": {"type": "string"}},
                                         "required": ["url"]}}]}],
            "generationConfig": {"maxOutputTokens": 32000}
        })
    );
    assert_eq!(
        script::wire_roles(&c.body()),
        vec!["user", "assistant", "tool", "user"]
    );
}

#[tokio::test]
async fn a_json_array_answer_without_sse_is_decoded() {
    let body = format!(
        "[{}\r\n,{}]",
        json!({"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}}]}),
        json!({"candidates": [{"content": {"parts": [{"text": " there"}], "role": "model"},
                               "finishReason": "STOP"}],
               "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5}})
    );
    let c = call(
        ScriptedResponse::sse(body)
            .header("content-type", "application/json; charset=UTF-8")
            .chunked(Chunking::Fixed(5)),
    )
    .await;
    assert_eq!(c.message().content, vec![ContentBlock::text("Hi there")]);
    assert_eq!(c.message().usage.total_tokens, 5);
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
}

// --- errors -----------------------------------------------------------------------------------

#[tokio::test]
async fn rate_limit_429_with_retry_after() {
    let c = call(
        ScriptedResponse::status(
            429,
            r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#,
        )
        .header("retry-after", "7")
        .header("x-goog-request-id", "goog-429"),
    )
    .await;
    assert_rate_limited(
        &c,
        "429 RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).",
        7000,
        Some("goog-429"),
    );
}

#[tokio::test]
async fn unauthenticated_401() {
    let c = call(ScriptedResponse::status(
        401,
        r#"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#,
    ))
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("401 UNAUTHENTICATED: Request had invalid authentication credentials.")
    );
    assert_eq!(c.reason(), Some(FailoverReason::Auth));
}

#[tokio::test]
async fn input_token_count_400_is_a_context_overflow() {
    let c = call(ScriptedResponse::status(
        400,
        r#"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
    ))
    .await;
    assert!(c.is_context_overflow());
    // Google's status name is kept (as pi keeps it from `@google/genai`), so OpenClaw's
    // overflow rule (`invalid_argument` + `maximum number of tokens`) sees an overflow too: no
    // failover reason, the runner compacts.
    assert_eq!(
        c.message().error_message.as_deref(),
        Some(
            "400 INVALID_ARGUMENT: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
        )
    );
    let m = c.message();
    assert!(is_context_overflow_error(
        m.error_message.as_deref().unwrap()
    ));
    assert_eq!(c.reason(), None);
    assert_eq!(
        clawloop_core::classify::classify_failover_signal(&m.failover_signal()),
        Some(clawloop_core::classify::FailoverClassification::ContextOverflow)
    );
}

#[tokio::test]
async fn server_errors_html_page_and_unavailable() {
    let c = call(
        ScriptedResponse::status(
            502,
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>gfe</body></html>",
        )
        .header("content-type", "text/html; charset=UTF-8"),
    )
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("502 Bad Gateway (HTML error page)")
    );
    let c = call(ScriptedResponse::status(
        503,
        r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#,
    ))
    .await;
    assert_eq!(c.reason(), Some(FailoverReason::Overloaded));
}

#[tokio::test]
async fn in_stream_error_keeps_partial_text() {
    let body = [
        chunk(json!([{"text": "Partial"}]), None, None),
        event(json!({"error": {"code": 500, "message": "Internal error encountered.", "status": "INTERNAL"}})),
    ]
    .concat();
    let c = call(ScriptedResponse::sse(body)).await;
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Partial")]);
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Internal error encountered.")
    );
    let c = call(ScriptedResponse::sse(
        "event: error\ndata: {\"message\":\"boom\"}\n\n",
    ))
    .await;
    assert_eq!(c.message().error_message.as_deref(), Some("boom"));
}

#[tokio::test]
async fn safety_stop_and_blocked_prompt_are_errors() {
    let c = call(ScriptedResponse::sse(chunk(
        json!([{"text": "I can"}]),
        Some("SAFETY"),
        None,
    )))
    .await;
    assert_eq!(c.message().stop_reason, StopReason::Error);
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("Provider finish_reason: SAFETY")
    );
    assert_eq!(c.message().text(), "I can");
    let c = call(ScriptedResponse::sse(event(json!({
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}
    }))))
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("Prompt blocked by the provider: PROHIBITED_CONTENT")
    );
    assert_eq!(c.message().usage.input, 9);
}

#[tokio::test]
async fn garbage_bodies_are_clear_errors() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!(
                "{}data: {{\"candidates\": [",
                chunk(json!([{"text": "x"}]), None, None)
            )
            .into_bytes(),
            "Invalid JSON in stream",
        ),
        (b"data: \xff\xfe\n\n".to_vec(), "not valid UTF-8"),
        (b"data: not json\n\n".to_vec(), "Invalid JSON in stream"),
        (b"".to_vec(), "stream ended before completion"),
        (
            chunk(json!([{"text": "no finish"}]), None, None).into_bytes(),
            "stream ended before completion",
        ),
    ];
    for (body, expected) in cases {
        let c = call(ScriptedResponse::sse(body)).await;
        let message = c.message().error_message.clone().unwrap_or_default();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
    let c =
        call(ScriptedResponse::sse("<html>hi</html>").header("content-type", "text/html")).await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("200 Unexpected HTML page instead of an event stream")
    );
    let c = call(
        ScriptedResponse::sse("Service Unavailable").header("content-type", "application/json"),
    )
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("Unexpected response body: not a JSON array of chunks")
    );
}

// --- transport --------------------------------------------------------------------------------

#[tokio::test]
async fn drop_mid_stream_is_an_error_with_partial_text() {
    let c = call(
        ScriptedResponse::sse(text_body())
            .chunked(Chunking::At(vec![150, 300]))
            .drop_after(2),
    )
    .await;
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert!(m.text().starts_with("Hello"), "{m:?}");
    assert!(m.error_message.is_some());
}

#[tokio::test]
async fn stall_hits_the_idle_timeout() {
    let c = call_full(
        ScriptedResponse::sse(text_body())
            .chunked(Chunking::At(vec![150]))
            .stall(1, Duration::from_secs(30)),
        json!({}),
        context(),
        keyed(),
        Some(STALL_IDLE),
    )
    .await;
    assert_idle_timeout(&c);
    assert_eq!(c.message().text(), "Hello");
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_partial_text_and_closes_the_connection() {
    let first = chunk(json!([{"text": "Hello"}]), None, None);
    let body = [
        first.clone(),
        chunk(json!([{"text": " there"}]), None, None),
        chunk(json!([{"text": "!"}]), Some("STOP"), None),
    ]
    .concat();
    let cuts = trickle_cuts(first.len(), 10, body.len());
    let response = ScriptedResponse::sse(body).chunked(Chunking::At(cuts));
    let (events, server) = cancel_at_first_delta(response, |url, options| {
        let options = StreamOptions {
            api_key: keyed().api_key,
            ..options
        };
        GoogleGenerativeAi::new(transport()).stream(&model(url, &json!({})), &context(), options)
    })
    .await;
    assert_aborted_and_disconnected(&events, "Hello", &server).await;
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
        context(),
        options,
        None,
    )
    .await;
    assert_no_request_when_cancelled(&c);
}

#[tokio::test]
async fn connection_refused_is_an_error_event() {
    let events = collect(GoogleGenerativeAi::new(transport()).stream(
        &model(&refused_url(), &json!({})),
        &context(),
        keyed(),
    ))
    .await;
    assert_connection_refused(&events);
}

// --- scripted encoder -------------------------------------------------------------------------

/// Serves `reply` as the scripted server would: each encoded chunk one write.
fn scripted(reply: &ScriptedReply) -> ScriptedResponse {
    one_write_each(
        &script::encode_reply(reply, "gemini-2.5-flash"),
        script::CONTENT_TYPE,
    )
}

#[tokio::test]
async fn scripted_replies_round_trip_over_http() {
    let reply: ScriptedReply = serde_json::from_value(json!({
        "thinking": "Hmm.", "textChunks": ["Let me ", "look."],
        "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}},
                      {"name": "ls", "argumentsRaw": "{\"dir\": \".\""}],
        "usage": {"input": 11, "output": 7, "cacheRead": 30}
    }))
    .unwrap();
    let c = call(scripted(&reply)).await;
    let m = masked(c.message());
    assert_eq!(
        m.content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Hmm.".into(),
                ..ThinkingContent::default()
            }),
            ContentBlock::text("Let me look."),
            ContentBlock::ToolCall(ToolCall::new("c1", "read", json!({"path": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("ls_#_1", "ls", json!({"dir": "."}))),
        ]
    );
    assert_eq!(m.stop_reason, StopReason::ToolUse);
    assert_eq!(
        (
            m.usage.input,
            m.usage.output,
            m.usage.cache_read,
            m.usage.cache_write
        ),
        (11, 7, 30, 0)
    );
    let reply: ScriptedReply = serde_json::from_value(
        json!({"text": "short", "stopReason": "length", "usage": {"output": 1}}),
    )
    .unwrap();
    let c = call(scripted(&reply)).await;
    assert_eq!(
        (c.message().text(), c.message().stop_reason),
        ("short".to_owned(), StopReason::Length)
    );
}

#[tokio::test]
async fn scripted_stream_error_and_drop() {
    let reply: ScriptedReply = serde_json::from_value(
        json!({"textChunks": ["a", "b"], "streamError": "Internal error encountered."}),
    )
    .unwrap();
    let c = call(scripted(&reply)).await;
    assert_eq!(c.message().text(), "ab");
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("Internal error encountered.")
    );
    let reply: ScriptedReply =
        serde_json::from_value(json!({"textChunks": ["a", "b", "c"]})).unwrap();
    let c = call(scripted(&reply).drop_after(1)).await;
    assert_eq!(c.message().text(), "a");
    assert_eq!(c.message().stop_reason, StopReason::Error);
    let error = c.message().error_message.clone().unwrap_or_default();
    assert!(
        error.starts_with("Error reading the response stream"),
        "{error}"
    );
}

// --- conformance ------------------------------------------------------------------------------

/// Real Gemini recordings that no public scenario covers, with their expected decoding.
fn own_fixture_cases() -> Vec<Value> {
    vec![json!({
        "kind": "wire",
        "name": "json_array_stream_parallel_function_calls",
        "description": "streamGenerateContent without alt=sse: a JSON array streamed element by element; a thought summary, then a function call with a signature",
        "input": {"api": "google-generative-ai", "bodyFile": "json_array_stream_parallel_function_calls.json",
                  "headers": {"content-type": "application/json; charset=UTF-8"}},
        "expect": {
            "message": {
                "content": [
                    {"type": "thinking", "thinking": "**Generating Pelican Names**\n\nOkay, I'm thinking I should use the `pelican_name_generator` tool to address the user's request. It seems straightforward: call it twice to get two different names for the pet pelican. It's a quick plan.\n\n\n", "hasSignature": false},
                    {"type": "toolCall", "name": "pelican_name_generator", "arguments": {}, "hasSignature": true}
                ],
                "stopReason": "toolUse",
                "usage": {"input": 32, "output": 54, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 86}
            },
            "events": ["start", "thinking_start", "thinking_end", "toolcall_start", "toolcall_end", "done"]
        }
    })]
}

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let start = |url: &str, extra: &Value| {
        GoogleGenerativeAi::new(transport()).stream_with_diagnostics(
            &model(url, extra),
            &context(),
            keyed(),
        )
    };
    let outcome = wire_expect::run_public_scenarios(
        &Api::GoogleGenerativeAi,
        Some("gemini"),
        &own_fixture_cases(),
        &start,
    )
    .await;
    outcome.assert_all_passed();
    // 8 public scenarios (every one a real fixture) + 1 own fixture case.
    assert_eq!(outcome.passed.len(), 9, "{:?}", outcome.passed);
}
