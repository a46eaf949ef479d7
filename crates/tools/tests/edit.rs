//! The `edit` tool on real files: exact and fuzzy matching (pi-mono §3.7.1 and pi's
//! `tools.test.ts` vectors), uniqueness, BOM and line endings, the diff details, every error
//! text, confinement and cancellation.

// Test helpers outside `#[test]` fns: a panic is how a broken fixture is reported.
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use clawloop_core::message::ContentBlock;
use clawloop_core::tool::{Tool, ToolContext, ToolError, ToolResult, ToolUpdate};
use clawloop_tools::edit::EditTool;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn no_updates() -> ToolUpdate {
    Arc::new(|_| {})
}

async fn call(ctx: &ToolContext, args: Value) -> Result<ToolResult, ToolError> {
    EditTool::new()
        .execute("call-1", args, ctx, CancellationToken::new(), no_updates())
        .await
}

async fn edit_err(ctx: &ToolContext, path: &str, old: &str, new: &str) -> String {
    match call(ctx, json!({"path": path, "oldText": old, "newText": new})).await {
        Ok(result) => panic!("edit succeeded: {result:?}"),
        Err(err) => err.to_string(),
    }
}

fn workspace() -> (tempfile::TempDir, ToolContext) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(dir.path());
    (dir, ctx)
}

/// Writes `content` to `name`, applies one edit that must succeed, returns the file after it.
async fn edited(content: &str, old: &str, new: &str) -> String {
    let (dir, ctx) = workspace();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, content).unwrap();
    let result = call(
        &ctx,
        json!({"path": "f.txt", "oldText": old, "newText": new}),
    )
    .await
    .unwrap_or_else(|err| panic!("edit failed: {err}"));
    assert_eq!(
        result.content,
        vec![ContentBlock::text("Successfully replaced text in f.txt.")]
    );
    read(&path)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_schema_and_metadata_are_pis() {
    let tool = EditTool::new();
    assert_eq!((tool.name(), tool.label()), ("edit", "edit"));
    assert!(tool.is_mutating());
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
                "oldText": {"type": "string", "description": "Exact text to find and replace (must match exactly)"},
                "newText": {"type": "string", "description": "New text to replace the old text with"}
            },
            "required": ["path", "oldText", "newText"]
        })
    );
}

#[tokio::test]
async fn an_exact_edit_reports_pis_numbered_diff() {
    let (dir, ctx) = workspace();
    let content: String = (1..=12).map(|n| format!("line {n}\n")).collect();
    std::fs::write(dir.path().join("twelve.txt"), &content).unwrap();
    let result = call(
        &ctx,
        json!({"path": "twelve.txt", "oldText": "line 6\nline 7", "newText": "LINE SIX"}),
    )
    .await
    .unwrap();
    assert_eq!(
        result,
        ToolResult {
            content: vec![ContentBlock::text(
                "Successfully replaced text in twelve.txt."
            )],
            details: Some(json!({
                "diff": "    ...\n  2 line 2\n  3 line 3\n  4 line 4\n  5 line 5\n- 6 line 6\n- 7 line 7\n+ 6 LINE SIX\n  8 line 8\n  9 line 9\n 10 line 10\n 11 line 11\n    ...",
                "firstChangedLine": 6
            })),
            is_error: false,
        }
    );
    assert_eq!(
        read(&dir.path().join("twelve.txt")),
        content.replace("line 6\nline 7", "LINE SIX")
    );
}

#[tokio::test]
async fn replacement_text_is_taken_literally() {
    // JS `String.replace` would expand `$&`; pi splices, and so do we.
    assert_eq!(
        edited("price: X\n", "X", "$& $1 $$").await,
        "price: $& $1 $$\n"
    );
}

#[tokio::test]
async fn every_refusal_has_pis_text_and_leaves_the_file_alone() {
    let (dir, ctx) = workspace();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, "foo\nfoo\nfoo\nbar\n").unwrap();
    assert_eq!(
        edit_err(&ctx, "missing.txt", "a", "b").await,
        "File not found: missing.txt"
    );
    assert_eq!(
        edit_err(&ctx, "f.txt", "nope", "x").await,
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        edit_err(&ctx, "f.txt", "foo", "x").await,
        "Found 3 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    assert_eq!(
        edit_err(&ctx, "f.txt", "bar", "bar").await,
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
    assert_eq!(read(&path), "foo\nfoo\nfoo\nbar\n");
}

#[tokio::test]
async fn a_directory_fails_on_the_read_like_node() {
    let (dir, ctx) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        edit_err(&ctx, "sub", "a", "b").await,
        "EISDIR: illegal operation on a directory, read"
    );
}

#[tokio::test]
async fn files_that_are_not_utf8_or_not_regular_are_refused() {
    let (dir, ctx) = workspace();
    let latin1 = dir.path().join("latin1.txt");
    std::fs::write(&latin1, b"caf\xe9 au lait\n").unwrap();
    assert_eq!(
        edit_err(&ctx, "latin1.txt", "lait", "miel").await,
        "Cannot edit latin1.txt: the file is not valid UTF-8 text."
    );
    assert_eq!(std::fs::read(&latin1).unwrap(), b"caf\xe9 au lait\n");
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(
        edit_err(&ctx, "pipe", "a", "b").await,
        "Not a regular file: pipe is a FIFO (named pipe)"
    );
}

