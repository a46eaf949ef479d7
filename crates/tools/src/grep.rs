//! The `grep` tool (pi-mono §3.7): searches file contents with ripgrep's libraries instead of
//! an `rg` binary, and prints pi's output — `path:N: text` lines, context lines `path-N- text`,
//! a match limit and a byte limit with pi's notices.
//!
//! Walk rules (hidden files, ignore files, `.git`, symlinks, order) are those of
//! `find`'s walker module, shared by both tools.

mod format;
mod search;

use std::path::PathBuf;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::truncate::{
    GREP_MAX_LINE_LENGTH, TruncationOptions, byte_limit_notice, result_with_notices, truncate_head,
};
use crate::workspace;
use format::format_blocks;
use search::{Found, Pattern, glob_filter, matcher, search};

/// pi's description of the tool, with the default limits filled in.
const DESCRIPTION: &str = "Search file contents for a pattern. Returns matching lines with file \
paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB \
(whichever is hit first). Long lines are truncated to 500 chars.";

/// pi's default match limit.
const DEFAULT_LIMIT: f64 = 100.0;

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
        let Ok(meta) = std::fs::metadata(&root) else {
            return Err(ToolError::Failed(format!(
                "Path not found: {}",
                root.display()
            )));
        };
        let is_dir = meta.is_dir();
        // pi: `context && context > 0 ? context : 0`; a fraction of a line is no line.
        let context = args
            .context
            .filter(|c| *c > 0.0)
            // Saturating cast: an absurd context is simply "the whole file".
            .map_or(0, |c| c.floor() as usize);
        // pi: `Math.max(1, limit ?? 100)`, compared with a whole count: a fraction rounds up
        // (the same matches are shown); the cast saturates.
        let limit = args
            .limit
            .filter(|l| !l.is_nan())
            .unwrap_or(DEFAULT_LIMIT)
            .max(1.0)
            .ceil() as u64;
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

        let walk_root: PathBuf = root.clone();
        let walk_cancel = cancel.clone();
        let job = tokio::task::spawn_blocking(move || {
            let found = search(&walk_root, &matcher, overrides, limit, &walk_cancel);
            let blocks = format_blocks(&found.matches, &walk_root, is_dir, context);
            (found, blocks)
        });
        let (found, blocks) = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::Aborted),
            joined = job => joined.map_err(|err| ToolError::Failed(format!("grep failed: {err}")))?,
        };
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        Ok(render(&found, blocks, limit, ctx))
    }
}

/// The result text and details (pi's notices, in pi's order).
fn render(found: &Found, blocks: format::Blocks, limit: u64, ctx: &ToolContext) -> ToolResult {
    if found.matches.is_empty() {
        return ToolResult::text("No matches found");
    }
    let options = TruncationOptions {
        max_lines: usize::MAX,
        max_bytes: ctx.limits.max_output_bytes,
    };
    let truncation = truncate_head(&blocks.lines.join("\n"), options);
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
        notices.push(byte_limit_notice(options.max_bytes));
        details.insert(
            "truncation".into(),
            serde_json::to_value(&truncation).unwrap_or(Value::Null),
        );
    }
    if blocks.lines_truncated {
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
