//! The stream wrappers, stacked over a fake provider that records what it was asked and plays
//! scripted events.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::poll_fn;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clawloop_core::classify::is_idle_timeout_error;
use clawloop_core::message::{
    ContentBlock, Message, TextContent, ThinkingContent, ToolCall, ToolResultMessage, UserMessage,
};
use clawloop_core::provider::stream_of;
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageBuilder, AssistantMessageEvent,
    Context, LlmStream, ManualClock, Model, StopReason, StreamOptions,
};
use clawloop_providers::wrappers::{PayloadLogger, StreamLayers, ToolCallIdMode};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

type E = AssistantMessageEvent;

/// What the fake provider saw.
#[derive(Default)]
struct Seen {
    contexts: Mutex<Vec<Context>>,
    cancels: Mutex<Vec<CancellationToken>>,
}

/// A provider that records each request and answers with `script()`.
fn fake(
    seen: &Arc<Seen>,
    script: impl Fn() -> AssistantEventStream + Send + Sync + 'static,
) -> Arc<dyn LlmStream> {
    let seen = Arc::clone(seen);
    Arc::new(
        move |_: &Model, context: &Context, options: StreamOptions| {
            seen.contexts.lock().unwrap().push(context.clone());
            seen.cancels.lock().unwrap().push(options.cancel.clone());
            script()
        },
    )
}

async fn collect(mut stream: AssistantEventStream) -> Vec<AssistantMessageEvent> {
    let mut out = Vec::new();
    while let Some(event) = poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        out.push(event);
    }
    out
}

fn model(provider: &str, api: &str, id: &str) -> Model {
    serde_json::from_value(json!({
        "id": id, "api": api, "provider": provider, "baseUrl": "https://api.example/v1",
        "contextWindow": 128000, "maxTokens": 16384
    }))
    .unwrap()
}

fn mistral() -> Model {
    model("mistral", "openai-completions", "mistral-large-latest")
}

fn assistant(content: Vec<ContentBlock>, stop: StopReason) -> Message {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5", 2);
    m.content = content;
    m.stop_reason = stop;
    Message::Assistant(m)
}

fn thinking(text: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: Some("sig".into()),
        ..ThinkingContent::default()
    })
}

fn call(id: &str, name: &str, args: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall::new(id, name, args))
}

fn result(id: &str, text: &str) -> Message {
    Message::ToolResult(ToolResultMessage::text(id, "read", text, false, 3))
}

/// The history: a foreign turn with thinking and a tool call whose id Mistral rejects, its
/// result, and a thinking-only turn.
fn history() -> Context {
    Context {
        system_prompt: Some("be brief".into()),
        messages: vec![
            Message::User(UserMessage::text("read a.txt", 1)),
            assistant(
                vec![
                    thinking("let me look"),
                    call("toolu_01ABCdef", "read", json!({"path": "a.txt"})),
                ],
                StopReason::ToolUse,
            ),
            result("toolu_01ABCdef", "hello"),
            assistant(vec![thinking("hmm")], StopReason::Stop),
            Message::User(UserMessage::text("now b.txt", 4)),
        ],
        tools: Vec::new(),
    }
}

fn start(model: &Model) -> AssistantMessageEvent {
    E::Start {
        partial: Some(Box::new(AssistantMessage::for_model(model, 10))),
    }
}

/// `events` followed by the `done` a real provider would build from them.
fn with_done(model: &Model, events: Vec<AssistantMessageEvent>) -> Vec<AssistantMessageEvent> {
    let mut builder = AssistantMessageBuilder::new(AssistantMessage::for_model(model, 10));
    for e in &events {
        builder.apply(e);
    }
    let mut all = events;
    all.push(builder.finish(StopReason::Stop));
    all
}

