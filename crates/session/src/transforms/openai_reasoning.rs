//! OpenAI Responses reasoning downgrades (reference openclaw-runner §9 step 6, OpenClaw 2026.4
//! `pi-embedded-helpers/openai.ts`): what keeps a replayed Responses transcript acceptable to
//! the API when reasoning items went missing or stand alone.
//!
//! pi stores a Responses reasoning item as a `thinking` block whose `thinkingSignature` is the
//! item's JSON (`{"type":"reasoning","id":"rs_…",…}`), and a function call's id as
//! `call_…|fc_…` (call id, then item id). The API rejects a reasoning item that nothing
//! follows in its turn, and an `fc_…` function call whose reasoning item is not replayed
//! before it in the same turn.

use std::collections::HashMap;

use serde_json::Value;

use clawloop_core::message::{AgentMessage, ContentBlock, JsonObject};

use super::tool_ids::{is_tool_call_block, tool_call_block_id};

/// Reasoning blocks that nothing but other thinking follows in their message removed
/// (OpenClaw `downgradeOpenAIReasoningBlocks`).
///
/// Only `thinking` blocks whose signature is an OpenAI reasoning item (an object, or a JSON
/// object string, with an `id` starting `rs_` and a `type` of `reasoning` or
/// `reasoning.…`) are candidates; other thinking is kept. An assistant message left without
/// blocks is dropped.
pub fn downgrade_openai_reasoning_blocks(messages: &[AgentMessage]) -> Vec<AgentMessage> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        let AgentMessage::Assistant(a) = message else {
            out.push(message.clone());
            continue;
        };
        let dangling = |i: usize| {
            is_openai_reasoning(&a.content[i])
                && !a.content[i + 1..].iter().any(|b| !is_thinking_type(b))
        };
        if !(0..a.content.len()).any(dangling) {
            out.push(message.clone());
            continue;
        }
        let kept: Vec<ContentBlock> = a
            .content
            .iter()
            .enumerate()
            .filter(|&(i, _)| !dangling(i))
            .map(|(_, b)| b.clone())
            .collect();
        if kept.is_empty() {
            continue;
        }
        let mut a = a.clone();
        a.content = kept;
        out.push(AgentMessage::Assistant(a));
    }
    out
}

/// `fc_…` item ids cut from tool calls that no reasoning item precedes in their message, so
/// the call is replayed without an item id (OpenClaw
/// `downgradeOpenAIFunctionCallReasoningPairs`).
///
/// A tool call (`toolCall`, `toolUse` or `functionCall` block) with id `call|fc_…` before any
/// OpenAI reasoning block of its message gets the id `call`; the tool results right after
/// that message (`toolCallId`, and a legacy `toolUseId`) are renamed with it, so the pair
/// still matches. Any other message ends that run of results. Calls after a reasoning block,
/// and ids without a `|fc_` item part, are kept.
pub fn downgrade_openai_function_call_reasoning_pairs(
    messages: &[AgentMessage],
) -> Vec<AgentMessage> {
    let mut out = Vec::with_capacity(messages.len());
    let mut renamed: HashMap<String, String> = HashMap::new();
    for message in messages {
        match message {
            AgentMessage::Assistant(a) => {
                renamed.clear();
                let mut reasoning_seen = false;
                let mut content = Vec::with_capacity(a.content.len());
                for block in &a.content {
                    if is_openai_reasoning(block) {
                        reasoning_seen = true;
                    } else if !reasoning_seen
                        && is_tool_call_block(block)
                        && let Some(id) = tool_call_block_id(block)
                        && let Some(call_id) = call_id_of_fc_pair(id)
                    {
                        renamed.insert(id.to_owned(), call_id.to_owned());
                        content.push(with_tool_call_id(block, call_id));
                        continue;
                    }
                    content.push(block.clone());
                }
                if renamed.is_empty() {
                    out.push(message.clone());
                } else {
                    let mut a = a.clone();
                    a.content = content;
                    out.push(AgentMessage::Assistant(a));
                }
            }
            AgentMessage::ToolResult(r) if !renamed.is_empty() => {
                let mut r = r.clone();
                if let Some(id) = renamed.get(&r.tool_call_id) {
                    r.tool_call_id = id.clone();
                }
                if let Some(Value::String(legacy)) = r.extra.get_mut("toolUseId")
                    && let Some(id) = renamed.get(legacy.as_str())
                {
                    *legacy = id.clone();
                }
                out.push(AgentMessage::ToolResult(r));
            }
            _ => {
                renamed.clear();
                out.push(message.clone());
            }
        }
    }
    out
}

/// The call id of `call|fc_…`; `None` when there is no item part or it does not start `fc_`.
fn call_id_of_fc_pair(id: &str) -> Option<&str> {
    let (call, item) = id.split_once('|')?;
    (!call.is_empty() && item.starts_with("fc_")).then_some(call)
}

fn with_tool_call_id(block: &ContentBlock, id: &str) -> ContentBlock {
    match block {
        ContentBlock::ToolCall(c) => {
            let mut c = c.clone();
            c.id = id.to_owned();
            ContentBlock::ToolCall(c)
        }
        ContentBlock::Other(map) => {
            let mut map = map.clone();
            map.insert("id".into(), Value::String(id.to_owned()));
            ContentBlock::Other(map)
        }
        other => other.clone(),
    }
}

/// Whether a block's type is `thinking` (typed, or kept raw because it did not parse).
fn is_thinking_type(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Thinking(_) => true,
        ContentBlock::Other(map) => map.get("type").and_then(Value::as_str) == Some("thinking"),
        _ => false,
    }
}

/// Whether a block is a `thinking` block carrying an OpenAI reasoning item as its signature
/// (OpenClaw `parseOpenAIReasoningSignature`).
fn is_openai_reasoning(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Thinking(t) => t
            .thinking_signature
            .as_deref()
            .is_some_and(is_reasoning_signature_text),
        ContentBlock::Other(map) if is_thinking_type(block) => match map.get("thinkingSignature") {
            Some(Value::String(text)) => is_reasoning_signature_text(text),
            Some(Value::Object(item)) => is_reasoning_item(item),
            _ => false,
        },
        _ => false,
    }
}

fn is_reasoning_signature_text(text: &str) -> bool {
    let trimmed = clawloop_core::js_text::js_trim(text);
    if !trimmed.starts_with('{') || !trimmed.ends_with('}') {
        return false;
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(item)) => is_reasoning_item(&item),
        _ => false,
    }
}

fn is_reasoning_item(item: &JsonObject) -> bool {
    let text = |key: &str| item.get(key).and_then(Value::as_str).unwrap_or("");
    let kind = text("type");
    text("id").starts_with("rs_") && (kind == "reasoning" || kind.starts_with("reasoning."))
}
