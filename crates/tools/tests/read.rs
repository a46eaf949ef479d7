//! The `read` tool on real files: pi's outputs, notices, error texts, images, confinement and
//! cancellation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_tools::read::ReadTool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn no_updates() -> ToolUpdate {
    Arc::new(|_| {})
}

async fn call(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    ReadTool::new()
        .execute("call-1", args, ctx, CancellationToken::new(), no_updates())
        .await
}

async fn read_ok(ctx: &ToolContext, args: Value) -> ToolResult {
    match call(ctx, args).await {
        Ok(result) => result,
        Err(err) => panic!("read failed: {err}"),
    }
}

async fn read_err(ctx: &ToolContext, args: Value) -> String {
    match call(ctx, args).await {
        Ok(result) => panic!("read succeeded: {result:?}"),
        Err(err) => err.to_string(),
    }
}

fn numbered(count: usize) -> String {
    (1..=count)
        .map(|n| format!("Line {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn workspace() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

fn text_of(result: &ToolResult) -> &str {
    result.content[0].as_text().unwrap()
}

#[test]
fn the_schema_and_metadata_are_pis() {
    let tool = ReadTool::new();
    assert_eq!(tool.name(), "read");
    assert_eq!(tool.label(), "read");
    assert!(!tool.is_mutating());
    assert!(
        tool.description()
            .starts_with("Read the contents of a file.")
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
                "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
                "limit": {"type": "number", "description": "Maximum number of lines to read"}
            },
            "required": ["path"]
        })
    );
}

#[tokio::test]
async fn a_file_within_limits_is_returned_whole_without_notice() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("a.txt"), "Hello\nWorld\n").unwrap();
    assert_eq!(
        read_ok(&ctx, json!({"path": "a.txt"})).await,
        ToolResult::text("Hello\nWorld\n")
    );
    // pi's input clean-up: a leading `@` is dropped.
    assert_eq!(
        read_ok(&ctx, json!({"path": "@a.txt"})).await,
        ToolResult::text("Hello\nWorld\n")
    );
}

#[tokio::test]
async fn a_missing_file_reports_node_enoent() {
    let (dir, ctx) = workspace();
    let abs = dir.path().join("missing.txt");
    assert_eq!(
        read_err(&ctx, json!({"path": "missing.txt"})).await,
        format!(
            "ENOENT: no such file or directory, access '{}'",
            abs.display()
        )
    );
}

#[tokio::test]
async fn a_directory_reports_node_eisdir() {
    let (dir, ctx) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        read_err(&ctx, json!({"path": "sub"})).await,
        "EISDIR: illegal operation on a directory, read"
    );
}

#[tokio::test]
async fn the_line_limit_cuts_with_a_continue_notice_and_truncation_details() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("big.txt"), numbered(2500)).unwrap();
    let result = read_ok(&ctx, json!({"path": "big.txt"})).await;
    let expected_text = format!(
        "{}\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]",
        numbered(2000)
    );
    let kept_bytes = numbered(2000).len();
    assert_eq!(
        result,
        ToolResult {
            content: vec![ContentBlock::text(expected_text)],
            details: Some(json!({"truncation": {
                "content": numbered(2000),
                "truncated": true,
                "truncatedBy": "lines",
                "totalLines": 2500,
                "totalBytes": numbered(2500).len(),
                "outputLines": 2000,
                "outputBytes": kept_bytes,
                "lastLinePartial": false,
                "firstLineExceedsLimit": false,
                "maxLines": 2000,
                "maxBytes": 51200
            }})),
            is_error: false,
        }
    );
}

#[tokio::test]
async fn the_byte_limit_cuts_with_its_own_notice() {
    let (dir, ctx) = workspace();
    // 100 lines of 1000 bytes: 51 fit in 50 KB (51 * 1001 - 1 = 51050 bytes).
    let line = "x".repeat(1000);
    let content = vec![line.as_str(); 100].join("\n");
    std::fs::write(dir.path().join("wide.txt"), &content).unwrap();
    let result = read_ok(&ctx, json!({"path": "wide.txt"})).await;
    let kept = vec![line.as_str(); 51].join("\n");
    assert_eq!(
        text_of(&result),
        format!("{kept}\n\n[Showing lines 1-51 of 100 (50.0KB limit). Use offset=52 to continue.]")
    );
    let truncation = &result.details.unwrap()["truncation"];
    assert_eq!(
        (
            &truncation["truncatedBy"],
            &truncation["outputLines"],
            &truncation["outputBytes"]
        ),
        (&json!("bytes"), &json!(51), &json!(51_050))
    );
}

