//! `chunker` runner: the streaming block chunker (reference §19, SPEC §6).

use clawloop_subscribe::{BlockChunker, BreakPreference, ChunkingOptions};
use serde_json::json;

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::vocab;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `chunker` case: push each string (draining after each unless `drainEachPush` is
/// false), force-drain at the end when `forceAtEnd`, then compare chunks and the buffer.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Chunker(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Chunker));
    };
    let mut chunker = BlockChunker::new(ChunkingOptions {
        min_chars: char_count(input.min_chars),
        max_chars: char_count(input.max_chars),
        break_preference: match input.break_preference {
            vocab::BreakPreference::Paragraph => BreakPreference::Paragraph,
            vocab::BreakPreference::Newline => BreakPreference::Newline,
            vocab::BreakPreference::Sentence => BreakPreference::Sentence,
        },
        flush_on_paragraph: input.flush_on_paragraph.unwrap_or(false),
    });
    let mut chunks = Vec::new();
    for push in &input.pushes {
        chunker.push(push);
        if input.drain_each_push.unwrap_or(true) {
            chunker.drain(false, |c| chunks.push(c));
        }
    }
    if input.force_at_end.unwrap_or(false) {
        chunker.drain(true, |c| chunks.push(c));
    }
    let actual = json!({ "chunks": chunks, "buffer": chunker.buffer() });
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}

/// A scenario size as a char count: JS floors numbers; negatives and NaN become 0.
fn char_count(value: f64) -> usize {
    if value.is_finite() && value > 0.0 {
        // Floored and non-negative; saturating float-to-int casts keep huge values at usize::MAX.
        value.floor() as usize
    } else {
        0
    }
}
