//! The `write` tool (pi-mono §3.7): creates or overwrites a file, creating parent directories.

use std::io::Write;
use std::path::Path;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, OpenError, Purpose};
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
    ///
    /// The file is opened inside the workspace (no symlink on the way may lead out, even one
    /// swapped in meanwhile), checked to be a regular file on its descriptor, and only then
    /// truncated and written through that same descriptor.
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
        let job_ctx = ctx.clone();
        let raw = args.path.clone();
        let content = args.content.clone();
        run_blocking("write", ctx, cancel, move |stop| {
            write_file(&job_ctx, &absolute, &raw, content.as_bytes(), stop)
        })
        .await?;
        let units = args.content.encode_utf16().count();
        Ok(ToolResult::text(format!(
            "Successfully wrote {units} bytes to {}",
            args.path
        )))
    }
}

/// Opens (creating parents) and overwrites the file, with Node's error texts: `mkdir` on the
/// parent directory when it could not be made, `open` on the file otherwise.
fn write_file(
    ctx: &ToolContext,
    absolute: &Path,
    raw: &str,
    content: &[u8],
    stop: &CancellationToken,
) -> Result<(), ToolError> {
    let opened = Confinement::new(ctx).open(absolute, Purpose::Write);
    let opened = match opened {
        Ok(opened) => opened,
        Err(
            err @ (OpenError::Mkdir(_)
            | OpenError::Lookup {
                in_parent: true, ..
            }),
        ) => {
            let dir = absolute.parent().unwrap_or(absolute);
            return Err(err.into_tool_error(ctx, raw, |err| node_error(err, "mkdir", dir)));
        }
        Err(err) => {
            return Err(err.into_tool_error(ctx, raw, |err| node_error(err, "open", absolute)));
        }
    };
    // Last point to give up; the write itself is not interrupted (a half-written file is worse
    // than a finished write).
    if stop.is_cancelled() {
        return Err(ToolError::Aborted);
    }
    let mut file = opened.file;
    file.set_len(0)
        .and_then(|()| file.write_all(content))
        .map_err(|err| node_error(err, "write", absolute))
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
            crate::read_only::refuse_writes(ctx, "write", &args.path)?;
            self.write(&args, ctx, &cancel).await
        })
    }
}
