//! Golden outputs: a safety net for performance work on the subscription, the tag filter and
//! the block chunker.
//!
//! Thousands of generated replies (prose, lists, fences of every kind and indent, inline code,
//! thinking and `<final>` tags in every spelling, partial tags, multibyte text, odd whitespace)
//! are streamed through every combination of options and delta sizes. Everything observable is
//! written to a transcript per case (each sink callback with its full payload, then the
//! subscription's final state), and the transcript's FNV-1a hash is compared with
//! `tests/golden/*.txt`, recorded from a known-good build. A change that is meant to keep
//! behavior byte-identical must leave every hash as it is.
//!
//! After an intended behavior change, re-record with `CLAWLOOP_UPDATE_GOLDEN=1 cargo test -p
//! clawloop-subscribe --test golden` and review why the listed cases changed.

// Test helpers outside `#[test]` fns: a panic is how a mismatch or a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clawloop_core::message::{AssistantMessage, ContentBlock, ThinkingContent};
use clawloop_core::{AgentEvent, AgentMessage, AgentToolResult, AssistantMessageEvent};
use clawloop_subscribe::{
    BlockChunker, BlockReply, BlockReplyBreak, BreakPreference, ChunkingOptions, ReasoningMode,
    ReasoningUpdate, Subscription, SubscriptionEvent, SubscriptionOptions, SubscriptionSink,
    TagFilter, TagFilterOptions, ToolResultReply,
};
use serde_json::json;

// ---- deterministic generation -------------------------------------------------------------

/// xorshift64*: the same cases on every run and machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.range(1, 100) <= percent
    }
}

const WORDS: &[&str] = &[
    "the",
    "stream",
    "reply",
    "agent",
    "buffer",
    "chunk",
    "a",
    "of",
    "to",
    "is",
    "naïve",
    "résumé",
    "é🎉",
    "日本語",
    "x<y",
    "a>b",
    "<",
    ">",
    "<<",
    "<b>",
    "Σσ",
    "done",
    "NO_REPLY",
];

const INLINE: &[&str] = &[
    "`code`",
    "`<think>`",
    "``</final>``",
    "`<thought>`",
    "``a ` b``",
    "`",
    "``",
    "```",
    "`open <think>",
];

const TAGS: &[&str] = &[
    "<think>",
    "</think>",
    "<thinking>",
    "</thinking>",
    "<THOUGHT>",
    "</thought>",
    "<AntThinking>",
    "</antthinking>",
    "< think >",
    "</ think>",
    "<\nthink\n>",
    "< / thinking >",
    "<final>",
    "</final>",
    "< final >",
    "</FINAL>",
    "<thi",
    "<thinkin>",
    "<think x>",
    "<fin",
    "</",
    "<final",
];

const CODE_LINES: &[&str] = &[
    "let a = 1;",
    "<think>not hidden</think>",
    "<final>",
    "",
    "  x < y",
    "    ```",
    "``",
    "~~",
    "fn main() { println!(\"é🎉\"); }",
    "\t<thinking>",
];

fn sentence(rng: &mut Rng, out: &mut String) {
    for i in 0..rng.range(1, 12) {
        if i > 0 {
            out.push_str(rng.pick(&[" ", " ", " ", " ", "  ", "\t", "\u{A0}", "\n", " \n"]));
        }
        match rng.range(0, 99) {
            0..=74 => out.push_str(rng.pick(WORDS)),
            75..=84 => out.push_str(rng.pick(INLINE)),
            85..=92 => {
                let tag = rng.pick(&["think", "thinking", "Thought", "antthinking", " think "]);
                let close = if rng.chance(85) {
                    tag.trim()
                } else {
                    "thought"
                };
                let _ = write!(out, "<{tag}>hidden plan {}</{close}>", rng.pick(WORDS));
            }
            _ => out.push_str(rng.pick(TAGS)),
        }
    }
    out.push_str(rng.pick(&[".", ".", "!", "?", "", ":", "...", ".)"]));
}

