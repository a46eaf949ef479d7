//! The plugin tool hooks as the runner installs them: core's hooks adapted by the tools crate,
//! except that a failing plugin hook only warns (OpenClaw's plugin runner catches it) — a
//! broken `before_tool_call` never turns a call into an error result, it lets it run as asked.

use clawloop_core::hooks::HookResult;
use clawloop_core::tool::BoxFuture;
use clawloop_tools::call_hooks::{
    AfterToolCall, AfterToolCallOutcome, BeforeToolCall, BeforeToolCallOutcome, PluginHooks,
    ToolCallHooks,
};
use tokio_util::sync::CancellationToken;

/// [`PluginHooks`] whose failures are logged and ignored.
#[derive(Debug, Clone)]
pub struct WarnOnFailure(pub PluginHooks);

impl ToolCallHooks for WarnOnFailure {
    fn before_tool_call<'a>(
        &'a self,
        call: BeforeToolCall<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<BeforeToolCallOutcome>>> {
        Box::pin(async move {
            let name = call.tool_call.name.clone();
            match self.0.before_tool_call(call, cancel).await {
                Ok(outcome) => Ok(outcome),
                Err(err) => {
                    tracing::warn!(target: "clawloop::hooks", "before_tool_call hook failed: tool={name} error={err}");
                    Ok(None)
                }
            }
        })
    }

    fn after_tool_call<'a>(
        &'a self,
        call: AfterToolCall<'a>,
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, HookResult<Option<AfterToolCallOutcome>>> {
        Box::pin(async move {
            let name = call.tool_call.name.clone();
            match self.0.after_tool_call(call, cancel).await {
                Ok(outcome) => Ok(outcome),
                Err(err) => {
                    tracing::warn!(target: "clawloop::hooks", "after_tool_call hook failed: tool={name} error={err}");
                    Ok(None)
                }
            }
        })
    }
}
