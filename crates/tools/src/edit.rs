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

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::fs_error::{node_error, node_message_no_path};
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
        let raw = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::Aborted),
            raw = read_for_edit(&absolute, path) => raw?,
        };
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
        tokio::fs::write(&absolute, final_content.as_bytes())
            .await
            .map_err(|err| node_error(err, "open", &absolute))?;

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

/// Opens the file for reading and writing (pi's `access(R_OK | W_OK)`: a file that cannot be
/// both is "not found") and reads it whole.
async fn read_for_edit(absolute: &std::path::Path, path: &str) -> Result<Vec<u8>, ToolError> {
    let not_found = || ToolError::Failed(format!("File not found: {path}"));
    // A FIFO or device would block the read (a FIFO opened read-write never reaches its end),
    // leaving a thread stuck past cancellation; only regular files and directories (for pi's
    // EISDIR text) go on.
    match tokio::fs::metadata(absolute).await {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            return Err(ToolError::Failed(format!("Not a regular file: {path}")));
        }
        Ok(_) => {}
        Err(_) => return Err(not_found()),
    }
    let mut file = match tokio::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(absolute)
        .await
    {
        Ok(file) => file,
        // A directory passes pi's access check and fails on the read that follows.
        Err(err) if err.kind() == std::io::ErrorKind::IsADirectory => {
            return Err(ToolError::Io {
                message: node_message_no_path(&err, "read"),
                source: err,
            });
        }
        Err(_) => return Err(not_found()),
    };
    let mut raw = Vec::new();
    file.read_to_end(&mut raw)
        .await
        .map_err(|err| ToolError::Io {
            message: node_message_no_path(&err, "read"),
            source: err,
        })?;
    Ok(raw)
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
            self.edit(&args, ctx, &cancel).await
        })
    }
}
