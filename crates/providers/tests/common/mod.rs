//! Helpers shared by the integration tests: a call against a fresh scripted server, the
//! `openai-completions` model and chunks, and the assertions every API's tests make about
//! stream endings (aborts, idle timeouts, refused connections).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use clawloop_core::classify::{
    FailoverSignal, failover_reason_from_signal, is_context_overflow, is_idle_timeout_error,
};
use clawloop_core::message::ContentBlock;
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, FailoverReason,
    LlmStream, Model, StopReason, StreamOptions, UserMessage,
};
use clawloop_providers::wrappers::StreamLayers;
use clawloop_providers::{
    CallDiagnostics, HttpTransport, OpenAiCompletions, TransportConfig, TransportError,
};
use clawloop_testkit::{Chunking, ScriptedResponse, ScriptedServer};
use serde_json::{Value, json};

/// The three ways FORMAT.md's `wire` kind serves a body (the crate's shared helper).
pub fn splits(len: usize, seed: u64) -> Vec<(&'static str, Chunking)> {
    clawloop_testkit::wire_splits(len, seed)
}

/// A model from its JSON fields, with the fields of `extra` (an object) merged in.
pub fn model_from(mut fields: Value, extra: &Value) -> Model {
    if let (Some(obj), Value::Object(extra)) = (fields.as_object_mut(), extra) {
        obj.extend(extra.clone());
    }
    serde_json::from_value(fields).unwrap()
}

/// An `openai-completions` model at `base_url`, with `extra` fields merged in.
pub fn model(base_url: &str, extra: Value) -> Model {
    model_from(
        json!({
            "id": "gpt-4o-mini", "api": "openai-completions", "provider": "openai",
            "baseUrl": base_url, "contextWindow": 128000, "maxTokens": 16384
        }),
        &extra,
    )
}

/// Default options with an API key.
pub fn keyed(api_key: &str) -> StreamOptions {
    StreamOptions {
        api_key: Some(api_key.into()),
        ..StreamOptions::default()
    }
}

pub fn context() -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![clawloop_core::Message::User(UserMessage::text("hi", 1))],
        tools: Vec::new(),
    }
}

pub fn transport() -> HttpTransport {
    HttpTransport::new(TransportConfig::default()).unwrap()
}

/// `client`'s call through `diagnosed` (its `stream_with_diagnostics`), or, when `idle` is
/// set, through the idle watchdog around it: the only idle timer, so a stalled call is ended
/// by the watchdog (and its diagnostics handle stays empty).
pub fn start<C: LlmStream + 'static>(
    client: C,
    idle: Option<Duration>,
    model: &Model,
    context: &Context,
    options: StreamOptions,
    diagnosed: fn(&C, &Model, &Context, StreamOptions) -> (AssistantEventStream, CallDiagnostics),
) -> (AssistantEventStream, CallDiagnostics) {
    match idle {
        None => diagnosed(&client, model, context, options),
        Some(_) => {
            let client: Arc<dyn LlmStream> = Arc::new(client);
            let watched = client.idle_watchdog(idle);
            (
                watched.stream(model, context, options),
                CallDiagnostics::new(),
            )
        }
    }
}

pub async fn collect(stream: AssistantEventStream) -> Vec<AssistantMessageEvent> {
    clawloop_testkit::collect_events(stream).await
}

/// One call against a fresh server playing `response`.
pub struct Call {
    pub events: Vec<AssistantMessageEvent>,
    pub diagnostics: CallDiagnostics,
    pub server: ScriptedServer,
}

impl Call {
    pub fn message(&self) -> &AssistantMessage {
        self.events
            .last()
            .and_then(AssistantMessageEvent::final_message)
            .expect("terminal event")
    }

