//! Planning a summarization that one request cannot take (the seed's chunked summarization,
//! after OpenClaw's `summarizeInStages`): messages are split into parts by their share of the
//! tokens, an oversized single message is truncated first, each part is summarized and the
//! partial summaries are merged.
//!
//! Pure functions over serialized messages ([`ConversationBlock`]s): what is measured is
//! exactly the text the request carries (tool results already cut to 2000 chars).

use clawloop_core::message::{AgentMessage, Message, convert_to_llm};

use super::serialize::{BLOCK_SEPARATOR, serialize_message, truncate_for_summary};

/// Slack for the chars/4 estimate (OpenClaw's `SAFETY_MARGIN`): a request is planned as if
/// its text were 20% more tokens than estimated.
pub const SAFETY_MARGIN: f64 = 1.2;
/// A single message estimated above this share of the context window is truncated before a
/// chunked summarization (the seed's "oversized" rule).
pub const OVERSIZED_SHARE: f64 = 0.5;
/// The fewest parts a history is split into (OpenClaw's `DEFAULT_PARTS`).
pub const DEFAULT_PARTS: usize = 2;

/// One message of the conversation as the summarizer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConversationBlock {
    /// The serialized message ([`serialize_message`]), never empty.
    pub text: String,
    /// Estimated tokens of the text and the separator after it.
    pub tokens: u64,
    /// Whether the message must stay with the one before it (a tool result after its call),
    /// so no part starts with it.
    pub follows_previous: bool,
}

impl ConversationBlock {
    /// The block of a message; `None` when it serializes to nothing.
    pub fn from_message(message: &Message) -> Option<Self> {
        let text = serialize_message(message);
        (!text.is_empty())
            .then(|| ConversationBlock::new(text, matches!(message, Message::ToolResult(_))))
    }

    fn new(text: String, follows_previous: bool) -> Self {
        let tokens = block_tokens(&text);
        ConversationBlock {
            text,
            tokens,
            follows_previous,
        }
    }
}

/// pi's chars/4 estimate of a text: `ceil(chars / 4)`.
pub fn text_tokens(text: &str) -> u64 {
    u64::try_from(text.chars().count())
        .unwrap_or(u64::MAX)
        .div_ceil(4)
}

fn block_tokens(text: &str) -> u64 {
    let chars = text.chars().count() + BLOCK_SEPARATOR.len();
    u64::try_from(chars).unwrap_or(u64::MAX).div_ceil(4)
}

/// The blocks of agent messages: converted for the model (`convert_to_llm`), serialized,
/// empty ones dropped.
pub fn conversation_blocks(messages: &[AgentMessage]) -> Vec<ConversationBlock> {
    convert_to_llm(messages)
        .iter()
        .filter_map(ConversationBlock::from_message)
        .collect()
}

/// The sum of the blocks' tokens.
pub fn total_tokens(blocks: &[ConversationBlock]) -> u64 {
    blocks.iter().map(|b| b.tokens).sum()
}

/// `floor(tokens / SAFETY_MARGIN)`: estimated tokens that fit into `tokens` of real room.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    reason = "token counts are far below 2^53 and never negative"
)]
pub fn within_margin(tokens: u64) -> u64 {
    (tokens as f64 / SAFETY_MARGIN).floor() as u64
}

/// The largest estimate a single message may keep in a chunked summarization: the oversized
/// threshold ([`OVERSIZED_SHARE`] of the window, with the margin) or the room of one request,
/// whichever is smaller.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    reason = "token counts are far below 2^53 and never negative"
)]
pub fn oversized_limit(context_window: u64, room: u64) -> u64 {
    let half = (context_window as f64 * OVERSIZED_SHARE).floor() as u64;
    within_margin(half).min(room)
}

/// Truncates every block estimated above `limit_tokens` to `limit_tokens * 4` chars, with
/// the `[... N more characters truncated]` notice (the seed: an oversized message is cut
/// before it is summarized).
pub fn truncate_oversized(
    blocks: Vec<ConversationBlock>,
    limit_tokens: u64,
) -> Vec<ConversationBlock> {
    let max_chars = usize::try_from(limit_tokens.saturating_mul(4)).unwrap_or(usize::MAX);
    blocks
        .into_iter()
        .map(|block| {
            if block.tokens <= limit_tokens {
                block
            } else {
                ConversationBlock::new(
                    truncate_for_summary(&block.text, max_chars),
                    block.follows_previous,
                )
            }
        })
        .collect()
}

