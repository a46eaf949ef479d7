//! Tool-result size control over whole messages and transcripts (reference openclaw-runner
//! §10.1, OpenClaw 2026.4 `tool-result-truncation.ts`): the per-result char budget derived from
//! the context window, truncation of one tool-result message, and the recovery plan that finds
//! which results of a transcript to shorten.
//!
//! Only text blocks count; images and other blocks are kept as they are. The hard cap is
//! SPEC's 400 000 chars (OpenClaw 2026.4 uses 40 000), configurable per call.

use clawloop_core::message::{AgentMessage, ContentBlock, ToolResultMessage};

use super::text_truncation::{
    MIN_KEEP_CHARS, as_f64, context_limit_truncation_notice, js_floor, truncate_tool_result_text,
};

/// The share of the context window one tool result may fill.
pub const MAX_TOOL_RESULT_CONTEXT_SHARE: f64 = 0.3;

/// The most chars one tool result keeps, whatever the context window (SPEC §5).
pub const HARD_MAX_TOOL_RESULT_CHARS: usize = 400_000;

/// The least a recovery truncation keeps: recovery may cut a result down to its notice.
pub const RECOVERY_MIN_KEEP_CHARS: usize = 0;

/// Chars per token the budget assumes.
const CHARS_PER_TOKEN: usize = 4;

/// The char budget of one tool result: `min(floor(context_window * 0.3) * 4, 400 000)`.
///
/// ```
/// use clawloop_session::transforms::max_tool_result_chars;
///
/// assert_eq!(max_tool_result_chars(32_000), 38_400);
/// assert_eq!(max_tool_result_chars(128_000), 153_600);
/// assert_eq!(max_tool_result_chars(2_000_000), 400_000);
/// ```
pub fn max_tool_result_chars(context_window: u64) -> usize {
    max_tool_result_chars_with_cap(context_window, HARD_MAX_TOOL_RESULT_CHARS)
}

/// [`max_tool_result_chars`] with another hard cap (at least 1, as OpenClaw's
/// `calculateMaxToolResultCharsWithCap`).
pub fn max_tool_result_chars_with_cap(context_window: u64, hard_max_chars: usize) -> usize {
    // In floating point like OpenClaw, so `floor(ctx * 0.3)` rounds as it does.
    #[allow(clippy::cast_precision_loss)]
    let share = js_floor(context_window as f64 * MAX_TOOL_RESULT_CONTEXT_SHARE);
    share
        .saturating_mul(CHARS_PER_TOKEN)
        .min(hard_max_chars.max(1))
}

/// The budgets a transcript's tool results are held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolResultBudget {
    /// The most text chars one tool result may have.
    pub max_chars: usize,
    /// The most text chars all tool results together may have before the aggregate pass
    /// shortens them: `max(max_chars, length of the shortest notice)`.
    pub aggregate_budget_chars: usize,
}

impl ToolResultBudget {
    /// The budget for a context window in tokens, with SPEC's hard cap.
    pub fn for_context_window(context_window: u64) -> Self {
        Self::from_max_chars(max_tool_result_chars(context_window))
    }

    /// The budget for a context window with another hard cap.
    pub fn with_hard_max(context_window: u64, hard_max_chars: usize) -> Self {
        Self::from_max_chars(max_tool_result_chars_with_cap(
            context_window,
            hard_max_chars,
        ))
    }

    /// The budget for a given per-result maximum.
    pub fn from_max_chars(max_chars: usize) -> Self {
        ToolResultBudget {
            max_chars,
            aggregate_budget_chars: max_chars.max(min_truncated_chars(RECOVERY_MIN_KEEP_CHARS)),
        }
    }
}

/// The shortest truncated text for a minimum keep: the keep plus the shortest notice.
fn min_truncated_chars(min_keep_chars: usize) -> usize {
    min_keep_chars.saturating_add(context_limit_truncation_notice(1).chars().count())
}

/// The text chars of a tool result: the sum over its text blocks (OpenClaw
/// `getToolResultTextLength`); 0 for any other message.
pub fn tool_result_text_chars(message: &AgentMessage) -> usize {
    match message {
        AgentMessage::ToolResult(m) => text_chars(m),
        _ => 0,
    }
}

fn text_chars(m: &ToolResultMessage) -> usize {
    m.content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(|t| t.chars().count())
        .sum()
}

