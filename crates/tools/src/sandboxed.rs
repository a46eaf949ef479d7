//! [`Sandboxed`]: a tool that always runs with a given sandbox in its context, whatever the
//! caller's context carries. The runner wraps its tool pool in it when the embedder sets a
//! sandbox, so the setting reaches every call without threading it through each layer.

use std::sync::Arc;

use clawloop_core::model::ToolDefinition;
use clawloop_core::sandbox::ToolSandbox;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// `inner` with `sandbox` put in the context of every call.
#[derive(Clone)]
pub struct Sandboxed {
    inner: Arc<dyn Tool>,
    sandbox: ToolSandbox,
}

impl std::fmt::Debug for Sandboxed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandboxed")
            .field("tool", &self.inner.name())
            .field("sandbox", &self.sandbox)
            .finish()
    }
}

impl Sandboxed {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Tool>, sandbox: ToolSandbox) -> Self {
        Sandboxed { inner, sandbox }
    }

    /// Every tool of `tools`, wrapped.
    pub fn all(tools: Vec<Arc<dyn Tool>>, sandbox: &ToolSandbox) -> Vec<Arc<dyn Tool>> {
        tools
            .into_iter()
            .map(|tool| Arc::new(Sandboxed::new(tool, sandbox.clone())) as Arc<dyn Tool>)
            .collect()
    }
}

impl Tool for Sandboxed {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn label(&self) -> &str {
        self.inner.label()
    }

    fn description(&self) -> &str {
        self.inner.description()
    }

    fn parameters(&self) -> &Value {
        self.inner.parameters()
    }

    fn is_mutating(&self) -> bool {
        self.inner.is_mutating()
    }

    fn definition(&self) -> ToolDefinition {
        self.inner.definition()
    }

    fn execute<'a>(
        &'a self,
        tool_call_id: &'a str,
        args: Value,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        let mut ctx = ctx.clone();
        ctx.sandbox = Some(self.sandbox.clone());
        Box::pin(async move {
            self.inner
                .execute(tool_call_id, args, &ctx, cancel, on_update)
                .await
        })
    }
}
