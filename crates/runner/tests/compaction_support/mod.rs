//! Shared parts of the compaction tests: session entries, messages, and a scripted
//! `LlmStream` that records every request it gets.

#![allow(
    dead_code,
    reason = "each test file uses a different part of this module"
)]

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll};

use futures_core::Stream;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use clawloop_core::message::{
    AgentMessage, AssistantMessage, ContentBlock, JsonObject, ToolCall, ToolResultMessage,
    UserMessage,
};
use clawloop_core::provider::{AssistantEventStream, stream_of};
use clawloop_core::{
    AssistantMessageBuilder, AssistantMessageEvent, Context, LlmStream, Model, StopReason,
    StreamOptions, ThinkLevel, Usage,
};
use clawloop_session::{MessageEntry, SessionEntry};

pub fn model(context_window: u64, reasoning: bool) -> Model {
    serde_json::from_value(json!({
        "id": "summarizer", "api": "anthropic-messages", "provider": "anthropic",
        "contextWindow": context_window, "maxTokens": 32000, "reasoning": reasoning
    }))
    .expect("valid model")
}

pub fn user(text: &str) -> AgentMessage {
    AgentMessage::User(UserMessage::text(text, 1_000))
}

pub fn assistant_text(text: &str) -> AgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 2_000);
    m.content.push(ContentBlock::text(text));
    m.stop_reason = StopReason::Stop;
    AgentMessage::Assistant(m)
}

pub fn assistant_with_usage(text: &str, total_tokens: u64) -> AgentMessage {
    let AgentMessage::Assistant(mut m) = assistant_text(text) else {
        unreachable!("assistant_text builds an assistant message")
    };
    m.usage = Usage {
        total_tokens,
        ..Usage::default()
    };
    AgentMessage::Assistant(m)
}

pub fn assistant_calls(calls: &[(&str, &str, Value)]) -> AgentMessage {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 2_000);
    for (id, name, args) in calls {
        m.content.push(ContentBlock::ToolCall(ToolCall::new(
            *id,
            *name,
            args.clone(),
        )));
    }
    m.stop_reason = StopReason::ToolUse;
    AgentMessage::Assistant(m)
}

pub fn tool_result(call_id: &str, name: &str, text: &str) -> AgentMessage {
    AgentMessage::ToolResult(ToolResultMessage {
        tool_call_id: call_id.into(),
        tool_name: name.into(),
        content: vec![ContentBlock::text(text)],
        timestamp: 3_000,
        ..ToolResultMessage::default()
    })
}

/// A linear path of `message` entries with ids `e0`, `e1`, …
pub fn path_of(messages: Vec<AgentMessage>) -> Vec<SessionEntry> {
    messages
        .into_iter()
        .enumerate()
        .map(|(i, message)| message_entry(i, message))
        .collect()
}

pub fn message_entry(i: usize, message: AgentMessage) -> SessionEntry {
    SessionEntry::Message(MessageEntry {
        id: format!("e{i}"),
        parent_id: i.checked_sub(1).map(|p| format!("e{p}")),
        timestamp: "2026-01-01T00:00:00.000Z".into(),
        message,
        extra: JsonObject::new(),
    })
}

/// What the summarizer was asked.
#[derive(Debug, Clone)]
pub struct Request {
    pub system_prompt: Option<String>,
    /// The text of the one user message.
    pub prompt: String,
    pub message_count: usize,
    pub timestamp: u64,
    pub max_tokens: Option<u64>,
    pub reasoning: Option<ThinkLevel>,
    pub api_key: Option<String>,
    pub cancel: CancellationToken,
}

/// How the scripted provider answers a request.
pub enum Answer {
    Text(String),
    Error(String),
    /// Never answers (until the request is cancelled, which it ignores).
    Hang,
}

pub type Requests = Arc<Mutex<Vec<Request>>>;

/// A provider that records each request and answers with `answer(index, prompt)`.
pub fn scripted(
    answer: impl Fn(usize, &str) -> Answer + Send + Sync + 'static,
) -> (Arc<dyn LlmStream>, Requests) {
    let requests: Requests = Arc::new(Mutex::new(Vec::new()));
    let seen = requests.clone();
    let provider = move |model: &Model, context: &Context, options: StreamOptions| {
        let prompt = match context.messages.first() {
            Some(clawloop_core::Message::User(m)) => m.content.text(),
            _ => String::new(),
        };
        let timestamp = context.messages.first().map_or(0, |m| m.timestamp());
        let index = {
            let mut seen = seen.lock().expect("lock");
            seen.push(Request {
                system_prompt: context.system_prompt.clone(),
                prompt: prompt.clone(),
                message_count: context.messages.len(),
                timestamp,
                max_tokens: options.max_tokens,
                reasoning: options.reasoning,
                api_key: options.api_key.clone(),
                cancel: options.cancel.clone(),
            });
            seen.len() - 1
        };
        let builder = AssistantMessageBuilder::new(AssistantMessage::for_model(model, 5_000));
        match answer(index, &prompt) {
            Answer::Text(text) => stream_of(vec![text_answer(builder, &text)]),
            Answer::Error(message) => stream_of(vec![builder.fail(StopReason::Error, message)]),
            Answer::Hang => Box::pin(Hang) as AssistantEventStream,
        }
    };
    (Arc::new(provider), requests)
}

fn text_answer(mut builder: AssistantMessageBuilder, text: &str) -> AssistantMessageEvent {
    // Two text blocks and a thinking block: the summary is the text blocks joined with "\n".
    let mut parts = text.splitn(2, '|');
    let first = parts.next().unwrap_or_default();
    builder
        .message_mut()
        .content
        .push(ContentBlock::Thinking(Default::default()));
    builder
        .message_mut()
        .content
        .push(ContentBlock::text(first));
    if let Some(second) = parts.next() {
        builder
            .message_mut()
            .content
            .push(ContentBlock::text(second));
    }
    builder.finish(StopReason::Stop)
}

struct Hang;

impl Stream for Hang {
    type Item = AssistantMessageEvent;

    fn poll_next(self: Pin<&mut Self>, _cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        Poll::Pending
    }
}

pub fn taken(requests: &Requests) -> Vec<Request> {
    requests.lock().expect("lock").clone()
}
