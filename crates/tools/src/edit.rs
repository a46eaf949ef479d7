//! The `edit` tool (pi-mono §3.7, matching per §3.7.1): replaces one unique occurrence of
//! `oldText` with `newText`, exactly or after fuzzy normalization, and reports a numbered diff.
//!
//! Unlike pi, only the matched bytes change: the BOM, every other line with its own line
//! ending, trailing whitespace and Unicode forms are written back as they were.

pub mod diff;
pub mod fuzzy;
pub mod line_endings;
pub mod replace;
pub mod source_map;

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, Purpose};
use crate::fs_error::node_message_no_path;
use crate::workspace::resolve_for_write;
use diff::{DEFAULT_CONTEXT_LINES, generate_diff_string};
use line_endings::{BOM, normalize_to_lf, strip_bom};
use replace::{ReplaceError, replace_unique};

/// pi's description of the tool.
const DESCRIPTION: &str = "Edit a file by replacing exact text. The oldText must match exactly (including whitespace). Use this for precise, surgical edits.";

/// Arguments of `edit`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// Path to the file to edit (relative or absolute)
    pub path: String,
    /// Exact text to find and replace (must match exactly)
    #[serde(rename = "oldText")]
    pub old_text: String,
    /// New text to replace the old text with
    #[serde(rename = "newText")]
    pub new_text: String,
}

/// The `edit` tool.
#[derive(Debug, Clone)]
pub struct EditTool {
    parameters: Value,
}

impl Default for EditTool {
    fn default() -> Self {
        EditTool::new()
    }
}

impl EditTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        EditTool {
            parameters: parameters_schema::<EditArgs>(),
        }
    }

    /// Applies one edit. Success text `Successfully replaced text in <path>.`, details
    /// `{diff, firstChangedLine}`; every refusal is an error with pi's text.
    pub async fn edit(
        &self,
        args: &EditArgs,
        ctx: &ToolContext,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let path = &args.path;
        let absolute = resolve_for_write(ctx, path)?;
        let job_ctx = ctx.clone();
        let job_path = path.clone();
        let (file, raw) = run_blocking("edit", ctx, cancel, move |_| {
            read_for_edit(&job_ctx, &absolute, &job_path)
        })
        .await?;
        let Ok(raw) = String::from_utf8(raw) else {
            // pi decodes lossily and would write U+FFFD over every invalid byte of the file;
            // refusing keeps the file intact.
            return Err(ToolError::Failed(format!(
                "Cannot edit {path}: the file is not valid UTF-8 text."
            )));
        };

        let (had_bom, content) = strip_bom(&raw);
        let replaced = match replace_unique(content, &args.old_text, &args.new_text) {
            Ok(replaced) => replaced,
            Err(err) => return Err(ToolError::Failed(refusal_text(err, path))),
        };

        let mut final_content = String::with_capacity(replaced.len() + 3);
        if had_bom {
            final_content.push(BOM);
        }
        final_content.push_str(&replaced);
        // Last point to give up; the write itself is not raced (a half-written file is worse
        // than a finished edit).
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        write_back(file, final_content.into_bytes()).await?;

        // The file's real change, shown with LF line breaks as pi shows it.
        let diff = generate_diff_string(
            &normalize_to_lf(content),
            &normalize_to_lf(&replaced),
            DEFAULT_CONTEXT_LINES,
        );
        let mut details = Map::new();
        details.insert("diff".to_owned(), Value::String(diff.diff));
        if let Some(line) = diff.first_changed_line {
            details.insert("firstChangedLine".to_owned(), Value::from(line));
        }
        Ok(ToolResult {
            details: Some(Value::Object(details)),
            ..ToolResult::text(format!("Successfully replaced text in {path}."))
        })
    }
}

/// pi's text for an edit that was refused.
fn refusal_text(err: ReplaceError, path: &str) -> String {
    match err {
        ReplaceError::NotFound => format!(
            "Could not find the exact text in {path}. The old text must match exactly including all whitespace and newlines."
        ),
        ReplaceError::Ambiguous(occurrences) => format!(
            "Found {occurrences} occurrences of the text in {path}. The text must be unique. Please provide more context to make it unique."
        ),
        ReplaceError::Unchanged => format!(
            "No changes made to {path}. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
        ),
    }
}

/// Opens the file for reading and writing inside the workspace (pi's `access(R_OK | W_OK)`: a
/// file that cannot be both is "not found") and reads it whole. The open file comes back so
/// the edit is written to the file that was read, not to whatever the path names by then.
fn read_for_edit(
    ctx: &ToolContext,
    absolute: &Path,
    path: &str,
) -> Result<(File, Vec<u8>), ToolError> {
    let read_error = |err: std::io::Error| ToolError::Io {
        message: node_message_no_path(&err, "read"),
        source: err,
    };
    let opened = Confinement::new(ctx)
        .open(absolute, Purpose::Edit)
        .map_err(|err| {
            err.into_tool_error(ctx, path, |err| {
                // A directory passes pi's access check and fails on the read that follows.
                if err.kind() == std::io::ErrorKind::IsADirectory {
                    read_error(err)
                } else {
                    ToolError::Failed(format!("File not found: {path}"))
                }
            })
        })?;
    let mut file = opened.file;
    let mut raw = Vec::new();
    file.read_to_end(&mut raw).map_err(read_error)?;
    Ok((file, raw))
}

/// Replaces the file's contents through the handle it was read from. Not raced against
/// cancellation: a half-written file is worse than a finished edit.
async fn write_back(file: File, content: Vec<u8>) -> Result<(), ToolError> {
    let written = tokio::task::spawn_blocking(move || {
        let mut file = file;
        file.seek(SeekFrom::Start(0))?;
        file.set_len(0)?;
        file.write_all(&content)
    })
    .await
    .map_err(|err| ToolError::Failed(format!("edit failed: {err}")))?;
    written.map_err(|err| ToolError::Io {
        message: node_message_no_path(&err, "write"),
        source: err,
    })
}

impl Tool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }

    fn label(&self) -> &str {
        "edit"
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
            let args: EditArgs = parse_args(args)?;
            crate::read_only::refuse_writes(ctx, "edit", &args.path)?;
            self.edit(&args, ctx, &cancel).await
        })
    }
}
