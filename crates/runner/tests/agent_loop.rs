//! The agent loop through its public API: scripted provider streams, real tools from the tools
//! crate's executor, and the event sink.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use clawloop_core::StopReason;
use clawloop_core::agent_event::AgentEvent;
use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock};
use clawloop_core::model::{Api, Context, Model, StreamOptions};
use clawloop_core::provider::{AssistantEventStream, LlmStream};
use clawloop_core::stream_event::{AssistantMessageBuilder, AssistantMessageEvent};
use clawloop_runner::agent::{
    ContextTransform, ContinueError, TransformError, continue_agent_loop, run_agent_loop,
};
use clawloop_tools::ExecutionMode;
use clawloop_tools::client_tools::{ClientToolDefinition, PendingToolCalls, client_tools};
use clawloop_tools::execute::EventSink;
use parking_lot::Mutex;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use common::*;

#[tokio::test]
async fn a_text_reply_emits_pi_canonical_order() {
    let provider = Scripted::new(vec![text_reply("hello")]);
    let cfg = config(Arc::new(provider.clone()), vec![]);
    let (sink, seen) = recorder();
    let mut messages = vec![user("earlier")];
    let outcome = run_agent_loop(
        vec![user("hi")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(
        *seen.lock(),
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update",
            "message_update",
            "message_update",
            "message_end:assistant",
            "turn_end",
            "agent_end"
        ]
    );
    assert_eq!(
        summary(&outcome.new_messages),
        [s("user", "hi"), s("assistant", "hello")]
    );
    assert_eq!(
        summary(&messages),
        [
            s("user", "earlier"),
            s("user", "hi"),
            s("assistant", "hello")
        ]
    );
    assert_eq!(provider.context_texts(0), ["earlier", "hi"]);
    assert_eq!(
        provider.contexts.lock()[0].system_prompt.as_deref(),
        Some("You are a test.")
    );
    assert_eq!(
        outcome.last_assistant().map(|a| a.stop_reason),
        Some(StopReason::Stop)
    );
}

#[tokio::test]
async fn tool_calls_run_and_results_reach_the_next_call_in_call_order() {
    let provider = Scripted::new(vec![
        tool_reply(&[
            ("c1", "echo", json!({"text": "a"})),
            ("c2", "echo", json!({"text": "b"})),
        ]),
        text_reply("done"),
    ]);
    let cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    let (sink, seen) = recorder();
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(
        summary(&outcome.new_messages),
        [
            s("user", "go"),
            s("assistant", ""),
            s("toolResult", "echo: a"),
            s("toolResult", "echo: b"),
            s("assistant", "done")
        ]
    );
    assert_eq!(provider.requests(), 2);
    assert_eq!(provider.context_texts(1), ["go", "", "echo: a", "echo: b"]);
    assert_eq!(
        provider.contexts.lock()[0]
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .collect::<Vec<_>>(),
        ["echo"]
    );
    let seen = seen.lock();
    let turns: Vec<&String> = seen.iter().filter(|e| e.starts_with("turn_")).collect();
    assert_eq!(turns, ["turn_start", "turn_end", "turn_start", "turn_end"]);
    let ends: Vec<&String> = seen
        .iter()
        .filter(|e| e.starts_with("tool_execution_end"))
        .collect();
    assert_eq!(
        ends,
        ["tool_execution_end:c1:false", "tool_execution_end:c2:false"]
    );
}

#[tokio::test]
async fn an_unknown_tool_is_an_error_result_and_the_loop_goes_on() {
    let provider = Scripted::new(vec![
        tool_reply(&[("c1", "nope", json!({}))]),
        text_reply("sorry"),
    ]);
    let cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    let (sink, _) = recorder();
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    let result = outcome.new_messages.iter().find_map(|m| match m {
        AgentMessage::ToolResult(r) => Some((r.text_content(), r.is_error)),
        _ => None,
    });
    assert_eq!(result, Some(("Tool nope not found".to_owned(), true)));
    assert_eq!(provider.requests(), 2);
}

#[tokio::test]
async fn steering_skips_remaining_calls_and_is_injected_before_the_next_call() {
    let provider = Scripted::new(vec![
        tool_reply(&[
            ("c1", "echo", json!({"text": "a"})),
            ("c2", "echo", json!({"text": "b"})),
        ]),
        text_reply("ok"),
    ]);
    let mut cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    cfg.executor = cfg.executor.clone().with_mode(ExecutionMode::Sequential);
    let queues = cfg.queues.clone();
    let (sink, seen) = recorder();
    // Queue the steering message as soon as the first call ends.
    let steering_sink: EventSink = {
        let sink = Arc::clone(&sink);
        let queued = Mutex::new(false);
        Arc::new(move |event: AgentEvent| {
            if matches!(event, AgentEvent::ToolExecutionEnd { .. })
                && !std::mem::replace(&mut *queued.lock(), true)
            {
                queues.steer(user("stop that"));
            }
            sink(event);
        })
    };
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &steering_sink,
    )
    .await;
    assert_eq!(
        summary(&outcome.new_messages),
        [
            s("user", "go"),
            s("assistant", ""),
            s("toolResult", "echo: a"),
            s("toolResult", "Skipped due to queued user message."),
            s("user", "stop that"),
            s("assistant", "ok")
        ]
    );
    assert_eq!(
        provider.context_texts(1).last().map(String::as_str),
        Some("stop that")
    );
    assert!(
        seen.lock()
            .contains(&"tool_execution_end:c2:true".to_owned())
    );
}

