//! The file tools under a `read-only` sandbox: `write` and `edit` refuse before touching
//! anything, so the model learns at once that no change is possible this turn.

use clawloop_core::tool::{ToolContext, ToolError};

/// An error when the context's sandbox is `read-only`: `tool` may not change `path`.
pub(crate) fn refuse_writes(ctx: &ToolContext, tool: &str, path: &str) -> Result<(), ToolError> {
    match &ctx.sandbox {
        Some(sandbox) if sandbox.is_read_only() => Err(ToolError::Failed(format!(
            "Refused: the sandbox is read-only, so {tool} cannot change {path}."
        ))),
        _ => Ok(()),
    }
}