#[tokio::test]
async fn fuzzy_matching_follows_pis_vectors() {
    // Trailing whitespace in the file; the whole file is rewritten normalized.
    assert_eq!(
        edited(
            "line one   \nline two  \nline three\n",
            "line one\nline two\n",
            "replaced\n"
        )
        .await,
        "replaced\nline three\n"
    );
    // Full-width punctuation folds through NFKC.
    assert_eq!(
        edited(
            "你好，世界\n你好（世界）\n",
            "你好,世界\n你好(世界)\n",
            "新内容\n"
        )
        .await,
        "新内容\n"
    );
    // Compatibility forms and a decomposed accent.
    assert_eq!(
        edited("ＡＢＣ１２３\ncafe\u{301}\n", "ABC123\ncafé\n", "done\n").await,
        "done\n"
    );
    // Smart quotes.
    assert_eq!(
        edited(
            "console.log(\u{2018}hello\u{2019});\n",
            "console.log('hello');",
            "console.log('world');"
        )
        .await,
        "console.log('world');\n"
    );
    assert_eq!(
        edited("say \u{201C}hi\u{201D}\n", "say \"hi\"", "say \"bye\"").await,
        "say \"bye\"\n"
    );
    // Unicode dashes and minus.
    assert_eq!(
        edited(
            "range: 1\u{2013}5\nx \u{2212} y\n",
            "range: 1-5",
            "range: 1-10"
        )
        .await,
        "range: 1-10\nx - y\n"
    );
    // Non-breaking space.
    assert_eq!(
        edited("hello\u{00A0}world\n", "hello world", "hello universe").await,
        "hello universe\n"
    );
}

#[tokio::test]
async fn an_exact_match_is_preferred_and_keeps_the_rest_verbatim() {
    assert_eq!(
        edited(
            "const x = 'exact';\nconst y = \u{2018}other\u{2019};   \n",
            "const x = 'exact';",
            "const x = 'changed';"
        )
        .await,
        "const x = 'changed';\nconst y = \u{2018}other\u{2019};   \n"
    );
}

#[tokio::test]
async fn duplicates_after_normalization_are_ambiguous() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("f.txt"), "hello world   \nhello world\n").unwrap();
    assert_eq!(
        edit_err(&ctx, "f.txt", "hello world", "x").await,
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
}

#[tokio::test]
async fn line_endings_and_bom_are_preserved() {
    // LF old text matches a CRLF file, and CRLF is written back.
    assert_eq!(
        edited("first\r\nsecond\r\nthird\r\n", "second\n", "REPLACED\n").await,
        "first\r\nREPLACED\r\nthird\r\n"
    );
    // A CRLF old text matches too.
    assert_eq!(
        edited(
            "first\r\nsecond\r\nthird\r\n",
            "first\r\nsecond",
            "one\r\ntwo"
        )
        .await,
        "one\r\ntwo\r\nthird\r\n"
    );
    assert_eq!(
        edited("first\nsecond\nthird\n", "second", "REPLACED").await,
        "first\nREPLACED\nthird\n"
    );
    assert_eq!(
        edited("\u{FEFF}first\r\nsecond\r\nthird\r\n", "second", "REPLACED").await,
        "\u{FEFF}first\r\nREPLACED\r\nthird\r\n"
    );
}

#[tokio::test]
async fn duplicates_across_crlf_and_lf_are_ambiguous() {
    let (dir, ctx) = workspace();
    std::fs::write(
        dir.path().join("mixed.txt"),
        "hello\r\nworld\r\n---\r\nhello\nworld\n",
    )
    .unwrap();
    assert_eq!(
        edit_err(&ctx, "mixed.txt", "hello\nworld\n", "x").await,
        "Found 2 occurrences of the text in mixed.txt. The text must be unique. Please provide more context to make it unique."
    );
}

#[tokio::test]
async fn paths_leaving_the_workspace_are_refused() {
    let (dir, ctx) = workspace();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("victim.txt");
    std::fs::write(&target, "keep me\n").unwrap();
    std::os::unix::fs::symlink(&target, dir.path().join("link.txt")).unwrap();
    let err = edit_err(&ctx, "link.txt", "keep", "lose").await;
    assert!(
        err.starts_with("Path is outside the workspace: link.txt (a symlink leads to"),
        "{err}"
    );
    let err = edit_err(&ctx, &target.to_string_lossy(), "keep", "lose").await;
    assert!(err.starts_with("Path is outside the workspace: "), "{err}");
    assert_eq!(read(&target), "keep me\n");
}

#[tokio::test]
async fn a_cancelled_call_leaves_the_file_alone() {
    let (dir, ctx) = workspace();
    std::fs::write(dir.path().join("f.txt"), "a\n").unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = EditTool::new()
        .execute(
            "c",
            json!({"path": "f.txt", "oldText": "a", "newText": "b"}),
            &ctx,
            cancel,
            no_updates(),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::Aborted));
    assert_eq!(err.to_string(), "Operation aborted");
    assert_eq!(read(&dir.path().join("f.txt")), "a\n");
}

#[tokio::test]
async fn bad_arguments_are_reported() {
    let (_dir, ctx) = workspace();
    let err = call(
        &ctx,
        json!({"path": "f.txt", "old_text": "a", "newText": "b"}),
    )
    .await
    .unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments(_)), "{err:?}");
    assert_eq!(err.to_string(), "missing field `oldText`");
}