#[tokio::test]
async fn stacked_wrappers_fix_the_request_and_the_response() {
    let m = mistral();
    let script_model = m.clone();
    let seen = Arc::new(Seen::default());
    let provider = fake(&seen, move || {
        stream_of(with_done(
            &script_model,
            vec![
                start(&script_model),
                E::ToolcallStart {
                    content_index: 0,
                    id: "Xy7kP2mQ9".into(),
                    tool_name: "  read\n".into(),
                },
                // Double-encoded arguments: a JSON string holding the object.
                E::ToolcallDelta {
                    content_index: 0,
                    delta: r#""{\"path\":"#.into(),
                },
                E::ToolcallDelta {
                    content_index: 0,
                    delta: r#"\"b.txt\"}""#.into(),
                },
                E::ToolcallEnd {
                    content_index: 0,
                    tool_call: None,
                },
            ],
        ))
    });
    let stacked = provider
        .drop_thinking_blocks()
        .sanitize_tool_call_ids(None)
        .trim_tool_call_names()
        .repair_tool_call_arguments();

    let events = collect(stacked.stream(&m, &history(), StreamOptions::default())).await;

    // The provider got no thinking, a 9-alphanumeric id (pi's shortHash of the original, cut
    // to 9) on both the call and its result, and the thinking-only turn kept as empty text.
    let sent_id = "11th46g8n";
    let expected_context = Context {
        system_prompt: Some("be brief".into()),
        messages: vec![
            Message::User(UserMessage::text("read a.txt", 1)),
            assistant(
                vec![call(sent_id, "read", json!({"path": "a.txt"}))],
                StopReason::ToolUse,
            ),
            result(sent_id, "hello"),
            assistant(vec![ContentBlock::text("")], StopReason::Stop),
            Message::User(UserMessage::text("now b.txt", 4)),
        ],
        tools: Vec::new(),
    };
    assert_eq!(*seen.contexts.lock().unwrap(), vec![expected_context]);

    let repaired = ToolCall::new("Xy7kP2mQ9", "read", json!({"path": "b.txt"}));
    let mut final_message = AssistantMessage::for_model(&m, 10);
    final_message.content = vec![ContentBlock::ToolCall(repaired.clone())];
    final_message.stop_reason = StopReason::ToolUse;
    assert_eq!(
        events,
        vec![
            start(&m),
            E::ToolcallStart {
                content_index: 0,
                id: "Xy7kP2mQ9".into(),
                tool_name: "read".into(),
            },
            E::ToolcallDelta {
                content_index: 0,
                delta: r#""{\"path\":"#.into(),
            },
            E::ToolcallDelta {
                content_index: 0,
                delta: r#"\"b.txt\"}""#.into(),
            },
            E::ToolcallEnd {
                content_index: 0,
                tool_call: Some(repaired),
            },
            E::Done {
                reason: StopReason::ToolUse,
                message: Box::new(final_message),
            },
        ]
    );
}

#[tokio::test]
async fn rewritten_ids_are_distinct_paired_and_mapped_back() {
    let m = model("anthropic", "anthropic-messages", "claude-sonnet-4-5");
    // `call.1` would become `call_1`, which another call already has.
    let context = Context {
        system_prompt: None,
        messages: vec![
            assistant(
                vec![
                    call("call.1", "read", json!({})),
                    call("call_1", "read", json!({})),
                ],
                StopReason::ToolUse,
            ),
            result("call.1", "one"),
            result("call_1", "two"),
        ],
        tools: Vec::new(),
    };
    let rewritten = "call_1_bwzw4gzishzj";
    let script_model = m.clone();
    let seen = Arc::new(Seen::default());
    // A provider that echoes the rewritten id of a replayed call.
    let provider = fake(&seen, move || {
        stream_of(with_done(
            &script_model,
            vec![
                start(&script_model),
                E::ToolcallStart {
                    content_index: 0,
                    id: rewritten.into(),
                    tool_name: "read".into(),
                },
                E::ToolcallEnd {
                    content_index: 0,
                    tool_call: Some(ToolCall::new(rewritten, "read", json!({}))),
                },
            ],
        ))
    });
    let events = collect(
        provider
            .sanitize_tool_call_ids(Some(ToolCallIdMode::Anthropic))
            .stream(&m, &context, StreamOptions::default()),
    )
    .await;

    let sent = seen.contexts.lock().unwrap()[0].clone();
    assert_eq!(
        sent.messages,
        vec![
            assistant(
                vec![
                    call(rewritten, "read", json!({})),
                    call("call_1", "read", json!({})),
                ],
                StopReason::ToolUse,
            ),
            result(rewritten, "one"),
            result("call_1", "two"),
        ]
    );
    let mut final_message = AssistantMessage::for_model(&m, 10);
    final_message.content = vec![call("call.1", "read", json!({}))];
    final_message.stop_reason = StopReason::ToolUse;
    assert_eq!(
        events,
        vec![
            start(&m),
            E::ToolcallStart {
                content_index: 0,
                id: "call.1".into(),
                tool_name: "read".into(),
            },
            E::ToolcallEnd {
                content_index: 0,
                tool_call: Some(ToolCall::new("call.1", "read", json!({}))),
            },
            E::Done {
                reason: StopReason::ToolUse,
                message: Box::new(final_message),
            },
        ]
    );
}

