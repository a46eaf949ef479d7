//! Instruction counts of the full decode path against the decoder's own typed parse (issue 3,
//! "Benchmarks"): the `decode` bench's ratio, measured with callgrind, which is stable on a
//! busy machine where wall and CPU time are not.
//!
//! ```text
//! cargo build --release -p clawloop-providers --example decode_instr
//! for mode in full typed; do
//!   valgrind --tool=callgrind --toggle-collect='decode_instr::run' \
//!     target/release/examples/decode_instr anthropic $mode 20000
//! done
//! ```
//!
//! `full / typed` of the two `Collected` totals is the bench's `full/typed` ratio.

// An example: a broken setup should stop the run loudly.
#![allow(clippy::unwrap_used)]

#[path = "../benches/support/mod.rs"]
mod support;

use std::hint::black_box;

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use support::Size;

/// Mirrors `openai_completions::decode::Chunk` and its parts field for field (same types, same
/// `default`s), so the `typed` baseline does exactly the decoder's parse.
// Parsed for the cost of it; the fields are never read.
#[allow(dead_code)]
mod openai_wire {
    use super::{Deserialize, Value, count};

    #[derive(Deserialize)]
    pub struct Chunk {
        #[serde(default)]
        pub choices: Option<Vec<Choice>>,
        #[serde(default)]
        pub usage: Option<Usage>,
        #[serde(default)]
        pub error: Option<Value>,
    }

    #[derive(Deserialize)]
    pub struct Choice {
        #[serde(default)]
        pub delta: Option<Delta>,
        #[serde(default)]
        pub message: Option<Delta>,
        #[serde(default)]
        pub finish_reason: Option<String>,
        #[serde(default)]
        pub usage: Option<Usage>,
    }

    #[derive(Deserialize)]
    pub struct Delta {
        #[serde(default)]
        pub content: Option<Value>,
        #[serde(default)]
        pub reasoning_content: Option<Value>,
        #[serde(default)]
        pub reasoning: Option<Value>,
        #[serde(default)]
        pub reasoning_text: Option<Value>,
        #[serde(default)]
        pub tool_calls: Option<Vec<Value>>,
        #[serde(default)]
        pub reasoning_details: Option<Vec<Value>>,
    }

    #[derive(Deserialize)]
    pub struct Usage {
        #[serde(default, deserialize_with = "count")]
        pub prompt_tokens: Option<u64>,
        #[serde(default, deserialize_with = "count")]
        pub completion_tokens: Option<u64>,
        #[serde(default)]
        pub prompt_tokens_details: Option<Details>,
    }

    #[derive(Deserialize)]
    pub struct Details {
        #[serde(default, deserialize_with = "count")]
        pub cached_tokens: Option<u64>,
        #[serde(default, deserialize_with = "count")]
        pub cache_write_tokens: Option<u64>,
    }
}

/// Mirrors `anthropic_messages::decode::WireEvent` and its parts.
// Parsed for the cost of it; the fields are never read.
#[allow(dead_code)]
mod anthropic_wire {
    use super::{Deserialize, Value, count, lenient_index};

    #[derive(Deserialize)]
    pub struct WireEvent {
        #[serde(rename = "type", default)]
        pub kind: Option<String>,
        #[serde(default, deserialize_with = "lenient_index")]
        pub index: Option<u64>,
        #[serde(default)]
        pub message: Option<Message>,
        #[serde(default)]
        pub content_block: Option<Block>,
        #[serde(default)]
        pub delta: Option<Delta>,
        #[serde(default)]
        pub usage: Option<Usage>,
    }

    #[derive(Deserialize)]
    pub struct Message {
        #[serde(default)]
        pub usage: Option<Usage>,
    }

    #[derive(Deserialize)]
    pub struct Block {
        #[serde(rename = "type", default)]
        pub kind: Option<String>,
        #[serde(default)]
        pub text: Option<String>,
        #[serde(default)]
        pub thinking: Option<String>,
        #[serde(default)]
        pub signature: Option<String>,
        #[serde(default)]
        pub data: Option<String>,
        #[serde(default)]
        pub id: Option<String>,
        #[serde(default)]
        pub name: Option<String>,
        #[serde(default)]
        pub input: Option<Value>,
    }

    #[derive(Deserialize)]
    pub struct Delta {
        #[serde(rename = "type", default)]
        pub kind: Option<String>,
        #[serde(default)]
        pub text: Option<String>,
        #[serde(default)]
        pub thinking: Option<String>,
        #[serde(default)]
        pub partial_json: Option<String>,
        #[serde(default)]
        pub signature: Option<String>,
        #[serde(default)]
        pub stop_reason: Option<String>,
    }

    #[derive(Deserialize)]
    pub struct Usage {
        #[serde(default, deserialize_with = "count")]
        pub input_tokens: Option<u64>,
        #[serde(default, deserialize_with = "count")]
        pub output_tokens: Option<u64>,
        #[serde(default, deserialize_with = "count")]
        pub cache_read_input_tokens: Option<u64>,
        #[serde(default, deserialize_with = "count")]
        pub cache_creation_input_tokens: Option<u64>,
    }
}

/// The decoders' lenient counter: any JSON value, a number kept.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        _ => None,
    })
}

/// The Anthropic decoder's lenient `index`.
fn lenient_index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

fn typed<T: for<'de> Deserialize<'de>>(payloads: &[&str]) -> usize {
    payloads
        .iter()
        .filter(|p| black_box(serde_json::from_str::<T>(p)).is_ok())
        .count()
}

/// The measured work, the only function callgrind collects in.
#[inline(never)]
fn run(api: &str, full: bool, reads: &[&[u8]], payloads: &[&str]) -> usize {
    match (api, full) {
        ("openai", true) => support::decode_openai(reads).unwrap().text().len(),
        ("anthropic", true) => support::decode_anthropic(reads).unwrap().text().len(),
        ("openai", false) => typed::<openai_wire::Chunk>(payloads),
        _ => typed::<anthropic_wire::WireEvent>(payloads),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let api = args.get(1).map_or("anthropic", String::as_str);
    let full = args.get(2).map_or("full", String::as_str) == "full";
    let deltas: usize = args.get(3).and_then(|n| n.parse().ok()).unwrap_or(20_000);
    let body = match api {
        "openai" => support::openai_stream(Size::Deltas(deltas), 1).0,
        _ => support::anthropic_stream(Size::Deltas(deltas), 1).0,
    };
    let reads = support::reads(&body, 2);
    let frames = support::frames(&body).unwrap();
    let payloads: Vec<&str> = frames
        .iter()
        .filter(|f| f.data != "[DONE]" && f.event != "ping")
        .map(|f| f.data.as_str())
        .collect();
    println!("{}", black_box(run(api, full, &reads, &payloads)));
}
