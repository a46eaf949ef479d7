//! `guard` kind: context-window resolution and guard (reference §12).

use serde::Deserialize;

use super::vocab::WindowSource;

/// Input of a `guard` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GuardInput {
    /// The model's `contextWindow`.
    pub model_context_window: Option<f64>,
    /// The model's `contextTokens`.
    pub model_context_tokens: Option<f64>,
    /// `models.providers` entry's `contextWindow`.
    pub config_context_window: Option<f64>,
    /// `models.providers` entry's `contextTokens`.
    pub config_context_tokens: Option<f64>,
    /// `agents.defaults.contextTokens`.
    pub agent_context_tokens: Option<f64>,
    /// Warn threshold override.
    pub warn_below_tokens: Option<f64>,
    /// Block threshold override.
    pub hard_min_tokens: Option<f64>,
}

/// Expect of a `guard` case.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GuardExpect {
    /// Resolved tokens.
    pub tokens: Option<f64>,
    /// Where they came from.
    pub source: Option<WindowSource>,
    /// Below the warn threshold.
    pub should_warn: Option<bool>,
    /// Below the hard minimum.
    pub should_block: Option<bool>,
}
