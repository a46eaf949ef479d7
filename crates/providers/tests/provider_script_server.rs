//! The endpoint-aware scripted provider server over real HTTP: routing by `/p/<providerId>`,
//! matching by `expectRequest`, unscripted requests, request records and every reply knob.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::time::{Duration, Instant};

use clawloop_core::{Api, StopReason, StreamOptions};
use clawloop_providers::OpenAiCompletions;
use clawloop_testkit::{
    ProviderScriptServer, ScriptedExchange, UNSCRIPTED_BODY, WireRun, collect_events,
};
use common::{context, model, start, transport};
use serde_json::{Value, json};

fn exchange(json: Value) -> ScriptedExchange {
    serde_json::from_value(json).unwrap()
}

/// One openai-completions call for `model_id` to provider `provider` with `key`.
async fn call(
    server: &ProviderScriptServer,
    provider: &str,
    model_id: &str,
    key: &str,
    idle: Option<Duration>,
) -> WireRun {
    let base = format!("{}/v1", server.provider_url(provider));
    let model = model(&base, json!({"id": model_id, "provider": provider}));
    let options = StreamOptions {
        api_key: Some(key.to_owned()),
        ..StreamOptions::default()
    };
    let (stream, diagnostics) = start(
        OpenAiCompletions::new(transport()),
        idle,
        &model,
        &context(),
        options,
        OpenAiCompletions::stream_with_diagnostics,
    );
    let events = collect_events(stream).await;
    let message = events.last().unwrap().final_message().unwrap().clone();
    WireRun {
        events,
        message,
        diagnostics,
    }
}

async fn post(
    url: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, String, Vec<(String, String)>) {
    let mut request = reqwest::Client::new().post(url).body(body.to_owned());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or_default().to_owned()))
        .collect();
    (status, response.text().await.unwrap(), headers)
}

#[tokio::test]
async fn routes_by_provider_and_records_the_request() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({
        "expectRequest": {"provider": "acme", "api": "openai-completions", "model": "m1",
                          "apiKey": "sk-acme", "roles": ["user"], "messageCount": 1,
                          "lastUserTextContains": "hi", "systemContains": ["terse"],
                          "json": {"/stream": true}},
        "reply": {"thinking": "hm", "textChunks": ["Hello", " there"],
                  "usage": {"input": 40, "output": 7, "cacheRead": 300}}
    }))]);
    let run = call(&server, "acme", "m1", "sk-acme", None).await;
    assert_eq!(run.message.text(), "Hello there");
    assert_eq!(run.message.stop_reason, StopReason::Stop);
    assert_eq!(
        (
            run.message.usage.input,
            run.message.usage.output,
            run.message.usage.cache_read
        ),
        (40, 7, 300)
    );
    let report = server.end_turn();
    assert_eq!(report.problems(), Vec::<String>::new());
    let request = &report.requests[0];
    assert_eq!(request.provider(), Some("acme"));
    assert_eq!(request.api(), Some(&Api::OpenaiCompletions));
    assert_eq!(request.model.as_deref(), Some("m1"));
    assert_eq!(request.api_key.as_deref(), Some("sk-acme"));
    assert_eq!(request.request.path, "/p/acme/v1/chat/completions");
    assert_eq!((request.turn, request.response), (1, Some(0)));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn requests_take_the_first_response_whose_expectation_holds() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(json!({"expectRequest": {"model": "m2"}, "reply": {"text": "for m2"}})),
        exchange(json!({"expectRequest": {"apiKey": "key-b"}, "reply": {"text": "for b"}})),
        exchange(json!({"reply": {"text": "anyone"}})),
    ]);
    let b = call(&server, "acme", "m1", "key-b", None).await;
    assert_eq!(b.message.text(), "for b");
    let other = call(&server, "acme", "m1", "key-a", None).await;
    assert_eq!(other.message.text(), "anyone");
    let m2 = call(&server, "zeta", "m2", "key-a", None).await;
    assert_eq!(m2.message.text(), "for m2");
    assert_eq!(server.remaining(), 0);
    let report = server.end_turn();
    assert!(report.is_clean(), "{:?}", report.problems());
    let taken: Vec<_> = report.requests.iter().map(|r| r.response).collect();
    assert_eq!(taken, vec![Some(1), Some(2), Some(0)]);
    assert_eq!(report.requests[2].provider(), Some("zeta"));
}

#[tokio::test]
async fn a_mismatch_takes_the_first_unused_and_is_reported() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(
            json!({"expectRequest": {"toolNames": ["read"], "bodyNotContains": ["\"model\""]},
                        "reply": {"text": "first"}}),
        ),
        exchange(json!({"expectRequest": {"provider": "bolt"}, "reply": {"text": "second"}})),
    ]);
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.text(), "first");
    let report = server.end_turn();
    assert_eq!(
        report.problems(),
        vec![
            "request 1 (POST /p/acme/v1/chat/completions) took responses[0]: expectRequest.toolNames: expected [\"read\"], got []".to_owned(),
            "responses[1] was never requested".to_owned(),
        ]
    );
    assert!(report.requests[0].mismatch.is_some());
}

