//! Drops thinking blocks from the context replayed to the provider (OpenClaw's
//! `dropThinkingBlocks`), for providers that reject or mis-handle earlier reasoning.

use std::borrow::Cow;
use std::sync::Arc;

use clawloop_core::message::Message;
use clawloop_core::{AssistantEventStream, Context, LlmStream, Model, StreamOptions};

/// Removes every thinking block (redacted ones included) from the assistant messages of the
/// request context. The response is passed through unchanged.
#[derive(Clone)]
pub struct DropThinkingBlocks {
    inner: Arc<dyn LlmStream>,
}

impl DropThinkingBlocks {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn LlmStream>) -> Self {
        DropThinkingBlocks { inner }
    }
}

impl LlmStream for DropThinkingBlocks {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        let context = drop_thinking_blocks(context);
        self.inner.stream(model, &context, options)
    }
}

/// `context` without thinking blocks (core's
/// [`AssistantMessage::drop_thinking_blocks`](clawloop_core::AssistantMessage::drop_thinking_blocks),
/// the one implementation the session's history transform uses too); borrowed unchanged when
/// it has none, so the common case copies nothing.
pub fn drop_thinking_blocks(context: &Context) -> Cow<'_, Context> {
    let has_thinking = context.messages.iter().any(|m| match m {
        Message::Assistant(a) => a.has_thinking_blocks(),
        _ => false,
    });
    if !has_thinking {
        return Cow::Borrowed(context);
    }
    let mut out = context.clone();
    for message in &mut out.messages {
        if let Message::Assistant(assistant) = message {
            assistant.drop_thinking_blocks();
        }
    }
    Cow::Owned(out)
}
