//! The live tool-result context guard (reference openclaw-runner §10.3, OpenClaw 2026.4
//! `tool-result-context-guard.ts`): what runs on the context before every model call inside
//! the tool loop, so one huge tool result is cut down before it is sent, and a context that
//! is still too big fails early with an overflow the runner's recovery chain understands.
//!
//! Sizes are OpenClaw's char estimates ([`clawloop_core::tokens::estimate_message_chars`],
//! reference §10.2), in which tool-result text counts double.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use clawloop_core::message::{AgentMessage, ContentBlock, JsonObject};
use clawloop_core::tokens::{
    CHARS_PER_TOKEN_ESTIMATE, TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE, estimate_message_chars,
};

use super::text_truncation::{as_f64, context_limit_truncation_notice, js_floor};

/// The error text of a context that is still over the limit after the guard (OpenClaw
/// `PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE`); the runner treats it as a likely overflow.
pub const PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE: &str =
    "Context overflow: estimated context size exceeds safe threshold during tool loop.";

/// The share of the context window the whole context may fill before the guard refuses it.
const PREEMPTIVE_OVERFLOW_RATIO: f64 = 0.9;
/// The share of the window (at the tool-result rate) one tool result may fill.
const SINGLE_TOOL_RESULT_CONTEXT_SHARE: f64 = 0.5;
/// Neither limit goes below this many estimated chars.
const MIN_LIMIT_CHARS: u64 = 1_024;
/// Estimated chars per char of tool-result text (its text counts double).
const TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO: u64 =
    CHARS_PER_TOKEN_ESTIMATE / TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE;
/// A cut moves back to a line break when that keeps more than this share of the budget.
const NEWLINE_CUT_SHARE: f64 = 0.7;

/// The limits the guard holds a context to, in estimated chars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextGuardLimits {
    /// The most the whole context may estimate at: `max(1024, floor(window * 4 * 0.9))`.
    pub max_context_chars: u64,
    /// The most one tool result may estimate at: `max(1024, floor(window * 2 * 0.5))`.
    pub max_single_tool_result_chars: u64,
}

impl ContextGuardLimits {
    /// The limits for a context window of `context_window_tokens` (at least 1).
    ///
    /// ```
    /// use clawloop_session::transforms::ContextGuardLimits;
    ///
    /// let limits = ContextGuardLimits::for_context_window(200_000);
    /// assert_eq!(limits.max_context_chars, 720_000);
    /// assert_eq!(limits.max_single_tool_result_chars, 200_000);
    /// ```
    pub fn for_context_window(context_window_tokens: u64) -> Self {
        let window = as_f64_u64(context_window_tokens.max(1));
        let context =
            js_floor(window * as_f64_u64(CHARS_PER_TOKEN_ESTIMATE) * PREEMPTIVE_OVERFLOW_RATIO);
        let single = js_floor(
            window
                * as_f64_u64(TOOL_RESULT_CHARS_PER_TOKEN_ESTIMATE)
                * SINGLE_TOOL_RESULT_CONTEXT_SHARE,
        );
        ContextGuardLimits {
            max_context_chars: (context as u64).max(MIN_LIMIT_CHARS),
            max_single_tool_result_chars: (single as u64).max(MIN_LIMIT_CHARS),
        }
    }

    /// The text budget of a cut tool result: half its estimate limit, since its text counts
    /// double.
    pub fn tool_result_text_budget(&self) -> u64 {
        self.max_single_tool_result_chars / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO
    }
}

/// The context is over the guard's limit even after tool results were cut.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextOverflow {
    /// The context's estimate after the cuts, in chars.
    pub estimated_chars: u64,
    /// The limit it exceeds.
    pub max_context_chars: u64,
}

impl fmt::Display for ContextOverflow {
    /// [`PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE`], exactly: the runner matches on it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE)
    }
}

impl std::error::Error for ContextOverflow {}

