//! The baselines the full decode path is measured against, shared by the `decode` bench and
//! the `decode_instr` example: copies of the decoders' own wire structs, field for field, so
//! the `typed` parse is exactly the parse the decoders do, and the payload filters.

use std::hint::black_box;

use clawloop_providers::transport::SseEvent;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Mirrors `openai_completions::decode::Chunk` and its parts field for field (same types, same
/// `default`s), so the `typed` baseline does exactly the decoder's parse.
// Parsed for the cost of it; the fields are never read.
#[allow(dead_code)]
pub mod openai_wire {
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
pub mod anthropic_wire {
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

/// The decoders' lenient counter (`usage_count::count`): the raw value, a usable number kept.
pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let raw = Box::<serde_json::value::RawValue>::deserialize(d)?;
    let text = raw.get().trim();
    Ok(text.parse::<u64>().ok().or_else(|| {
        let value: f64 = text.parse().ok()?;
        (value.is_finite() && value >= 0.0).then_some(value as u64)
    }))
}

/// The Anthropic decoder's lenient `index`.
pub fn lenient_index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(Value::deserialize(d)?.as_u64())
}

/// The payloads the decoders parse: `[DONE]` and `ping` are skipped unparsed by them too.
pub fn json_payloads(frames: &[SseEvent]) -> Vec<&str> {
    frames
        .iter()
        .filter(|f| f.data != "[DONE]" && f.event != "ping")
        .map(|f| f.data.as_str())
        .collect()
}

/// How many payloads parse into `serde_json::Value` (the "serde_json alone").
pub fn parse_values(payloads: &[&str]) -> usize {
    payloads
        .iter()
        .filter(|p| black_box(serde_json::from_str::<Value>(p)).is_ok())
        .count()
}

/// How many payloads parse into `T`, one of the mirrors above.
pub fn parse_typed<T: for<'de> Deserialize<'de>>(payloads: &[&str]) -> usize {
    payloads
        .iter()
        .filter(|p| black_box(serde_json::from_str::<T>(p)).is_ok())
        .count()
}