#[tokio::test]
async fn a_first_line_over_the_byte_limit_points_to_bash() {
    let (dir, ctx) = workspace();
    let content = format!("short\n{}\nafter", "y".repeat(60 * 1024));
    std::fs::write(dir.path().join("long.txt"), content).unwrap();
    let result = read_ok(&ctx, json!({"path": "long.txt", "offset": 2})).await;
    assert_eq!(
        text_of(&result),
        "[Line 2 is 60.0KB, exceeds 50.0KB limit. Use bash: sed -n '2p' long.txt | head -c 51200]"
    );
    let truncation = &result.details.unwrap()["truncation"];
    assert_eq!(
        (
            &truncation["firstLineExceedsLimit"],
            &truncation["content"],
            &truncation["outputLines"]
        ),
        (&json!(true), &json!(""), &json!(0))
    );
}

#[tokio::test]
async fn offset_and_limit_select_a_window_and_say_what_is_left() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("hundred.txt"), numbered(100)).unwrap();
    let from_51 = read_ok(&ctx, json!({"path": "hundred.txt", "offset": 51})).await;
    assert_eq!(
        from_51,
        ToolResult::text(
            (51..=100)
                .map(|n| format!("Line {n}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    );
    let first_10 = read_ok(&ctx, json!({"path": "hundred.txt", "limit": 10})).await;
    assert_eq!(
        first_10,
        ToolResult::text(format!(
            "{}\n\n[90 more lines in file. Use offset=11 to continue.]",
            numbered(10)
        ))
    );
    let window = read_ok(
        &ctx,
        json!({"path": "hundred.txt", "offset": 41, "limit": 20}),
    )
    .await;
    let lines: Vec<String> = (41..=60).map(|n| format!("Line {n}")).collect();
    assert_eq!(
        window,
        ToolResult::text(format!(
            "{}\n\n[40 more lines in file. Use offset=61 to continue.]",
            lines.join("\n")
        ))
    );
    // A limit reaching the end has nothing left to announce.
    let tail = read_ok(
        &ctx,
        json!({"path": "hundred.txt", "offset": 99, "limit": 5}),
    )
    .await;
    assert_eq!(tail, ToolResult::text("Line 99\nLine 100"));
}

#[tokio::test]
async fn an_offset_past_the_end_is_an_error() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("three.txt"), "a\nb\nc").unwrap();
    assert_eq!(
        read_err(&ctx, json!({"path": "three.txt", "offset": 100})).await,
        "Offset 100 is beyond end of file (3 lines total)"
    );
}

#[tokio::test]
async fn the_context_limits_drive_truncation_and_notices() {
    let (dir, mut ctx) = workspace();
    ctx.limits.max_output_lines = 3;
    std::fs::write(dir.path().join("ten.txt"), numbered(10)).unwrap();
    assert_eq!(
        text_of(&read_ok(&ctx, json!({"path": "ten.txt"})).await),
        "Line 1\nLine 2\nLine 3\n\n[Showing lines 1-3 of 10. Use offset=4 to continue.]"
    );
    ctx.limits.max_output_lines = 2000;
    ctx.limits.max_output_bytes = 1024;
    std::fs::write(dir.path().join("wide.txt"), "z".repeat(2000)).unwrap();
    assert_eq!(
        text_of(&read_ok(&ctx, json!({"path": "wide.txt"})).await),
        "[Line 1 is 2.0KB, exceeds 1.0KB limit. Use bash: sed -n '1p' wide.txt | head -c 1024]"
    );
}

#[tokio::test]
async fn invalid_utf8_reads_with_replacement_characters() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").unwrap();
    assert_eq!(
        read_ok(&ctx, json!({"path": "latin1.txt"})).await,
        ToolResult::text("caf\u{FFFD}\n")
    );
}

/// A 1×1 PNG.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

