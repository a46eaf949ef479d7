//! Agent-event builders and a subscription runner shared by the subscription test files.

#![allow(dead_code)]

use std::sync::Arc;

use clawloop_core::message::{AssistantMessage, ContentBlock};
use clawloop_core::{AgentEvent, AgentMessage, AgentToolResult, AssistantMessageEvent};
use clawloop_subscribe::{CollectingSink, Subscription, SubscriptionOptions};
use serde_json::Value;

/// An assistant message with one text block (none for an empty text).
pub fn assistant(text: &str) -> AssistantMessage {
    let mut m = AssistantMessage::empty("openai-completions", "openai", "gpt-5", 0);
    if !text.is_empty() {
        m.content.push(ContentBlock::text(text));
    }
    m
}

/// `message_start` of an empty assistant message.
pub fn start() -> AgentEvent {
    AgentEvent::MessageStart {
        message: Arc::new(AgentMessage::Assistant(assistant(""))),
    }
}

/// `message_end` of the given assistant message.
pub fn end_msg(m: AssistantMessage) -> AgentEvent {
    AgentEvent::MessageEnd {
        message: Arc::new(AgentMessage::Assistant(m)),
    }
}

/// `message_end` of an assistant message with this text.
pub fn end(text: &str) -> AgentEvent {
    end_msg(assistant(text))
}

/// `message_update` carrying a stream event.
pub fn update(event: AssistantMessageEvent) -> AgentEvent {
    AgentEvent::MessageUpdate {
        assistant_message_event: event,
        message: None,
    }
}

/// A text delta of content block 0.
pub fn delta(text: &str) -> AgentEvent {
    update(AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: text.into(),
    })
}

/// `text_end` of content block 0 with its content.
pub fn text_end(content: &str) -> AgentEvent {
    update(AssistantMessageEvent::TextEnd {
        content_index: 0,
        content: content.into(),
        content_signature: None,
    })
}

/// `agent_end` without messages.
pub fn agent_end() -> AgentEvent {
    AgentEvent::AgentEnd {
        messages: Vec::new().into(),
    }
}

/// `tool_execution_start`.
pub fn tool_start(id: &str, name: &str, args: Value) -> AgentEvent {
    AgentEvent::ToolExecutionStart {
        tool_call_id: id.into(),
        tool_name: name.into(),
        args,
    }
}

/// `tool_execution_end` with a whole result.
pub fn tool_end_with(id: &str, name: &str, result: AgentToolResult, is_error: bool) -> AgentEvent {
    AgentEvent::ToolExecutionEnd {
        tool_call_id: id.into(),
        tool_name: name.into(),
        result,
        is_error,
    }
}

/// Feeds `events` to a new subscription collecting everything it reports.
pub fn run(options: SubscriptionOptions, events: &[AgentEvent]) -> Subscription<CollectingSink> {
    let mut sub = Subscription::new(options, CollectingSink::default());
    for event in events {
        sub.handle(event);
    }
    sub
}
