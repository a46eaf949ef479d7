//! Reply directives and tool media through a real [`Subscription`] (reference §18.6, OpenClaw
//! `emitBlockChunk` with `replyDirectiveAccumulator`, `consumePendingToolMediaIntoReply` and
//! agent_end's media-only reply). Expected values were checked against OpenClaw 2026.4.12's
//! accumulator fed the same block chunks.

mod common;

use clawloop_core::message::ContentBlock;
use clawloop_core::{AgentEvent, AgentToolResult};
use clawloop_subscribe::{BlockReply, BlockReplyBreak, SubscriptionOptions};
use common::{
    agent_end, assistant, delta, end, end_msg, run, start, text_end, tool_end_with, tool_start,
};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// A streamed assistant message: start, the deltas, text_end and message_end.
fn message(deltas: &[&str]) -> Vec<AgentEvent> {
    let full = deltas.concat();
    let mut events = vec![start()];
    events.extend(deltas.iter().map(|d| delta(d)));
    events.push(text_end(&full));
    events.push(end(&full));
    events
}

fn result(text: &str, details: Value) -> AgentToolResult {
    AgentToolResult {
        content: vec![ContentBlock::text(text)],
        details: Some(details),
        ..AgentToolResult::default()
    }
}

fn reply(text: &str, media: &[&str], index: u32) -> BlockReply {
    BlockReply {
        text: text.into(),
        media_urls: media.iter().map(|m| (*m).to_owned()).collect(),
        assistant_message_index: index,
        ..BlockReply::default()
    }
}