#[tokio::test]
async fn images_are_detected_by_their_bytes_not_their_names() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("pixel"), PNG).unwrap();
    let encoded = base64::engine::general_purpose::STANDARD.encode(PNG);
    assert_eq!(
        read_ok(&ctx, json!({"path": "pixel"})).await,
        ToolResult {
            content: vec![
                ContentBlock::text("Read image file [image/png]"),
                ContentBlock::image(encoded, "image/png"),
            ],
            details: None,
            is_error: false,
        }
    );
    std::fs::write(dir.path().join("photo.dat"), b"\xFF\xD8\xFF\xE0\0\x10JFIF").unwrap();
    let jpeg = read_ok(&ctx, json!({"path": "photo.dat"})).await;
    assert_eq!(text_of(&jpeg), "Read image file [image/jpeg]");
    std::fs::write(dir.path().join("fake.png"), "just text").unwrap();
    assert_eq!(
        read_ok(&ctx, json!({"path": "fake.png"})).await,
        ToolResult::text("just text")
    );
}

#[tokio::test]
async fn a_macos_screenshot_name_is_found_from_its_typed_spelling() {
    let (dir, ctx) = workspace();
    std::fs::write(
        dir.path().join("Screenshot at 10.00.00\u{202F}AM.txt"),
        "shot",
    )
    .unwrap();
    std::fs::write(dir.path().join("Ann\u{2019}s notes.txt"), "curly").unwrap();
    assert_eq!(
        read_ok(&ctx, json!({"path": "Screenshot at 10.00.00 AM.txt"})).await,
        ToolResult::text("shot")
    );
    assert_eq!(
        read_ok(&ctx, json!({"path": "Ann's notes.txt"})).await,
        ToolResult::text("curly")
    );
}

