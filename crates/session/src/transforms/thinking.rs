//! Dropping reasoning from replayed history (reference openclaw-runner §9 step 4, OpenClaw
//! `pi-embedded-runner/thinking.ts` `dropThinkingBlocks`), for providers whose transcript
//! policy says past thinking must not be sent back.

use clawloop_core::message::AgentMessage;

/// Every reasoning block removed from assistant messages (core's
/// [`AssistantMessage::drop_thinking_blocks`](clawloop_core::AssistantMessage::drop_thinking_blocks):
/// `thinking` blocks, redacted ones included, and legacy `redacted_thinking` blocks). An
/// assistant message left empty gets one empty text block, so the turn structure providers
/// rely on survives. Other messages are unchanged.
pub fn drop_thinking_blocks(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    messages
        .iter()
        .map(|message| match message {
            AgentMessage::Assistant(a) if a.has_thinking_blocks() => {
                let mut out = a.clone();
                out.drop_thinking_blocks();
                AgentMessage::Assistant(out)
            }
            _ => message.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ContentBlock, ThinkingContent, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn thinking(t: &str) -> ContentBlock {
        ContentBlock::Thinking(ThinkingContent {
            thinking: t.into(),
            thinking_signature: Some("sig".into()),
            ..ThinkingContent::default()
        })
    }

    fn assistant(blocks: Vec<ContentBlock>) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        m.content = blocks;
        m.into()
    }

    #[test]
    fn strips_thinking_and_keeps_turns() {
        let redacted = ContentBlock::Other(
            json!({"type": "redacted_thinking", "data": "x"})
                .as_object()
                .cloned()
                .unwrap(),
        );
        let input = vec![
            UserMessage::text("q", 0).into(),
            assistant(vec![thinking("hm"), ContentBlock::text("a")]),
            assistant(vec![thinking("only"), redacted]),
            assistant(vec![ContentBlock::text("plain")]),
        ];
        assert_eq!(
            drop_thinking_blocks(&input),
            vec![
                input[0].clone(),
                assistant(vec![ContentBlock::text("a")]),
                assistant(vec![ContentBlock::text("")]),
                input[3].clone(),
            ]
        );
    }
}
