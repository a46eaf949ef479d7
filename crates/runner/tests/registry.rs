//! The active-run and run-context registries through the public API: handle-matched clearing,
//! steering, abort, wait-for-end, snapshots, model switches, and runtime isolation.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clawloop_core::clock::ManualClock;
use clawloop_core::message::{AgentMessage, UserMessage};
use clawloop_runner::agent::MessageQueues;
use clawloop_runner::registry::{
    ActiveRuns, AuthProfileIdSource, ModelSwitchRequest, Registered, RunContext, RunContexts,
    RunHandle, RunSnapshot, SNAPSHOT_MESSAGE_LIMIT, VerboseLevel,
};
use clawloop_runner::runtime::Runtime;
use pretty_assertions::assert_eq;
use tokio_util::sync::CancellationToken;

fn registry() -> (ActiveRuns, ManualClock) {
    let clock = ManualClock::new(5_000);
    (ActiveRuns::new(Arc::new(clock.clone())), clock)
}

fn handle() -> RunHandle {
    RunHandle::new(MessageQueues::new(), CancellationToken::new())
}

fn streaming_handle() -> RunHandle {
    let handle = handle();
    handle.set_streaming(true);
    handle
}

async fn settle() {
    tokio::time::sleep(Duration::from_millis(1)).await;
}

#[test]
fn a_late_clear_from_an_old_run_does_not_remove_the_newer_run() {
    let (runs, _clock) = registry();
    let old = handle();
    let new = handle();
    assert_eq!(runs.register("s1", None, old.clone()), Registered::Started);
    assert_eq!(runs.register("s1", None, new.clone()), Registered::Replaced);

    assert!(!runs.clear("s1", &old));
    assert!(runs.is_active("s1"));
    assert!(runs.handle("s1").unwrap().same_as(&new));

    // A clone is the same handle; an equal-looking fresh one is not.
    assert!(!runs.clear("s1", &handle()));
    assert!(runs.clear("s1", &new.clone()));
    assert!(!runs.is_active("s1"));
    assert!(!runs.clear("s1", &new));
    assert_eq!(runs.active_count(), 0);
}

#[test]
fn steering_reaches_only_a_streaming_run_that_is_not_compacting() {
    let (runs, clock) = registry();
    assert!(!runs.queue_message("nobody", "hello"));

    let run = handle();
    runs.register("s1", None, run.clone());
    assert!(!runs.queue_message("s1", "too early"));
    assert!(!run.queues().has_queued());

    run.set_streaming(true);
    assert!(runs.is_streaming("s1"));
    clock.advance(250);
    assert!(runs.queue_message("s1", "change of plan"));
    assert_eq!(
        run.queues().take_steering(),
        [AgentMessage::User(UserMessage::text(
            "change of plan",
            5_250
        ))]
    );
    assert!(run.queues().take_follow_ups().is_empty());

    run.set_compacting(true);
    assert!(!runs.queue_message("s1", "during compaction"));
    assert!(!run.queues().has_queued());
}

#[test]
fn probes_read_live_state_instead_of_the_flags() {
    let (runs, _clock) = registry();
    let compacting = Arc::new(AtomicBool::new(false));
    let run = {
        let compacting = Arc::clone(&compacting);
        RunHandle::builder(MessageQueues::new(), CancellationToken::new())
            .run_id("run-7")
            .streaming_probe(|| true)
            .compacting_probe(move || compacting.load(Ordering::SeqCst))
            .build()
    };
    assert_eq!(run.run_id(), Some("run-7"));
    runs.register("s1", None, run.clone());
    assert!(runs.queue_message("s1", "one"));
    compacting.store(true, Ordering::SeqCst);
    assert!(!runs.queue_message("s1", "two"));
    run.set_compacting(false);
    assert!(run.is_compacting());
    assert_eq!(run.queues().drain_all().len(), 1);
}

#[test]
fn abort_reaches_the_run_of_the_session() {
    let (runs, _clock) = registry();
    assert!(!runs.abort("nobody"));
    let first = streaming_handle();
    let second = streaming_handle();
    runs.register("s1", None, first.clone());
    runs.register("s2", None, second.clone());
    assert!(runs.abort("s1"));
    assert!(first.cancel_token().is_cancelled());
    assert!(!second.is_aborted());
}

#[test]
fn abort_compacting_aborts_only_compacting_runs() {
    let (runs, _clock) = registry();
    let idle = streaming_handle();
    let compacting = streaming_handle();
    runs.register("idle", None, idle.clone());
    runs.register("compacting", None, compacting.clone());
    assert!(!runs.abort_compacting());
    assert!(!compacting.is_aborted());

    compacting.set_compacting(true);
    assert!(runs.abort_compacting());
    assert_eq!((idle.is_aborted(), compacting.is_aborted()), (false, true));

    assert!(runs.abort_all());
    assert!(idle.is_aborted());
    let (empty, _clock) = registry();
    assert!(!empty.abort_all());
}

