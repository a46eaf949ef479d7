//! The turn's run scope: what every run of one session binding shares, worked out once from
//! the agent's setup ([`TurnEnv`]), the user's request ([`TurnRequest`]) and the binding;
//! each fallback candidate only adds its model and the fallback chain's two facts.

use std::sync::Arc;

use clawloop_core::session_index::SessionBinding;
use clawloop_core::tool::Tool;

use crate::config::seconds;
use crate::fallback::ModelCandidate;
use crate::prompt::PromptMode;
use crate::run::RunRequest;
use crate::subagent::{SessionsSpawnTool, is_subagent_session_key};
use crate::turn::env::TurnEnv;
use crate::turn::run::TurnRequest;

/// The facts of a turn's runs on one binding. A transient retry binds again and builds a new
/// scope; the candidates of one fallback chain share it.
pub(crate) struct RunScope {
    /// Every field but the candidate's (`provider`, `model`, `fallback_configured`,
    /// `allow_transient_cooldown_probe`), which [`RunScope::for_candidate`] sets.
    shared: RunRequest,
}

impl RunScope {
    /// The scope of `request`'s runs on `binding`.
    pub(crate) fn new(
        env: &TurnEnv,
        request: &TurnRequest,
        run_id: &str,
        binding: &SessionBinding,
    ) -> Self {
        let defaults = env.config.defaults();
        let key = &request.session_key;
        let shared = RunRequest {
            run_id: run_id.to_owned(),
            agent_id: env.agent_id.clone(),
            session_key: Some(key.clone()),
            session_id: binding.session_id.clone(),
            session_file: binding.session_file.clone(),
            workspace_dir: env.workspace_dir.clone(),
            home_dir: env.home_dir.clone(),
            prompt: request.prompt.clone(),
            images: request.images.clone(),
            client_tools: request.client_tools.clone(),
            extra_system_prompt: request.extra_system_prompt.clone(),
            prompt_mode: if is_subagent_session_key(key) {
                PromptMode::Minimal
            } else {
                PromptMode::Full
            },
            prompt_profile: env.prompt_profile,
            system_prompt: request.system_prompt.clone(),
            max_tool_rounds: Some(request.max_tool_rounds.unwrap_or(defaults.max_tool_rounds))
                .filter(|rounds| *rounds > 0),
            provider: String::new(),
            model: String::new(),
            thinking: request
                .thinking
                .or_else(|| {
                    binding
                        .overrides
                        .thinking_level
                        .as_deref()
                        .and_then(|level| level.parse().ok())
                })
                .unwrap_or(defaults.thinking_default),
            locked_profile: request.locked_profile.clone(),
            fallback_configured: false,
            allow_transient_cooldown_probe: false,
            config: env.config.clone(),
            tools: turn_tools(env, key),
            sandbox: env.sandbox.clone(),
            approval: env.approval.clone(),
            timeout: request
                .timeout
                .or_else(|| seconds(defaults.timeout_seconds)),
            hooks: env.hooks.clone(),
            clock: env.runtime.clock().clone(),
            timezone: env.timezone.clone(),
            auth: Some(env.auth.clone()),
            provider_factory: env.provider_factory.clone(),
            env: env.env.clone(),
            cli_queue: env.runtime.cli_queue().clone(),
        };
        RunScope { shared }
    }

    /// The run request for `candidate`: the scope with the candidate's model and whether
    /// another model follows it (`fallback_configured`) and its resting profiles may be
    /// probed (`allow_transient_cooldown_probe`), as the fallback chain decides.
    pub(crate) fn for_candidate(
        &self,
        candidate: &ModelCandidate,
        fallback_configured: bool,
        allow_transient_cooldown_probe: bool,
    ) -> RunRequest {
        RunRequest {
            provider: candidate.provider.clone(),
            model: candidate.model.clone(),
            fallback_configured,
            allow_transient_cooldown_probe,
            ..self.shared.clone()
        }
    }
}

/// The env's tools, plus `sessions_spawn` bound to this turn when the runtime offers subagents
/// and the session may still spawn.
fn turn_tools(env: &TurnEnv, session_key: &str) -> Vec<Arc<dyn Tool>> {
    let mut tools = env.tools.clone();
    if let Some(spawn) = SessionsSpawnTool::for_turn(env, session_key)
        && !tools.iter().any(|t| t.name() == spawn.name())
    {
        tools.push(spawn);
    }
    tools
}
