//! A turn runs as a task of the Tokio runtime, even when the caller drives it with
//! `Runtime::block_on` from its own thread (as a CLI `main` does): the stream's events are
//! handled on a runtime worker, next to the HTTP connection's task, not handed across threads
//! one by one.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::thread::ThreadId;

use clawloop_core::agent_event::AgentEvent;
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::execute::EventSink;
use pretty_assertions::assert_eq;
use serde_json::json;

#[test]
fn a_turn_awaited_by_block_on_runs_its_events_on_a_runtime_worker() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let caller = std::thread::current().id();
    let threads: Arc<Mutex<Vec<ThreadId>>> = Arc::default();
    let (reply, event_threads) = runtime.block_on(async {
        let server = ProviderScriptServer::start().await.unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = Config::from_value(json!({
            "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
            "models": {"providers": {"acme": {"api": "openai-completions", "apiKey": "sk-test", "baseUrl": format!("{}/v1", server.provider_url("acme")), "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}}
        }))
        .unwrap();
        let env = TurnEnv::builder(dir.path(), dir.path().join("work"))
            .config(config)
            .env_lookup(Arc::new(|_: &str| None))
            .build()
            .unwrap();
        let chunks: Vec<String> = "streamed one byte at a time"
            .chars()
            .map(String::from)
            .collect();
        server.begin_turn(vec![
            serde_json::from_value::<ScriptedExchange>(json!({"reply": {"textChunks": chunks}}))
                .unwrap(),
        ]);
        let seen = Arc::clone(&threads);
        let sink: EventSink = Arc::new(move |event: AgentEvent| {
            if matches!(event, AgentEvent::MessageUpdate { .. }) {
                seen.lock().unwrap().push(std::thread::current().id());
            }
        });
        let io = TurnIo {
            events: Some(sink),
            ..TurnIo::default()
        };
        let request = TurnRequest {
            session_key: "main".to_owned(),
            prompt: "Stream something.".to_owned(),
            ..TurnRequest::default()
        };
        let result = run_agent_turn_with_fallback(&env, request, io).await;
        assert_eq!(server.end_turn().problems(), Vec::<String>::new());
        let reply = match result {
            AgentRunLoopResult::Success(s) => s.run_result.reply_text(),
            AgentRunLoopResult::Final { payload, .. } => format!("failed: {:?}", payload.text),
        };
        (reply, threads.lock().unwrap().clone())
    });
    assert_eq!(reply, "streamed one byte at a time");
    assert!(!event_threads.is_empty(), "the stream produced updates");
    let on_caller = event_threads.iter().filter(|t| **t == caller).count();
    assert_eq!(
        on_caller,
        0,
        "stream events handled on the block_on thread, out of {}",
        event_threads.len()
    );
}
