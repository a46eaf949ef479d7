//! Token estimation without a tokenizer: pi's chars/4 heuristic (pi-mono §3.5), which drives
//! compaction, and OpenClaw's char estimator (reference openclaw-runner §10.2), which drives the
//! tool-result context guard.
//!
//! Lengths are Unicode scalar values (`chars`), not bytes and not JS's UTF-16 units (SPEC §3).
//! `JSON.stringify` lengths are those of compact serde_json output.

use std::io;

use serde::Serialize;
use serde_json::Value;

use crate::StopReason;
use crate::message::{AgentMessage, ContentBlock, UserContent};

/// Counts the chars of what is written to it, so JSON lengths need no buffer.
struct CharCounter(u64);

impl io::Write for CharCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // Every UTF-8 char has exactly one byte that is not a continuation byte.
        let starts = buf.iter().filter(|&&b| b & 0xC0 != 0x80).count();
        self.0 += u64::try_from(starts).unwrap_or(u64::MAX);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Chars of `JSON.stringify(value)`.
fn json_chars<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut counter = CharCounter(0);
    // Serializing a Value or a content block into a counter cannot fail; 0 if it somehow does.
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        Err(_) => 0,
    }
}

fn chars(s: &str) -> u64 {
    u64::try_from(s.chars().count()).unwrap_or(u64::MAX)
}

// --- pi ---------------------------------------------------------------------------------------

/// Chars pi counts for one image in custom messages and tool results.
pub const PI_IMAGE_CHARS: u64 = 4800;

/// Text chars of `blocks`, plus [`PI_IMAGE_CHARS`] per image when `count_images`.
fn pi_block_chars(blocks: &[ContentBlock], count_images: bool) -> u64 {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) => chars(&t.text),
            ContentBlock::Image(_) if count_images => PI_IMAGE_CHARS,
            _ => 0,
        })
        .sum()
}

fn pi_content_chars(content: &UserContent, count_images: bool) -> u64 {
    match content {
        UserContent::Text(s) => chars(s),
        UserContent::Blocks(blocks) => pi_block_chars(blocks, count_images),
    }
}

/// pi's `estimateTokens`: `ceil(chars / 4)` where chars are, per role — user: text (images
/// ignored); assistant: text + thinking + each tool call's name and `JSON.stringify(arguments)`;
/// custom and toolResult: text + 4800 per image; bashExecution: command + output;
/// branchSummary and compactionSummary: the summary; any other role: 0.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    let chars = match message {
        AgentMessage::User(m) => pi_content_chars(&m.content, false),
        AgentMessage::Assistant(m) => m
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => chars(&t.text),
                ContentBlock::Thinking(t) => chars(&t.thinking),
                ContentBlock::ToolCall(c) => chars(&c.name) + json_chars(&c.arguments),
                ContentBlock::Image(_) | ContentBlock::Other(_) => 0,
            })
            .sum(),
        AgentMessage::ToolResult(m) => pi_block_chars(&m.content, true),
        AgentMessage::Custom(m) => pi_content_chars(&m.content, true),
        AgentMessage::BashExecution(m) => chars(&m.command) + chars(&m.output),
        AgentMessage::BranchSummary(m) => chars(&m.summary),
        AgentMessage::CompactionSummary(m) => chars(&m.summary),
        AgentMessage::Other(_) => 0,
    };
    chars.div_ceil(4)
}

/// How full the context is (pi's `estimateContextTokens` result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ContextTokenEstimate {
    /// `usage_tokens + trailing_tokens`.
    pub tokens: u64,
    /// Context tokens reported by the last usable assistant message (0 without one).
    pub usage_tokens: u64,
    /// Estimated tokens of the messages after it (all messages without one).
    pub trailing_tokens: u64,
    /// Index of that assistant message.
    pub last_usage_index: Option<usize>,
}