/// The context for the next model call, with every tool result over the single-result limit
/// cut down (OpenClaw `installToolResultContextGuard`'s transform).
///
/// When no tool result (typed, or an unknown message with role `tool` or type `toolResult`)
/// estimates above [`ContextGuardLimits::max_single_tool_result_chars`], `messages` is
/// returned borrowed, nothing cloned. Otherwise a copy is returned in which each such result
/// holds only its text — the text blocks joined with `\n` — cut to
/// [`ContextGuardLimits::tool_result_text_budget`] chars (at the last line break when that
/// keeps more than 70%) followed by `[... N more characters truncated]`; its images and
/// `details` are gone. A result without text becomes the notice alone. `messages` itself is
/// never changed, so the transcript keeps the full output.
///
/// Then, if the whole context still estimates above
/// [`ContextGuardLimits::max_context_chars`], the call fails with [`ContextOverflow`], whose
/// text is [`PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE`]; older results are not shortened to make
/// room.
pub fn guard_tool_result_context(
    messages: &[AgentMessage],
    context_window_tokens: u64,
) -> Result<Cow<'_, [AgentMessage]>, ContextOverflow> {
    let limits = ContextGuardLimits::for_context_window(context_window_tokens);
    let estimates: Vec<u64> = messages.iter().map(estimate_message_chars).collect();
    let over = |i: usize| {
        is_tool_result(&messages[i]) && estimates[i] > limits.max_single_tool_result_chars
    };
    let guarded: Cow<'_, [AgentMessage]> = if (0..messages.len()).any(over) {
        let owned: Vec<AgentMessage> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                if over(i) {
                    cut_tool_result(m, estimates[i], &limits)
                } else {
                    m.clone()
                }
            })
            .collect();
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(messages)
    };
    let estimated_chars: u64 = match &guarded {
        Cow::Borrowed(_) => estimates.iter().sum(),
        Cow::Owned(owned) => owned.iter().map(estimate_message_chars).sum(),
    };
    if estimated_chars > limits.max_context_chars {
        return Err(ContextOverflow {
            estimated_chars,
            max_context_chars: limits.max_context_chars,
        });
    }
    Ok(guarded)
}

/// OpenClaw `isToolResultMessage`.
fn is_tool_result(message: &AgentMessage) -> bool {
    match message {
        AgentMessage::ToolResult(_) => true,
        AgentMessage::Other(map) => {
            map.get("role").and_then(Value::as_str) == Some("tool")
                || map.get("type").and_then(Value::as_str) == Some("toolResult")
        }
        _ => false,
    }
}

/// A tool result estimating at `estimate` (over the limit) cut to the text budget (OpenClaw
/// `truncateToolResultToChars`).
fn cut_tool_result(
    message: &AgentMessage,
    estimate: u64,
    limits: &ContextGuardLimits,
) -> AgentMessage {
    let text = result_text(message);
    let budget = usize::try_from(limits.tool_result_text_budget()).unwrap_or(usize::MAX);
    let replacement = if text.is_empty() {
        let excess = estimate
            .saturating_sub(limits.max_single_tool_result_chars)
            .max(1);
        context_limit_truncation_notice(
            usize::try_from(excess / TOOL_RESULT_ESTIMATE_TO_TEXT_RATIO).unwrap_or(usize::MAX),
        )
    } else if budget == 0 {
        context_limit_truncation_notice(text.chars().count())
    } else {
        cut_text_to_budget(&text, budget)
    };
    with_text_only(message, replacement)
}

/// The text blocks of a tool result joined with `\n` (OpenClaw `getToolResultText`).
fn result_text(message: &AgentMessage) -> String {
    match message {
        AgentMessage::ToolResult(r) => r
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n"),
        AgentMessage::Other(map) => match map.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

/// The message with `text` as its whole content and no `details` (OpenClaw
/// `replaceToolResultText`): one text block, or a plain string where the content was one.
fn with_text_only(message: &AgentMessage, text: String) -> AgentMessage {
    match message {
        AgentMessage::ToolResult(r) => {
            let mut r = r.clone();
            r.content = vec![ContentBlock::text(text)];
            r.details = None;
            AgentMessage::ToolResult(r)
        }
        AgentMessage::Other(map) => {
            let mut map: JsonObject = map.clone();
            map.shift_remove("details");
            let content = match map.get("content") {
                Some(Value::String(_)) | None => Value::String(text),
                Some(_) => serde_json::json!([{"type": "text", "text": text}]),
            };
            map.insert("content".into(), content);
            AgentMessage::Other(map)
        }
        other => other.clone(),
    }
}

/// `text` cut to `budget` chars, notice included (OpenClaw `truncateTextToBudget`).
///
/// The kept part leaves room for the notice, whose length depends on how much is cut, so the
/// two are settled in a few rounds; the cut moves back to the last line break at or before it
/// when that keeps more than 70% of the part.
fn cut_text_to_budget(text: &str, budget: usize) -> String {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let len = chars.len();
    if len <= budget {
        return text.to_owned();
    }
    let mut body = budget;
    for _ in 0..4 {
        let notice = context_limit_truncation_notice(len.saturating_sub(body).max(1));
        body = budget.saturating_sub(notice.chars().count());
    }
    let mut cut = body;
    // `lastIndexOf("\n", cut)`: a line break at `cut` itself counts.
    let newline = chars[..len.min(cut + 1)]
        .iter()
        .rposition(|&(_, c)| c == '\n');
    if let Some(at) = newline
        && as_f64(at) > as_f64(body) * NEWLINE_CUT_SHARE
    {
        cut = at;
    }
    let byte_end = chars.get(cut).map_or(text.len(), |&(b, _)| b);
    let mut out = text[..byte_end].to_owned();
    out.push_str(&context_limit_truncation_notice(len - cut));
    out
}

/// A count as a float, as OpenClaw computes its limits.
#[allow(clippy::cast_precision_loss)]
fn as_f64_u64(n: u64) -> f64 {
    n as f64
}
