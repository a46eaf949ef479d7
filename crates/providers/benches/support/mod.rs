//! Recorded-style provider streams for the `decode` benchmark and the `decode_instr` and
//! `delta_allocs` examples, the full decode path they measure, and (in [`wire`]) the parse-only
//! baselines it is compared with.
//!
//! The bodies copy the shape of the real recordings in `../shared/fixtures/real/`
//! (`openai-chat/text_with_usage_chunk.sse`, `anthropic/text_prefill_stop_sequence.sse`): every
//! field a real server sends is there, because skipping unknown fields is part of the parse
//! being measured. The text deltas are one to four words, as models stream them, with
//! occasional punctuation, newlines, quotes and non-ASCII so the JSON needs escapes.
//! A fixed seed gives the same bytes on every run and machine.
//!
//! Generation writes into one growing buffer and reuses one scratch string, so it makes
//! O(log n) allocations: the example counts allocations of the whole process, and the
//! generator must not add a per-delta term of its own.

// Shared by the bench and the example; each uses only part of it.
#![allow(dead_code)]

use std::io::Write;

use clawloop_core::{AssistantMessage, AssistantMessageEvent, ModelCost};
use clawloop_providers::anthropic_messages::EventDecoder;
use clawloop_providers::openai_completions::ChunkDecoder;
use clawloop_providers::stream_driver::{BodyDecoder, Framing, Progress, WireDecoder};
use clawloop_providers::transport::{SseEvent, SseFramer};

pub mod many;
pub mod wire;

/// The transport's default event limit (issue 3).
const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// xorshift64*: no dependency, same stream for the same seed.
pub struct Rng(pub u64);

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
    "delta",
    "message",
    "event",
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
    "bounded",
    "state",
    "machine",
    "\"quoted\"",
    "🦞",
];

/// How long a generated stream is.
#[derive(Debug, Clone, Copy)]
pub enum Size {
    /// Exactly this many text deltas.
    Deltas(usize),
    /// Text deltas until the body has at least this many bytes.
    Bytes(usize),
}

impl Size {
    fn more(self, deltas: usize, bytes: usize) -> bool {
        match self {
            Size::Deltas(n) => deltas < n,
            Size::Bytes(n) => bytes < n,
        }
    }
}

/// The next text delta, written into `text`: one to four words, sometimes ending a sentence or
/// a paragraph.
fn next_delta(rng: &mut Rng, text: &mut String) {
    text.clear();
    for _ in 0..rng.range(1, 4) {
        text.push(' ');
        text.push_str(WORDS[rng.range(0, WORDS.len() - 1)]);
    }
    if rng.chance(8) {
        text.push('.');
        if rng.chance(25) {
            text.push_str("\n\n");
        }
    }
}

/// `len` letters and digits, like OpenAI's `obfuscation` padding.
fn write_padding(rng: &mut Rng, out: &mut Vec<u8>, len: usize) {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    for _ in 0..len {
        out.push(ALPHABET[rng.range(0, ALPHABET.len() - 1)]);
    }
}

/// The fields every recorded gpt-4o-mini chunk starts with, up to the `choices` array.
const OPENAI_HEAD: &str = r#"data: {"id":"chatcmpl-Dx0Xq5Xx9rHB2ehcHZCRDsnuymUXc","object":"chat.completion.chunk","created":1782955818,"model":"gpt-4o-mini-2024-07-18","service_tier":"default","system_fingerprint":"fp_d0469e1700","choices":"#;