/// pi's `estimateContextTokens`: the reported context tokens of the last assistant message that
/// neither failed nor was aborted, plus [`estimate_tokens`] of every later message; without such
/// a message, the sum of the estimates.
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> ContextTokenEstimate {
    let last_usage = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| match m {
            AgentMessage::Assistant(a)
                if !matches!(a.stop_reason, StopReason::Error | StopReason::Aborted) =>
            {
                Some((i, a.usage.context_tokens()))
            }
            _ => None,
        });
    let (usage_tokens, trailing_from, last_usage_index) = match last_usage {
        Some((i, tokens)) => (tokens, i + 1, Some(i)),
        None => (0, 0, None),
    };
    let trailing_tokens = messages[trailing_from..]
        .iter()
        .map(estimate_tokens)
        .fold(0, u64::saturating_add);
    ContextTokenEstimate {
        // The reported part comes from a server: saturate rather than overflow.
        tokens: usage_tokens.saturating_add(trailing_tokens),
        usage_tokens,
        trailing_tokens,
        last_usage_index,
    }
}

/// pi's `shouldCompact`: enabled and `tokens > context_window - reserve_tokens`.
pub fn should_compact(
    tokens: u64,
    context_window: u64,
    reserve_tokens: u64,
    enabled: bool,
) -> bool {
    enabled && i128::from(tokens) > i128::from(context_window) - i128::from(reserve_tokens)
}

// --- OpenClaw ---------------------------------------------------------------------------------

/// Chars per token for ordinary content.
pub const CHARS_PER_TOKEN_ESTIMATE: u64 = 4;
/// Chars per token for tool results: they count double against the ordinary rate.
pub const TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE: u64 = 2;
/// Chars one image counts for.
pub const IMAGE_CHAR_ESTIMATE: u64 = 8_000;
/// Chars of a message of any other role.
pub const OTHER_ROLE_CHAR_ESTIMATE: u64 = 256;

/// Chars of one block: text length, [`IMAGE_CHAR_ESTIMATE`] for an image, else its JSON length.
fn openclaw_block_chars(block: &ContentBlock) -> u64 {
    match block {
        ContentBlock::Text(t) => chars(&t.text),
        ContentBlock::Image(_) => IMAGE_CHAR_ESTIMATE,
        other => json_chars(other),
    }
}

/// The same for a block kept as raw JSON.
fn openclaw_value_block_chars(block: &Value) -> u64 {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => match block.get("text") {
            Some(Value::String(text)) => chars(text),
            _ => json_chars(block),
        },
        Some("image") => IMAGE_CHAR_ESTIMATE,
        _ => json_chars(block),
    }
}

/// `estimateUnknownChars` of `details`: a string's length, else its JSON length; 0 if absent.
fn details_chars(details: Option<&Value>) -> u64 {
    match details {
        None => 0,
        Some(Value::String(s)) => chars(s),
        Some(v) => json_chars(v),
    }
}

/// A tool result's chars weighted to the ordinary rate: `max(c, ceil(c * 4 / 2))`.
fn weighted_tool_result(chars: u64) -> u64 {
    let weighted = chars
        .saturating_mul(CHARS_PER_TOKEN_ESTIMATE)
        .div_ceil(TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE);
    chars.max(weighted)
}

/// OpenClaw's `estimateMessageChars`: user: string length or the sum of its blocks; assistant:
/// text + thinking + `JSON.stringify(arguments)` of each tool call (other blocks by their JSON
/// length); tool result (also an unknown message with role `tool` or type `toolResult`):
/// content + `JSON.stringify(details)`, counted double; any other role: 256.
pub fn estimate_message_chars(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::User(m) => match &m.content {
            UserContent::Text(s) => chars(s),
            UserContent::Blocks(blocks) => blocks.iter().map(openclaw_block_chars).sum(),
        },
        AgentMessage::Assistant(m) => m
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => chars(&t.text),
                ContentBlock::Thinking(t) => chars(&t.thinking),
                ContentBlock::ToolCall(c) => json_chars(&c.arguments),
                other => json_chars(other),
            })
            .sum(),
        AgentMessage::ToolResult(m) => {
            let content: u64 = m.content.iter().map(openclaw_block_chars).sum();
            weighted_tool_result(content + details_chars(m.details.as_ref()))
        }
        AgentMessage::Other(map)
            if map.get("role").and_then(Value::as_str) == Some("tool")
                || map.get("type").and_then(Value::as_str) == Some("toolResult") =>
        {
            let content = match map.get("content") {
                Some(Value::String(s)) => chars(s),
                Some(Value::Array(blocks)) => blocks.iter().map(openclaw_value_block_chars).sum(),
                _ => 0,
            };
            weighted_tool_result(content + details_chars(map.get("details")))
        }
        _ => OTHER_ROLE_CHAR_ESTIMATE,
    }
}

