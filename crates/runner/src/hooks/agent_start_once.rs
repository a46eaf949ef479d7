//! The legacy `before_agent_start` is called once per run, before the model is resolved, and
//! its answer is reused when each attempt builds its prompt (reference §23). The run hands its
//! attempts the hooks wrapped in [`AgentStartOnce`], which answers `before_agent_start` from
//! that first call and passes every other hook through.

use std::sync::Arc;

use clawloop_core::hooks::{
    AfterToolCallEvent, AgentEndEvent, AgentStartResult, BeforeModelResolveEvent,
    BeforeToolCallEvent, CompactionEvent, HookContext, HookResult, Hooks, LlmInputEvent,
    LlmOutputEvent, ModelOverride, PromptBuildEvent, PromptBuildResult, ToolCallDecision,
};
use clawloop_core::tool::BoxFuture;

/// Hooks whose `before_agent_start` answer is already known.
pub struct AgentStartOnce {
    inner: Arc<dyn Hooks>,
    agent_start: Option<AgentStartResult>,
}

impl AgentStartOnce {
    /// `inner`, with `agent_start` as the answer of its legacy hook.
    pub fn new(inner: Arc<dyn Hooks>, agent_start: Option<AgentStartResult>) -> Self {
        AgentStartOnce { inner, agent_start }
    }
}

impl Hooks for AgentStartOnce {
    fn before_model_resolve<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a BeforeModelResolveEvent,
    ) -> BoxFuture<'a, HookResult<Option<ModelOverride>>> {
        self.inner.before_model_resolve(ctx, event)
    }

    fn before_prompt_build<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<PromptBuildResult>>> {
        self.inner.before_prompt_build(ctx, event)
    }

    fn before_agent_start<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<AgentStartResult>>> {
        Box::pin(std::future::ready(Ok(self.agent_start.clone())))
    }

    fn llm_input<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a LlmInputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.llm_input(ctx, event)
    }

    fn llm_output<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a LlmOutputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.llm_output(ctx, event)
    }

    fn before_tool_call<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a BeforeToolCallEvent,
    ) -> BoxFuture<'a, HookResult<Option<ToolCallDecision>>> {
        self.inner.before_tool_call(ctx, event)
    }

    fn after_tool_call<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a AfterToolCallEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.after_tool_call(ctx, event)
    }

    fn before_compaction<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.before_compaction(ctx, event)
    }

    fn after_compaction<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.after_compaction(ctx, event)
    }

    fn agent_end<'a>(
        &'a self,
        ctx: &'a HookContext,
        event: &'a AgentEndEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        self.inner.agent_end(ctx, event)
    }
}
