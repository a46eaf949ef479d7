//! The live tool-result context guard of the tool loop (reference openclaw-runner §10.3), with
//! the reference's budgets and OpenClaw's test vectors.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::expect_used)]

use std::borrow::Cow;

use clawloop_core::message::{AgentMessage, ContentBlock, ToolResultMessage, UserMessage};
use clawloop_session::transforms::{
    ContextGuardLimits, ContextOverflow, PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE,
    guard_tool_result_context,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn tool(id: &str, text: &str) -> AgentMessage {
    ToolResultMessage::text(id, "grep", text, false, 1).into()
}

fn user(text: &str) -> AgentMessage {
    UserMessage::text(text, 0).into()
}

fn result_text(m: &AgentMessage) -> String {
    match m {
        AgentMessage::ToolResult(r) => r.content.iter().filter_map(ContentBlock::as_text).collect(),
        AgentMessage::Other(map) => map["content"].as_str().unwrap_or_default().to_owned(),
        _ => String::new(),
    }
}

#[test]
fn limits_follow_the_reference() {
    let limits = |w| {
        let l = ContextGuardLimits::for_context_window(w);
        (
            w,
            l.max_context_chars,
            l.max_single_tool_result_chars,
            l.tool_result_text_budget(),
        )
    };
    assert_eq!(
        [0, 100, 1_000, 32_000, 100_000, 200_000].map(limits),
        [
            (0, 1_024, 1_024, 512),
            (100, 1_024, 1_024, 512),
            (1_000, 3_600, 1_024, 512),
            (32_000, 115_200, 32_000, 16_000),
            (100_000, 360_000, 100_000, 50_000),
            (200_000, 720_000, 200_000, 100_000),
        ]
    );
}

#[test]
fn context_under_both_limits_is_borrowed_unchanged() {
    let messages = vec![user("hello"), tool("call_ok", "small output")];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    assert!(matches!(guarded, Cow::Borrowed(_)));
    // A large user message under the high-water mark (3 600 chars at 1 000 tokens) passes.
    let big_user = vec![user(&"u".repeat(3_200))];
    assert!(matches!(
        guard_tool_result_context(&big_user, 1_000),
        Ok(Cow::Borrowed(_))
    ));
}

#[test]
fn oversized_result_is_cut_in_a_copy() {
    let messages = vec![tool("call_big", &"z".repeat(5_000))];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits after the cut");
    let Cow::Owned(owned) = &guarded else {
        panic!("an oversized result must be cut in a copy")
    };
    // 512 chars of text budget: 476 kept plus a 36-char notice.
    let want = format!("{}[... 4524 more characters truncated]", "z".repeat(476));
    assert_eq!(result_text(&owned[0]), want);
    assert_eq!(want.chars().count(), 512);
    // The transcript's message is untouched.
    assert_eq!(result_text(&messages[0]), "z".repeat(5_000));
}

#[test]
fn cut_prefers_a_late_line_break_and_drops_images_and_details() {
    let line = format!("{}\n", "a".repeat(99));
    let mut big = ToolResultMessage::text("c", "read", line.repeat(50), false, 1);
    big.content.push(ContentBlock::image("AAAA", "image/png"));
    big.details = Some(json!({"truncation": {"content": "d".repeat(100)}}));
    let messages = vec![AgentMessage::from(big.clone())];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    let mut want = big;
    // The body budget is 477; the last line break at or before it is at 399 (> 70% of 477).
    want.content = vec![ContentBlock::text(format!(
        "{}[... 4601 more characters truncated]",
        &line.repeat(4)[..399]
    ))];
    want.details = None;
    assert_eq!(guarded.into_owned(), vec![AgentMessage::from(want)]);
}

#[test]
fn results_over_the_limit_by_details_alone_lose_the_details() {
    let mut r = ToolResultMessage::text("call_big", "read", "x".repeat(900), false, 1);
    r.details = Some(json!({"truncation": {"truncated": true, "content": "d".repeat(8_000)}}));
    let messages = vec![AgentMessage::from(r.clone())];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    let AgentMessage::ToolResult(out) = &guarded[0] else {
        panic!("not a tool result")
    };
    assert_eq!(out.details, None);
    assert_eq!(
        result_text(&guarded[0]),
        format!("{}[... 423 more characters truncated]", "x".repeat(477))
    );
    assert!(matches!(&messages[0], AgentMessage::ToolResult(m) if m.details.is_some()));
}

#[test]
fn a_result_without_text_becomes_the_notice() {
    let mut r = ToolResultMessage::text("shot", "screenshot", "", false, 1);
    r.content = vec![ContentBlock::image("AAAA", "image/png")];
    let messages = vec![AgentMessage::from(r)];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    // Estimate 16 000 (an image is 8 000, doubled); (16 000 - 1 024) / 2 = 7 488 cut.
    assert_eq!(
        result_text(&guarded[0]),
        "[... 7488 more characters truncated]"
    );
}

#[test]
fn legacy_tool_role_string_output_stays_a_string() {
    let legacy: Value = json!({"role": "tool", "tool_call_id": "c", "tool_name": "read",
                               "content": "y".repeat(5_000), "details": {"x": 1}});
    let Value::Object(map) = legacy else {
        unreachable!()
    };
    let messages = vec![AgentMessage::Other(map)];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    let AgentMessage::Other(out) = &guarded[0] else {
        panic!("kind changed")
    };
    assert_eq!(
        out["content"],
        json!(format!(
            "{}[... 4524 more characters truncated]",
            "y".repeat(476)
        ))
    );
    assert_eq!(out.get("details"), None);
}

#[test]
fn overflow_after_the_cut_is_an_error_with_the_exact_text() {
    let messages = vec![
        user(&"u".repeat(50_000)),
        tool("call_big", &"x".repeat(5_000)),
    ];
    let err = guard_tool_result_context(&messages, 1_000).expect_err("over the high-water mark");
    assert_eq!(
        err,
        ContextOverflow {
            // 50 000 + the cut result's 512 chars of text, counted double.
            estimated_chars: 51_024,
            max_context_chars: 3_600,
        }
    );
    assert_eq!(err.to_string(), PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE);
    assert_eq!(
        PREEMPTIVE_CONTEXT_OVERFLOW_MESSAGE,
        "Context overflow: estimated context size exceeds safe threshold during tool loop."
    );
    // Older results are not shortened to make room.
    let aggregate = vec![
        user(&"u".repeat(50_000)),
        tool("call_1", &"a".repeat(500)),
        tool("call_2", &"b".repeat(500)),
    ];
    assert!(guard_tool_result_context(&aggregate, 1_000).is_err());
    assert_eq!(result_text(&aggregate[1]), "a".repeat(500));
}

#[test]
fn model_window_sized_budget() {
    // 95 000 chars estimate at 190 000, over a 100 000-token window's 100 000 single limit.
    let messages = vec![tool("call_big", &"q".repeat(95_000))];
    let guarded = guard_tool_result_context(&messages, 100_000).expect("fits");
    let text = result_text(&guarded[0]);
    assert_eq!(text.chars().count(), 50_000);
    assert!(
        text.ends_with("[... 45037 more characters truncated]"),
        "{text:.40}"
    );
    // The same result fits a window of 200 000 tokens untouched.
    assert!(matches!(
        guard_tool_result_context(&messages, 200_000),
        Ok(Cow::Borrowed(_))
    ));
}

#[test]
fn multibyte_text_is_cut_on_char_boundaries() {
    let messages = vec![tool("c", &"é🦀".repeat(3_000))];
    let guarded = guard_tool_result_context(&messages, 1_000).expect("fits");
    let text = result_text(&guarded[0]);
    assert_eq!(text.chars().count(), 512);
    assert!(text.starts_with("é🦀é"));
}