/// The sum of [`estimate_message_chars`] over `messages`.
pub fn estimate_context_chars(messages: &[AgentMessage]) -> u64 {
    messages.iter().map(estimate_message_chars).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Usage;
    use crate::message::{
        AssistantMessage, BashExecutionMessage, BranchSummaryMessage, CompactionSummaryMessage,
        CustomMessage, JsonObject, ThinkingContent, ToolCall, ToolResultMessage, UserMessage,
    };
    use crate::model::Api;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn user(content: impl Into<UserContent>) -> AgentMessage {
        AgentMessage::User(UserMessage {
            content: content.into(),
            timestamp: 0,
            extra: JsonObject::new(),
        })
    }

    fn assistant(
        content: Vec<ContentBlock>,
        stop_reason: StopReason,
        total_tokens: u64,
    ) -> AgentMessage {
        let mut m = AssistantMessage::empty(Api::Ollama, "p", "m", 0);
        m.content = content;
        m.stop_reason = stop_reason;
        m.usage = Usage {
            total_tokens,
            ..Usage::default()
        };
        AgentMessage::Assistant(m)
    }

    fn tool_result(content: Vec<ContentBlock>, details: Option<Value>) -> AgentMessage {
        AgentMessage::ToolResult(ToolResultMessage {
            content,
            details,
            ..ToolResultMessage::default()
        })
    }

    fn image() -> ContentBlock {
        ContentBlock::image("AAAA", "image/png")
    }

    fn mixed_assistant() -> AgentMessage {
        assistant(
            vec![
                ContentBlock::text("abcd"),
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "ef".into(),
                    ..ThinkingContent::default()
                }),
                ContentBlock::ToolCall(ToolCall::new("c", "read", json!({"path": "a"}))),
            ],
            StopReason::ToolUse,
            0,
        )
    }

    #[test]
    fn pi_estimate_vectors() {
        let cases = [
            (user("hello"), 2),
            (user("héllo wörld"), 3),
            (user(vec![ContentBlock::text("abcdefgh"), image()]), 2),
            // 4 + 2 + "read" 4 + `{"path":"a"}` 12 = 22 chars.
            (mixed_assistant(), 6),
            (
                tool_result(
                    vec![ContentBlock::text("abc"), image()],
                    Some(json!({"big": "ignored"})),
                ),
                1201,
            ),
            (
                AgentMessage::Custom(CustomMessage {
                    content: "abcdefgh".into(),
                    ..CustomMessage::default()
                }),
                2,
            ),
            (
                AgentMessage::Custom(CustomMessage {
                    content: vec![image()].into(),
                    ..CustomMessage::default()
                }),
                1200,
            ),
            (
                AgentMessage::BashExecution(BashExecutionMessage {
                    command: "ls".into(),
                    output: "a\nb".into(),
                    ..BashExecutionMessage::default()
                }),
                2,
            ),
            (
                AgentMessage::BranchSummary(BranchSummaryMessage {
                    summary: "x".repeat(9),
                    ..BranchSummaryMessage::default()
                }),
                3,
            ),
            (
                AgentMessage::CompactionSummary(CompactionSummaryMessage {
                    summary: "😀😀".into(),
                    ..CompactionSummaryMessage::default()
                }),
                1,
            ),
            (
                AgentMessage::Other(
                    json!({"role": "x", "text": "long text"})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
                0,
            ),
        ];
        for (i, (message, tokens)) in cases.iter().enumerate() {
            assert_eq!(estimate_tokens(message), *tokens, "case {i}");
        }
    }

    #[test]
    fn context_estimate_uses_the_last_good_usage() {
        let messages = vec![
            user("12345678"),
            assistant(
                vec![ContentBlock::text("ignored")],
                StopReason::ToolUse,
                100,
            ),
            tool_result(vec![ContentBlock::text("abcd")], None),
            assistant(Vec::new(), StopReason::Error, 999),
            user("x"),
        ];
        assert_eq!(
            estimate_context_tokens(&messages),
            ContextTokenEstimate {
                tokens: 102,
                usage_tokens: 100,
                trailing_tokens: 2,
                last_usage_index: Some(1)
            }
        );
        assert_eq!(
            estimate_context_tokens(&[user("12345678"), user("x")]),
            ContextTokenEstimate {
                tokens: 3,
                usage_tokens: 0,
                trailing_tokens: 3,
                last_usage_index: None
            }
        );
        assert_eq!(
            estimate_context_tokens(&[]),
            ContextTokenEstimate::default()
        );
    }

    #[test]
    fn a_huge_reported_usage_saturates_the_estimate() {
        let messages = vec![
            assistant(Vec::new(), StopReason::Stop, u64::MAX - 1),
            user("12345678"),
        ];
        assert_eq!(
            estimate_context_tokens(&messages),
            ContextTokenEstimate {
                tokens: u64::MAX,
                usage_tokens: u64::MAX - 1,
                trailing_tokens: 2,
                last_usage_index: Some(0)
            }
        );
    }

    #[test]
    fn should_compact_follows_pi() {
        assert!(should_compact(95_000, 100_000, 10_000, true));
        assert!(!should_compact(89_000, 100_000, 10_000, true));
        assert!(!should_compact(90_000, 100_000, 10_000, true));
        assert!(!should_compact(95_000, 100_000, 10_000, false));
        assert!(should_compact(0, 1_000, 16_384, true));
    }

    #[test]
    fn openclaw_char_vectors() {
        let cases = [
            (user("0123456789"), 10),
            (user(vec![ContentBlock::text("abc"), image()]), 8003),
            // "abcd" 4 + "ef" 2 + `{"path":"a"}` 12 (the name does not count here).
            (mixed_assistant(), 18),
            // ("abc" 3 + `{"k":1}` 7) counted double.
            (tool_result(vec![ContentBlock::text("abc")], Some(json!({"k": 1}))), 20),
            (tool_result(vec![image()], Some(json!("détails"))), 16_014),
            (tool_result(Vec::new(), None), 0),
            (AgentMessage::Custom(CustomMessage::default()), 256),
            (AgentMessage::BashExecution(BashExecutionMessage::default()), 256),
            (
                AgentMessage::Other(json!({"role": "tool", "content": [{"type": "text", "text": "abcd"}, {"type": "image"}]}).as_object().unwrap().clone()),
                16_008,
            ),
            (AgentMessage::Other(json!({"role": "tool", "content": "abcd"}).as_object().unwrap().clone()), 8),
            (AgentMessage::Other(json!({"role": "x"}).as_object().unwrap().clone()), 256),
        ];
        for (i, (message, expected)) in cases.iter().enumerate() {
            assert_eq!(estimate_message_chars(message), *expected, "case {i}");
        }
        let all: Vec<AgentMessage> = cases.into_iter().map(|(m, _)| m).collect();
        assert_eq!(
            estimate_context_chars(&all),
            10 + 8003 + 18 + 20 + 16_014 + 256 + 256 + 16_008 + 8 + 256
        );
    }

    #[test]
    fn json_lengths_count_chars_not_bytes() {
        assert_eq!(json_chars(&json!({"k": "é😀"})), 10);
        assert_eq!(json_chars(&json!({"k": "a\nb"})), 12);
    }
}
