//! The dispatch function over real HTTP on 127.0.0.1: every API from a resolved model, the
//! wrappers in OpenClaw's order, a failure's data through every wrapper, and the one idle timer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clawloop_core::classify::{
    FailoverClassification, classify_failover_signal, is_idle_timeout_error,
};
use clawloop_core::message::{
    AssistantMessage, ContentBlock, Message, ThinkingContent, ToolCall, ToolResultMessage,
};
use clawloop_core::{
    Api, AssistantMessageEvent, Context, ErrorDiagnostics, FailoverReason, Model, StopReason,
    StreamOptions, UserMessage,
};
use clawloop_providers::wrappers::PayloadLogger;
use clawloop_providers::{StreamSettings, UnknownApi, stream_for_model};
use clawloop_testkit::{
    Chunking, ProviderScriptServer, ScriptedExchange, ScriptedResponse, ScriptedServer,
    collect_events,
};
use common::{context, transport};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Provider id, API, model id and the base-URL suffix each client expects under the root.
const APIS: [(&str, Api, &str, &str); 5] = [
    ("acme", Api::OpenaiCompletions, "m-chat", "/v1"),
    ("resp", Api::OpenaiResponses, "m-resp", "/v1"),
    ("bolt", Api::AnthropicMessages, "claude-x", ""),
    ("gem", Api::GoogleGenerativeAi, "gemini-x", "/v1beta"),
    ("ol", Api::Ollama, "qwen-x", ""),
];

fn model_at(base_url: &str, provider: &str, api: &Api, id: &str) -> Model {
    serde_json::from_value(json!({
        "id": id, "api": api.as_str(), "provider": provider, "baseUrl": base_url,
        "contextWindow": 128000, "maxTokens": 4096, "reasoning": true
    }))
    .unwrap()
}

fn exchange(json: Value) -> ScriptedExchange {
    serde_json::from_value(json).unwrap()
}

/// A `Write` whose bytes the test can read back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Shared {
    fn records(&self) -> Vec<Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// Every wrapper on: thinking dropped, ids sanitized, names trimmed, arguments repaired,
/// payloads logged, a generous idle timeout.
fn all_wrappers(log: &Shared) -> StreamSettings {
    StreamSettings {
        drop_thinking_blocks: true,
        payload_logger: Some(Arc::new(PayloadLogger::new(log.clone()))),
        idle_timeout: Some(Duration::from_secs(30)),
        ..StreamSettings::default()
    }
}

/// One call through `stream_for_model` with `settings` and key `key`; the last message.
async fn dispatch(
    model: &Model,
    context: &Context,
    key: Option<&str>,
    settings: &StreamSettings,
) -> (Vec<AssistantMessageEvent>, AssistantMessage) {
    let stream = stream_for_model(model, &transport(), key.map(str::to_owned), settings).unwrap();
    let events = collect_events(stream.stream(model, context, StreamOptions::default())).await;
    let message = events.last().unwrap().final_message().unwrap().clone();
    (events, message)
}

