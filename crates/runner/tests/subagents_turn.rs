//! Subagents through whole turns over the scripted server: the parent's model calls
//! `sessions_spawn`, the child's turn is answered by the server, the tool result carries the
//! child's answer, the runtime's registry records the run, and cleanup deletes or keeps the
//! child's session.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod turn_support;

use std::sync::Arc;

use clawloop_core::hooks::NoHooks;
use clawloop_runner::registry::{
    SubagentCleanup, SubagentEndedReason, SubagentOutcome, SubagentRunRecord, SubagentSettings,
    SubagentStatus,
};
use clawloop_runner::turn::{TurnIo, TurnRequest, run_agent_turn_with_fallback};
use clawloop_testkit::ProviderRequest;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use turn_support::{Scene, success_text, text, tool_call};

const START_MS: u64 = 1_700_000_000_000;

async fn subagent_scene() -> Scene {
    Scene::new(json!({}), Arc::new(NoHooks), |b| {
        b.subagents(SubagentSettings::default())
    })
    .await
}

/// The parent asks for a child with `cleanup`; the child answers; the parent sums up.
async fn spawn_turn(scene: &Scene, cleanup: &str) -> (String, Vec<ProviderRequest>) {
    scene.server.begin_turn(vec![
        tool_call(
            "call_spawn",
            "sessions_spawn",
            json!({"task": "Count the planets of the solar system.", "label": "planets", "cleanup": cleanup}),
        ),
        text("There are 8 planets."),
        text("The subagent counted 8 planets."),
    ]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        TurnRequest {
            session_key: "parent".to_owned(),
            prompt: "Ask a subagent how many planets there are.".to_owned(),
            ..TurnRequest::default()
        },
        TurnIo::default(),
    )
    .await;
    let report = scene.server.end_turn();
    assert_eq!((report.unused.len(), report.requests.len()), (0, 3));
    (success_text(&result), report.requests)
}

fn tool_result_text(request: &ProviderRequest) -> Value {
    let body = request.json.clone().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    serde_json::from_str(tool["content"].as_str().unwrap()).unwrap()
}

fn only_record(scene: &Scene) -> SubagentRunRecord {
    let records = scene.env.runtime.subagents().list();
    assert_eq!(records.len(), 1, "{records:?}");
    records.into_iter().next().unwrap()
}

