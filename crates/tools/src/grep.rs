//! The `grep` tool (pi-mono §3.7): searches file contents with ripgrep's libraries instead of
//! an `rg` binary, and prints pi's output — `path:N: text` lines, context lines `path-N- text`,
//! a match limit and a byte limit with pi's notices.
//!
//! Walk rules (hidden files, ignore files, `.git`, symlinks, order) are those of
//! [`crate::confined_walk`], shared by both tools.

mod blocks;
mod format;
mod search;

use std::path::Path;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, OpenError, Opened, Purpose};
use crate::truncate::{
    GREP_MAX_LINE_LENGTH, TruncationResult, byte_limit_notice, result_with_notices,
};
use crate::workspace;
use blocks::Found;
use format::Output;
use search::{Pattern, Search, Searched, glob_filter, matcher, search};

/// pi's description of the tool, with the default limits filled in.
const DESCRIPTION: &str = "Search file contents for a pattern. Returns matching lines with file \
paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB \
(whichever is hit first). Long lines are truncated to 500 chars.";

/// pi's default match limit.
const DEFAULT_LIMIT: f64 = 100.0;

/// The most context lines shown around a match. A block of `2 * 1000 + 1` lines already fills
/// the 50 KB output; a larger context (`1e12`) would only cost time counting lines never shown.
const MAX_CONTEXT: u64 = 1000;

/// The most matching lines taken: far more than the output can show, few enough that the
/// blocks they produce are counted in bounded time.
const MAX_LIMIT: u64 = 100_000;

/// The arguments of `grep`, as pi names and describes them.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrepArgs {
    /// Search pattern (regex or literal string)
    pub pattern: String,
    /// Directory or file to search (default: current directory)
    #[serde(default)]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'
    #[serde(default)]
    #[schemars(with = "String")]
    pub glob: Option<String>,
    /// Case-insensitive search (default: false)
    #[serde(default)]
    #[schemars(with = "bool")]
    pub ignore_case: Option<bool>,
    /// Treat pattern as literal string instead of regex (default: false)
    #[serde(default)]
    #[schemars(with = "bool")]
    pub literal: Option<bool>,
    /// Number of lines to show before and after each match (default: 0)
    #[serde(default)]
    #[schemars(schema_with = "crate::args_schema::js_number")]
    pub context: Option<f64>,
    /// Maximum number of matches to return (default: 100)
    #[serde(default)]
    #[schemars(schema_with = "crate::args_schema::js_number")]
    pub limit: Option<f64>,
}

/// The `grep` tool.
#[derive(Debug, Clone)]
pub struct GrepTool {
    parameters: Value,
}

impl Default for GrepTool {
    fn default() -> Self {
        Self::new()
    }
}

impl GrepTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        GrepTool {
            parameters: parameters_schema::<GrepArgs>(),
        }
    }

    async fn run(
        &self,
        args: GrepArgs,
        ctx: &ToolContext,
        cancel: CancellationToken,
    ) -> Result<ToolResult, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        let raw_path = args
            .path
            .as_deref()
            .filter(|p| !p.is_empty())
            .unwrap_or(".");
        let root = workspace::resolve_path(ctx, raw_path)?;
        // pi: `context && context > 0 ? context : 0`; a fraction of a line is no line. Clamped:
        // the model's number must not decide how much work a call does.
        let context = args
            .context
            .filter(|c| *c > 0.0)
            // Saturating cast, then the clamp.
            .map_or(0, |c| (c.floor() as u64).min(MAX_CONTEXT));
        // pi: `Math.max(1, limit ?? 100)`, compared with a whole count: a fraction rounds up
        // (the same matches are shown); the cast saturates, the clamp bounds it.
        let limit = (args
            .limit
            .filter(|l| !l.is_nan())
            .unwrap_or(DEFAULT_LIMIT)
            .max(1.0)
            .ceil() as u64)
            .min(MAX_LIMIT);
        let pattern = Pattern {
            text: &args.pattern,
            ignore_case: args.ignore_case.unwrap_or(false),
            literal: args.literal.unwrap_or(false),
        };
        let matcher = matcher(&pattern).map_err(ToolError::Failed)?;
        let overrides = match args.glob.as_deref().filter(|g| !g.is_empty()) {
            Some(glob) => Some(glob_filter(&root, glob).map_err(ToolError::Failed)?),
            None => None,
        };

        let job_ctx = ctx.clone();
        let raw = raw_path.to_owned();
        let max_bytes = ctx.limits.max_output_bytes;
        let (found, truncation, lines_truncated) =
            run_blocking("grep", ctx, &cancel, move |stop| {
                let confinement = Confinement::new(&job_ctx);
                let opened = open_root(&job_ctx, &confinement, &root, &raw)?;
                let mut output = Output::new(max_bytes);
                let searched = Search {
                    root: &root,
                    matcher: &matcher,
                    context,
                    limit,
                };
                let found = search(
                    &searched,
                    Searched::of(opened),
                    overrides,
                    &confinement,
                    &mut output,
                    stop,
                );
                if stop.is_cancelled() {
                    return Err(ToolError::Aborted);
                }
                let (truncation, lines_truncated) = output.finish();
                Ok((found, truncation, lines_truncated))
            })
            .await?;
        Ok(render(&found, truncation, lines_truncated, limit))
    }
}

/// Opens the searched path inside the workspace (a link swapped in after the name check is
/// refused too); the search goes on from this descriptor. `None` for a path that exists but
/// cannot be opened: it yields nothing, as rg would.
fn open_root(
    ctx: &ToolContext,
    confinement: &Confinement,
    root: &Path,
    raw: &str,
) -> Result<Option<Opened>, ToolError> {
    match confinement.open(root, Purpose::Read) {
        Ok(opened) => Ok(Some(opened)),
        Err(OpenError::Open(_)) => Ok(None),
        Err(err) => Err(err.into_tool_error(ctx, raw, |_| {
            ToolError::Failed(format!("Path not found: {}", root.display()))
        })),
    }
}

/// The result text and details (pi's notices, in pi's order).
fn render(
    found: &Found,
    truncation: TruncationResult,
    lines_truncated: bool,
    limit: u64,
) -> ToolResult {
    if found.matches == 0 {
        return ToolResult::text("No matches found");
    }
    let mut notices = Vec::new();
    let mut details = Map::new();
    if found.limit_reached {
        notices.push(format!(
            "{limit} matches limit reached. Use limit={} for more, or refine pattern",
            limit.saturating_mul(2)
        ));
        details.insert("matchLimitReached".into(), Value::from(limit));
    }
    if truncation.truncated {
        notices.push(byte_limit_notice(truncation.max_bytes));
        details.insert(
            "truncation".into(),
            serde_json::to_value(&truncation).unwrap_or(Value::Null),
        );
    }
    if lines_truncated {
        notices.push(format!(
            "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        ));
        details.insert("linesTruncated".into(), Value::Bool(true));
    }
    result_with_notices(&truncation.content, &notices, details)
}

impl Tool for GrepTool {
    fn name(&self) -> &str {
        "grep"
    }

    fn label(&self) -> &str {
        "grep"
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
            let args: GrepArgs = parse_args(args)?;
            self.run(args, ctx, cancel).await
        })
    }
}
