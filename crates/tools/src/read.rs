//! The `read` tool (pi-mono §3.7): a text file's lines (with `offset`/`limit` and head
//! truncation to the context's line and byte limits, ending in a notice that says how to go
//! on), or an image (detected by its bytes) as an image block.

pub mod image;
mod lossy;
pub mod path_variants;
mod window;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use base64::Engine;
use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{js_number, parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, Purpose};
use crate::file_kind::FileKind;
use crate::fs_error::{node_message, node_message_no_path};
use crate::js_format;
use crate::truncate::{TruncationOptions, TruncationResult, format_size};
use crate::workspace::resolve_path;
use image::detect_image_mime_type;
use path_variants::existing_variant;
use window::{LineRange, Window, read_window};

/// pi's description of the tool (with the default limits it states).
const DESCRIPTION: &str = "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete.";

/// Bytes that decide whether a file is an image (the longest signature, WebP's, is 12).
const SIGNATURE_BYTES: usize = 12;

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

/// What a file held, as far as the result needs it.
enum Content {
    /// An image, whole.
    Image {
        mime_type: &'static str,
        bytes: Vec<u8>,
    },
    /// A text file's line window.
    Text(Window),
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
    ///
    /// A text file is streamed: only the lines shown are kept, the others are counted, so the
    /// cost in memory is the output's whatever the file's size. Anything but a regular file
    /// (FIFO, device, socket) is refused without being read.
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
        let range = line_range(args);
        let options = TruncationOptions::from_limits(&ctx.limits);
        let job_ctx = ctx.clone();
        let raw = args.path.clone();
        let content = run_blocking("read", ctx, cancel, move |stop| {
            let absolute = existing_variant(&job_ctx, &resolved).unwrap_or(resolved);
            load(&job_ctx, &absolute, &raw, range, options, stop)
        })
        .await?;
        match content {
            Content::Image { mime_type, bytes } => {
                let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
                Ok(ToolResult {
                    content: vec![
                        ContentBlock::text(format!("Read image file [{mime_type}]")),
                        ContentBlock::image(data, mime_type),
                    ],
                    details: None,
                    is_error: false,
                })
            }
            Content::Text(window) => text_result(window, args, range, options),
        }
    }
}

/// pi's window arithmetic: JS `offset ? Math.max(0, offset - 1) : 0`, and a `limit` cut toward
/// zero (a negative or NaN one reads nothing); the float-to-usize casts saturate.
fn line_range(args: &ReadArgs) -> LineRange {
    let start = match args.offset {
        Some(offset) if offset != 0.0 && !offset.is_nan() => (offset - 1.0).max(0.0) as usize,
        _ => 0,
    };
    let count = args.limit.map(|limit| {
        if limit.is_nan() {
            0
        } else {
            limit.max(0.0) as usize
        }
    });
    LineRange { start, count }
}

/// Opens the file inside the workspace and reads what the result needs: an image whole, a
/// text file's window.
fn load(
    ctx: &ToolContext,
    absolute: &Path,
    raw: &str,
    range: LineRange,
    options: TruncationOptions,
    stop: &CancellationToken,
) -> Result<Content, ToolError> {
    let opened = Confinement::new(ctx)
        .open(absolute, Purpose::Read)
        .map_err(|err| {
            err.into_tool_error(ctx, raw, |err| ToolError::Io {
                message: node_message(&err, "access", absolute),
                source: err,
            })
        })?;
    let mut file = opened.file;
    if opened.kind == FileKind::Directory {
        // Node opens a directory and fails on the read.
        return Err(read_error(io::Error::from(io::ErrorKind::IsADirectory)));
    }
    let head = read_head(&mut file)?;
    if let Some(mime_type) = detect_image_mime_type(&head) {
        let mut bytes = head;
        file.read_to_end(&mut bytes).map_err(read_error)?;
        return Ok(Content::Image { mime_type, bytes });
    }
    Ok(Content::Text(read_window(
        &mut file, &head, range, options, stop,
    )?))
}

/// The first [`SIGNATURE_BYTES`] bytes (fewer in a shorter file).
fn read_head(file: &mut File) -> Result<Vec<u8>, ToolError> {
    let mut head = Vec::with_capacity(SIGNATURE_BYTES);
    file.by_ref()
        .take(SIGNATURE_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(read_error)?;
    Ok(head)
}

/// Node's text for a failed read of an open file.
fn read_error(err: io::Error) -> ToolError {
    ToolError::Io {
        message: node_message_no_path(&err, "read"),
        source: err,
    }
}

/// The text branch of pi's `read`: the window's truncation and the continuation notices.
fn text_result(
    window: Window,
    args: &ReadArgs,
    range: LineRange,
    options: TruncationOptions,
) -> Result<ToolResult, ToolError> {
    let total = window.total_lines;
    let start = range.start;
    if start >= total {
        let offset = js_format::number(args.offset.unwrap_or(0.0));
        return Err(ToolError::Failed(format!(
            "Offset {offset} is beyond end of file ({total} lines total)"
        )));
    }
    let start_display = start + 1;
    let user_limited = range
        .count
        .map(|wanted| start.saturating_add(wanted).min(total) - start);
    let truncation = window.truncation;
    let limit_text = format_size(options.max_bytes);

    if truncation.first_line_exceeds_limit {
        let line_size = format_size(window.first_line_bytes);
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
