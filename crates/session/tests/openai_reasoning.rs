//! OpenAI Responses reasoning downgrades (OpenClaw 2026.4 `downgradeOpenAIReasoningBlocks`,
//! `downgradeOpenAIFunctionCallReasoningPairs`), over messages as pi writes them.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::expect_used)]

use clawloop_core::message::{AgentMessage, AssistantMessage, ContentBlock};
use clawloop_session::transforms::{
    SanitizeOptions, downgrade_openai_function_call_reasoning_pairs,
    downgrade_openai_reasoning_blocks, resolve_transcript_policy, sanitize_session_history,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn messages(v: Value) -> Vec<AgentMessage> {
    serde_json::from_value(v).expect("messages")
}

fn to_json(m: &[AgentMessage]) -> Value {
    serde_json::to_value(m).expect("json")
}

fn assistant(content: Value) -> Value {
    json!({
        "role": "assistant", "content": content, "api": "openai-responses", "provider": "openai",
        "model": "gpt-5", "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": 0, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0,
        "total": 0}}, "stopReason": "toolUse", "timestamp": 1
    })
}

fn reasoning(id: &str) -> Value {
    json!({"type": "thinking", "thinking": "internal",
           "thinkingSignature": json!({"id": id, "type": "reasoning", "summary": []}).to_string()})
}

fn call(id: &str) -> Value {
    json!({"type": "toolCall", "id": id, "name": "read", "arguments": {}})
}

fn result(id: &str, text: &str) -> Value {
    json!({"role": "toolResult", "toolCallId": id, "toolName": "read",
           "content": [{"type": "text", "text": text}], "isError": false, "timestamp": 2})
}

fn user(text: &str) -> Value {
    json!({"role": "user", "content": text, "timestamp": 3})
}

#[test]
fn reasoning_followed_by_content_is_kept() {
    let input = messages(json!([assistant(
        json!([reasoning("rs_123"), {"type": "text", "text": "answer"}])
    )]));
    assert_eq!(
        to_json(&downgrade_openai_reasoning_blocks(&input)),
        to_json(&input)
    );
}

#[test]
fn dangling_reasoning_is_dropped_and_an_emptied_message_with_it() {
    let input = messages(json!([
        assistant(json!([reasoning("rs_abc")])),
        user("next"),
        assistant(json!([{"type": "text", "text": "a"}, reasoning("rs_x"), reasoning("rs_y")])),
        assistant(json!([reasoning("rs_obj"), {"type": "thinking", "thinking": "plain"}])),
    ]));
    let once = downgrade_openai_reasoning_blocks(&input);
    assert_eq!(
        to_json(&once),
        json!([
            user("next"),
            assistant(json!([{"type": "text", "text": "a"}])),
            assistant(json!([{"type": "thinking", "thinking": "plain"}])),
        ])
    );
    assert_eq!(
        to_json(&downgrade_openai_reasoning_blocks(&once)),
        to_json(&once)
    );
}

#[test]
fn object_signatures_and_non_reasoning_signatures() {
    // An object signature, on a block kept raw (the typed block wants a string), counts too.
    let mut raw = AssistantMessage::empty("openai-responses", "openai", "gpt-5", 1);
    let block = json!({"type": "thinking", "thinking": "t",
                       "thinkingSignature": {"id": "rs_obj", "type": "reasoning"}});
    let Value::Object(block) = block else {
        unreachable!()
    };
    raw.content.push(ContentBlock::Other(block));
    assert_eq!(
        to_json(&downgrade_openai_reasoning_blocks(&[raw.into()])),
        json!([])
    );
    // Signatures of other providers, or ids/types that are not a reasoning item, are kept.
    let others = messages(json!([assistant(json!([
        {"type": "thinking", "thinking": "t", "thinkingSignature": "reasoning_content"},
        {"type": "thinking", "thinking": "t", "thinkingSignature": "{\"id\":\"msg_1\",\"type\":\"reasoning\"}"},
        {"type": "thinking", "thinking": "t", "thinkingSignature": "{\"id\":\"rs_1\",\"type\":\"message\"}"},
        {"type": "thinking", "thinking": "t", "thinkingSignature": "{not json}"},
    ]))]));
    assert_eq!(
        to_json(&downgrade_openai_reasoning_blocks(&others)),
        to_json(&others)
    );
    let dotted = messages(json!([assistant(json!([
        {"type": "thinking", "thinking": "t", "thinkingSignature": " {\"id\":\"rs_1\",\"type\":\"reasoning.encrypted\"} "}
    ]))]));
    assert_eq!(
        to_json(&downgrade_openai_reasoning_blocks(&dotted)),
        json!([])
    );
}

#[test]
fn fc_ids_are_cut_only_where_no_reasoning_precedes_the_call() {
    let input = messages(json!([
        assistant(json!([call("call_123|fc_123"), call("call_9|item_9")])),
        result("call_123|fc_123", "turn1"),
        result("call_9|item_9", "other"),
        assistant(json!([reasoning("rs_123"), call("call_123|fc_123")])),
        result("call_123|fc_123", "turn2"),
        assistant(json!([call("call_5|fc_5")])),
        user("interrupts"),
        result("call_5|fc_5", "after a user turn"),
    ]));
    assert_eq!(
        to_json(&downgrade_openai_function_call_reasoning_pairs(&input)),
        json!([
            assistant(json!([call("call_123"), call("call_9|item_9")])),
            result("call_123", "turn1"),
            result("call_9|item_9", "other"),
            assistant(json!([reasoning("rs_123"), call("call_123|fc_123")])),
            result("call_123|fc_123", "turn2"),
            assistant(json!([call("call_5")])),
            user("interrupts"),
            result("call_5|fc_5", "after a user turn"),
        ])
    );
}

#[test]
fn legacy_blocks_and_tool_use_ids_are_renamed_too() {
    let mut legacy_result = result("call_1|fc_1", "ok");
    legacy_result["toolUseId"] = json!("call_1|fc_1");
    let input = messages(json!([
        assistant(
            json!([{"type": "functionCall", "id": "call_1|fc_1", "name": "read", "args": {}}])
        ),
        legacy_result,
    ]));
    let mut want_result = result("call_1", "ok");
    want_result["toolUseId"] = json!("call_1");
    assert_eq!(
        to_json(&downgrade_openai_function_call_reasoning_pairs(&input)),
        json!([
            assistant(
                json!([{"type": "functionCall", "id": "call_1", "name": "read", "args": {}}])
            ),
            want_result,
        ])
    );
}

#[test]
fn responses_history_is_repaired_then_downgraded() {
    // A result displaced behind a user message is moved back next to its call before the
    // downgrade renames the pair, so both sides still match afterwards.
    let input = messages(json!([
        user("go"),
        assistant(json!([call("call_1|fc_1"), reasoning("rs_dangling")])),
        user("meanwhile"),
        result("call_1|fc_1", "done"),
    ]));
    let policy = resolve_transcript_policy("openai", "openai-responses", "gpt-5");
    let out = sanitize_session_history(
        &input,
        &SanitizeOptions {
            policy,
            allowed_tool_names: None,
            now_ms: 9,
        },
    );
    let answered = assistant(json!([call("call_1")]));
    assert_eq!(
        to_json(&out),
        json!([
            user("go"),
            answered,
            result("call_1", "done"),
            user("meanwhile")
        ])
    );
}