#[tokio::test(start_paused = true)]
async fn wait_for_end_resolves_when_the_run_is_cleared() {
    let (runs, _clock) = registry();
    assert!(runs.wait_for_end("nobody", Duration::ZERO).await);

    let run = handle();
    runs.register("s1", None, run.clone());
    let waiter = {
        let runs = runs.clone();
        tokio::spawn(async move { runs.wait_for_end("s1", Duration::from_secs(3_600)).await })
    };
    settle().await;
    assert!(!waiter.is_finished());
    // A stale clear wakes nobody up for good: the run is still there.
    assert!(!runs.clear("s1", &handle()));
    settle().await;
    assert!(!waiter.is_finished());

    assert!(runs.clear("s1", &run));
    assert!(waiter.await.unwrap());
}

#[tokio::test(start_paused = true)]
async fn wait_for_end_does_not_wait_for_a_newer_run() {
    let (runs, _clock) = registry();
    let old = handle();
    runs.register("s1", None, old.clone());
    let waiter = {
        let runs = runs.clone();
        tokio::spawn(async move { runs.wait_for_end("s1", Duration::from_secs(3_600)).await })
    };
    settle().await;
    // The old run ends and a new one starts before the waiter runs again.
    runs.clear("s1", &old);
    runs.register("s1", None, handle());
    assert!(waiter.await.unwrap());
    assert!(runs.is_active("s1"));
}

#[tokio::test(start_paused = true)]
async fn wait_for_end_times_out_no_sooner_than_the_minimum() {
    let (runs, _clock) = registry();
    runs.register("s1", None, handle());
    let waiter = {
        let runs = runs.clone();
        tokio::spawn(async move { runs.wait_for_end("s1", Duration::ZERO).await })
    };
    settle().await;
    tokio::time::advance(Duration::from_millis(90)).await;
    settle().await;
    assert!(!waiter.is_finished());
    tokio::time::advance(Duration::from_millis(20)).await;
    assert!(!waiter.await.unwrap());
    assert!(runs.is_active("s1"));
}

#[tokio::test(start_paused = true)]
async fn wait_for_all_resolves_once_every_run_is_cleared() {
    let (runs, _clock) = registry();
    assert!(runs.wait_for_all(Duration::ZERO).await);
    let a = handle();
    let b = handle();
    runs.register("a", None, a.clone());
    runs.register("b", None, b.clone());
    let waiter = {
        let runs = runs.clone();
        tokio::spawn(async move { runs.wait_for_all(Duration::from_secs(3_600)).await })
    };
    settle().await;
    runs.clear("a", &a);
    settle().await;
    assert!(!waiter.is_finished());
    runs.clear("b", &b);
    assert!(waiter.await.unwrap());
    runs.register("c", None, handle());
    assert!(!runs.wait_for_all(Duration::from_secs(1)).await);
}

#[test]
fn session_keys_resolve_to_the_session_of_the_active_run() {
    let (runs, _clock) = registry();
    let first = handle();
    runs.register("sid-1", Some(" agent:main:chat "), first.clone());
    assert_eq!(
        runs.session_id_for_key("agent:main:chat"),
        Some("sid-1".to_owned())
    );
    // A newer session under the same key takes the key over; the old run's clear keeps it.
    let second = handle();
    runs.register("sid-2", Some("agent:main:chat"), second.clone());
    runs.clear("sid-1", &first);
    assert_eq!(
        runs.session_id_for_key("agent:main:chat"),
        Some("sid-2".to_owned())
    );
    runs.clear("sid-2", &second);
    assert_eq!(runs.session_id_for_key("agent:main:chat"), None);
    assert_eq!(runs.session_id_for_key("  "), None);
}

#[test]
fn snapshots_keep_the_latest_messages_of_active_runs_only() {
    let (runs, _clock) = registry();
    let message = |i: u64| AgentMessage::User(UserMessage::text(format!("m{i}"), i));
    let snapshot = RunSnapshot {
        transcript_leaf_id: Some("leaf-9".to_owned()),
        messages: (0..130).map(message).collect(),
        in_flight_prompt: Some("question".to_owned()),
    };
    runs.update_snapshot("s1", snapshot.clone());
    assert_eq!(runs.snapshot("s1"), None);

    let run = handle();
    runs.register("s1", None, run.clone());
    runs.update_snapshot("s1", snapshot);
    assert_eq!(
        runs.snapshot("s1"),
        Some(RunSnapshot {
            transcript_leaf_id: Some("leaf-9".to_owned()),
            messages: (30..130).map(message).collect(),
            in_flight_prompt: Some("question".to_owned()),
        })
    );
    assert_eq!(
        runs.snapshot("s1").unwrap().messages.len(),
        SNAPSHOT_MESSAGE_LIMIT
    );
    runs.clear("s1", &run);
    assert_eq!(runs.snapshot("s1"), None);
}