/// A tool result whose text fits `max_chars` in total (OpenClaw `truncateToolResultMessage`).
///
/// A result within the budget is returned unchanged. Otherwise each text block gets a share
/// of `max_chars` proportional to its length, but never less than `min_keep_chars` plus its
/// notice, and is cut with [`truncate_tool_result_text`]; other blocks (images) are kept.
/// Messages other than tool results are returned unchanged.
pub fn truncate_tool_result_message(
    message: &AgentMessage,
    max_chars: usize,
    min_keep_chars: usize,
) -> AgentMessage {
    let AgentMessage::ToolResult(m) = message else {
        return message.clone();
    };
    let total = text_chars(m);
    if total <= max_chars {
        return message.clone();
    }
    let mut out = m.clone();
    for block in &mut out.content {
        let ContentBlock::Text(t) = block else {
            continue;
        };
        let len = t.text.chars().count();
        // `Math.floor(maxChars * (len / total))`, in floating point as OpenClaw computes it.
        let share = js_floor(as_f64(max_chars) * (as_f64(len) / as_f64(total)));
        let notice = context_limit_truncation_notice(len.saturating_sub(share).max(1));
        let block_budget = min_keep_chars
            .saturating_add(notice.chars().count())
            .max(share);
        t.text = truncate_tool_result_text(&t.text, block_budget, min_keep_chars);
    }
    AgentMessage::ToolResult(out)
}

/// The result of [`truncate_oversized_tool_results_in_messages`].
#[derive(Debug, Clone, PartialEq)]
pub struct TruncatedMessages {
    /// The transcript with every oversized tool result truncated.
    pub messages: Vec<AgentMessage>,
    /// How many tool results were truncated.
    pub truncated_count: usize,
}

/// Every tool result longer than the context window's budget truncated to it, keeping at least
/// [`MIN_KEEP_CHARS`] (OpenClaw `truncateOversizedToolResultsInMessages`, the in-memory guard
/// before a request; the session file is not touched).
pub fn truncate_oversized_tool_results_in_messages(
    messages: &[AgentMessage],
    context_window: u64,
) -> TruncatedMessages {
    let max_chars = max_tool_result_chars(context_window);
    let mut truncated_count = 0;
    let messages = messages
        .iter()
        .map(|m| {
            if tool_result_text_chars(m) > max_chars {
                truncated_count += 1;
                truncate_tool_result_message(m, max_chars, MIN_KEEP_CHARS)
            } else {
                m.clone()
            }
        })
        .collect();
    TruncatedMessages {
        messages,
        truncated_count,
    }
}

/// Which tool results of a transcript recovery shortens, and to what (OpenClaw
/// `buildToolResultReplacementPlan`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecoveryPlan {
    /// `(position in the transcript, truncated message)`, one per position, in order.
    pub replacements: Vec<(usize, AgentMessage)>,
    /// Results longer than the per-result budget.
    pub oversized_count: usize,
    /// Results the aggregate pass shortened.
    pub aggregate_count: usize,
    /// Chars the oversized pass removes.
    pub oversized_reducible_chars: usize,
    /// Chars the aggregate pass removes after that.
    pub aggregate_reducible_chars: usize,
}

impl RecoveryPlan {
    /// Whether the plan changes nothing.
    pub fn is_empty(&self) -> bool {
        self.replacements.is_empty()
    }

    /// `messages` (the transcript the plan was made for) with the replacements applied.
    /// Positions beyond the transcript are ignored.
    pub fn apply(&self, messages: &[AgentMessage]) -> Vec<AgentMessage> {
        let mut out = messages.to_vec();
        for (i, replacement) in &self.replacements {
            if let Some(slot) = out.get_mut(*i) {
                slot.clone_from(replacement);
            }
        }
        out
    }
}

