//! `agents.defaults.compaction.notifyUser`: a compaction during the turn sends the block
//! reply `🧹 Compacting context...` before the answer; without the setting nothing extra is
//! sent.

#![allow(clippy::unwrap_used)]

mod turn_support;

use std::sync::Arc;

use clawloop_core::hooks::NoHooks;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::turn::{COMPACTION_NOTICE, TurnIo, TurnRequest, run_agent_turn_with_fallback};
use clawloop_subscribe::{BlockReply, SubscriptionSink};
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::json;
use turn_support::{Scene, overflow, success_text, text};

/// Keeps the text of every block reply.
#[derive(Clone, Default)]
struct Blocks(Arc<Mutex<Vec<String>>>);

impl SubscriptionSink for Blocks {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.0.lock().push(reply.text);
    }
}

fn request(prompt: &str) -> TurnRequest {
    TurnRequest {
        session_key: "notice".to_owned(),
        prompt: prompt.to_owned(),
        ..TurnRequest::default()
    }
}

/// The block replies of a turn whose first model call overflows and is recovered by the
/// attempt's compaction.
async fn blocks_of_an_overflowing_turn(notify_user: bool) -> Vec<String> {
    let scene = Scene::new(
        json!({"compaction": {"keepRecentTokens": 10, "notifyUser": notify_user}}),
        Arc::new(NoHooks),
        |b| b,
    )
    .await;
    scene
        .server
        .begin_turn(vec![text("Understood: billing deploys Friday 10:00.")]);
    let seeded = run_agent_turn_with_fallback(
        &scene.env,
        request("We deploy billing on Friday at 10:00."),
        TurnIo::default(),
    )
    .await;
    success_text(&seeded);
    scene.server.end_turn();

    scene.server.begin_turn(vec![
        overflow(),
        text("SUMMARY: billing deploys Friday 10:00."),
        text("Checklist: Friday 10:00."),
    ]);
    let blocks = Blocks::default();
    let io = TurnIo {
        replies: SharedReplySink::new(blocks.clone()),
        ..TurnIo::default()
    };
    let result = run_agent_turn_with_fallback(&scene.env, request("Write a checklist."), io).await;
    assert_eq!(success_text(&result), "Checklist: Friday 10:00.");
    assert_eq!(scene.server.end_turn().requests.len(), 3);
    blocks.0.lock().clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_notify_user_the_notice_comes_before_the_answer() {
    let blocks = blocks_of_an_overflowing_turn(true).await;
    assert_eq!(
        blocks.first().map(String::as_str),
        Some(COMPACTION_NOTICE),
        "{blocks:?}"
    );
    assert_eq!(blocks.iter().filter(|b| *b == COMPACTION_NOTICE).count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_it_no_notice_is_sent() {
    let blocks = blocks_of_an_overflowing_turn(false).await;
    assert!(!blocks.iter().any(|b| b == COMPACTION_NOTICE), "{blocks:?}");
}

/// The same turn on the `google-generative-ai` API, whose overflow text is Gemini's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_google_api_the_notice_comes_first_too() {
    use clawloop_runner::config::Config;
    use clawloop_runner::turn::TurnEnv;
    use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};

    let exchange = |value| serde_json::from_value::<ScriptedExchange>(value).unwrap();
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = Config::from_value(json!({
        "agents": {"defaults": {"model": {"primary": "gg/gem"},
            "compaction": {"keepRecentTokens": 10, "notifyUser": true}}},
        "models": {"providers": {"gg": {
            "api": "google-generative-ai",
            "apiKey": "test-key",
            "baseUrl": server.provider_url("gg"),
            "models": [{"id": "gem", "contextWindow": 128000, "maxTokens": 4096}],
        }}},
    }))
    .unwrap();
    let env = TurnEnv::builder(dir.path().join("home"), dir.path().join("ws"))
        .config(config)
        .tools(Vec::new())
        .build()
        .unwrap();
    server.begin_turn(vec![exchange(json!({"reply": {
        "text": "Understood: billing deploys Friday 10:00, blue-green, rollback above 2 percent."}}))]);
    let seeded = run_agent_turn_with_fallback(
        &env,
        request("We deploy the billing service on Friday at 10:00 with a blue-green rollout."),
        TurnIo::default(),
    )
    .await;
    success_text(&seeded);
    server.end_turn();
    server.begin_turn(vec![
        exchange(json!({"reply": {"status": 400, "body": {"error": {"code": 400,
            "message": "The input token count (250000) exceeds the maximum number of tokens allowed (128000).",
            "status": "INVALID_ARGUMENT"}}}})),
        exchange(json!({"reply": {"text": "SUMMARY: billing deploys Friday 10:00."}})),
        exchange(json!({"reply": {"text": "Checklist: Friday 10:00."}})),
    ]);
    let blocks = Blocks::default();
    let io = TurnIo {
        replies: SharedReplySink::new(blocks.clone()),
        ..TurnIo::default()
    };
    let result = run_agent_turn_with_fallback(&env, request("Write a checklist."), io).await;
    assert_eq!(success_text(&result), "Checklist: Friday 10:00.");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(
        blocks.0.lock().first().map(String::as_str),
        Some(COMPACTION_NOTICE)
    );
}