#[tokio::test]
async fn follow_ups_run_only_when_the_agent_would_stop() {
    let provider = Scripted::new(vec![text_reply("first"), text_reply("second")]);
    let cfg = config(Arc::new(provider.clone()), vec![]);
    cfg.queues.follow_up(user("and then?"));
    let (sink, _) = recorder();
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(
        summary(&outcome.new_messages),
        [
            s("user", "go"),
            s("assistant", "first"),
            s("user", "and then?"),
            s("assistant", "second")
        ]
    );
    assert!(!cfg.queues.has_queued());
}

/// A provider whose stream sends a start and some text, then waits for the abort and ends the
/// way providers do: an `aborted` error carrying the partial content.
struct Hanging;

impl LlmStream for Hanging {
    fn stream(&self, _: &Model, _: &Context, options: StreamOptions) -> AssistantEventStream {
        let (tx, rx) = mpsc::unbounded_channel();
        let initial = AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 5);
        let mut b = AssistantMessageBuilder::new(initial.clone());
        let events = [
            AssistantMessageEvent::Start {
                partial: Some(Box::new(initial)),
            },
            AssistantMessageEvent::TextStart { content_index: 0 },
            AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "partial ans".to_owned(),
            },
        ];
        for e in events {
            b.apply(&e);
            let _ = tx.send(e);
        }
        tokio::spawn(async move {
            options.cancel.cancelled().await;
            let _ = tx.send(b.fail(StopReason::Aborted, "Request was aborted"));
        });
        Box::pin(Receiver(rx))
    }
}

struct Receiver(mpsc::UnboundedReceiver<AssistantMessageEvent>);

impl futures_core::Stream for Receiver {
    type Item = AssistantMessageEvent;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

#[tokio::test]
async fn abort_during_streaming_keeps_the_partial_content() {
    let cfg = config(Arc::new(Hanging), vec![]);
    let (recording, seen) = recorder();
    let cancel = CancellationToken::new();
    let aborter = cancel.clone();
    // Abort from outside once the partial text is out.
    let sink: EventSink = Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::MessageUpdate { .. }) {
            aborter.cancel();
        }
        recording(event);
    });
    let mut messages = Vec::new();
    let outcome = run_agent_loop(vec![user("go")], &mut messages, &cfg, &cancel, &sink).await;
    let last = outcome.last_assistant().cloned().unwrap();
    assert_eq!(
        (last.stop_reason, last.text(), last.error_message.as_deref()),
        (
            StopReason::Aborted,
            "partial ans".to_owned(),
            Some("Request was aborted")
        )
    );
    assert_eq!(seen.lock().last().map(String::as_str), Some("agent_end"));
    assert_eq!(seen.lock().iter().filter(|e| *e == "turn_end").count(), 1);
}

