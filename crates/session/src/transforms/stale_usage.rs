//! Zeroing usage that predates the latest compaction (reference openclaw-runner §9 step 9,
//! OpenClaw `stripStaleAssistantUsageBeforeLatestCompaction`): pi estimates the context size
//! from the last assistant usage, and a usage from before a compaction describes a context
//! that no longer exists.

use clawloop_core::Usage;
use clawloop_core::message::AgentMessage;

/// Assistant messages at or before the latest compaction summary (by timestamp, or earlier in
/// the list) get an all-zero usage; without a compaction summary nothing changes.
///
/// pi's usage type always has every field, so OpenClaw's companion step that completes partial
/// usage snapshots (`ensureAssistantUsageSnapshots`) has nothing to do here.
pub fn strip_stale_assistant_usage_before_latest_compaction(
    messages: &[AgentMessage],
) -> Vec<AgentMessage> {
    let latest = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| match m {
            AgentMessage::CompactionSummary(c) => Some((i, c.timestamp)),
            _ => None,
        });
    let Some((compaction_index, compaction_ms)) = latest else {
        return messages.to_vec();
    };
    messages
        .iter()
        .enumerate()
        .map(|(i, message)| match message {
            AgentMessage::Assistant(a) if a.timestamp <= compaction_ms || i < compaction_index => {
                let mut a = a.clone();
                a.usage = Usage::default();
                AgentMessage::Assistant(a)
            }
            _ => message.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, CompactionSummaryMessage};
    use pretty_assertions::assert_eq;

    fn assistant(ts: u64, tokens: u64) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", ts);
        m.usage = Usage {
            input: tokens,
            total_tokens: tokens,
            ..Usage::default()
        };
        m.into()
    }

    fn compaction(ts: u64) -> AgentMessage {
        AgentMessage::CompactionSummary(CompactionSummaryMessage {
            summary: "s".into(),
            tokens_before: 1,
            timestamp: ts,
            ..CompactionSummaryMessage::default()
        })
    }

    #[test]
    fn zeroes_by_time_or_position() {
        let input = vec![
            compaction(100),
            assistant(50, 9),
            assistant(100, 9),
            assistant(150, 9),
        ];
        assert_eq!(
            strip_stale_assistant_usage_before_latest_compaction(&input),
            vec![
                input[0].clone(),
                assistant(50, 0),
                assistant(100, 0),
                input[3].clone()
            ]
        );
        let legacy = vec![assistant(500, 9), compaction(0), assistant(600, 9)];
        assert_eq!(
            strip_stale_assistant_usage_before_latest_compaction(&legacy),
            vec![assistant(500, 0), legacy[1].clone(), legacy[2].clone()]
        );
        let none = vec![assistant(1, 9)];
        assert_eq!(
            strip_stale_assistant_usage_before_latest_compaction(&none),
            none
        );
    }
}