#[tokio::test]
async fn every_api_streams_through_the_dispatch_function() {
    let server = ProviderScriptServer::start().await.unwrap();
    let mut script = Vec::new();
    for (provider, api, id, _) in &APIS {
        script.push(exchange(json!({
            "expectRequest": {"provider": provider, "api": api.as_str(), "model": id,
                              "apiKey": format!("key-{provider}"), "lastUserTextContains": "hi"},
            "reply": {"thinking": "Let me think.", "textChunks": ["Hel", "lo"],
                      "toolCalls": [{"id": "call_1", "name": "read", "arguments": {"path": "a.txt"}}],
                      "usage": {"input": 12, "output": 7}}
        })));
    }
    server.begin_turn(script);
    for (provider, api, id, suffix) in &APIS {
        let base = format!("{}{suffix}", server.provider_url(provider));
        let model = model_at(&base, provider, api, id);
        let key = format!("key-{provider}");
        // The key given to the dispatch function is the call's key (the options carry none).
        let (events, message) =
            dispatch(&model, &context(), Some(&key), &StreamSettings::default()).await;
        assert_eq!(events[0].type_name(), "start", "{api}");
        assert_eq!(
            message.stop_reason,
            StopReason::ToolUse,
            "{api}: {message:?}"
        );
        assert_eq!(message.api, *api);
        assert_eq!(message.text(), "Hello", "{api}");
        let summary: Vec<(String, Value)> = message
            .content
            .iter()
            .map(|b| match b {
                ContentBlock::Thinking(t) => ("thinking".into(), json!(t.thinking)),
                ContentBlock::Text(t) => ("text".into(), json!(t.text)),
                ContentBlock::ToolCall(c) => (c.name.clone(), c.arguments.clone()),
                other => ("other".into(), json!(other.type_name())),
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("thinking".into(), json!("Let me think.")),
                ("text".into(), json!("Hello")),
                ("read".into(), json!({"path": "a.txt"})),
            ],
            "{api}"
        );
        assert_eq!(
            (message.usage.input, message.usage.output),
            (12, 7),
            "{api}"
        );
    }
    let report = server.end_turn();
    assert!(report.is_clean(), "{:#?}", report.problems());
}

#[test]
fn an_unknown_api_is_named_with_the_known_ones() {
    let model = model_at(
        "http://127.0.0.1:1",
        "aws",
        &Api::Other("bedrock-converse-stream".into()),
        "m",
    );
    let error = stream_for_model(&model, &transport(), None, &StreamSettings::default())
        .err()
        .unwrap();
    assert_eq!(
        error,
        UnknownApi {
            api: "bedrock-converse-stream".into()
        }
    );
    assert_eq!(
        error.to_string(),
        "No API provider registered for api: bedrock-converse-stream (known APIs: \
         openai-completions, openai-responses, anthropic-messages, google-generative-ai, ollama)"
    );
}

#[tokio::test]
async fn a_model_of_another_api_is_refused_without_a_request() {
    let server = ScriptedServer::start(Vec::new()).await.unwrap();
    let chat = model_at(&server.url(), "acme", &Api::OpenaiCompletions, "m");
    let stream = stream_for_model(&chat, &transport(), None, &StreamSettings::default()).unwrap();
    let other = model_at(&server.url(), "ol", &Api::Ollama, "q");
    let events = collect_events(stream.stream(&other, &context(), StreamOptions::default())).await;
    assert_eq!(events.len(), 1);
    let m = events[0].final_message().unwrap();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Mismatched api: ollama expected openai-completions")
    );
    assert!(server.requests().is_empty());
}

/// A history with reasoning and a tool-call id too long for Chat Completions (40 at most).
fn history_with_thinking_and_a_long_id() -> Context {
    let long_id = format!("call_{}", "x".repeat(60));
    let mut assistant = AssistantMessage::empty(Api::AnthropicMessages, "bolt", "claude-x", 2);
    assistant.content = vec![
        ContentBlock::Thinking(ThinkingContent {
            thinking: "secret reasoning".into(),
            thinking_signature: Some("sig".into()),
            ..ThinkingContent::default()
        }),
        ContentBlock::ToolCall(ToolCall::new(&long_id, "read", json!({"path": "a"}))),
    ];
    assistant.stop_reason = StopReason::ToolUse;
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![
            Message::User(UserMessage::text("read a", 1)),
            Message::Assistant(assistant),
            Message::ToolResult(ToolResultMessage::text(&long_id, "read", "A", false, 3)),
            Message::User(UserMessage::text("hi", 4)),
        ],
        tools: Vec::new(),
    }
}

