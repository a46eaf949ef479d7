//! Dropping reasoning from an assistant message (OpenClaw's `dropThinkingBlocks`), for
//! providers whose transcript policy says past thinking must not be sent back.
//!
//! The one implementation: the session's history transform and the providers' request wrapper
//! both call it, so a transcript and a request agree on what counts as thinking.

use crate::message::{AssistantMessage, ContentBlock};

/// Whether `block` is reasoning: a `thinking` block (redacted ones included), or a block of a
/// wire shape another tool may have written (`redacted_thinking`, `redactedThinking`,
/// `reasoning`) that this version keeps verbatim.
pub fn is_thinking_block(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Thinking(_) => true,
        ContentBlock::Other(_) => matches!(
            block.type_name(),
            Some("thinking" | "redacted_thinking" | "redactedThinking" | "reasoning")
        ),
        _ => false,
    }
}

impl AssistantMessage {
    /// Whether any content block is reasoning ([`is_thinking_block`]).
    pub fn has_thinking_blocks(&self) -> bool {
        self.content.iter().any(is_thinking_block)
    }

    /// Removes every reasoning block; returns whether any was removed.
    ///
    /// A message left with no content gets one empty text block, as OpenClaw does: dropping
    /// the whole turn would leave its neighbours (a user prompt, tool results) without the turn
    /// they belong to.
    pub fn drop_thinking_blocks(&mut self) -> bool {
        let before = self.content.len();
        self.content.retain(|block| !is_thinking_block(block));
        let dropped = self.content.len() != before;
        if dropped && self.content.is_empty() {
            self.content.push(ContentBlock::text(""));
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ThinkingContent;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assistant(content: Vec<ContentBlock>) -> AssistantMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        m.content = content;
        m
    }

    fn other(value: serde_json::Value) -> ContentBlock {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn every_shape_of_reasoning_goes_and_the_turn_stays() {
        let thinking = ContentBlock::Thinking(ThinkingContent {
            thinking: "hm".into(),
            thinking_signature: Some("sig".into()),
            ..ThinkingContent::default()
        });
        let mut m = assistant(vec![
            thinking.clone(),
            ContentBlock::text("a"),
            other(json!({"type": "redacted_thinking", "data": "x"})),
            other(json!({"type": "redactedThinking", "data": "y"})),
            other(json!({"type": "reasoning", "text": "z"})),
            other(json!({"type": "image_generation", "id": "keep"})),
        ]);
        assert!(m.has_thinking_blocks());
        assert!(m.drop_thinking_blocks());
        assert_eq!(
            m.content,
            vec![
                ContentBlock::text("a"),
                other(json!({"type": "image_generation", "id": "keep"}))
            ]
        );
        assert!(!m.has_thinking_blocks());
        assert!(!m.drop_thinking_blocks());

        let mut only = assistant(vec![thinking]);
        assert!(only.drop_thinking_blocks());
        assert_eq!(only.content, vec![ContentBlock::text("")]);

        let mut empty = assistant(Vec::new());
        assert!(!empty.drop_thinking_blocks());
        assert_eq!(empty.content, Vec::new());
    }
}
