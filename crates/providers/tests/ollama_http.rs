//! `ollama` (native `/api/chat`, NDJSON) over real HTTP against the scripted server: the request
//! sent, text, thinking, single and parallel tool calls, images, usage, each error class,
//! stalls, drops and aborts, the scripted encoder, and every public `wire` scenario for the API
//! (whole, one byte per read and at seeded random splits, all agreeing).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/wire_expect.rs"]
mod wire_expect;

use std::time::Duration;

use clawloop_core::classify::is_context_overflow_error;
use clawloop_core::message::{
    ContentBlock, ThinkingContent, ToolCall, ToolResultMessage, UserContent,
};
use clawloop_core::{
    Api, AssistantMessage, Context, FailoverReason, LlmStream, Message, Model, StopReason,
    StreamOptions, ThinkLevel, ToolDefinition, UserMessage,
};
use clawloop_providers::Ollama;
use clawloop_testkit::script::ollama as script;
use clawloop_testkit::{Chunking, ScriptedReply, ScriptedResponse, ScriptedServer};
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
            "id": "qwen3:8b", "api": "ollama", "provider": "ollama", "baseUrl": base_url,
            "reasoning": true, "input": ["text", "image"], "contextWindow": 40960, "maxTokens": 8192
        }),
        extra,
    )
}

/// One NDJSON line with `message` fields (role and empty content filled in).
fn line(message: Value) -> String {
    let mut m = json!({"role": "assistant", "content": ""});
    if let (Some(m), Value::Object(fields)) = (m.as_object_mut(), message) {
        m.extend(fields);
    }
    format!(
        "{}\n",
        json!({"model": "qwen3:8b", "created_at": "2025-06-01T10:00:00.1Z", "message": m, "done": false})
    )
}

/// The final line.
fn done(reason: &str, prompt: u64, eval: u64) -> String {
    format!(
        "{}\n",
        json!({"model": "qwen3:8b", "created_at": "2025-06-01T10:00:01Z",
               "message": {"role": "assistant", "content": ""}, "done": true, "done_reason": reason,
               "total_duration": 2_512_345_678_u64, "prompt_eval_count": prompt, "eval_count": eval})
    )
}

fn text_body() -> String {
    [
        line(json!({"content": "Hello"})),
        line(json!({"content": ", wörld 🦞"})),
        done("stop", 42, 17),
    ]
    .concat()
}

fn ndjson(body: impl Into<Vec<u8>>) -> ScriptedResponse {
    ScriptedResponse::sse(body).header("content-type", "application/x-ndjson")
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
            Ollama::new(transport()),
            idle,
            &model(url, &extra),
            &context,
            options,
            Ollama::stream_with_diagnostics,
        )
    })
    .await;
    assert_contract(&c.events);
    c
}

async fn call(response: ScriptedResponse) -> Call {
    call_full(
        response,
        json!({}),
        context(),
        StreamOptions::default(),
        None,
    )
    .await
}

/// Generated ids (`ollama_call_<hash>_<n>`) with the hash replaced by `#`.
fn masked(message: &AssistantMessage) -> AssistantMessage {
    let mut message = message.clone();
    for block in &mut message.content {
        if let ContentBlock::ToolCall(call) = block
            && let Some(rest) = call.id.strip_prefix("ollama_call_")
            && let Some((hash, n)) = rest.split_once('_')
            && hash
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        {
            call.id = format!("ollama_call_#_{n}");
        }
    }
    message
}

// --- content ----------------------------------------------------------------------------------

#[tokio::test]
async fn text_with_usage_and_the_request_sent() {
    let c = call_full(
        ndjson(text_body()),
        json!({"cost": {"input": 1.0, "output": 2.0}}),
        context(),
        StreamOptions {
            temperature: Some(0.2),
            ..StreamOptions::default()
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
            "text_end",
            "done"
        ]
    );
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Hello, wörld 🦞")]);
    assert_eq!(m.stop_reason, StopReason::Stop);
    assert_eq!(m.api, Api::Ollama);
    assert_eq!(
        (
            m.usage.input,
            m.usage.output,
            m.usage.cache_read,
            m.usage.total_tokens
        ),
        (42, 17, 0, 59)
    );
    assert!((m.usage.cost.total - (42.0 + 34.0) / 1e6).abs() < 1e-12);
    let requests = c.server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/api/chat");
    assert_eq!(
        requests[0].header("authorization"),
        None,
        "local Ollama needs no key"
    );
    assert_eq!(
        c.body(),
        json!({
            "model": "qwen3:8b",
            "messages": [{"role": "system", "content": "You are terse."},
                         {"role": "user", "content": "hi"}],
            "stream": true,
            "options": {"num_ctx": 40960, "temperature": 0.2, "num_predict": 8192}
        })
    );
    assert_eq!(script::wire_roles(&c.body()), vec!["user".to_owned()]);
}