#[tokio::test]
async fn the_wrappers_apply_in_openclaws_order() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({
        "reply": {"toolCalls": [{"id": "call_9", "name": "  read\n",
                                 "argumentsRaw": "```json\n{\"path\": \"b.txt\",}\n```"}]}
    }))]);
    let model = model_at(
        &format!("{}/v1", server.provider_url("acme")),
        "acme",
        &Api::OpenaiCompletions,
        "m-chat",
    );
    let log = Shared::default();
    let context = history_with_thinking_and_a_long_id();
    let (_, message) = dispatch(&model, &context, Some("sk-secret"), &all_wrappers(&log)).await;

    // Response side: the name trimmed, the fenced JSON with a trailing comma repaired.
    assert_eq!(
        message.content,
        vec![ContentBlock::ToolCall(ToolCall::new(
            "call_9",
            "read",
            json!({"path": "b.txt"})
        ))]
    );
    // Request side: no reasoning, and the call and its result share one id of at most 40.
    let body = server.requests()[0].request.json().unwrap();
    let sent = body.to_string();
    assert!(!sent.contains("secret reasoning"), "{sent}");
    let messages = body["messages"].as_array().unwrap();
    let call_id = messages[2]["tool_calls"][0]["id"].as_str().unwrap();
    assert!(call_id.len() <= 40 && !call_id.is_empty(), "{call_id}");
    assert_eq!(messages[3]["tool_call_id"].as_str(), Some(call_id));
    // The payload log records what reached the provider, and never the key.
    let records = log.records();
    assert_eq!(records.len(), 1);
    let logged = records[0]["context"].to_string();
    assert!(!logged.contains("secret reasoning"), "{logged}");
    assert!(logged.contains(call_id), "{logged}");
    assert!(!logged.contains(&"x".repeat(60)), "{logged}");
    assert_eq!(records[0]["options"]["apiKey"], json!("[REDACTED]"));
    assert!(!records[0].to_string().contains("sk-secret"));
    assert!(server.end_turn().is_clean());
}

/// One failing call answered by `response`, through `stream_for_model` with every wrapper on:
/// the failed message.
async fn failed_call(api: &Api, response: ScriptedResponse) -> AssistantMessage {
    let server = ScriptedServer::start(vec![response]).await.unwrap();
    let (provider, id, suffix) = match api {
        Api::AnthropicMessages => ("anthropic", "claude-sonnet-4-5", ""),
        Api::GoogleGenerativeAi => ("google", "gemini-2.5-flash", "/v1beta"),
        Api::OpenaiResponses => ("openai", "gpt-5", "/v1"),
        Api::Ollama => ("ollama", "qwen3:8b", ""),
        _ => ("openai", "gpt-4o-mini", "/v1"),
    };
    let model = model_at(&format!("{}{suffix}", server.url()), provider, api, id);
    let log = Shared::default();
    let (events, message) = dispatch(
        &model,
        &history_with_thinking_and_a_long_id(),
        Some("k"),
        &all_wrappers(&log),
    )
    .await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(message.stop_reason, StopReason::Error);
    assert_eq!(server.requests().len(), 1, "never retries");
    message
}

fn diagnostics(m: &AssistantMessage) -> ErrorDiagnostics {
    *m.error_diagnostics
        .clone()
        .expect("diagnostics on the failed message")
}