#[tokio::test]
async fn conforming_requests_pass_through_untouched() {
    let m = model("openai", "openai-responses", "gpt-5");
    let seen = Arc::new(Seen::default());
    let script_model = m.clone();
    let provider = fake(&seen, move || {
        stream_of(with_done(&script_model, vec![start(&script_model)]))
    });
    let context = Context {
        system_prompt: None,
        messages: vec![
            assistant(
                vec![call("call 1|fc_1", "ls", json!({}))],
                StopReason::ToolUse,
            ),
            result("call 1|fc_1", "ok"),
        ],
        tools: Vec::new(),
    };
    // openai-responses needs no rewrite; there is no thinking to drop.
    let stacked = provider.sanitize_tool_call_ids(None).drop_thinking_blocks();
    let events = collect(stacked.stream(&m, &context, StreamOptions::default())).await;
    assert_eq!(*seen.contexts.lock().unwrap(), vec![context]);
    assert_eq!(events, with_done(&m, vec![start(&m)]));
}

#[tokio::test]
async fn irreparable_arguments_are_kept_and_blank_names_stay() {
    let m = model("openai", "openai-completions", "gpt-4o");
    let seen = Arc::new(Seen::default());
    let script_model = m.clone();
    let raw_call = ToolCall::new("c1", " ", Value::String("{'a': 1}".into()));
    let string_args = ToolCall::new(
        "c2",
        "ls ",
        Value::String("```json\n{\"dir\":\"/\"}\n```".into()),
    );
    let provider = fake(&seen, move || {
        let mut message = AssistantMessage::for_model(&script_model, 10);
        message.content = vec![
            ContentBlock::ToolCall(raw_call.clone()),
            ContentBlock::ToolCall(string_args.clone()),
        ];
        message.stop_reason = StopReason::ToolUse;
        stream_of(vec![
            start(&script_model),
            E::Done {
                reason: StopReason::ToolUse,
                message: Box::new(message),
            },
        ])
    });
    let events = collect(
        provider
            .trim_tool_call_names()
            .repair_tool_call_arguments()
            .stream(&m, &Context::default(), StreamOptions::default()),
    )
    .await;
    let mut expected = AssistantMessage::for_model(&m, 10);
    expected.content = vec![
        ContentBlock::ToolCall(ToolCall::new("c1", " ", Value::String("{'a': 1}".into()))),
        ContentBlock::ToolCall(ToolCall::new("c2", "ls", json!({"dir": "/"}))),
    ];
    expected.stop_reason = StopReason::ToolUse;
    assert_eq!(
        events,
        vec![
            start(&m),
            E::Done {
                reason: StopReason::ToolUse,
                message: Box::new(expected),
            },
        ]
    );
}