#[tokio::test]
async fn every_split_gives_the_same_message() {
    let body = [
        line(json!({"thinking": "Hm"})),
        line(json!({"content": "Sure."})),
        line(json!({"tool_calls": [{"function": {"name": "ls", "arguments": {"dir": "é"}}}]})),
        done("stop", 5, 6),
    ]
    .concat();
    assert_every_split_agrees(ndjson(body), call).await;
}

#[tokio::test]
async fn thinking_then_text_and_think_sent() {
    let body = [
        line(json!({"thinking": "Let me"})),
        line(json!({"thinking": " think."})),
        line(json!({"content": "Done."})),
        done("length", 3, 9),
    ]
    .concat();
    let c = call_full(
        ndjson(body),
        json!({}),
        context(),
        StreamOptions {
            reasoning: Some(ThinkLevel::Low),
            ..StreamOptions::default()
        },
        None,
    )
    .await;
    assert_eq!(
        c.message().content,
        vec![
            ContentBlock::Thinking(ThinkingContent {
                thinking: "Let me think.".into(),
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
    assert_eq!(c.body()["think"], true);
}

#[tokio::test]
async fn single_tool_call_gets_an_id_and_stop_becomes_tool_use() {
    let body = [
        line(json!({"tool_calls": [{"function": {"name": "read", "arguments": {"path": "src/main.rs"}}}]})),
        done("stop", 10, 2),
    ]
    .concat();
    let c = call(ndjson(body)).await;
    assert_eq!(
        masked(c.message()).content,
        vec![ContentBlock::ToolCall(ToolCall::new(
            "ollama_call_#_1",
            "read",
            json!({"path": "src/main.rs"})
        ))]
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
}

#[tokio::test]
async fn parallel_tool_calls_with_and_without_ids() {
    let body = [
        line(json!({"content": "Checking."})),
        line(json!({"tool_calls": [
            {"id": "call_a", "function": {"index": 0, "name": "ls", "arguments": {"dir": "a"}}},
            {"function": {"index": 1, "name": "ls", "arguments": {"dir": "b"}}}
        ]})),
        line(json!({"tool_calls": [
            {"function": {"index": 2, "name": "read", "arguments": "{\"path\": \"x\"}"}}
        ]})),
        done("stop", 1, 1),
    ]
    .concat();
    let c = call(ndjson(body).chunked(Chunking::Fixed(9))).await;
    assert_eq!(
        masked(c.message()).content,
        vec![
            ContentBlock::text("Checking."),
            ContentBlock::ToolCall(ToolCall::new("call_a", "ls", json!({"dir": "a"}))),
            ContentBlock::ToolCall(ToolCall::new("ollama_call_#_1", "ls", json!({"dir": "b"}))),
            ContentBlock::ToolCall(ToolCall::new(
                "ollama_call_#_2",
                "read",
                json!({"path": "x"})
            )),
        ]
    );
    assert_eq!(c.message().stop_reason, StopReason::ToolUse);
    assert_eq!(
        c.types().iter().filter(|t| **t == "toolcall_end").count(),
        3
    );
}

#[tokio::test]
async fn images_tools_tool_results_and_replay_in_the_request() {
    let server_model = model("http://unused", &json!({}));
    let mut assistant = AssistantMessage::for_model(&server_model, 2);
    assistant.content = vec![
        ContentBlock::Thinking(ThinkingContent {
            thinking: "look first".into(),
            ..ThinkingContent::default()
        }),
        ContentBlock::ToolCall(ToolCall::new("c1", "shot", json!({"url": "a"}))),
    ];
    assistant.stop_reason = StopReason::ToolUse;
    let mut result = ToolResultMessage::text("c1", "shot", "", false, 3);
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
            parameters: json!({"type": "object", "properties": {"url": {"type": "string"}}}),
        }],
    };
    let body = [line(json!({"content": "A cat."})), done("stop", 1, 1)].concat();
    let c = call_full(
        ndjson(body),
        json!({}),
        context,
        StreamOptions::default(),
        None,
    )
    .await;
    assert_eq!(c.message().text(), "A cat.");
    assert_eq!(
        c.body(),
        json!({
            "model": "qwen3:8b",
            "messages": [
                {"role": "user", "content": "what is this?", "images": ["QUJD"]},
                {"role": "assistant", "content": "", "thinking": "look first",
                 "tool_calls": [{"function": {"name": "shot", "arguments": {"url": "a"}}}]},
                {"role": "tool", "content": "(see attached image)", "tool_name": "shot"},
                {"role": "user", "content": "Attached image(s) from tool result:", "images": ["SU1H"]}
            ],
            "stream": true,
            "tools": [{"type": "function", "function": {"name": "shot", "description": "Take a screenshot",
                       "parameters": {"type": "object", "properties": {"url": {"type": "string"}}}}}],
            "options": {"num_ctx": 40960, "num_predict": 8192}
        })
    );
    assert_eq!(
        script::wire_roles(&c.body()),
        vec!["user", "assistant", "tool", "user"]
    );
}

#[tokio::test]
async fn a_v1_base_url_and_a_key_reach_the_native_endpoint() {
    let server = ScriptedServer::start(vec![ndjson(text_body())])
        .await
        .unwrap();
    let model = model(&format!("{}/v1", server.url()), &json!({}));
    let options = StreamOptions {
        api_key: Some("ollama-cloud-key".into()),
        ..StreamOptions::default()
    };
    let events = collect(LlmStream::stream(
        &Ollama::new(transport()),
        &model,
        &context(),
        options,
    ))
    .await;
    assert_contract(&events);
    let requests = server.requests();
    assert_eq!(requests[0].path, "/api/chat");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer ollama-cloud-key")
    );
}

// --- errors -----------------------------------------------------------------------------------

#[tokio::test]
async fn rate_limit_429_with_retry_after() {
    let c = call(
        ScriptedResponse::status(429, r#"{"error":"too many requests, please retry later"}"#)
            .header("retry-after", "3"),
    )
    .await;
    assert_rate_limited(&c, "429 too many requests, please retry later", 3000, None);
}

#[tokio::test]
async fn unauthorized_401_and_missing_model_404() {
    let c = call(ScriptedResponse::status(401, r#"{"error":"unauthorized"}"#)).await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("401 unauthorized")
    );
    assert_eq!(c.reason(), Some(FailoverReason::Auth));
    let c = call(ScriptedResponse::status(
        404,
        r#"{"error":"model \"qwen9\" not found, try pulling it first"}"#,
    ))
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("404 model \"qwen9\" not found, try pulling it first")
    );
    assert_eq!(c.reason(), Some(FailoverReason::ModelNotFound));
}

#[tokio::test]
async fn prompt_too_long_400_is_a_context_overflow() {
    let c = call(ScriptedResponse::status(
        400,
        r#"{"error":"prompt too long; exceeded max context length by 212 tokens"}"#,
    ))
    .await;
    let text = c.message().error_message.clone().unwrap();
    assert_eq!(
        text,
        "400 prompt too long; exceeded max context length by 212 tokens"
    );
    assert!(is_context_overflow_error(&text));
}

#[tokio::test]
async fn server_errors_html_page() {
    let c = call(
        ScriptedResponse::status(
            502,
            "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
        )
        .header("content-type", "text/html"),
    )
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("502 Bad Gateway (HTML error page)")
    );
    let c = call(ScriptedResponse::status(
        500,
        r#"{"error":"llama runner process has terminated: exit status 2"}"#,
    ))
    .await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("500 llama runner process has terminated: exit status 2")
    );
}

