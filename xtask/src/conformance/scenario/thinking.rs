//! `thinking` kind: thinking-level fallback (reference §17).

use clawloop_core::ThinkLevel;
use serde::Deserialize;

/// Input of a `thinking` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThinkingInput {
    /// The provider's error text.
    pub message: String,
    /// Levels already tried.
    pub attempted: Vec<ThinkLevel>,
}

/// Expect of a `thinking` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThinkingExpect {
    /// The level to try next, or null.
    pub level: Option<ThinkLevel>,
}
