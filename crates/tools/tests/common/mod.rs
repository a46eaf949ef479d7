//! Fixtures shared by the tool test files: temporary workspaces, one-call execution, and the
//! file list git reports for this repository (the sanity checks of `find` and `grep`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod fake_sandbox;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult};
use serde_json::Value;
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// Runs one call of `tool` with a fresh cancellation token and no update listener.
pub async fn run_tool(
    tool: &dyn Tool,
    ctx: &ToolContext,
    args: Value,
) -> Result<ToolResult, ToolError> {
    tool.execute(
        "call-1",
        args,
        ctx,
        CancellationToken::new(),
        Arc::new(|_| {}),
    )
    .await
}

/// A successful result holding one text block.
pub fn text_result(text: &str, details: Option<Value>) -> ToolResult {
    ToolResult {
        content: vec![ContentBlock::text(text)],
        details,
        is_error: false,
    }
}

/// A workspace with the given files (paths with `/`).
pub fn workspace_with(files: &[(&str, &str)]) -> (TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

/// Starts `tool` on `args` in a workspace of 500 files over 20 directories, lets it take one
/// step (which starts the walk on a blocking thread), aborts it, and returns the error the call
/// ends with.
pub async fn abort_during_the_walk(tool: &dyn Tool, args: Value) -> ToolError {
    let files: Vec<(String, &str)> = (0..500)
        .map(|i| (format!("d{}/f{i}.txt", i % 20), "hay\nneedle\n"))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    let (_dir, ctx) = workspace_with(&refs);
    let cancel = CancellationToken::new();
    let call = tool.execute("c", args, &ctx, cancel.clone(), Arc::new(|_| {}));
    tokio::pin!(call);
    // One poll starts the walk on a blocking thread; the abort then wins over its result.
    tokio::select! {
        biased;
        result = &mut call => panic!("finished before the abort: {result:?}"),
        () = std::future::ready(()) => {}
    }
    cancel.cancel();
    call.await.unwrap_err()
}

/// The repository root: two levels above this crate.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Entries git lists as part of the working tree (tracked, or untracked and not ignored) that
/// exist on disk, sorted.
pub fn git_working_tree_entries(repo: &Path) -> Vec<String> {
    let output = std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .unwrap_or_else(|err| panic!("this test needs `git` on PATH to run `git ls-files`: {err}"));
    assert!(
        output.status.success(),
        "git ls-files failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: BTreeSet<String> = output
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8(p.to_vec()).unwrap())
        .collect();
    listed
        .into_iter()
        .filter(|p| std::fs::symlink_metadata(repo.join(p)).is_ok())
        .collect()
}