/// The recovery plan for a transcript (OpenClaw `buildToolResultReplacementPlan` with the
/// recovery minimum keep 0):
///
/// 1. every tool result whose text exceeds `budget.max_chars` is truncated to it;
/// 2. then, when at least two tool results have text and their total exceeds
///    `budget.aggregate_budget_chars`, results are shortened newest first (ties: the longer
///    one first), each by at most its length minus the shortest notice, until the excess is
///    gone.
///
/// A position shortened by both passes appears once, with the aggregate pass's message.
pub fn plan_tool_result_recovery(
    messages: &[AgentMessage],
    budget: &ToolResultBudget,
) -> RecoveryPlan {
    let min_keep = RECOVERY_MIN_KEEP_CHARS;
    let mut current: Vec<Option<AgentMessage>> = vec![None; messages.len()];
    let mut oversized_count = 0;
    let mut oversized_reducible_chars = 0;
    for (i, m) in messages.iter().enumerate() {
        let len = tool_result_text_chars(m);
        if matches!(m, AgentMessage::ToolResult(_)) && len > budget.max_chars {
            let truncated = truncate_tool_result_message(m, budget.max_chars, min_keep);
            oversized_reducible_chars += len.saturating_sub(tool_result_text_chars(&truncated));
            oversized_count += 1;
            current[i] = Some(truncated);
        }
    }
    let at = |i: usize| current[i].as_ref().unwrap_or(&messages[i]);

    let candidates: Vec<(usize, usize)> = (0..messages.len())
        .filter(|&i| matches!(at(i), AgentMessage::ToolResult(_)))
        .map(|i| (i, tool_result_text_chars(at(i))))
        .filter(|&(_, len)| len > 0)
        .collect();
    let mut aggregate: Vec<(usize, AgentMessage)> = Vec::new();
    let mut aggregate_reducible_chars = 0;
    let total: usize = candidates.iter().map(|&(_, len)| len).sum();
    if candidates.len() >= 2 && total > budget.aggregate_budget_chars {
        let floor = min_truncated_chars(min_keep);
        let mut remaining = total - budget.aggregate_budget_chars;
        // Newest first; positions are unique, so the length tie-break never decides.
        let mut order = candidates;
        order.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
        for (i, len) in order {
            if remaining == 0 {
                break;
            }
            let reducible = len.saturating_sub(floor);
            if reducible == 0 {
                continue;
            }
            let target = floor.max(len - reducible.min(remaining));
            let truncated = truncate_tool_result_message(at(i), target, min_keep);
            let reduction = len.saturating_sub(tool_result_text_chars(&truncated));
            if reduction == 0 {
                continue;
            }
            aggregate_reducible_chars += reduction;
            remaining = remaining.saturating_sub(reduction);
            aggregate.push((i, truncated));
        }
    }
    let aggregate_count = aggregate.len();
    for (i, m) in aggregate {
        current[i] = Some(m);
    }
    RecoveryPlan {
        replacements: current
            .into_iter()
            .enumerate()
            .filter_map(|(i, m)| m.map(|m| (i, m)))
            .collect(),
        oversized_count,
        aggregate_count,
        oversized_reducible_chars,
        aggregate_reducible_chars,
    }
}

/// How much recovery could shrink a transcript's tool results (OpenClaw
/// `estimateToolResultReductionPotential`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolResultReductionPotential {
    /// The per-result budget.
    pub max_chars: usize,
    /// The all-results budget.
    pub aggregate_budget_chars: usize,
    /// Tool results with text.
    pub tool_result_count: usize,
    /// Their text chars.
    pub total_tool_result_chars: usize,
    /// Results over the per-result budget.
    pub oversized_count: usize,
    /// Chars the oversized pass removes.
    pub oversized_reducible_chars: usize,
    /// Chars the aggregate pass removes after that.
    pub aggregate_reducible_chars: usize,
    /// The sum of the two.
    pub max_reducible_chars: usize,
}

/// The reduction recovery could achieve on `messages` under `budget`.
pub fn estimate_tool_result_reduction_potential(
    messages: &[AgentMessage],
    budget: &ToolResultBudget,
) -> ToolResultReductionPotential {
    let lengths: Vec<usize> = messages
        .iter()
        .filter(|m| matches!(m, AgentMessage::ToolResult(_)))
        .map(tool_result_text_chars)
        .filter(|&len| len > 0)
        .collect();
    let plan = plan_tool_result_recovery(messages, budget);
    ToolResultReductionPotential {
        max_chars: budget.max_chars,
        aggregate_budget_chars: budget.aggregate_budget_chars,
        tool_result_count: lengths.len(),
        total_tool_result_chars: lengths.iter().sum(),
        oversized_count: plan.oversized_count,
        oversized_reducible_chars: plan.oversized_reducible_chars,
        aggregate_reducible_chars: plan.aggregate_reducible_chars,
        max_reducible_chars: plan.oversized_reducible_chars + plan.aggregate_reducible_chars,
    }
}

