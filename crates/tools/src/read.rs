//! The `read` tool (pi-mono §3.7): a text file's lines (with `offset`/`limit` and head
//! truncation to the context's line and byte limits, ending in a notice that says how to go
//! on), or an image (detected by its bytes) as an image block.

pub mod image;
pub mod path_variants;

use std::path::Path;

use base64::Engine;
use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

use crate::args_schema::{js_number, parameters_schema, parse_args};
use crate::fs_error::{node_message, node_message_no_path};
use crate::js_format;
use crate::truncate::{TruncationOptions, TruncationResult, format_size, truncate_head};
use crate::workspace::resolve_path;
use image::detect_image_mime_type;
use path_variants::existing_variant;

/// pi's description of the tool (with the default limits it states).
const DESCRIPTION: &str = "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.";

/// Arguments of `read`. `offset` and `limit` are JSON numbers as in pi; fractions are cut
/// toward zero and a negative `limit` reads nothing.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// Path to the file to read (relative or absolute)
    pub path: String,
    /// Line number to start reading from (1-indexed)
    #[serde(default)]
    #[schemars(schema_with = "js_number")]
    pub offset: Option<f64>,
    /// Maximum number of lines to read
    #[serde(default)]
    #[schemars(schema_with = "js_number")]
    pub limit: Option<f64>,
}

/// The `read` tool.
#[derive(Debug, Clone)]
pub struct ReadTool {
    parameters: Value,
}

impl Default for ReadTool {
    fn default() -> Self {
        ReadTool::new()
    }
}

impl ReadTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        ReadTool {
            parameters: parameters_schema::<ReadArgs>(),
        }
    }

    /// Reads one file. Images come back as `[text "Read image file [<mime>]", image]`; text as
    /// one text block, with `details.truncation` when the limits cut it.
    pub async fn read(
        &self,
        args: &ReadArgs,
        ctx: &ToolContext,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let resolved = resolve_path(ctx, &args.path)?;
        let absolute = existing_variant(ctx, &resolved).unwrap_or(resolved);
        let bytes = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::Aborted),
            bytes = read_file(&absolute) => bytes?,
        };
        if let Some(mime_type) = detect_image_mime_type(&bytes) {
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            return Ok(ToolResult {
                content: vec![
                    ContentBlock::text(format!("Read image file [{mime_type}]")),
                    ContentBlock::image(data, mime_type),
                ],
                details: None,
                is_error: false,
            });
        }
        // Node's `buffer.toString("utf-8")`: invalid sequences become U+FFFD, as here.
        let text = String::from_utf8_lossy(&bytes);
        read_text(&text, args, ctx)
    }
}

/// Opens (pi's `access` check) and reads the whole file, with Node's error texts.
async fn read_file(absolute: &Path) -> Result<Vec<u8>, ToolError> {
    let mut file = tokio::fs::File::open(absolute)
        .await
        .map_err(|err| ToolError::Io {
            message: node_message(&err, "access", absolute),
            source: err,
        })?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .await
        .map_err(|err| ToolError::Io {
            message: node_message_no_path(&err, "read"),
            source: err,
        })?;
    Ok(bytes)
}