#[tokio::test]
async fn the_idle_watchdog_ends_a_silent_stream_and_cancels_the_request() {
    let m = model("openai", "openai-completions", "gpt-4o");
    let seen = Arc::new(Seen::default());
    let script_model = m.clone();
    let provider = fake(&seen, move || {
        let first = start(&script_model);
        Box::pin(async_stream::stream! {
            yield first;
            yield E::TextStart { content_index: 0 };
            yield E::TextDelta { content_index: 0, delta: "half an ans".into() };
            std::future::pending::<()>().await;
        })
    });
    let caller_cancel = CancellationToken::new();
    let options = StreamOptions {
        cancel: caller_cancel.clone(),
        ..StreamOptions::default()
    };
    let stacked = provider.idle_watchdog(Some(Duration::from_millis(50)));
    let events = tokio::time::timeout(
        Duration::from_secs(10),
        collect(stacked.stream(&m, &Context::default(), options)),
    )
    .await
    .expect("the watchdog ends the stream");

    let mut partial = AssistantMessage::for_model(&m, 10);
    partial.content = vec![ContentBlock::Text(TextContent {
        text: "half an ans".into(),
        ..TextContent::default()
    })];
    partial.stop_reason = StopReason::Aborted;
    partial.error_message = Some("LLM idle timeout (0.05s): no response from model".into());
    assert_eq!(
        events,
        vec![
            start(&m),
            E::TextStart { content_index: 0 },
            E::TextDelta {
                content_index: 0,
                delta: "half an ans".into(),
            },
            E::Error {
                reason: StopReason::Aborted,
                error: Box::new(partial),
            },
        ]
    );
    // `aborted` like a user abort (SPEC §8.1), told apart by core's predicate on the text.
    let text = events[3]
        .final_message()
        .and_then(|m| m.error_message.as_deref());
    assert!(is_idle_timeout_error(text.unwrap()));
    assert!(!is_idle_timeout_error("Request was aborted"));
    // The request was cancelled; the caller's own token was not (a timeout is not an abort).
    assert!(seen.cancels.lock().unwrap()[0].is_cancelled());
    assert!(!caller_cancel.is_cancelled());
}

#[tokio::test]
async fn the_idle_watchdog_passes_lively_streams_and_can_be_disabled() {
    let m = model("openai", "openai-completions", "gpt-4o");
    let seen = Arc::new(Seen::default());
    let script_model = m.clone();
    let provider = fake(&seen, move || {
        let events = with_done(&script_model, vec![start(&script_model)]);
        Box::pin(async_stream::stream! {
            for event in events {
                tokio::time::sleep(Duration::from_millis(5)).await;
                yield event;
            }
        })
    });
    let expected = with_done(&m, vec![start(&m)]);
    for timeout in [Some(Duration::from_secs(5)), None, Some(Duration::ZERO)] {
        let stacked = Arc::clone(&provider).idle_watchdog(timeout);
        let events =
            collect(stacked.stream(&m, &Context::default(), StreamOptions::default())).await;
        assert_eq!(events, expected, "{timeout:?}");
    }
    // A stream that just stops is an error, not a success.
    let ends_early = fake(&seen, || stream_of(vec![E::TextStart { content_index: 0 }]))
        .idle_watchdog(Some(Duration::from_secs(5)));
    let events =
        collect(ends_early.stream(&m, &Context::default(), StreamOptions::default())).await;
    assert_eq!(
        events
            .last()
            .and_then(|e| e.final_message())
            .and_then(|m| m.error_message.clone()),
        Some("stream ended before completion".to_owned())
    );
}

fn temp_path(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "clawloop-{name}-{}-{nanos}.jsonl",
        std::process::id()
    ))
}

/// Every secret the logged request carries, in every place a secret can hide.
const SECRETS: [&str; 9] = [
    "sk-live-LITERAL-0042",
    "hdr-bearer-secret",
    "xk-header-secret",
    "goog-header-secret",
    "AIzaQuerySecret",
    "tok-query-secret",
    "hunter2-body-secret",
    "body-apikey-secret",
    "refresh-body-secret",
];

fn secret_request() -> (Model, Context, StreamOptions) {
    let mut m = model("google", "google-generative-ai", "gemini-2.5-pro");
    m.base_url = "https://gw.example/v1beta?alt=sse&key=AIzaQuerySecret".into();
    m.headers
        .insert("Authorization".into(), "Bearer hdr-bearer-secret".into());
    m.headers
        .insert("x-api-key".into(), "xk-header-secret".into());
    m.headers.insert("X-Title".into(), "clawloop".into());
    let mut options = StreamOptions {
        api_key: Some("sk-live-LITERAL-0042".into()),
        max_tokens: Some(1000),
        session_id: Some("session-7".into()),
        ..StreamOptions::default()
    };
    options
        .headers
        .insert("x-goog-api-key".into(), "goog-header-secret".into());
    let context = Context {
        system_prompt: Some("You are helpful.".into()),
        messages: vec![
            Message::User(UserMessage::text(
                "my key is sk-live-LITERAL-0042, see https://x.example/cb?token=tok-query-secret&page=2",
                1,
            )),
            assistant(
                vec![call(
                    "c1",
                    "login",
                    json!({"user": "ann", "password": "hunter2-body-secret",
                           "config": {"apiKey": "body-apikey-secret", "refresh_token": "refresh-body-secret"},
                           "query": "fine"}),
                )],
                StopReason::ToolUse,
            ),
        ],
        tools: Vec::new(),
    };
    (m, context, options)
}