fn expected_record(record: &SubagentRunRecord, cleanup: SubagentCleanup) -> SubagentRunRecord {
    SubagentRunRecord {
        run_id: record.run_id.clone(),
        child_session_key: record.child_session_key.clone(),
        requester_session_key: "parent".into(),
        task: "Count the planets of the solar system.".into(),
        cleanup,
        label: Some("planets".into()),
        model: None,
        created_at: START_MS,
        started_at: Some(START_MS),
        ended_at: Some(START_MS),
        outcome: Some(SubagentOutcome {
            status: SubagentStatus::Ok,
            error: None,
        }),
        ended_reason: Some(SubagentEndedReason::SubagentComplete),
        frozen_result_text: Some("There are 8 planets.".into()),
        archive_at_ms: Some(START_MS + 60 * 60 * 1000),
        cleanup_completed_at: Some(START_MS),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spawned_child_answers_through_the_tool_and_delete_removes_its_session() {
    let scene = subagent_scene().await;
    let (reply, requests) = spawn_turn(&scene, "delete").await;
    assert_eq!(reply, "The subagent counted 8 planets.");

    let record = only_record(&scene);
    assert_eq!(record, expected_record(&record, SubagentCleanup::Delete));
    let uuid = record
        .child_session_key
        .strip_prefix("agent:main:subagent:")
        .unwrap();
    assert_eq!((uuid.len(), uuid.matches('-').count()), (36, 4));

    // The parent offers the tool; the child (depth 1 of 1) does not, and gets the minimal
    // prompt with the task as its only user message.
    assert!(
        requests[0]
            .tool_names()
            .contains(&"sessions_spawn".to_owned())
    );
    assert!(
        !requests[1]
            .tool_names()
            .contains(&"sessions_spawn".to_owned())
    );
    assert_eq!(
        requests[1].last_user_text().as_deref(),
        Some("Count the planets of the solar system.")
    );
    assert_eq!(requests[1].roles(), Some(vec!["user".to_owned()]));
    assert_eq!(
        (
            requests[0].system_text().contains("## Reply Tags"),
            requests[1].system_text().contains("## Reply Tags"),
        ),
        (true, false)
    );
    assert_eq!(
        tool_result_text(&requests[2]),
        json!({
            "status": "ok",
            "runId": record.run_id,
            "childSessionKey": record.child_session_key,
            "cleanup": "delete",
            "label": "planets",
            "result": "There are 8 planets."
        })
    );

    // The child's key and transcript are gone; the parent's stay.
    let store = scene.store();
    assert_eq!(store.find_by_key(&record.child_session_key).unwrap(), None);
    let transcripts: Vec<_> = std::fs::read_dir(&scene.sessions_dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert_eq!(transcripts.len(), 1);
    assert!(store.find_by_key("parent").unwrap().is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_leaves_the_childs_session_in_place() {
    let scene = subagent_scene().await;
    let (reply, _) = spawn_turn(&scene, "keep").await;
    assert_eq!(reply, "The subagent counted 8 planets.");
    let record = only_record(&scene);
    assert_eq!(record, expected_record(&record, SubagentCleanup::Keep));
    let child = scene
        .store()
        .find_by_key(&record.child_session_key)
        .unwrap()
        .unwrap();
    let transcript = std::fs::read_to_string(child.transcript_path(&scene.sessions_dir)).unwrap();
    assert!(transcript.contains("There are 8 planets."), "{transcript}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_child_is_recorded_as_an_error_and_the_parent_reads_it() {
    let scene = subagent_scene().await;
    scene.server.begin_turn(vec![
        tool_call(
            "call_spawn",
            "sessions_spawn",
            json!({"task": "Summarize the report.", "cleanup": "delete"}),
        ),
        clawloop_testkit::ScriptedExchange::reply(
            clawloop_testkit::ScriptedReply {
                status: Some(400),
                body: Some(json!({"error": {"message": "Invalid request: unsupported parameter", "type": "invalid_request_error"}})),
                ..Default::default()
            },
        ),
        text("The subagent failed."),
    ]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        TurnRequest {
            session_key: "parent".to_owned(),
            prompt: "Delegate the summary.".to_owned(),
            ..TurnRequest::default()
        },
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "The subagent failed.");
    let requests = scene.server.end_turn().requests;
    let record = only_record(&scene);
    let outcome = record.outcome.clone().unwrap();
    assert_eq!(
        (outcome.status, record.ended_reason),
        (
            SubagentStatus::Error,
            Some(SubagentEndedReason::SubagentError)
        )
    );
    let seen = tool_result_text(&requests[2]);
    assert_eq!(
        (seen["status"].clone(), seen["error"].clone()),
        (json!("error"), json!(outcome.error.unwrap()))
    );
    assert_eq!(
        scene
            .store()
            .find_by_key(&record.child_session_key)
            .unwrap(),
        None
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_subagent_settings_no_spawn_tool_is_offered() {
    let scene = Scene::new(json!({}), Arc::new(NoHooks), |b| b).await;
    scene.server.begin_turn(vec![text("Hi.")]);
    let result = run_agent_turn_with_fallback(
        &scene.env,
        TurnRequest {
            session_key: "parent".to_owned(),
            prompt: "Hello".to_owned(),
            ..TurnRequest::default()
        },
        TurnIo::default(),
    )
    .await;
    assert_eq!(success_text(&result), "Hi.");
    let requests = scene.server.end_turn().requests;
    assert!(
        !requests[0]
            .tool_names()
            .contains(&"sessions_spawn".to_owned())
    );
    assert_eq!(scene.env.runtime.subagents().list(), Vec::new());
}
