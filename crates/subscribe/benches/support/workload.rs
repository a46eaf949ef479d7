//! The benchmark's workload, shared by `benches/stream.rs` and `examples/stream_once.rs` (the
//! latter runs it once, for `valgrind --tool=callgrind` instruction counts, which stay stable
//! on a noisy machine where wall-clock numbers do not).
//!
//! A deterministic markdown reply (headings, prose, lists, ``` and ~~~ fences of varied length,
//! inline code, occasional `<think>` sections) is streamed as agent events (`message_start`,
//! `text_start`, text deltas, `text_end`, `message_end`) through a subscription in `text_end`
//! break mode with the default 800/1200 paragraph chunking.

use std::sync::Arc;

use clawloop_core::message::{AssistantMessage, ContentBlock};
use clawloop_core::{AgentEvent, AgentMessage, AssistantMessageEvent};
use clawloop_subscribe::{
    BlockReply, BlockReplyBreak, ChunkingOptions, Subscription, SubscriptionOptions,
    SubscriptionSink,
};

/// Counts block replies instead of storing them, so the sink costs nothing measurable.
#[derive(Debug, Default)]
pub struct CountingSink {
    /// Block replies received.
    pub blocks: usize,
    /// Their total length in bytes.
    pub bytes: usize,
}

impl SubscriptionSink for CountingSink {
    fn on_block_reply(&mut self, reply: BlockReply) {
        self.blocks += 1;
        self.bytes += reply.text.len();
    }
}

/// xorshift64*: a fixed seed gives the same document on every run and machine.
struct Rng(u64);

impl Rng {
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
    "runtime",
    "buffer",
    "chunk",
    "token",
    "model",
    "tool",
    "session",
    "fence",
    "paragraph",
    "delta",
    "message",
    "event",
    "filter",
    "block",
    "context",
    "window",
    "is",
    "a",
    "of",
    "to",
    "and",
    "with",
    "for",
    "when",
    "every",
    "never",
    "quickly",
    "naïve",
    "résumé",
    "latency",
    "throughput",
    "linear",
    "bounded",
    "state",
    "machine",
];

const CODE_LINES: &[&str] = &[
    "fn main() {",
    "    let mut total = 0usize;",
    "    for item in items.iter() {",
    "        total += item.len(); // <think> in code stays text",
    "    }",
    "    println!(\"{total}\");",
    "}",
    "",
    "const LIMIT: usize = 1200;",
    "if (x < y && y > z) { return `tmpl`; }",
    "SELECT id, name FROM users WHERE active = 1;",
];

fn sentence(rng: &mut Rng, out: &mut String) {
    let words = rng.range(6, 16);
    for i in 0..words {
        let word = rng.pick(WORDS);
        if i == 0 {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.extend(first.to_uppercase());
                out.push_str(chars.as_str());
            }
        } else {
            out.push(' ');
            if rng.chance(4) {
                out.push('`');
                out.push_str(word);
                out.push('`');
            } else {
                out.push_str(word);
            }
        }
    }
    out.push_str(rng.pick(&[".", ".", ".", "!", "?"]));
}

fn paragraph(rng: &mut Rng, out: &mut String) {
    let sentences = rng.range(2, 8);
    for i in 0..sentences {
        if i > 0 {
            // Some prose is hard-wrapped, most is one long line.
            out.push(if rng.chance(15) { '\n' } else { ' ' });
        }
        sentence(rng, out);
    }
    out.push_str("\n\n");
}

fn list(rng: &mut Rng, out: &mut String) {
    let ordered = rng.chance(40);
    for i in 1..=rng.range(3, 8) {
        if ordered {
            out.push_str(&format!("{i}. "));
        } else {
            out.push_str("- ");
        }
        sentence(rng, out);
        out.push('\n');
    }
    out.push('\n');
}