    pub fn types(&self) -> Vec<&'static str> {
        self.events
            .iter()
            .map(AssistantMessageEvent::type_name)
            .collect()
    }

    /// The JSON body of the (first) request the server received.
    pub fn body(&self) -> Value {
        self.server.requests()[0].json().unwrap()
    }

    /// Whether core classifies the outcome as a context overflow.
    pub fn is_context_overflow(&self) -> bool {
        let m = self.message();
        is_context_overflow(m.stop_reason, m.error_message.as_deref(), &m.usage, None)
    }

    /// The failover reason core derives from the outcome.
    pub fn reason(&self) -> Option<FailoverReason> {
        failover_reason_from_signal(&FailoverSignal {
            status: self.diagnostics.http_status(),
            message: self.message().error_message.as_deref().unwrap_or_default(),
            ..FailoverSignal::default()
        })
    }
}

/// One call against a fresh server playing `response`; `start` gets the server's URL.
pub async fn call_server(
    response: ScriptedResponse,
    start: impl FnOnce(&str) -> (AssistantEventStream, CallDiagnostics),
) -> Call {
    let server = ScriptedServer::start(vec![response]).await.unwrap();
    let (stream, diagnostics) = start(&server.url());
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
    call_server(response, |url| {
        start(
            OpenAiCompletions::new(transport()),
            idle,
            &model(&format!("{url}/v1"), model_extra),
            &context(),
            options,
            OpenAiCompletions::stream_with_diagnostics,
        )
    })
    .await
}

pub async fn call(response: ScriptedResponse) -> Call {
    call_with(response, json!({}), StreamOptions::default(), None).await
}

/// The contract every stream keeps: exactly one terminal event, last.
pub fn assert_contract(events: &[AssistantMessageEvent]) {
    let terminals = events.iter().filter(|e| e.is_terminal()).count();
    assert_eq!(terminals, 1, "{events:#?}");
    assert!(events.last().unwrap().is_terminal());
}

/// Plays `whole` once as it is and then cut every way [`splits`] cuts it (five seeds) through
/// `call`: every run makes one request and ends with the same message.
pub async fn assert_every_split_agrees(
    whole: ScriptedResponse,
    call: impl AsyncFn(ScriptedResponse) -> Call,
) {
    let expected = call(whole.clone()).await.message().clone();
    for seed in 1..=5 {
        for (label, chunking) in splits(whole.body.len(), seed) {
            let c = call(whole.clone().chunked(chunking)).await;
            let mut m = c.message().clone();
            m.timestamp = expected.timestamp;
            assert_eq!(m, expected, "{label}, seed {seed}");
            assert_eq!(c.server.requests().len(), 1);
        }
    }
}

/// The encoded pieces of a scripted reply served as the scripted server serves them: one
/// write each, with `content_type`.
pub fn one_write_each(pieces: &[Vec<u8>], content_type: &str) -> ScriptedResponse {
    ScriptedResponse::sse(pieces.concat())
        .header("content-type", content_type)
        .chunked(Chunking::At(write_ends(pieces)))
}

/// Where each of `pieces` ends in their concatenation.
pub fn write_ends(pieces: &[Vec<u8>]) -> Vec<usize> {
    pieces
        .iter()
        .scan(0, |at, piece| {
            *at += piece.len();
            Some(*at)
        })
        .collect()
}

/// A 429 answered with `message`, `retry-after` of `retry_after_ms` and the provider's
/// request id: one `error` event, the failure kept as data, a rate-limit failover reason, and
/// no retry.
pub fn assert_rate_limited(c: &Call, message: &str, retry_after_ms: u64, request_id: Option<&str>) {
    assert_eq!(c.types(), ["error"]);
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Error);
    assert_eq!(m.error_message.as_deref(), Some(message));
    assert_eq!(c.diagnostics.retry_after_ms(), Some(retry_after_ms));
    assert_eq!(c.diagnostics.http_status(), Some(429));
    let Some(TransportError::Http(http)) = c.diagnostics.failure() else {
        panic!("no http failure")
    };
    assert_eq!(http.request_id.as_deref(), request_id);
    assert_eq!(c.reason(), Some(FailoverReason::RateLimit));
    assert_eq!(c.server.requests().len(), 1, "never retries");
}

