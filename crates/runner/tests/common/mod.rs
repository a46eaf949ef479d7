//! Shared fixtures of the runner's integration tests: scripted provider streams, a test tool,
//! a loop configuration and an event recorder.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::collections::VecDeque;
use std::sync::Arc;

use clawloop_core::StopReason;
use clawloop_core::agent_event::AgentEvent;
use clawloop_core::clock::ManualClock;
use clawloop_core::message::{AgentMessage, AssistantMessage, UserMessage};
use clawloop_core::model::{Api, Context, Model, StreamOptions};
use clawloop_core::provider::{AssistantEventStream, LlmStream, stream_of};
use clawloop_core::stream_event::{AssistantMessageBuilder, AssistantMessageEvent};
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_runner::agent::{AgentLoopConfig, MessageQueues};
use clawloop_tools::execute::EventSink;
use clawloop_tools::{ToolExecutor, ToolRegistry};
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub fn model() -> Model {
    serde_json::from_value(json!({
        "id": "m1", "api": "openai-completions", "provider": "acme",
        "contextWindow": 128000, "maxTokens": 4096
    }))
    .unwrap()
}

pub fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text, 1))
}

/// A stream that answers with text, built like a provider builds it.
pub fn text_reply(text: &str) -> Vec<AssistantMessageEvent> {
    let initial = AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 5);
    let mut b = AssistantMessageBuilder::new(initial.clone());
    let events = vec![
        AssistantMessageEvent::Start {
            partial: Some(Box::new(initial)),
        },
        AssistantMessageEvent::TextStart { content_index: 0 },
        AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: text.to_owned(),
        },
        AssistantMessageEvent::TextEnd {
            content_index: 0,
            content: text.to_owned(),
            content_signature: None,
        },
    ];
    for e in &events {
        b.apply(e);
    }
    let mut all = events;
    all.push(b.finish(StopReason::Stop));
    all
}

/// A stream that calls tools.
pub fn tool_reply(calls: &[(&str, &str, Value)]) -> Vec<AssistantMessageEvent> {
    let initial = AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 5);
    let mut b = AssistantMessageBuilder::new(initial.clone());
    let mut events = vec![AssistantMessageEvent::Start {
        partial: Some(Box::new(initial)),
    }];
    for (i, (id, name, args)) in calls.iter().enumerate() {
        events.push(AssistantMessageEvent::ToolcallStart {
            content_index: i,
            id: (*id).to_owned(),
            tool_name: (*name).to_owned(),
        });
        events.push(AssistantMessageEvent::ToolcallDelta {
            content_index: i,
            delta: args.to_string(),
        });
        events.push(AssistantMessageEvent::ToolcallEnd {
            content_index: i,
            tool_call: None,
        });
    }
    for e in &events {
        b.apply(e);
    }
    events.push(b.finish(StopReason::ToolUse));
    events
}

/// A provider answering each call with the next scripted stream and recording every context.
#[derive(Clone, Default)]
pub struct Scripted {
    pub replies: Arc<Mutex<VecDeque<Vec<AssistantMessageEvent>>>>,
    pub contexts: Arc<Mutex<Vec<Context>>>,
}

impl Scripted {
    pub fn new(replies: Vec<Vec<AssistantMessageEvent>>) -> Self {
        Scripted {
            replies: Arc::new(Mutex::new(replies.into())),
            contexts: Arc::default(),
        }
    }
    pub fn requests(&self) -> usize {
        self.contexts.lock().len()
    }
    pub fn context_texts(&self, call: usize) -> Vec<String> {
        self.contexts.lock()[call]
            .messages
            .iter()
            .map(|m| AgentMessage::from(m.clone()).text())
            .collect()
    }
}

impl LlmStream for Scripted {
    fn stream(&self, _: &Model, context: &Context, _: StreamOptions) -> AssistantEventStream {
        let call = {
            let mut contexts = self.contexts.lock();
            contexts.push(context.clone());
            contexts.len() as u64
        };
        let mut events = self
            .replies
            .lock()
            .pop_front()
            .expect("a scripted reply is left");
        // Each reply is newer than everything before it, as a provider's clock makes it.
        for event in &mut events {
            match event {
                AssistantMessageEvent::Done { message, .. } => message.timestamp = 10_000 * call,
                AssistantMessageEvent::Error { error, .. } => error.timestamp = 10_000 * call,
                _ => {}
            }
        }
        stream_of(events)
    }
}

/// Records what a test tool saw and can block until cancelled.
pub struct Echo {
    schema: Value,
    wait_for_cancel: bool,
    started: Option<mpsc::UnboundedSender<()>>,
}

impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn label(&self) -> &str {
        "Echo"
    }
    fn description(&self) -> &str {
        "Repeats its text."
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execute<'a>(
        &'a self,
        _id: &'a str,
        args: Value,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            if let Some(tx) = &self.started {
                let _ = tx.send(());
            }
            if self.wait_for_cancel {
                cancel.cancelled().await;
                return Err(ToolError::Aborted);
            }
            Ok(ToolResult::text(format!(
                "echo: {}",
                args["text"].as_str().unwrap_or("")
            )))
        })
    }
}

pub fn echo(wait_for_cancel: bool, started: Option<mpsc::UnboundedSender<()>>) -> Arc<dyn Tool> {
    Arc::new(Echo {
        schema: json!({"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}),
        wait_for_cancel,
        started,
    })
}

pub fn config(provider: Arc<dyn LlmStream>, tools: Vec<Arc<dyn Tool>>) -> AgentLoopConfig {
    let workspace = std::env::temp_dir();
    AgentLoopConfig {
        model: model(),
        provider,
        options: StreamOptions::default(),
        system_prompt: Some("You are a test.".to_owned()),
        executor: ToolExecutor::new(ToolRegistry::from_tools(tools).unwrap()),
        tool_context: ToolContext::new(workspace),
        queues: MessageQueues::new(),
        transform: None,
        client_calls: None,
        clock: Arc::new(ManualClock::new(1_000)),
        max_tool_rounds: None,
    }
}

/// A sink recording each event as `type` or `type:role`.
pub fn recorder() -> (EventSink, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink_seen = Arc::clone(&seen);
    let sink: EventSink = Arc::new(move |event: AgentEvent| {
        let label = match &event {
            AgentEvent::MessageStart { message } | AgentEvent::MessageEnd { message } => {
                format!("{}:{}", event.type_name(), message.role())
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                is_error,
                ..
            } => {
                format!("{}:{tool_call_id}:{is_error}", event.type_name())
            }
            _ => event.type_name().to_owned(),
        };
        sink_seen.lock().push(label);
    });
    (sink, seen)
}

pub fn summary(messages: &[AgentMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| (m.role().to_owned(), m.text()))
        .collect()
}

pub fn s(role: &str, text: &str) -> (String, String) {
    (role.to_owned(), text.to_owned())
}

/// `events` with the terminal message's usage set to `total_tokens` context tokens.
pub fn with_usage(
    mut events: Vec<AssistantMessageEvent>,
    total_tokens: u64,
) -> Vec<AssistantMessageEvent> {
    if let Some(AssistantMessageEvent::Done { message, .. }) = events.last_mut() {
        message.usage.input = total_tokens;
        message.usage.total_tokens = total_tokens;
    }
    events
}

/// A stream that fails the way a provider reports an HTTP error: an `error` event only.
pub fn error_reply(message: &str) -> Vec<AssistantMessageEvent> {
    let initial = AssistantMessage::empty(Api::OpenaiCompletions, "acme", "m1", 5);
    vec![AssistantMessageBuilder::new(initial).fail(StopReason::Error, message)]
}