#[tokio::test]
async fn the_payload_log_keeps_no_secret() {
    let path = temp_path("payload-log");
    let logger = Arc::new(
        PayloadLogger::open(&path)
            .unwrap()
            .with_clock(Arc::new(ManualClock::new(1_735_787_045_678))),
    );
    let seen = Arc::new(Seen::default());
    let provider = fake(&seen, || stream_of(Vec::new())).log_payloads(Arc::clone(&logger));
    let (m, context, options) = secret_request();
    collect(provider.stream(&m, &context, options.clone())).await;
    collect(provider.stream(&m, &context, options)).await;

    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    for secret in SECRETS {
        assert!(
            !text.contains(secret),
            "{secret} leaked into the log:\n{text}"
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "one record per request, appended");
    assert_eq!(logger.failed_writes(), 0);
    let record: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        record,
        json!({
            "ts": "2025-01-02T03:04:05.678Z",
            "provider": "google",
            "model": "gemini-2.5-pro",
            "api": "google-generative-ai",
            "baseUrl": "https://gw.example/v1beta?alt=sse&key=[REDACTED]",
            "headers": {
                "Authorization": "[REDACTED]",
                "X-Title": "clawloop",
                "x-api-key": "[REDACTED]",
                "x-goog-api-key": "[REDACTED]"
            },
            "options": {
                "maxTokens": 1000,
                "thinkingBudgets": {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384},
                "sessionId": "session-7",
                "apiKey": "[REDACTED]"
            },
            "context": {
                "systemPrompt": "You are helpful.",
                "messages": [
                    {"role": "user", "content": [{"type": "text",
                        "text": "my key is [REDACTED], see https://x.example/cb?token=[REDACTED]&page=2"}],
                     "timestamp": 1},
                    {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "login",
                        "arguments": {"user": "ann", "password": "[REDACTED]",
                                      "config": {"apiKey": "[REDACTED]", "refresh_token": "[REDACTED]"},
                                      "query": "fine"}}],
                     "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
                     "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                               "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                     "stopReason": "toolUse", "timestamp": 2}
                ]
            }
        })
    );
}

/// A `Write` sink the test can read back.
#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A sink that always fails.
struct Broken;

impl Write for Broken {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::other("disk full"))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_payload_log_writes_to_any_sink_and_never_fails_the_call() {
    let buffer = SharedBuffer::default();
    // A configured key the provider sends itself (not via options) is redacted too.
    let logger = Arc::new(PayloadLogger::new(buffer.clone()).with_secret("side-channel-secret"));
    let seen = Arc::new(Seen::default());
    let m = model("openai", "openai-completions", "gpt-4o");
    let script_model = m.clone();
    let expected = with_done(&m, vec![start(&m)]);
    let provider = fake(&seen, move || {
        stream_of(with_done(&script_model, vec![start(&script_model)]))
    });
    let context = Context {
        system_prompt: Some("key: side-channel-secret".into()),
        messages: Vec::new(),
        tools: Vec::new(),
    };
    let events = collect(
        Arc::clone(&provider)
            .log_payloads(Arc::clone(&logger))
            .stream(&m, &context, StreamOptions::default()),
    )
    .await;
    assert_eq!(events, expected);
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert!(
        text.ends_with('\n') && !text.contains("side-channel-secret"),
        "{text}"
    );

    let broken = Arc::new(PayloadLogger::new(Broken));
    let events = collect(provider.log_payloads(Arc::clone(&broken)).stream(
        &m,
        &context,
        StreamOptions::default(),
    ))
    .await;
    assert_eq!(events, expected);
    assert_eq!(broken.failed_writes(), 1);
}