#[tokio::test]
async fn in_stream_error_keeps_partial_text() {
    let body = [
        line(json!({"content": "Partial"})),
        "{\"error\":\"an error was encountered while running the model: unexpected EOF\"}\n"
            .to_owned(),
    ]
    .concat();
    let c = call(ndjson(body)).await;
    let m = c.message();
    assert_eq!(m.content, vec![ContentBlock::text("Partial")]);
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(
        m.error_message.as_deref(),
        Some("an error was encountered while running the model: unexpected EOF")
    );
}

#[tokio::test]
async fn garbage_bodies_are_clear_errors() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            format!(
                "{}{{\"message\": {{\"content\": ",
                line(json!({"content": "x"}))
            )
            .into_bytes(),
            "Invalid JSON in stream",
        ),
        (
            b"{\"message\":{\"content\":\"\xff\"}}\n".to_vec(),
            "not valid UTF-8",
        ),
        (b"not json\n".to_vec(), "Invalid JSON in stream"),
        (b"".to_vec(), "stream ended before completion"),
        (
            line(json!({"content": "no done line"})).into_bytes(),
            "stream ended before completion",
        ),
    ];
    for (body, expected) in cases {
        let c = call(ndjson(body)).await;
        let message = c.message().error_message.clone().unwrap_or_default();
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
    let c =
        call(ScriptedResponse::sse("<html>hi</html>").header("content-type", "text/html")).await;
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("200 Unexpected HTML page instead of an NDJSON stream")
    );
}

// --- transport --------------------------------------------------------------------------------

