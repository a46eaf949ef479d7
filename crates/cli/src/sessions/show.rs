//! `clawloop sessions show <key|id-prefix>`: a session's header, then its conversation on the
//! current branch, readable in a terminal.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write as _;

use anstyle::Style;
use clap::Args;
use clawloop_session::{SessionStore, StoredSession, Transcript, format_iso};

use super::open::open_transcript;
use super::render::{Item, Step, args_summary, head_lines, steps};
use super::resolve::resolve;
use crate::failure::Failure;
use crate::render::sanitize::neutralize;
use crate::render::term::TermCaps;

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
    let caps = TermCaps::detect();
    let look = Look {
        neutralize: caps.stdout_tty,
        dim_ids: caps.stdout_color,
    };
    let mut text = look
        .shown(&header(&session, &path, transcript.as_ref()))
        .into_owned();
    text.push('\n');
    match &transcript {
        Some(transcript) => text.push_str(&render(&steps(transcript), &look)),
        None => text.push_str("(no messages yet)\n"),
    }
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

/// How the page is written: on a terminal the transcript's text (what models, tools and files
/// wrote) is neutralized and the entry ids are dim; piped, it is written as it is.
#[derive(Debug, Clone, Copy, Default)]
pub struct Look {
    /// Show control characters visibly.
    pub neutralize: bool,
    /// Dim the entry ids.
    pub dim_ids: bool,
}

impl Look {
    fn shown<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.neutralize {
            neutralize(text)
        } else {
            Cow::Borrowed(text)
        }
    }

    /// ` · <id>`, the end of a step's first line.
    fn id_suffix(&self, id: &str) -> String {
        let id = self.shown(id);
        if self.dim_ids {
            let dim = Style::new().dimmed();
            format!(" {dim}· {id}{dim:#}")
        } else {
            format!(" · {id}")
        }
    }
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

/// The conversation as text: a role line ending in the entry id, then the text indented by
/// two spaces.
pub fn render(steps: &[Step], look: &Look) -> String {
    let mut text = String::new();
    for Step { id, item } in steps {
        let id = look.id_suffix(id);
        match item {
            Item::User { text: body } => block(&mut text, look, "user", &id, body),
            Item::Assistant {
                model,
                text: body,
                tool_calls,
                error,
            } => {
                let _ = writeln!(text, "{}{id}", look.shown(&format!("assistant ({model})")));
                indent(&mut text, look, body);
                for (name, args) in tool_calls {
                    let summary = args_summary(args, ARGS_CHARS);
                    let line = format!("  ▸ {name} {summary}");
                    let _ = writeln!(text, "{}", look.shown(&line));
                }
                if let Some(error) = error {
                    let _ = writeln!(text, "{}", look.shown(&format!("  error: {error}")));
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
                block(
                    &mut text,
                    look,
                    &label,
                    &id,
                    &head_lines(body, RESULT_LINES),
                );
            }
            Item::Bash { command, output } => block(
                &mut text,
                look,
                &format!("shell: {command}"),
                &id,
                &head_lines(output, RESULT_LINES),
            ),
            Item::Compaction {
                summary,
                tokens_before,
            } => block(
                &mut text,
                look,
                &format!("[compaction summary of {tokens_before} tokens]"),
                &id,
                summary,
            ),
            Item::BranchSummary { summary } => {
                block(&mut text, look, "[branch summary]", &id, summary)
            }
            Item::Custom { kind, text: body } => {
                block(&mut text, look, &format!("[{kind}]"), &id, body)
            }
            Item::Note(note) => {
                let _ = writeln!(text, "{}{id}\n", look.shown(&format!("· {note}")));
            }
        }
    }
    text
}

fn block(text: &mut String, look: &Look, label: &str, id: &str, body: &str) {
    let _ = writeln!(text, "{}{id}", look.shown(label));
    indent(text, look, body);
    text.push('\n');
}

fn indent(text: &mut String, look: &Look, body: &str) {
    for line in body.trim_end().lines() {
        if line.is_empty() {
            text.push('\n');
        } else {
            let _ = writeln!(text, "  {}", look.shown(line));
        }
    }
}
