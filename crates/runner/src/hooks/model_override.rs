//! The run-start hooks (reference §4.1 item 5, §23): `before_model_resolve`, then the legacy
//! `before_agent_start`, both before the model is resolved. Either may name another provider or
//! model; the new hook wins field by field. A failing hook only warns.

use std::sync::Arc;

use clawloop_core::hooks::{
    AgentStartResult, BeforeModelResolveEvent, HookContext, Hooks, ModelOverride, PromptBuildEvent,
};

/// What the run-start hooks decided.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunStartHooks {
    /// The provider and model to use instead of the run's (merged, blanks dropped).
    pub model_override: ModelOverride,
    /// The legacy hook's whole answer, reused when the attempt builds the prompt.
    pub agent_start: Option<AgentStartResult>,
}

/// Calls `before_model_resolve` and `before_agent_start` once each, in that order.
pub async fn resolve_model_override(
    hooks: &Arc<dyn Hooks>,
    ctx: &HookContext,
    prompt: &str,
) -> RunStartHooks {
    let resolve_event = BeforeModelResolveEvent {
        prompt: prompt.to_owned(),
    };
    let chosen = match hooks.before_model_resolve(ctx, &resolve_event).await {
        Ok(chosen) => chosen,
        Err(err) => {
            tracing::warn!(target: "clawloop::hooks", "before_model_resolve hook failed: {err}");
            None
        }
    };
    // OpenClaw calls the legacy hook here with the prompt only: the history is not loaded yet.
    let start_event = PromptBuildEvent {
        prompt: prompt.to_owned(),
        messages: Arc::from(Vec::new()),
    };
    let agent_start = match hooks.before_agent_start(ctx, &start_event).await {
        Ok(result) => result,
        Err(err) => {
            tracing::warn!(target: "clawloop::hooks", "before_agent_start hook failed: {err}");
            None
        }
    };
    RunStartHooks {
        model_override: merge_model_override(
            chosen.as_ref(),
            agent_start.as_ref().map(|a| &a.model_override),
        ),
        agent_start,
    }
}

/// `preferred` field by field over `legacy`; a blank field counts as not set.
pub fn merge_model_override(
    preferred: Option<&ModelOverride>,
    legacy: Option<&ModelOverride>,
) -> ModelOverride {
    let pick = |field: fn(&ModelOverride) -> &Option<String>| {
        [preferred, legacy]
            .into_iter()
            .flatten()
            .filter_map(|o| field(o).as_deref().map(str::trim))
            .find(|v| !v.is_empty())
            .map(str::to_owned)
    };
    ModelOverride {
        provider: pick(|o| &o.provider),
        model: pick(|o| &o.model),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn o(provider: Option<&str>, model: Option<&str>) -> ModelOverride {
        ModelOverride {
            provider: provider.map(str::to_owned),
            model: model.map(str::to_owned),
        }
    }

    #[test]
    fn the_new_hook_wins_field_by_field() {
        assert_eq!(
            merge_model_override(Some(&o(None, Some("m2"))), Some(&o(Some("p1"), Some("m1")))),
            o(Some("p1"), Some("m2"))
        );
        assert_eq!(
            merge_model_override(Some(&o(Some(" "), None)), Some(&o(Some("p1"), None))),
            o(Some("p1"), None)
        );
        assert_eq!(merge_model_override(None, None), o(None, None));
    }
}