#[tokio::test]
async fn a_429_with_retry_after_seconds_reaches_the_caller() {
    let m = failed_call(
        &Api::OpenaiCompletions,
        ScriptedResponse::status(
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("content-type", "application/json")
        .header("retry-after", "7")
        .header("x-request-id", "req_429"),
    )
    .await;
    assert_eq!(
        diagnostics(&m),
        ErrorDiagnostics {
            http_status: Some(429),
            retry_after_ms: Some(7000),
            request_id: Some("req_429".into()),
            error_code: Some("rate_limit_exceeded".into()),
        }
    );
    assert_eq!(
        clawloop_core::classify::failover_reason_from_signal(&m.failover_signal()),
        Some(FailoverReason::RateLimit)
    );
}

#[tokio::test]
async fn a_429_with_retry_after_as_an_http_date_reaches_the_caller() {
    // 2100-01-01T00:00:00Z: a delay from now, whatever now is.
    const AT_MS: u64 = 4_102_444_800_000;
    let now_ms = || {
        let since = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        u64::try_from(since.as_millis()).unwrap()
    };
    let before = now_ms();
    let m = failed_call(
        &Api::AnthropicMessages,
        ScriptedResponse::status(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#,
        )
        .header("content-type", "application/json")
        .header("retry-after", "Fri, 01 Jan 2100 00:00:00 GMT")
        .header("request-id", "req_anthropic"),
    )
    .await;
    let after = now_ms();
    let d = diagnostics(&m);
    let wait = d.retry_after_ms.unwrap();
    assert!((AT_MS - after..=AT_MS - before).contains(&wait), "{wait}");
    assert_eq!(
        (
            d.http_status,
            d.request_id.as_deref(),
            d.error_code.as_deref()
        ),
        (Some(429), Some("req_anthropic"), Some("rate_limit_error"))
    );

    let past = failed_call(
        &Api::AnthropicMessages,
        ScriptedResponse::status(429, "slow down")
            .header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"),
    )
    .await;
    assert_eq!(diagnostics(&past).retry_after_ms, Some(0));
}

#[tokio::test]
async fn retry_after_ms_wins_and_reaches_the_caller() {
    let m = failed_call(
        &Api::OpenaiResponses,
        ScriptedResponse::status(429, r#"{"error":{"message":"Too many requests"}}"#)
            .header("content-type", "application/json")
            .header("retry-after-ms", "1500")
            .header("retry-after", "60"),
    )
    .await;
    assert_eq!(
        diagnostics(&m),
        ErrorDiagnostics {
            http_status: Some(429),
            retry_after_ms: Some(1500),
            request_id: None,
            error_code: None,
        }
    );
}

#[tokio::test]
async fn a_401_with_a_request_id_reaches_the_caller() {
    let m = failed_call(
        &Api::Ollama,
        ScriptedResponse::status(401, r#"{"error":"unauthorized"}"#)
            .header("content-type", "application/json")
            .header("x-request-id", "req_401"),
    )
    .await;
    assert_eq!(m.error_message.as_deref(), Some("401 unauthorized"));
    assert_eq!(
        diagnostics(&m),
        ErrorDiagnostics {
            http_status: Some(401),
            retry_after_ms: None,
            request_id: Some("req_401".into()),
            error_code: None,
        }
    );
    assert_eq!(
        clawloop_core::classify::failover_reason_from_signal(&m.failover_signal()),
        Some(FailoverReason::Auth)
    );
}

#[tokio::test]
async fn the_error_code_in_the_body_reaches_the_caller() {
    let m = failed_call(
        &Api::GoogleGenerativeAi,
        ScriptedResponse::status(
            400,
            r#"{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}"#,
        )
        .header("content-type", "application/json; charset=UTF-8")
        .header("x-goog-request-id", "goog_1"),
    )
    .await;
    assert_eq!(
        diagnostics(&m),
        ErrorDiagnostics {
            http_status: Some(400),
            retry_after_ms: None,
            request_id: Some("goog_1".into()),
            error_code: Some("INVALID_ARGUMENT".into()),
        }
    );
    // The status name is in the text too: an overflow, not a format error.
    assert_eq!(
        classify_failover_signal(&m.failover_signal()),
        Some(FailoverClassification::ContextOverflow)
    );
}

#[tokio::test]
async fn a_stalled_server_is_aborted_by_the_one_idle_timer() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({
        "reply": {"textChunks": ["before ", "after"], "stallMs": 30000, "stallAfterChunks": 1}
    }))]);
    let model = model_at(
        &format!("{}/v1", server.provider_url("acme")),
        "acme",
        &Api::OpenaiCompletions,
        "m-chat",
    );
    let settings = StreamSettings::default().with_idle_timeout_seconds(0.3);
    let (events, m) = dispatch(&model, &context(), None, &settings).await;
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert!(matches!(
        events.last(),
        Some(AssistantMessageEvent::Error {
            reason: StopReason::Aborted,
            ..
        })
    ));
    assert_eq!(
        m.error_message.as_deref(),
        Some("LLM idle timeout (0.3s): no response from model")
    );
    assert!(is_idle_timeout_error(m.error_message.as_deref().unwrap()));
    assert_eq!(m.text(), "before ");
    assert_eq!(m.error_diagnostics, None);
}

