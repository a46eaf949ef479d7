//! Lifecycle hooks (SPEC §8.9, reference openclaw-runner §23): plugin points the runner calls
//! around model resolution, prompt building, model calls, tool calls and compaction.
//!
//! Decision hooks (`before_*`) are awaited and may change what happens; a failing decision hook
//! only produces a warning. Observer hooks (`llm_input`, `llm_output`, `after_tool_call`,
//! `after_compaction`, `agent_end`) are fire-and-forget: the runner may run them detached and
//! only logs their errors. Events are plain owned data so an observer can be moved into a task.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::Usage;
use crate::message::{AgentMessage, AssistantMessage};
use crate::tool::{AgentToolResult, BoxFuture};

/// The error a hook reports; the runner logs it and carries on.
pub type HookError = Box<dyn std::error::Error + Send + Sync>;

/// What a hook returns.
pub type HookResult<T> = Result<T, HookError>;

/// Which run a hook call belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookContext {
    /// The agent id (`main` by default).
    pub agent_id: String,
    /// The session key, when the run has one.
    pub session_key: Option<String>,
    /// The session id.
    pub session_id: String,
    /// The run id.
    pub run_id: String,
    /// The workspace directory.
    pub workspace_dir: Option<PathBuf>,
}

/// `before_model_resolve`: called before the model is looked up.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeModelResolveEvent {
    /// The user's prompt.
    pub prompt: String,
}

/// A provider or model chosen by a hook; fields left `None` keep the run's choice.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelOverride {
    /// Provider id to use instead.
    pub provider: Option<String>,
    /// Model id to use instead.
    pub model: Option<String>,
}

/// `before_prompt_build` and `before_agent_start`: the prompt about to be sent and the history.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptBuildEvent {
    /// The user's prompt.
    pub prompt: String,
    /// The conversation so far.
    pub messages: Arc<[AgentMessage]>,
}

/// Changes to the prompt and system prompt; `None` fields change nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptBuildResult {
    /// Replaces the system prompt.
    pub system_prompt: Option<String>,
    /// Placed before the prompt, separated by `"\n\n"`.
    pub prepend_context: Option<String>,
    /// Placed before the system prompt.
    pub prepend_system_context: Option<String>,
    /// Placed after the system prompt.
    pub append_system_context: Option<String>,
}

/// The legacy `before_agent_start` answer: prompt changes and a model override in one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentStartResult {
    /// Placed before the prompt, separated by `"\n\n"`.
    pub prepend_context: Option<String>,
    /// Replaces the system prompt.
    pub system_prompt: Option<String>,
    /// Provider or model to use instead.
    pub model_override: ModelOverride,
}

/// `llm_input`: a model call is about to be made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmInputEvent {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// The system prompt sent.
    pub system_prompt: Option<String>,
    /// The user's prompt.
    pub prompt: String,
    /// The history sent before the prompt.
    pub history_messages: Arc<[AgentMessage]>,
    /// Images attached to the prompt.
    pub images_count: usize,
}

/// `llm_output`: the run's model calls are done.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LlmOutputEvent {
    /// Provider id.
    pub provider: String,
    /// Model id.
    pub model: String,
    /// The visible assistant texts of the run.
    pub assistant_texts: Vec<String>,
    /// The last assistant message.
    pub last_assistant: Option<Arc<AssistantMessage>>,
    /// Usage summed over the run.
    pub usage: Usage,
}

/// `before_tool_call`: a tool is about to run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeToolCallEvent {
    /// The tool name.
    pub tool_name: String,
    /// The call id.
    pub tool_call_id: String,
    /// The validated arguments.
    pub params: Value,
}

/// A `before_tool_call` decision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolCallDecision {
    /// Arguments to use instead.
    pub params: Option<Value>,
    /// Do not run the tool; the model gets an error result.
    pub block: bool,
    /// The error text for a blocked call (default `Tool execution was blocked`).
    pub block_reason: Option<String>,
}

/// `after_tool_call`: a tool call finished.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AfterToolCallEvent {
    /// The tool name.
    pub tool_name: String,
    /// The call id.
    pub tool_call_id: String,
    /// The arguments it ran with.
    pub params: Value,
    /// The result, when the tool produced one.
    pub result: Option<AgentToolResult>,
    /// The error text, when it failed.
    pub error: Option<String>,
    /// How long it ran.
    pub duration_ms: u64,
}

/// `before_compaction` and `after_compaction`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactionEvent {
    /// Messages in the session (before, or after, compaction).
    pub message_count: usize,
    /// Messages summarized away (after compaction only).
    pub compacted_count: Option<usize>,
    /// Context tokens, when known.
    pub token_count: Option<u64>,
    /// The session file.
    pub session_file: Option<PathBuf>,
}