/// Writes one chunk's tail after `choices`: `usage`, padding and the blank line.
fn openai_tail(rng: &mut Rng, out: &mut Vec<u8>, usage: &str) {
    out.extend_from_slice(br#","usage":"#);
    out.extend_from_slice(usage.as_bytes());
    out.extend_from_slice(br#","obfuscation":""#);
    let padding = rng.range(3, 12);
    write_padding(rng, out, padding);
    out.extend_from_slice(b"\"}\n\n");
}

/// A Chat Completions SSE body as OpenAI streams it with `stream_options.include_usage`: a
/// role chunk, the text deltas, the finish chunk, the usage chunk (`choices: []`) and
/// `[DONE]`. Returns the body and the number of text deltas in it.
pub fn openai_stream(size: Size, seed: u64) -> (Vec<u8>, usize) {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    let mut text = String::new();
    out.extend_from_slice(OPENAI_HEAD.as_bytes());
    out.extend_from_slice(br#"[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]"#);
    openai_tail(&mut rng, &mut out, "null");
    let mut deltas = 0;
    while size.more(deltas, out.len()) {
        next_delta(&mut rng, &mut text);
        out.extend_from_slice(OPENAI_HEAD.as_bytes());
        out.extend_from_slice(br#"[{"index":0,"delta":{"content":"#);
        push_json_string(&mut out, &text);
        out.extend_from_slice(br#"},"logprobs":null,"finish_reason":null}]"#);
        openai_tail(&mut rng, &mut out, "null");
        deltas += 1;
    }
    out.extend_from_slice(OPENAI_HEAD.as_bytes());
    out.extend_from_slice(br#"[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]"#);
    openai_tail(&mut rng, &mut out, "null");
    out.extend_from_slice(OPENAI_HEAD.as_bytes());
    out.extend_from_slice(b"[]");
    let usage = format!(
        r#"{{"prompt_tokens":78,"completion_tokens":{deltas},"total_tokens":{},"prompt_tokens_details":{{"cached_tokens":0,"audio_tokens":0}},"completion_tokens_details":{{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}}"#,
        deltas + 78
    );
    openai_tail(&mut rng, &mut out, &usage);
    out.extend_from_slice(b"data: [DONE]\n\n");
    (out, deltas)
}

/// A Messages API SSE body as Anthropic streams it: `message_start`, a text block with a
/// `ping` after its start, the text deltas, `content_block_stop`, `message_delta` and
/// `message_stop`. Returns the body and the number of text deltas in it.
pub fn anthropic_stream(size: Size, seed: u64) -> (Vec<u8>, usize) {
    let mut rng = Rng(seed);
    let mut out = Vec::new();
    let mut text = String::new();
    out.extend_from_slice(br#"event: message_start
data: {"type":"message_start","message":{"model":"claude-haiku-4-5-20251001","id":"msg_01KozUDYHvRtgs3NLgG7jzN9","type":"message","role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"stop_details":null,"usage":{"input_tokens":16,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"cache_creation":{"ephemeral_5m_input_tokens":0,"ephemeral_1h_input_tokens":0},"output_tokens":3,"service_tier":"standard","inference_geo":"not_available"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

"#);
    let mut deltas = 0;
    while size.more(deltas, out.len()) {
        next_delta(&mut rng, &mut text);
        out.extend_from_slice(
            br#"event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"#,
        );
        push_json_string(&mut out, &text);
        out.extend_from_slice(b"}}\n\n");
        deltas += 1;
    }
    out.extend_from_slice(
        br#"event: content_block_stop
data: {"type":"content_block_stop","index":0}

"#,
    );
    // `write!` into the Vec: no temporary string.
    let _ = write!(
        out,
        "event: message_delta\ndata: {{\"type\":\"message_delta\",\"delta\":{{\"stop_reason\":\"end_turn\",\"stop_sequence\":null,\"stop_details\":null}},\"usage\":{{\"input_tokens\":16,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":0,\"output_tokens\":{deltas}}}}}\n\n"
    );
    out.extend_from_slice(b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    (out, deltas)
}

/// Appends `text` as a JSON string literal.
fn push_json_string(out: &mut Vec<u8>, text: &str) {
    // Writing to a Vec cannot fail, and a `&str` always serializes.
    let _ = serde_json::to_writer(&mut *out, text);
}

/// Cuts `body` into reads of 4–16 KiB, as a TLS/HTTP stack hands them over.
pub fn reads(body: &[u8], seed: u64) -> Vec<&[u8]> {
    let mut rng = Rng(seed);
    let mut pieces = Vec::new();
    let mut rest = body;
    while !rest.is_empty() {
        let len = rng.range(4 * 1024, 16 * 1024).min(rest.len());
        let (piece, tail) = rest.split_at(len);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// The `data:` payloads (with event names) of `body`, framed once up front for the baselines.
pub fn frames(body: &[u8]) -> Result<Vec<SseEvent>, String> {
    let mut framer = SseFramer::new(MAX_EVENT_BYTES);
    let mut out = Vec::new();
    framer.feed(body, &mut out).map_err(|e| e.to_string())?;
    framer.finish(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

/// The `openai-completions` stream function's work on a 2xx body, without the socket.
/// Returns the final message.
pub fn decode_openai(reads: &[&[u8]]) -> Result<AssistantMessage, String> {
    let initial = AssistantMessage::empty("openai-completions", "openai", "gpt-4o-mini", 0);
    decode_body(
        ChunkDecoder::new(initial, ModelCost::default()),
        Framing::Sse,
        reads,
    )
}

/// [`decode_openai`] for `anthropic-messages`.
pub fn decode_anthropic(reads: &[&[u8]]) -> Result<AssistantMessage, String> {
    let initial = AssistantMessage::empty("anthropic-messages", "anthropic", "claude", 0);
    decode_body(
        EventDecoder::new(initial, ModelCost::default()),
        Framing::Sse,
        reads,
    )
}

/// The stream loop's body handling ([`BodyDecoder`]): each read is framed, each frame decoded
/// as it is framed, borrowed from the framer's buffers, and the events of the read handed on
/// (dropped here) before the next read.
pub fn decode_body<D: WireDecoder>(
    decoder: D,
    framing: Framing,
    reads: &[&[u8]],
) -> Result<AssistantMessage, String> {
    let mut body = BodyDecoder::new(decoder, framing, MAX_EVENT_BYTES);
    let mut out = Vec::new();
    let mut progress = Progress::More;
    for read in reads {
        progress = body.feed(read, &mut out).map_err(|e| e.to_string())?;
        out.clear();
        match progress {
            Progress::More => {}
            Progress::Complete => break,
        }
    }
    match progress {
        Progress::More => body.end(&mut out).map_err(|e| e.to_string())?,
        Progress::Complete => {}
    }
    body.into_decoder().finish(&mut out);
    final_message(out)
}

fn final_message(mut out: Vec<AssistantMessageEvent>) -> Result<AssistantMessage, String> {
    match out.pop() {
        Some(AssistantMessageEvent::Done { message, .. }) => Ok(*message),
        other => Err(format!("stream did not end with done: {other:?}")),
    }
}