/// The text branch of pi's `read`: line window, head truncation and the continuation notices.
fn read_text(text: &str, args: &ReadArgs, ctx: &ToolContext) -> Result<ToolResult, ToolError> {
    // Lines as JS `split("\n")` counts them; the window is sliced out of the text rather than
    // split and re-joined, so a large file is not copied line by line.
    let total = text.bytes().filter(|b| *b == b'\n').count() + 1;
    // JS `offset ? Math.max(0, offset - 1) : 0`; the float-to-usize cast saturates.
    let start = match args.offset {
        Some(offset) if offset != 0.0 && !offset.is_nan() => (offset - 1.0).max(0.0) as usize,
        _ => 0,
    };
    if start >= total {
        let offset = js_format::number(args.offset.unwrap_or(0.0));
        return Err(ToolError::Failed(format!(
            "Offset {offset} is beyond end of file ({total} lines total)"
        )));
    }
    let start_display = start + 1;
    let (end, user_limited) = match args.limit {
        Some(limit) => {
            let wanted = if limit.is_nan() {
                0
            } else {
                limit.max(0.0) as usize
            };
            let end = start.saturating_add(wanted).min(total);
            (end, Some(end - start))
        }
        None => (total, None),
    };
    let selected = line_window(text, start, end);

    let options = TruncationOptions::from_limits(&ctx.limits);
    let truncation = truncate_head(selected, options);
    let limit_text = format_size(options.max_bytes);

    if truncation.first_line_exceeds_limit {
        let line_size = format_size(selected.split('\n').next().map_or(0, str::len));
        let text = format!(
            "[Line {start_display} is {line_size}, exceeds {limit_text} limit. Use bash: sed -n '{start_display}p' {} | head -c {}]",
            args.path, options.max_bytes
        );
        return with_truncation(text, &truncation);
    }
    if truncation.truncated {
        let end_display = start_display + truncation.output_lines - 1;
        let next = end_display + 1;
        let notice = if truncation.truncated_by == Some(crate::truncate::TruncatedBy::Lines) {
            format!(
                "\n\n[Showing lines {start_display}-{end_display} of {total}. Use offset={next} to continue.]"
            )
        } else {
            format!(
                "\n\n[Showing lines {start_display}-{end_display} of {total} ({limit_text} limit). Use offset={next} to continue.]"
            )
        };
        return with_truncation(format!("{}{notice}", truncation.content), &truncation);
    }
    if let Some(count) = user_limited
        && start + count < total
    {
        let remaining = total - (start + count);
        let next = start + count + 1;
        return Ok(ToolResult::text(format!(
            "{}\n\n[{remaining} more lines in file. Use offset={next} to continue.]",
            truncation.content
        )));
    }
    Ok(ToolResult::text(truncation.content))
}

/// Lines `start..end` (0-based, as `split("\n")` numbers them) of `text`, joined by their
/// newlines; empty when `start >= end`.
fn line_window(text: &str, start: usize, end: usize) -> &str {
    if start >= end {
        return "";
    }
    let mut begin = 0;
    let mut finish = text.len();
    // Newline number `line` ends line `line` and starts line `line + 1`.
    for (line, (index, _)) in text.match_indices('\n').enumerate() {
        if line + 1 == start {
            begin = index + 1;
        }
        if line + 1 == end {
            finish = index;
            break;
        }
    }
    text.get(begin..finish).unwrap_or_default()
}

/// A text result with `details: {truncation}`.
fn with_truncation(text: String, truncation: &TruncationResult) -> Result<ToolResult, ToolError> {
    let value = serde_json::to_value(truncation)
        .map_err(|err| ToolError::Failed(format!("Cannot describe the truncation: {err}")))?;
    let mut details = Map::new();
    details.insert("truncation".to_owned(), value);
    Ok(ToolResult {
        details: Some(Value::Object(details)),
        ..ToolResult::text(text)
    })
}

impl Tool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }

    fn label(&self) -> &str {
        "read"
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn is_mutating(&self) -> bool {
        false
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
            let args: ReadArgs = parse_args(args)?;
            self.read(&args, ctx, &cancel).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    /// The slice equals pi's `lines.slice(start, end).join("\n")` for every window.
    #[test]
    fn line_window_matches_split_and_join() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "\n\nx\n\n",
            "é\n😀\nz",
        ] {
            let lines: Vec<&str> = text.split('\n').collect();
            for start in 0..=lines.len() + 1 {
                for end in 0..=lines.len() {
                    let expected = if start < end {
                        lines[start..end].join("\n")
                    } else {
                        String::new()
                    };
                    assert_eq!(
                        line_window(text, start, end),
                        expected,
                        "{text:?} {start}..{end}"
                    );
                }
            }
        }
    }
}
