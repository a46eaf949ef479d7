//! Where sessions live (SPEC §2): `<home>/agents/<agentId>/sessions/<sessionId>.jsonl`, next to
//! the store `sessions.json`.

use std::path::{Path, PathBuf};

use crate::error::SessionError;

/// The agent whose sessions are used when none is named.
pub const DEFAULT_AGENT_ID: &str = "main";

/// The store's file name inside a sessions directory.
pub const STORE_FILE_NAME: &str = "sessions.json";

/// The file name extension of a transcript.
pub const TRANSCRIPT_EXTENSION: &str = "jsonl";

/// The clawloop home: `$CLAWLOOP_HOME`, else `~/.clawloop` (`$HOME`, or `%USERPROFILE%` on
/// Windows); `None` when neither variable is set.
pub fn clawloop_home() -> Option<PathBuf> {
    let non_empty = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(home) = non_empty("CLAWLOOP_HOME") {
        return Some(PathBuf::from(home));
    }
    non_empty("HOME")
        .or_else(|| non_empty("USERPROFILE"))
        .map(|h| PathBuf::from(h).join(".clawloop"))
}

/// `<home>/agents/<agent_id>/sessions`; the agent id must be a plain file name.
pub fn sessions_dir(home: &Path, agent_id: &str) -> Result<PathBuf, SessionError> {
    check_name("agent id", agent_id)?;
    Ok(home.join("agents").join(agent_id).join("sessions"))
}

/// `<dir>/<session_id>.jsonl`; the session id must be a plain file name.
pub fn transcript_path(dir: &Path, session_id: &str) -> Result<PathBuf, SessionError> {
    check_name("session id", session_id)?;
    Ok(dir.join(format!("{session_id}.{TRANSCRIPT_EXTENSION}")))
}

/// Accepts names that stay one file name on every platform: ASCII letters, digits, `.`, `_`
/// and `-`, at most 128 of them, and not `.` or `..`. UUIDs and OpenClaw's agent ids pass;
/// anything that could climb out of its directory does not.
pub(crate) fn check_name(what: &'static str, value: &str) -> Result<(), SessionError> {
    let reason = if value.is_empty() {
        Some("it is empty")
    } else if value.len() > 128 {
        Some("it is longer than 128 characters")
    } else if value == "." || value == ".." {
        Some("it names a directory")
    } else if !value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
    {
        Some("only ASCII letters, digits, '.', '_' and '-' are allowed")
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(reason) => Err(SessionError::InvalidName {
            what,
            value: value.to_owned(),
            reason,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_follows_spec_section_2() {
        let dir = sessions_dir(Path::new("/h"), "main").unwrap();
        assert_eq!(dir, Path::new("/h/agents/main/sessions"));
        assert_eq!(
            transcript_path(&dir, "3f1c2a9e-7b4d-4e8a-9c1f-0a2b3c4d5e6f").unwrap(),
            Path::new("/h/agents/main/sessions/3f1c2a9e-7b4d-4e8a-9c1f-0a2b3c4d5e6f.jsonl")
        );
    }

    #[test]
    fn names_that_could_escape_are_refused() {
        for bad in ["", ".", "..", "a/b", "..\\x", "a b", "é", &"x".repeat(129)] {
            let err = sessions_dir(Path::new("/h"), bad).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with(&format!("invalid agent id {bad:?}")),
                "{err}"
            );
        }
        assert!(transcript_path(Path::new("/d"), "../../etc/passwd").is_err());
    }
}
