//! Hooks around one tool call, with pi's agent-loop semantics (pi-mono §2.3): `before_tool_call`
//! sees the validated arguments and may block the call (or, as OpenClaw's plugin hook may,
//! replace the arguments); `after_tool_call` sees the result and may replace its `content`,
//! `details` and `is_error` field by field.
//!
//! [`PluginHooks`] adapts core's lifecycle [`Hooks`] to this seam.

use std::sync::Arc;
use std::time::Duration;

use clawloop_core::hooks::{
    AfterToolCallEvent, BeforeToolCallEvent, HookContext, HookResult, Hooks,
};
use clawloop_core::message::{ContentBlock, ToolCall};
use clawloop_core::tool::{BoxFuture, ToolResult};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// What `before_tool_call` sees.
#[derive(Debug, Clone, Copy)]
pub struct BeforeToolCall<'a> {
    /// The call as the model made it.
    pub tool_call: &'a ToolCall,
    /// The validated (coerced) arguments the tool would receive.
    pub args: &'a Value,
}

/// A `before_tool_call` decision; the default lets the call run unchanged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BeforeToolCallOutcome {
    /// Do not run the tool; the model gets an error result.
    pub block: bool,
    /// The error text of a blocked call (default `Tool execution was blocked`).
    pub reason: Option<String>,
    /// Arguments to run the tool with instead (not validated again).
    pub args: Option<Value>,
}

/// What `after_tool_call` sees.
#[derive(Debug, Clone, Copy)]
pub struct AfterToolCall<'a> {
    /// The call as the model made it.
    pub tool_call: &'a ToolCall,
    /// The arguments the tool ran with.
    pub args: &'a Value,
    /// The result (an error result if the tool failed).
    pub result: &'a ToolResult,
    /// How long the tool ran.
    pub duration: Duration,
}

/// Replacements for a finished call's result; `None` fields keep the tool's value.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AfterToolCallOutcome {
    /// Replaces the content blocks.
    pub content: Option<Vec<ContentBlock>>,
    /// Replaces the details.
    pub details: Option<Value>,
    /// Replaces the error flag.
    pub is_error: Option<bool>,
}

impl AfterToolCallOutcome {
    /// `result` with this outcome's fields replaced.
    pub fn apply(self, mut result: ToolResult) -> ToolResult {
        if let Some(content) = self.content {
            result.content = content;
        }
        if let Some(details) = self.details {
            result.details = Some(details);
        }
        if let Some(is_error) = self.is_error {
            result.is_error = is_error;
        }
        result
    }
}

/// Hooks around each tool call. Both default to doing nothing.
///
/// A failing `before_tool_call` turns the call into an error result with the failure's text
/// (pi catches the throw the same way); a failing `after_tool_call` leaves the result as is.
pub trait ToolCallHooks: Send + Sync {
    /// May block the call or change its arguments.
    fn before_tool_call<'a>(
        &'a self,
        _call: BeforeToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<BeforeToolCallOutcome>>> {
        Box::pin(std::future::ready(Ok(None)))
    }

    /// May replace the result's content, details and error flag.
    fn after_tool_call<'a>(
        &'a self,
        _call: AfterToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<AfterToolCallOutcome>>> {
        Box::pin(std::future::ready(Ok(None)))
    }
}

/// Core's lifecycle hooks as [`ToolCallHooks`]: `before_tool_call` decides (block, reason,
/// replacement params); `after_tool_call` only observes (core's hook returns nothing).
#[derive(Clone)]
pub struct PluginHooks {
    hooks: Arc<dyn Hooks>,
    context: HookContext,
}

impl PluginHooks {
    /// Adapts `hooks`, calling them with `context`.
    pub fn new(hooks: Arc<dyn Hooks>, context: HookContext) -> Self {
        PluginHooks { hooks, context }
    }
}

impl std::fmt::Debug for PluginHooks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginHooks")
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

impl ToolCallHooks for PluginHooks {
    fn before_tool_call<'a>(
        &'a self,
        call: BeforeToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<BeforeToolCallOutcome>>> {
        Box::pin(async move {
            let event = BeforeToolCallEvent {
                tool_name: call.tool_call.name.clone(),
                tool_call_id: call.tool_call.id.clone(),
                params: call.args.clone(),
            };
            let decision = self.hooks.before_tool_call(&self.context, &event).await?;
            Ok(decision.map(|d| BeforeToolCallOutcome {
                block: d.block,
                reason: d.block_reason,
                args: d.params,
            }))
        })
    }

    fn after_tool_call<'a>(
        &'a self,
        call: AfterToolCall<'a>,
        _cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<AfterToolCallOutcome>>> {
        Box::pin(async move {
            let (result, is_error) = call.result.clone().into_parts();
            let error = is_error.then(|| clawloop_core::message::join_text(&result.content));
            let event = AfterToolCallEvent {
                tool_name: call.tool_call.name.clone(),
                tool_call_id: call.tool_call.id.clone(),
                params: call.args.clone(),
                result: Some(result),
                error,
                duration_ms: u64::try_from(call.duration.as_millis()).unwrap_or(u64::MAX),
            };
            self.hooks.after_tool_call(&self.context, &event).await?;
            Ok(None)
        })
    }
}