fn paragraph(rng: &mut Rng, out: &mut String) {
    for i in 0..rng.range(1, 6) {
        if i > 0 {
            out.push_str(rng.pick(&[" ", " ", "\n", "  "]));
        }
        sentence(rng, out);
    }
}

fn fence(rng: &mut Rng, out: &mut String) {
    let marker = rng.pick(&["```", "```", "~~~", "````", "~~~~"]);
    let indent = rng.pick(&["", "", "", " ", "   ", "    "]);
    out.push_str(indent);
    out.push_str(marker);
    out.push_str(rng.pick(&["rust", "", "ts", " text", "js\r", "<think>"]));
    out.push('\n');
    let lines = if rng.chance(20) {
        rng.range(10, 60)
    } else {
        rng.range(0, 8)
    };
    for _ in 0..lines {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
    match rng.range(0, 9) {
        // Unclosed, or closed by the wrong marker.
        0 => {}
        1 => out.push_str(if marker.starts_with('`') {
            "~~~"
        } else {
            "```"
        }),
        2 => {
            out.push_str(indent);
            out.push_str(marker);
            out.push('`');
        }
        _ => {
            out.push_str(indent);
            out.push_str(marker);
        }
    }
}

/// Dense fragments of tags, backtick runs, fence markers and line breaks, in any order: where
/// the tag filter's passes interact (a tag removed by one pass joins backtick runs around it
/// for the next, a tag split by a line break or a chunk boundary, …).
fn soup(rng: &mut Rng, out: &mut String) {
    const TOKENS: &[&str] = &[
        "<think>",
        "</think>",
        "<thinking>",
        "< Thought >",
        "</ ANTTHINKING>",
        "<thi",
        "nk>",
        "</",
        "<final>",
        "</final>",
        "<FINAL >",
        "fin",
        "al>",
        "<",
        ">",
        "/",
        "`",
        "``",
        "```",
        "~~~",
        "````",
        "\n",
        "\n",
        "\n",
        " ",
        "   ",
        "\t",
        "\r",
        "a",
        "text",
        "é",
        "🎉",
        "日本",
        "\u{FEFF}",
        "\u{2028}",
        ".",
        "!",
    ];
    for _ in 0..rng.range(1, 40) {
        out.push_str(rng.pick(TOKENS));
    }
}

fn list(rng: &mut Rng, out: &mut String) {
    for i in 1..=rng.range(1, 5) {
        if rng.chance(50) {
            let _ = write!(out, "{i}. ");
        } else {
            out.push_str("- ");
        }
        sentence(rng, out);
        out.push('\n');
    }
}

/// A reply of roughly `target` bytes.
fn reply(rng: &mut Rng, target: usize) -> String {
    let mut out = String::new();
    if rng.chance(10) {
        out.push_str(rng.pick(&["\n\n", "  ", "\u{A0}", "\t\n", "    "]));
    }
    if rng.chance(5) {
        return format!("{}NO_REPLY{}", out, rng.pick(&["", " ", "\n"]));
    }
    while out.len() < target {
        match rng.range(0, 99) {
            0..=36 => paragraph(rng, &mut out),
            37..=44 => soup(rng, &mut out),
            45..=59 => list(rng, &mut out),
            60..=79 => fence(rng, &mut out),
            80..=89 => {
                let tag = rng.pick(&["think", "thinking", "THINK"]);
                let _ = write!(out, "<{tag}>");
                paragraph(rng, &mut out);
                if rng.chance(80) {
                    let _ = write!(out, "</{tag}>");
                }
            }
            _ => {
                out.push_str(rng.pick(&["<final>", "</final>", "## Heading", "> quote"]));
            }
        }
        out.push_str(rng.pick(&["\n\n", "\n\n", "\n", "\n\n\n", "\n \n", " ", "\r\n\r\n"]));
    }
    if rng.chance(50) {
        let trimmed = out.trim_end().len();
        out.truncate(trimmed);
    }
    out
}

/// `text` cut into pieces: `size` 0 means random sizes, otherwise `size` bytes extended to
/// the next char boundary.
fn split(rng: &mut Rng, text: &str, size: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let step = if size == 0 { rng.range(1, 40) } else { size };
        let mut end = (start + step).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(text[start..end].to_owned());
        start = end;
    }
    pieces
}

