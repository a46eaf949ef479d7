//! Tool-use/result pairing repair (reference openclaw-runner §9 step 8, OpenClaw 2026.4
//! `repairToolUseResultPairing`).
//!
//! Strict providers (Anthropic-compatible APIs, Cloud Code Assist) reject a transcript unless
//! every tool call of an assistant message is answered by a tool result right after it. Files
//! can break that: a crash between the call and its result, results displaced behind a user
//! message, duplicated or free-floating results. The repair moves each call's result directly
//! after its assistant message, inserts a synthetic error result for a call nobody answered,
//! and drops duplicate and orphaned results.

use std::collections::{HashMap, HashSet};

use clawloop_core::StopReason;
use clawloop_core::js_text::js_trim;
use clawloop_core::message::{AgentMessage, ToolResultMessage};

use super::tool_ids::{ToolCallRef, tool_call_refs, tool_result_id};

/// The text of the synthetic error result inserted for a tool call without a result (SPEC §5;
/// OpenClaw says `[openclaw]`).
pub const MISSING_TOOL_RESULT_TEXT: &str = "[clawloop] missing tool result in session history; inserted synthetic error result for transcript repair.";

/// What happens to an assistant message that failed (`stopReason` `error` or `aborted`) while
/// asking for tools. Its calls may be incomplete, so no synthetic result is ever made for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErroredAssistantPolicy {
    /// Keep the message and whatever real results follow it (OpenClaw's default).
    #[default]
    Preserve,
    /// Keep the message but drop the results that follow it, as OpenClaw 2026.4's replay
    /// sanitizer does (`erroredAssistantResultPolicy: "drop"`). Newer OpenClaw releases drop
    /// the assistant message too; clawloop follows 2026.4, the version the spec pins.
    Drop,
}

/// Options of [`repair_tool_pairing`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolPairingOptions {
    /// What to do with failed assistant messages that carry tool calls.
    pub errored_assistant: ErroredAssistantPolicy,
    /// Text of synthetic results instead of [`MISSING_TOOL_RESULT_TEXT`] (OpenClaw uses
    /// `aborted` for OpenAI Responses replays).
    pub missing_result_text: Option<String>,
    /// `timestamp` of synthetic results, Unix ms.
    pub now_ms: u64,
}

/// The outcome of [`repair_tool_pairing`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolPairingReport {
    /// The repaired transcript (the input unchanged when nothing needed repair).
    pub messages: Vec<AgentMessage>,
    /// The synthetic results inserted, in order.
    pub added: Vec<ToolResultMessage>,
    /// Results dropped because an earlier result answered the same call.
    pub dropped_duplicate_count: usize,
    /// Results dropped because no tool call of the preceding assistant message matches them.
    pub dropped_orphan_count: usize,
    /// Whether anything changed.
    pub changed: bool,
}

/// Repairs tool-call/result pairing (OpenClaw `repairToolUseResultPairing`).
///
/// Walking the transcript, each assistant message with tool calls collects the messages up to
/// the next assistant message (its span). Results in the span that answer one of its calls
/// are kept (the first per call, its blank `toolName` filled from the call) and placed right
/// after the assistant message in call order; other messages of the span follow unchanged;
/// results in the span that answer none of its calls, and results outside any span, are
/// dropped as orphans; a result for a call answered earlier in the transcript is dropped as a
/// duplicate. A call without a result gets a synthetic error result ([`MISSING_TOOL_RESULT_TEXT`],
/// `isError: true`, the call's tool name or `unknown`), unless the assistant message failed:
/// see [`ErroredAssistantPolicy`].
///
/// Like OpenClaw, a change that only drops a second result of the same call inside one span
/// does not count as a change, and then the input is returned as it was.
pub fn repair_tool_pairing(
    messages: &[AgentMessage],
    options: &ToolPairingOptions,
) -> ToolPairingReport {
    let mut state = Repair {
        out: Vec::with_capacity(messages.len() + 4),
        seen: HashSet::new(),
        report: ToolPairingReport::default(),
        changed: false,
    };
    let mut moved = false;

    let mut i = 0;
    while i < messages.len() {
        let message = &messages[i];
        let AgentMessage::Assistant(assistant) = message else {
            if matches!(message, AgentMessage::ToolResult(_)) {
                // Outside any assistant span: nothing can pair with it.
                state.report.dropped_orphan_count += 1;
                state.changed = true;
            } else {
                state.out.push(message.clone());
            }
            i += 1;
            continue;
        };
        let calls = tool_call_refs(assistant);
        if calls.is_empty() {
            state.out.push(message.clone());
            i += 1;
            continue;
        }
        let ids: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
        // Later duplicates of a call id overwrite earlier ones, as a JS Map built from pairs.
        let names: HashMap<&str, Option<&str>> = calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_deref()))
            .collect();

        let mut span_results: HashMap<String, ToolResultMessage> = HashMap::new();
        let mut remainder: Vec<AgentMessage> = Vec::new();
        let mut j = i + 1;
        while j < messages.len() {
            match &messages[j] {
                AgentMessage::Assistant(_) => break,
                AgentMessage::ToolResult(result) => {
                    match tool_result_id(result).filter(|id| ids.contains(id)) {
                        Some(id) if state.seen.contains(id) => {
                            state.report.dropped_duplicate_count += 1;
                            state.changed = true;
                        }
                        Some(id) => {
                            let fallback = names.get(id).copied().flatten();
                            let normalized = normalize_tool_result_name(result, fallback);
                            if normalized != *result {
                                state.changed = true;
                            }
                            span_results.entry(id.to_owned()).or_insert(normalized);
                        }
                        None => {
                            state.report.dropped_orphan_count += 1;
                            state.changed = true;
                        }
                    }
                }
                other => remainder.push(other.clone()),
            }
            j += 1;
        }

        if matches!(
            assistant.stop_reason,
            StopReason::Error | StopReason::Aborted
        ) {
            state.out.push(message.clone());
            match options.errored_assistant {
                ErroredAssistantPolicy::Preserve => {
                    for call in &calls {
                        if let Some(result) = span_results.get(&call.id) {
                            state.push_result(result.clone());
                        }
                    }
                }
                ErroredAssistantPolicy::Drop => state.changed |= !span_results.is_empty(),
            }
            state.out.append(&mut remainder);
            i = j;
            continue;
        }

        state.out.push(message.clone());
        if !span_results.is_empty() && !remainder.is_empty() {
            moved = true;
            state.changed = true;
        }
        for call in &calls {
            match span_results.get(&call.id) {
                Some(result) => state.push_result(result.clone()),
                None => {
                    let missing = missing_tool_result(call, options);
                    state.report.added.push(missing.clone());
                    state.changed = true;
                    state.push_result(missing);
                }
            }
        }
        state.out.append(&mut remainder);
        i = j;
    }

    let mut report = state.report;
    report.changed = state.changed || moved;
    report.messages = if report.changed {
        state.out
    } else {
        messages.to_vec()
    };
    report
}

