//! Trims whitespace around tool-call names in the response (OpenClaw's
//! `wrapStreamFnTrimToolCallNames`): some proxies and models emit `" read"` or `"read\n"`,
//! which then matches no tool.

use std::sync::Arc;

use clawloop_core::message::ContentBlock;
use clawloop_core::{
    AssistantEventStream, AssistantMessage, AssistantMessageEvent, Context, LlmStream, Model,
    StreamOptions,
};

use super::map_events::map_events;

/// The name to dispatch: `raw` trimmed, unless that leaves nothing (a whitespace-only name is
/// kept as it is, so the failure names what the model actually sent).
pub fn trim_tool_name(raw: &str) -> &str {
    let trimmed = raw.trim();
    if trimmed.is_empty() { raw } else { trimmed }
}

/// Trims tool-call names in every event of the response: `toolcall_start`, `toolcall_end`
/// and the messages of `start`, `done` and `error`, so a consumer sees the same name wherever
/// it looks.
#[derive(Clone)]
pub struct TrimToolCallNames {
    inner: Arc<dyn LlmStream>,
}

impl TrimToolCallNames {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn LlmStream>) -> Self {
        TrimToolCallNames { inner }
    }
}

impl LlmStream for TrimToolCallNames {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        map_events(self.inner.stream(model, context, options), trim_event)
    }
}

fn trim_event(event: AssistantMessageEvent) -> AssistantMessageEvent {
    use AssistantMessageEvent as E;
    match event {
        E::ToolcallStart {
            content_index,
            id,
            tool_name,
        } => E::ToolcallStart {
            content_index,
            id,
            tool_name: trimmed_owned(tool_name),
        },
        E::ToolcallEnd {
            content_index,
            tool_call,
        } => E::ToolcallEnd {
            content_index,
            tool_call: tool_call.map(|mut call| {
                call.name = trimmed_owned(call.name);
                call
            }),
        },
        E::Start { partial } => E::Start {
            partial: partial.map(|mut m| {
                trim_message(&mut m);
                m
            }),
        },
        E::Done {
            reason,
            mut message,
        } => {
            trim_message(&mut message);
            E::Done { reason, message }
        }
        E::Error { reason, mut error } => {
            trim_message(&mut error);
            E::Error { reason, error }
        }
        other => other,
    }
}

fn trim_message(message: &mut AssistantMessage) {
    for block in &mut message.content {
        if let ContentBlock::ToolCall(call) = block {
            call.name = trimmed_owned(std::mem::take(&mut call.name));
        }
    }
}

/// [`trim_tool_name`] on an owned name, allocating only when something is trimmed.
fn trimmed_owned(name: String) -> String {
    let trimmed = trim_tool_name(&name);
    if trimmed.len() == name.len() {
        name
    } else {
        trimmed.to_owned()
    }
}
