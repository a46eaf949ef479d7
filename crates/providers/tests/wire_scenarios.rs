//! The public `wire` conformance scenarios (FORMAT.md) for `openai-completions`, and every
//! real recorded Chat Completions response, served over HTTP whole, one byte per read and at
//! seeded random splits (the shared `wire_expect` runner on the crate's `replay_wire`); all
//! three must agree with the expectation and make one request.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "common/wire_expect.rs"]
mod wire_expect;

use clawloop_core::{Api, StreamOptions};
use clawloop_providers::OpenAiCompletions;
use common::{context, model, transport};
use serde_json::{Value, json};

#[tokio::test]
async fn public_wire_scenarios_and_real_fixtures() {
    let start = |url: &str, extra: &Value| {
        OpenAiCompletions::new(transport()).stream_with_diagnostics(
            &model(url, extra.clone()),
            &context(),
            StreamOptions::default(),
        )
    };
    let outcome = wire_expect::run_public_scenarios(
        &Api::OpenaiCompletions,
        Some("openai-chat"),
        &own_fixture_cases(),
        &start,
    )
    .await;
    outcome.assert_all_passed();
    assert!(
        outcome.passed.len() >= 12,
        "only {} cases ran",
        outcome.passed.len()
    );
}

/// Real fixtures no public scenario covers get their expectation here.
fn own_fixture_cases() -> Vec<Value> {
    vec![json!({
        "kind": "wire",
        "name": "json_nonstream_usage_cached_tokens",
        "description": "a server that ignores stream:true answers one JSON completion; cached tokens leave input",
        "input": {"api": "openai-completions", "bodyFile": "json_nonstream_usage_cached_tokens.json",
                  "headers": {"content-type": "application/json"}},
        "expect": {
            "message": {"content": [{"type": "text", "text": "OK"}], "stopReason": "stop",
                        "usage": {"input": 8, "output": 4, "cacheRead": 4012, "cacheWrite": 0, "totalTokens": 4024}},
            "events": ["start", "text_start", "text_end", "done"]
        }
    })]
}
