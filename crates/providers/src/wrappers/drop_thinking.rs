//! Drops thinking blocks from the context replayed to the provider (OpenClaw's
//! `dropThinkingBlocks`), for providers that reject or mis-handle earlier reasoning.

use std::borrow::Cow;
use std::sync::Arc;

use clawloop_core::message::{ContentBlock, Message};
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

/// `context` without thinking blocks; borrowed unchanged when it has none, so the common case
/// copies nothing.
///
/// An assistant message left with no content keeps one empty text block, as OpenClaw does:
/// dropping the whole turn would leave its neighbours (a user prompt, tool results) without the
/// turn they belong to.
pub fn drop_thinking_blocks(context: &Context) -> Cow<'_, Context> {
    let has_thinking = context.messages.iter().any(|m| match m {
        Message::Assistant(a) => a.content.iter().any(is_thinking),
        _ => false,
    });
    if !has_thinking {
        return Cow::Borrowed(context);
    }
    let mut out = context.clone();
    for message in &mut out.messages {
        if let Message::Assistant(assistant) = message {
            let before = assistant.content.len();
            assistant.content.retain(|block| !is_thinking(block));
            if assistant.content.is_empty() && before > 0 {
                assistant.content.push(ContentBlock::text(""));
            }
        }
    }
    Cow::Owned(out)
}

/// A thinking block, including the wire shapes a transcript from another tool may carry.
fn is_thinking(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Thinking(_) => true,
        ContentBlock::Other(_) => matches!(
            block.type_name(),
            Some("thinking" | "redacted_thinking" | "redactedThinking" | "reasoning")
        ),
        _ => false,
    }
}