/// `first` (the end of the first write), then every `step` bytes up to `len`: a body that
/// trickles out after its first event.
pub fn trickle_cuts(first: usize, step: usize, len: usize) -> Vec<usize> {
    let mut cuts = vec![first];
    cuts.extend((1..60).map(|i| first + i * step).filter(|c| *c < len));
    cuts
}

/// Serves `response` (written slowly), starts a call with `start` (which gets the server's URL
/// and the options to use) and cancels it at the first text delta. Returns the events and the
/// server.
pub async fn cancel_at_first_delta(
    response: ScriptedResponse,
    start: impl FnOnce(&str, StreamOptions) -> AssistantEventStream,
) -> (Vec<AssistantMessageEvent>, ScriptedServer) {
    let server = ScriptedServer::start(vec![response.delay(Duration::from_millis(50))])
        .await
        .unwrap();
    let options = StreamOptions::default();
    let cancel = options.cancel.clone();
    let mut stream = start(&server.url(), options);
    let mut events = Vec::new();
    while let Some(event) = std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await {
        if matches!(event, AssistantMessageEvent::TextDelta { .. }) {
            cancel.cancel();
        }
        events.push(event);
    }
    (events, server)
}

/// A cancelled stream: one terminal event, `aborted` with pi's message, and `text` kept as
/// the only content; the server sees the connection closed.
pub async fn assert_aborted_and_disconnected(
    events: &[AssistantMessageEvent],
    text: &str,
    server: &ScriptedServer,
) {
    assert_contract(events);
    let m = events.last().and_then(|e| e.final_message()).unwrap();
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(m.content, vec![ContentBlock::text(text)]);
    // The server notices the closed connection on its next writes.
    for _ in 0..100 {
        if server.client_disconnects() == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.client_disconnects(), 1);
}

/// The idle timeout the stall tests use.
pub const STALL_IDLE: Duration = Duration::from_millis(300);

/// A call that ran into the [`STALL_IDLE`] timeout: `aborted` (SPEC §8.1) with OpenClaw's
/// idle text, which core's predicate tells from a user abort, and no transport failure (the
/// watchdog, not the transport, ended it).
pub fn assert_idle_timeout(c: &Call) {
    let m = c.message();
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert!(matches!(
        c.events.last(),
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
    assert_eq!(m.error_diagnostics, None);
    assert_eq!(c.diagnostics.failure(), None);
}

/// A URL on which nothing listens.
pub fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// The events of a call to [`refused_url`]: one `error` event about the connection.
pub fn assert_connection_refused(events: &[AssistantMessageEvent]) {
    assert_contract(events);
    let m = events[0].final_message().unwrap();
    assert!(
        m.error_message
            .as_deref()
            .unwrap()
            .starts_with("Connection error:"),
        "{m:?}"
    );
}

/// A call that was cancelled before it started: no request, one `aborted` error event.
pub fn assert_no_request_when_cancelled(c: &Call) {
    assert_eq!(c.types(), ["error"]);
    assert_eq!(c.message().stop_reason, StopReason::Aborted);
    assert!(c.server.requests().is_empty());
}

/// Default options whose cancellation token has already fired.
pub fn cancelled() -> StreamOptions {
    let options = StreamOptions::default();
    options.cancel.cancel();
    options
}

/// A Chat Completions chunk with `delta` (and optional finish reason).
pub fn chunk(delta: Value, finish: Option<&str>) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "object": "chat.completion.chunk", "model": "gpt-4o-mini",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    )
}

pub fn usage_chunk(prompt: u64, cached: u64, completion: u64) -> String {
    format!(
        "data: {}\n\n",
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
               "total_tokens": prompt + completion, "prompt_tokens_details": {"cached_tokens": cached},
               "completion_tokens_details": {"reasoning_tokens": 5}}})
    )
}
