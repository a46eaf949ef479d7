//! Controlling a turn from outside while it runs: steering and aborting through the runtime's
//! active-run registry, and compaction asked for directly on the turn's lanes.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use clawloop_core::agent_event::AgentEvent;
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::attempt::SharedReplySink;
use clawloop_runner::compaction::CompactionOutcome;
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnIo, TurnRequest, compact_session_direct,
    run_agent_turn_with_fallback,
};
use clawloop_session::{SessionOptions, SessionStore, Transcript};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use clawloop_tools::execute::EventSink;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Harness {
    server: ProviderScriptServer,
    dir: tempfile::TempDir,
    env: TurnEnv,
}

async fn harness(extra: Value) -> Harness {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut config = json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}, "compaction": {"keepRecentTokens": 10}}},
        "models": {"providers": {"acme": {"api": "openai-completions", "apiKey": "sk-test", "baseUrl": format!("{}/v1", server.provider_url("acme")), "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}]}}}
    });
    if let (Some(base), Some(extra)) = (config.as_object_mut(), extra.as_object()) {
        base.extend(extra.clone());
    }
    let config = Config::from_value(config).unwrap();
    let env = TurnEnv::builder(dir.path(), dir.path().join("work"))
        .config(config)
        .env_lookup(Arc::new(|_: &str| None))
        .build()
        .unwrap();
    Harness { server, dir, env }
}

fn script(h: &Harness, replies: Vec<Value>) {
    h.server.begin_turn(
        replies
            .into_iter()
            .map(|r| serde_json::from_value::<ScriptedExchange>(r).unwrap())
            .collect(),
    );
}

fn request(prompt: &str) -> TurnRequest {
    TurnRequest {
        session_key: "main".to_owned(),
        prompt: prompt.to_owned(),
        ..TurnRequest::default()
    }
}

fn texts(result: &AgentRunLoopResult) -> Vec<String> {
    match result {
        AgentRunLoopResult::Success(s) => s
            .run_result
            .payloads
            .iter()
            .filter_map(|p| p.text.clone())
            .collect(),
        AgentRunLoopResult::Final { payload, .. } => payload.text.iter().cloned().collect(),
    }
}

/// Io whose events call `on_tool_start` once a tool starts.
fn io_with(on_tool_start: impl Fn() + Send + Sync + 'static) -> TurnIo {
    let sink: EventSink = Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::ToolExecutionStart { .. }) {
            on_tool_start();
        }
    });
    TurnIo {
        cancel: CancellationToken::new(),
        events: Some(sink),
        replies: SharedReplySink::discard(),
        queues: MessageQueues::new(),
    }
}

#[tokio::test]
async fn a_message_steered_through_the_registry_reaches_the_running_turn() {
    let h = harness(json!({})).await;
    script(
        &h,
        vec![
            json!({"reply": {"toolCalls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 0.3; echo done"}}]}}),
            json!({"expectRequest": {"lastUserTextContains": "also check the logs"}, "reply": {"text": "Checked the logs too."}}),
        ],
    );
    let runtime = h.env.runtime.clone();
    let io = io_with(move || {
        let session = runtime
            .active_runs()
            .session_id_for_key("main")
            .expect("the turn is registered");
        assert!(
            runtime
                .active_runs()
                .queue_message(&session, "also check the logs")
        );
    });
    let result = run_agent_turn_with_fallback(&h.env, request("Run the build."), io).await;
    assert_eq!(h.server.end_turn().problems(), Vec::<String>::new());
    assert_eq!(texts(&result), ["Checked the logs too."]);
    assert_eq!(
        h.env.runtime.active_runs().active_count(),
        0,
        "cleared after the turn"
    );
}

#[tokio::test]
async fn an_abort_through_the_registry_stops_the_running_turn() {
    let h = harness(json!({})).await;
    script(
        &h,
        vec![
            json!({"reply": {"toolCalls": [{"id": "c1", "name": "bash", "arguments": {"command": "sleep 30"}}]}}),
        ],
    );
    let runtime = h.env.runtime.clone();
    let io = io_with(move || {
        let session = runtime
            .active_runs()
            .session_id_for_key("main")
            .expect("the turn is registered");
        assert!(runtime.active_runs().abort(&session));
    });
    let started = std::time::Instant::now();
    let result = run_agent_turn_with_fallback(&h.env, request("Wait."), io).await;
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the sleep was killed"
    );
    assert_eq!(h.server.end_turn().problems(), Vec::<String>::new());
    let AgentRunLoopResult::Success(success) = result else {
        panic!("expected a run result")
    };
    assert!(success.run_result.meta.aborted);
}

#[tokio::test]
async fn compaction_asked_for_directly_summarizes_the_keys_session() {
    let h = harness(json!({})).await;
    script(
        &h,
        vec![json!({"reply": {"text": "We deploy on Friday with a blue-green rollout."}})],
    );
    run_agent_turn_with_fallback(&h.env, request("When do we deploy?"), TurnIo::default()).await;
    script(&h, vec![json!({"reply": {"text": "Noted."}})]);
    run_agent_turn_with_fallback(&h.env, request("Remember blue-green."), TurnIo::default()).await;
    h.server.end_turn();
    script(
        &h,
        vec![
            json!({"expectRequest": {"systemContains": ["context summarization assistant"], "bodyContains": ["When do we deploy?"]}, "reply": {"text": "## Goal\nDeploy Friday."}}),
        ],
    );
    let outcome = compact_session_direct(
        &h.env,
        "main",
        Some("Focus on dates.".to_owned()),
        &CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(h.server.end_turn().problems(), Vec::<String>::new());
    let CompactionOutcome::Compacted(result) = outcome else {
        panic!("expected a compaction")
    };
    assert!(
        result.summary.contains("## Goal\nDeploy Friday."),
        "{}",
        result.summary
    );
    let sessions = h.dir.path().join("agents/main/sessions");
    let record = SessionStore::new(&sessions)
        .find_by_key("main")
        .unwrap()
        .unwrap();
    let transcript =
        Transcript::open(record.transcript_path(&sessions), SessionOptions::default()).unwrap();
    assert_eq!(
        transcript.build_context().messages[0].role(),
        "compactionSummary"
    );
}
