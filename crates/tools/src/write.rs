//! The `write` tool (pi-mono §3.7): creates or overwrites a file, creating parent directories.

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::fs_error::node_error;
use crate::workspace::resolve_for_write;

/// pi's description of the tool.
const DESCRIPTION: &str = "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.";

/// Arguments of `write`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct WriteArgs {
    /// Path to the file to write (relative or absolute)
    pub path: String,
    /// Content to write to the file
    pub content: String,
}

/// The `write` tool.
#[derive(Debug, Clone)]
pub struct WriteTool {
    parameters: Value,
}

impl Default for WriteTool {
    fn default() -> Self {
        WriteTool::new()
    }
}

impl WriteTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        WriteTool {
            parameters: parameters_schema::<WriteArgs>(),
        }
    }

    /// Writes `args.content` to `args.path`, creating missing parent directories.
    ///
    /// Success text: `Successfully wrote <n> bytes to <path>`, where `n` is the content's
    /// length in UTF-16 units (JS `content.length`, which pi reports as bytes).
    pub async fn write(
        &self,
        args: &WriteArgs,
        ctx: &ToolContext,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let absolute = resolve_for_write(ctx, &args.path)?;
        if let Some(dir) = absolute.parent() {
            let created = tokio::select! {
                biased;
                () = cancel.cancelled() => return Err(ToolError::Aborted),
                created = tokio::fs::create_dir_all(dir) => created,
            };
            created.map_err(|err| node_error(err, "mkdir", dir))?;
        }
        // Checked once more, and the write itself not raced: abandoning it half-way would leave
        // a truncated file behind.
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        tokio::fs::write(&absolute, args.content.as_bytes())
            .await
            .map_err(|err| node_error(err, "open", &absolute))?;
        let units = args.content.encode_utf16().count();
        Ok(ToolResult::text(format!(
            "Successfully wrote {units} bytes to {}",
            args.path
        )))
    }
}

impl Tool for WriteTool {
    fn name(&self) -> &str {
        "write"
    }

    fn label(&self) -> &str {
        "write"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn execute<'a>(
        &'a self,
        _tool_call_id: &'a str,
        args: Value,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        _on_update: ToolUpdate,
    ) -> BoxFuture<'a, Result<ToolResult, ToolError>> {
        Box::pin(async move {
            let args: WriteArgs = parse_args(args)?;
            self.write(&args, ctx, &cancel).await
        })
    }
}