#[tokio::test]
async fn drop_mid_stream_is_an_error_with_partial_text() {
    let first = line(json!({"content": "Hello"}));
    let c = call(
        ndjson(text_body())
            .chunked(Chunking::At(vec![first.len(), first.len() + 40]))
            .drop_after(1),
    )
    .await;
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.text(), "Hello");
    assert!(m.error_message.is_some());
}

#[tokio::test]
async fn stall_hits_the_idle_timeout() {
    let first = line(json!({"content": "Hello"}));
    let c = call_full(
        ndjson(text_body())
            .chunked(Chunking::At(vec![first.len()]))
            .stall(1, Duration::from_secs(30)),
        json!({}),
        context(),
        StreamOptions::default(),
        Some(STALL_IDLE),
    )
    .await;
    assert_idle_timeout(&c);
    assert_eq!(c.message().text(), "Hello");
}

#[tokio::test]
async fn cancel_mid_stream_is_aborted_with_partial_text_and_closes_the_connection() {
    let first = line(json!({"content": "Hello"}));
    let body = [
        first.clone(),
        line(json!({"content": " there"})),
        line(json!({"content": "!"})),
        done("stop", 1, 3),
    ]
    .concat();
    let cuts = trickle_cuts(first.len(), 10, body.len());
    let response = ndjson(body).chunked(Chunking::At(cuts));
    let (events, server) = cancel_at_first_delta(response, |url, options| {
        Ollama::new(transport()).stream(&model(url, &json!({})), &context(), options)
    })
    .await;
    assert_aborted_and_disconnected(&events, "Hello", &server).await;
}

#[tokio::test]
async fn already_cancelled_makes_no_request() {
    let c = call_full(ndjson(text_body()), json!({}), context(), cancelled(), None).await;
    assert_no_request_when_cancelled(&c);
}

#[tokio::test]
async fn connection_refused_is_an_error_event() {
    let events = collect(Ollama::new(transport()).stream(
        &model(&refused_url(), &json!({})),
        &context(),
        StreamOptions::default(),
    ))
    .await;
    assert_connection_refused(&events);
}

// --- scripted encoder -------------------------------------------------------------------------

/// Serves `reply` as the scripted server would: each encoded line one write.
fn scripted(reply: &ScriptedReply) -> ScriptedResponse {
    one_write_each(
        &script::encode_reply(reply, "qwen3:8b"),
        script::CONTENT_TYPE,
    )
}

#[tokio::test]
async fn scripted_replies_round_trip_over_http() {
    let reply: ScriptedReply = serde_json::from_value(json!({
        "thinking": "Hmm.", "textChunks": ["Let me ", "look."],
        "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "a"}},
                      {"name": "ls", "argumentsRaw": "{\"dir\": \".\""}],
        "usage": {"input": 11, "output": 7}
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
            ContentBlock::ToolCall(ToolCall::new("ollama_call_#_1", "ls", json!({"dir": "."}))),
        ]
    );
    assert_eq!(m.stop_reason, StopReason::ToolUse);
    assert_eq!(
        (m.usage.input, m.usage.output, m.usage.total_tokens),
        (11, 7, 18)
    );
    let reply: ScriptedReply =
        serde_json::from_value(json!({"text": "short", "stopReason": "length"})).unwrap();
    let c = call(scripted(&reply)).await;
    assert_eq!(
        (c.message().text(), c.message().stop_reason),
        ("short".to_owned(), StopReason::Length)
    );
}

#[tokio::test]
async fn scripted_stream_error_and_drop() {
    let reply: ScriptedReply = serde_json::from_value(
        json!({"textChunks": ["a", "b"], "streamError": "model runner crashed"}),
    )
    .unwrap();
    let c = call(scripted(&reply)).await;
    assert_eq!(c.message().text(), "ab");
    assert_eq!(
        c.message().error_message.as_deref(),
        Some("model runner crashed")
    );
    let reply: ScriptedReply =
        serde_json::from_value(json!({"textChunks": ["a", "b", "c"]})).unwrap();
    let c = call(scripted(&reply).drop_after(1)).await;
    assert_eq!(c.message().text(), "a");
    assert_eq!(c.message().stop_reason, StopReason::Error);
}

// --- conformance ------------------------------------------------------------------------------

#[tokio::test]
async fn public_wire_scenarios() {
    let start = |url: &str, extra: &Value| {
        Ollama::new(transport()).stream_with_diagnostics(
            &model(url, extra),
            &context(),
            StreamOptions::default(),
        )
    };
    // There are no real Ollama recordings in the shared fixtures.
    let outcome = wire_expect::run_public_scenarios(&Api::Ollama, None, &[], &start).await;
    outcome.assert_all_passed();
    assert!(!outcome.passed.is_empty(), "no public ollama scenario ran");
}
