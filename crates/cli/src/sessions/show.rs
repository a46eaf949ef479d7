//! `clawloop sessions show <key|id-prefix>`: a session's header, then its conversation on the
//! current branch, readable in a terminal.

use std::fmt::Write as _;
use std::io::{IsTerminal as _, Write as _};

use clap::Args;
use clawloop_session::{SessionStore, StoredSession, Transcript, format_iso};

use super::open::open_transcript;
use super::render::{Item, args_summary, conversation, head_lines};
use super::resolve::resolve;
use crate::failure::Failure;
use crate::render::sanitize::neutralize;

/// Lines of a tool result shown before the rest is counted.
const RESULT_LINES: usize = 6;
/// Characters of a tool call's argument summary.
const ARGS_CHARS: usize = 100;

/// Arguments of `clawloop sessions show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The session: its key, its id or a unique prefix of the id.
    session: String,
}

/// Runs `clawloop sessions show`.
pub fn run(store: &SessionStore, args: &ShowArgs) -> Result<(), Failure> {
    let session = resolve(store, &args.session)?;
    let (path, transcript) = open_transcript(store, &session.record)?;
    let mut text = header(&session, &path, transcript.as_ref());
    text.push('\n');
    match &transcript {
        Some(transcript) => text.push_str(&render(&conversation(transcript))),
        None => text.push_str("(no messages yet)\n"),
    }
    let mut out = std::io::stdout().lock();
    // The transcript holds what models, tools and files wrote: a terminal gets it neutralized.
    let text = if out.is_terminal() {
        neutralize(&text)
    } else {
        text.as_str().into()
    };
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

fn header(
    session: &StoredSession,
    path: &std::path::Path,
    transcript: Option<&Transcript>,
) -> String {
    let record = &session.record;
    let model = match (&record.model_provider, &record.model) {
        (Some(p), Some(m)) => format!("{p}/{m}"),
        (None, Some(m)) => m.clone(),
        _ => "-".to_owned(),
    };
    let created = transcript
        .map(|t| t.header().timestamp.clone())
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "-".to_owned());
    let updated = if record.updated_at > 0 {
        format_iso(record.updated_at)
    } else {
        "-".to_owned()
    };
    let tokens = match (record.total_tokens, record.context_tokens) {
        (Some(total), Some(window)) => format!("{total} / {window}"),
        (Some(total), None) => total.to_string(),
        _ => "-".to_owned(),
    };
    let mut text = String::new();
    let _ = writeln!(text, "key:      {}", session.key);
    let _ = writeln!(text, "id:       {}", record.session_id);
    let _ = writeln!(text, "file:     {}", path.display());
    if let Some(parent) = transcript.and_then(|t| t.header().parent_session.as_deref()) {
        let _ = writeln!(text, "parent:   {parent}");
    }
    let _ = writeln!(text, "model:    {model}");
    let _ = writeln!(text, "created:  {created}");
    let _ = writeln!(text, "updated:  {updated}");
    let _ = writeln!(text, "tokens:   {tokens}");
    text
}

/// The conversation as text: a role line, then the text indented by two spaces.
pub fn render(items: &[Item]) -> String {
    let mut text = String::new();
    for item in items {
        match item {
            Item::User { text: body } => block(&mut text, "user", body),
            Item::Assistant {
                model,
                text: body,
                tool_calls,
                error,
            } => {
                let _ = writeln!(text, "assistant ({model})");
                indent(&mut text, body);
                for (name, args) in tool_calls {
                    let summary = args_summary(args, ARGS_CHARS);
                    let _ = writeln!(text, "  ▸ {name} {summary}");
                }
                if let Some(error) = error {
                    let _ = writeln!(text, "  error: {error}");
                }
                text.push('\n');
            }
            Item::ToolResult {
                name,
                text: body,
                is_error,
            } => {
                let label = if *is_error {
                    format!("tool result: {name} (error)")
                } else {
                    format!("tool result: {name}")
                };
                block(&mut text, &label, &head_lines(body, RESULT_LINES));
            }
            Item::Bash { command, output } => {
                block(
                    &mut text,
                    &format!("shell: {command}"),
                    &head_lines(output, RESULT_LINES),
                );
            }
            Item::Compaction {
                summary,
                tokens_before,
            } => block(
                &mut text,
                &format!("[compaction summary of {tokens_before} tokens]"),
                summary,
            ),
            Item::BranchSummary { summary } => block(&mut text, "[branch summary]", summary),
            Item::Custom { kind, text: body } => block(&mut text, &format!("[{kind}]"), body),
            Item::Note(note) => {
                let _ = writeln!(text, "· {note}\n");
            }
        }
    }
    text
}

fn block(text: &mut String, label: &str, body: &str) {
    let _ = writeln!(text, "{label}");
    indent(text, body);
    text.push('\n');
}

fn indent(text: &mut String, body: &str) {
    for line in body.trim_end().lines() {
        if line.is_empty() {
            text.push('\n');
        } else {
            let _ = writeln!(text, "  {line}");
        }
    }
}
