//! `-c/--continue` and `-r/--resume`: the sessions of this workspace (the transcript header's
//! `cwd` is the workspace), newest first, as pi's `continueRecent` and its picker find them.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::Path;

use clawloop_core::clock::{Clock, SystemClock};
use clawloop_session::SessionStore;
use serde_json::Value;

use crate::env_setup::Setup;
use crate::render::sanitize::{for_stderr, for_stdout};
use crate::session_pick::key_of_session;
use crate::sessions::relative_time::relative;

/// The bytes read for a transcript's header line: headers are a few hundred bytes.
const HEADER_BYTES: u64 = 4096;
/// The bytes read to find a transcript's first user message for the picker.
const FIRST_MESSAGE_BYTES: u64 = 256 * 1024;
/// How many sessions the picker lists.
const PICKER_ROWS: usize = 20;
/// How much of a first message a picker row shows, in characters.
const PREVIEW_CHARS: usize = 60;

/// A session of the workspace, as `--resume` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceSession {
    /// The session key that continues it.
    pub key: String,
    /// The session id.
    pub session_id: String,
    /// Last activity, ms since the epoch.
    pub updated_at: u64,
    /// The first user message, on one line and shortened (empty when there is none).
    pub first_message: String,
}

/// Up to `limit` sessions whose transcript was started in `workspace`, most recently updated
/// first. Only the keys' current sessions are candidates: those are the ones a key continues.
pub fn workspace_sessions(
    store: &SessionStore,
    workspace: &Path,
    limit: usize,
    with_first_message: bool,
) -> Result<Vec<WorkspaceSession>, String> {
    let mut records = store.list().map_err(|err| err.to_string())?;
    records.sort_by_key(|stored| std::cmp::Reverse(stored.record.updated_at));
    let cwd = workspace.display().to_string();
    let read = if with_first_message {
        FIRST_MESSAGE_BYTES
    } else {
        HEADER_BYTES
    };
    let mut found = Vec::new();
    for stored in records {
        if found.len() == limit {
            break;
        }
        let Some(head) = read_head(&stored.record.transcript_path(store.dir()), read) else {
            continue;
        };
        if header_cwd(&head).as_deref() != Some(cwd.as_str()) {
            continue;
        }
        found.push(WorkspaceSession {
            key: stored.key,
            session_id: stored.record.session_id,
            updated_at: stored.record.updated_at,
            first_message: first_user_text(&head).unwrap_or_default(),
        });
    }
    Ok(found)
}

/// The session flags `run` and `chat` share.
#[derive(Debug, Clone, Copy)]
pub struct SessionFlags<'a> {
    /// `--session ID`.
    pub session: Option<&'a str>,
    /// `-c/--continue`.
    pub continue_recent: bool,
    /// `-r/--resume`.
    pub resume: bool,
    /// `--session-key`.
    pub session_key: &'a str,
    /// `--new`.
    pub new: bool,
}

/// The session key a command runs in, and whether it starts a fresh session: `--session`'s
/// key, the workspace's most recent (`--continue`, fresh when there is none, as pi starts
/// one), the one picked (`--resume`), or `--session-key` (fresh with `--new`).
pub fn session_target(flags: SessionFlags<'_>, setup: &Setup) -> Result<(String, bool), String> {
    if let Some(id) = flags.session {
        return Ok((key_of_session(&setup.home, &setup.env.agent_id, id)?, false));
    }
    if flags.continue_recent {
        return continue_target(setup, flags.session_key);
    }
    if flags.resume {
        return Ok((resume_target(setup)?, false));
    }
    Ok((flags.session_key.to_owned(), flags.new))
}

/// `--continue` for a command over `setup` (`run`, `chat`): the key of the workspace's most
/// recent session and `false`, or `default_key` and `true` (start a fresh session) when the
/// workspace has none, as pi starts one.
pub fn continue_target(setup: &Setup, default_key: &str) -> Result<(String, bool), String> {
    let store = store_of(setup)?;
    Ok(
        match workspace_sessions(&store, &setup.env.workspace_dir, 1, false)?.pop() {
            Some(session) => (session.key, false),
            None => (default_key.to_owned(), true),
        },
    )
}

/// `--resume` for a command over `setup`: the key of the session the user picks by its number
/// on a terminal. Off a terminal the list goes to stdout and the error says how to name one
/// instead.
pub fn resume_target(setup: &Setup) -> Result<String, String> {
    pick_key(&store_of(setup)?, &setup.env.workspace_dir)
}

fn store_of(setup: &Setup) -> Result<SessionStore, String> {
    SessionStore::for_agent(&setup.home, &setup.env.agent_id).map_err(|err| err.to_string())
}