/// `agent_end`: the run is over.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AgentEndEvent {
    /// The run's messages.
    pub messages: Arc<[AgentMessage]>,
    /// Whether the run succeeded.
    pub success: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// How long it took.
    pub duration_ms: u64,
}

fn done<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, HookResult<T>> {
    Box::pin(std::future::ready(Ok(value)))
}

/// Lifecycle hooks. Every method has a no-op default, so an implementation overrides only
/// what it needs; the runner holds them as `Arc<dyn Hooks>`.
pub trait Hooks: Send + Sync {
    /// May override the provider or model before the model is resolved.
    fn before_model_resolve<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a BeforeModelResolveEvent,
    ) -> BoxFuture<'a, HookResult<Option<ModelOverride>>> {
        done(None)
    }

    /// May change the prompt and system prompt; wins over `before_agent_start` for the
    /// system prompt, the other fields are joined.
    fn before_prompt_build<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<PromptBuildResult>>> {
        done(None)
    }

    /// Legacy hook: may prepend context to the prompt (`prependContext + "\n\n" + prompt`),
    /// replace the system prompt or override the model. A failure only warns.
    fn before_agent_start<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a PromptBuildEvent,
    ) -> BoxFuture<'a, HookResult<Option<AgentStartResult>>> {
        done(None)
    }

    /// Observes a model call's input.
    fn llm_input<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a LlmInputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }

    /// Observes the run's model output.
    fn llm_output<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a LlmOutputEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }

    /// May block a tool call or change its arguments.
    fn before_tool_call<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a BeforeToolCallEvent,
    ) -> BoxFuture<'a, HookResult<Option<ToolCallDecision>>> {
        done(None)
    }

    /// Observes a finished tool call.
    fn after_tool_call<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a AfterToolCallEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }

    /// Observes the start of a compaction.
    fn before_compaction<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }

    /// Observes a finished compaction.
    fn after_compaction<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a CompactionEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }

    /// Observes the end of a run.
    fn agent_end<'a>(
        &'a self,
        _ctx: &'a HookContext,
        _event: &'a AgentEndEvent,
    ) -> BoxFuture<'a, HookResult<()>> {
        done(())
    }
}

/// Hooks that do nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;
    use std::task::{Context, Poll, Waker};

    fn now<T>(mut fut: BoxFuture<'_, T>) -> T {
        match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(v) => v,
            Poll::Pending => panic!("hook future was pending"),
        }
    }

    struct BlockBash;

    impl Hooks for BlockBash {
        fn before_tool_call<'a>(
            &'a self,
            _ctx: &'a HookContext,
            event: &'a BeforeToolCallEvent,
        ) -> BoxFuture<'a, HookResult<Option<ToolCallDecision>>> {
            Box::pin(async move {
                Ok((event.tool_name == "bash").then(|| ToolCallDecision {
                    block: true,
                    block_reason: Some("no shell".into()),
                    ..ToolCallDecision::default()
                }))
            })
        }

        fn agent_end<'a>(
            &'a self,
            _ctx: &'a HookContext,
            _event: &'a AgentEndEvent,
        ) -> BoxFuture<'a, HookResult<()>> {
            Box::pin(async { Err("observer failed".into()) })
        }
    }

    #[test]
    fn defaults_do_nothing_and_overrides_apply() {
        let ctx = HookContext::default();
        let bash = BeforeToolCallEvent {
            tool_name: "bash".into(),
            tool_call_id: "c".into(),
            params: json!({}),
        };
        let read = BeforeToolCallEvent {
            tool_name: "read".into(),
            ..bash.clone()
        };
        let none: Arc<dyn Hooks> = Arc::new(NoHooks);
        let blocker: Arc<dyn Hooks> = Arc::new(BlockBash);

        assert_eq!(now(none.before_tool_call(&ctx, &bash)).unwrap(), None);
        assert_eq!(
            now(none.before_agent_start(&ctx, &PromptBuildEvent::default())).unwrap(),
            None
        );
        assert!(now(none.agent_end(&ctx, &AgentEndEvent::default())).is_ok());

        let decision = now(blocker.before_tool_call(&ctx, &bash)).unwrap();
        assert_eq!(
            decision,
            Some(ToolCallDecision {
                params: None,
                block: true,
                block_reason: Some("no shell".into())
            })
        );
        assert_eq!(now(blocker.before_tool_call(&ctx, &read)).unwrap(), None);
        let err = now(blocker.agent_end(&ctx, &AgentEndEvent::default())).unwrap_err();
        assert_eq!(err.to_string(), "observer failed");
        assert_eq!(
            now(blocker.before_model_resolve(&ctx, &BeforeModelResolveEvent::default())).unwrap(),
            None
        );
    }
}
