//! The `ls` tool (pi-mono §3.7): a directory's entries, dotfiles included, sorted
//! case-insensitively, directories suffixed `/`, cut at an entry limit and the byte limit.

pub mod collate;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use rustix::fs::{AtFlags, Dir};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{js_number, parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, OpenError, Purpose};
use crate::file_kind::FileKind;
use crate::fs_error::node_message;
use crate::js_format;
use crate::truncate::{TruncationOptions, byte_limit_notice, result_with_notices, truncate_head};
use crate::workspace::resolve_path;
use collate::compare_names;

/// pi's default entry limit.
pub const DEFAULT_LIMIT: f64 = 500.0;

/// JS `Number.MAX_SAFE_INTEGER`.
const MAX_SAFE_INTEGER: usize = 9_007_199_254_740_991;

/// pi's description of the tool (with the default limits it states).
const DESCRIPTION: &str = "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first).";

/// Arguments of `ls`.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct LsArgs {
    /// Directory to list (default: current directory)
    #[serde(default)]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Maximum number of entries to return (default: 500)
    #[serde(default)]
    #[schemars(schema_with = "js_number")]
    pub limit: Option<f64>,
}

/// The `ls` tool.
#[derive(Debug, Clone)]
pub struct LsTool {
    parameters: Value,
}

impl Default for LsTool {
    fn default() -> Self {
        LsTool::new()
    }
}

/// What listing a directory produced before formatting.
struct Listing {
    entries: Vec<String>,
    limit_reached: bool,
}

impl LsTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        LsTool {
            parameters: parameters_schema::<LsArgs>(),
        }
    }

    /// Lists one directory. `(empty directory)` when nothing is listed; notices `<L> entries
    /// limit reached. Use limit=<2L> for more` and `50.0KB limit reached`, with
    /// `details: {entryLimitReached?, truncation?}`.
    pub async fn ls(
        &self,
        args: &LsArgs,
        ctx: &ToolContext,
        cancel: &CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        // JS `path || "."`: an empty string lists the cwd too.
        let raw = match args.path.as_deref() {
            Some(path) if !path.is_empty() => path,
            _ => ".",
        };
        let dir = resolve_path(ctx, raw)?;
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);

        let job_ctx = ctx.clone();
        let raw = raw.to_owned();
        let listing = run_blocking("ls", ctx, cancel, move |stop| {
            list(&job_ctx, &dir, &raw, limit, stop)
        })
        .await?;

        if listing.entries.is_empty() {
            return Ok(ToolResult::text("(empty directory)"));
        }
        // pi passes `Number.MAX_SAFE_INTEGER` (the entry limit already bounds the lines); the
        // same value keeps `details.truncation.maxLines` identical.
        let options = TruncationOptions {
            max_lines: MAX_SAFE_INTEGER,
            max_bytes: ctx.limits.max_output_bytes,
        };
        let truncation = truncate_head(&listing.entries.join("\n"), options);
        let mut notices = Vec::new();
        let mut details = Map::new();
        if listing.limit_reached {
            notices.push(format!(
                "{} entries limit reached. Use limit={} for more",
                js_format::number(limit),
                js_format::number(limit * 2.0)
            ));
            details.insert("entryLimitReached".to_owned(), js_number_value(limit));
        }
        if truncation.truncated {
            notices.push(byte_limit_notice(options.max_bytes));
            let value = serde_json::to_value(&truncation).map_err(|err| {
                ToolError::Failed(format!("Cannot describe the truncation: {err}"))
            })?;
            details.insert("truncation".to_owned(), value);
        }
        Ok(result_with_notices(&truncation.content, &notices, details))
    }
}

/// Reads, sorts and marks the entries of `dir`, stopping at `limit` listed entries. Runs on a
/// blocking thread and gives up early when `cancel` fires.
///
/// The directory is opened inside the workspace and read through its descriptor; entries are
/// looked up relative to it, so a link swapped in on the way cannot redirect the listing.
fn list(
    ctx: &ToolContext,
    dir: &Path,
    raw: &str,
    limit: f64,
    cancel: &CancellationToken,
) -> Result<Listing, ToolError> {
    let cannot_read = |err: std::io::Error| {
        ToolError::Failed(format!(
            "Cannot read directory: {}",
            node_message(&err, "scandir", dir)
        ))
    };
    // `existsSync` and `statSync` follow symlinks: a dangling link is "not found".
    let opened = match Confinement::new(ctx).open(dir, Purpose::Directory) {
        Ok(opened) => opened,
        Err(OpenError::NotDirectory | OpenError::Special(_)) => {
            return Err(ToolError::Failed(format!(
                "Not a directory: {}",
                dir.display()
            )));
        }
        Err(err @ OpenError::Open(_)) => {
            return Err(err.into_tool_error(ctx, raw, cannot_read));
        }
        Err(err) => {
            return Err(err.into_tool_error(ctx, raw, |_| {
                ToolError::Failed(format!("Path not found: {}", dir.display()))
            }));
        }
    };
    let handle = opened.file;
    let mut names = Vec::new();
    for entry in Dir::read_from(&handle).map_err(|err| cannot_read(err.into()))? {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let entry = entry.map_err(|err| cannot_read(err.into()))?;
        let name = OsStr::from_bytes(entry.file_name().to_bytes());
        if name == "." || name == ".." {
            continue;
        }
        names.push(name.to_string_lossy().into_owned());
    }
    names.sort_by(|a, b| compare_names(a, b));

    let mut entries = Vec::new();
    let mut limit_reached = false;
    for name in names {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        // JS `results.length >= effectiveLimit`, with the limit a (possibly fractional) number.
        if entries.len() as f64 >= limit {
            limit_reached = true;
            break;
        }
        // pi skips entries it cannot stat (dangling symlinks among them); like `statSync` the
        // lookup follows a link, only to tell whether it names a directory.
        let Ok(stat) = rustix::fs::statat(&handle, name.as_str(), AtFlags::empty()) else {
            continue;
        };
        entries.push(if FileKind::of(&stat) == FileKind::Directory {
            format!("{name}/")
        } else {
            name
        });
    }
    Ok(Listing {
        entries,
        limit_reached,
    })
}

/// A JSON number written as JS writes it (an integral limit as an integer).
fn js_number_value(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() <= MAX_SAFE_INTEGER as f64 {
        // Integral and within the exactly representable range, so the cast is lossless.
        Value::from(value as i64)
    } else {
        Value::from(value)
    }
}

impl Tool for LsTool {
    fn name(&self) -> &str {
        "ls"
    }

    fn label(&self) -> &str {
        "ls"
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
            let args: LsArgs = parse_args(args)?;
            self.ls(&args, ctx, &cancel).await
        })
    }
}
