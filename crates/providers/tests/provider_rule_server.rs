//! The rule-driven provider server over real HTTP: each reply is computed from its own
//! request, whatever order concurrent requests arrive in; replies are encoded per endpoint;
//! every exchange is recorded with the status it got.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use clawloop_core::message::ContentBlock;
use clawloop_core::{Context, StopReason, UserMessage};
use clawloop_providers::OpenAiCompletions;
use clawloop_testkit::{ProviderRequest, ProviderRuleServer, ScriptedReply, collect_events};
use common::{keyed, model, start, transport};
use pretty_assertions::assert_eq;
use serde_json::json;

/// Key `sk-tired` is rate-limited; everyone else hears their own words back.
fn echo_rule(request: &ProviderRequest) -> ScriptedReply {
    if request.api_key.as_deref() == Some("sk-tired") {
        return serde_json::from_value(json!({
            "status": 429,
            "body": {"error": {"message": "Rate limit reached.", "type": "requests"}}
        }))
        .unwrap();
    }
    ScriptedReply {
        text: Some(format!(
            "echo: {}",
            request.last_user_text().unwrap_or_default()
        )),
        ..ScriptedReply::default()
    }
}

/// One openai-completions call saying `text` with `key`: the final text or error message.
async fn say(server: &ProviderRuleServer, key: &str, text: &str) -> (StopReason, String) {
    let base = format!("{}/v1", server.provider_url("acme"));
    let model = model(&base, json!({"id": "m1", "provider": "acme"}));
    let context = Context {
        system_prompt: None,
        messages: vec![clawloop_core::Message::User(UserMessage::text(text, 1))],
        tools: Vec::new(),
    };
    let (stream, _) = start(
        OpenAiCompletions::new(transport()),
        None,
        &model,
        &context,
        keyed(key),
        OpenAiCompletions::stream_with_diagnostics,
    );
    let events = collect_events(stream).await;
    let message = events.last().unwrap().final_message().unwrap().clone();
    let text = match message.stop_reason {
        StopReason::Error => message.error_message.clone().unwrap_or_default(),
        _ => message
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) => Some(t.text.clone()),
                _ => None,
            })
            .collect(),
    };
    (message.stop_reason, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_each_get_the_reply_computed_from_them() {
    let server = Arc::new(ProviderRuleServer::start(echo_rule).await.unwrap());
    let calls: Vec<_> = (0..24)
        .map(|i| {
            let server = Arc::clone(&server);
            tokio::spawn(async move {
                let key = if i % 4 == 0 { "sk-tired" } else { "sk-fresh" };
                (i, say(&server, key, &format!("message {i}")).await)
            })
        })
        .collect();
    for call in calls {
        let (i, (stop, text)) = call.await.unwrap();
        if i % 4 == 0 {
            assert_eq!(stop, StopReason::Error, "call {i}");
            assert!(text.contains("429"), "call {i}: {text}");
        } else {
            assert_eq!(
                (stop, text),
                (StopReason::Stop, format!("echo: message {i}"))
            );
        }
    }

    let exchanges = server.exchanges();
    assert_eq!(exchanges.len(), 24);
    let mut seen: Vec<(String, u16)> = exchanges
        .iter()
        .map(|e| (e.request.last_user_text().unwrap(), e.status()))
        .collect();
    seen.sort();
    let mut want: Vec<(String, u16)> = (0..24)
        .map(|i| (format!("message {i}"), if i % 4 == 0 { 429 } else { 200 }))
        .collect();
    want.sort();
    assert_eq!(seen, want);
    assert!(
        exchanges
            .iter()
            .all(|e| e.request.provider() == Some("acme")
                && e.request.model.as_deref() == Some("m1")
                && e.request.turn == 0
                && e.request.response.is_none())
    );
}

#[tokio::test]
async fn replies_are_encoded_for_the_endpoint_called() {
    let asked = Arc::new(AtomicUsize::new(0));
    let rule = {
        let asked = Arc::clone(&asked);
        move |_: &ProviderRequest| {
            asked.fetch_add(1, Ordering::SeqCst);
            ScriptedReply {
                text: Some("Bonjour.".to_owned()),
                ..ScriptedReply::default()
            }
        }
    };
    let server = ProviderRuleServer::start(rule).await.unwrap();
    let response = reqwest::Client::new()
        .post(format!("{}/v1/messages", server.provider_url("bolt")))
        .body(json!({"model": "b1", "stream": true, "messages": []}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let body = response.text().await.unwrap();
    assert!(body.contains("event: message_start"), "{body}");
    assert!(body.contains("Bonjour."), "{body}");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let exchanges = server.exchanges();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(
        exchanges[0]
            .request
            .api()
            .map(|api| api.as_str().to_owned()),
        Some("anthropic-messages".to_owned())
    );
    assert_eq!(exchanges[0].status(), 200);
}

#[tokio::test]
async fn a_reply_that_cannot_be_played_gets_501_and_says_why() {
    let server = ProviderRuleServer::start(|_: &ProviderRequest| ScriptedReply {
        text: Some("lost".to_owned()),
        ..ScriptedReply::default()
    })
    .await
    .unwrap();
    let response = reqwest::Client::new()
        .post(format!("{}/nowhere", server.url()))
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 501);
    let body: serde_json::Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    let problem = "cannot encode a scripted reply for an unknown endpoint (no API)";
    assert_eq!(body, json!({"error": problem}));
    let exchanges = server.exchanges();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(exchanges[0].status(), 501);
    assert_eq!(exchanges[0].request.problem.as_deref(), Some(problem));
}
