//! The `edit` tool on real files: exact and fuzzy matching (pi-mono §3.7.1 and pi's
//! `tools.test.ts` vectors), uniqueness, BOM and line endings, only the matched bytes
//! rewritten, the diff details, every error text, confinement and cancellation.

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
    // Trailing whitespace in the file, inside the match.
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
    // Unicode dashes and minus; the minus outside the match stays (pi wrote `x - y`).
    assert_eq!(
        edited(
            "range: 1\u{2013}5\nx \u{2212} y\n",
            "range: 1-5",
            "range: 1-10"
        )
        .await,
        "range: 1-10\nx \u{2212} y\n"
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

/// One edit per file: every byte outside the matched region must stay as it was.
struct RegionCase {
    name: &'static str,
    file: &'static str,
    old: &'static str,
    new: &'static str,
    expected: &'static str,
}

const REGION_CASES: &[RegionCase] = &[
    RegionCase {
        name: "smart quotes elsewhere",
        file: "a = \u{2018}x\u{2019};\nb = \u{201C}y\u{201D};\nc = \u{2018}z\u{2019};\n",
        old: "b = \"y\";",
        new: "b = \"w\";",
        expected: "a = \u{2018}x\u{2019};\nb = \"w\";\nc = \u{2018}z\u{2019};\n",
    },
    RegionCase {
        name: "NBSP elsewhere",
        file: "keep\u{A0}this\nfix\u{A0}that\nand\u{A0}this\n",
        old: "fix that",
        new: "fixed",
        expected: "keep\u{A0}this\nfixed\nand\u{A0}this\n",
    },
    RegionCase {
        name: "superscripts",
        file: "e = mc\u{B2}\nx\u{B2} + y\u{B2}\nz\u{B3}\n",
        old: "x2 + y2",
        new: "x^2 + y^2",
        expected: "e = mc\u{B2}\nx^2 + y^2\nz\u{B3}\n",
    },
    RegionCase {
        name: "ligatures",
        file: "\u{FB01}le one\n\u{FB01}nal two\n\u{FB02}ow three\n",
        old: "final two",
        new: "final 2",
        expected: "\u{FB01}le one\nfinal 2\n\u{FB02}ow three\n",
    },
    RegionCase {
        name: "a match starting inside a ligature",
        file: "de\u{FB01}ne x\u{B2}\n",
        old: "ine",
        new: "ault",
        expected: "default x\u{B2}\n",
    },
    RegionCase {
        name: "ellipsis",
        file: "wait\u{2026}\nload\u{2026} done\nmore\u{2026}\n",
        old: "load... done",
        new: "loaded",
        expected: "wait\u{2026}\nloaded\nmore\u{2026}\n",
    },
    RegionCase {
        name: "trailing spaces outside and inside the match",
        file: "keep   \nfix me  \nkeep\t\nlast \n",
        old: "fix me\nkeep",
        new: "fixed\nkept",
        expected: "keep   \nfixed\nkept\t\nlast \n",
    },
    RegionCase {
        name: "dashes beside mixed CRLF and LF",
        file: "one \u{2014} 1\r\ntwo \u{2014} 2\nthree\r\nfour \u{2013}\n",
        old: "two - 2\nthree",
        new: "2\n3",
        expected: "one \u{2014} 1\r\n2\n3\r\nfour \u{2013}\n",
    },
    RegionCase {
        name: "a CRLF region in an LF file",
        file: "a\u{2019}s\nb\nc\u{2019}s\r\nd\n",
        old: "c's\nd",
        new: "x\ny",
        expected: "a\u{2019}s\nb\nx\r\ny\n",
    },
    RegionCase {
        name: "one line of a mixed file takes its own line ending",
        file: "a\r\nb\u{2014}c\nd\r\n",
        old: "b-c",
        new: "x\ny",
        expected: "a\r\nx\ny\nd\r\n",
    },
    RegionCase {
        name: "lone CR line endings",
        file: "a\u{A0}\rb\u{2014}c\rd",
        old: "b-c",
        new: "x\ny",
        expected: "a\u{A0}\rx\ry\rd",
    },
    RegionCase {
        name: "BOM, CRLF and trailing spaces",
        file: "\u{FEFF}\u{201C}q\u{201D}\r\nnext \u{2013} line\r\nlast  \r\n",
        old: "next - line",
        new: "next line",
        expected: "\u{FEFF}\u{201C}q\u{201D}\r\nnext line\r\nlast  \r\n",
    },
    RegionCase {
        name: "everything at once",
        file: "\u{FEFF}\u{FB01}x \u{2026}  \r\nsay(\u{201C}hi\u{201D})\u{A0}\nx\u{B2}\u{3000}\r\n\u{FF21}\ncafe\u{301}\n",
        old: "say(\"hi\")\nx2",
        new: "say(\"bye\")\ny",
        expected: "\u{FEFF}\u{FB01}x \u{2026}  \r\nsay(\"bye\")\ny\u{3000}\r\n\u{FF21}\ncafe\u{301}\n",
    },
    RegionCase {
        name: "an exact edit in a mixed file",
        file: "a\r\nb\nc\r\n\u{2018}d\u{2019}  \n",
        old: "b\nc",
        new: "B\nC\nC2",
        expected: "a\r\nB\nC\nC2\r\n\u{2018}d\u{2019}  \n",
    },
];

#[tokio::test]
async fn an_edit_rewrites_only_the_matched_region() {
    for case in REGION_CASES {
        let (dir, ctx) = workspace();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, case.file).unwrap();
        let result = call(
            &ctx,
            json!({"path": "f.txt", "oldText": case.old, "newText": case.new}),
        )
        .await;
        assert!(result.is_ok(), "{}: {result:?}", case.name);
        assert_eq!(
            String::from_utf8(std::fs::read(&path).unwrap()).unwrap(),
            case.expected,
            "{}",
            case.name
        );
    }
}

#[tokio::test]
async fn the_diff_of_a_fuzzy_edit_shows_the_real_change() {
    let (dir, ctx) = workspace();
    let path = dir.path().join("q.txt");
    std::fs::write(
        &path,
        "a = \u{2018}x\u{2019};\nb = \u{201C}y\u{201D};\nc = 1;  \n",
    )
    .unwrap();
    let result = call(
        &ctx,
        json!({"path": "q.txt", "oldText": "b = \"y\";", "newText": "b = \"z\";"}),
    )
    .await
    .unwrap();
    // pi showed the normalized file: `a = 'x';` and `c = 1;` as context.
    assert_eq!(
        result.details,
        Some(json!({
            "diff": " 1 a = \u{2018}x\u{2019};\n-2 b = \u{201C}y\u{201D};\n+2 b = \"z\";\n 3 c = 1;  ",
            "firstChangedLine": 2
        }))
    );
}

#[tokio::test]
async fn a_fuzzy_edit_that_would_write_the_same_bytes_is_refused() {
    let (dir, ctx) = workspace();
    let path = dir.path().join("f.txt");
    std::fs::write(&path, "hello\u{A0}world\n").unwrap();
    assert_eq!(
        edit_err(&ctx, "f.txt", "hello world", "hello\u{A0}world").await,
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
    assert_eq!(read(&path), "hello\u{A0}world\n");
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
