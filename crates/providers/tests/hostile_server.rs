//! A hostile server against all five wire APIs (issue 10 items 6, 7 and 9), over real HTTP on
//! 127.0.0.1: usage counters near `u64::MAX` or out of `f64` range, a `retry-after` date that
//! does not exist, UTF-16 halves split across events, and keep-alives that never end.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::Duration;

use clawloop_core::message::{ContentBlock, TextContent, ThinkingContent, ToolCall};
use clawloop_core::{AssistantEventStream, Model, StopReason, StreamOptions, Usage};
use clawloop_providers::{
    AnthropicMessages, CallDiagnostics, GoogleGenerativeAi, HttpTransport, Ollama,
    OpenAiCompletions, OpenAiResponses,
};
use clawloop_testkit::{Chunking, ScriptedResponse};
use common::{
    Call, STALL_IDLE, assert_contract, assert_idle_timeout, call_server, context, keyed,
    model_from, start, transport,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// The five wire APIs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Completions,
    Responses,
    Anthropic,
    Gemini,
    Ollama,
}

const APIS: [Api; 5] = [
    Api::Completions,
    Api::Responses,
    Api::Anthropic,
    Api::Gemini,
    Api::Ollama,
];

/// What a body streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Thinking,
    /// Tool-call arguments, streamed in fragments (whole, where the API sends calls whole).
    Tool,
}

impl Api {
    fn model(self, url: &str) -> Model {
        let fields = match self {
            Api::Completions => json!({"id": "gpt-4o-mini", "api": "openai-completions",
                "provider": "openai", "baseUrl": format!("{url}/v1")}),
            Api::Responses => json!({"id": "gpt-5", "api": "openai-responses",
                "provider": "openai", "baseUrl": format!("{url}/v1")}),
            Api::Anthropic => json!({"id": "claude-sonnet-4-5", "api": "anthropic-messages",
                "provider": "anthropic", "baseUrl": url}),
            Api::Gemini => json!({"id": "gemini-2.5-flash", "api": "google-generative-ai",
                "provider": "google", "baseUrl": format!("{url}/v1beta")}),
            Api::Ollama => json!({"id": "qwen3:8b", "api": "ollama", "provider": "ollama",
                "baseUrl": url}),
        };
        model_from(
            fields,
            &json!({"contextWindow": 100_000, "maxTokens": 8192, "reasoning": true}),
        )
    }

    fn key(self) -> StreamOptions {
        keyed(match self {
            Api::Anthropic => "sk-ant-api03-test",
            Api::Gemini => "AIza-test",
            _ => "sk-test",
        })
    }

    fn stream(self, url: &str, idle: Option<Duration>) -> (AssistantEventStream, CallDiagnostics) {
        let (model, context, options) = (self.model(url), context(), self.key());
        let http: HttpTransport = transport();
        let (model, context) = (&model, &context);
        match self {
            Api::Completions => start(
                OpenAiCompletions::new(http),
                idle,
                model,
                context,
                options,
                OpenAiCompletions::stream_with_diagnostics,
            ),
            Api::Responses => start(
                OpenAiResponses::new(http),
                idle,
                model,
                context,
                options,
                OpenAiResponses::stream_with_diagnostics,
            ),
            Api::Anthropic => start(
                AnthropicMessages::new(http),
                idle,
                model,
                context,
                options,
                AnthropicMessages::stream_with_diagnostics,
            ),
            Api::Gemini => start(
                GoogleGenerativeAi::new(http),
                idle,
                model,
                context,
                options,
                GoogleGenerativeAi::stream_with_diagnostics,
            ),
            Api::Ollama => start(
                Ollama::new(http),
                idle,
                model,
                context,
                options,
                Ollama::stream_with_diagnostics,
            ),
        }
    }

    async fn call(self, response: ScriptedResponse, idle: Option<Duration>) -> Call {
        let c = call_server(response, |url| self.stream(url, idle)).await;
        assert_contract(&c.events);
        c
    }