#[test]
fn media_line_in_streamed_text_becomes_block_media() {
    let sub = run(
        SubscriptionOptions::default(),
        &message(&[
            "Here is the chart.\nMEDIA:",
            " /tmp/chart.png\nAnything else?",
        ]),
    );
    assert_eq!(
        sub.sink().block_replies,
        [reply(
            "Here is the chart.\nAnything else?",
            &["/tmp/chart.png"],
            1
        )]
    );
    // The final payloads parse the directives again: the raw text is kept.
    assert_eq!(
        sub.assistant_texts(),
        ["Here is the chart.\nMEDIA: /tmp/chart.png\nAnything else?"]
    );
    // The key of the delivered block includes its media.
    assert_eq!(
        sub.directly_sent_block_keys().iter().collect::<Vec<_>>(),
        [r#"{"text":"Here is the chart.\nAnything else?","mediaList":["/tmp/chart.png"]}"#]
    );
}

#[test]
fn media_only_block_has_no_text() {
    let sub = run(
        SubscriptionOptions::default(),
        &message(&["MEDIA: https://example.test/cat.jpg"]),
    );
    assert_eq!(
        sub.sink().block_replies,
        [reply("", &["https://example.test/cat.jpg"], 1)]
    );
    assert_eq!(sub.sink().block_reply_texts(), Vec::<String>::new());
}

#[test]
fn reply_to_current_split_across_two_deltas() {
    let sub = run(
        SubscriptionOptions::default(),
        &message(&["Sure thing. [[reply_", "to_current]] Here it is."]),
    );
    assert_eq!(
        sub.sink().block_replies,
        [BlockReply {
            reply_to_tag: true,
            reply_to_current: true,
            ..reply("Sure thing. Here it is.", &[], 1)
        }]
    );
}

#[test]
fn reply_to_current_split_across_two_blocks_is_held_back() {
    // Each text_end flushes a block, so the tag is cut between two blocks: the open `[[`
    // waits for the next block, and the tag then applies to every later block of the
    // message (OpenClaw's accumulator is per message).
    let first = "Sure thing. [[reply_";
    let second = "to_current]] Ok.";
    let third = "More.";
    let events = [
        start(),
        delta(first),
        text_end(first),
        delta(second),
        text_end(second),
        delta(third),
        text_end(third),
        end(&[first, second, third].concat()),
    ];
    let sub = run(SubscriptionOptions::default(), &events);
    assert_eq!(sub.assistant_texts(), [first, second, third]);
    let tagged = |text: &str| BlockReply {
        reply_to_tag: true,
        reply_to_current: true,
        ..reply(text, &[], 1)
    };
    assert_eq!(
        sub.sink().block_replies,
        [reply("Sure thing.", &[], 1), tagged("Ok."), tagged("More.")]
    );
}

#[test]
fn unclosed_directive_tail_is_flushed_at_message_end() {
    let first = "Done. [[reply_to: 77";
    let sub = run(
        SubscriptionOptions::default(),
        &[start(), delta(first), text_end(first), end(first)],
    );
    // Held back while streaming; at message_end the tail is parsed as text.
    assert_eq!(
        sub.sink().block_replies,
        [reply("Done.", &[], 1), reply("[[reply_to: 77", &[], 1)]
    );
}

#[test]
fn explicit_reply_id_carries_to_the_next_block_with_content() {
    let sub = run(
        SubscriptionOptions {
            block_reply_break: BlockReplyBreak::MessageEnd,
            ..SubscriptionOptions::default()
        },
        &message(&["[[reply_to: 1234]]\nOn it."]),
    );
    assert_eq!(
        sub.sink().block_replies,
        [BlockReply {
            reply_to_id: Some("1234".into()),
            reply_to_tag: true,
            ..reply("On it.", &[], 1)
        }]
    );
}

#[test]
fn audio_as_voice_tag_is_read_and_removed() {
    let sub = run(
        SubscriptionOptions::default(),
        &message(&["[[audio_as_voice]] Listen to this.\nMEDIA: ./out/voice.ogg"]),
    );
    assert_eq!(
        sub.sink().block_replies,
        [BlockReply {
            audio_as_voice: true,
            ..reply("Listen to this.", &["./out/voice.ogg"], 1)
        }]
    );
}

#[test]
fn silent_block_is_not_delivered() {
    let sub = run(SubscriptionOptions::default(), &message(&["NO_REPLY"]));
    assert_eq!(sub.sink().block_replies, []);
    assert_eq!(sub.assistant_texts(), ["NO_REPLY"]);
}

#[test]
fn tool_media_is_attached_to_the_next_text_block() {
    let mut events = message(&["Rendering the chart."]);
    events.push(tool_start("c1", "image_generate", json!({})));
    events.push(tool_end_with(
        "c1",
        "image_generate",
        result(
            "Generated 1 image.",
            json!({"media": {"mediaUrls": ["/tmp/gen/chart.png"]}}),
        ),
        false,
    ));
    events.extend(message(&["Here you go."]));
    events.push(agent_end());
    let sub = run(SubscriptionOptions::default(), &events);
    assert_eq!(
        sub.sink().block_replies,
        [
            reply("Rendering the chart.", &[], 1),
            reply("Here you go.", &["/tmp/gen/chart.png"], 2),
        ]
    );
}

#[test]
fn media_lines_of_a_tool_result_text_are_attached_and_filtered() {
    // `web_fetch` is trusted with local files; an unknown tool keeps only http(s) URLs.
    let mut events = vec![
        tool_start("c1", "web_fetch", json!({})),
        tool_end_with(
            "c1",
            "web_fetch",
            result("Saved.\nMEDIA: /tmp/page.png", json!({})),
            false,
        ),
        tool_start("c2", "my_plugin_tool", json!({})),
        tool_end_with(
            "c2",
            "my_plugin_tool",
            result(
                "MEDIA: /etc/secret.png\nMEDIA: https://cdn.test/a.png",
                json!({}),
            ),
            false,
        ),
    ];
    events.extend(message(&["Both saved."]));
    let sub = run(SubscriptionOptions::default(), &events);
    assert_eq!(
        sub.sink().block_replies,
        [reply(
            "Both saved.",
            &["/tmp/page.png", "https://cdn.test/a.png"],
            1
        )]
    );
}

#[test]
fn tool_media_without_a_later_reply_arrives_as_a_media_only_reply_at_agent_end() {
    let mut events = message(&["Sending the recording."]);
    events.push(tool_start("c1", "tts", json!({})));
    events.push(tool_end_with(
        "c1",
        "tts",
        result(
            "ok",
            json!({"media": {"mediaUrl": "/tmp/tts/reply.opus", "audioAsVoice": true}}),
        ),
        false,
    ));
    events.push(agent_end());
    let sub = run(SubscriptionOptions::default(), &events);
    assert_eq!(
        sub.sink().block_replies,
        [
            reply("Sending the recording.", &[], 1),
            BlockReply {
                audio_as_voice: true,
                ..reply("", &["/tmp/tts/reply.opus"], 1)
            },
        ]
    );
    // Block replies are flushed at the tool start and at agent_end, after the media.
    assert_eq!(sub.sink().flushes, 2);
    assert_eq!(sub.sink().block_reply_texts(), ["Sending the recording."]);
}

#[test]
fn errored_tool_leaves_no_media() {
    let mut events = vec![
        tool_start("c1", "image_generate", json!({})),
        tool_end_with(
            "c1",
            "image_generate",
            result(
                "failed\nMEDIA: /tmp/partial.png",
                json!({"media": {"mediaUrl": "/tmp/partial.png"}}),
            ),
            true,
        ),
        tool_start("c2", "read", json!({})),
        tool_end_with(
            "c2",
            "read",
            result(
                "MEDIA: /tmp/x.png",
                json!({"status": "error", "error": "boom"}),
            ),
            false,
        ),
    ];
    events.extend(message(&["Sorry, that failed."]));
    events.push(agent_end());
    let sub = run(SubscriptionOptions::default(), &events);
    assert_eq!(
        sub.sink().block_replies,
        [reply("Sorry, that failed.", &[], 1)]
    );
}

#[test]
fn reasoning_blocks_do_not_take_tool_media() {
    use clawloop_core::message::ThinkingContent;
    use clawloop_subscribe::ReasoningMode;

    let mut thinking = assistant("Done.");
    thinking.content.insert(
        0,
        ContentBlock::Thinking(ThinkingContent {
            thinking: "Check it.".into(),
            ..ThinkingContent::default()
        }),
    );
    let events = vec![
        tool_start("c1", "image", json!({})),
        tool_end_with(
            "c1",
            "image",
            result("ok", json!({"media": {"mediaUrl": "/tmp/i.png"}})),
            false,
        ),
        start(),
        end_msg(thinking),
        agent_end(),
    ];
    let sub = run(
        SubscriptionOptions {
            block_reply_break: BlockReplyBreak::MessageEnd,
            reasoning_mode: ReasoningMode::On,
            ..SubscriptionOptions::default()
        },
        &events,
    );
    assert_eq!(
        sub.sink().block_replies,
        [
            BlockReply {
                is_reasoning: true,
                ..reply("Reasoning:\n_Check it._", &[], 1)
            },
            reply("Done.", &["/tmp/i.png"], 1),
        ]
    );
}
