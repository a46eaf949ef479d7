//! `tags` kind: the think/final tag filter.

use serde::Deserialize;

/// Input of a `tags` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TagsInput {
    /// Stream chunks, in order.
    pub chunks: Vec<String>,
    /// Only text inside `<final>` is visible.
    pub enforce_final_tag: Option<bool>,
}

/// Expect of a `tags` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagsExpect {
    /// The visible text, exactly.
    pub text: Option<String>,
}
