//! `clawloop sessions export <key|id> [--format md|jsonl] [-o FILE]`: a session's current
//! branch as a Markdown document, or as its raw JSONL lines.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use clawloop_session::{SessionStore, StoredSession, Transcript};
use serde_json::Value;

use super::open::open_transcript;
use super::render::{Item, conversation};
use super::resolve::resolve;
use crate::failure::Failure;
use crate::render::sanitize::neutralize;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A readable Markdown document.
    Md,
    /// The transcript's own lines (header and the current branch's entries).
    Jsonl,
}

/// Arguments of `clawloop sessions export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The session: its key, its id or a unique prefix of the id.
    session: String,
    /// The output format.
    #[arg(long, value_enum, default_value = "md")]
    format: Format,
    /// Write to this file instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Runs `clawloop sessions export`.
pub fn run(store: &SessionStore, args: &ExportArgs) -> Result<(), Failure> {
    let session = resolve(store, &args.session)?;
    let (path, transcript) = open_transcript(store, &session.record)?;
    let Some(transcript) = transcript else {
        return Err(Failure::failed(format!(
            "session `{}` has nothing to export yet: {} does not exist",
            session.key,
            path.display()
        )));
    };
    let bytes = match args.format {
        Format::Md => markdown(&session, &transcript).into_bytes(),
        Format::Jsonl => branch_jsonl(&path, &transcript)?,
    };
    match &args.output {
        Some(file) => std::fs::write(file, &bytes)
            .map_err(|err| Failure::failed(format!("cannot write {}: {err}", file.display()))),
        None => {
            let mut out = std::io::stdout().lock();
            // What models and tools wrote reaches a terminal neutralized; a pipe gets the bytes.
            let bytes = if out.is_terminal() {
                neutralize(&String::from_utf8_lossy(&bytes))
                    .into_owned()
                    .into_bytes()
            } else {
                bytes
            };
            out.write_all(&bytes)
                .and_then(|()| out.flush())
                .map_err(|err| Failure::failed(format!("cannot write to stdout: {err}")))
        }
    }
}

/// The file's header line and the lines of the entries on the current branch, byte for byte;
/// for a linear transcript (every entry on the branch) that is the whole file.
fn branch_jsonl(path: &Path, transcript: &Transcript) -> Result<Vec<u8>, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|err| Failure::failed(format!("cannot read {}: {err}", path.display())))?;
    let branch: HashSet<&str> = transcript
        .leaf_id()
        .map(|leaf| transcript.branch_path(leaf))
        .unwrap_or_default()
        .into_iter()
        .map(|entry| entry.id())
        .collect();
    if branch.len() == transcript.entry_count() {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut lines = bytes.split_inclusive(|b| *b == b'\n');
    if let Some(header) = lines.next() {
        out.extend_from_slice(header);
    }
    for line in lines {
        // Lines that are not entries (torn, unparsable) are not part of any branch.
        let on_branch = serde_json::from_slice::<Value>(line).is_ok_and(|value| {
            value
                .get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| branch.contains(id))
        });
        if on_branch {
            out.extend_from_slice(line);
        }
    }
    Ok(out)
}

/// The conversation as a Markdown document: a title and facts, then a heading per message,
/// tool calls and results in code fences.
fn markdown(session: &StoredSession, transcript: &Transcript) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Session {}\n", session.key);
    let _ = writeln!(md, "- id: `{}`", session.record.session_id);
    let header = transcript.header();
    if !header.timestamp.is_empty() {
        let _ = writeln!(md, "- created: {}", header.timestamp);
    }
    if !header.cwd.is_empty() {
        let _ = writeln!(md, "- cwd: `{}`", header.cwd);
    }
    if let Some(parent) = &header.parent_session {
        let _ = writeln!(md, "- forked from: `{parent}`");
    }
    md.push('\n');
    for item in conversation(transcript) {
        match item {
            Item::User { text } => section(&mut md, "User", &text),
            Item::Assistant {
                model,
                text,
                tool_calls,
                error,
            } => {
                let _ = writeln!(md, "## Assistant ({model})\n");
                if !text.trim().is_empty() {
                    let _ = writeln!(md, "{}\n", text.trim_end());
                }
                for (name, args) in tool_calls {
                    let args = serde_json::to_string_pretty(&args).unwrap_or_default();
                    let _ = writeln!(md, "**Tool call:** `{name}`\n");
                    fenced(&mut md, "json", &args);
                }
                if let Some(error) = error {
                    let _ = writeln!(md, "> **Error:** {error}\n");
                }
            }
            Item::ToolResult {
                name,
                text,
                is_error,
            } => {
                let suffix = if is_error { " (error)" } else { "" };
                let _ = writeln!(md, "## Tool result: `{name}`{suffix}\n");
                fenced(&mut md, "", &text);
            }
            Item::Bash { command, output } => {
                let _ = writeln!(md, "## Shell\n");
                fenced(&mut md, "sh", &format!("$ {command}\n{output}"));
            }
            Item::Compaction {
                summary,
                tokens_before,
            } => section(
                &mut md,
                &format!("Compaction summary ({tokens_before} tokens before)"),
                &summary,
            ),
            Item::BranchSummary { summary } => section(&mut md, "Branch summary", &summary),
            Item::Custom { kind, text } => section(&mut md, &format!("Custom: {kind}"), &text),
            Item::Note(note) => {
                let _ = writeln!(md, "_{note}_\n");
            }
        }
    }
    md
}

fn section(md: &mut String, heading: &str, body: &str) {
    let _ = writeln!(md, "## {heading}\n");
    if !body.trim().is_empty() {
        let _ = writeln!(md, "{}\n", body.trim_end());
    }
}

/// `body` in a code fence longer than any run of backticks inside it.
fn fenced(md: &mut String, lang: &str, body: &str) {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let _ = writeln!(md, "{fence}{lang}\n{}\n{fence}\n", body.trim_end());
}
