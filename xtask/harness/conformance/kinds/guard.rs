//! `guard` runner: context-window resolution and guard (reference §12).

use clawloop_core::context_window::{
    ContextWindowSource, ContextWindowSources, evaluate_context_window_guard,
    resolve_context_window_info,
};
use serde_json::json;

use super::wrong_spec;
use crate::conformance::compare::compare;
use crate::conformance::kind::Kind;
use crate::conformance::scenario::{Case, Spec};

/// Runs a `guard` case.
pub fn run(case: &Case) -> Result<(), String> {
    let Spec::Guard(input, _) = &case.spec else {
        return Err(wrong_spec(case, Kind::Guard));
    };
    let info = resolve_context_window_info(&ContextWindowSources {
        model_context_window: input.model_context_window,
        model_context_tokens: input.model_context_tokens,
        config_context_window: input.config_context_window,
        config_context_tokens: input.config_context_tokens,
        agent_context_tokens: input.agent_context_tokens,
    });
    let guard =
        evaluate_context_window_guard(&info, input.warn_below_tokens, input.hard_min_tokens);
    let actual = json!({
        "tokens": guard.tokens,
        "source": source_name(guard.source),
        "shouldWarn": guard.should_warn,
        "shouldBlock": guard.should_block,
    });
    compare(&case.expect, &actual).map_err(|m| m.to_string())
}

/// The scenario spelling of a source (FORMAT.md `guard`).
fn source_name(source: ContextWindowSource) -> &'static str {
    match source {
        ContextWindowSource::Model => "model",
        ContextWindowSource::ModelsConfig => "modelsConfig",
        ContextWindowSource::AgentContextTokens => "agentContextTokens",
        ContextWindowSource::Default => "default",
    }
}