#[tokio::test]
async fn abort_during_a_tool_ends_with_an_aborted_reply_and_no_second_request() {
    let provider = Scripted::new(vec![tool_reply(&[("c1", "echo", json!({"text": "a"}))])]);
    let (started_tx, mut started_rx) = mpsc::unbounded_channel();
    let cfg = config(
        Arc::new(provider.clone()),
        vec![echo(true, Some(started_tx))],
    );
    let (sink, _) = recorder();
    let cancel = CancellationToken::new();
    let aborter = cancel.clone();
    tokio::spawn(async move {
        started_rx.recv().await;
        aborter.cancel();
    });
    let mut messages = Vec::new();
    let outcome = run_agent_loop(vec![user("go")], &mut messages, &cfg, &cancel, &sink).await;
    assert_eq!(
        summary(&outcome.new_messages),
        [
            s("user", "go"),
            s("assistant", ""),
            s("toolResult", "Operation aborted"),
            s("assistant", "")
        ]
    );
    assert_eq!(
        outcome.last_assistant().map(|a| a.stop_reason),
        Some(StopReason::Aborted)
    );
    assert_eq!(provider.requests(), 1);
}

struct Refuse;

impl ContextTransform for Refuse {
    fn transform(&self, _: &[AgentMessage]) -> Result<Option<Vec<AgentMessage>>, TransformError> {
        Err(TransformError {
            message:
                "Context overflow: estimated context size exceeds safe threshold during tool loop."
                    .to_owned(),
        })
    }
}

#[tokio::test]
async fn a_failing_context_transform_becomes_an_errored_assistant_message() {
    let provider = Scripted::new(vec![]);
    let mut cfg = config(Arc::new(provider.clone()), vec![]);
    cfg.transform = Some(Arc::new(Refuse));
    let (sink, seen) = recorder();
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    let last = outcome.last_assistant().cloned().unwrap();
    assert_eq!(last.stop_reason, StopReason::Error);
    assert_eq!(
        last.error_message.as_deref(),
        Some("Context overflow: estimated context size exceeds safe threshold during tool loop.")
    );
    assert_eq!(provider.requests(), 0);
    assert!(seen.lock().contains(&"message_start:assistant".to_owned()));
}

struct DropFirst;

impl ContextTransform for DropFirst {
    fn transform(
        &self,
        messages: &[AgentMessage],
    ) -> Result<Option<Vec<AgentMessage>>, TransformError> {
        Ok(Some(messages[1..].to_vec()))
    }
}

