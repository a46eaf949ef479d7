//! The provider side of the scale bench: one reply rule for every workload, so a single
//! [`ProviderRuleServer`](clawloop_testkit::ProviderRuleServer) answers
//! 1 000 concurrent turns, a long chat with compactions and megabyte replies alike.
//!
//! The user's message says what the model does:
//!
//! * `bench:read PATH [stall MS]`: a `read` tool call for `PATH` (its response held back `MS`
//!   milliseconds, so every concurrent turn is in flight at once), then, once the tool result
//!   comes back, the answer [`READ_ANSWER`];
//! * `bench:stream N`: an answer of `N` bytes sent as `N` one-byte deltas, a paragraph break
//!   every [`PARAGRAPH`] bytes so the block chunker cuts real blocks;
//! * `bench:chat N …`: an answer of `N` bytes in one delta.
//!
//! Usage reports the request body's size in tokens (4 bytes each), so compaction triggers as
//! it would against a real model with that context. Summarization requests get a short
//! summary.

use clawloop_testkit::{ProviderRequest, ScriptedReply, ScriptedToolCall, ScriptedUsage};
use serde_json::{Value, json};

/// The answer after the `read` tool's result.
pub const READ_ANSWER: &str = "The file says hello.";
/// Bytes between paragraph breaks of a streamed answer.
pub const PARAGRAPH: usize = 1_000;
/// The marker of pi's summarization system prompt.
const SUMMARIZER_MARKER: &str = "context summarization assistant";

/// The reply to `request` (see the module docs).
pub fn reply(request: &ProviderRequest) -> ScriptedReply {
    let body_len = request.request.body.len();
    let usage = |output: usize| {
        Some(ScriptedUsage {
            input: (body_len / 4) as u64,
            output: (output / 4) as u64,
            ..ScriptedUsage::default()
        })
    };
    if request.system_text().contains(SUMMARIZER_MARKER) {
        let summary =
            "## Goal\nKeep chatting for the scale bench.\n\n## Progress\n- Many turns done.\n";
        return ScriptedReply {
            text: Some(summary.to_owned()),
            usage: usage(summary.len()),
            ..ScriptedReply::default()
        };
    }
    if last_role(request.json.as_ref()) == Some("tool") {
        return ScriptedReply {
            text: Some(READ_ANSWER.to_owned()),
            usage: usage(READ_ANSWER.len()),
            ..ScriptedReply::default()
        };
    }
    let text = request.last_user_text().unwrap_or_default();
    let mut words = text.split_whitespace();
    match words.next() {
        Some("bench:read") => {
            let path = words.next().unwrap_or("missing.txt");
            let stall = match (words.next(), words.next()) {
                (Some("stall"), Some(ms)) => ms.parse().ok(),
                _ => None,
            };
            ScriptedReply {
                tool_calls: Some(vec![ScriptedToolCall {
                    name: "read".to_owned(),
                    arguments: Some(json!({ "path": path })),
                    ..ScriptedToolCall::default()
                }]),
                stall_ms: stall,
                usage: usage(40),
                ..ScriptedReply::default()
            }
        }
        Some("bench:stream") => {
            let n = count(words.next());
            ScriptedReply {
                text_chunks: Some(streamed_text(n).chars().map(String::from).collect()),
                usage: usage(n),
                ..ScriptedReply::default()
            }
        }
        Some("bench:chat") => {
            let n = count(words.next());
            ScriptedReply {
                text: Some(streamed_text(n)),
                usage: usage(n),
                ..ScriptedReply::default()
            }
        }
        _ => ScriptedReply {
            text: Some(format!("unknown bench command: {text:.40}")),
            usage: usage(40),
            ..ScriptedReply::default()
        },
    }
}

/// `n` ASCII bytes of prose with a blank line every [`PARAGRAPH`] bytes.
pub fn streamed_text(n: usize) -> String {
    const WORDS: &[u8] = b"the quick brown fox jumps over the lazy dog ";
    (0..n)
        .map(|i| {
            if i % PARAGRAPH >= PARAGRAPH - 2 {
                '\n'
            } else {
                char::from(WORDS[i % WORDS.len()])
            }
        })
        .collect()
}

fn count(word: Option<&str>) -> usize {
    word.and_then(|w| w.parse().ok()).unwrap_or(0)
}

/// The role of the last message of an OpenAI chat-completions body.
fn last_role(body: Option<&Value>) -> Option<&str> {
    body?
        .get("messages")?
        .as_array()?
        .last()?
        .get("role")?
        .as_str()
}