fn pick_key(store: &SessionStore, workspace: &Path) -> Result<String, String> {
    let sessions = workspace_sessions(store, workspace, PICKER_ROWS, true)?;
    if sessions.is_empty() {
        return Err(format!(
            "--resume: no sessions in {} yet; run without --resume to start one",
            workspace.display()
        ));
    }
    let list = picker_rows(&sessions, SystemClock.now_ms());
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !interactive {
        print!("{}", for_stdout(&list));
        return Err(
            "--resume needs a terminal to pick from: pass --session ID with an id above".to_owned(),
        );
    }
    // Keys and first messages come from files.
    eprint!(
        "{}Resume which session? [1-{}] ",
        for_stderr(&list),
        sessions.len()
    );
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .take(64)
        .read_line(&mut answer)
        .map_err(|err| format!("--resume: cannot read the answer: {err}"))?;
    choose(&sessions, answer.trim()).map(|session| session.key.clone())
}

/// The session numbered `answer` (1-based) in the list.
fn choose<'a>(
    sessions: &'a [WorkspaceSession],
    answer: &str,
) -> Result<&'a WorkspaceSession, String> {
    answer
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|index| sessions.get(index))
        .ok_or_else(|| {
            format!(
                "--resume: `{answer}` is not a number from 1 to {}",
                sessions.len()
            )
        })
}

/// One numbered row per session: number, short id, key, age, first message.
fn picker_rows(sessions: &[WorkspaceSession], now_ms: u64) -> String {
    let key_width = sessions
        .iter()
        .map(|s| s.key.chars().count())
        .max()
        .unwrap_or(0);
    let mut rows = String::new();
    for (index, session) in sessions.iter().enumerate() {
        let id: String = session.session_id.chars().take(8).collect();
        let age = relative(session.updated_at, now_ms);
        let row = format!(
            "{:>3}  {id:<8}  {:<key_width$}  {age:<12}  {}",
            index + 1,
            session.key,
            session.first_message
        );
        rows.push_str(row.trim_end());
        rows.push('\n');
    }
    rows
}

fn read_head(path: &Path, max: u64) -> Option<Vec<u8>> {
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(max)
        .read_to_end(&mut head)
        .ok()?;
    Some(head)
}

fn header_cwd(head: &[u8]) -> Option<String> {
    let line = head.split(|b| *b == b'\n').next()?;
    let header: Value = serde_json::from_slice(line).ok()?;
    if header["type"] != "session" {
        return None;
    }
    header["cwd"].as_str().map(str::to_owned)
}

/// The text of the first user message among the complete lines of `head`, on one line.
fn first_user_text(head: &[u8]) -> Option<String> {
    let message = head
        .split(|b| *b == b'\n')
        .skip(1)
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
        .find(|entry| entry["type"] == "message" && entry["message"]["role"] == "user")?;
    let content = &message["message"]["content"];
    let text = match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join(" "),
        _ => return None,
    };
    Some(preview(&text))
}

fn preview(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Control characters in a transcript must not reach the terminal.
    let flat: String = flat.chars().filter(|c| !c.is_control()).collect();
    if flat.chars().count() <= PREVIEW_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(PREVIEW_CHARS - 1).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn session(key: &str, id: &str, first: &str) -> WorkspaceSession {
        WorkspaceSession {
            key: key.to_owned(),
            session_id: id.to_owned(),
            updated_at: 1_000,
            first_message: first.to_owned(),
        }
    }

    #[test]
    fn a_transcript_head_gives_its_cwd_and_first_user_message() {
        let head = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/w"}"#,
            "\n",
            r#"{"type":"model_change","id":"a","provider":"p","modelId":"m"}"#,
            "\n",
            r#"{"type":"message","id":"b","message":{"role":"user","content":[{"type":"text","text":"fix\nthe   bug"}]}}"#,
            "\n",
            r#"{"type":"message","id":"c","message":{"role":"user","content":"later"}}"#,
        );
        assert_eq!(header_cwd(head.as_bytes()), Some("/w".to_owned()));
        assert_eq!(
            first_user_text(head.as_bytes()),
            Some("fix the bug".to_owned())
        );
        assert_eq!(header_cwd(b"{\"type\":\"message\"}"), None);
        assert_eq!(header_cwd(b"not json"), None);
    }

    #[test]
    fn previews_are_one_short_line_without_control_characters() {
        assert_eq!(preview("a\x1b]52;c;x\x07 b"), "a]52;c;x b");
        let long = "word ".repeat(30);
        let shown = preview(&long);
        assert_eq!(shown.chars().count(), PREVIEW_CHARS);
        assert!(shown.ends_with('…'), "{shown}");
    }

    #[test]
    fn the_answer_is_a_number_from_the_list() {
        let sessions = [session("main", "aaaa", "x"), session("k2", "bbbb", "y")];
        assert_eq!(choose(&sessions, "2").map(|s| s.key.as_str()), Ok("k2"));
        for bad in ["0", "3", "", "two", "-1"] {
            assert!(choose(&sessions, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rows_are_numbered_and_aligned() {
        let sessions = [
            session("main", "0123456789abcdef", "hello there"),
            session("review", "fedcba98", ""),
        ];
        assert_eq!(
            picker_rows(&sessions, 1_000),
            "  1  01234567  main    just now      hello there\n  2  fedcba98  review  just now\n"
        );
    }
}