#[tokio::test]
async fn paths_leaving_the_workspace_are_refused() {
    let (dir, ctx) = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    let escape = format!(
        "../{}/secret.txt",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    let err = read_err(&ctx, json!({"path": escape})).await;
    assert!(
        err.starts_with(&format!("Path is outside the workspace: {escape}")),
        "{err}"
    );
    let absolute = outside.path().join("secret.txt");
    let err = read_err(&ctx, json!({"path": absolute.to_string_lossy()})).await;
    assert!(err.starts_with("Path is outside the workspace: "), "{err}");
    std::os::unix::fs::symlink(&absolute, dir.path().join("link.txt")).unwrap();
    let err = read_err(&ctx, json!({"path": "link.txt"})).await;
    assert!(
        err.starts_with("Path is outside the workspace: link.txt (a symlink leads to"),
        "{err}"
    );

    let mut open = ctx.clone();
    open.limits.allow_outside_workspace = true;
    assert_eq!(
        read_ok(&open, json!({"path": "link.txt"})).await,
        ToolResult::text("secret")
    );
}

#[tokio::test]
async fn bad_arguments_are_reported() {
    let (_dir, ctx) = workspace();
    let err = call(&ctx, json!({"offset": 1})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    assert_eq!(err.to_string(), "missing field `path`");
}

#[tokio::test]
async fn a_cancelled_call_is_aborted_before_touching_the_file() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = ReadTool::new()
        .execute("c", json!({"path": "a.txt"}), &ctx, cancel, no_updates())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
}

/// Makes a FIFO with `mkfifo` (a child process: no special rights needed).
fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn a_fifo_is_refused_with_what_it_is_and_without_blocking() {
    let (dir, ctx) = workspace();
    mkfifo(&dir.path().join("pipe"));
    // No writer ever opens the FIFO: a read that opened it for reading would wait forever.
    assert_eq!(
        read_err(&ctx, json!({"path": "pipe"})).await,
        "Not a regular file: pipe is a FIFO (named pipe)"
    );
    // A symlink to it is followed to the same refusal.
    std::os::unix::fs::symlink("pipe", dir.path().join("to-pipe")).unwrap();
    assert_eq!(
        read_err(&ctx, json!({"path": "to-pipe", "limit": 1})).await,
        "Not a regular file: to-pipe is a FIFO (named pipe)"
    );
}

#[tokio::test]
async fn a_character_device_is_refused_instead_of_read_until_memory_runs_out() {
    let (dir, mut ctx) = workspace();
    // A device node of our own where `mknod` is permitted; /dev/zero (reachable once paths
    // may leave the workspace) everywhere.
    let node = dir.path().join("zero");
    let made = std::process::Command::new("mknod")
        .arg(&node)
        .args(["c", "1", "5"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if made {
        assert_eq!(
            read_err(&ctx, json!({"path": "zero"})).await,
            "Not a regular file: zero is a character device"
        );
    }
    ctx.limits.allow_outside_workspace = true;
    assert_eq!(
        read_err(&ctx, json!({"path": "/dev/zero", "limit": 1})).await,
        "Not a regular file: /dev/zero is a character device"
    );
}

/// A file of `size` bytes: `prefix`, then a hole (zeros that take no disk).
fn sparse_file(path: &Path, prefix: &[u8], size: u64) {
    let file = std::fs::File::create(path).unwrap();
    std::io::Write::write_all(&mut &file, prefix).unwrap();
    file.set_len(size).unwrap();
}

#[tokio::test]
async fn a_multi_gib_sparse_file_is_read_only_as_far_as_needed() {
    const SIZE: u64 = 6 << 30;
    let (dir, ctx) = workspace();
    sparse_file(&dir.path().join("sparse.bin"), b"first\nsecond\n", SIZE);
    // Loading it whole took the file's size in memory; the window needs one line.
    assert_eq!(
        read_ok(&ctx, json!({"path": "sparse.bin", "limit": 1})).await,
        ToolResult::text("first\n\n[2 more lines in file. Use offset=2 to continue.]")
    );
    assert_eq!(
        read_ok(&ctx, json!({"path": "sparse.bin", "offset": 2, "limit": 1})).await,
        ToolResult::text("second\n\n[1 more lines in file. Use offset=3 to continue.]")
    );
    // The third line is the hole: 6 GiB minus the 13 bytes before it, counted not kept.
    let result = read_ok(&ctx, json!({"path": "sparse.bin", "offset": 3})).await;
    assert_eq!(
        text_of(&result),
        "[Line 3 is 6144.0MB, exceeds 50.0KB limit. Use bash: sed -n '3p' sparse.bin | head -c 51200]"
    );
    let truncation = &result.details.unwrap()["truncation"];
    assert_eq!(
        (&truncation["totalBytes"], &truncation["totalLines"]),
        (&json!(SIZE - 13), &json!(1))
    );
}

#[tokio::test]
async fn a_big_file_keeps_pis_notices_and_counts() {
    let (dir, ctx) = workspace();
    // 300,000 lines (about 3.4 MB): the notice needs the total, counted while streaming.
    std::fs::write(dir.path().join("many.txt"), numbered(300_000)).unwrap();
    let result = read_ok(
        &ctx,
        json!({"path": "many.txt", "offset": 150_000, "limit": 3}),
    )
    .await;
    assert_eq!(
        result,
        ToolResult::text(
            "Line 150000\nLine 150001\nLine 150002\n\n[149998 more lines in file. Use offset=150003 to continue.]"
        )
    );
    let tail = read_ok(&ctx, json!({"path": "many.txt", "offset": 299_999})).await;
    assert_eq!(tail, ToolResult::text("Line 299999\nLine 300000"));
}

#[tokio::test]
async fn cancelling_a_long_read_returns_operation_aborted() {
    let (dir, ctx) = workspace();
    // 64 MiB of real (not sparse) lines: far more than one step of the runtime reads.
    let line = format!("{}\n", "x".repeat(1023));
    let file = std::fs::File::create(dir.path().join("big.txt")).unwrap();
    let mut writer = std::io::BufWriter::new(file);
    for _ in 0..64 * 1024 {
        std::io::Write::write_all(&mut writer, line.as_bytes()).unwrap();
    }
    drop(writer);
    let cancel = CancellationToken::new();
    let tool = ReadTool::new();
    let call = tool.execute(
        "c",
        json!({"path": "big.txt", "offset": 60_000}),
        &ctx,
        cancel.clone(),
        no_updates(),
    );
    tokio::pin!(call);
    // One poll starts the read on a blocking thread; the abort then wins over its result.
    tokio::select! {
        biased;
        result = &mut call => panic!("finished before the abort: {result:?}"),
        () = std::future::ready(()) => {}
    }
    cancel.cancel();
    let err = call.await.unwrap_err();
    assert!(matches!(err, ToolError::Aborted), "{err:?}");
    assert_eq!(err.to_string(), "Operation aborted");
}

#[tokio::test]
async fn the_context_time_limit_ends_the_call() {
    let (dir, mut ctx) = workspace();
    std::fs::write(dir.path().join("a.txt"), "x").unwrap();
    ctx.limits.timeout = Some(Duration::ZERO);
    let err = call(&ctx, json!({"path": "a.txt"})).await.unwrap_err();
    assert!(matches!(err, ToolError::Timeout(_)), "{err:?}");
    assert_eq!(err.to_string(), "Operation timed out after 0 seconds");
}
