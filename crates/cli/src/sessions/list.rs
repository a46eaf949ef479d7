//! `clawloop sessions list`: one line per session key, newest first, from `sessions.json`
//! alone (a listing never opens a transcript, so it stays fast with thousands of sessions).

use std::io::Write;

use clap::Args;
use clawloop_core::clock::{Clock, SystemClock};
use clawloop_session::{SessionStore, SessionSummary, format_iso};
use serde_json::json;

use super::relative_time::relative;
use super::resolve::store_failure;
use crate::failure::Failure;
use crate::render::sanitize::for_stdout;

/// Characters of a session id shown without `--wide`.
const SHORT_ID: usize = 8;

/// Arguments of `clawloop sessions list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print a JSON array instead of a table.
    #[arg(long)]
    json: bool,
    /// Show whole session ids instead of their first 8 characters.
    #[arg(long)]
    wide: bool,
    /// Show only the N most recently updated sessions.
    #[arg(long, short = 'n', value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    limit: Option<u32>,
}

/// Runs `clawloop sessions list`.
pub fn run(store: &SessionStore, args: &ListArgs) -> Result<(), Failure> {
    let mut sessions = store.list_summaries().map_err(store_failure)?;
    if let Some(limit) = args.limit {
        sessions.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    }
    let text = if args.json {
        json_text(store, &sessions)
    } else {
        table(&sessions, args.wide, SystemClock.now_ms())
    };
    // Keys, ids and model names come from `sessions.json`, which any process may write.
    let text = for_stdout(&text);
    let mut out = std::io::stdout().lock();
    // A closed stdout (`| head`) ends the listing early; that is not a failure.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
    Ok(())
}

fn model_of(session: &SessionSummary) -> Option<String> {
    match (&session.model_provider, &session.model) {
        (Some(provider), Some(model)) => Some(format!("{provider}/{model}")),
        (None, Some(model)) => Some(model.clone()),
        _ => None,
    }
}

fn json_text(store: &SessionStore, sessions: &[SessionSummary]) -> String {
    let rows: Vec<serde_json::Value> = sessions
        .iter()
        .map(|s| {
            let file = clawloop_session::SessionRecord::new(
                s.session_id.clone(),
                s.session_file.clone(),
                s.updated_at,
            )
            .transcript_path(store.dir());
            json!({
                "key": s.key,
                "id": s.session_id,
                "sessionId": s.session_id,
                "sessionFile": file.to_string_lossy(),
                "modelProvider": s.model_provider,
                "model": s.model,
                "messages": s.message_count,
                "totalTokens": s.total_tokens,
                "updatedAt": s.updated_at,
                "updated": (s.updated_at > 0).then(|| format_iso(s.updated_at)),
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&rows).unwrap_or_else(|_| "[]".to_owned());
    text.push('\n');
    text
}

fn table(sessions: &[SessionSummary], wide: bool, now_ms: u64) -> String {
    if sessions.is_empty() {
        return "no sessions\n".to_owned();
    }
    let header = ["KEY", "ID", "MODEL", "MESSAGES", "UPDATED"].map(str::to_owned);
    let mut rows: Vec<[String; 5]> = vec![header];
    rows.extend(sessions.iter().map(|s| {
        let id = if wide {
            s.session_id.clone()
        } else {
            s.session_id.chars().take(SHORT_ID).collect()
        };
        [
            s.key.clone(),
            id,
            model_of(s).unwrap_or_else(|| "-".to_owned()),
            s.message_count
                .map_or_else(|| "-".to_owned(), |n| n.to_string()),
            relative(s.updated_at, now_ms),
        ]
    }));
    let mut widths = [0usize; 5];
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            if i + 1 < row.len() {
                line.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn table_aligns_columns_and_shortens_ids() {
        let now = 1_800_000_000_000;
        let sessions = [
            SessionSummary {
                key: "main".into(),
                session_id: "0123456789abcdef".into(),
                updated_at: now - 180_000,
                model_provider: Some("acme".into()),
                model: Some("m1".into()),
                message_count: Some(12),
                ..SessionSummary::default()
            },
            SessionSummary {
                key: "agent:main:x".into(),
                session_id: "fedcba98".into(),
                ..SessionSummary::default()
            },
        ];
        assert_eq!(
            table(&sessions, false, now),
            "KEY           ID        MODEL    MESSAGES  UPDATED\n\
             main          01234567  acme/m1  12        3 min ago\n\
             agent:main:x  fedcba98  -        -         never\n"
        );
        assert!(table(&sessions, true, now).contains("0123456789abcdef"));
    }
}