/// The output being built and what has been seen so far.
struct Repair {
    out: Vec<AgentMessage>,
    /// Ids of the results already placed.
    seen: HashSet<String>,
    report: ToolPairingReport,
    changed: bool,
}

impl Repair {
    /// Places a result unless one for the same call was placed before.
    fn push_result(&mut self, result: ToolResultMessage) {
        if let Some(id) = tool_result_id(&result) {
            if self.seen.contains(id) {
                self.report.dropped_duplicate_count += 1;
                self.changed = true;
                return;
            }
            self.seen.insert(id.to_owned());
        }
        self.out.push(AgentMessage::ToolResult(result));
    }
}

/// The synthetic error result for a call nobody answered (OpenClaw `makeMissingToolResult`).
fn missing_tool_result(call: &ToolCallRef, options: &ToolPairingOptions) -> ToolResultMessage {
    let text = options
        .missing_result_text
        .clone()
        .unwrap_or_else(|| MISSING_TOOL_RESULT_TEXT.to_owned());
    ToolResultMessage::text(
        call.id.clone(),
        call.name.clone().unwrap_or_else(|| "unknown".to_owned()),
        text,
        true,
        options.now_ms,
    )
}

/// A result's `toolName` trimmed; a blank one replaced by the call's name, else `unknown`
/// (OpenClaw `normalizeToolResultName`).
fn normalize_tool_result_name(
    result: &ToolResultMessage,
    fallback: Option<&str>,
) -> ToolResultMessage {
    let trimmed = js_trim(&result.tool_name);
    let name = if !trimmed.is_empty() {
        trimmed
    } else {
        fallback
            .map(js_trim)
            .filter(|f| !f.is_empty())
            .unwrap_or("unknown")
    };
    let mut out = result.clone();
    if out.tool_name != name {
        out.tool_name = name.to_owned();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use clawloop_core::message::{AssistantMessage, ContentBlock, ToolCall, UserMessage};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn user(t: &str) -> AgentMessage {
        UserMessage::text(t, 0).into()
    }

    fn assistant(text: Option<&str>, calls: &[(&str, &str)], stop: StopReason) -> AgentMessage {
        let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "m", 0);
        if let Some(t) = text {
            m.content.push(ContentBlock::text(t));
        }
        for (id, name) in calls {
            m.content
                .push(ContentBlock::ToolCall(ToolCall::new(*id, *name, json!({}))));
        }
        m.stop_reason = stop;
        m.into()
    }

    fn result(id: &str, name: &str, text: &str) -> AgentMessage {
        ToolResultMessage::text(id, name, text, false, 0).into()
    }

    fn synthetic(id: &str, name: &str) -> AgentMessage {
        ToolResultMessage::text(id, name, MISSING_TOOL_RESULT_TEXT, true, 7).into()
    }

    fn opts(policy: ErroredAssistantPolicy) -> ToolPairingOptions {
        ToolPairingOptions {
            errored_assistant: policy,
            missing_result_text: None,
            now_ms: 7,
        }
    }

    #[test]
    fn inserts_synthetic_result_after_the_call() {
        let input = vec![
            user("read it"),
            assistant(None, &[("call_1", "read")], StopReason::ToolUse),
            user("next question"),
            assistant(Some("ok"), &[], StopReason::Stop),
        ];
        let report = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Drop));
        assert_eq!(
            report,
            ToolPairingReport {
                messages: vec![
                    input[0].clone(),
                    input[1].clone(),
                    synthetic("call_1", "read"),
                    input[2].clone(),
                    input[3].clone(),
                ],
                added: vec![ToolResultMessage::text(
                    "call_1",
                    "read",
                    MISSING_TOOL_RESULT_TEXT,
                    true,
                    7
                )],
                dropped_duplicate_count: 0,
                dropped_orphan_count: 0,
                changed: true,
            }
        );
    }

    #[test]
    fn moves_displaced_results_and_drops_orphans_and_duplicates() {
        let input = vec![
            result("ghost", "read", "stray"),
            assistant(None, &[("a", "read"), ("b", "exec")], StopReason::ToolUse),
            user("interrupt"),
            result("b", " exec ", "B"),
            result("zzz", "read", "orphan in span"),
            result("a", "", "A"),
            assistant(Some("done"), &[], StopReason::Stop),
            assistant(None, &[("a", "read")], StopReason::ToolUse),
            result("a", "read", "again"),
        ];
        let report = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Drop));
        assert_eq!(
            report.messages,
            vec![
                input[1].clone(),
                result("a", "read", "A"),
                result("b", "exec", "B"),
                input[2].clone(),
                input[6].clone(),
                input[7].clone(),
            ]
        );
        assert_eq!(
            (
                report.dropped_orphan_count,
                report.dropped_duplicate_count,
                report.added.len()
            ),
            // The second `a` call's result repeats the first one's id: dropped, and so is its
            // synthetic stand-in (recorded in `added`, then refused as a duplicate).
            (2, 2, 1)
        );
    }

    #[test]
    fn errored_assistant_policies() {
        let input = vec![
            user("go"),
            assistant(Some("trying"), &[("c7", "bash")], StopReason::Error),
            result("c7", "bash", "partial"),
            user("try again"),
            assistant(Some("fine"), &[], StopReason::Stop),
        ];
        let drop = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Drop));
        assert_eq!(
            drop.messages,
            vec![
                input[0].clone(),
                input[1].clone(),
                input[3].clone(),
                input[4].clone()
            ]
        );
        let keep = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Preserve));
        assert_eq!(keep.messages, input);
        assert!(!keep.changed);

        // No synthetic result for an unanswered call of a failed message, whatever the policy.
        let unanswered = vec![input[0].clone(), input[1].clone(), input[3].clone()];
        let keep = repair_tool_pairing(&unanswered, &opts(ErroredAssistantPolicy::Preserve));
        assert_eq!(
            (keep.messages, keep.added),
            (unanswered.clone(), Vec::new())
        );

        // A failed message without calls stays under `Drop`.
        let plain = vec![
            user("x"),
            assistant(None, &[], StopReason::Error),
            user("y"),
        ];
        assert_eq!(
            repair_tool_pairing(&plain, &opts(ErroredAssistantPolicy::Drop)).messages,
            plain
        );
    }

    #[test]
    fn paired_error_result_is_kept_unchanged() {
        let mut failed =
            ToolResultMessage::text("ls_9", "ls", "EACCES: permission denied", true, 0);
        failed.details = Some(json!({"exit": 1}));
        let input = vec![
            user("list"),
            assistant(None, &[("ls_9", "ls")], StopReason::ToolUse),
            failed.into(),
            assistant(None, &[], StopReason::Error),
            user("still there?"),
        ];
        let report = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Drop));
        assert_eq!((report.messages, report.changed), (input, false));
    }

    #[test]
    fn custom_missing_text_and_legacy_blocks() {
        let mut m = AssistantMessage::empty("openai-responses", "openai", "m", 0);
        m.content.push(ContentBlock::Other(
            json!({"type": "functionCall", "id": "f1", "arguments": {}})
                .as_object()
                .cloned()
                .unwrap(),
        ));
        m.stop_reason = StopReason::ToolUse;
        let input = vec![user("x"), m.into()];
        let options = ToolPairingOptions {
            missing_result_text: Some("aborted".into()),
            ..opts(ErroredAssistantPolicy::Drop)
        };
        let report = repair_tool_pairing(&input, &options);
        assert_eq!(
            report.messages[2],
            AgentMessage::from(ToolResultMessage::text("f1", "unknown", "aborted", true, 7))
        );
    }

    #[test]
    fn duplicate_in_one_span_alone_is_not_a_change() {
        let input = vec![
            assistant(None, &[("a", "read")], StopReason::ToolUse),
            result("a", "read", "first"),
            result("a", "read", "second"),
        ];
        let report = repair_tool_pairing(&input, &opts(ErroredAssistantPolicy::Drop));
        assert_eq!((report.messages, report.changed), (input, false));
    }
}