/// How many parts a history of `total` tokens needs so that each fits `room`: at least
/// [`DEFAULT_PARTS`], at most one per block.
pub fn parts_needed(total: u64, room: u64, blocks: usize) -> usize {
    let by_room = if room == 0 {
        usize::MAX
    } else {
        usize::try_from(total.div_ceil(room)).unwrap_or(usize::MAX)
    };
    by_room.max(DEFAULT_PARTS).min(blocks.max(1))
}

/// Splits blocks into at most `parts` consecutive parts of about equal token share
/// (OpenClaw's `splitMessagesByTokenShare`): a part is closed before the block that would
/// take it past `total / parts`, except that the last part takes the rest and a tool result
/// never starts a part.
pub fn split_by_token_share(
    blocks: Vec<ConversationBlock>,
    parts: usize,
) -> Vec<Vec<ConversationBlock>> {
    if blocks.is_empty() {
        return Vec::new();
    }
    let parts = parts.clamp(1, blocks.len());
    let total = u128::from(total_tokens(&blocks));
    let share = |tokens: u64| u128::from(tokens) * parts as u128;
    let mut chunks: Vec<Vec<ConversationBlock>> = Vec::with_capacity(parts);
    let mut current: Vec<ConversationBlock> = Vec::new();
    let mut current_tokens = 0u64;
    for block in blocks {
        if chunks.len() + 1 < parts
            && !current.is_empty()
            && !block.follows_previous
            && share(current_tokens + block.tokens) > total
        {
            chunks.push(std::mem::take(&mut current));
            current_tokens = 0;
        }
        current_tokens += block.tokens;
        current.push(block);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn block(tokens: u64, follows_previous: bool) -> ConversationBlock {
        ConversationBlock {
            text: format!("t{tokens}"),
            tokens,
            follows_previous,
        }
    }

    fn sizes(parts: &[Vec<ConversationBlock>]) -> Vec<Vec<u64>> {
        parts
            .iter()
            .map(|p| p.iter().map(|b| b.tokens).collect())
            .collect()
    }

    #[test]
    fn splits_by_share_and_keeps_tool_results_with_their_call() {
        let blocks = vec![
            block(10, false),
            block(10, false),
            block(10, false),
            block(10, false),
        ];
        assert_eq!(
            sizes(&split_by_token_share(blocks, 2)),
            vec![vec![10, 10], vec![10, 10]]
        );

        // The third block would start the second part, but it is a tool result.
        let blocks = vec![
            block(10, false),
            block(10, false),
            block(10, true),
            block(10, false),
        ];
        assert_eq!(
            sizes(&split_by_token_share(blocks, 2)),
            vec![vec![10, 10, 10], vec![10]]
        );

        // The last part takes the rest; never more parts than blocks.
        let blocks = vec![block(1, false), block(50, false), block(1, false)];
        assert_eq!(
            sizes(&split_by_token_share(blocks.clone(), 2)),
            vec![vec![1], vec![50, 1]]
        );
        assert_eq!(split_by_token_share(blocks, 9).len(), 3);
        assert!(split_by_token_share(Vec::new(), 2).is_empty());
    }

    #[test]
    fn parts_cover_the_room() {
        assert_eq!(parts_needed(100, 1000, 10), 2);
        assert_eq!(parts_needed(2500, 1000, 10), 3);
        assert_eq!(parts_needed(2500, 1000, 2), 2);
        assert_eq!(parts_needed(2500, 0, 4), 4);
    }

    #[test]
    fn oversized_blocks_are_cut_to_the_limit() {
        let long = ConversationBlock::new(format!("[User]: {}", "x".repeat(4000)), false);
        let short = ConversationBlock::new("[User]: hi".into(), false);
        assert_eq!(oversized_limit(2000, 10_000), 833);
        assert_eq!(oversized_limit(2000, 100), 100);
        let cut = truncate_oversized(vec![long, short.clone()], 100);
        assert_eq!(cut[1], short);
        let expected = format!(
            "[User]: {}\n\n[... 3608 more characters truncated]",
            "x".repeat(392)
        );
        assert_eq!(cut[0].text, expected);
        assert_eq!(cut[0].tokens, block_tokens(&expected));
    }
}