// ---- recording ----------------------------------------------------------------------------

/// Writes every callback with its full payload into one transcript. Texts that grow by
/// appending (partial replies, the assistant text, streamed reasoning) are written as what was
/// appended, which is as exact as the whole text and keeps transcripts linear in the reply.
#[derive(Default)]
struct Recorder {
    log: String,
    partial: String,
    assistant: String,
    reasoning: String,
}

/// Logs `text` as an extension of `last` when it is one, else whole; then remembers it.
fn log_growing(log: &mut String, label: &str, last: &mut String, text: &str) {
    match text.strip_prefix(last.as_str()) {
        Some(appended) => {
            let _ = writeln!(log, "{label} +{appended:?}");
        }
        None => {
            let _ = writeln!(log, "{label} = {text:?}");
        }
    }
    last.clear();
    last.push_str(text);
}

impl SubscriptionSink for Recorder {
    fn on_block_reply(&mut self, reply: BlockReply) {
        let _ = writeln!(
            self.log,
            "block {:?} media={:?} reasoning={} index={}",
            reply.text, reply.media_urls, reply.is_reasoning, reply.assistant_message_index
        );
    }
    fn on_block_reply_flush(&mut self) {
        self.log.push_str("flush\n");
    }
    fn on_partial_reply(&mut self, text: &str) {
        log_growing(&mut self.log, "partial", &mut self.partial, text);
    }
    fn on_reasoning(&mut self, update: ReasoningUpdate<'_>) {
        match update {
            ReasoningUpdate::Stream { text, delta } => {
                let _ = writeln!(self.log, "reasoning delta {delta:?}");
                log_growing(&mut self.log, "reasoning", &mut self.reasoning, text);
            }
            ReasoningUpdate::End => self.log.push_str("reasoning end\n"),
        }
    }
    fn on_tool_result(&mut self, reply: ToolResultReply) {
        let _ = writeln!(
            self.log,
            "tool_result {:?} media={:?}",
            reply.text, reply.media_urls
        );
    }
    fn on_agent_event(&mut self, event: SubscriptionEvent<'_>) {
        if let SubscriptionEvent::Assistant { text, delta } = event {
            let _ = writeln!(self.log, "assistant delta {delta:?}");
            log_growing(&mut self.log, "assistant", &mut self.assistant, text);
        } else {
            let _ = writeln!(self.log, "event {event:?}");
        }
    }
    fn on_assistant_message_start(&mut self) {
        self.log.push_str("message_start\n");
    }
}

fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn assistant(blocks: &[&str], thinking: Option<&str>) -> AssistantMessage {
    let mut m = AssistantMessage::empty("openai-completions", "openai", "gpt-5", 0);
    if let Some(thinking) = thinking {
        m.content.push(ContentBlock::Thinking(ThinkingContent {
            thinking: thinking.into(),
            ..ThinkingContent::default()
        }));
    }
    for block in blocks {
        m.content.push(ContentBlock::text(*block));
    }
    m
}

fn message_event(m: AssistantMessage, end: bool) -> AgentEvent {
    let message = Arc::new(AgentMessage::Assistant(m));
    if end {
        AgentEvent::MessageEnd { message }
    } else {
        AgentEvent::MessageStart { message }
    }
}

fn update(event: AssistantMessageEvent) -> AgentEvent {
    AgentEvent::MessageUpdate {
        assistant_message_event: event,
        message: None,
    }
}

fn delta(text: &str) -> AgentEvent {
    update(AssistantMessageEvent::TextDelta {
        content_index: 0,
        delta: text.into(),
    })
}

fn text_end(content: &str) -> AgentEvent {
    update(AssistantMessageEvent::TextEnd {
        content_index: 0,
        content: content.into(),
        content_signature: None,
    })
}