#[tokio::test]
async fn comment_keep_alives_do_not_hold_the_call_open() {
    let keep_alives = ScriptedResponse::sse(": ping\n\n".repeat(40))
        .chunked(Chunking::Fixed(8))
        .delay(Duration::from_millis(60));
    for api in [
        Api::OpenaiCompletions,
        Api::AnthropicMessages,
        Api::GoogleGenerativeAi,
    ] {
        let server = ScriptedServer::start(vec![keep_alives.clone()])
            .await
            .unwrap();
        let suffix = if api == Api::GoogleGenerativeAi {
            "/v1beta"
        } else {
            "/v1"
        };
        let model = model_at(&format!("{}{suffix}", server.url()), "p", &api, "m");
        let settings = StreamSettings::default().with_idle_timeout_seconds(0.3);
        let (events, m) = dispatch(&model, &context(), Some("k"), &settings).await;
        let types: Vec<_> = events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect();
        assert_eq!(types, ["start", "error"], "{api}");
        assert_eq!(m.stop_reason, StopReason::Aborted, "{api}");
        assert_eq!(
            m.error_message.as_deref(),
            Some("LLM idle timeout (0.3s): no response from model"),
            "{api}"
        );
    }
}

#[test]
fn the_idle_timeout_comes_from_one_config_key() {
    let idle = |seconds: f64| {
        StreamSettings::default()
            .with_idle_timeout_seconds(seconds)
            .idle_timeout
    };
    assert_eq!(
        StreamSettings::default().idle_timeout,
        Some(Duration::from_secs(120))
    );
    assert_eq!(idle(0.0), None);
    assert_eq!(idle(-1.0), None);
    assert_eq!(idle(f64::NAN), None);
    assert_eq!(idle(2.5), Some(Duration::from_millis(2500)));
    assert_eq!(idle(1e300), Some(Duration::from_secs(2_147_000)));
}

#[tokio::test]
async fn a_key_the_provider_echoes_in_an_error_is_redacted_for_every_api() {
    const KEY: &str = "sk-live-0123456789abcdef";
    for (provider, api, id, suffix) in &APIS {
        let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."),
                                    "type": "invalid_request_error"}});
        let server = ScriptedServer::start(vec![ScriptedResponse::status(401, body.to_string())])
            .await
            .unwrap();
        let model = model_at(&format!("{}{suffix}", server.url()), provider, api, id);
        let (_, message) =
            dispatch(&model, &context(), Some(KEY), &StreamSettings::default()).await;
        let text = message.error_message.clone().unwrap_or_default();
        assert_eq!(
            (
                message.stop_reason,
                text.contains(KEY),
                text.contains("[REDACTED]")
            ),
            (StopReason::Error, false, true),
            "{api}: {text}"
        );
    }
    // A placeholder shorter than any real key is left alone rather than cut out of the text.
    let server = ScriptedServer::start(vec![ScriptedResponse::status(
        401,
        json!({"error": {"message": "bad key abc"}}).to_string(),
    )])
    .await
    .unwrap();
    let model = model_at(
        &format!("{}/v1", server.url()),
        "acme",
        &Api::OpenaiCompletions,
        "m",
    );
    let (_, message) = dispatch(&model, &context(), Some("abc"), &StreamSettings::default()).await;
    assert_eq!(message.error_message.as_deref(), Some("401 bad key abc"));
}
