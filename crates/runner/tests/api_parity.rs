//! The same scripted turn on each wire API the scripted server speaks, through
//! `run_agent_turn_with_fallback`: what the user is shown must not depend on the API
//! (issue 22 item 6, the Google `write` validation report).

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use support::{Scene, text};

const APIS: [&str; 4] = [
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
    "google-generative-ai",
];

/// One provider `p` on `api` with the model `m1` and a configured key.
fn config(api: &str) -> Value {
    json!({
        "agents": {"defaults": {"model": {"primary": "p/m1"}}},
        "models": {"providers": {
            "p": {"api": api, "baseUrl": "http://127.0.0.1:9", "apiKey": "k",
                  "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}
        }}
    })
}

/// A reply calling `write` with `arguments` (no id: Gemini calls carry none).
fn write(arguments: Value) -> Value {
    json!({"reply": {"toolCalls": [{"name": "write", "arguments": arguments}]}})
}

/// The payloads of one turn of `script` on each API, by API.
async fn payloads_per_api(script: &[Value]) -> Vec<(&'static str, Vec<(String, bool)>)> {
    let mut out = Vec::new();
    for api in APIS {
        let scene = Scene::new(config(api), None).await;
        let turn = scene.turn("Write a.txt.", script.to_vec()).await;
        out.push((api, turn.payloads()));
    }
    out
}

/// `payloads` as the answer of every API.
fn on_every_api(payloads: &[(&str, bool)]) -> Vec<(&'static str, Vec<(String, bool)>)> {
    let payloads: Vec<(String, bool)> = payloads
        .iter()
        .map(|(text, is_error)| ((*text).to_owned(), *is_error))
        .collect();
    APIS.iter().map(|api| (*api, payloads.clone())).collect()
}

#[tokio::test]
async fn a_write_that_fails_validation_and_is_never_redone_is_reported_on_every_api() {
    let script = [write(json!({"path": "a.txt"})), text("Done.")];
    assert_eq!(
        payloads_per_api(&script).await,
        on_every_api(&[
            ("Done.", false),
            ("⚠\u{fe0f} ✍\u{fe0f} Write: `to a.txt` failed", true)
        ])
    );
}

#[tokio::test]
async fn a_write_that_fails_validation_then_succeeds_is_not_reported_on_any_api() {
    let script = [
        write(json!({"path": "a.txt"})),
        write(json!({"path": "a.txt", "content": "hi"})),
        text("Done."),
    ];
    assert_eq!(
        payloads_per_api(&script).await,
        on_every_api(&[("Done.", false)])
    );
}