fn send_events(id: &str, text: &str, ok: bool) -> [AgentEvent; 2] {
    [
        AgentEvent::ToolExecutionStart {
            tool_call_id: id.into(),
            tool_name: "message".into(),
            args: json!({"action": "send", "target": "team", "message": text}),
        },
        AgentEvent::ToolExecutionEnd {
            tool_call_id: id.into(),
            tool_name: "message".into(),
            result: AgentToolResult::text(if ok { "sent" } else { "failed" }),
            is_error: !ok,
        },
    ]
}

fn random_options(rng: &mut Rng) -> SubscriptionOptions {
    let chunking = if rng.chance(15) {
        None
    } else {
        let (min, max) = match rng.range(0, 4) {
            0 => (1, rng.range(1, 20)),
            1 => (rng.range(5, 40), rng.range(20, 120)),
            2 => (rng.range(20, 200), rng.range(60, 400)),
            3 => (800, 1200),
            _ => (rng.range(1, 100), rng.range(1, 100)),
        };
        Some(ChunkingOptions {
            min_chars: min,
            max_chars: max,
            break_preference: match rng.range(0, 2) {
                0 => BreakPreference::Paragraph,
                1 => BreakPreference::Newline,
                _ => BreakPreference::Sentence,
            },
            flush_on_paragraph: rng.chance(40),
        })
    };
    SubscriptionOptions {
        block_reply_break: if rng.chance(60) {
            BlockReplyBreak::TextEnd
        } else {
            BlockReplyBreak::MessageEnd
        },
        chunking,
        enforce_final_tag: rng.chance(20),
        reasoning_mode: match rng.range(0, 4) {
            0 => ReasoningMode::On,
            1 => ReasoningMode::Stream,
            _ => ReasoningMode::Off,
        },
        block_replies: rng.chance(85),
        channel_messaging_tools: Vec::new(),
        ..SubscriptionOptions::default()
    }
}

/// One message's events; `text` is what the deltas carry.
fn message_events(rng: &mut Rng, text: &str, events: &mut Vec<AgentEvent>) {
    events.push(message_event(assistant(&[], None), false));
    let native_thinking = rng
        .chance(15)
        .then(|| format!("native plan {}", rng.pick(WORDS)));
    if let Some(thinking) = &native_thinking {
        events.push(update(AssistantMessageEvent::ThinkingStart {
            content_index: 0,
        }));
        for piece in split(rng, thinking, 0) {
            events.push(update(AssistantMessageEvent::ThinkingDelta {
                content_index: 0,
                delta: piece,
            }));
        }
        events.push(update(AssistantMessageEvent::ThinkingEnd {
            content_index: 0,
            content: thinking.clone(),
            content_signature: None,
        }));
    }
    let streams = rng.chance(90);
    if streams {
        events.push(update(AssistantMessageEvent::TextStart {
            content_index: 0,
        }));
        let size = *[0usize, 1, 2, 3, 7, 16, 64, usize::MAX]
            .get(rng.range(0, 7))
            .unwrap_or(&16);
        let size = if size == usize::MAX {
            text.len().max(1)
        } else {
            size
        };
        let pieces = split(rng, text, size);
        let cut = rng.range(0, pieces.len());
        for (i, piece) in pieces.iter().enumerate() {
            if rng.chance(2) {
                // A tool runs in the middle of the text: buffered text is flushed first.
                let [start, end] = send_events(&format!("mid{i}"), "mid-stream send", true);
                events.push(start);
                events.push(end);
            }
            if i == cut && rng.chance(20) {
                // The provider stops streaming early and text_end carries the rest.
                break;
            }
            events.push(delta(piece));
        }
        match rng.range(0, 5) {
            0 => events.push(text_end("")),
            1 => {}
            2 => {
                let partial: String = text.chars().take(text.chars().count() / 2).collect();
                events.push(text_end(&partial));
            }
            3 => events.push(text_end(&format!("{text} extra tail."))),
            _ => events.push(text_end(text)),
        }
    }
    let end_blocks: Vec<String> = match rng.range(0, 9) {
        0 => vec![format!("{text}\n\nAppended at the end.")],
        1 => {
            let mid = text.len() / 2;
            let mut mid = mid;
            while !text.is_char_boundary(mid) {
                mid += 1;
            }
            vec![text[..mid].to_owned(), text[mid..].to_owned()]
        }
        2 => vec![format!("  \n{text}\n  ")],
        3 => vec![],
        _ => vec![text.to_owned()],
    };
    let end_refs: Vec<&str> = end_blocks.iter().map(String::as_str).collect();
    events.push(message_event(
        assistant(&end_refs, native_thinking.as_deref()),
        true,
    ));
    if rng.chance(10) {
        // A late text_end after message_end.
        events.push(text_end(text));
    }
}