#[tokio::test]
async fn unscripted_requests_get_500_and_fail_the_turn() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(
        json!({"optional": true, "reply": {"text": "x"}}),
    )]);
    let url = format!("{}/v1/chat/completions", server.provider_url("acme"));
    let body = r#"{"model":"m1","messages":[]}"#;
    let (status, _, _) = post(&url, body, &[]).await;
    assert_eq!(status, 200);
    let (status, text, _) = post(&url, body, &[]).await;
    assert_eq!((status, text.as_str()), (500, UNSCRIPTED_BODY));
    let report = server.end_turn();
    assert_eq!(
        report.problems(),
        vec![
            "request 2 (POST /p/acme/v1/chat/completions): unscripted request (no scripted response left)"
        ]
    );
    // Between turns every request is unscripted, and the next report shows it.
    let (status, _, _) = post(&url, body, &[]).await;
    assert_eq!(status, 500);
    server.begin_turn(vec![exchange(
        json!({"optional": true, "reply": {"text": "x"}}),
    )]);
    let report = server.end_turn();
    assert_eq!(report.requests.len(), 1);
    assert_eq!(report.requests[0].turn, 1);
    assert_eq!(report.unused_optional, vec![0]);
    assert!(report.unused.is_empty());
    assert_eq!(report.problems().len(), 1);
}

#[tokio::test]
async fn api_keys_and_models_of_every_endpoint_shape() {
    let server = ProviderScriptServer::start().await.unwrap();
    let verbatim = || exchange(json!({"reply": {"raw": "ok"}}));
    server.begin_turn(vec![
        verbatim().expecting(serde_json::from_value(json!({
            "provider": "gem", "api": "google-generative-ai", "model": "gemini-2.5-flash", "apiKey": "AIza"
        })).unwrap()),
        verbatim().expecting(serde_json::from_value(json!({
            "provider": "bolt", "api": "anthropic-messages", "model": "claude", "apiKey": "ant",
            "systemContains": ["be kind"], "lastUserTextContains": "plan"
        })).unwrap()),
        verbatim().expecting(serde_json::from_value(json!({
            "provider": "ol", "api": "ollama", "model": "qwen3:8b", "toolNames": ["f"]
        })).unwrap()),
        verbatim(),
    ]);
    let root = server.url();
    let gemini = format!(
        "{root}/p/gem/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=AIza"
    );
    let (status, text, headers) = post(&gemini, "{}", &[]).await;
    assert_eq!((status, text.as_str()), (200, "ok"));
    assert!(headers.contains(&("content-type".into(), "text/event-stream".into())));
    let anthropic = format!("{root}/p/bolt/v1/messages");
    let body = json!({"model": "claude", "system": "be kind",
                      "messages": [{"role": "user", "content": "plan it"}]});
    post(&anthropic, &body.to_string(), &[("x-api-key", "ant")]).await;
    let ollama = format!("{root}/p/ol/api/chat");
    let body =
        json!({"model": "qwen3:8b", "tools": [{"type": "function", "function": {"name": "f"}}]});
    let (_, _, headers) = post(&ollama, &body.to_string(), &[]).await;
    assert!(headers.contains(&("content-type".into(), "application/x-ndjson".into())));
    post(
        &format!("{root}/somewhere"),
        "not json",
        &[("x-goog-api-key", "g")],
    )
    .await;
    let report = server.end_turn();
    assert!(report.is_clean(), "{:?}", report.problems());
    let taken: Vec<_> = report.requests.iter().map(|r| r.response).collect();
    assert_eq!(taken, vec![Some(0), Some(1), Some(2), Some(3)]);
    let last = &report.requests[3];
    assert_eq!(
        (last.provider(), last.api(), last.model.as_deref()),
        (None, None, None)
    );
    assert_eq!(last.api_key.as_deref(), Some("g"));
}

#[tokio::test]
async fn streams_for_unknown_endpoints_are_refused_with_a_reason() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({"reply": {"text": "x"}}))]);
    let (status, text, _) = post(&format!("{}/p/a/v1/embeddings", server.url()), "{}", &[]).await;
    assert_eq!(status, 501);
    assert!(text.contains("unknown endpoint"), "{text}");
    let problems = server.end_turn().problems();
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].contains("took responses[0]: cannot encode"),
        "{problems:?}"
    );
}

#[tokio::test]
async fn error_status_body_and_headers_are_sent_verbatim() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({"reply": {
        "status": 429, "headers": {"retry-after": "7"},
        "body": {"error": {"message": "Rate limit reached for requests", "type": "requests"}}
    }}))]);
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.stop_reason, StopReason::Error);
    let error = run.message.error_message.clone().unwrap_or_default();
    assert!(error.contains("Rate limit reached"), "{error}");
    assert_eq!(run.diagnostics.http_status(), Some(429));
    assert_eq!(run.diagnostics.retry_after_ms(), Some(7000));
}