    /// A 2xx response with `body` in this API's framing.
    fn response(self, body: String) -> ScriptedResponse {
        let response = ScriptedResponse::sse(body);
        match self {
            Api::Ollama => response.header("content-type", "application/x-ndjson"),
            _ => response,
        }
    }

    /// One SSE event (or NDJSON line) with `data`.
    fn frame(self, data: &Value) -> String {
        match self {
            Api::Ollama => format!("{data}\n"),
            _ => match data.get("type").and_then(Value::as_str) {
                Some(name) => format!("event: {name}\ndata: {data}\n\n"),
                None => format!("data: {data}\n\n"),
            },
        }
    }

    /// A whole stream of `kind` whose deltas are `deltas`, raw JSON string literals (escapes
    /// such as a lone `\ud83e` kept as they are), ending normally with `usage` as the API
    /// reports it (`input`, `output`: raw JSON numbers).
    fn body(self, kind: Kind, deltas: &[&str], usage: (&str, &str)) -> String {
        // The frames are built as JSON with a placeholder per delta, which is then replaced by
        // the raw literal: serde_json itself would never write a lone surrogate.
        let placeholder = |i: usize| format!("\"@delta{i}@\"");
        let mut frames: Vec<Value> = Vec::new();
        let (input, output) = usage;
        match self {
            Api::Completions => {
                for i in 0..deltas.len() {
                    let delta = match kind {
                        Kind::Text => json!({"content": format!("@delta{i}@")}),
                        Kind::Thinking => json!({"reasoning_content": format!("@delta{i}@")}),
                        Kind::Tool if i == 0 => json!({"tool_calls": [{"index": 0, "id": "call_1",
                            "function": {"name": "echo", "arguments": format!("@delta{i}@")}}]}),
                        Kind::Tool => json!({"tool_calls": [{"index": 0,
                            "function": {"arguments": format!("@delta{i}@")}}]}),
                    };
                    frames.push(json!({"choices": [{"index": 0, "delta": delta}]}));
                }
                let finish = if kind == Kind::Tool {
                    "tool_calls"
                } else {
                    "stop"
                };
                frames
                    .push(json!({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}));
                frames.push(json!({"choices": [], "usage": {"prompt_tokens": "@input@",
                    "completion_tokens": "@output@"}}));
            }
            Api::Responses => {
                let (item, delta_type) = match kind {
                    Kind::Text => (
                        json!({"id": "msg_1", "type": "message"}),
                        "response.output_text.delta",
                    ),
                    Kind::Thinking => (
                        json!({"id": "rs_1", "type": "reasoning"}),
                        "response.reasoning_summary_text.delta",
                    ),
                    Kind::Tool => (
                        json!({"id": "fc_1", "type": "function_call", "call_id": "call_1",
                               "name": "echo"}),
                        "response.function_call_arguments.delta",
                    ),
                };
                let id = item["id"].clone();
                frames.push(
                    json!({"type": "response.output_item.added", "output_index": 0,
                    "item": item}),
                );
                for i in 0..deltas.len() {
                    frames.push(json!({"type": delta_type, "item_id": id,
                        "delta": format!("@delta{i}@")}));
                }
                frames.push(
                    json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                );
                frames.push(json!({"type": "response.completed", "response": {
                    "status": "completed",
                    "usage": {"input_tokens": "@input@", "output_tokens": "@output@"}}}));
            }
            Api::Anthropic => {
                frames.push(json!({"type": "message_start", "message": {"usage":
                    {"input_tokens": "@input@", "output_tokens": 0}}}));
                let (block, delta_type, field) = match kind {
                    Kind::Text => (json!({"type": "text", "text": ""}), "text_delta", "text"),
                    Kind::Thinking => (
                        json!({"type": "thinking", "thinking": ""}),
                        "thinking_delta",
                        "thinking",
                    ),
                    Kind::Tool => (
                        json!({"type": "tool_use", "id": "call_1", "name": "echo", "input": {}}),
                        "input_json_delta",
                        "partial_json",
                    ),
                };
                frames.push(
                    json!({"type": "content_block_start", "index": 0, "content_block": block}),
                );
                for i in 0..deltas.len() {
                    let mut delta = json!({"type": delta_type});
                    delta[field] = json!(format!("@delta{i}@"));
                    frames.push(json!({"type": "content_block_delta", "index": 0, "delta": delta}));
                }
                frames.push(json!({"type": "content_block_stop", "index": 0}));
                let stop = if kind == Kind::Tool {
                    "tool_use"
                } else {
                    "end_turn"
                };
                frames.push(
                    json!({"type": "message_delta", "delta": {"stop_reason": stop},
                    "usage": {"output_tokens": "@output@"}}),
                );
                frames.push(json!({"type": "message_stop"}));
            }
            Api::Gemini => {
                for i in 0..deltas.len() {
                    let part = match kind {
                        Kind::Text => json!({"text": format!("@delta{i}@")}),
                        Kind::Thinking => json!({"text": format!("@delta{i}@"), "thought": true}),
                        Kind::Tool => json!({"functionCall": {"id": "call_1", "name": "echo",
                            "args": {"q": format!("@delta{i}@")}}}),
                    };
                    frames.push(json!({"candidates": [{"content": {"role": "model",
                        "parts": [part]}}]}));
                }
                frames.push(
                    json!({"candidates": [{"content": {"role": "model", "parts": []},
                    "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": "@input@",
                    "candidatesTokenCount": "@output@"}}),
                );
            }
            Api::Ollama => {
                for i in 0..deltas.len() {
                    let message = match kind {
                        Kind::Text => {
                            json!({"role": "assistant", "content": format!("@delta{i}@")})
                        }
                        Kind::Thinking => json!({"role": "assistant", "content": "",
                            "thinking": format!("@delta{i}@")}),
                        Kind::Tool => json!({"role": "assistant", "content": "",
                            "tool_calls": [{"id": "call_1", "function": {"name": "echo",
                                "arguments": {"q": format!("@delta{i}@")}}}]}),
                    };
                    frames.push(json!({"model": "qwen3:8b", "message": message, "done": false}));
                }
                frames.push(json!({"model": "qwen3:8b", "message": {"role": "assistant",
                    "content": ""}, "done": true, "done_reason": "stop",
                    "prompt_eval_count": "@input@", "eval_count": "@output@"}));
            }
        }
        let mut body: String = frames.iter().map(|f| self.frame(f)).collect();
        for (i, delta) in deltas.iter().enumerate() {
            body = body.replace(&placeholder(i), delta);
        }
        body.replace("\"@input@\"", input)
            .replace("\"@output@\"", output)
    }
}

/// The content of one text or thinking block with `text`.
fn block(kind: Kind, text: &str) -> ContentBlock {
    match kind {
        Kind::Thinking => ContentBlock::Thinking(ThinkingContent {
            thinking: text.into(),
            ..ThinkingContent::default()
        }),
        _ => ContentBlock::Text(TextContent {
            text: text.into(),
            ..TextContent::default()
        }),
    }
}

/// The message's blocks with signatures (which some APIs add) left out.
fn unsigned(c: &Call) -> Vec<ContentBlock> {
    c.message()
        .content
        .iter()
        .cloned()
        .map(|mut b| {
            match &mut b {
                ContentBlock::Text(t) => t.text_signature = None,
                ContentBlock::Thinking(t) => t.thinking_signature = None,
                ContentBlock::ToolCall(t) => t.thought_signature = None,
                _ => {}
            }
            b
        })
        .collect()
}

#[tokio::test]
async fn an_emoji_split_into_utf16_halves_across_deltas_is_joined() {
    for api in APIS {
        for kind in [Kind::Text, Kind::Thinking] {
            let body = api.body(kind, &[r#""Hi \ud83e""#, r#""\udd9e!""#], ("3", "4"));
            let c = api.call(api.response(body), None).await;
            assert_eq!(
                c.message().stop_reason,
                StopReason::Stop,
                "{api:?} {kind:?}"
            );
            assert_eq!(
                unsigned(&c),
                vec![block(kind, "Hi \u{1f99e}!")],
                "{api:?} {kind:?}"
            );
            assert_eq!(c.message().usage.output, 4, "{api:?} {kind:?}");
        }
    }
}

#[tokio::test]
async fn lone_utf16_halves_become_replacement_characters_and_the_reply_is_kept() {
    for api in APIS {
        for kind in [Kind::Text, Kind::Thinking] {
            let deltas = [
                r#""a\ud83e""#,
                r#""b""#,
                r#""\udd9ec""#,
                r#""d\ud83ee\udd9e""#,
                r#""f\ud83e""#,
            ];
            let c = api
                .call(api.response(api.body(kind, &deltas, ("3", "4"))), None)
                .await;
            assert_eq!(
                c.message().stop_reason,
                StopReason::Stop,
                "{api:?} {kind:?}"
            );
            assert_eq!(
                unsigned(&c),
                vec![block(
                    kind,
                    "a\u{fffd}b\u{fffd}cd\u{fffd}e\u{fffd}f\u{fffd}"
                )],
                "{api:?} {kind:?}"
            );
        }
    }
}

#[tokio::test]
async fn utf16_halves_in_tool_arguments_are_joined_or_replaced() {
    for api in APIS {
        let id = if api == Api::Responses {
            "call_1|fc_1"
        } else {
            "call_1"
        };
        let (deltas, expected): (&[&str], Value) = match api {
            // Streamed fragments of the arguments JSON.
            Api::Completions | Api::Responses | Api::Anthropic => (
                &[r#""{\"q\":\"\ud83e""#, r#""\udd9e\"}""#],
                json!({"q": "\u{1f99e}"}),
            ),
            // Whole calls: a half pairs with nothing.
            Api::Gemini | Api::Ollama => (&[r#""x\ud83e""#], json!({"q": "x\u{fffd}"})),
        };
        let c = api
            .call(api.response(api.body(Kind::Tool, deltas, ("3", "4"))), None)
            .await;
        assert_eq!(c.message().stop_reason, StopReason::ToolUse, "{api:?}");
        assert_eq!(
            unsigned(&c),
            vec![ContentBlock::ToolCall(ToolCall::new(id, "echo", expected))],
            "{api:?}"
        );
    }
}

/// The usage of a call whose server reported `input` and `output` (raw JSON numbers).
async fn usage_of(api: Api, input: &str, output: &str) -> Usage {
    let body = api.body(Kind::Text, &[r#""Hi""#], (input, output));
    let c = api.call(api.response(body), None).await;
    assert_eq!(c.message().stop_reason, StopReason::Stop, "{api:?}");
    assert_eq!(c.message().text(), "Hi", "{api:?}");
    c.message().usage.clone()
}

#[tokio::test]
async fn usage_counts_near_the_limit_saturate() {
    for api in APIS {
        for (input, output) in [
            ("18446744073709551615", "18446744073709551615"),
            ("1e30", "1e30"),
            ("18446744073709551616", "1.9e19"),
        ] {
            let usage = usage_of(api, input, output).await;
            assert_eq!(
                (usage.input, usage.output, usage.total_tokens),
                (u64::MAX, u64::MAX, u64::MAX),
                "{api:?} {input} {output}"
            );
            assert!(usage.cost.total.is_finite(), "{api:?}");
        }
    }
}

#[tokio::test]
async fn an_unusable_usage_number_is_absent_and_the_reply_kept() {
    for api in APIS {
        let usage = usage_of(api, "1e999", "5").await;
        assert_eq!(
            (usage.input, usage.output, usage.total_tokens),
            (0, 5, 5),
            "{api:?}"
        );
        let usage = usage_of(api, "7", "-1e999").await;
        assert_eq!((usage.input, usage.output), (7, 0), "{api:?}");
    }
}

#[tokio::test]
async fn an_unusable_usage_number_in_a_non_streaming_answer_is_absent() {
    let documents = [
        (
            Api::Responses,
            r#"{"object":"response","status":"completed","output":[{"id":"msg_1","type":"message","content":[{"type":"output_text","text":"Hi"}]}],"usage":{"input_tokens":1e999,"output_tokens":5}}"#,
        ),
        (
            Api::Anthropic,
            r#"{"type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":1e999,"output_tokens":5}}"#,
        ),
        (
            Api::Completions,
            r#"{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1e999,"completion_tokens":5}}"#,
        ),
    ];
    for (api, document) in documents {
        let response = ScriptedResponse::sse(document).header("content-type", "application/json");
        let c = api.call(response, None).await;
        assert_eq!(c.message().stop_reason, StopReason::Stop, "{api:?}");
        assert_eq!(c.message().text(), "Hi", "{api:?}");
        let usage = &c.message().usage;
        assert_eq!((usage.input, usage.output), (0, 5), "{api:?}");
    }
}

#[tokio::test]
async fn a_retry_after_date_that_does_not_exist_is_no_retry_after() {
    for api in APIS {
        for date in [
            "Sun, 06 Nov 1994 99:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:18446744073709551615 GMT",
            "Fri, 31 Feb 2025 08:49:37 GMT",
        ] {
            let response = ScriptedResponse::status(429, r#"{"error":{"message":"slow down"}}"#)
                .header("retry-after", date);
            let c = api.call(response, None).await;
            assert_eq!(c.types(), ["error"], "{api:?} {date}");
            assert_eq!(c.diagnostics.http_status(), Some(429), "{api:?} {date}");
            assert_eq!(c.diagnostics.retry_after_ms(), None, "{api:?} {date}");
        }
    }
}

/// `piece` written `times` times, one write every 60 ms: a server busy with keep-alives for
/// far longer than [`STALL_IDLE`].
fn keep_alive(api: Api, piece: &str, times: usize, content_type: Option<&str>) -> ScriptedResponse {
    let response = api
        .response(piece.repeat(times))
        .chunked(Chunking::Fixed(piece.len()))
        .delay(Duration::from_millis(60));
    match content_type {
        Some(t) => response.header("content-type", t),
        None => response,
    }
}

#[tokio::test]
async fn comment_keep_alives_do_not_reset_the_idle_timer() {
    for api in [
        Api::Completions,
        Api::Responses,
        Api::Anthropic,
        Api::Gemini,
    ] {
        let c = api
            .call(keep_alive(api, ": ping\n\n", 40, None), Some(STALL_IDLE))
            .await;
        assert_idle_timeout(&c);
        assert_eq!(c.types(), ["start", "error"], "{api:?}");
    }
}

#[tokio::test]
async fn blank_lines_empty_events_and_partial_bytes_are_not_progress() {
    let cases = [
        (Api::Ollama, "\n", None),
        (Api::Ollama, " ", None),
        (Api::Completions, "data:\n\n", None),
        // One event, a byte at a time: bytes arrive, no event completes.
        (Api::Anthropic, "x", None),
        (Api::Gemini, " ", Some("application/json")),
    ];
    for (api, piece, content_type) in cases {
        let c = api
            .call(keep_alive(api, piece, 40, content_type), Some(STALL_IDLE))
            .await;
        assert_idle_timeout(&c);
        assert_eq!(c.types(), ["start", "error"], "{api:?} {piece:?}");
    }
}

#[tokio::test]
async fn events_slower_than_the_timeout_in_total_but_not_apart_succeed() {
    for api in APIS {
        let deltas = [r#""a""#; 12];
        let body = api.body(Kind::Text, &deltas, ("3", "4"));
        // One write per frame (SSE events end in a blank line, NDJSON lines in a newline).
        let separator = if api == Api::Ollama { "\n" } else { "\n\n" };
        let mut cuts = Vec::new();
        let mut at = 0;
        for piece in body.split_inclusive(separator) {
            at += piece.len();
            cuts.push(at);
        }
        let response = api
            .response(body)
            .chunked(Chunking::At(cuts))
            .delay(Duration::from_millis(60));
        let c = api.call(response, Some(STALL_IDLE)).await;
        assert_eq!(c.message().stop_reason, StopReason::Stop, "{api:?}");
        assert_eq!(c.message().text(), "a".repeat(12), "{api:?}");
    }
}