fn subscription_case(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let options = random_options(&mut rng);
    let mut events = vec![AgentEvent::AgentStart];
    for m in 0..rng.range(1, 3) {
        if rng.chance(25) {
            let sent = if rng.chance(50) {
                "Sent the build report to the team channel."
            } else {
                "NO_REPLY"
            };
            let [start, end] = send_events(&format!("s{m}"), sent, rng.chance(80));
            events.push(start);
            events.push(end);
        }
        let size = *[20usize, 200, 1200, 4000]
            .get(rng.range(0, 3))
            .unwrap_or(&200);
        let text = if m > 0 && rng.chance(10) {
            // The same text again in a second message (dedupe across messages).
            "Sent the build report to the team channel.".to_owned()
        } else {
            let target = rng_size(&mut rng, size);
            reply(&mut rng, target)
        };
        message_events(&mut rng, &text, &mut events);
    }
    events.push(AgentEvent::AgentEnd {
        messages: Vec::new().into(),
    });

    let mut sub = Subscription::new(options.clone(), Recorder::default());
    for event in &events {
        sub.handle(event);
    }
    let mut log = format!("{options:?}\n");
    log.push_str(&sub.sink().log);
    let _ = writeln!(log, "assistant_texts {:?}", sub.assistant_texts());
    let _ = writeln!(log, "keys {:?}", sub.directly_sent_block_keys());
    let _ = writeln!(log, "sent {:?}", sub.messaging_tool_sent_texts());
    let _ = writeln!(log, "metas {:?}", sub.tool_metas());
    let _ = writeln!(
        log,
        "liveness {:?} replay {}",
        sub.liveness(),
        sub.replay_invalid()
    );
    log
}

fn rng_size(rng: &mut Rng, size: usize) -> usize {
    rng.range(size / 4, size)
}

fn chunker_case(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0xC4A5_11E2);
    let options = random_options(&mut rng).chunking.unwrap_or_default();
    let size = rng_size(&mut rng, 3000);
    let text = reply(&mut rng, size);
    let piece_size = *[0usize, 1, 5, 16, 100].get(rng.range(0, 4)).unwrap_or(&0);
    let mut chunker = BlockChunker::new(options);
    let mut log = format!("{options:?}\n");
    for piece in split(&mut rng, &text, piece_size) {
        chunker.push(&piece);
        if rng.chance(80) {
            chunker.drain(false, |c| {
                let _ = writeln!(log, "chunk {c:?}");
            });
            let _ = writeln!(log, "buffer {}", chunker.buffer().len());
        }
        if rng.chance(1) {
            chunker.drain(true, |c| {
                let _ = writeln!(log, "forced {c:?}");
            });
        }
    }
    chunker.drain(true, |c| {
        let _ = writeln!(log, "forced {c:?}");
    });
    let _ = writeln!(log, "end {:?}", chunker.buffer());
    log
}

