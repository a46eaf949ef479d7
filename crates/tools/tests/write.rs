//! The `write` tool on real files: pi's success text, parent creation, Node error texts,
//! confinement and cancellation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::Arc;

use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_tools::write::WriteTool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn no_updates() -> ToolUpdate {
    Arc::new(|_| {})
}

async fn call(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    WriteTool::new()
        .execute("call-1", args, ctx, CancellationToken::new(), no_updates())
        .await
}

async fn write_err(ctx: &ToolContext, args: Value) -> String {
    match call(ctx, args).await {
        Ok(result) => panic!("write succeeded: {result:?}"),
        Err(err) => err.to_string(),
    }
}

fn workspace() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

#[test]
fn the_schema_and_metadata_are_pis() {
    let tool = WriteTool::new();
    assert_eq!((tool.name(), tool.label()), ("write", "write"));
    assert!(tool.is_mutating());
    assert_eq!(
        tool.description(),
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories."
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
                "content": {"type": "string", "description": "Content to write to the file"}
            },
            "required": ["path", "content"]
        })
    );
}

#[tokio::test]
async fn writes_creating_parent_directories() {
    let (dir, ctx) = workspace();
    let result = call(&ctx, json!({"path": "deep/er/a.txt", "content": "hello"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::text("Successfully wrote 5 bytes to deep/er/a.txt")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("deep/er/a.txt")).unwrap(),
        "hello"
    );
}

#[tokio::test]
async fn overwrites_and_counts_utf16_units_like_js() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("a.txt"), "old content that is longer").unwrap();
    // "é" is one UTF-16 unit (two bytes), "😀" two units (four bytes): JS length 7.
    let result = call(&ctx, json!({"path": "a.txt", "content": "héllo😀"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::text("Successfully wrote 7 bytes to a.txt")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "héllo😀"
    );
}

#[tokio::test]
async fn a_file_in_the_way_of_the_parent_reports_node_enotdir() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    assert_eq!(
        write_err(&ctx, json!({"path": "file/sub/a.txt", "content": "x"})).await,
        format!(
            "ENOTDIR: not a directory, mkdir '{}'",
            dir.path().join("file/sub").display()
        )
    );
}

#[tokio::test]
async fn writing_onto_a_directory_reports_node_eisdir() {
    let (dir, ctx) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        write_err(&ctx, json!({"path": "sub", "content": "x"})).await,
        format!(
            "EISDIR: illegal operation on a directory, open '{}'",
            dir.path().join("sub").display()
        )
    );
}

#[tokio::test]
async fn paths_leaving_the_workspace_are_refused_and_nothing_is_written() {
    let (dir, ctx) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("planted.txt");
    let err = write_err(
        &ctx,
        json!({"path": target.to_string_lossy(), "content": "x"}),
    )
    .await;
    assert!(err.starts_with("Path is outside the workspace: "), "{err}");
    // A dangling symlink whose target is outside would create the file there.
    std::os::unix::fs::symlink(&target, dir.path().join("link.txt")).unwrap();
    let err = write_err(&ctx, json!({"path": "link.txt", "content": "x"})).await;
    assert!(
        err.starts_with("Path is outside the workspace: link.txt (a symlink leads to"),
        "{err}"
    );
    let err = write_err(&ctx, json!({"path": "../escape.txt", "content": "x"})).await;
    assert!(
        err.starts_with("Path is outside the workspace: ../escape.txt"),
        "{err}"
    );
    assert!(!target.exists());
    assert!(!dir.path().parent().unwrap().join("escape.txt").exists());
}

#[tokio::test]
async fn a_cancelled_call_writes_nothing() {
    let (dir, ctx) = workspace();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = WriteTool::new()
        .execute(
            "c",
            json!({"path": "a/b.txt", "content": "x"}),
            &ctx,
            cancel,
            no_updates(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
    assert!(!dir.path().join("a").exists());
}

#[tokio::test]
async fn bad_arguments_are_reported() {
    let (_dir, ctx) = workspace();
    let err = call(&ctx, json!({"path": "a.txt"})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    assert_eq!(err.to_string(), "missing field `content`");
}

#[tokio::test]
async fn relative_paths_resolve_against_the_context_cwd() {
    let (dir, mut ctx) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    ctx.cwd = dir.path().join("sub");
    let result = call(&ctx, json!({"path": "a.txt", "content": "in sub"}))
        .await
        .unwrap();
    assert_eq!(
        result,
        ToolResult::text("Successfully wrote 6 bytes to a.txt")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sub/a.txt")).unwrap(),
        "in sub"
    );
    // `..` back into the workspace root is still inside it.
    call(&ctx, json!({"path": "../b.txt", "content": "up"}))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "up"
    );
}

#[tokio::test]
async fn a_fifo_is_refused_with_what_it_is_and_without_blocking() {
    let (dir, ctx) = workspace();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    // No reader ever opens the FIFO: a write that opened it would wait forever.
    assert_eq!(
        write_err(&ctx, json!({"path": "pipe", "content": "x"})).await,
        "Not a regular file: pipe is a FIFO (named pipe)"
    );
    let mut outside = ctx.clone();
    outside.limits.allow_outside_workspace = true;
    assert_eq!(
        write_err(&outside, json!({"path": "/dev/null", "content": "x"})).await,
        "Not a regular file: /dev/null is a character device"
    );
}
