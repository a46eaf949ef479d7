//! Phase D's prompt building: the prompt hooks (`before_prompt_build`, then the legacy
//! `before_agent_start`; a failing hook only warns) and the system prompt from the tools, the
//! skills list, the workspace's context files and the runtime.

use std::sync::Arc;

use clawloop_core::hooks::{HookContext, Hooks, PromptBuildEvent};
use clawloop_core::model::ToolDefinition;

use crate::attempt::spec::AttemptSpec;
use crate::prompt::context_files::{ContextBudget, load_context_files, load_project_context_files};
use crate::prompt::{
    HourFormat, PromptProfile, RuntimeInfo, SystemPrompt, SystemPromptParams, ToolSummary,
    UserTime, build_system_prompt_with_report,
};
use crate::run::RunRequest;

/// What the prompt hooks asked for, merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookedPrompt {
    /// Placed before the prompt with `"\n\n"`.
    pub prepend_context: Option<String>,
    /// Replaces the built system prompt.
    pub system_prompt: Option<String>,
    /// Placed before the system prompt.
    pub prepend_system_context: Option<String>,
    /// Placed after the system prompt.
    pub append_system_context: Option<String>,
}

/// Runs both prompt hooks. `before_prompt_build` wins for the system prompt; prepended contexts
/// are joined in hook order.
pub async fn run_prompt_hooks(
    hooks: &Arc<dyn Hooks>,
    ctx: &HookContext,
    event: &PromptBuildEvent,
) -> HookedPrompt {
    let mut hooked = HookedPrompt::default();
    let mut prepend = Vec::new();
    match hooks.before_prompt_build(ctx, event).await {
        Ok(Some(result)) => {
            prepend.extend(result.prepend_context);
            hooked.system_prompt = result.system_prompt;
            hooked.prepend_system_context = result.prepend_system_context;
            hooked.append_system_context = result.append_system_context;
        }
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(target: "clawloop::hooks", "before_prompt_build hook failed: {err}")
        }
    }
    match hooks.before_agent_start(ctx, event).await {
        Ok(Some(result)) => {
            prepend.extend(result.prepend_context);
            if hooked.system_prompt.is_none() {
                hooked.system_prompt = result.system_prompt;
            }
        }
        Ok(None) => {}
        Err(err) => {
            tracing::warn!(target: "clawloop::hooks", "before_agent_start hook failed: {err}")
        }
    }
    let prepend: Vec<String> = prepend
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .collect();
    if !prepend.is_empty() {
        hooked.prepend_context = Some(prepend.join("\n\n"));
    }
    hooked
}

/// Builds the system prompt (context files read on the blocking pool), then applies the hooks'
/// replacement and wrapping.
pub async fn build(
    run: &RunRequest,
    spec: &AttemptSpec,
    tools: &[ToolDefinition],
    skills_prompt: &str,
    hooked: &HookedPrompt,
) -> SystemPrompt {
    let workspace = run.workspace_dir.clone();
    let mode = run.prompt_mode;
    let profile = run.prompt_profile;
    let loaded = tokio::task::spawn_blocking(move || match profile {
        PromptProfile::Gateway => load_context_files(&workspace, mode, ContextBudget::default()),
        PromptProfile::Coding => load_project_context_files(&workspace, ContextBudget::default()),
    })
    .await
    .unwrap_or_default();
    for warning in &loaded.warnings {
        tracing::warn!(target: "clawloop::prompt", "{warning}");
    }
    let prompt_params = SystemPromptParams {
        mode,
        workspace_dir: run.workspace_dir.clone(),
        tools: ToolSummary::from_definitions(tools),
        runtime: RuntimeInfo {
            os: Some(std::env::consts::OS.to_owned()),
            arch: Some(std::env::consts::ARCH.to_owned()),
            ..RuntimeInfo::default()
        }
        .with_model(&spec.model.provider, &spec.model.id),
        think_level: spec.thinking,
        user_time: Some(UserTime::now(
            run.timezone.clone(),
            run.clock.as_ref(),
            HourFormat::default(),
        )),
        skills_prompt: (!skills_prompt.is_empty()).then(|| skills_prompt.to_owned()),
        extra_system_prompt: run.extra_system_prompt.clone(),
        context_files: loaded.files,
        profile,
        custom_prompt: run.system_prompt.clone(),
        ..SystemPromptParams::default()
    };
    let mut built = build_system_prompt_with_report(&prompt_params);
    if let Some(replacement) = &hooked.system_prompt {
        built.text = replacement.trim().to_owned();
    }
    if let Some(before) = hooked
        .prepend_system_context
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        built.text = format!("{before}\n\n{}", built.text);
    }
    if let Some(after) = hooked
        .append_system_context
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        built.text = format!("{}\n\n{after}", built.text);
    }
    built
}