fn tag_filter_case(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x7A6F_11E4);
    let options = TagFilterOptions {
        enforce_final_tag: rng.chance(30),
    };
    let size = rng_size(&mut rng, 2000);
    let text = if rng.chance(50) {
        reply(&mut rng, size)
    } else {
        let mut text = String::new();
        for _ in 0..rng.range(1, 4) {
            soup(&mut rng, &mut text);
        }
        text
    };
    let piece_size = *[0usize, 1, 4, 16, 1000].get(rng.range(0, 4)).unwrap_or(&0);
    let mut filter = TagFilter::new(options);
    let mut log = format!("{options:?}\n");
    for piece in split(&mut rng, &text, piece_size) {
        let shown = filter.push(&piece);
        let _ = writeln!(
            log,
            "{shown:?} thinking={} final={}",
            filter.in_thinking(),
            filter.in_final()
        );
        if rng.chance(3) {
            // `finish` between blocks, as the subscription's per-block filter does.
            let _ = writeln!(log, "finish {:?}", filter.finish());
        }
    }
    let _ = writeln!(log, "finish {:?}", filter.finish());
    let _ = writeln!(log, "reasoning {:?}", filter.reasoning());
    let _ = writeln!(log, "strip {:?}", TagFilter::strip(&text, options));
    log
}

// ---- exhaustive edges ---------------------------------------------------------------------

/// Short texts around the boundaries random texts rarely hit exactly: fence lines at every
/// offset, closing lines right at `max_chars`, leading whitespace that decides whether a line
/// is a fence, tags split by breaks, multi-byte chars next to cut points.
const EDGE_TEXTS: &[&str] = &[
    "```\nab\n```\n\nAfter",
    "Intro\n```js\nconsole.log(1)\n```\nOutro text here.",
    "aaaa bbbb\n```\ncc\n```",
    "x\n~~~\n<think>in code</think>\n~~~\ny",
    "    ~~~\n<think>x</think>y",
    "    ```\n<think>x</think>y",
    "   ```\n<think>x</think>\n   ```\nz",
    "\n\n```\n<think>a</think>\n```\nb",
    "  \n~~~\n<think>a</think>b",
    "\u{A0}~~~\n<think>a</think>b",
    "\t```\n<think>a</think>b",
    "é🎉 ééé. 日本語! x?\n\nà\u{A0}b\u{3000}c",
    "one. two! three? four.\nfive\n\nsix",
    "abc <think>hidden</think> def < think >x</ think > ghi",
    "`<think>` a ``<final>`` b <final>c</final>",
    "```</think>````<think>```<final>x",
    "a\n````\nb\n```\nc\n````\nd",
    "````md\n```\ninner\n```\n````\n\ntail",
    "no fence `inline` and ``double`` ticks\n\n- item\n- item two.",
    "```\n\n\n```",
    "```py\n",
    "lorem lorem\n```\nlorem\n```",
    "First paragraph.\n \nSecond paragraph.\n\n\nThird.",
    "<final>Answer.</final> trailing <final>more</final>",
    "Scratch <thi",
    "ab cd\n  ```\nxy\n  ```",
];

/// Every text of [`EDGE_TEXTS`] through the chunker with every small `min`/`max` pair and each
/// preference, pushed whole and char by char; one transcript per text.
fn chunker_edge_case(index: u64) -> String {
    let text = EDGE_TEXTS[index as usize];
    let mut log = String::new();
    for min in 1..=20 {
        for max in (min..=min + 24).step_by(2) {
            for break_preference in [
                BreakPreference::Paragraph,
                BreakPreference::Newline,
                BreakPreference::Sentence,
            ] {
                for flush_on_paragraph in [false, true] {
                    let options = ChunkingOptions {
                        min_chars: min,
                        max_chars: max,
                        break_preference,
                        flush_on_paragraph,
                    };
                    for by_char in [false, true] {
                        let mut chunker = BlockChunker::new(options);
                        let pieces: Vec<String> = if by_char {
                            text.chars().map(String::from).collect()
                        } else {
                            vec![text.to_owned()]
                        };
                        for piece in &pieces {
                            chunker.push(piece);
                            chunker.drain(false, |c| {
                                let _ = write!(log, "{c:?},");
                            });
                        }
                        chunker.drain(true, |c| {
                            let _ = write!(log, "!{c:?},");
                        });
                        log.push('\n');
                    }
                }
            }
        }
    }
    log
}

