//! A `message_end` channel without chunking sends a message's text once (issue 22): the safety
//! send delivers the whole-message text, and the block buffer, the same text as the streaming
//! filter saw it, is not flushed after it. The two differ around a backtick: an unclosed one
//! hides a think tag from the streaming filter but not from the whole-message text, so both
//! went out.

mod common;

use clawloop_core::AgentEvent;
use clawloop_subscribe::{BlockReplyBreak, SubscriptionOptions};
use common::{agent_end, delta, end, run, start, text_end};
use pretty_assertions::assert_eq;

/// Each reply and the one block it must send, however its deltas are split.
const SHAPES: &[(&str, &str)] = &[
    // An unclosed backtick before the think block.
    ("`x <think>hidden</think> text", "`x  text"),
    // An unclosed backtick inside the think block.
    ("a <think>`</think> b", "a  b"),
    // Closed spans and backticks elsewhere, which never sent twice: pinned as they are.
    ("`x` <think>hidden</think> text", "`x`  text"),
    ("<think>a `b</think> text", "text"),
    ("text `x` <think>hidden</think> more", "text `x`  more"),
    ("a `b <think>c</think>` d", "a `b <think>c</think>` d"),
    ("a <think>x</think> `b", "a  `b"),
    ("<think>`x</think>` y` z", "` y` z"),
];

/// Byte offsets of every char boundary strictly inside `text`.
fn inner_boundaries(text: &str) -> Vec<usize> {
    text.char_indices().skip(1).map(|(at, _)| at).collect()
}

/// The text unsplit, split once at every boundary, and split twice at every pair.
fn splits(text: &str) -> Vec<Vec<&str>> {
    let cuts = inner_boundaries(text);
    let mut out = vec![vec![text]];
    for (i, &a) in cuts.iter().enumerate() {
        out.push(vec![&text[..a], &text[a..]]);
        for &b in &cuts[i + 1..] {
            out.push(vec![&text[..a], &text[a..b], &text[b..]]);
        }
    }
    out
}

fn message_end_run(full: &str, deltas: &[&str], with_text_end: bool) -> (Vec<String>, Vec<String>) {
    let mut events = vec![AgentEvent::AgentStart, start()];
    events.extend(deltas.iter().map(|d| delta(d)));
    if with_text_end {
        events.push(text_end(full));
    }
    events.extend([end(full), agent_end()]);
    let sub = run(
        SubscriptionOptions {
            block_reply_break: BlockReplyBreak::MessageEnd,
            ..SubscriptionOptions::default()
        },
        &events,
    );
    (
        sub.sink().block_reply_texts(),
        sub.assistant_texts().to_vec(),
    )
}

#[test]
fn backticks_and_think_tags_send_the_message_once_however_split() {
    for &(full, expected) in SHAPES {
        for deltas in splits(full) {
            for with_text_end in [false, true] {
                assert_eq!(
                    message_end_run(full, &deltas, with_text_end),
                    (vec![expected.to_owned()], vec![expected.to_owned()]),
                    "{deltas:?}, text_end: {with_text_end}"
                );
            }
        }
    }
}
