//! The `find` tool (pi-mono §3.7): lists files and directories matching a glob below a
//! directory, with globset and a descriptor walk instead of an `fd` binary.
//!
//! Output is one path per line relative to the search directory (`/` separators, directories
//! with a trailing `/`), in name order; pi's result limit and byte limit apply with pi's
//! notices. The walk rules are in [`crate::confined_walk`], the matching rules in `glob`.

pub(crate) mod glob;

use std::os::fd::OwnedFd;
use std::path::Path;

use clawloop_core::tool::{BoxFuture, Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::args_schema::{parameters_schema, parse_args};
use crate::blocking::run_blocking;
use crate::confined::{Confinement, OpenError, Purpose};
use crate::confined_walk::ConfinedWalk;
use crate::truncate::{TruncationOptions, byte_limit_notice, result_with_notices, truncate_head};
use crate::workspace;
use glob::FindGlob;

/// pi's description of the tool, with the default limits filled in.
const DESCRIPTION: &str = "Search for files by glob pattern. Returns matching file paths \
relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or \
50KB (whichever is hit first).";

/// pi's default result limit.
const DEFAULT_LIMIT: f64 = 1000.0;

/// The arguments of `find`, as pi names and describes them.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'
    pub pattern: String,
    /// Directory to search in (default: current directory)
    #[serde(default)]
    #[schemars(with = "String")]
    pub path: Option<String>,
    /// Maximum number of results (default: 1000)
    #[serde(default)]
    #[schemars(schema_with = "crate::args_schema::js_number")]
    pub limit: Option<f64>,
}

/// The `find` tool.
#[derive(Debug, Clone)]
pub struct FindTool {
    parameters: Value,
}

impl Default for FindTool {
    fn default() -> Self {
        Self::new()
    }
}

impl FindTool {
    /// The tool with its schema.
    pub fn new() -> Self {
        FindTool {
            parameters: parameters_schema::<FindArgs>(),
        }
    }

    async fn run(
        &self,
        args: FindArgs,
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
        let glob = FindGlob::new(&args.pattern).map_err(ToolError::Failed)?;
        // fd's `--max-results` takes a whole number of at least one; the cast saturates.
        let limit = args
            .limit
            .filter(|l| !l.is_nan())
            .unwrap_or(DEFAULT_LIMIT)
            .max(1.0)
            .ceil() as u64;

        let job_ctx = ctx.clone();
        let raw = raw_path.to_owned();
        let found = run_blocking("find", ctx, &cancel, move |stop| {
            let confinement = Confinement::new(&job_ctx);
            let Some(dir) = open_root(&job_ctx, &confinement, &root, &raw)? else {
                return Ok(Vec::new());
            };
            let walk = ConfinedWalk::new(&root, dir, None, &confinement, stop);
            Ok(collect(walk, &root, &glob, limit))
        })
        .await?;
        if cancel.is_cancelled() {
            return Err(ToolError::Aborted);
        }
        Ok(render(&found, limit, ctx))
    }
}

/// Opens the search directory inside the workspace (the walk starts from this descriptor, so a
/// link swapped in after the name check cannot lead it out), refusing one that is missing, not
/// a directory, or outside. `None` for a directory that exists but cannot be read.
fn open_root(
    ctx: &ToolContext,
    confinement: &Confinement,
    root: &Path,
    raw: &str,
) -> Result<Option<OwnedFd>, ToolError> {
    match confinement.open(root, Purpose::Directory) {
        Ok(opened) => Ok(Some(OwnedFd::from(opened.file))),
        // fd's own words, which pi passes on.
        Err(OpenError::NotDirectory | OpenError::Special(_)) => Err(ToolError::Failed(format!(
            "[fd error]: Search path '{}' is not a directory.",
            root.display()
        ))),
        // A directory that exists but cannot be read is walked, and yields nothing.
        Err(OpenError::Open(_)) => Ok(None),
        Err(err) => Err(err.into_tool_error(ctx, raw, |_| {
            ToolError::Failed(format!("Path not found: {}", root.display()))
        })),
    }
}

/// Keeps the relative paths of the walk's matching entries, at most `limit` of them (the walk
/// ends early on cancellation).
fn collect(walk: ConfinedWalk<'_>, root: &Path, glob: &FindGlob, limit: u64) -> Vec<String> {
    let mut found = Vec::new();
    for entry in walk {
        let Ok(relative) = entry.path.strip_prefix(root) else {
            continue;
        };
        let relative: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let relative = relative.join("/");
        if !glob.is_match(&entry.path, &relative) {
            continue;
        }
        found.push(if entry.is_dir() {
            format!("{relative}/")
        } else {
            relative
        });
        if found.len() as u64 >= limit {
            break;
        }
    }
    found
}

/// The result text and details (pi's notices, in pi's order).
fn render(found: &[String], limit: u64, ctx: &ToolContext) -> ToolResult {
    if found.is_empty() {
        return ToolResult::text("No files found matching pattern");
    }
    let options = TruncationOptions {
        max_lines: usize::MAX,
        max_bytes: ctx.limits.max_output_bytes,
    };
    let truncation = truncate_head(&found.join("\n"), options);
    let mut notices = Vec::new();
    let mut details = Map::new();
    // As in pi, reaching the limit exactly counts as reaching it.
    if found.len() as u64 >= limit {
        notices.push(format!("{limit} results limit reached"));
        details.insert("resultLimitReached".into(), Value::from(limit));
    }
    if truncation.truncated {
        notices.push(byte_limit_notice(options.max_bytes));
        details.insert(
            "truncation".into(),
            serde_json::to_value(&truncation).unwrap_or(Value::Null),
        );
    }
    result_with_notices(&truncation.content, &notices, details)
}

impl Tool for FindTool {
    fn name(&self) -> &str {
        "find"
    }

    fn label(&self) -> &str {
        "find"
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
            let args: FindArgs = parse_args(args)?;
            self.run(args, ctx, cancel).await
        })
    }
}