#[tokio::test]
async fn the_transform_changes_what_is_sent_not_the_conversation() {
    let provider = Scripted::new(vec![text_reply("ok")]);
    let mut cfg = config(Arc::new(provider.clone()), vec![]);
    cfg.transform = Some(Arc::new(DropFirst));
    let (sink, _) = recorder();
    let mut messages = vec![user("old")];
    run_agent_loop(
        vec![user("new")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(provider.context_texts(0), ["new"]);
    assert_eq!(messages.len(), 3);
}

#[tokio::test]
async fn a_client_tool_call_ends_the_run_after_its_turn_and_keeps_steering() {
    let provider = Scripted::new(vec![tool_reply(&[(
        "call_wx",
        "get_weather",
        json!({"city": "Paris"}),
    )])]);
    let pending = PendingToolCalls::new();
    let definition = ClientToolDefinition::new(
        "get_weather",
        "Weather",
        json!({"type":"object","properties":{"city":{"type":"string"}}}),
    );
    let mut cfg = config(
        Arc::new(provider.clone()),
        client_tools([definition], &pending),
    );
    cfg.client_calls = Some(pending.clone());
    let queues = cfg.queues.clone();
    let steering_sink: EventSink = Arc::new(move |event: AgentEvent| {
        if matches!(event, AgentEvent::ToolExecutionEnd { .. }) {
            queues.steer(user("also tomorrow?"));
        }
    });
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("weather?")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &steering_sink,
    )
    .await;
    assert!(outcome.client_tool_called);
    assert_eq!(provider.requests(), 1);
    let calls: Vec<(String, String)> = pending
        .snapshot()
        .into_iter()
        .map(|c| (c.name, c.arguments))
        .collect();
    assert_eq!(
        calls,
        [("get_weather".to_owned(), r#"{"city":"Paris"}"#.to_owned())]
    );
    assert_eq!(
        summary(&cfg.queues.drain_all()),
        [s("user", "also tomorrow?")]
    );
}

#[tokio::test]
async fn continue_refuses_an_empty_context_and_an_assistant_tail() {
    let cfg = config(Arc::new(Scripted::new(vec![text_reply("resumed")])), vec![]);
    let (sink, seen) = recorder();
    let cancel = CancellationToken::new();
    let err = continue_agent_loop(&mut Vec::new(), &cfg, &cancel, &sink)
        .await
        .err();
    assert_eq!(err, Some(ContinueError::NoMessages));
    let mut tail = vec![
        user("q"),
        AgentMessage::Assistant(AssistantMessage {
            content: vec![ContentBlock::text("a")],
            ..AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 1)
        }),
    ];
    let err = continue_agent_loop(&mut tail, &cfg, &cancel, &sink)
        .await
        .err();
    assert_eq!(
        err.map(|e| e.to_string()),
        Some("Cannot continue from message role: assistant".to_owned())
    );
    assert!(seen.lock().is_empty());
    let mut ok = vec![user("q")];
    let outcome = continue_agent_loop(&mut ok, &cfg, &cancel, &sink)
        .await
        .unwrap();
    assert_eq!(summary(&outcome.new_messages), [s("assistant", "resumed")]);
    assert!(!seen.lock().contains(&"message_start:user".to_owned()));
}

#[tokio::test]
async fn a_model_calling_tools_past_the_round_limit_stops_with_every_call_answered() {
    let replies = (0..5)
        .map(|i| {
            tool_reply(&[
                (&format!("a{i}"), "echo", json!({"text": "x"})),
                (&format!("b{i}"), "echo", json!({"text": "y"})),
            ])
        })
        .collect();
    let provider = Scripted::new(replies);
    let mut cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    cfg.max_tool_rounds = Some(2);
    let (sink, _) = recorder();
    let mut messages = Vec::new();
    let outcome = run_agent_loop(
        vec![user("loop")],
        &mut messages,
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(outcome.tool_round_limit, Some(2));
    // Two rounds ran, the third reply's calls were answered without running.
    assert_eq!(provider.requests(), 3);
    let results: Vec<(String, bool, String)> = outcome
        .new_messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(r) => {
                Some((r.tool_call_id.clone(), r.is_error, r.text_content()))
            }
            _ => None,
        })
        .collect();
    let ids: Vec<&str> = results.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(ids, ["a0", "b0", "a1", "b1", "a2", "b2"]);
    assert_eq!(results[0].2, "echo: x");
    assert!(
        results[4].1 && results[4].2.contains("limit of 2 tool rounds"),
        "{results:?}"
    );
    assert!(matches!(messages.last(), Some(AgentMessage::ToolResult(_))));
}

#[tokio::test]
async fn without_a_round_limit_the_loop_runs_until_the_model_answers() {
    let mut replies: Vec<_> = (0..3)
        .map(|i| tool_reply(&[(&format!("c{i}"), "echo", json!({"text": "x"}))]))
        .collect();
    replies.push(text_reply("done"));
    let provider = Scripted::new(replies);
    let cfg = config(Arc::new(provider.clone()), vec![echo(false, None)]);
    let (sink, _) = recorder();
    let outcome = run_agent_loop(
        vec![user("go")],
        &mut Vec::new(),
        &cfg,
        &CancellationToken::new(),
        &sink,
    )
    .await;
    assert_eq!(outcome.tool_round_limit, None);
    assert_eq!(provider.requests(), 4);
    assert_eq!(
        outcome.last_assistant().map(|a| a.text()),
        Some("done".to_owned())
    );
}