/// Every text of [`EDGE_TEXTS`] as a whole message through every option combination, streamed
/// whole, char by char and with a leading whitespace delta; one transcript per text.
fn subscription_edge_case(index: u64) -> String {
    let text = EDGE_TEXTS[index as usize];
    let mut log = String::new();
    let chunkings = [
        None,
        Some((1, 8)),
        Some((5, 12)),
        Some((10, 30)),
        Some((3, 200)),
    ];
    for chunking in chunkings {
        for block_reply_break in [BlockReplyBreak::TextEnd, BlockReplyBreak::MessageEnd] {
            for enforce_final_tag in [false, true] {
                for reasoning_mode in [ReasoningMode::Off, ReasoningMode::On, ReasoningMode::Stream]
                {
                    for block_replies in [true, false] {
                        let options = SubscriptionOptions {
                            block_reply_break,
                            chunking: chunking.map(|(min_chars, max_chars)| ChunkingOptions {
                                min_chars,
                                max_chars,
                                break_preference: BreakPreference::Paragraph,
                                flush_on_paragraph: false,
                            }),
                            enforce_final_tag,
                            reasoning_mode,
                            block_replies,
                            channel_messaging_tools: Vec::new(),
                            ..SubscriptionOptions::default()
                        };
                        for split in 0..3 {
                            let streamed = match split {
                                0 => vec![text.to_owned()],
                                1 => text.chars().map(String::from).collect(),
                                _ => vec![" \n".to_owned(), text.to_owned()],
                            };
                            let mut events = vec![message_event(assistant(&[], None), false)];
                            events.extend(streamed.iter().map(|d| delta(d)));
                            events.push(text_end(""));
                            events.push(message_event(assistant(&[text], None), true));
                            let mut sub = Subscription::new(options.clone(), Recorder::default());
                            for event in &events {
                                sub.handle(event);
                            }
                            log.push_str(&sub.sink().log);
                            let _ = writeln!(log, "texts {:?}", sub.assistant_texts());
                        }
                    }
                }
            }
        }
    }
    log
}

// ---- comparison ---------------------------------------------------------------------------

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
        .join(format!("{name}.txt"))
}

/// Compares the hash of every case's transcript with the recorded one.
fn check(name: &str, cases: u64, case: fn(u64) -> String) {
    let hashes: Vec<String> = (0..cases)
        .map(|seed| format!("{seed} {:016x}", fnv1a(&case(seed))))
        .collect();
    let path = golden_path(name);
    if std::env::var_os("CLAWLOOP_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, hashes.join("\n") + "\n").unwrap();
        return;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (record with CLAWLOOP_UPDATE_GOLDEN=1)",
            path.display()
        )
    });
    let recorded: Vec<&str> = recorded.lines().collect();
    assert_eq!(recorded.len(), hashes.len(), "{name}: case count changed");
    let changed: Vec<u64> = (0..cases)
        .filter(|&seed| recorded[seed as usize] != hashes[seed as usize])
        .collect();
    if let Some(&first) = changed.first() {
        panic!(
            "{name}: {} of {cases} cases changed ({:?}…); first transcript now:\n{}",
            changed.len(),
            &changed[..changed.len().min(20)],
            case(first)
        );
    }
}

#[test]
fn subscription_transcripts_match_the_golden_hashes() {
    check("subscription", 2000, subscription_case);
}

#[test]
fn chunker_transcripts_match_the_golden_hashes() {
    check("chunker", 1000, chunker_case);
}

#[test]
fn tag_filter_transcripts_match_the_golden_hashes() {
    check("tag_filter", 4000, tag_filter_case);
}

#[test]
fn chunker_edge_transcripts_match_the_golden_hashes() {
    check("chunker_edges", EDGE_TEXTS.len() as u64, chunker_edge_case);
}

#[test]
fn subscription_edge_transcripts_match_the_golden_hashes() {
    check(
        "subscription_edges",
        EDGE_TEXTS.len() as u64,
        subscription_edge_case,
    );
}
