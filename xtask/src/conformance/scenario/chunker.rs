//! `chunker` kind: the streaming block chunker.

use serde::Deserialize;

use super::vocab::BreakPreference;

/// Input of a `chunker` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChunkerInput {
    /// Minimum chunk size in chars.
    pub min_chars: f64,
    /// Maximum chunk size in chars.
    pub max_chars: f64,
    /// Preferred break point.
    pub break_preference: BreakPreference,
    /// Flush at paragraph breaks.
    pub flush_on_paragraph: Option<bool>,
    /// Text appended, one push at a time.
    pub pushes: Vec<String>,
    /// Drain (non-forced) after each push (default true).
    pub drain_each_push: Option<bool>,
    /// Force-drain after the last push (default false).
    pub force_at_end: Option<bool>,
}

/// Expect of a `chunker` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChunkerExpect {
    /// Emitted chunks, in order.
    pub chunks: Option<Vec<String>>,
    /// What is still buffered.
    pub buffer: Option<String>,
}