/// Whether recovery truncation would change the transcript for this context window: some tool
/// result exceeds the per-result budget, or the aggregate pass would remove chars (OpenClaw
/// `sessionLikelyHasOversizedToolResults`).
pub fn session_likely_has_oversized_tool_results(
    messages: &[AgentMessage],
    context_window: u64,
) -> bool {
    let p = estimate_tool_result_reduction_potential(
        messages,
        &ToolResultBudget::for_context_window(context_window),
    );
    p.oversized_count > 0 || p.aggregate_reducible_chars > 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn result(id: &str, text: &str) -> AgentMessage {
        ToolResultMessage::text(id, "exec", text, false, 0).into()
    }

    fn call(id: &str) -> AgentMessage {
        let mut m = AssistantMessage::empty("openai-completions", "openai", "m", 0);
        m.content
            .push(ContentBlock::ToolCall(ToolCall::new(id, "exec", json!({}))));
        m.into()
    }

    fn transcript(results: &[(&str, String)]) -> Vec<AgentMessage> {
        let mut out = vec![UserMessage::text("q", 0).into()];
        for (id, text) in results {
            out.push(call(id));
            out.push(result(id, text));
        }
        out
    }

    #[test]
    fn max_chars_vectors() {
        let cases = [
            (32_000, 38_400),
            (128_000, 153_600),
            (200_000, 240_000),
            (2_000_000, 400_000),
            (1_000, 1_200),
            (0, 0),
            (u64::MAX, 400_000),
        ];
        let actual: Vec<(u64, usize)> = cases
            .iter()
            .map(|(c, _)| (*c, max_tool_result_chars(*c)))
            .collect();
        assert_eq!(actual, cases.to_vec());
        // OpenClaw 2026.4's own cap.
        assert_eq!(max_tool_result_chars_with_cap(128_000, 40_000), 40_000);
        assert_eq!(max_tool_result_chars_with_cap(32_000, 40_000), 38_400);
        assert_eq!(max_tool_result_chars_with_cap(32_000, 0), 1);
    }

    #[test]
    fn budget_floors_the_aggregate_at_the_shortest_notice() {
        assert_eq!(
            ToolResultBudget::for_context_window(10),
            ToolResultBudget {
                max_chars: 12,
                aggregate_budget_chars: 33
            }
        );
        assert_eq!(
            ToolResultBudget::with_hard_max(128_000, 40_000),
            ToolResultBudget {
                max_chars: 40_000,
                aggregate_budget_chars: 40_000
            }
        );
    }

    #[test]
    fn scenario_vectors_for_session_has_oversized() {
        let r = |n: usize| "r".repeat(n);
        let cases = [
            (transcript(&[("t1", r(1300))]), 1000, true),
            (
                transcript(&[("t1", r(900)), ("t2", r(900)), ("t3", r(900))]),
                2000,
                true,
            ),
            (transcript(&[("t1", r(400)), ("t2", r(400))]), 1000, false),
            (transcript(&[("b1", r(650)), ("b2", r(650))]), 1000, true),
            (transcript(&[("b1", r(650)), ("b2", r(650))]), 1100, false),
            (transcript(&[("t1", r(1200))]), 1000, false),
            (transcript(&[]), 1000, false),
        ];
        for (i, (messages, ctx, want)) in cases.iter().enumerate() {
            assert_eq!(
                session_likely_has_oversized_tool_results(messages, *ctx),
                *want,
                "case {i}"
            );
        }
    }

    #[test]
    fn images_do_not_count() {
        let mut with_image = ToolResultMessage::text("s1", "browser", "p".repeat(500), false, 0);
        with_image
            .content
            .insert(0, ContentBlock::image("iVBORw0KGgo=", "image/png"));
        let mut messages = transcript(&[("s2", "q".repeat(600))]);
        messages.push(with_image.into());
        assert_eq!(tool_result_text_chars(&messages[3]), 500);
        assert!(!session_likely_has_oversized_tool_results(&messages, 1000));
        let truncated = truncate_tool_result_message(&messages[3], 100, 0);
        let AgentMessage::ToolResult(t) = &truncated else {
            panic!("not a tool result")
        };
        assert_eq!(
            t.content[0],
            ContentBlock::image("iVBORw0KGgo=", "image/png")
        );
    }

    #[test]
    fn aggregate_pass_cuts_newest_first() {
        let messages = transcript(&[
            ("t1", "r".repeat(900)),
            ("t2", "r".repeat(900)),
            ("t3", "r".repeat(900)),
        ]);
        let plan =
            plan_tool_result_recovery(&messages, &ToolResultBudget::for_context_window(2000));
        let lengths: Vec<(usize, usize)> = plan
            .replacements
            .iter()
            .map(|(i, m)| (*i, tool_result_text_chars(m)))
            .collect();
        // 2700 - 2400 = 300 to remove; the newest result (position 6) gives all of it.
        assert_eq!(lengths, vec![(6, 600)]);
        let applied = plan.apply(&messages);
        let applied_lengths: Vec<usize> = applied.iter().map(tool_result_text_chars).collect();
        assert_eq!(applied_lengths, vec![0, 0, 900, 0, 900, 0, 600]);
        assert_eq!(plan.apply(&messages[..3]), messages[..3].to_vec());
        assert_eq!(
            (
                plan.oversized_count,
                plan.aggregate_count,
                plan.oversized_reducible_chars,
                plan.aggregate_reducible_chars
            ),
            (0, 1, 0, 300)
        );
        let potential = estimate_tool_result_reduction_potential(
            &messages,
            &ToolResultBudget::for_context_window(2000),
        );
        assert_eq!(
            potential,
            ToolResultReductionPotential {
                max_chars: 2400,
                aggregate_budget_chars: 2400,
                tool_result_count: 3,
                total_tool_result_chars: 2700,
                oversized_count: 0,
                oversized_reducible_chars: 0,
                aggregate_reducible_chars: 300,
                max_reducible_chars: 300,
            }
        );
    }

    #[test]
    fn aggregate_pass_spills_over_to_older_results() {
        let messages = transcript(&[("t1", "r".repeat(1000)), ("t2", "r".repeat(100))]);
        let plan = plan_tool_result_recovery(&messages, &ToolResultBudget::from_max_chars(200));
        let lengths: Vec<(usize, usize)> = plan
            .replacements
            .iter()
            .map(|(i, m)| (*i, tool_result_text_chars(m)))
            .collect();
        // Oversized pass: 1000 → 200. Then 300 > 200 asks for 100, newest (position 4) first:
        // its target of 33 chars leaves only the 35-char notice (65 removed), and position 2
        // gives the remaining 35.
        assert_eq!(lengths, vec![(2, 165), (4, 35)]);
        assert_eq!((plan.oversized_count, plan.aggregate_count), (1, 2));
    }

    #[test]
    fn oversized_results_go_below_two_thousand_in_recovery() {
        let messages = transcript(&[("t1", "x".repeat(5000))]);
        let plan = plan_tool_result_recovery(&messages, &ToolResultBudget::from_max_chars(1200));
        assert_eq!(plan.replacements.len(), 1);
        assert_eq!(tool_result_text_chars(&plan.replacements[0].1), 1200);
        // The live guard keeps at least 2000.
        let live = truncate_oversized_tool_results_in_messages(&messages, 1000);
        assert_eq!(live.truncated_count, 1);
        assert_eq!(tool_result_text_chars(&live.messages[2]), 2036);
    }

    #[test]
    fn blocks_share_the_budget_proportionally() {
        let mut m = ToolResultMessage::text("c", "read", "a".repeat(3000), false, 0);
        m.content.push(ContentBlock::text("b".repeat(1000)));
        let out = truncate_tool_result_message(&m.into(), 2000, 0);
        let AgentMessage::ToolResult(t) = out else {
            panic!("not a tool result")
        };
        let lens: Vec<usize> = t
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .map(|s| s.chars().count())
            .collect();
        assert_eq!(lens, vec![1500, 500]);
    }

    #[test]
    fn extreme_budgets_never_panic() {
        let messages = transcript(&[
            ("a", "é".repeat(3000)),
            ("b", String::new()),
            ("c", "x\n".repeat(10)),
        ]);
        for max in [0, 1, 33, 34, usize::MAX] {
            let budget = ToolResultBudget::from_max_chars(max);
            let plan = plan_tool_result_recovery(&messages, &budget);
            assert!(plan.replacements.iter().all(|(i, _)| *i < messages.len()));
            for keep in [0, usize::MAX] {
                let _ = truncate_tool_result_message(&messages[2], max, keep);
            }
        }
        assert_eq!(
            max_tool_result_chars_with_cap(u64::MAX, usize::MAX),
            usize::MAX
        );
    }

    #[test]
    fn other_messages_are_untouched() {
        let u: AgentMessage = UserMessage::text("x".repeat(10), 0).into();
        assert_eq!(truncate_tool_result_message(&u, 1, 0), u);
        assert_eq!(tool_result_text_chars(&u), 0);
    }
}