fn fence(rng: &mut Rng, out: &mut String) {
    let marker = rng.pick(&["```", "```", "~~~", "````"]);
    out.push_str(marker);
    out.push_str(rng.pick(&["rust", "", "sql", "ts", "text"]));
    out.push('\n');
    // Mostly short blocks, sometimes one longer than `max_chars` that must be split.
    let lines = if rng.chance(15) {
        rng.range(60, 160)
    } else {
        rng.range(2, 20)
    };
    for _ in 0..lines {
        out.push_str(rng.pick(CODE_LINES));
        out.push('\n');
    }
    out.push_str(marker);
    out.push_str("\n\n");
}

fn think(rng: &mut Rng, out: &mut String) {
    let tag = rng.pick(&["think", "thinking", "Think"]);
    out.push_str(&format!("<{tag}>"));
    sentence(rng, out);
    out.push(' ');
    sentence(rng, out);
    out.push_str(&format!("</{tag}>"));
    // The answer follows the closing tag on the same line, as models write it; a block that
    // is not prose (a fence) would not open at a line start there.
    paragraph(rng, out);
}

/// A markdown reply of at least `bytes` bytes, the same for the same size on every run.
pub fn markdown(bytes: usize) -> String {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = String::with_capacity(bytes + 8 * 1024);
    let mut section = 0;
    while out.len() < bytes {
        match rng.range(0, 99) {
            0..=7 => {
                section += 1;
                out.push_str(&format!("## Section {section}\n\n"));
            }
            8..=54 => paragraph(&mut rng, &mut out),
            55..=72 => list(&mut rng, &mut out),
            73..=94 => fence(&mut rng, &mut out),
            _ => think(&mut rng, &mut out),
        }
    }
    out
}

/// `text` cut into deltas of `size` bytes, each extended to the next char boundary.
pub fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::with_capacity(text.len() / size + 1);
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}

/// The events around the deltas, built once so the loop measures only the subscription.
pub struct Frame {
    start: AgentEvent,
    text_start: AgentEvent,
    text_end: AgentEvent,
    end: AgentEvent,
}

impl Frame {
    pub fn new(text: &str) -> Self {
        let empty = AssistantMessage::empty("openai-completions", "openai", "gpt-5", 0);
        let mut full = empty.clone();
        full.content.push(ContentBlock::text(text));
        let update = |event| AgentEvent::MessageUpdate {
            assistant_message_event: event,
            message: None,
        };
        Self {
            start: AgentEvent::MessageStart {
                message: Arc::new(AgentMessage::Assistant(empty)),
            },
            text_start: update(AssistantMessageEvent::TextStart { content_index: 0 }),
            text_end: update(AssistantMessageEvent::TextEnd {
                content_index: 0,
                content: text.to_owned(),
                content_signature: None,
            }),
            end: AgentEvent::MessageEnd {
                message: Arc::new(AgentMessage::Assistant(full)),
            },
        }
    }
}

fn options() -> SubscriptionOptions {
    SubscriptionOptions {
        block_reply_break: BlockReplyBreak::TextEnd,
        chunking: Some(ChunkingOptions::default()),
        ..SubscriptionOptions::default()
    }
}

/// Streams `pieces` through a fresh subscription; returns the sink.
pub fn stream(frame: &Frame, pieces: &[&str]) -> CountingSink {
    let mut sub = Subscription::new(options(), CountingSink::default());
    sub.handle(&frame.start);
    sub.handle(&frame.text_start);
    // One event reused for every delta: refilling its string costs a copy of the delta, not
    // an allocation, so the measurement is the subscription's work.
    let mut event = AgentEvent::MessageUpdate {
        assistant_message_event: AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: String::with_capacity(64),
        },
        message: None,
    };
    for piece in pieces {
        if let AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::TextDelta { delta, .. },
            ..
        } = &mut event
        {
            delta.clear();
            delta.push_str(piece);
        }
        sub.handle(&event);
    }
    sub.handle(&frame.text_end);
    sub.handle(&frame.end);
    sub.into_sink()
}