#[tokio::test]
async fn stream_error_raw_and_content_type() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(json!({"reply": {"text": "partial", "streamError": "Internal server error, retry"}})),
        exchange(json!({"reply": {"raw": "data: {\"choices\":[{\"delta\":{\"content\":\"raw!\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"}})),
        exchange(json!({"reply": {"status": 502, "body": "<html>Bad Gateway</html>", "contentType": "text/html"}})),
    ]);
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.stop_reason, StopReason::Error);
    assert_eq!(run.message.text(), "partial");
    assert!(
        run.message
            .error_message
            .as_deref()
            .unwrap_or_default()
            .contains("Internal server error, retry"),
        "{:?}",
        run.message.error_message
    );
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.text(), "raw!");
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.diagnostics.http_status(), Some(502));
    assert!(
        run.message
            .error_message
            .as_deref()
            .unwrap_or_default()
            .contains("Bad Gateway"),
        "{:?}",
        run.message.error_message
    );
    assert!(server.end_turn().is_clean());
}

#[tokio::test]
async fn drop_after_chunks_keeps_the_partial_text() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![exchange(json!({"reply": {
        "textChunks": ["The quarterly ", "numbers look ", "strong."], "dropAfterChunks": 1
    }}))]);
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.stop_reason, StopReason::Error);
    assert_eq!(run.message.text(), "The quarterly ");
    assert_eq!(run.types().last(), Some(&"error"));
}

#[tokio::test]
async fn stalls_and_delays() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(json!({"reply": {"text": "late", "stallMs": 300}})),
        exchange(json!({"reply": {"textChunks": ["a", "b", "c"], "chunkDelayMs": 60}})),
        exchange(json!({"reply": {"textChunks": ["before ", "after"], "stallMs": 2000, "stallAfterChunks": 1}})),
    ]);
    let started = Instant::now();
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.text(), "late");
    assert!(started.elapsed() >= Duration::from_millis(300));

    // 3 texts, finish, usage, [DONE]: five pauses between six chunks.
    let started = Instant::now();
    let run = call(&server, "acme", "m1", "k", None).await;
    assert_eq!(run.message.text(), "abc");
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );

    // A stall after the first chunk longer than the idle timeout: aborted with the idle text
    // (SPEC §8.1), partial text kept.
    let run = call(&server, "acme", "m1", "k", Some(Duration::from_millis(200))).await;
    assert_eq!(run.message.stop_reason, StopReason::Aborted);
    assert_eq!(
        run.message.error_message.as_deref(),
        Some("LLM idle timeout (0.2s): no response from model")
    );
    assert_eq!(run.message.text(), "before ");
    assert!(server.end_turn().is_clean());
}

#[tokio::test]
async fn parallel_requests_match_in_any_order() {
    let server = ProviderScriptServer::start().await.unwrap();
    let mut script = Vec::new();
    for i in 0..6 {
        script.push(exchange(json!({
            "expectRequest": {"model": format!("m{i}")}, "reply": {"text": format!("reply {i}")}
        })));
    }
    server.begin_turn(script);
    let server = std::sync::Arc::new(server);
    let mut tasks = Vec::new();
    for i in (0..6).rev() {
        let server = server.clone();
        tasks.push(tokio::spawn(async move {
            call(&server, "acme", &format!("m{i}"), "k", None)
                .await
                .message
                .text()
        }));
    }
    for (task, i) in tasks.into_iter().zip((0..6).rev()) {
        assert_eq!(task.await.unwrap(), format!("reply {i}"));
    }
    assert!(server.end_turn().is_clean());
}

#[tokio::test]
async fn timings_follow_each_exchange_in_arrival_order() {
    let server = ProviderScriptServer::start().await.unwrap();
    server.begin_turn(vec![
        exchange(json!({"reply": {"textChunks": ["a", "b", "c"]}})),
        exchange(json!({"reply": {"text": "second"}})),
    ]);
    let url = format!("{}/v1/chat/completions", server.provider_url("acme"));
    let before = Instant::now();
    let first = post(&url, r#"{"model":"m1","messages":[]}"#, &[]).await;
    let between = Instant::now();
    let second = post(&url, r#"{"model":"m1","messages":[]}"#, &[]).await;
    let after = Instant::now();
    assert_eq!((first.0, second.0), (200, 200));
    // The server records an exchange just after its last write, which can be after the
    // client has read the end of the body: wait until both are recorded.
    let mut timings = server.timings();
    for _ in 0..1000 {
        if timings.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        timings = server.timings();
    }
    assert_eq!(timings.len(), 2, "{timings:?}");
    // Each request arrives inside the client call that made it, and is answered after.
    let windows = [(before, between), (between, after)];
    for (timing, (start, end)) in timings.iter().zip(windows) {
        let answered = timing.answered.unwrap();
        assert!(
            start <= timing.received && timing.received <= end && timing.received <= answered,
            "{timing:?} not within {start:?}..{end:?}"
        );
    }
}