#[test]
fn model_switch_requests_are_normalized_consumed_once_and_dropped_on_clear() {
    let (runs, _clock) = registry();
    assert!(!runs.request_model_switch("s1", ModelSwitchRequest::new(" ", "m")));
    assert!(!runs.request_model_switch("s1", ModelSwitchRequest::new("p", "")));
    assert!(!runs.request_model_switch(" ", ModelSwitchRequest::new("p", "m")));

    let request = ModelSwitchRequest {
        provider: " anthropic ".to_owned(),
        model: " claude-opus ".to_owned(),
        auth_profile_id: Some("  ".to_owned()),
        auth_profile_id_source: Some(AuthProfileIdSource::User),
    };
    assert!(runs.request_model_switch(" s1 ", request));
    assert_eq!(
        runs.consume_model_switch("s1"),
        Some(ModelSwitchRequest::new("anthropic", "claude-opus"))
    );
    assert_eq!(runs.consume_model_switch("s1"), None);

    let run = handle();
    runs.register("s1", None, run.clone());
    let pinned = ModelSwitchRequest {
        auth_profile_id: Some(" work ".to_owned()),
        auth_profile_id_source: Some(AuthProfileIdSource::User),
        ..ModelSwitchRequest::new("openai", "gpt")
    };
    assert!(runs.request_model_switch("s1", pinned));
    runs.clear("s1", &run);
    assert_eq!(runs.consume_model_switch("s1"), None);

    assert!(runs.request_model_switch(
        "s2",
        ModelSwitchRequest {
            auth_profile_id: Some(" work ".to_owned()),
            auth_profile_id_source: Some(AuthProfileIdSource::Auto),
            ..ModelSwitchRequest::new("openai", "gpt")
        }
    ));
    assert_eq!(
        runs.consume_model_switch("s2"),
        Some(ModelSwitchRequest {
            provider: "openai".to_owned(),
            model: "gpt".to_owned(),
            auth_profile_id: Some("work".to_owned()),
            auth_profile_id_source: Some(AuthProfileIdSource::Auto),
        })
    );
}

#[test]
fn run_contexts_register_merge_and_clear() {
    let contexts = RunContexts::new();
    contexts.register("", RunContext::default());
    assert!(contexts.is_empty());

    contexts.register(
        "run-1",
        RunContext {
            session_key: Some("agent:main:chat".to_owned()),
            verbose_level: Some(VerboseLevel::On),
            is_heartbeat: Some(false),
            is_control_ui_visible: None,
        },
    );
    // A later registration overrides what it sets and keeps the rest; an empty key is no key.
    contexts.register(
        "run-1",
        RunContext {
            session_key: Some(String::new()),
            verbose_level: Some(VerboseLevel::Full),
            is_heartbeat: None,
            is_control_ui_visible: Some(true),
        },
    );
    assert_eq!(
        contexts.get("run-1"),
        Some(RunContext {
            session_key: Some("agent:main:chat".to_owned()),
            verbose_level: Some(VerboseLevel::Full),
            is_heartbeat: Some(false),
            is_control_ui_visible: Some(true),
        })
    );
    assert_eq!(VerboseLevel::Full.as_str(), "full");
    assert_eq!(contexts.len(), 1);
    assert_eq!(contexts.get("run-2"), None);
    assert!(contexts.clear("run-1"));
    assert!(!contexts.clear("run-1"));
    assert_eq!(contexts.get("run-1"), None);
}

#[test]
fn two_runtimes_do_not_share_registries() {
    let clock = ManualClock::new(1);
    let first = Runtime::builder().clock(Arc::new(clock.clone())).build();
    let second = Runtime::builder().clock(Arc::new(clock)).build();
    let run = streaming_handle();
    first.active_runs().register("s1", Some("key"), run.clone());
    first
        .run_contexts()
        .register("run-1", RunContext::default());

    assert!(!second.active_runs().is_active("s1"));
    assert!(!second.active_runs().queue_message("s1", "hi"));
    assert!(!second.active_runs().abort("s1"));
    assert_eq!(second.active_runs().session_id_for_key("key"), None);
    assert_eq!(second.run_contexts().get("run-1"), None);
    assert!(!run.is_aborted());
    assert!(!run.queues().has_queued());

    // Clones of a runtime share its state.
    let alias = first.clone();
    assert!(alias.active_runs().queue_message("s1", "hi"));
    assert_eq!(run.queues().drain_all().len(), 1);
}

#[test]
fn a_runtime_takes_the_main_lane_limit_from_the_config() {
    let config: clawloop_runner::config::Config =
        serde_json::from_value(serde_json::json!({"agents": {"defaults": {"maxConcurrent": 3}}}))
            .unwrap();
    let runtime = Runtime::from_config(&config);
    assert_eq!(runtime.lanes().concurrency("main"), 3);
    assert_eq!(runtime.lanes().concurrency("session:any"), 1);
    assert_eq!(runtime.lanes().concurrency("nested"), 1);
    let default = Runtime::builder().build();
    assert_eq!(default.lanes().concurrency("main"), 4);
}
